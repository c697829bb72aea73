"""Reasoning chains out of model outputs (OpenAI, Anthropic, DeepSeek, plain text) and a LangChain verifier.

`parse_reasoning_chain(response)` accepts a provider's JSON as a dict (or an SDK object with
`model_dump()`), or a string, and returns `list[ReasoningStep]` (ids 1..n, each depending on the previous
one). The reasoning (summaries, thinking blocks, `reasoning_content`, `<think>` sections) is used when the
payload has any, else the final answer text. `ReasoningVerifier`, the LangChain callback handler, loads
only when asked for (LangChain is an optional extra: `pip install 'reasonforge[langchain]'`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from reasonforge.translate.integrations.providers import (
    Reasoning,
    ReasoningChainError,
    from_anthropic_message,
    from_chat_completion,
    from_responses,
    split_think,
)
from reasonforge.translate.integrations.text import split_reasoning
from reasonforge.types import ReasoningStep

__all__ = [
    "Reasoning",
    "ReasoningChainError",
    "ReasoningVerifier",
    "parse_reasoning_chain",
    "read_reasoning",
    "split_reasoning",
]

Prefer = Literal["auto", "reasoning", "answer"]
_EXPECTED = ("an OpenAI Responses object ({object: 'response', output: [...]}), a Chat Completions object "
             "({choices: [{message: ...}]}, OpenAI / DeepSeek / vLLM / Ollama), an Anthropic message "
             "({type: 'message', content: [...]}), or reasoning text")


def read_reasoning(response: Any) -> Reasoning:
    """Which provider shape `response` has, and its reasoning segments and answer."""
    if hasattr(response, "model_dump") and not isinstance(response, Mapping):
        response = response.model_dump()  # openai / anthropic SDK objects are pydantic models
    if isinstance(response, str):
        thoughts, answer = split_think(response)
        return Reasoning("text", tuple(thoughts), answer if thoughts else response)
    if not isinstance(response, Mapping):
        raise ReasoningChainError(f"cannot read a reasoning chain from a {type(response).__name__}; expected {_EXPECTED}")
    if isinstance(response.get("error"), Mapping) and "choices" not in response and "output" not in response:
        error = response["error"]
        raise ReasoningChainError(f"the payload is an API error ({error.get('type', '?')}: "
                                  f"{str(error.get('message', ''))[:200]}), not a response")
    if response.get("object") == "response" or ("output" in response and "choices" not in response):
        return from_responses(response)
    if "choices" in response:
        return from_chat_completion(response)
    if response.get("type") == "message" or ("content" in response and response.get("role") == "assistant"):
        return from_anthropic_message(response)
    keys = ", ".join(sorted(map(str, response))) or "none"
    raise ReasoningChainError(f"unrecognised response shape (keys: {keys}); expected {_EXPECTED}")


def parse_reasoning_chain(response: Any, *, prefer: Prefer = "auto") -> list[ReasoningStep]:
    """The reasoning steps of a model response (dict, SDK object or string), ids 1..n in order.

    `prefer="auto"` uses the reasoning when the payload has any, else the answer; "reasoning" or "answer"
    force one (an error if it is empty)."""
    reading = read_reasoning(response)
    if prefer == "answer" or (prefer == "auto" and not reading.segments):
        units = split_reasoning(reading.answer)
        source = "answer text"
    else:
        units = list(reading.segments) if reading.whole_segments else [
            unit for segment in reading.segments for unit in split_reasoning(segment)]
        source = "reasoning"
    if not units:
        raise ReasoningChainError(f"the {reading.provider} payload has no {source} to split into steps"
                                  + ("" if prefer != "auto" else " (and no reasoning either)"))
    return [ReasoningStep(step_id=index, content=text) for index, text in enumerate(units, start=1)]


def __getattr__(name: str) -> Any:
    if name == "ReasoningVerifier":
        from reasonforge.translate.integrations.langchain import ReasoningVerifier

        return ReasoningVerifier
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
