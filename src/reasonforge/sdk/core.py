"""The API's calls, written once and without I/O (sans-IO).

Each call is an `Operation`: a generator that yields the effects it needs — an HTTP request, a pause, the stream
socket's open, send and receive — and is sent back their results. It holds every decision the clients make (request
bodies, retries, long-poll timing, the stream protocol and its fall-back to polling, response parsing), so the sync
client (`ReasonForge`) and the asyncio one (`AsyncReasonForge`) are only transports that perform effects, with
httpx and websockets, blocking or awaited. A public call is declared once with `operation`; on the sync client it
runs to its result, on the async one it is a coroutine function.
"""

from __future__ import annotations

import inspect
import time
import uuid
from collections.abc import Callable, Generator, Iterable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, Any, Concatenate, Generic, Literal, ParamSpec, Self, TypeVar, overload

import httpx

from reasonforge.errors import InputError
from reasonforge.sdk import protocol
from reasonforge.sdk.models import Certificate, CertificateCheck, Stats
from reasonforge.sdk.requests import (
    StepLike,
    TranslationLike,
    build_batch_bodies,
    build_reasoning_body,
    build_verify_body,
    list_query,
)
from reasonforge.sdk.stream import MAX_FRAME_BYTES, OPEN_TIMEOUT_S, RECHECK_S, read_frame, subscribe_frame
from reasonforge.types import JobStatus, ReasoningStep, TaskPage, VerifyRequest, VerifyResponse

if TYPE_CHECKING:
    from collections.abc import Coroutine

    from reasonforge.sdk.async_client import AsyncReasonForge
    from reasonforge.sdk.client import ReasonForge

WaitVia = Literal["stream", "poll"]
T = TypeVar("T")
P = ParamSpec("P")


# ---- effects: what an operation asks its transport to do -------------------------------------------------------
@dataclass(frozen=True)
class Send:
    """One HTTP request; the reply is the `httpx.Response`, or the `httpx.TransportError` it ended in."""

    method: str
    url: str
    json: Any = None
    headers: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Pause:
    """Wait this long before going on; no reply."""

    seconds: float


@dataclass(frozen=True)
class OpenStream:
    """Open the event socket (closing one still open); the reply says whether it opened."""

    uri: str
    headers: Mapping[str, str]
    open_timeout_s: float
    max_frame_bytes: int = MAX_FRAME_BYTES


@dataclass(frozen=True)
class SendFrame:
    """Send one text frame on the open socket; the reply says whether it went (False: the socket dropped)."""

    text: str


@dataclass(frozen=True)
class ReceiveFrame:
    """The next frame within `timeout_s`: its text or bytes, else a `Quiet`."""

    timeout_s: float


class Quiet(Enum):
    """A receive that brought no frame."""

    TIMED_OUT = "timed out"
    DROPPED = "dropped"  # the socket closed or failed: fall back to polling


Effect = Send | Pause | OpenStream | SendFrame | ReceiveFrame
Operation = Generator[Effect, Any, T]


# ---- declaring a public call once ------------------------------------------------------------------------------
class operation(Generic[P, T]):
    """A public call of both clients, from the Operation that `steps` builds: a method on `ReasonForge`, a
    coroutine function on `AsyncReasonForge`, each with the Operation's signature and docstring."""

    def __init__(self, steps: Callable[Concatenate[Any, P], Operation[T]]) -> None:
        self.steps = steps
        self.__doc__ = steps.__doc__
        self._name = steps.__name__

    def __set_name__(self, owner: type, name: str) -> None:
        self._name = name

    @overload
    def __get__(self, client: None, owner: type) -> Self: ...

    @overload
    def __get__(self, client: AsyncReasonForge, owner: type) -> Callable[P, Coroutine[Any, Any, T]]: ...

    @overload
    def __get__(self, client: ReasonForge, owner: type) -> Callable[P, T]: ...

    def __get__(self, client: Any, owner: type) -> Any:
        if client is None:
            return self
        call = client._bind(self.steps)
        call.__name__ = self._name
        call.__qualname__ = f"{type(client).__name__}.{self._name}"
        call.__doc__ = self.__doc__
        signature = inspect.signature(self.steps)
        call.__signature__ = signature.replace(
            parameters=list(signature.parameters.values())[1:], return_annotation=inspect.Signature.empty)
        return call


# ---- the calls ----------------------------------------------------------------------------------------------------
class Calls:
    """Configuration and every API call as an Operation; subclassed by the transports, each of which defines
    `_bind(steps)`: the function that runs an Operation its own way (`operation.__get__` calls it)."""

    def __init__(self, api_key: str | None, base_url: str | None, *, timeout: float, max_retries: int) -> None:
        self.base_url = protocol.resolve_base_url(base_url)
        self._api_key = protocol.resolve_api_key(api_key)
        self.max_retries = max(0, max_retries)
        self.timeout = timeout

    def __repr__(self) -> str:
        return f"{type(self).__name__}(base_url={self.base_url!r})"  # never the key

    def _request(self, method: str, path: str, *, json: Any = None,
                 headers: Mapping[str, str] | None = None) -> Operation[httpx.Response]:
        """One API call, retried on throttling, restarts and dropped connections.

        Every call is safe to repeat: reads are reads, and submissions carry an Idempotency-Key."""
        url = self.base_url + path
        all_headers = {**protocol.default_headers(self._api_key), **(headers or {})}
        attempt = 0
        while True:
            outcome = yield Send(method, url, json, all_headers)
            result = protocol.retry_or_return(f"{method} {url}", attempt, self.max_retries, outcome)
            if isinstance(result, httpx.Response):
                return result
            yield Pause(result)
            attempt += 1

    def _submit(
        self,
        reasoning_chain: Iterable[StepLike],
        domain: str,
        original_query: str = "",
        claimed_answer: str = "",
        proof_level: str = "standard",
        *,
        callback_url: str | None = None,
        generate_certificate: bool = True,
        translations: Iterable[TranslationLike] | None = None,
        prover: str | None = None,
        translator: str | None = None,
        samples: int | None = None,
        agree: int | None = None,
        reference_answer: str | None = None,
        idempotency_key: str | None = None,
    ) -> Operation[VerifyResponse]:
        """POST /v1/verify: queue a verification and return at once (status `queued`)."""
        body = build_verify_body(
            reasoning_chain=reasoning_chain, domain=domain, original_query=original_query,
            claimed_answer=claimed_answer, proof_level=proof_level, callback_url=callback_url,
            generate_certificate=generate_certificate, translations=translations, prover=prover,
            translator=translator, samples=samples, agree=agree, reference_answer=reference_answer,
        )
        return (yield from self._post_job("/v1/verify", body, idempotency_key))

    submit = operation(_submit)

    def _get(self, task_id: str, *, wait_s: float = 0.0) -> Operation[VerifyResponse]:
        """GET /v1/verify/{task_id}: the job's current status and, once complete, its verdict; `wait_s` > 0 asks
        the server to hold the answer until the job ends or that many seconds pass (at most 60)."""
        task_id = protocol.check_path_id(task_id, "task_id")
        query = f"?wait={wait_s:g}" if wait_s > 0 else ""
        response = yield from self._request("GET", f"/v1/verify/{task_id}{query}")
        return protocol.parse_body(VerifyResponse, response.content, f"GET /v1/verify/{task_id}")

    get = operation(_get)

    def _wait(self, task_id: str, *, timeout_s: float = 300.0, via: WaitVia = "stream") -> Operation[VerifyResponse]:
        """Wait until the job is complete, failed or cancelled; VerificationTimeoutError after `timeout_s`."""
        deadline = time.monotonic() + timeout_s
        if protocol.check_wait_via(via) == "stream":
            return (yield from self._stream(task_id, deadline))
        return (yield from self._poll(task_id, deadline))

    wait = operation(_wait)

    def _poll(self, task_id: str, deadline: float) -> Operation[VerifyResponse]:
        """Long-poll GET /v1/verify/{task_id}?wait= until a terminal status or the deadline (one request per wait,
        not a polling loop); an answer that comes back early is followed by a growing pause."""
        delays = protocol.poll_delays()
        while True:
            asked = protocol.long_poll_s(deadline - time.monotonic(), self.timeout)
            sent = time.monotonic()
            job = yield from self._get(task_id, wait_s=asked)
            if job.status in protocol.TERMINAL_STATUSES:
                return job
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise protocol.timeout_error(task_id, job.status)
            if protocol.answered_early(asked, time.monotonic() - sent):
                yield Pause(min(next(delays), remaining))

    def _stream(self, task_id: str, deadline: float) -> Operation[VerifyResponse]:
        """Wait on `WS /v1/stream` (protocol in `stream`), with a GET every RECHECK_S on a quiet socket in case an
        event was lost; a socket that cannot open or drops falls back to polling."""
        task_id = protocol.check_path_id(task_id, "task_id")
        headers = protocol.default_headers(self._api_key)
        headers.pop("Accept", None)
        opened = yield OpenStream(protocol.stream_url(self.base_url), headers,
                                  max(0.1, min(OPEN_TIMEOUT_S, deadline - time.monotonic())))
        if not opened or not (yield SendFrame(subscribe_frame(task_id))):
            return (yield from self._poll(task_id, deadline))  # no stream here (proxy, old server): poll instead
        last: JobStatus | None = None
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise protocol.timeout_error(task_id, last)
            message = yield ReceiveFrame(min(RECHECK_S, remaining))
            if message is Quiet.DROPPED:
                return (yield from self._poll(task_id, deadline))
            if message is Quiet.TIMED_OUT:
                job = yield from self._get(task_id)
                if job.status in protocol.TERMINAL_STATUSES:
                    return job
                last = job.status
                continue
            update = read_frame(message, task_id)
            if update is None:
                continue
            last, response = update
            if last in protocol.TERMINAL_STATUSES:
                if response is not None and response.status is last:
                    return response
                return (yield from self._get(task_id))

    def _verify(
        self,
        reasoning_chain: Iterable[StepLike],
        domain: str,
        original_query: str = "",
        claimed_answer: str = "",
        proof_level: str = "standard",
        *,
        callback_url: str | None = None,
        generate_certificate: bool = True,
        translations: Iterable[TranslationLike] | None = None,
        prover: str | None = None,
        translator: str | None = None,
        samples: int | None = None,
        agree: int | None = None,
        reference_answer: str | None = None,
        idempotency_key: str | None = None,
        wait: bool = True,
        timeout_s: float = 300.0,
        wait_via: WaitVia = "stream",
    ) -> Operation[VerifyResponse]:
        """Submit a reasoning chain and (by default) wait for the verdict; `wait=False` returns the queued job.

        A job the service could not finish comes back with status `failed` and the reason in
        `failure_points` (step_id 0); VerificationTimeoutError when `timeout_s` passes first.
        """
        protocol.check_wait_via(wait_via)
        job = yield from self._submit(
            reasoning_chain, domain, original_query, claimed_answer, proof_level, callback_url=callback_url,
            generate_certificate=generate_certificate, translations=translations, prover=prover,
            translator=translator, samples=samples, agree=agree, reference_answer=reference_answer,
            idempotency_key=idempotency_key,
        )
        return (yield from self._settle(job, wait, timeout_s, wait_via))

    verify = operation(_verify)

    def _submit_reasoning(
        self,
        reasoning: str | Mapping[str, Any] | Any,
        domain: str,
        original_query: str = "",
        claimed_answer: str | None = None,
        proof_level: str = "standard",
        *,
        source: str = "auto",
        callback_url: str | None = None,
        generate_certificate: bool = True,
        prover: str | None = None,
        translator: str | None = None,
        samples: int | None = None,
        agree: int | None = None,
        reference_answer: str | None = None,
        idempotency_key: str | None = None,
    ) -> Operation[VerifyResponse]:
        """POST /v1/verify/reasoning: queue reasoning as a model wrote it (text, a provider's response dict or SDK
        object); the server splits it into steps. `claimed_answer=None`: what its final answer states."""
        body = build_reasoning_body(
            reasoning=reasoning, domain=domain, original_query=original_query, claimed_answer=claimed_answer,
            proof_level=proof_level, callback_url=callback_url, generate_certificate=generate_certificate,
            prover=prover, translator=translator, samples=samples, agree=agree,
            reference_answer=reference_answer, source=source,
        )
        return (yield from self._post_job("/v1/verify/reasoning", body, idempotency_key))

    submit_reasoning = operation(_submit_reasoning)

    def _submit_many(self, requests: Iterable[VerifyRequest | Mapping[str, Any]], *,
                     idempotency_key: str | None = None) -> Operation[list[VerifyResponse]]:
        """POST /v1/verify/batch: queue every request (100 per call), each its own task, in order."""
        tasks: list[VerifyResponse] = []
        key = idempotency_key or f"sdk-{uuid.uuid4()}"
        for part, body in enumerate(build_batch_bodies(requests)):
            response = yield from self._request("POST", "/v1/verify/batch", json=body,
                                                headers={"Idempotency-Key": f"{key}.{part}"})
            tasks += protocol.parse_body(TaskPage, response.content, "POST /v1/verify/batch").tasks
        return tasks

    submit_many = operation(_submit_many)

    def _verify_many(self, requests: Iterable[VerifyRequest | Mapping[str, Any]], *, wait: bool = True,
                     timeout_s: float = 300.0, wait_via: WaitVia = "poll",
                     idempotency_key: str | None = None) -> Operation[list[VerifyResponse]]:
        """Submit every request and (by default) wait for all their verdicts, in order; `timeout_s` bounds the
        whole wait (VerificationTimeoutError)."""
        protocol.check_wait_via(wait_via)
        jobs = yield from self._submit_many(requests, idempotency_key=idempotency_key)
        deadline = time.monotonic() + timeout_s
        settled = []
        for job in jobs:
            settled.append((yield from self._settle(job, wait, max(0.0, deadline - time.monotonic()), wait_via)))
        return settled

    verify_many = operation(_verify_many)

    def _list_tasks(self, *, status: str | None = None, limit: int = 20,
                    cursor: str | None = None) -> Operation[TaskPage]:
        """GET /v1/verify: this key's tasks, newest first; pass `next_cursor` as `cursor` for the next page."""
        response = yield from self._request("GET", f"/v1/verify{list_query(status, limit, cursor)}")
        return protocol.parse_body(TaskPage, response.content, "GET /v1/verify")

    list_tasks = operation(_list_tasks)

    def _post_job(self, path: str, body: dict[str, Any], idempotency_key: str | None) -> Operation[VerifyResponse]:
        # A key per call makes a retried POST land on the same job instead of queueing a second one.
        key = idempotency_key or f"sdk-{uuid.uuid4()}"
        response = yield from self._request("POST", path, json=body, headers={"Idempotency-Key": key})
        return protocol.parse_body(VerifyResponse, response.content, f"POST {path}")

    def _verify_text(self, text: str, domain: str, original_query: str = "", claimed_answer: str | None = None,
                     proof_level: str = "standard", **options: Any) -> Operation[VerifyResponse]:
        """Verify plain reasoning text ("Step 1: …", paragraphs, lists, `<think>` tags) and (by default) wait;
        the options are `verify()`'s (wait, timeout_s, wait_via, callback_url, ...) and `source`."""
        if not isinstance(text, str):
            raise InputError(f"verify_text takes reasoning text, not a {type(text).__name__}; "
                             "use verify_response for a provider's response", field="reasoning")
        return (yield from self._verify_reasoning(text, domain, original_query, claimed_answer, proof_level,
                                                  **options))

    verify_text = operation(_verify_text)

    def _verify_response(self, response: Mapping[str, Any] | Any, domain: str, original_query: str = "",
                         claimed_answer: str | None = None, proof_level: str = "standard",
                         **options: Any) -> Operation[VerifyResponse]:
        """Verify a provider's raw response (OpenAI Chat Completions / Responses, Anthropic, DeepSeek-R1: a dict
        or the SDK's object) and (by default) wait; the options are `verify_text`'s."""
        if isinstance(response, (str, bytes)):
            raise InputError("verify_response takes a provider's response object or dict; use verify_text for text",
                             field="reasoning")
        return (yield from self._verify_reasoning(response, domain, original_query, claimed_answer, proof_level,
                                                  **options))

    verify_response = operation(_verify_response)

    def _verify_reasoning(self, reasoning: Any, domain: str, original_query: str, claimed_answer: str | None,
                          proof_level: str, *, wait: bool = True, timeout_s: float = 300.0,
                          wait_via: WaitVia = "stream", **submit: Any) -> Operation[VerifyResponse]:
        protocol.check_wait_via(wait_via)
        job = yield from self._submit_reasoning(reasoning, domain, original_query, claimed_answer, proof_level,
                                                **submit)
        return (yield from self._settle(job, wait, timeout_s, wait_via))

    def _settle(self, job: VerifyResponse, wait: bool, timeout_s: float,
                wait_via: WaitVia) -> Operation[VerifyResponse]:
        """The queued job itself (`wait=False`, or already finished), else the job once it finished."""
        if not wait or job.status in protocol.TERMINAL_STATUSES:
            return job
        return (yield from self._wait(job.task_id, timeout_s=timeout_s, via=wait_via))

    def _certificate(self, cert_id: str) -> Operation[Certificate]:
        """GET /v1/certificates/{cert_id}: the certificate document (claims, Groth16 proof, key reference)."""
        cert_id = protocol.check_path_id(cert_id, "cert_id")
        response = yield from self._request("GET", f"/v1/certificates/{cert_id}")
        return protocol.parse_body(Certificate, response.content, f"GET /v1/certificates/{cert_id}")

    certificate = operation(_certificate)

    def _verify_certificate(self, cert_id: str) -> Operation[CertificateCheck]:
        """POST /v1/certificates/{cert_id}/verify: the server re-checks the certificate's proof."""
        cert_id = protocol.check_path_id(cert_id, "cert_id")
        response = yield from self._request("POST", f"/v1/certificates/{cert_id}/verify")
        return protocol.parse_body(CertificateCheck, response.content, f"POST /v1/certificates/{cert_id}/verify")

    verify_certificate = operation(_verify_certificate)

    def _stats(self) -> Operation[Stats]:
        """GET /v1/stats: service-wide counters."""
        response = yield from self._request("GET", "/v1/stats")
        return protocol.parse_body(Stats, response.content, "GET /v1/stats")

    stats = operation(_stats)

    @staticmethod
    def parse_reasoning_chain(response: Any) -> list[ReasoningStep]:
        """Reasoning steps out of an OpenAI / Anthropic / DeepSeek response or plain text, ready for verify()."""
        from reasonforge.chain import parse_reasoning_chain

        return parse_reasoning_chain(response)

