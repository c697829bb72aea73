"""Reading a model's reply into an artifact, its declared dependencies and confidence.

Model output is adversarial input: chatter around the artifact is tolerated, but an artifact is only
ever taken from a fenced block (or the `formal_representation` field of a JSON object / tool call), never
guessed from prose. Every way a reply can fail has its own `ReplyError.kind` and a message the model
can act on, because the repair loop sends that message back:

- `refusal`: the provider flagged a refusal, or the reply is an apology with no artifact;
- `truncated`: the reply was cut off (an unclosed fence, an unclosed `<think>`, truncated JSON);
- `no_artifact`: no fenced block at all; `wrong_language`: blocks exist but none in the language asked;
- `bad_json`: a JSON reply that does not decode or lacks `formal_representation`; `empty`: nothing said.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from reasonforge.boundary.jsontext import JsonLimits, load_json
from reasonforge.errors import InputError, ReasonForgeError
from reasonforge.translate.targets import FENCE_TAGS
from reasonforge.types import ArtifactLanguage

__all__ = [
    "ArtifactReply",
    "Fence",
    "ReplyError",
    "fenced_blocks",
    "find_json_object",
    "parse_artifact_reply",
    "parse_confidence",
    "parse_dependencies",
    "strip_think",
]

_REPLY_JSON = JsonLimits(max_depth=32, max_integer_digits=40, max_number_chars=64,
                         integer_hint="write the number with fewer digits",
                         depth_hint="a translation reply needs only a few levels")
ReplyKind = Literal["refusal", "truncated", "no_artifact", "wrong_language", "bad_json", "empty"]

_OPEN_FENCE = re.compile(r"^[ \t]{0,3}(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^\n`]*)$", re.MULTILINE)
_THINK = re.compile(r"<think>(.*?)</think>", re.DOTALL | re.IGNORECASE)
_REFUSAL = re.compile(
    r"^\s*(?:I'?m sorry|I am sorry|I apologi[sz]e|Sorry,|I can(?:no|')t|I cannot|I am unable|I'm unable|"
    r"I won'?t|I will not|As an AI|Unfortunately,? I (?:can(?:no|')t|cannot|am unable))",
    re.IGNORECASE,
)
_DEPS_LINE = re.compile(r"^\s*(?:[-*]\s*)?\**\s*dependencies\s*\**\s*[:=]\s*(?P<value>.*)$", re.IGNORECASE | re.MULTILINE)
_CONF_LINE = re.compile(r"^\s*(?:[-*]\s*)?\**\s*confidence\s*\**\s*[:=]\s*(?P<value>.*)$", re.IGNORECASE | re.MULTILINE)
_NONE_WORDS = frozenset({"none", "no", "n/a", "na", "-", "[]", "nothing", "null"})
_QUOTE = 160  # characters of the reply quoted in an error message


class ReplyError(ReasonForgeError):
    """A reply that yields no artifact; `kind` says why, the message says what to do."""

    code = "model_reply_error"

    def __init__(self, kind: ReplyKind, message: str) -> None:
        super().__init__(message, field="reply")
        self.kind = kind


@dataclass(frozen=True)
class Fence:
    """One fenced block: its info-string language tag (lower case, may be ""), body, and whether it closed."""

    tag: str
    body: str
    closed: bool


@dataclass(frozen=True)
class ArtifactReply:
    """What a reply yields: the artifact plus the metadata the model declared (None when absent)."""

    artifact: str
    dependencies: tuple[int, ...] | None
    confidence: float | None
    source: Literal["json", "fence"]
    notes: tuple[str, ...] = ()


def strip_think(text: str) -> str:
    """Drop `<think>…</think>` sections (DeepSeek-R1 style); an unclosed one is a truncated reply."""
    stripped = _THINK.sub("", text)
    opened = stripped.lower().rfind("<think>")
    if opened != -1:
        raise ReplyError("truncated", "the reply ends inside a <think> section (cut off before the answer); "
                                      "answer with the artifact after </think>, or raise max_tokens")
    return stripped


def fenced_blocks(text: str) -> list[Fence]:
    """Every fenced block in order (CommonMark rules: a closing fence repeats the opener's character, at least as long)."""
    blocks: list[Fence] = []
    position = 0
    while True:
        opened = _OPEN_FENCE.search(text, position)
        if opened is None:
            return blocks
        fence = opened.group("fence")
        tag = opened.group("info").strip().split()[0].lower() if opened.group("info").strip() else ""
        tag = tag.strip("{}.")
        body_start = opened.end() + 1
        closing = re.compile(rf"^[ \t]{{0,3}}{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$", re.MULTILINE)
        closed = closing.search(text, body_start) if body_start <= len(text) else None
        if closed is None:
            blocks.append(Fence(tag, text[body_start:], closed=False))
            return blocks
        blocks.append(Fence(tag, text[body_start:closed.start()].rstrip("\n"), closed=True))
        position = closed.end()


def find_json_object(text: str) -> tuple[dict[str, Any] | None, str | None]:
    """The first JSON object in `text` (a ```json block, the whole reply, or a balanced `{…}` in chatter).

    Returns (object, None), or (None, why) when something that starts like JSON does not decode, or
    (None, None) when there is no JSON at all."""
    for block in fenced_blocks(text):
        if block.tag == "json":
            if not block.closed:
                return None, "the ```json block is not closed (the reply was cut off)"
            return _decode(block.body)
    start = text.find("{")
    if start == -1:
        return None, None
    end = _balanced_end(text, start)
    if end is None:
        stripped = text.strip()
        if stripped.startswith("{"):
            return None, "the JSON object is not closed (the reply was cut off or is malformed)"
        return None, None
    obj, why = _decode(text[start:end])
    if obj is None and not text.strip().startswith("{"):
        return None, None  # braces inside prose or code, not a JSON reply
    return obj, why


def _decode(candidate: str) -> tuple[dict[str, Any] | None, str | None]:
    # the bounded reader: a reply nested 100 000 levels deep is a bad_json problem, not a RecursionError
    try:
        value = load_json(candidate, what="the JSON", limits=_REPLY_JSON)
    except InputError as exc:
        return None, exc.message.replace("the JSON is not valid JSON", "the JSON does not decode")
    if not isinstance(value, dict):
        return None, f"the JSON is a {type(value).__name__}, not an object"
    return value, None


def _balanced_end(text: str, start: int) -> int | None:
    """Index after the `}` closing the object opened at `start` (string-aware), or None if it never closes."""
    depth = 0
    in_string = False
    escaped = False
    for index in range(start, len(text)):
        char = text[index]
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
            continue
        if char == '"':
            in_string = True
        elif char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return index + 1
    return None


def parse_dependencies(value: Any) -> tuple[tuple[int, ...] | None, str | None]:
    """Step ids from `[1, 2]`, `"1, 2"`, `"Step 1 and step 3"` or `none`; (None, why) when unreadable."""
    if value is None:
        return None, None
    if isinstance(value, bool):
        return None, f"dependencies must be step ids, not {value!r}"
    if isinstance(value, int):
        return (value,), None
    if isinstance(value, list):
        ids: list[int] = []
        for item in value:
            if isinstance(item, bool) or not isinstance(item, (int, str)):
                return None, f"dependencies must be step ids, not {item!r}"
            parsed, why = parse_dependencies(item)
            if parsed is None:
                return None, why
            ids.extend(parsed)
        return tuple(dict.fromkeys(ids)), None
    if isinstance(value, str):
        text = value.strip().strip("`*").strip()
        if text.lower() in _NONE_WORDS:
            return (), None
        numbers = re.findall(r"-?\d+", text)
        leftover = re.sub(r"(?i)\b(?:steps?|and|none)\b|[-\d\s,;\[\]()#&]", "", text)
        if not numbers or leftover:
            return None, f"cannot read step ids from {value[:60]!r}"
        return tuple(dict.fromkeys(int(n) for n in numbers)), None
    return None, f"dependencies must be step ids, not {type(value).__name__}"


def parse_confidence(value: Any) -> tuple[float | None, str | None]:
    """A confidence in [0, 1] from a number, `"0.8"` or `"80%"`; (None, why) when unreadable or out of range."""
    if value is None:
        return None, None
    if isinstance(value, bool):
        return None, f"confidence must be a number in [0, 1], not {value!r}"
    number: float
    if isinstance(value, (int, float)):
        number = float(value)
    elif isinstance(value, str):
        text = value.strip().strip("`*").strip()
        match = re.fullmatch(r"(\d+(?:\.\d+)?)\s*(%?)", text)
        if match is None:
            return None, f"cannot read a confidence from {value[:40]!r}"
        number = float(match.group(1)) / (100 if match.group(2) else 1)
    else:
        return None, f"confidence must be a number in [0, 1], not {type(value).__name__}"
    if math.isnan(number) or not 0.0 <= number <= 1.0:
        return None, f"confidence {value!r} is outside [0, 1]"
    return number, None


def _quote(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= _QUOTE else flat[: _QUOTE - 1] + "…"


def _fence_hint(language: ArtifactLanguage) -> str:
    return f"```{FENCE_TAGS[language][0]}"


def parse_artifact_reply(text: str | None, language: ArtifactLanguage, *,
                         tool_arguments: Mapping[str, Any] | None = None, refusal: str | None = None,
                         truncated: bool = False) -> ArtifactReply:
    """The artifact in a reply for `language`, or a `ReplyError` saying why there is none.

    `tool_arguments` (a forced tool call's input) and JSON replies are read for `formal_representation`,
    `dependencies` and `confidence`; otherwise the artifact is the fenced block tagged for `language`
    (python: all python blocks, in order) and the metadata come from `DEPENDENCIES:` / `CONFIDENCE:` lines."""
    language = ArtifactLanguage(language)
    if refusal:
        raise ReplyError("refusal", f"the model refused: {_quote(refusal)}")
    if tool_arguments is not None:
        return _from_json(dict(tool_arguments), language, truncated)
    body = strip_think(text or "")
    if not body.strip():
        cut = " (the reply was cut off at the token limit)" if truncated else ""
        raise ReplyError("truncated" if truncated else "empty", f"the reply is empty{cut}")
    stripped = body.strip()
    if stripped.startswith("{") or stripped.lower().startswith("```json"):
        obj, why = find_json_object(body)
        if obj is None:
            raise ReplyError("truncated" if truncated or "not closed" in (why or "") else "bad_json",
                             f"{why or 'no JSON object found'}; reply with one JSON object holding formal_representation")
        return _from_json(obj, language, truncated)
    return _from_fences(body, language, truncated)


def _from_json(obj: dict[str, Any], language: ArtifactLanguage, truncated: bool) -> ArtifactReply:
    artifact = obj.get("formal_representation", obj.get("artifact"))
    if not isinstance(artifact, str) or not artifact.strip():
        keys = ", ".join(sorted(map(str, obj))) or "none"
        raise ReplyError("bad_json", f"the JSON object has no non-empty string field formal_representation "
                                     f"(keys: {keys}); put the whole artifact there")
    declared = obj.get("language")
    if isinstance(declared, str) and declared.strip().lower() not in (language.value, *FENCE_TAGS[language]):
        raise ReplyError("wrong_language", f"the JSON says language {declared!r}, but a {language.value} artifact "
                                           f"was asked for")
    notes: list[str] = []
    inner = [b for b in fenced_blocks(artifact) if b.closed]
    if inner:
        artifact = "\n".join(b.body for b in inner)  # a fence inside the JSON string: keep only its body
        notes.append("removed a Markdown fence inside formal_representation")
    dependencies, why = parse_dependencies(obj.get("dependencies"))
    if why:
        notes.append(f"ignored dependencies: {why}")
    confidence, why = parse_confidence(obj.get("confidence", obj.get("translation_confidence")))
    if why:
        notes.append(f"ignored confidence: {why}")
    if truncated:
        notes.append("the provider reported the reply as cut off at the token limit")
    return ArtifactReply(artifact.strip("\n") + "\n", dependencies, confidence, "json", tuple(notes))


def _from_fences(body: str, language: ArtifactLanguage, truncated: bool) -> ArtifactReply:
    blocks = fenced_blocks(body)
    tags = FENCE_TAGS[language]
    wanted = [b for b in blocks if b.tag in tags]
    untagged = [b for b in blocks if not b.tag]
    notes: list[str] = []
    if not wanted and untagged and not [b for b in blocks if b.tag and b.tag not in tags]:
        wanted = untagged  # an untagged fence is the artifact when nothing else claims to be one
        notes.append(f"read an untagged fenced block as {language.value}")
    if not wanted:
        other = sorted({b.tag for b in blocks if b.tag})
        if other:
            raise ReplyError("wrong_language", f"the reply has no {_fence_hint(language)} block (found: "
                                               f"{', '.join('```' + t for t in other)}); write the {language.value} "
                                               f"artifact in a {_fence_hint(language)} block")
        kind: ReplyKind = "refusal" if _REFUSAL.search(body) else "no_artifact"
        what = "the model refused instead of translating" if kind == "refusal" else "the reply has no fenced block"
        raise ReplyError(kind, f"{what} (reply: \"{_quote(body)}\"); write the artifact in one "
                               f"{_fence_hint(language)} block")
    if not wanted[-1].closed:
        raise ReplyError("truncated", f"the {_fence_hint(language)} block is not closed: the reply was cut off; "
                                      "send the complete artifact, shorter if needed")
    complete = [b for b in wanted if b.closed and b.body.strip()]
    if not complete:
        raise ReplyError("empty", f"the {_fence_hint(language)} block is empty")
    if language is ArtifactLanguage.PYTHON:
        artifact = "\n\n".join(b.body.rstrip() for b in complete)  # implementation and tests are often split
    else:
        artifact = complete[-1].body
        if len(complete) > 1:
            notes.append(f"used the last of {len(complete)} {language.value} blocks")
    outside = _OPEN_FENCE.sub("", "\n".join(_outside_fences(body)))
    dependencies = confidence = None
    deps_line = _DEPS_LINE.search(outside)
    if deps_line:
        dependencies, why = parse_dependencies(deps_line.group("value"))
        if why:
            notes.append(f"ignored dependencies: {why}")
    conf_line = _CONF_LINE.search(outside)
    if conf_line:
        confidence, why = parse_confidence(conf_line.group("value"))
        if why:
            notes.append(f"ignored confidence: {why}")
    if truncated:
        notes.append("the provider reported the reply as cut off at the token limit")
    return ArtifactReply(artifact.strip("\n") + "\n", dependencies, confidence, "fence", tuple(notes))


def _outside_fences(text: str) -> list[str]:
    """The reply's lines that are not inside a fenced block (where DEPENDENCIES:/CONFIDENCE: lines live)."""
    out: list[str] = []
    inside: str | None = None
    for line in text.splitlines():
        stripped = line.strip()
        if inside is None:
            match = re.match(r"(`{3,}|~{3,})", stripped)
            if match:
                inside = match.group(1)
                continue
            out.append(line)
        elif stripped.startswith(inside[0] * len(inside)) and not stripped.strip(inside[0]):
            inside = None
    return out
