"""A step's text as a reader is shown it: the prose, and the fenced code blocks inside it (```python … ```) as
code, so the page and the PDF print code as code instead of a fence's backticks."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

__all__ = ["PartKind", "TextPart", "text_parts"]

# An opening fence: three or more backticks or tildes at the start of a line, then an optional language word.
_OPEN = re.compile(r"^[ \t]*(?P<fence>`{3,}|~{3,})[ \t]*(?P<language>[\w+#.-]*)[^\n]*$")


class PartKind(StrEnum):
    """Prose, or a fenced code block."""

    PROSE = "prose"
    CODE = "code"


@dataclass(frozen=True)
class TextPart:
    """One piece of a text, in order; `language` is the fence's word for code ("python", or "" when none)."""

    kind: PartKind
    text: str
    language: str = ""


def text_parts(text: str) -> tuple[TextPart, ...]:
    """`text` cut at its fenced code blocks. A fence closes at a line of the same character, at least as long; an
    unclosed fence runs to the end (its code is still code). Blank prose between blocks is dropped."""
    parts: list[TextPart] = []
    prose: list[str] = []
    lines = text.replace("\r\n", "\n").split("\n")
    i = 0
    while i < len(lines):
        opening = _OPEN.match(lines[i])
        if opening is None:
            prose.append(lines[i])
            i += 1
            continue
        fence = opening.group("fence")
        close = re.compile(rf"^[ \t]*{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$")
        end = next((j for j in range(i + 1, len(lines)) if close.match(lines[j])), len(lines))
        _flush(parts, prose)
        parts.append(TextPart(PartKind.CODE, "\n".join(lines[i + 1:end]), opening.group("language").lower()))
        i = end + 1
    _flush(parts, prose)
    return tuple(parts)


def _flush(parts: list[TextPart], prose: list[str]) -> None:
    text = "\n".join(prose).strip("\n")
    if text.strip():
        parts.append(TextPart(PartKind.PROSE, text))
    prose.clear()
