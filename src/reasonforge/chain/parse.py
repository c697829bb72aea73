"""Turn raw input (JSON text, bytes or a dict) into a validated `VerifyRequest`.

The request is untrusted text: everything here runs in time linear in its size and refuses, with an `InputError`
that says what is wrong, where and how to fix it, whatever the JSON decoder or the model would take silently or
crash on: text that is not UTF-8 (a byte-order mark, UTF-16), nesting deeper than any request needs, a repeated
key (the decoder keeps the last one), NaN and Infinity (not JSON), numbers too long to be a step id, a lone
surrogate escape (`"\\ud800"`, which cannot be written out again), and values of the wrong JSON type (`true` or
`1.0` or `"1"` as a step id: the schema says integer, so they are refused rather than coerced).
"""

from __future__ import annotations

import codecs
import json
import re
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ValidationError

from reasonforge.chain.dag import StepGraph
from reasonforge.errors import InputError
from reasonforge.types import (
    CHAIN_LANGUAGES,
    CONTEXT_STEP_ID,
    DOMAIN_LANGUAGES,
    ChainLimits,
    Domain,
    StepTranslation,
    VerifyRequest,
)

MAX_JSON_DEPTH = 32
"""Deepest nesting of arrays and objects accepted; a request needs 4 (request, chain, step, dependencies)."""

MAX_INTEGER_DIGITS = 18
"""Longest integer accepted: step ids are small numbers, and 18 digits stay below 2**63."""

MAX_NUMBER_CHARS = 40
"""Longest non-integer number accepted (`translation_confidence` needs a handful of characters)."""

_QUOTE_CHARS = 40  # how much of a key or number an error message quotes
_NON_FINITE = frozenset({"NaN", "Infinity", "-Infinity"})
# One JSON token: a string, a structural character, a bare literal (number, true, NaN, ...), or any other
# non-space character (an unterminated string's quote: the scan stops there and the decoder reports it).
_TOKEN = re.compile(r'"[^"\\\x00-\x1f]*(?:\\.[^"\\\x00-\x1f]*)*"|[\[\]{}:,]|[^\s"\[\]{}:,]+|\S')
_INTEGER = re.compile(r"-?[0-9]+")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")  # where the decoded strings may hold a lone surrogate
_INVISIBLE = frozenset({"Cc", "Cf", "Zs", "Zl", "Zp"})  # controls, format characters (U+200B, U+FEFF), spaces


class RequestTooLargeError(InputError):
    """The request is over `ChainLimits.max_request_bytes` (the API answers 413, not 422)."""

    code = "request_too_large"


def _field_path(location: Sequence[Any]) -> str:
    path = ""
    for part in location:
        if isinstance(part, int):
            path += f"[{part}]"
            continue
        # A key from the document is quoted unless it is a plain name: it may hold control characters (a
        # terminal escape), a surrogate, or a megabyte of text, and it is printed.
        name = str(part) if _NAME.fullmatch(str(part)) else _quoted(str(part))
        path += f".{name}" if path else name
    return path


def _step_id_at(data: Any, location: Sequence[Any]) -> int | None:
    # Name the step by its own id when the error sits inside reasoning_chain[i] (and the id itself is sound).
    if len(location) >= 2 and location[0] == "reasoning_chain" and isinstance(location[1], int):
        try:
            step_id = data["reasoning_chain"][location[1]]["step_id"]
        except (KeyError, IndexError, TypeError):
            return None
        return step_id if type(step_id) is int and abs(step_id) < 10**MAX_INTEGER_DIGITS else None
    return None


def _got(value: Any) -> str:
    text = json.dumps(value) if isinstance(value, (bool, int, float, str)) or value is None else type(value).__name__
    return text if len(text) <= _QUOTE_CHARS else text[:_QUOTE_CHARS] + "…"


def _from_validation_error(error: ValidationError, data: Any) -> InputError:
    first = error.errors()[0]
    location = first.get("loc", ())
    field_ = _field_path(location) or "request"
    more = len(error.errors()) - 1
    suffix = f" (and {more} more problem{'s' if more > 1 else ''})" if more else ""
    message = f"{field_}: {first['msg']}"
    if first.get("type", "").endswith("_type") and "input" in first:
        # Strict JSON types: say what was sent, so `true` or `"1"` for an integer is obvious.
        message += f", got {_got(first['input'])}"
    message += suffix
    if first.get("type") == "extra_forbidden":
        message = f"{field_}: unknown field; remove it or check its spelling{suffix}"
    return InputError(message, field=field_, step_id=_step_id_at(data, location))


# ---- text ---------------------------------------------------------------------------------------------------------
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


def _line_column(text: str, position: int) -> str:
    line = text.count("\n", 0, position) + 1
    column = position - text.rfind("\n", 0, position)
    return f"line {line}, column {column}"


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
    path = _field_path(list(_parts(frames))) or what
    return path if len(path) <= 2 * _QUOTE_CHARS else path[: 2 * _QUOTE_CHARS] + "…"


def _quoted(text: str) -> str:
    shown = json.dumps(text)  # ASCII-escaped: a key full of control or surrogate characters prints safely
    return shown if len(shown) <= _QUOTE_CHARS else shown[:_QUOTE_CHARS] + "…\""


def _scan(text: str, what: str) -> None:
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
            if len(stack) >= MAX_JSON_DEPTH:
                raise InputError(f"{what} is nested more than {MAX_JSON_DEPTH} levels deep at {_line_column(text, at)}"
                                 f" (in {_path(stack, what)}); a request needs only a few levels", field=what)
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
                    raise InputError(
                        f"{what} repeats the key {_quoted(key)} at {_line_column(text, at)} (in {_path(holder, what)}; "
                        f"first at {_line_column(text, top.keys[key])}); JSON decoders disagree on which one counts, "
                        "so send each key once", field=_field_path([*_parts(holder), key]))
                top.keys[key] = at
                top.key, top.expect_key = key, False
        elif token in _NON_FINITE:
            raise InputError(f"{_path(stack, what)}: {token} at {_line_column(text, at)} is not a JSON number; send a "
                             "finite number", field=_path(stack, what))
        elif token[0] in "-0123456789":
            _check_number(token, text, at, _path(stack, what))
        elif token not in ("true", "false", "null"):
            return


def _check_number(token: str, text: str, at: int, where: str) -> None:
    if _INTEGER.fullmatch(token):
        digits = len(token.lstrip("-"))
        if digits > MAX_INTEGER_DIGITS:
            raise InputError(f"{where}: the integer at {_line_column(text, at)} has {digits} digits, over the limit of "
                             f"{MAX_INTEGER_DIGITS}; step ids are small positive integers", field=where)
        return
    if len(token) > MAX_NUMBER_CHARS:
        raise InputError(f"{where}: the number at {_line_column(text, at)} is {len(token)} characters long, over the "
                         f"limit of {MAX_NUMBER_CHARS}; send it with fewer digits", field=where)
    try:
        value = float(token)
    except ValueError:
        return  # not a number at all: the decoder reports it
    if value in (float("inf"), float("-inf")):
        raise InputError(f"{where}: the number {token} at {_line_column(text, at)} is out of range (it overflows to "
                         "infinity); send a finite number", field=where)


def _surrogate_at(data: Any, path: list[Any], depth: int = 0) -> tuple[str, int] | None:
    """The field path and offset of the first lone surrogate in any string (or key) of the decoded JSON."""
    if isinstance(data, str):
        try:
            data.encode("utf-8")
        except UnicodeEncodeError as exc:
            return _field_path(path), exc.start
        return None
    if depth > MAX_JSON_DEPTH:  # the scan already bounds the depth; this keeps the walk safe on a dict input
        return None
    items = data.items() if isinstance(data, dict) else enumerate(data) if isinstance(data, list) else ()
    for key, value in items:
        if isinstance(key, str) and _surrogate_at(key, [], depth) is not None:
            return _field_path([*path, key]), 0
        found = _surrogate_at(value, [*path, key], depth + 1)
        if found is not None:
            return found
    return None


def _refuse_surrogates(data: Any, what: str) -> None:
    found = _surrogate_at(data, [])
    if found is not None:
        where, index = found
        raise InputError(f"{where or what}: a lone surrogate (an unpaired \\ud800-\\udfff escape) at character {index}"
                         " is not a Unicode character; send the character itself or a valid surrogate pair",
                         field=where or what)


def load_json(text: str | bytes, *, what: str = "request") -> Any:
    """Decode untrusted JSON in linear time; every problem is an `InputError` with line and column."""
    if isinstance(text, bytes):
        text = decode_text(text, what=what)
    _scan(text, what)
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
        _refuse_surrogates(data, what)
    return data


def _encodes(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


# ---- requests -----------------------------------------------------------------------------------------------------
def _as_text(raw: str | bytes | dict[str, Any] | list[Any], what: str) -> str | bytes:
    if isinstance(raw, (str, bytes)):
        return raw
    try:
        # A dict gets the same checks as text: JSON types, finite numbers, no surrogates.
        return json.dumps(raw, allow_nan=False, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError) as exc:
        raise InputError(f"{what} is not JSON data ({exc})", field=what) from None


def _text_size(text: str | bytes) -> int:
    return len(text) if isinstance(text, bytes) else len(text.encode("utf-8", "surrogatepass"))


def _strict(model: type[BaseModel], text: str) -> Any:
    # JSON semantics, strictly: an integer field takes only a JSON integer (not true, 1.0 or "1"), a boolean only
    # true/false, while enums still come as their strings. `text` passed `load_json`, so only the schema can fail.
    return model.model_validate_json(text, strict=True)


def parse_request(raw: str | bytes | dict[str, Any], limits: ChainLimits | None = None) -> VerifyRequest:
    """Parse and validate a verification request; every problem is an `InputError` naming the field."""
    limits = limits or ChainLimits()
    text = _as_text(raw, "request")
    _check_request_size(_text_size(text), limits)
    if isinstance(text, bytes):
        text = decode_text(text)
    data = load_json(text)
    if not isinstance(data, dict):
        raise InputError(f"the request must be a JSON object with a reasoning_chain, not {_json_kind(data)}",
                         field="request")
    try:
        request = _strict(VerifyRequest, text)
    except ValidationError as exc:
        raise _from_validation_error(exc, data) from None
    validate_request(request, limits)
    return request


def _json_kind(data: Any) -> str:
    if isinstance(data, list):
        return "an array"
    if isinstance(data, str):
        return "a string"
    if isinstance(data, bool) or data is None:
        return json.dumps(data)
    return "a number"


def parse_translations(raw: str | bytes | list[Any], limits: ChainLimits | None = None) -> list[StepTranslation]:
    """Parse a JSON list of `StepTranslation` objects (or `{"translations": [...]}`)."""
    limits = limits or ChainLimits()
    text = _as_text(raw, "translations")
    size = _text_size(text)
    if size > limits.max_request_bytes:
        raise RequestTooLargeError(f"translations are {size} bytes, over the limit of {limits.max_request_bytes}; "
                                   "split the chain", field="translations")
    data = load_json(text, what="translations")
    if isinstance(data, dict) and "translations" in data:
        data = data["translations"]
    if not isinstance(data, list):
        raise InputError("translations must be a JSON list of StepTranslation objects", field="translations")
    out: list[StepTranslation] = []
    for index, item in enumerate(data):
        try:
            out.append(_strict(StepTranslation, json.dumps(item, ensure_ascii=False)))
        except ValidationError as exc:
            inner = _from_validation_error(exc, item)
            if inner.field == "request":  # the item itself is not an object
                raise InputError(f"translations[{index}]: {exc.errors()[0]['msg']}, got {_got(item)}",
                                 field=f"translations[{index}]") from None
            raise InputError(
                f"translations[{index}].{inner.message}", field=f"translations[{index}].{inner.field}"
            ) from None
    return out


def _check_request_size(size: int, limits: ChainLimits) -> None:
    if size > limits.max_request_bytes:
        raise RequestTooLargeError(
            f"request is {size} bytes, over the limit of {limits.max_request_bytes}; split the chain",
            field="request",
        )


def _is_blank(text: str) -> bool:
    """Only whitespace, control and invisible format characters (U+200B, U+2060, U+FEFF): nothing to read."""
    return all(ch.isspace() or unicodedata.category(ch) in _INVISIBLE for ch in text)


def _serialised_size(request: VerifyRequest) -> int:
    try:
        return len(request.model_dump_json().encode())
    except ValueError:  # PydanticSerializationError: a lone surrogate in a model built in Python
        _refuse_surrogates(request.model_dump(mode="python"), "request")
        raise


def validate_request(request: VerifyRequest, limits: ChainLimits | None = None) -> StepGraph:
    """Check size limits, step ids and the dependency DAG; return the graph."""
    limits = limits or ChainLimits()
    _check_request_size(_serialised_size(request), limits)
    steps = request.reasoning_chain
    if len(steps) > limits.max_steps:
        raise InputError(
            f"the chain has {len(steps)} steps, over the limit of {limits.max_steps}; split it into smaller chains",
            field="reasoning_chain",
        )
    for index, step in enumerate(steps):
        if step.step_id < 1:
            reserved = " (0 is the Context, the question's givens)" if step.step_id == CONTEXT_STEP_ID else ""
            raise InputError(
                f"step_id {step.step_id} is not a positive integer{reserved}; number the steps from 1",
                field=f"reasoning_chain[{index}].step_id",
            )
        size = len(step.content.encode())
        if size > limits.max_step_bytes:
            raise InputError(
                f"content is {size} bytes, over the limit of {limits.max_step_bytes} per step; split the step",
                field=f"reasoning_chain[{index}].content",
                step_id=step.step_id,
            )
        if _is_blank(step.content):
            raise InputError(
                "content is empty (nothing but whitespace or invisible characters); every step needs its reasoning "
                "text",
                field=f"reasoning_chain[{index}].content",
                step_id=step.step_id,
            )
    graph = StepGraph(steps)
    if request.translations is not None:
        chosen = [name for name in ("translator", "samples", "agree") if getattr(request, name) is not None]
        if chosen:
            raise InputError(f"{', '.join(chosen)} choose{'s' if len(chosen) == 1 else ''} who translates; this "
                             "chain brings its own translations (drop one or the other)", field=chosen[0])
        check_translations(request.translations, graph, request.domain)
    return graph


def check_translations(translations: Sequence[StepTranslation], graph: StepGraph, domain: Domain | None = None) -> None:
    """Every translation must name a distinct step of the chain (or be the one coq/lean4 Context, step 0) and,
    with `domain` (translations the caller supplies), be in a language that domain accepts: the domain picks the
    checker and the reader that aligns the step, never the artifact."""
    seen: set[int] = set()
    for index, translation in enumerate(translations):
        field_ = f"translations[{index}].step_id"
        if (translation.step_id == CONTEXT_STEP_ID and CONTEXT_STEP_ID not in graph.dependencies
                and translation.language in CHAIN_LANGUAGES):
            if translation.step_id in seen:
                raise InputError("more than one Context translation (step_id 0); send one", field=field_, step_id=0)
            seen.add(translation.step_id)
            _check_language(translation, index, domain)
            continue
        if translation.step_id not in graph.dependencies:
            known = ", ".join(str(s) for s in graph.step_ids)
            raise InputError(
                f"translation for unknown step {translation.step_id}; use a step_id from reasoning_chain ({known})"
                + (" or 0 for a coq/lean4 Context" if translation.step_id == CONTEXT_STEP_ID else ""),
                field=field_,
                step_id=translation.step_id,
            )
        if translation.step_id in seen:
            raise InputError(
                "more than one translation for this step; send one per step",
                field=field_,
                step_id=translation.step_id,
            )
        seen.add(translation.step_id)
        _check_language(translation, index, domain)


def _check_language(translation: StepTranslation, index: int, domain: Domain | None) -> None:
    if domain is not None and translation.language not in DOMAIN_LANGUAGES[domain]:
        allowed = ", ".join(sorted(language.value for language in DOMAIN_LANGUAGES[domain]))
        raise InputError(
            f"the translation is {translation.language.value}, which a {domain.value} chain does not accept; "
            f"the {domain.value} domain accepts {allowed}",
            field=f"translations[{index}].language", step_id=translation.step_id)
