"""Reasoning chains out of model outputs, and `ReasoningVerifier`, a LangChain callback that verifies them.

The parser lives in `reasonforge.chain` (it is input parsing, and the SDK uses it too); its names are
re-exported here for callers of `reasonforge.translate.integrations`. `ReasoningVerifier` loads only when
asked for (LangChain is an optional extra: `pip install 'reasonforge[langchain]'`).
"""

from __future__ import annotations

from typing import Any

from reasonforge.chain import (
    Reasoning,
    ReasoningChainError,
    parse_reasoning_chain,
    read_reasoning,
    split_reasoning,
)

__all__ = [
    "Reasoning",
    "ReasoningChainError",
    "ReasoningVerifier",
    "parse_reasoning_chain",
    "read_reasoning",
    "split_reasoning",
]


def __getattr__(name: str) -> Any:
    if name == "ReasoningVerifier":
        from reasonforge.translate.integrations.langchain import ReasoningVerifier

        return ReasoningVerifier
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
