"""Reasoning-trajectory scoring: a shared ledger of later events per market, key events, and a 0–4 grade.

Modules: `models` (markets, developments, the content-hashed ledger, forecasts), `queries` (search queries
from a market title), `build` (ledger assembly from the market's news and the dated corpus), `relevance`
(whether a development is about the market), `key_events` (developments about the market near the two
largest price moves), `embed` (offline sentence embeddings), `grade` (offline
and LLM graders, `grade_market`, which applies the design's rules to any ledger, built or hand-written).

The public names below load their module on first use (PEP 562), so importing this package is cheap.
"""

from __future__ import annotations

from reasonforge.lazy import lazy_exports

_EXPORTS: dict[str, str] = {
    **dict.fromkeys(("MIN_DEVELOPMENTS", "Development", "Forecast", "Ledger", "Market", "PricePoint",
                     "counted_developments", "load_forecasts", "load_ledger", "load_market", "rehash_ledger",
                     "save_ledger"), "models"),
    **dict.fromkeys(("key_events", "largest_moves"), "key_events"),
    **dict.fromkeys(("offline_queries",), "queries"),
    **dict.fromkeys(("build_ledger",), "build"),
    **dict.fromkeys(("EventDecision", "Grade", "GradeReport", "LLMGrader", "OfflineGrader", "grade_market"),
                    "grade"),
    **dict.fromkeys(("SentenceEmbedder",), "embed"),
}

__all__ = [
    "MIN_DEVELOPMENTS",
    "Development",
    "EventDecision",
    "Forecast",
    "Grade",
    "GradeReport",
    "LLMGrader",
    "Ledger",
    "Market",
    "OfflineGrader",
    "PricePoint",
    "SentenceEmbedder",
    "build_ledger",
    "counted_developments",
    "grade_market",
    "key_events",
    "largest_moves",
    "load_forecasts",
    "load_ledger",
    "load_market",
    "offline_queries",
    "rehash_ledger",
    "save_ledger",
]


__getattr__ = lazy_exports(__name__, _EXPORTS)
