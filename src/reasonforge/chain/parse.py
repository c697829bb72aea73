"""Turn raw input (JSON text, bytes or a dict) into a validated `VerifyRequest`.

The request is untrusted text: everything here runs in time linear in its size and refuses, with an `InputError`
that says what is wrong, where and how to fix it, whatever the JSON decoder or the model would take silently or
crash on: text that is not UTF-8 (a byte-order mark, UTF-16), nesting deeper than any request needs, a repeated
key (the decoder keeps the last one), NaN and Infinity (not JSON), numbers too long to be a step id, a lone
surrogate escape (`"\\ud800"`, which cannot be written out again), and values of the wrong JSON type (`true` or
`1.0` or `"1"` as a step id: the schema says integer, so they are refused rather than coerced).
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ValidationError

from reasonforge.boundary.jsontext import JsonLimits, decode_text, field_path, refuse_surrogates
from reasonforge.boundary.jsontext import load_json as _load_json
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

REQUEST_JSON = JsonLimits(max_depth=MAX_JSON_DEPTH, max_integer_digits=MAX_INTEGER_DIGITS,
                          max_number_chars=MAX_NUMBER_CHARS, integer_hint="step ids are small positive integers",
                          depth_hint="a request needs only a few levels")
_QUOTE_CHARS = 40  # how much of a value an error message quotes
_INVISIBLE = frozenset({"Cc", "Cf", "Zs", "Zl", "Zp"})  # controls, format characters (U+200B, U+FEFF), spaces


class RequestTooLargeError(InputError):
    """The request is over `ChainLimits.max_request_bytes` (the API answers 413, not 422)."""

    code = "request_too_large"


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
    field_ = field_path(location) or "request"
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


def load_json(text: str | bytes, *, what: str = "request") -> Any:
    """Decode untrusted JSON in linear time (`boundary.jsontext`, at a request's limits); every problem is an
    `InputError` with line and column."""
    return _load_json(text, what=what, limits=REQUEST_JSON)


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
        refuse_surrogates(request.model_dump(mode="python"), "request")
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
