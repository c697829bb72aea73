"""Typed SDK errors: the API's `{"error": {code, message, field}}` bodies become exceptions by HTTP status."""

from __future__ import annotations

import math
from collections.abc import Mapping

from reasonforge.boundary.files import DOCUMENT_JSON
from reasonforge.boundary.jsontext import load_json
from reasonforge.errors import InputError, ReasonForgeError

_MAX_TEXT = 300  # a proxy's HTML error page is not a message; keep only its start


class ReasonForgeAPIError(ReasonForgeError):
    """The service answered with an error: `status`, `code`, `message`, `field` as the API sent them."""

    code = "api_error"

    def __init__(
        self,
        message: str,
        *,
        status: int,
        code: str | None = None,
        field: str | None = None,
        retry_after: float | None = None,
        request_id: str | None = None,
    ) -> None:
        super().__init__(message, field=field)
        self.status = status
        if code:
            self.code = code
        self.retry_after = retry_after
        self.request_id = request_id

    def __str__(self) -> str:
        where = f" (field: {self.field})" if self.field else ""
        return f"HTTP {self.status} {self.code}: {self.message}{where}"


class BadRequestError(ReasonForgeAPIError):
    """400: the request is malformed."""


class AuthenticationError(ReasonForgeAPIError):
    """401: no API key, an unknown one, or a revoked one."""


class PaymentRequiredError(ReasonForgeAPIError):
    """402: the key's monthly quota or credit balance does not cover the request."""


class PermissionDeniedError(ReasonForgeAPIError):
    """403: the key lacks the scope this call needs."""


class NotFoundError(ReasonForgeAPIError):
    """404: no such task or certificate for this key."""


class ConflictError(ReasonForgeAPIError):
    """409: an idempotency key was reused with a different request."""


class PayloadTooLargeError(ReasonForgeAPIError):
    """413: the request body exceeds the server's limit."""


class InvalidRequestError(ReasonForgeAPIError):
    """422: the body parsed but a field has an invalid value (`field` names it)."""


class RateLimitError(ReasonForgeAPIError):
    """429: too many requests; `retry_after` is the server's Retry-After in seconds."""


class ServerError(ReasonForgeAPIError):
    """5xx: the service failed; the request may be retried."""


class APIConnectionError(ReasonForgeError):
    """The service could not be reached (refused, timed out, TLS failure)."""

    code = "connection_error"


class ClientClosedError(ReasonForgeError):
    """A call on a client whose `close()` ran (its `with` block ended)."""

    code = "client_closed"


class InvalidResponseError(ReasonForgeError):
    """The service answered 2xx with a body that is not what the endpoint promises."""

    code = "invalid_response"


class VerificationTimeoutError(ReasonForgeError):
    """The job did not finish within `timeout_s`; it is still running: `get(task_id)` later."""

    code = "verification_timeout"

    def __init__(self, message: str, *, task_id: str, last_status: str | None) -> None:
        super().__init__(message, field="timeout_s")
        self.task_id = task_id
        self.last_status = last_status


_BY_STATUS: dict[int, type[ReasonForgeAPIError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    402: PaymentRequiredError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    413: PayloadTooLargeError,
    422: InvalidRequestError,
    429: RateLimitError,
}


def parse_retry_after(value: str | None) -> float | None:
    """Seconds from a Retry-After header given in seconds; None when absent or not a number."""
    if not value:
        return None
    try:
        seconds = float(value.strip())
    except ValueError:
        return None  # the HTTP-date form is legal but our server never sends it
    return seconds if math.isfinite(seconds) and seconds >= 0 else None


def _from_validation_detail(detail: list) -> tuple[str, str | None]:
    """FastAPI's default 422 body (`{"detail": [{loc, msg}, ...]}`) as one message and field."""
    parts, field = [], None
    for item in detail[:5]:
        if not isinstance(item, Mapping):
            continue
        loc = [str(p) for p in item.get("loc", []) if p != "body"]
        where = ".".join(loc)
        field = field or where or None
        parts.append(
            f"{where}: {item.get('msg', 'invalid')}"
            if where
            else str(item.get("msg", "invalid"))
        )
    return "; ".join(parts) or "the request was rejected", field


def error_from_body(
    status: int,
    payload: object,
    headers: Mapping[str, str],
    *,
    fallback: str | None = None,
) -> ReasonForgeAPIError:
    """The typed exception for an error answer already decoded from JSON (None when it was not JSON)."""
    kind = _BY_STATUS.get(status, ServerError if status >= 500 else ReasonForgeAPIError)
    code, field, message = None, None, ""
    if isinstance(payload, Mapping) and isinstance(payload.get("error"), Mapping):
        error = payload["error"]
        code = error.get("code") if isinstance(error.get("code"), str) else None
        message = error.get("message") if isinstance(error.get("message"), str) else ""
        field = error.get("field") if isinstance(error.get("field"), str) else None
    elif isinstance(payload, Mapping) and isinstance(payload.get("detail"), list):
        message, field = _from_validation_detail(payload["detail"])
    elif isinstance(payload, Mapping) and isinstance(payload.get("detail"), str):
        message = payload["detail"]
    return kind(
        (message or fallback or f"the server answered HTTP {status} without a message")[
            :2000
        ],
        status=status,
        code=code or f"http_{status}",
        field=field,
        retry_after=parse_retry_after(headers.get("retry-after")),
        request_id=headers.get("x-request-id"),
    )


def error_from_response(
    status: int, headers: Mapping[str, str], body: bytes
) -> ReasonForgeAPIError:
    """The typed exception for a non-2xx answer, reading the standard error body when there is one."""
    try:
        payload = load_json(body, what="the body", limits=DOCUMENT_JSON) if body else None
    except InputError:  # not JSON, or nested deeper than any error body (bounded before decoding)
        payload = None
    # Not our error body (a proxy page, an empty answer): show the start of what came back.
    text = body[:_MAX_TEXT].decode("utf-8", "replace").strip()
    fallback = f"the server answered HTTP {status}" + (
        f": {text}" if text else " with an empty body"
    )
    return error_from_body(status, payload, headers, fallback=fallback)
