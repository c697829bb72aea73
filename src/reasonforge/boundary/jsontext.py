"""Untrusted JSON text, decoded in linear time or refused with an `InputError` that says what, where and how to fix.

`load_json` refuses, before the decoder runs, whatever the decoder would take silently or crash on: text that is
not UTF-8 (a byte-order mark, UTF-16), nesting deeper than `JsonLimits.max_depth` (the decoder recurses per level),
a repeated key (the decoder keeps the last one, other readers the first), NaN and Infinity (not JSON), integers
longer than `max_integer_digits` (the decoder converts them in quadratic time) and numbers that overflow to
infinity, and a lone surrogate escape (`"\\ud800"`, which cannot be written out again). `check_json` runs the same
checks without keeping the decoded value, for readers that hand the text to pydantic's own decoder afterwards.
`read_json_lines` applies them to each line of a JSON-lines text, naming the line; `scan_json` is the scan alone, for
a reader that decodes with `json.loads` afterwards and words its own syntax errors.
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from reasonforge.errors import InputError

__all__ = ["JsonLimits", "check_json", "decode_text", "field_path", "line_column", "load_json", "quoted",
           "read_json_lines", "scan_json"]

QUOTE_CHARS = 40  # how much of a key or number an error message quotes
_NON_FINITE = frozenset({"NaN", "Infinity", "-Infinity"})
# One JSON token: a string, a structural character, a bare literal (number, true, NaN, ...), or any other
# non-space character (an unterminated string's quote: the scan stops there and the decoder reports it).
_TOKEN = re.compile(r'"[^"\\\x00-\x1f]*(?:\\.[^"\\\x00-\x1f]*)*"|[\[\]{}:,]|[^\s"\[\]{}:,]+|\S')
_INTEGER = re.compile(r"-?[0-9]+")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")  # where the decoded strings may hold a lone surrogate


@dataclass(frozen=True)
class JsonLimits:
    """How deep and how long the numbers of a JSON text may be (what the reader's documents need, no more)."""

    max_depth: int = 32
    max_integer_digits: int = 18  # 18 digits stay below 2**63
    max_number_chars: int = 40
    integer_hint: str = "send a smaller number"  # how to fix an over-long integer, in the reader's terms
    depth_hint: str = "a document of this kind needs only a few levels"


def field_path(location: Sequence[Any]) -> str:
    """`a.b[2].c` for a location; a key that is not a plain name is quoted (it may hold control characters)."""
    path = ""
    for part in location:
        if isinstance(part, int):
            path += f"[{part}]"
            continue
        # A key from the document is quoted unless it is a plain name: it may hold control characters (a
        # terminal escape), a surrogate, or a megabyte of text, and it is printed.
        name = str(part) if _NAME.fullmatch(str(part)) else quoted(str(part))
        path += f".{name}" if path else name
    return path


def quoted(text: str) -> str:
    """`text` as a short JSON string (ASCII-escaped: a key full of control or surrogate characters prints safely)."""
    shown = json.dumps(text)
    return shown if len(shown) <= QUOTE_CHARS else shown[:QUOTE_CHARS] + "…\""


def line_column(text: str, position: int) -> str:
    """`line L, column C` (1-based) of a character offset."""
    line = text.count("\n", 0, position) + 1
    column = position - text.rfind("\n", 0, position)
    return f"line {line}, column {column}"


def decode_text(raw: bytes, *, what: str = "request") -> str:
    """UTF-8 bytes to text; a byte-order mark, UTF-16/32 or any invalid byte is an `InputError` saying where."""
    for bom, name in ((codecs.BOM_UTF32_LE, "UTF-32"), (codecs.BOM_UTF32_BE, "UTF-32"), (codecs.BOM_UTF8, "UTF-8"),
                      (codecs.BOM_UTF16_LE, "UTF-16"), (codecs.BOM_UTF16_BE, "UTF-16")):
        if raw.startswith(bom):
            marked = "UTF-8 with a byte-order mark" if name == "UTF-8" else f"{name} text"
            raise InputError(f"{what} is {marked} (it starts with the bytes {bom.hex(' ').upper()}); "
                             "save it as UTF-8 without a byte-order mark", field=what)
    if b"\x00" in raw[:4]:
        raise InputError(f"{what} starts with NUL bytes: it looks like UTF-16 or UTF-32 text; save it as UTF-8",
                         field=what)
    try:
        return raw.decode("utf-8")  # strict: encoded surrogates (ED A0 80) are refused too
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise InputError(f"{what} is not UTF-8 text ({exc.reason} at byte {exc.start}, line {line}); save it as UTF-8",
                         field=what) from None


@dataclass
class _Frame:
    """An open array or object while scanning: where in the document it is and what it holds so far."""

    is_object: bool
    keys: dict[str, int] = field(default_factory=dict)  # key -> offset of its first occurrence
    key: str | None = None
    index: int = 0
    expect_key: bool = True


def _parts(frames: Sequence[_Frame]) -> Iterator[Any]:
    """The field path through `frames`: each object's current key, each array's current index."""
    for frame in frames:
        if not frame.is_object:
            yield frame.index
        elif frame.key is not None:
            yield frame.key


def _path(frames: Sequence[_Frame], what: str) -> str:
    path = field_path(list(_parts(frames))) or what
    return path if len(path) <= 2 * QUOTE_CHARS else path[: 2 * QUOTE_CHARS] + "…"


def scan_json(text: str, what: str, limits: JsonLimits | None = None) -> None:
    """Refuse (InputError, with line and column) deep nesting, repeated keys, NaN/Infinity and oversized numbers in
    `text`, in one linear pass; syntax errors are left to the decoder that runs next (it stops at or before them).
    Every message starts with `what` (a file and line, for a file's reader)."""
    with _named(what):
        _scan(text, what, limits or JsonLimits())


@contextmanager
def _named(what: str) -> Iterator[None]:
    """Prefix `what` to an InputError's message that does not start with it (a field path does not name the file)."""
    try:
        yield
    except InputError as exc:
        if exc.message.startswith(what):
            raise
        raise InputError(f"{what}: {exc.message}", field=exc.field) from None


def _scan(text: str, what: str, limits: JsonLimits) -> None:
    """One linear pass over the JSON tokens: refuse deep nesting, repeated keys, NaN/Infinity and oversized numbers.

    Syntax is left to the decoder: at the first token the scan cannot follow it stops, and `json.loads` reports
    that spot. (The decoder recurses per nesting level and converts digits to int quadratically, so both are
    refused before it runs.)"""
    stack: list[_Frame] = []
    for m in _TOKEN.finditer(text):
        token, at = m.group(), m.start()
        if token == '"':
            return  # a string the pattern cannot close (a raw control character, a bad escape): the decoder's to say
        top = stack[-1] if stack else None
        if token in "[{":
            if len(stack) >= limits.max_depth:
                raise InputError(f"{what} is nested more than {limits.max_depth} levels deep at "
                                 f"{line_column(text, at)} (in {_path(stack, what)}); {limits.depth_hint}",
                                 field=what)
            stack.append(_Frame(is_object=token == "{"))
        elif token in "]}":
            if top is None or top.is_object != (token == "}"):
                return
            stack.pop()
        elif token == ",":
            if top is None:
                return
            if top.is_object:
                top.expect_key = True
            else:
                top.index += 1
        elif token == ":":
            if top is None or not top.is_object:
                return
        elif token.startswith('"'):
            if top is not None and top.is_object and top.expect_key:
                try:
                    key = json.loads(token)
                except ValueError:
                    return
                if key in top.keys:
                    holder = stack[:-1]  # the path to this object, without the key it was on
                    inside = f"in {_path(holder, what)}; " if holder else ""
                    raise InputError(
                        f"{what} repeats the key {quoted(key)} at {line_column(text, at)} ({inside}first at "
                        f"{line_column(text, top.keys[key])}); JSON decoders disagree on which one counts, so send "
                        "each key once", field=field_path([*_parts(holder), key]))
                top.keys[key] = at
                top.key, top.expect_key = key, False
        elif token in _NON_FINITE:
            raise InputError(f"{_path(stack, what)}: {token} at {line_column(text, at)} is not a JSON number; send a "
                             "finite number", field=_path(stack, what))
        elif token[0] in "-0123456789":
            _check_number(token, text, at, _path(stack, what), limits)
        elif token not in ("true", "false", "null"):
            return


def _check_number(token: str, text: str, at: int, where: str, limits: JsonLimits) -> None:
    if _INTEGER.fullmatch(token):
        digits = len(token.lstrip("-"))
        if digits > limits.max_integer_digits:
            raise InputError(f"{where}: the integer at {line_column(text, at)} has {digits} digits, over the limit of "
                             f"{limits.max_integer_digits}; {limits.integer_hint}", field=where)
        return
    if len(token) > limits.max_number_chars:
        raise InputError(f"{where}: the number at {line_column(text, at)} is {len(token)} characters long, over the "
                         f"limit of {limits.max_number_chars}; send it with fewer digits", field=where)
    try:
        value = float(token)
    except ValueError:
        return  # not a number at all: the decoder reports it
    if value in (float("inf"), float("-inf")):
        raise InputError(f"{where}: the number {token} at {line_column(text, at)} is out of range (it overflows to "
                         "infinity); send a finite number", field=where)


def _surrogate_at(data: Any, path: list[Any], depth: int = 0) -> tuple[str, int] | None:
    """The field path and offset of the first lone surrogate in any string (or key) of the decoded JSON."""
    if isinstance(data, str):
        try:
            data.encode("utf-8")
        except UnicodeEncodeError as exc:
            return field_path(path), exc.start
        return None
    if depth > 256:  # the scan already bounds the depth; this keeps the walk safe on a Python value
        return None
    items = data.items() if isinstance(data, dict) else enumerate(data) if isinstance(data, list) else ()
    for key, value in items:
        if isinstance(key, str) and _surrogate_at(key, [], depth) is not None:
            return field_path([*path, key]), 0
        found = _surrogate_at(value, [*path, key], depth + 1)
        if found is not None:
            return found
    return None


def refuse_surrogates(data: Any, what: str) -> None:
    """An `InputError` naming the field of the first lone surrogate in `data`, if there is one."""
    found = _surrogate_at(data, [])
    if found is not None:
        where, index = found
        raise InputError(f"{where or what}: a lone surrogate (an unpaired \\ud800-\\udfff escape) at character {index}"
                         " is not a Unicode character; send the character itself or a valid surrogate pair",
                         field=where or what)


def _encodes(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def load_json(text: str | bytes, *, what: str = "request", limits: JsonLimits | None = None) -> Any:
    """Decode untrusted JSON in linear time; every problem is an `InputError` with line and column."""
    limits = limits or JsonLimits()
    if isinstance(text, bytes):
        text = decode_text(text, what=what)
    _scan(text, what, limits)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"{what} is not valid JSON: {exc.msg.removesuffix(' at')} at line {exc.lineno}, column {exc.colno}",
            field=what,
        ) from None
    except (RecursionError, ValueError) as exc:  # the scan refuses what causes these; never a traceback regardless
        raise InputError(f"{what} cannot be decoded: {exc}", field=what) from None
    if _SURROGATE_ESCAPE.search(text) or not _encodes(text):
        refuse_surrogates(data, what)
    return data


def check_json(text: str | bytes, *, what: str = "request", limits: JsonLimits | None = None) -> str:
    """`text` (decoded from UTF-8) once it passes every check of `load_json`, for a reader that decodes it again
    with its own schema (pydantic's `model_validate_json`): that decoder keeps the last of repeated keys and has no
    depth bound of ours."""
    text = decode_text(text, what=what) if isinstance(text, bytes) else text
    with _named(what):
        load_json(text, what=what, limits=limits)
    return text


def read_json_lines(text: str | bytes, *, what: str, limits: JsonLimits | None = None,
                    max_lines: int | None = None) -> Iterator[tuple[int, Any]]:
    """(line number, value) of each non-blank line of a JSON-lines text, each line held to `load_json`'s checks;
    an error names the line (`what` line N: ...)."""
    text = decode_text(text, what=what) if isinstance(text, bytes) else text
    # split on newlines only: `str.splitlines` also splits on U+2028 and friends, which a JSON string may hold
    for number, line in enumerate(text.split("\n"), start=1):
        if max_lines is not None and number > max_lines:
            raise InputError(f"{what} has more than {max_lines} lines; split it", field=what)
        line = line.removesuffix("\r")
        if not line.strip():
            continue
        where = f"{what} line {number}"
        with _named(where):
            value = load_json(line, what=where, limits=limits)
        yield number, value
