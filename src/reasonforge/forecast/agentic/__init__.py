"""Longitudinal agentic forecasting: an agent researches a question at several dates before it resolves.

At each forecast date the agent sees only what was published by then (a dated news corpus searched and
read through date-bounded tools), answers with a probability vector over mutually exclusive outcomes,
and is rewarded by a strictly proper score against the eventual outcome; episodes yield per-date rewards,
GRPO group-relative advantages and horizon/reliability analyses (the AlphaBet setting).

Modules: `corpus` (dated tantivy corpus: `DatedCorpus`, `load_articles`; `corpus_cli` is `reasonforge
corpus`), `records` (questions, notebooks, episode records), `questions` (questions built from the news
sample), `rewards` (format checks, Brier/log scores), `grpo` (group advantages), `readers` (tool-free
readers), `analysis` (horizon table, reader swap), `tools` (Search/Read/Compute toolbox), `agents` (model
and offline agents), `episode` (the multi-date loop).

The public names below are importable from this package; each loads its module on first use (PEP 562),
so `import reasonforge.forecast.agentic` does not pull in tantivy, NumPy or the sandbox.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

# name → modules that may define it, tried in order (the agent protocol may live with the episode loop
# or in its own module).
_EXPORTS: dict[str, tuple[str, ...]] = {
    **dict.fromkeys(("CorpusStats", "DatedCorpus", "Document", "DocumentNotAvailable", "IngestReport",
                     "LeakError", "SearchHit", "load_articles", "parse_as_of"), ("corpus",)),
    **dict.fromkeys(("DateForecast", "EpisodeRecord", "Notebook", "Question"), ("records",)),
    **dict.fromkeys(("DateReward", "ParsedForecast", "check_notebook", "date_reward", "floored_log_score",
                     "multiclass_brier_loss", "normalise", "parse_forecast"), ("rewards",)),
    "group_advantages": ("grpo",),
    **dict.fromkeys(("BaseRateReader", "EvidenceReader", "Reader", "UniformReader"), ("readers",)),
    **dict.fromkeys(("HorizonTable", "SwapReport", "horizon_table", "reader_swap", "reliability_summary"),
                    ("analysis",)),
    **dict.fromkeys(("ToolBudget", "ToolResult", "Toolbox"), ("tools",)),
    **dict.fromkeys(("Agent", "AgentReply"), ("episode", "agents")),
    **dict.fromkeys(("run_episode", "run_many"), ("episode",)),
    **dict.fromkeys(("MarketAgent", "RetrievalHeuristicAgent", "ToolCallingAgent", "UniformAgent"), ("agents",)),
}

__all__ = [
    "Agent",
    "AgentReply",
    "BaseRateReader",
    "CorpusStats",
    "DateForecast",
    "DateReward",
    "DatedCorpus",
    "Document",
    "DocumentNotAvailable",
    "EpisodeRecord",
    "EvidenceReader",
    "HorizonTable",
    "IngestReport",
    "LeakError",
    "MarketAgent",
    "Notebook",
    "ParsedForecast",
    "Question",
    "Reader",
    "RetrievalHeuristicAgent",
    "SearchHit",
    "SwapReport",
    "ToolBudget",
    "ToolCallingAgent",
    "ToolResult",
    "Toolbox",
    "UniformAgent",
    "UniformReader",
    "check_notebook",
    "date_reward",
    "floored_log_score",
    "group_advantages",
    "horizon_table",
    "load_articles",
    "multiclass_brier_loss",
    "normalise",
    "parse_as_of",
    "parse_forecast",
    "reader_swap",
    "reliability_summary",
    "run_episode",
    "run_many",
]


def __getattr__(name: str) -> Any:
    """Load the module defining `name` on first access and cache the attribute on this package."""
    modules = _EXPORTS.get(name)
    if modules is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    for module_name in modules:
        try:
            module = import_module(f"{__name__}.{module_name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{module_name}":
                raise  # a missing dependency inside the module is a real error
            continue
        if hasattr(module, name):
            value = getattr(module, name)
            globals()[name] = value
            return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r} (looked in {', '.join(modules)})")


def __dir__() -> list[str]:
    """Module attributes plus the lazily exported names."""
    return sorted(set(globals()) | set(__all__))
