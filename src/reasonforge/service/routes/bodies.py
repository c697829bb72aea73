"""Request bodies read by the same parser as the command line, before FastAPI decodes them.

FastAPI would decode a body with `json.loads` (a deeply nested one is a bare 400, duplicate keys keep the last
value, a lone surrogate passes and breaks the job store later) and validate it leniently (`true` and `"1"` become
step id 1). These routes first run `chain.parse`'s checks on the raw bytes, so the API refuses exactly what
`reasonforge verify` refuses, with the same message, as a 422 (a size over the request limit: 413).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import Request, Response
from fastapi.routing import APIRoute
from starlette.concurrency import run_in_threadpool

from reasonforge.chain.parse import RequestTooLargeError, load_json, parse_request
from reasonforge.errors import InputError
from reasonforge.service.accounts import authenticate
from reasonforge.service.errors import PayloadTooLargeError, ValidationFailedError

_Handler = Callable[[Request], Coroutine[Any, Any, Response]]


def _api_error(exc: InputError) -> ValidationFailedError | PayloadTooLargeError:
    # The parser calls the whole document "request"; the API's error bodies call it "body".
    field = "body" if exc.field in (None, "request") else exc.field
    if isinstance(exc, RequestTooLargeError):
        return PayloadTooLargeError(exc.message, field=field)
    return ValidationFailedError(exc.message, field=field)


def _authenticated(request: Request) -> None:
    """Raise the 401 the route's own dependency would, for a missing, unknown or revoked key."""
    state = request.app.state.rf
    if state.settings.require_auth:
        with state.jobs.sessionmaker() as session:
            authenticate(session, request.headers.get("authorization"))


class _CheckedBodyRoute(APIRoute):
    """A route whose body, when it has one, is checked by `check` (in a worker thread) before FastAPI reads it."""

    @staticmethod
    def check(body: bytes) -> None:
        """Raise an `InputError` for a body this route refuses."""
        raise NotImplementedError

    def get_route_handler(self) -> _Handler:
        """FastAPI's handler, behind the body check."""
        handler = super().get_route_handler()
        if self.body_field is None:
            return handler

        async def checked(request: Request) -> Response:
            body = await request.body()  # cached on the request: FastAPI's own read gets the same bytes
            try:
                await run_in_threadpool(self.check, body)
            except InputError as exc:
                # A caller without a valid key hears 401 first, as on every other route: not what its body lacks.
                await run_in_threadpool(_authenticated, request)
                raise _api_error(exc) from None
            return await handler(request)

        return checked


class VerifyRequestRoute(_CheckedBodyRoute):
    """`POST /v1/verify`: the body must be a `VerifyRequest` that `chain.parse_request` accepts."""

    @staticmethod
    def check(body: bytes) -> None:
        """The command line's parse of a request, strict JSON types and limits included."""
        parse_request(body)


class JsonBodyRoute(_CheckedBodyRoute):
    """Any other JSON body: UTF-8, bounded nesting and numbers, no repeated keys, no NaN, no lone surrogates."""

    @staticmethod
    def check(body: bytes) -> None:
        """`chain.load_json`'s checks; the route's model validates the rest."""
        if body:
            load_json(body, what="body")


class BatchRoute(_CheckedBodyRoute):
    """`POST /v1/verify/batch`: `{"requests": [...]}`, each request parsed as `POST /v1/verify` parses one."""

    @staticmethod
    def check(body: bytes) -> None:
        """The command line's parse of each request, the error naming which one."""
        document = load_json(body, what="body")
        requests = document.get("requests") if isinstance(document, dict) else None
        if not isinstance(requests, list):
            raise InputError('the body must be {"requests": [VerifyRequest, ...]}', field="requests")
        for index, item in enumerate(requests):
            try:
                parse_request(json.dumps(item, ensure_ascii=False).encode("utf-8"))
            except InputError as exc:
                raise InputError(f"requests[{index}]: {exc.message}", field=f"requests[{index}]") from None


__all__ = ["BatchRoute", "JsonBodyRoute", "VerifyRequestRoute"]
