"""Reasoning text out of provider payloads: OpenAI Responses and Chat Completions, Anthropic Messages, DeepSeek-R1.

Each reader returns a `Reasoning`: the model's reasoning (Responses summaries / reasoning text, Anthropic
`thinking` blocks, DeepSeek `reasoning_content` or `<think>` sections) as a list of segments the provider
already separated, and the final answer text. Redacted or encrypted reasoning carries no text and is
skipped. A payload of the wrong shape raises `ReasoningChainError` naming what was expected.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from reasonforge.errors import InputError

__all__ = [
    "Reasoning",
    "ReasoningChainError",
    "from_anthropic_message",
    "from_chat_completion",
    "from_responses",
    "split_think",
]

_THINK = re.compile(r"<think>(.*?)(?:</think>|\Z)", re.DOTALL | re.IGNORECASE)


class ReasoningChainError(InputError):
    """A response from which no reasoning chain can be read; the message names the shapes understood."""

    code = "reasoning_chain_error"

    def __init__(self, message: str) -> None:
        super().__init__(message, field="response")


@dataclass(frozen=True)
class Reasoning:
    """What a payload says: reasoning segments (each split further into steps) and the final answer."""

    provider: str
    segments: tuple[str, ...] = ()
    answer: str = ""
    whole_segments: bool = False  # segments are already one step each (Responses summaries)


def _keys(data: Mapping[str, Any]) -> str:
    return ", ".join(sorted(map(str, data))) or "none"


def split_think(text: str) -> tuple[list[str], str]:
    """(`<think>` sections, the text outside them) — DeepSeek-R1 served without a reasoning parser."""
    thoughts = [m.group(1).strip() for m in _THINK.finditer(text) if m.group(1).strip()]
    return thoughts, _THINK.sub("", text).strip()


def from_responses(data: Mapping[str, Any]) -> Reasoning:
    """An OpenAI Responses object (`object: "response"`): reasoning summaries (or reasoning text) and output text."""
    output = data.get("output")
    if not isinstance(output, list):
        raise ReasoningChainError(f"the Responses object has no output list (keys: {_keys(data)})")
    segments: list[str] = []
    whole = True
    answers: list[str] = []
    for item in output:
        if not isinstance(item, Mapping):
            continue
        if item.get("type") == "reasoning":
            summary = [s.get("text", "") for s in item.get("summary") or [] if isinstance(s, Mapping)]
            texts = [t.strip() for t in summary if isinstance(t, str) and t.strip()]
            if not texts:  # open-weight models return full reasoning as content[].reasoning_text
                content = [c.get("text", "") for c in item.get("content") or [] if isinstance(c, Mapping)]
                texts = [t.strip() for t in content if isinstance(t, str) and t.strip()]
                whole = whole and not texts
            segments.extend(texts)
        elif item.get("type") == "message":
            for part in item.get("content") or []:
                if isinstance(part, Mapping) and part.get("type") == "output_text" and isinstance(part.get("text"), str):
                    answers.append(part["text"])
    return Reasoning("openai-responses", tuple(segments), "\n\n".join(answers), whole_segments=whole and bool(segments))


def from_chat_completion(data: Mapping[str, Any]) -> Reasoning:
    """A Chat Completions object (OpenAI, DeepSeek, vLLM, Ollama …): `reasoning_content`/`reasoning` or `<think>`."""
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], Mapping):
        raise ReasoningChainError(f"the chat.completion object has no choices (keys: {_keys(data)})")
    message = choices[0].get("message")
    if not isinstance(message, Mapping):
        raise ReasoningChainError("choices[0] has no message; a streamed chunk (choices[].delta) is not a "
                                  "response: join the stream first")
    content = message.get("content")
    if isinstance(content, list):
        content = "".join(str(p.get("text", "")) for p in content if isinstance(p, Mapping))
    content = content if isinstance(content, str) else ""
    reasoning = message.get("reasoning_content") or message.get("reasoning")
    thoughts, answer = split_think(content)
    segments = [reasoning.strip()] if isinstance(reasoning, str) and reasoning.strip() else thoughts
    provider = "deepseek" if ("deepseek" in str(data.get("model", "")).lower() or reasoning or thoughts) else "openai-chat"
    return Reasoning(provider, tuple(segments), answer if thoughts else content)


def from_anthropic_message(data: Mapping[str, Any]) -> Reasoning:
    """An Anthropic Messages `message`: `thinking` blocks are the reasoning, `text` blocks the answer."""
    content = data.get("content")
    if not isinstance(content, list):
        raise ReasoningChainError(f"the Anthropic message has no content list (keys: {_keys(data)})")
    segments = [b["thinking"].strip() for b in content
                if isinstance(b, Mapping) and b.get("type") == "thinking" and isinstance(b.get("thinking"), str)
                and b["thinking"].strip()]
    answer = "\n\n".join(b["text"] for b in content
                         if isinstance(b, Mapping) and b.get("type") == "text" and isinstance(b.get("text"), str))
    if not segments and not answer.strip():
        kinds = sorted({str(b.get("type")) for b in content if isinstance(b, Mapping)}) or ["none"]
        raise ReasoningChainError(f"the Anthropic message holds no thinking and no text blocks (only: "
                                  f"{', '.join(kinds)})")
    return Reasoning("anthropic", tuple(segments), answer)
