"""Turn raw input (JSON text, bytes or a dict) into a validated `VerifyRequest`."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from pydantic import ValidationError

from reasonforge.chain.dag import StepGraph
from reasonforge.errors import InputError
from reasonforge.types import CHAIN_LANGUAGES, CONTEXT_STEP_ID, ChainLimits, StepTranslation, VerifyRequest


def _field_path(location: Sequence[Any]) -> str:
    path = ""
    for part in location:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    return path


def _step_id_at(data: Any, location: Sequence[Any]) -> int | None:
    # Name the step by its own id when the error sits inside reasoning_chain[i].
    if len(location) >= 2 and location[0] == "reasoning_chain" and isinstance(location[1], int):
        try:
            step_id = data["reasoning_chain"][location[1]]["step_id"]
        except (KeyError, IndexError, TypeError):
            return None
        return step_id if isinstance(step_id, int) else None
    return None


def _from_validation_error(error: ValidationError, data: Any) -> InputError:
    first = error.errors()[0]
    location = first.get("loc", ())
    field = _field_path(location) or "request"
    more = len(error.errors()) - 1
    suffix = f" (and {more} more problem{'s' if more > 1 else ''})" if more else ""
    message = f"{field}: {first['msg']}{suffix}"
    if first.get("type") == "extra_forbidden":
        message = f"{field}: unknown field; remove it or check its spelling{suffix}"
    return InputError(message, field=field, step_id=_step_id_at(data, location))


def load_json(text: str | bytes, *, what: str = "request") -> Any:
    """Decode JSON, turning a syntax error into an `InputError` with line and column."""
    try:
        return json.loads(text)
    except UnicodeDecodeError as exc:
        raise InputError(f"{what} is not UTF-8 text ({exc.reason} at byte {exc.start})", field=what) from None
    except json.JSONDecodeError as exc:
        raise InputError(
            f"{what} is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}", field=what
        ) from None


def parse_request(raw: str | bytes | dict[str, Any], limits: ChainLimits | None = None) -> VerifyRequest:
    """Parse and validate a verification request; every problem is an `InputError` naming the field."""
    limits = limits or ChainLimits()
    if isinstance(raw, (str, bytes)):
        size = len(raw.encode() if isinstance(raw, str) else raw)
        _check_request_size(size, limits)
        data = load_json(raw)
    else:
        data = raw
    if not isinstance(data, dict):
        raise InputError("the request must be a JSON object with a reasoning_chain", field="request")
    try:
        request = VerifyRequest.model_validate(data)
    except ValidationError as exc:
        raise _from_validation_error(exc, data) from None
    validate_request(request, limits)
    return request


def parse_translations(raw: str | bytes | list[Any]) -> list[StepTranslation]:
    """Parse a JSON list of `StepTranslation` objects (or `{"translations": [...]}`)."""
    data = load_json(raw, what="translations") if isinstance(raw, (str, bytes)) else raw
    if isinstance(data, dict) and "translations" in data:
        data = data["translations"]
    if not isinstance(data, list):
        raise InputError("translations must be a JSON list of StepTranslation objects", field="translations")
    out: list[StepTranslation] = []
    for index, item in enumerate(data):
        try:
            out.append(StepTranslation.model_validate(item))
        except ValidationError as exc:
            inner = _from_validation_error(exc, item)
            raise InputError(
                f"translations[{index}].{inner.message}", field=f"translations[{index}].{inner.field}"
            ) from None
    return out


def _check_request_size(size: int, limits: ChainLimits) -> None:
    if size > limits.max_request_bytes:
        raise InputError(
            f"request is {size} bytes, over the limit of {limits.max_request_bytes}; split the chain",
            field="request",
        )


def validate_request(request: VerifyRequest, limits: ChainLimits | None = None) -> StepGraph:
    """Check size limits and the dependency DAG; return the graph."""
    limits = limits or ChainLimits()
    _check_request_size(len(request.model_dump_json().encode()), limits)
    steps = request.reasoning_chain
    if len(steps) > limits.max_steps:
        raise InputError(
            f"the chain has {len(steps)} steps, over the limit of {limits.max_steps}; split it into smaller chains",
            field="reasoning_chain",
        )
    for index, step in enumerate(steps):
        size = len(step.content.encode())
        if size > limits.max_step_bytes:
            raise InputError(
                f"content is {size} bytes, over the limit of {limits.max_step_bytes} per step; split the step",
                field=f"reasoning_chain[{index}].content",
                step_id=step.step_id,
            )
        if not step.content.strip():
            raise InputError(
                "content is empty; every step needs its reasoning text",
                field=f"reasoning_chain[{index}].content",
                step_id=step.step_id,
            )
    graph = StepGraph(steps)
    if request.translations is not None:
        check_translations(request.translations, graph)
    return graph


def check_translations(translations: Sequence[StepTranslation], graph: StepGraph) -> None:
    """Every translation must name a distinct step of the chain (or be the one coq/lean4 Context, step 0)."""
    seen: set[int] = set()
    for index, translation in enumerate(translations):
        field = f"translations[{index}].step_id"
        if (translation.step_id == CONTEXT_STEP_ID and CONTEXT_STEP_ID not in graph.dependencies
                and translation.language in CHAIN_LANGUAGES):
            if translation.step_id in seen:
                raise InputError("more than one Context translation (step_id 0); send one", field=field, step_id=0)
            seen.add(translation.step_id)
            continue
        if translation.step_id not in graph.dependencies:
            raise InputError(
                f"translation for unknown step {translation.step_id}; use a step_id from reasoning_chain",
                field=field,
                step_id=translation.step_id,
            )
        if translation.step_id in seen:
            raise InputError(
                "more than one translation for this step; send one per step",
                field=field,
                step_id=translation.step_id,
            )
        seen.add(translation.step_id)
