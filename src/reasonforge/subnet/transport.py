"""Signed HTTP between validators and miners (bittensor `http_auth`, btauth/1).

Miner side: `create_miner_app` is a FastAPI app with POST /task, POST /result and GET /health.
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

Answers are signed too: a 200 from POST /task carries btauth/1 headers over the response body, with
method `RESPONSE`, target `/task#<request nonce>` and the caller as receiver (`sign_response`). A
validator therefore accepts only an answer made by the hotkey it queried, for this very request: an
endpoint that relays another miner's answers, or an old answer replayed, is refused.

Validator side: `ValidatorClient` signs the exact bytes it sends and checks what comes back (the
signature, the model, the task hash, the submission hash); peer faults become a
`QueryOutcome.error`, never an exception.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import json
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from typing import Any, Self, TypeVar

import httpx
from bittensor import http_auth
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ValidationError

from reasonforge.subnet.chain import Endpoint
from reasonforge.subnet.keys import Identity
from reasonforge.subnet.protocol import (
    LIMITS,
    MINER_FIELDS,
    TranslationTask,
    VerificationResult,
)

RESPONSE_METHOD = "RESPONSE"
"""The btauth/1 method of a signed answer: never a request method, so a signed request is no answer."""
TASK_PATH = "/task"
RESULT_PATH = "/result"
HEALTH_PATH = "/health"
MAX_BODY_BYTES = LIMITS.max_request_bytes
"""Largest request a miner accepts (1 MiB, DESIGN §3.1)."""
MAX_RESPONSE_BYTES = 4 * LIMITS.max_request_bytes
"""Largest response a validator reads: a filled task carries the chain plus its artifacts."""

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
    async def task(request: Request) -> JSONResponse:
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


def response_target(path: str, request_nonce: str) -> str:
    """The signed target of an answer: the request's path bound to the request's nonce."""
    return f"{path}#{request_nonce}"


def sign_response(identity: Identity, *, path: str, request_headers: Mapping[str, str], body: bytes) -> dict[str, str]:
    """btauth/1 headers that bind an answer `body` to the request it answers (its nonce and its caller)."""
    lowered = {key.lower(): value for key, value in request_headers.items()}
    nonce = lowered.get(http_auth.HEADER_NONCE.lower(), "")
    caller = lowered.get(http_auth.HEADER_HOTKEY.lower())
    return http_auth.sign(
        identity, method=RESPONSE_METHOD, path=response_target(path, nonce), body=body, receiver_ss58=caller
    )


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
        raise PeerRefused(422, "invalid_model", f"body is not a valid {model.__name__}: {_describe(errors)}") from None


def _describe(errors: list[Any], limit: int = 3) -> str:
    """'field.path: message; ...' for the first few pydantic errors."""
    parts = [f"{'.'.join(str(p) for p in e['loc']) or '(body)'}: {e['msg']}" for e in errors[:limit]]
    more = f" (and {len(errors) - limit} more)" if len(errors) > limit else ""
    return "; ".join(parts) + more


def serve_miner(app: FastAPI, host: str, port: int) -> None:
    """Run the miner app with uvicorn until interrupted (blocking; for miner processes)."""
    import uvicorn

    uvicorn.run(app, host=host, port=port, log_level="warning", access_log=False)


# ---------------------------------------------------------------------------------------------
# validator client


class QueryOutcome(BaseModel):
    """What one miner did with one task: the checked, filled task, or why there is none."""

    uid: int
    task: TranslationTask | None = None
    elapsed_ms: int
    error: str | None = None
    status: int | None = None

    @property
    def ok(self) -> bool:
        """Whether the miner returned a valid submission."""
        return self.error is None and self.task is not None


class ValidatorClient:
    """Sends signed tasks and results to miners; reports every peer fault instead of raising."""

    def __init__(
        self,
        identity: Identity,
        *,
        timeout_margin_s: float = 2.0,
        max_response_bytes: int = MAX_RESPONSE_BYTES,
        notify_timeout_s: float = 10.0,
    ) -> None:
        self.identity = identity
        self.timeout_margin_s = timeout_margin_s
        self.max_response_bytes = max_response_bytes
        self.notify_timeout_s = notify_timeout_s
        self._http: httpx.AsyncClient | None = None
        self._http_loop: asyncio.AbstractEventLoop | None = None

    async def query(self, uid: int, endpoint: Endpoint, receiver_hotkey: str, task: TranslationTask) -> QueryOutcome:
        """Send `task` to a miner and return its checked submission (or the error) within the task's timeout."""
        sent = task.for_miner()
        budget = sent.timeout_seconds + self.timeout_margin_s
        started = time.perf_counter()

        def outcome(
            error: str | None, status: int | None = None, filled: TranslationTask | None = None
        ) -> QueryOutcome:
            elapsed = round((time.perf_counter() - started) * 1000)
            return QueryOutcome(uid=uid, task=filled, elapsed_ms=elapsed, error=error, status=status)

        try:
            async with asyncio.timeout(budget):
                status, body, signed = await self._post(
                    endpoint, TASK_PATH, receiver_hotkey, sent.model_dump_json().encode()
                )
        except TimeoutError:
            return outcome(f"timeout: no answer within {budget:g} s")
        except httpx.TimeoutException as exc:
            return outcome(f"timeout: {type(exc).__name__} within {budget:g} s")
        except _ResponseTooLarge as exc:
            return outcome(str(exc))
        except httpx.ConnectError as exc:
            return outcome(f"connection failed to {endpoint.url()}: {exc or type(exc).__name__}")
        except httpx.HTTPError as exc:
            return outcome(f"transport error talking to {endpoint.url()}: {type(exc).__name__}: {exc}")
        if status != 200:
            prefix = "timeout: " if status == 504 else ""
            return outcome(f"{prefix}miner answered HTTP {status}: {_error_text(body)}", status)
        refused = self._check_signed(receiver_hotkey, body, signed, budget)
        if refused is not None:
            return outcome(refused, status)
        try:
            answer = TranslationTask.model_validate_json(body)
        except ValidationError as exc:
            problems = _describe(exc.errors(include_url=False))
            return outcome(f"invalid response: not a TranslationTask ({problems})", status)
        if answer.task_hash() != sent.task_hash():
            return outcome("task mismatch: the miner answered a different task than it was sent", status)
        # Keep our own copy of the task and take only the miner's fields, so nothing else it changed survives.
        filled = sent.model_copy(update={name: getattr(answer, name) for name in MINER_FIELDS})
        if not filled.has_valid_submission_hash():
            return outcome("bad submission_hash: it does not match the task and the miner's fields", status)
        return outcome(None, status, filled)

    async def notify(self, endpoint: Endpoint, receiver_hotkey: str, result: VerificationResult) -> bool:
        """Tell a miner its epoch result; True when it accepted it (any failure is False, never raised)."""
        try:
            async with asyncio.timeout(self.notify_timeout_s):
                status, _, _ = await self._post(endpoint, RESULT_PATH, receiver_hotkey, result.model_dump_json().encode())
        except (TimeoutError, httpx.HTTPError, _ResponseTooLarge):
            return False
        return status == 200

    async def aclose(self) -> None:
        """Close the HTTP connection pool."""
        if self._http is not None and self._http_loop is asyncio.get_running_loop():
            await self._http.aclose()
        self._http = self._http_loop = None

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    def _pool(self) -> httpx.AsyncClient:
        """The connection pool of the running event loop (a pool cannot move between loops, e.g. asyncio.run calls)."""
        loop = asyncio.get_running_loop()
        if self._http is None or self._http_loop is not loop:
            # trust_env=False: proxy variables must not reroute traffic meant for a miner's own address.
            self._http = httpx.AsyncClient(follow_redirects=False, trust_env=False)
            self._http_loop = loop
        return self._http

    def _check_signed(self, miner_hotkey: str, body: bytes, signed: _SignedAnswer, budget: float) -> str | None:
        """Why the answer is not the queried miner's own answer to this request, or None when it is."""
        # The request nonce in the signed target already makes an answer unique to one request, so the
        # freshness window only needs to tolerate clock skew between the two machines.
        max_age, skew = budget + 60.0, 60.0
        try:
            signer = http_auth.verify(
                signed.headers,
                body,
                method=RESPONSE_METHOD,
                path=response_target(signed.path, signed.nonce),
                self_hotkey_ss58=self.identity.hotkey,
                max_age=max_age,
                allowed_skew=skew,
                nonce_store=http_auth.InMemoryNonceStore(retention=max_age + skew + 1.0),
            )
        except http_auth.MalformedAuth as exc:
            return f"unsigned response: the answer carries no valid btauth/1 signature ({exc})"
        except http_auth.AuthError as exc:
            return f"bad response signature: {exc}"
        if signer.hotkey_ss58 != miner_hotkey:
            return f"response signed by {signer.hotkey_ss58}, not by the queried miner {miner_hotkey}"
        return None

    async def _post(
        self, endpoint: Endpoint, path: str, receiver_hotkey: str, body: bytes
    ) -> tuple[int, bytes, _SignedAnswer]:
        """POST the exact signed bytes; return (status, body read up to the cap, what its signature must cover)."""
        headers = http_auth.sign(self.identity, method="POST", path=path, body=body, receiver_ss58=receiver_hotkey)
        nonce = headers[http_auth.HEADER_NONCE]
        headers["Content-Type"] = "application/json"
        http = self._pool()
        request = http.build_request("POST", endpoint.url() + path, content=body, headers=headers, timeout=None)
        response = await http.send(request, stream=True)
        try:
            chunks: list[bytes] = []
            size = 0
            async for chunk in response.aiter_bytes():
                size += len(chunk)
                if size > self.max_response_bytes:
                    raise _ResponseTooLarge(f"response from {endpoint.url()} is over {self.max_response_bytes} bytes")
                chunks.append(chunk)
            return response.status_code, b"".join(chunks), _SignedAnswer(path=path, nonce=nonce, headers=dict(response.headers))
        finally:
            await response.aclose()


class _SignedAnswer(BaseModel):
    """The request an answer must be bound to (path, nonce) and the answer's own headers."""

    path: str
    nonce: str
    headers: dict[str, str]


class _ResponseTooLarge(Exception):
    """A peer sent more than the client is willing to read."""


def _error_text(body: bytes) -> str:
    """The `message` of a JSON error body, else the start of the raw body."""
    try:
        parsed = json.loads(body)
        if isinstance(parsed, dict) and "message" in parsed:
            return f"{parsed.get('code', 'error')}: {parsed['message']}"
    except ValueError:
        pass
    return body[:200].decode("utf-8", "replace") or "(empty body)"
