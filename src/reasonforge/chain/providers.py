"""Reasoning text out of provider payloads: OpenAI Responses and Chat Completions, Anthropic Messages, DeepSeek-R1.

Each reader returns a `Reasoning`: the model's reasoning (Responses summaries / reasoning text, Anthropic
`thinking` blocks, DeepSeek `reasoning_content` or `<think>` sections) as a list of segments the provider
already separated, and the final answer text. Redacted or encrypted reasoning carries no text and is
skipped; parts of kinds a reader does not use (tool calls, refusals, images) are skipped too.

The readers are total: every field they read is checked for its type where it is read (`_items`, `_text`), so a
payload of the wrong shape (a `summary` that is a number, a message `content` that is an object, a `thinking`
that is a list) raises `ReasoningChainError` naming the field's path and what was expected, never a TypeError,
and is never read as if the field were absent.
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


def _kind(value: Any) -> str:
    """A JSON value's kind, as a message names it."""
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, list | tuple):
        return "a list"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    return "a string" if isinstance(value, str) else f"a {type(value).__name__}"


def _misshapen(path: str, value: Any, expected: str) -> ReasoningChainError:
    return ReasoningChainError(f"the response's {path} is {_kind(value)}, not {expected}; send the response as the "
                               "provider returned it")


def _items(holder: Mapping[str, Any], key: str, where: str = "") -> list[tuple[str, Mapping[str, Any]]]:
    """The objects of the list at `holder[key]` (`holder` is at path `where`), each with its path; none when the
    key is absent or null; ReasoningChainError when it is not a list of objects."""
    path = f"{where}.{key}" if where else key
    value = holder.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise _misshapen(path, value, "a list of objects")
    out = []
    for index, item in enumerate(value):
        if not isinstance(item, Mapping):
            raise _misshapen(f"{path}[{index}]", item, "an object")
        out.append((f"{path}[{index}]", item))
    return out


def _text(holder: Mapping[str, Any], key: str, where: str) -> str:
    """The string at `holder[key]` (`holder` is at path `where`); "" when absent or null; ReasoningChainError
    when it is anything else."""
    value = holder.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise _misshapen(f"{where}.{key}", value, "a string")
    return value


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
    for where, item in _items(data, "output"):
        if item.get("type") == "reasoning":
            summary = [_text(part, "text", at) for at, part in _items(item, "summary", where)]
            texts = [t.strip() for t in summary if t.strip()]
            # open-weight models return full reasoning as content[].reasoning_text (read, and checked, either way)
            content = [_text(part, "text", at) for at, part in _items(item, "content", where)]
            if not texts:
                texts = [t.strip() for t in content if t.strip()]
                whole = whole and not texts
            segments.extend(texts)
        elif item.get("type") == "message":
            for at, part in _items(item, "content", where):
                if part.get("type") == "output_text":
                    answers.append(_text(part, "text", at))
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
    where = "choices[0].message"
    if isinstance(message.get("content"), list):  # content parts: their text, in order
        content = "".join(_text(part, "text", at) for at, part in _items(message, "content", where))
    else:
        content = _text(message, "content", where)
    reasoning = _text(message, "reasoning_content", where) or _text(message, "reasoning", where)
    thoughts, answer = split_think(content)
    segments = [reasoning.strip()] if reasoning.strip() else thoughts
    provider = "deepseek" if ("deepseek" in str(data.get("model", "")).lower() or reasoning or thoughts) else "openai-chat"
    return Reasoning(provider, tuple(segments), answer if thoughts else content)


def from_anthropic_message(data: Mapping[str, Any]) -> Reasoning:
    """An Anthropic Messages `message`: `thinking` blocks are the reasoning, `text` blocks the answer."""
    content = data.get("content")
    if not isinstance(content, list):
        raise ReasoningChainError(f"the Anthropic message has no content list (keys: {_keys(data)})")
    blocks = _items(data, "content")
    thinking = [_text(block, "thinking", at) for at, block in blocks if block.get("type") == "thinking"]
    segments = [text.strip() for text in thinking if text.strip()]
    answer = "\n\n".join(_text(block, "text", at) for at, block in blocks if block.get("type") == "text")
    if not segments and not answer.strip():
        kinds = sorted({str(block.get("type")) for _, block in blocks}) or ["none"]
        raise ReasoningChainError(f"the Anthropic message holds no thinking and no text blocks (only: "
                                  f"{', '.join(kinds)})")
    return Reasoning("anthropic", tuple(segments), answer)
