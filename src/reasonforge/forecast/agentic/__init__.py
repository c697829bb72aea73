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

from reasonforge.lazy import lazy_exports

_EXPORTS: dict[str, str] = {
    **dict.fromkeys(("CorpusStats", "DatedCorpus", "Document", "DocumentNotAvailable", "IngestReport",
                     "LeakError", "SearchHit", "load_articles", "parse_as_of"), "corpus"),
    **dict.fromkeys(("DateForecast", "EpisodeRecord", "Notebook", "Question"), "records"),
    **dict.fromkeys(("DateReward", "ParsedForecast", "check_notebook", "date_reward", "floored_log_score",
                     "multiclass_brier_loss", "normalise", "parse_forecast"), "rewards"),
    "group_advantages": "grpo",
    **dict.fromkeys(("BaseRateReader", "EvidenceReader", "Reader", "UniformReader"), "readers"),
    **dict.fromkeys(("HorizonTable", "SwapReport", "horizon_table", "reader_swap", "reliability_summary"),
                    "analysis"),
    **dict.fromkeys(("ToolBudget", "ToolResult", "Toolbox"), "tools"),
    **dict.fromkeys(("Agent", "AgentReply", "MarketAgent", "RetrievalHeuristicAgent", "ToolCallingAgent",
                     "UniformAgent"), "agents"),
    **dict.fromkeys(("run_episode", "run_many"), "episode"),
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


__getattr__ = lazy_exports(__name__, _EXPORTS)


def __dir__() -> list[str]:
    """Module attributes plus the lazily exported names."""
    return sorted(set(globals()) | set(__all__))
