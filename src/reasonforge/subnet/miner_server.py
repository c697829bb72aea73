"""The miner's side of signed HTTP (btauth/1, see `transport.py`): a FastAPI app and its server.

`create_miner_app` is a FastAPI app with POST /task, POST /result and GET /health.
Every POST is authenticated before its body is parsed, in this order:

| check | status | `code` in the JSON error body |
|---|---|---|
| body over `max_body_bytes` | 413 | `body_too_large` |
| missing or malformed btauth headers | 401 | `malformed_auth` |
| signed for another receiver | 403 | `wrong_receiver` |
| nonce outside the freshness window | 401 | `stale_request` |
| signature does not match hotkey/body | 401 | `bad_signature` |
| nonce already accepted (replay) | 401 | `replayed_request` |
| caller refused by the `allow` hook | 403 | `blacklisted` |
| body not JSON / not the model | 422 | `invalid_json` / `invalid_model` |
| handler missed the task's deadline | 504 | `deadline_exceeded` |

Replays are 401 rather than 409: a replayed request is an authentication failure (the caller did
not prove it holds the key now), and 401 tells honest clients to re-sign with a fresh nonce.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any, TypeVar

from bittensor import http_auth
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ValidationError

from reasonforge.subnet.keys import Identity
from reasonforge.subnet.protocol import TranslationTask, VerificationResult
from reasonforge.subnet.transport import (
    HEALTH_PATH,
    MAX_BODY_BYTES,
    RESULT_PATH,
    TASK_PATH,
    describe_errors,
    sign_response,
)

__all__ = ["PeerRefused", "PriorityGate", "create_miner_app", "serve_miner"]

_Model = TypeVar("_Model", bound=BaseModel)

_AUTH_STATUS: dict[type[http_auth.AuthError], tuple[int, str]] = {
    http_auth.MalformedAuth: (401, "malformed_auth"),
    http_auth.WrongReceiver: (403, "wrong_receiver"),
    http_auth.StaleRequest: (401, "stale_request"),
    http_auth.BadSignature: (401, "bad_signature"),
    http_auth.ReplayedRequest: (401, "replayed_request"),
}


class PeerRefused(Exception):
    """A request the miner answers with an error status (internal to the app; never leaves it)."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


# ---------------------------------------------------------------------------------------------
# priority gate


class PriorityGate:
    """At most `capacity` holders at once; waiters are admitted highest priority first (FIFO on ties).

    Lives on one event loop (the server's). A waiter cancelled after being admitted hands its slot on.
    """

    def __init__(self, capacity: int) -> None:
        if capacity < 1:
            raise ValueError(f"capacity must be at least 1, got {capacity}")
        self.capacity = capacity
        self.active = 0
        self._waiting: list[tuple[float, int, asyncio.Future[None]]] = []
        self._order = itertools.count()

    @property
    def waiting(self) -> int:
        """How many callers are queued (not counting cancelled ones)."""
        return sum(1 for _, _, future in self._waiting if not future.done())

    async def acquire(self, priority: float) -> None:
        """Wait for a slot; higher `priority` is served first."""
        if self.active < self.capacity and self.waiting == 0:
            self.active += 1
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._waiting, (-priority, next(self._order), future))
        try:
            await future
        except asyncio.CancelledError:
            if future.done() and not future.cancelled():
                self.release()  # admitted and cancelled in the same breath: pass the slot on
            raise

    def release(self) -> None:
        """Free a slot: hand it to the best waiter, or return it to the pool."""
        while self._waiting:
            _, _, future = heapq.heappop(self._waiting)
            if not future.done():
                future.set_result(None)  # the slot moves to this waiter; `active` is unchanged
                return
        self.active -= 1

    @asynccontextmanager
    async def slot(self, priority: float) -> AsyncIterator[None]:
        """`async with gate.slot(priority):` hold one slot for the block."""
        await self.acquire(priority)
        try:
            yield
        finally:
            self.release()


# ---------------------------------------------------------------------------------------------
# miner server


def create_miner_app(
    identity: Identity,
    handle_task: Callable[[TranslationTask], Awaitable[TranslationTask]],
    handle_result: Callable[[VerificationResult], Awaitable[None]] | None = None,
    *,
    allow: Callable[[str], bool] | None = None,
    priority: Callable[[str], float] | None = None,
    max_age_s: float = 10.0,
    max_body_bytes: int = MAX_BODY_BYTES,
    max_concurrent: int = 4,
) -> FastAPI:
    """The miner's HTTP app: signed POST /task and POST /result, unsigned GET /health.

    `allow(caller_hotkey)` is the blacklist hook (False → 403); `priority(caller_hotkey)` orders
    callers waiting for one of `max_concurrent` handler slots (e.g. their stake). A task's deadline,
    `timeout_seconds`, runs from the moment its request arrives, queueing included.
    """
    gate = PriorityGate(max_concurrent)
    # One nonce store per app: it must remember nonces for the whole window a request stays fresh.
    nonces = http_auth.InMemoryNonceStore(retention=max(60.0, max_age_s + http_auth.DEFAULT_ALLOWED_SKEW + 1.0))
    app = FastAPI(title="ReasonForge miner", docs_url=None, redoc_url=None, openapi_url=None)

    async def authenticate(request: Request) -> tuple[str, bytes]:
        body = await _read_capped(request, max_body_bytes)
        # The signature covers the request target exactly as sent (raw path plus query string).
        raw_path = request.scope.get("raw_path") or request.url.path.encode()
        query = request.scope.get("query_string", b"")
        target = (raw_path + (b"?" + query if query else b"")).decode("latin-1")
        try:
            caller = http_auth.verify(
                request.headers,
                body,
                method=request.method,
                path=target,
                self_hotkey_ss58=identity.hotkey,
                max_age=max_age_s,
                nonce_store=nonces,
            )
        except http_auth.AuthError as exc:
            status, code = next((v for k, v in _AUTH_STATUS.items() if isinstance(exc, k)), (401, "unauthorized"))
            raise PeerRefused(status, code, str(exc)) from None
        if allow is not None and not allow(caller.hotkey_ss58):
            raise PeerRefused(403, "blacklisted", f"caller {caller.hotkey_ss58} is not allowed to query this miner")
        return caller.hotkey_ss58, body

    @app.exception_handler(PeerRefused)
    async def refused(request: Request, exc: PeerRefused) -> JSONResponse:
        return JSONResponse({"code": exc.code, "message": exc.message}, status_code=exc.status)

    @app.get(HEALTH_PATH)
    async def health() -> dict[str, Any]:
        return {"status": "ok", "hotkey": identity.hotkey, "active": gate.active, "waiting": gate.waiting}

    @app.post(TASK_PATH)
    async def task(request: Request) -> Response:
        arrived = asyncio.get_running_loop().time()
        caller, body = await authenticate(request)
        received = _parse(TranslationTask, body).for_miner()
        deadline = asyncio.timeout_at(arrived + received.timeout_seconds)
        try:
            async with deadline, gate.slot(priority(caller) if priority is not None else 0.0):
                filled = await handle_task(received)
        except TimeoutError as exc:
            if not deadline.expired():  # the handler's own timeout, not ours
                raise _handler_failed(exc) from None
            raise PeerRefused(
                504, "deadline_exceeded", f"the task was not translated within {received.timeout_seconds} s"
            ) from None
        except Exception as exc:  # noqa: BLE001 - the handler is the miner's own code: report it as a 500
            raise _handler_failed(exc) from None
        if not isinstance(filled, TranslationTask) or filled.task_hash() != received.task_hash():
            raise PeerRefused(500, "task_changed", "the miner's handler returned a different task than it was sent")
        filled = filled.model_copy(update={"submission_hash": filled.compute_submission_hash()})
        answer = json.dumps(filled.model_dump(mode="json"), separators=(",", ":")).encode()
        headers = sign_response(identity, path=TASK_PATH, request_headers=request.headers, body=answer)
        return Response(answer, media_type="application/json", headers=headers)

    @app.post(RESULT_PATH)
    async def result(request: Request) -> dict[str, bool]:
        _, body = await authenticate(request)
        verification = _parse(VerificationResult, body)
        if handle_result is not None:
            try:
                await handle_result(verification)
            except Exception as exc:  # noqa: BLE001 - the miner's own code: report it as a 500
                raise _handler_failed(exc) from None
        return {"accepted": True}

    return app



def _handler_failed(exc: BaseException) -> PeerRefused:
    """The 500 for an exception from the miner's own handler."""
    return PeerRefused(500, "handler_failed", f"the miner's handler failed: {type(exc).__name__}: {exc}")


async def _read_capped(request: Request, limit: int) -> bytes:
    """The raw body, refusing (413) anything over `limit` bytes before reading it all."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise PeerRefused(413, "body_too_large", f"request body of {declared} bytes is over the {limit}-byte limit")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise PeerRefused(413, "body_too_large", f"request body is over the {limit}-byte limit")
        chunks.append(chunk)
    return b"".join(chunks)


def _parse(model: type[_Model], body: bytes) -> _Model:
    """`body` as `model`, or a 422 naming the first problems."""
    try:
        return model.model_validate_json(body)
    except ValidationError as exc:
        errors = exc.errors(include_url=False)
        if errors and errors[0]["type"] == "json_invalid":
            raise PeerRefused(422, "invalid_json", f"body is not valid JSON: {errors[0]['msg']}") from None
        raise PeerRefused(
            422, "invalid_model", f"body is not a valid {model.__name__}: {describe_errors(errors)}"
        ) from None


def serve_miner(app: FastAPI, host: str, port: int) -> None:
    """Run the miner app with uvicorn until interrupted (blocking; for miner processes)."""
    import uvicorn

    uvicorn.run(app, host=host, port=port, log_level="warning", access_log=False)
