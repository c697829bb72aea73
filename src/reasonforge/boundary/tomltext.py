"""Untrusted TOML text, decoded within a nesting bound or refused with an `InputError` naming the line.

`tomllib` recurses once per nested array or inline table, so `a = [[[[…]]]]` a hundred thousand deep ends in a
RecursionError, and it handles a dotted key (`a.a.a… = 1`, or a table header of that form) in time and memory
quadratic in its parts, so one such key in a megabyte exhausts either. `load_toml` first scans the text once
(strings, literal strings, their multi-line forms and comments skipped) and refuses nesting deeper than
`max_depth`, and a key of more than `max_depth` dotted parts, at its line and column; then tomllib decodes it, and
its own errors (a key given twice among them: TOML forbids it) become the same `InputError`.
"""

from __future__ import annotations

import tomllib
from typing import Any

from reasonforge.errors import InputError

__all__ = ["load_toml", "scan_toml"]

MAX_TOML_DEPTH = 16


def _line_column(text: str, position: int) -> str:
    line = text.count("\n", 0, position) + 1
    return f"line {line}, column {position - text.rfind(chr(10), 0, position)}"


def _string_end(text: str, at: int) -> int:
    """The index just after the string that starts at `at` (basic or literal, one- or multi-line); the end of
    the line (or text) for one left open: tomllib reports that."""
    quote = text[at]
    if text.startswith(quote * 3, at):
        close = text.find(quote * 3, at + 3)
        while quote == '"' and close != -1 and _escaped(text, close):
            close = text.find(quote * 3, close + 1)
        if close == -1:
            return len(text)
        end = close + 3
        while end < len(text) and text[end] == quote:  # up to two quotes may end the content ("""a"""" is a")
            end += 1
        return end
    index = at + 1
    while index < len(text) and text[index] not in "\n" + quote:
        index += 2 if quote == '"' and text[index] == "\\" else 1
    return index + 1 if index < len(text) and text[index] == quote else index


def _escaped(text: str, at: int) -> bool:
    """Is the character at `at` preceded by an odd number of backslashes?"""
    count = 0
    while at - count - 1 >= 0 and text[at - count - 1] == "\\":
        count += 1
    return count % 2 == 1


def scan_toml(text: str, what: str, max_depth: int = MAX_TOML_DEPTH, *, field: str = "config") -> None:
    """Refuse arrays and inline tables nested deeper than `max_depth`, and keys of more than `max_depth` dotted
    parts (InputError with line and column)."""
    depth = 0
    dots = 0  # dots since the last `=`, `,`, bracket or line end: a dotted key's parts less one (a number has one)
    index = 0
    length = len(text)
    while index < length:
        char = text[index]
        if char in "\"'":
            index = _string_end(text, index)  # a quoted key part: its dots are its own; those between parts count
            continue
        if char == "#":
            newline = text.find("\n", index)
            index = length if newline == -1 else newline
            continue
        if char in "[{":
            depth, dots = depth + 1, 0
            if depth > max_depth:
                raise InputError(f"{what} is nested more than {max_depth} levels deep at "
                                 f"{_line_column(text, index)}; write it flatter", field=field)
        elif char in "]}":
            depth, dots = max(depth - 1, 0), 0
        elif char in "=,\n":
            dots = 0
        elif char == ".":
            dots += 1
            if dots >= max_depth:
                raise InputError(f"{what} has a key of more than {max_depth} dotted parts at "
                                 f"{_line_column(text, index)}; write it with fewer", field=field)
        index += 1


def load_toml(text: str, what: str, max_depth: int = MAX_TOML_DEPTH, *, field: str = "config") -> dict[str, Any]:
    """Decode untrusted TOML: nesting bounded first, every problem one InputError naming `what` and where."""
    scan_toml(text, what, max_depth, field=field)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{what} is not valid TOML: {exc}", field=field) from None
    except RecursionError:  # the scan refuses what causes this; never a traceback regardless
        raise InputError(f"{what} is nested too deeply to read", field=field) from None
