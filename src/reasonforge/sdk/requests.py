"""The bodies of `POST /v1/verify` and `POST /v1/verify/reasoning`, checked against the API's own models
(`VerifyRequest`, `ReasoningSubmission`) before they leave the client."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import urlencode

from pydantic import BaseModel, ValidationError

from reasonforge.errors import InputError
from reasonforge.types import MAX_BATCH_REQUESTS, ReasoningStep, ReasoningSubmission, StepTranslation, VerifyRequest

StepLike = ReasoningStep | Mapping[str, Any] | str
TranslationLike = StepTranslation | Mapping[str, Any]


def _plain(item: Any) -> Any:
    """Pydantic models (ours, or a caller's own) as plain data, so one validator sees everything."""
    return (
        item.model_dump(mode="json", exclude_unset=True)
        if isinstance(item, BaseModel)
        else item
    )


def normalise_chain(reasoning_chain: Iterable[StepLike]) -> list[Any]:
    """Steps as the API takes them; bare strings become steps numbered 1..n in order."""
    if isinstance(reasoning_chain, (str, bytes, Mapping)):
        raise InputError(
            "reasoning_chain must be a list of steps ({'step_id': 1, 'content': '...'} or plain strings), "
            f"not a single {type(reasoning_chain).__name__}",
            field="reasoning_chain",
        )
    steps = []
    for index, item in enumerate(reasoning_chain, start=1):
        steps.append(
            {"step_id": index, "content": item}
            if isinstance(item, str)
            else _plain(item)
        )
    if not steps:
        raise InputError(
            "reasoning_chain is empty; give at least one step", field="reasoning_chain"
        )
    return steps


def _location(loc: tuple[Any, ...]) -> str:
    """`('reasoning_chain', 2, 'step_id')` as `reasoning_chain[2].step_id`."""
    text = ""
    for part in loc:
        text += (
            f"[{part}]"
            if isinstance(part, int)
            else (f".{part}" if text else str(part))
        )
    return text


def input_error(exc: ValidationError) -> InputError:
    """A pydantic failure as one InputError naming every bad field (up to five)."""
    problems = [f"{_location(err['loc'])}: {err['msg']}" for err in exc.errors()[:5]]
    more = len(exc.errors()) - len(problems)
    first = _location(exc.errors()[0]["loc"]) if exc.errors() else None
    return InputError(
        "invalid verification request: "
        + "; ".join(problems)
        + (f" (and {more} more)" if more > 0 else ""),
        field=first or None,
    )


def build_verify_body(
    *,
    reasoning_chain: Iterable[StepLike],
    domain: str,
    original_query: str,
    claimed_answer: str,
    proof_level: str,
    callback_url: str | None,
    generate_certificate: bool,
    translations: Iterable[TranslationLike] | None,
    prover: str | None = None,
    translator: str | None = None,
    samples: int | None = None,
    agree: int | None = None,
    reference_answer: str | None = None,
) -> dict[str, Any]:
    """The JSON body for `POST /v1/verify`; raises InputError (naming the field) on anything invalid."""
    fields: dict[str, Any] = {
        "reasoning_chain": normalise_chain(reasoning_chain),
        "domain": getattr(domain, "value", domain),
        "original_query": original_query,
        "claimed_answer": claimed_answer,
        "proof_level": getattr(proof_level, "value", proof_level),
        "generate_certificate": generate_certificate,
    }
    plain = [_plain(t) for t in translations] if translations is not None else None
    return _wire(VerifyRequest, fields, callback_url=callback_url, translations=plain, prover=prover,
                 translator=translator, samples=samples, agree=agree,
                 reference_answer=reference_answer)


def _wire(model: type[BaseModel], fields: dict[str, Any], **optional: Any) -> dict[str, Any]:
    """`fields` and the optional ones that are set, validated by `model` (InputError naming the field)."""
    fields.update({name: getattr(value, "value", value) for name, value in optional.items() if value is not None})
    try:
        checked = model.model_validate(fields)
    except ValidationError as exc:
        raise input_error(exc) from None
    # Only what the caller set goes on the wire, so the server's defaults stay the server's.
    return checked.model_dump(mode="json", exclude_unset=True)


def build_reasoning_body(
    *,
    reasoning: str | Mapping[str, Any] | BaseModel,
    domain: str,
    original_query: str,
    claimed_answer: str | None,
    proof_level: str,
    callback_url: str | None,
    generate_certificate: bool,
    prover: str | None = None,
    source: str = "auto",
    translator: str | None = None,
    samples: int | None = None,
    agree: int | None = None,
    reference_answer: str | None = None,
) -> dict[str, Any]:
    """The JSON body for `POST /v1/verify/reasoning`; raises InputError (naming the field) on anything invalid.
    An SDK response object (openai, anthropic: pydantic models) is sent as its JSON."""
    if isinstance(reasoning, BaseModel):
        reasoning = reasoning.model_dump(mode="json")
    elif hasattr(reasoning, "model_dump") and not isinstance(reasoning, (str, Mapping)):
        reasoning = reasoning.model_dump()
    fields: dict[str, Any] = {
        "reasoning": dict(reasoning) if isinstance(reasoning, Mapping) else reasoning,
        "domain": getattr(domain, "value", domain),
        "original_query": original_query,
        "proof_level": getattr(proof_level, "value", proof_level),
        "generate_certificate": generate_certificate,
        "source": getattr(source, "value", source),
    }
    return _wire(ReasoningSubmission, fields, claimed_answer=claimed_answer, callback_url=callback_url, prover=prover,
                 translator=translator, samples=samples, agree=agree,
                 reference_answer=reference_answer)


def build_batch_bodies(requests: Iterable[VerifyRequest | Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The bodies for `POST /v1/verify/batch`, at most `MAX_BATCH_REQUESTS` requests each, every request checked
    here first (InputError naming `requests[i]`)."""
    checked: list[dict[str, Any]] = []
    for index, request in enumerate(requests):
        try:
            if isinstance(request, VerifyRequest):
                model = request
            else:
                fields = dict(request)
                if "reasoning_chain" in fields:  # steps as plain strings, as `verify` takes them
                    fields["reasoning_chain"] = normalise_chain(fields["reasoning_chain"])
                model = VerifyRequest.model_validate(fields)
        except ValidationError as exc:
            error = input_error(exc)
            raise InputError(f"requests[{index}]: {error.message}", field=f"requests[{index}]") from None
        except InputError as exc:
            raise InputError(f"requests[{index}]: {exc.message}", field=f"requests[{index}]") from None
        checked.append(model.model_dump(mode="json", exclude_unset=True))
    if not checked:
        raise InputError("no requests to verify: give at least one", field="requests")
    return [{"requests": checked[i:i + MAX_BATCH_REQUESTS]} for i in range(0, len(checked), MAX_BATCH_REQUESTS)]


def list_query(status: str | None, limit: int, cursor: str | None) -> str:
    """The query string of `GET /v1/verify` (InputError for a limit outside 1..100)."""
    if not 1 <= limit <= 100:
        raise InputError(f"limit must be from 1 to 100, got {limit}", field="limit")
    params = {"limit": str(limit)}
    if status is not None:
        params["status"] = getattr(status, "value", status)
    if cursor is not None:
        params["cursor"] = cursor
    return "?" + urlencode(params)
