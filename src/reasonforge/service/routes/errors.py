"""One error body for everything: `{"error": {"code", "message", "field"}}`, never a traceback."""

from __future__ import annotations

import logging
import re

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError
from starlette.exceptions import HTTPException as StarletteHTTPException

from reasonforge.boundary.secrets import env_secrets, scrub
from reasonforge.errors import ReasonForgeError
from reasonforge.service.errors import ServiceError

log = logging.getLogger(__name__)


class ErrorDetail(BaseModel):
    """What went wrong, a stable code, and the request field at fault (when there is one)."""

    code: str
    message: str
    field: str | None = None


class ErrorBody(BaseModel):
    """Every API error."""

    error: ErrorDetail


ERROR_RESPONSES: dict[int | str, dict] = {
    status: {"model": ErrorBody, "description": text}
    for status, text in {
        401: "Missing, invalid or revoked API key.",
        402: "The key's tier or credit balance does not cover the request.",
        403: "The key lacks the scope this endpoint needs.",
        404: "No such task or certificate for this key.",
        409: "Idempotency-Key reused with a different body, or the task already ended.",
        413: "Request body over the size limit.",
        422: "The request is invalid; `field` names the culprit.",
        429: "Rate limit exceeded; see Retry-After.",
    }.items()
}

_HTTP_CODES = {
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    415: "unsupported_media_type",
}


def error_response(
    status: int,
    code: str,
    message: str,
    field: str | None = None,
    headers: dict | None = None,
) -> JSONResponse:
    """A JSON error response in the standard body (its message scrubbed of any credential the process holds)."""
    body = {"error": {"code": code, "message": scrub(message, env_secrets()), "field": field}}
    return JSONResponse(body, status_code=status, headers=headers)


def _field_of(loc: tuple | list) -> str | None:
    parts = [str(p) for p in loc if p not in ("body", "query", "path", "header")]
    if not parts:
        return "body" if loc and loc[0] == "body" else None
    out = parts[0]
    for part in parts[1:]:
        out += f"[{part}]" if part.isdigit() else f".{part}"
    return out


def validation_message(exc: RequestValidationError) -> tuple[str, str | None]:
    """The first problem as `field: message` (plus how many more), and that field."""
    errors = exc.errors()
    if not errors:
        return "the request is invalid", None
    first = errors[0]
    field = _field_of(first.get("loc", ()))
    message = str(first.get("msg", "invalid value"))
    if first.get("type") == "json_invalid":
        message = (
            f"the body is not valid JSON ({first.get('ctx', {}).get('error', message)})"
        )
        field = "body"
    elif field:
        message = f"{field}: {message}"
    if len(errors) > 1:
        message += (
            f" (and {len(errors) - 1} more problem{'s' if len(errors) > 2 else ''})"
        )
    return message, field


_METHODS = ("get", "head", "post", "put", "patch", "delete")


def _template_regex(template: str) -> re.Pattern[str]:
    """An OpenAPI path template (`/v1/verify/{task_id}`) as a regex of the paths it names."""
    parts = re.split(r"\{[^/{}]+\}", template)
    return re.compile("[^/]+".join(re.escape(part) for part in parts))


def _allowed_methods(request: Request) -> list[str]:
    """The methods the API document lists for this request's path: a literal path (`/v1/verify/reasoning`)
    before a template that would also match it (`/v1/verify/{task_id}`), so Allow says what the schema says."""
    paths: dict = request.app.openapi().get("paths", {})
    path = request.url.path
    template = path if path in paths else next(
        (t for t in paths if "{" in t and _template_regex(t).fullmatch(path)), None)
    operations = paths.get(template, {}) if template else {}
    return [method.upper() for method in _METHODS if method in operations]


def install_error_handlers(app: FastAPI) -> None:
    """Map every exception the app can raise onto the standard body."""

    @app.exception_handler(ServiceError)
    async def service_error(_request: Request, exc: ServiceError) -> JSONResponse:
        body = exc.body()
        body["error"]["message"] = scrub(str(body["error"].get("message", "")), env_secrets())
        return JSONResponse(
            body, status_code=exc.status_code, headers=exc.headers or None
        )

    @app.exception_handler(RequestValidationError)
    async def invalid_request(
        _request: Request, exc: RequestValidationError
    ) -> JSONResponse:
        message, field = validation_message(exc)
        return error_response(422, "validation_error", message, field)

    @app.exception_handler(ReasonForgeError)
    async def domain_error(_request: Request, exc: ReasonForgeError) -> JSONResponse:
        # InputError and friends reaching here are about the request (routes convert most earlier).
        return error_response(422, exc.code, exc.message, exc.field)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(
        _request: Request, exc: StarletteHTTPException
    ) -> JSONResponse:
        code = _HTTP_CODES.get(exc.status_code, "http_error")
        message = (
            "no such endpoint; see /docs" if exc.status_code == 404 else str(exc.detail)
        )
        headers = dict(getattr(exc, "headers", None) or {})
        if exc.status_code == 405:
            # Starlette names only the first route on the path; GET and DELETE live on different ones
            allowed = _allowed_methods(_request)
            headers["Allow"] = ", ".join(allowed)
            message = f"{_request.method} is not allowed here; allowed: {', '.join(allowed)}"
        return error_response(exc.status_code, code, message, headers=headers or None)

    @app.exception_handler(InterfaceError)
    @app.exception_handler(OperationalError)
    async def store_down(request: Request, exc: DBAPIError) -> JSONResponse:
        # Connection refused, server restarting, lock timeouts: the request may be retried as is.
        log.warning(
            "store error on %s %s: %s", request.method, request.url.path, exc.orig
        )
        return error_response(
            503,
            "store_unavailable",
            "the job store is unavailable right now; retry shortly",
            headers={"Retry-After": "5"},
        )

    @app.exception_handler(Exception)
    async def crash(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error on %s %s", request.method, request.url.path)
        return error_response(
            500,
            "internal_error",
            "internal server error; the service logged the details",
        )
