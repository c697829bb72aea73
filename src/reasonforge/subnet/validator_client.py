"""The validator's side of signed HTTP (btauth/1, see `transport.py`): an httpx client for miners.

`ValidatorClient` signs the exact bytes it sends and checks what comes back (the signature, the model,
the task hash, the submission hash); peer faults become a `QueryOutcome.error`, never an exception.
"""

from __future__ import annotations

import asyncio
import time
from typing import Self

import httpx
from bittensor import http_auth
from pydantic import BaseModel, ValidationError

from reasonforge.boundary.jsontext import load_json
from reasonforge.errors import InputError
from reasonforge.subnet.chain import Endpoint
from reasonforge.subnet.keys import Identity
from reasonforge.subnet.protocol import MINER_FIELDS, TranslationTask, VerificationResult
from reasonforge.subnet.transport import (
    MAX_RESPONSE_BYTES,
    RESPONSE_METHOD,
    RESULT_PATH,
    TASK_PATH,
    describe_errors,
    response_target,
)

__all__ = ["QueryOutcome", "ValidatorClient"]


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
            problems = describe_errors(exc.errors(include_url=False))
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
        parsed = load_json(body, what="the error body")
    except InputError:
        parsed = None
    if isinstance(parsed, dict) and isinstance(parsed.get("message"), str):
        code = parsed.get("code")
        return f"{code if isinstance(code, str) else 'error'}: {parsed['message'][:500]}"
    return body[:200].decode("utf-8", "replace") or "(empty body)"
