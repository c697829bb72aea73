"""Text out of provider payloads: OpenAI Responses and Chat Completions, Anthropic Messages, DeepSeek-R1, plain text.

Each reader returns a `Reasoning`: every piece of text the model stated, in the order the payload holds it,
each a `Part` marked as reasoning (Responses reasoning text and summaries, Anthropic `thinking` blocks,
`reasoning_content` / `reasoning`, Mistral `thinking` parts, `<think>` sections) or answer (the visible text:
`output_text`, `text` blocks, `content`, and refusals, which are text the model states too). Nothing that
carries text is left out:
- the `<think>` tags are read wherever the text is (plain text, chat content, answer blocks), nested tags by
  depth, an unclosed one up to the end, and a `</think>` with no opening tag before it (the template put
  `<think>` in the prompt) closes the reasoning that starts the text; the tags themselves are removed;
- several messages, blocks or parts are read in order; adjacent Anthropic text blocks that carry citations
  are one text (the API cuts a cited sentence into blocks);
- what carries no text the model states is skipped: redacted or encrypted reasoning, tool calls and their
  results (a call's arguments are a request to a tool, not a claim: `tool_use`, `tool_calls`, `*_call`);
- everything else is refused: a payload or an item of an unknown type, a field of the wrong JSON type, a user
  message, a chat completion with several choices (alternatives: send one), a streamed chunk. Each refusal is
  a `ReasoningChainError` (an `InputError`) that says what was expected; nothing raises anything else.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from reasonforge.errors import InputError

__all__ = [
    "Part",
    "PartKind",
    "Reasoning",
    "ReasoningChainError",
    "from_anthropic_message",
    "from_chat_completion",
    "from_responses",
    "from_text",
    "split_think",
    "think_parts",
]

_TAG = re.compile(r"<(/?)think\s*>", re.IGNORECASE)
# Items and blocks that hold no text the model states (tool calls and results, encrypted reasoning).
_ANTHROPIC_SKIPPED = re.compile(r"(?:\w+_)?tool_(?:use|result)|redacted_thinking|container_upload")
_RESPONSES_SKIPPED = re.compile(r"\w+_call(?:_output)?|mcp_list_tools|mcp_approval_(?:request|response)|"
                                r"compaction|item_reference")
_SHOWN_KEYS = 12  # how many keys or types an error message lists


class ReasoningChainError(InputError):
    """A response from which no reasoning chain can be read; the message names the shapes understood."""

    code = "reasoning_chain_error"

    def __init__(self, message: str) -> None:
        super().__init__(message, field="response")


class PartKind(StrEnum):
    """Which side of a response a text is on: the model's reasoning, or the answer it shows."""

    REASONING = "reasoning"
    ANSWER = "answer"


@dataclass(frozen=True)
class Part:
    """One text of a response, in payload order."""

    kind: PartKind
    text: str


@dataclass(frozen=True)
class Reasoning:
    """What a payload says: its texts in order (`parts`), and which provider shape it had."""

    provider: str
    parts: tuple[Part, ...] = ()

    @property
    def segments(self) -> tuple[str, ...]:
        """The reasoning texts, in order."""
        return tuple(p.text for p in self.parts if p.kind is PartKind.REASONING)

    @property
    def answer(self) -> str:
        """The answer texts, blank-line joined."""
        return "\n\n".join(p.text for p in self.parts if p.kind is PartKind.ANSWER)


def _keys(data: Mapping[str, Any]) -> str:
    keys = sorted(map(str, data))
    shown = ", ".join(_short(k) for k in keys[:_SHOWN_KEYS]) or "none"
    return shown + (f", … ({len(keys)} keys)" if len(keys) > _SHOWN_KEYS else "")


def _short(value: object, limit: int = 40) -> str:
    text = repr(value) if not isinstance(value, str) else value
    return text if len(text) <= limit else text[:limit] + "…"


def _kind_of(value: object) -> str:
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean", type(None): "null",
            int: "a number", float: "a number"}.get(type(value), type(value).__name__)


def _text(holder: Mapping[str, Any], key: str, where: str) -> str:
    """`holder[key]` as text: "" when absent or null, a `ReasoningChainError` when it is not a string."""
    value = holder.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ReasoningChainError(f"{where}.{key} is {_kind_of(value)}, not a string")
    return value


def _items(holder: Mapping[str, Any], key: str, where: str) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """The objects of the array `holder[key]` with their paths (none when absent or null)."""
    value = holder.get(key)
    if value is None:
        return
    if not isinstance(value, list):
        raise ReasoningChainError(f"{where}.{key} is {_kind_of(value)}, not an array")
    for index, item in enumerate(value):
        path = f"{where}.{key}[{index}]"
        if not isinstance(item, Mapping):
            raise ReasoningChainError(f"{path} is {_kind_of(item)}, not an object")
        yield path, item


def _type(item: Mapping[str, Any], where: str) -> str:
    kind = item.get("type")
    if not isinstance(kind, str):
        raise ReasoningChainError(f"{where} has no type (keys: {_keys(item)})")
    return kind


def _unknown(where: str, kind: str, known: str) -> ReasoningChainError:
    return ReasoningChainError(f"{where} is of type '{_short(kind)}', which is not read; {known} (tool calls, tool "
                               "results and redacted reasoning are skipped)")


def _assistant(item: Mapping[str, Any], where: str) -> None:
    role = item.get("role")
    if role is not None and role != "assistant":
        raise ReasoningChainError(f"{where} is a message from '{_short(role)}', not the model's (role "
                                  "'assistant'); send the model's response")


def think_parts(text: str, kind: PartKind = PartKind.ANSWER) -> list[Part]:
    """`text` cut at its `<think>` tags, in order: what they enclose is reasoning, the rest is `kind`.

    Nesting is counted (the outermost pair encloses), an unclosed tag runs to the end, and a `</think>` before
    any `<think>` closes reasoning that began with the text. Blank pieces are dropped, the tags removed."""
    tags = list(_TAG.finditer(text))
    if not tags:
        return [Part(kind, text.strip())] if text.strip() else []
    pieces: list[tuple[bool, str]] = []
    depth, start = 0, 0
    if tags[0].group(1):  # "reasoning</think>answer": the opening tag was in the prompt
        depth = 1
    for tag in tags:
        pieces.append((depth > 0, text[start:tag.start()]))
        depth = depth + 1 if not tag.group(1) else max(depth - 1, 0)
        start = tag.end()
    pieces.append((depth > 0, text[start:]))
    merged: list[tuple[PartKind, str]] = []
    for thought, piece in pieces:
        piece_kind = PartKind.REASONING if thought else kind
        if merged and merged[-1][0] is piece_kind:  # a nested or stray tag does not cut a text in two
            merged[-1] = (piece_kind, merged[-1][1] + piece)
        else:
            merged.append((piece_kind, piece))
    return [Part(piece_kind, piece.strip()) for piece_kind, piece in merged if piece.strip()]


def split_think(text: str) -> tuple[list[str], str]:
    """(`<think>` sections, the text outside them, blank-line joined) — see `think_parts`."""
    parts = think_parts(text)
    thoughts = [p.text for p in parts if p.kind is PartKind.REASONING]
    return thoughts, "\n\n".join(p.text for p in parts if p.kind is PartKind.ANSWER)


def from_text(text: str) -> Reasoning:
    """Plain text: `<think>` sections are reasoning, the rest is the answer."""
    return Reasoning("text", tuple(think_parts(text)))


def from_responses(data: Mapping[str, Any]) -> Reasoning:
    """An OpenAI Responses object (`object: "response"`): reasoning text and summaries, output text and refusals."""
    output = data.get("output")
    if not isinstance(output, list):
        raise ReasoningChainError(f"the Responses object has no output list (keys: {_keys(data)})")
    parts: list[Part] = []
    for where, item in _items(data, "output", "response"):
        kind = _type(item, where)
        if kind == "reasoning":
            # the reasoning itself (open-weight models return it as content[].reasoning_text), then the
            # summaries (split into steps like the same paragraphs from any other provider); encrypted_content
            # carries no text
            for key in ("content", "summary"):
                for path, entry in _items(item, key, where):
                    parts.extend(think_parts(_text(entry, "text", path), PartKind.REASONING))
        elif kind == "message":
            _assistant(item, where)
            for path, entry in _items(item, "content", where):
                entry_kind = _type(entry, path)
                if entry_kind == "output_text":
                    parts.extend(think_parts(_text(entry, "text", path)))
                elif entry_kind == "refusal":
                    parts.extend(think_parts(_text(entry, "refusal", path)))
                else:
                    raise _unknown(path, entry_kind, "a message's content is read from output_text and refusal")
        elif not _RESPONSES_SKIPPED.fullmatch(kind):
            raise _unknown(where, kind, "a response's output is read from reasoning and message items")
    return Reasoning("openai-responses", tuple(parts))


def from_chat_completion(data: Mapping[str, Any]) -> Reasoning:
    """A Chat Completions object (OpenAI, DeepSeek, vLLM, Ollama, Mistral, OpenRouter …): `reasoning_content` /
    `reasoning` / `reasoning_details` (each text once), then the message content (`<think>` sections; text,
    thinking and refusal parts), its refusal and its audio transcript."""
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices:
        raise ReasoningChainError(f"the chat.completion object has no choices (keys: {_keys(data)})")
    if len(choices) > 1:
        raise ReasoningChainError(f"the chat.completion object holds {len(choices)} choices (alternative "
                                  "responses); send one response, with its choice alone")
    choice = choices[0]
    if not isinstance(choice, Mapping):
        raise ReasoningChainError(f"choices[0] is {_kind_of(choice)}, not an object")
    message = choice.get("message")
    if not isinstance(message, Mapping):
        raise ReasoningChainError("choices[0] has no message; a streamed chunk (choices[].delta) is not a "
                                  "response: join the stream first")
    where = "choices[0].message"
    _assistant(message, where)
    parts: list[Part] = []
    said: list[str] = []
    for key in ("reasoning_content", "reasoning"):  # providers name it either way; some send both, the same
        text = _text(message, key, where)
        if text.strip() and text.strip() not in said:
            said.append(text.strip())
            parts.extend(think_parts(text, PartKind.REASONING))
    for path, detail in _items(message, "reasoning_details", where):  # OpenRouter: the same text, structured
        kind = _type(detail, path)
        if kind in ("reasoning.text", "reasoning.summary"):
            text = _text(detail, "text" if kind == "reasoning.text" else "summary", path)
            if text.strip() and text.strip() not in said:
                said.append(text.strip())
                parts.extend(think_parts(text, PartKind.REASONING))
        elif kind != "reasoning.encrypted":
            raise _unknown(path, kind, "reasoning details are read from reasoning.text and reasoning.summary")
    content = message.get("content")
    if isinstance(content, str):
        parts.extend(think_parts(content))
    elif content is not None:
        for path, entry in _items(message, "content", where):
            parts.extend(_chat_content(entry, path))
    parts.extend(think_parts(_text(message, "refusal", where)))
    audio = message.get("audio")
    if audio is not None:
        if not isinstance(audio, Mapping):
            raise ReasoningChainError(f"{where}.audio is {_kind_of(audio)}, not an object")
        parts.extend(think_parts(_text(audio, "transcript", f"{where}.audio")))
    reasoned = any(p.kind is PartKind.REASONING for p in parts)
    provider = "deepseek" if "deepseek" in str(data.get("model", "")).lower() or reasoned else "openai-chat"
    return Reasoning(provider, tuple(parts))


def _chat_content(entry: Mapping[str, Any], path: str) -> list[Part]:
    """One part of a chat message's content list: text, refusal, or Mistral's thinking (a string or text parts)."""
    kind = _type(entry, path)
    if kind == "text":
        return think_parts(_text(entry, "text", path))
    if kind == "refusal":
        return think_parts(_text(entry, "refusal", path))
    if kind == "thinking":
        if isinstance(entry.get("thinking"), list):
            return [part for inner_path, inner in _items(entry, "thinking", path)
                    for part in think_parts(_text(inner, "text", inner_path), PartKind.REASONING)]
        return think_parts(_text(entry, "thinking", path), PartKind.REASONING)
    raise _unknown(path, kind, "a message's content is read from text, refusal and thinking parts")


def from_anthropic_message(data: Mapping[str, Any]) -> Reasoning:
    """An Anthropic Messages `message`: `thinking` blocks are reasoning, `text` blocks the answer, in block order."""
    content = data.get("content")
    if not isinstance(content, list):
        raise ReasoningChainError(f"the Anthropic message has no content list (keys: {_keys(data)})")
    _assistant(data, "the message")
    parts: list[Part] = []
    kinds: list[str] = []
    cited_text: list[str] = []  # text blocks that continue one another (a cited sentence is cut into blocks)
    last_cited = False
    for where, block in _items(data, "content", "message"):
        kind = _type(block, where)
        kinds.append(kind)
        cited = bool(block.get("citations"))
        if kind != "text" or not (cited or last_cited):
            if cited_text:
                parts.extend(think_parts("".join(cited_text)))
            cited_text = []
        if kind == "text":
            cited_text.append(_text(block, "text", where))
        elif kind == "thinking":
            parts.extend(think_parts(_text(block, "thinking", where), PartKind.REASONING))
        elif not _ANTHROPIC_SKIPPED.fullmatch(kind):
            raise _unknown(where, kind, "a message's content is read from thinking and text blocks")
        last_cited = kind == "text" and cited
    if cited_text:
        parts.extend(think_parts("".join(cited_text)))
    if not parts:
        shown = sorted(set(kinds)) or ["none"]
        raise ReasoningChainError(f"the Anthropic message holds no thinking and no text blocks (only: "
                                  f"{', '.join(_short(k) for k in shown[:_SHOWN_KEYS])})")
    return Reasoning("anthropic", tuple(parts))
