"""`AsyncReasonForge`: the asyncio client (httpx.AsyncClient), method for method the same as `ReasonForge`."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Iterable, Mapping
from typing import Any, Self

import httpx

from reasonforge.errors import InputError
from reasonforge.sdk import protocol, stream
from reasonforge.sdk.client import WaitVia
from reasonforge.sdk.models import Certificate, CertificateCheck, Stats
from reasonforge.sdk.requests import (
    StepLike,
    TranslationLike,
    build_batch_bodies,
    build_reasoning_body,
    build_verify_body,
    list_query,
)
from reasonforge.types import ReasoningStep, TaskPage, VerifyRequest, VerifyResponse


class AsyncReasonForge:
    """Async client for a ReasonForge API: `await verify()` submits a chain and waits for its verdict."""

    def __init__(
        self,
        api_key: str | None = None,
        base_url: str | None = None,
        *,
        timeout: float = 30.0,
        max_retries: int = 2,
        http_client: httpx.AsyncClient | None = None,
    ) -> None:
        self.base_url = protocol.resolve_base_url(base_url)
        self._api_key = protocol.resolve_api_key(api_key)
        self.max_retries = max(0, max_retries)
        self.timeout = timeout
        self._owns_client = http_client is None
        self._http = http_client or httpx.AsyncClient(timeout=timeout)

    def __repr__(self) -> str:
        return f"AsyncReasonForge(base_url={self.base_url!r})"  # never the key

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    async def close(self) -> None:
        """Close the HTTP connection pool (only when this client created it)."""
        if self._owns_client:
            await self._http.aclose()

    async def _request(
        self,
        method: str,
        path: str,
        *,
        json: Any = None,
        headers: Mapping[str, str] | None = None,
    ) -> httpx.Response:
        """One API call, retried on throttling, restarts and dropped connections.

        Every call is safe to repeat: reads are reads, and submissions carry an Idempotency-Key.
        """
        protocol.check_open(self._http.is_closed, method, path)
        url = self.base_url + path
        all_headers = {**protocol.default_headers(self._api_key), **(headers or {})}
        attempt = 0
        while True:
            outcome: httpx.Response | httpx.TransportError
            try:
                outcome = await self._http.request(method, url, json=json, headers=all_headers)
            except httpx.TransportError as exc:
                outcome = exc
            result = protocol.retry_or_return(f"{method} {url}", attempt, self.max_retries, outcome)
            if isinstance(result, httpx.Response):
                return result
            await asyncio.sleep(result)
            attempt += 1

    async def submit(
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
    ) -> VerifyResponse:
        """POST /v1/verify: queue a verification and return at once (status `queued`)."""
        body = build_verify_body(
            reasoning_chain=reasoning_chain,
            domain=domain,
            original_query=original_query,
            claimed_answer=claimed_answer,
            proof_level=proof_level,
            callback_url=callback_url,
            generate_certificate=generate_certificate,
            translations=translations,
            prover=prover,
            translator=translator,
            samples=samples,
            agree=agree,
            reference_answer=reference_answer,
        )
        return await self._post_job("/v1/verify", body, idempotency_key)

    async def get(self, task_id: str, *, wait_s: float = 0.0) -> VerifyResponse:
        """GET /v1/verify/{task_id}: the job's current status and, once complete, its verdict; `wait_s` > 0 asks
        the server to hold the answer until the job ends or that many seconds pass (at most 60)."""
        task_id = protocol.check_path_id(task_id, "task_id")
        query = f"?wait={wait_s:g}" if wait_s > 0 else ""
        response = await self._request("GET", f"/v1/verify/{task_id}{query}")
        return protocol.parse_body(
            VerifyResponse, response.content, f"GET /v1/verify/{task_id}"
        )

    async def wait(
        self, task_id: str, *, timeout_s: float = 300.0, via: WaitVia = "stream"
    ) -> VerifyResponse:
        """Wait until the job is complete, failed or cancelled; VerificationTimeoutError after `timeout_s`."""
        deadline = time.monotonic() + timeout_s
        if protocol.check_wait_via(via) == "stream":
            return await stream.wait_async(self, task_id, deadline)
        return await self._poll(task_id, deadline)

    async def _poll(self, task_id: str, deadline: float) -> VerifyResponse:
        """Long-poll GET /v1/verify/{task_id}?wait= until a terminal status or the deadline (one request per wait,
        not a polling loop); an answer that comes back early is followed by a growing pause."""
        delays = protocol.poll_delays()
        while True:
            asked = protocol.long_poll_s(deadline - time.monotonic(), self.timeout)
            sent = time.monotonic()
            job = await self.get(task_id, wait_s=asked)
            if job.status in protocol.TERMINAL_STATUSES:
                return job
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise protocol.timeout_error(task_id, job.status)
            if protocol.answered_early(asked, time.monotonic() - sent):
                await asyncio.sleep(min(next(delays), remaining))

    async def verify(
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
    ) -> VerifyResponse:
        """Submit a reasoning chain and (by default) wait for the verdict; `wait=False` returns the queued job.

        A job the service could not finish comes back with status `failed` and the reason in
        `failure_points` (step_id 0); VerificationTimeoutError when `timeout_s` passes first.
        """
        protocol.check_wait_via(wait_via)
        job = await self.submit(
            reasoning_chain,
            domain,
            original_query,
            claimed_answer,
            proof_level,
            callback_url=callback_url,
            generate_certificate=generate_certificate,
            translations=translations,
            prover=prover,
            translator=translator,
            samples=samples,
            agree=agree,
            reference_answer=reference_answer,
            idempotency_key=idempotency_key,
        )
        return await self._settle(job, wait, timeout_s, wait_via)

    async def submit_reasoning(
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
    ) -> VerifyResponse:
        """POST /v1/verify/reasoning: queue reasoning as a model wrote it (text, a provider's response dict or SDK
        object); the server splits it into steps. `claimed_answer=None`: what its final answer states."""
        body = build_reasoning_body(
            reasoning=reasoning,
            domain=domain,
            original_query=original_query,
            claimed_answer=claimed_answer,
            proof_level=proof_level,
            callback_url=callback_url,
            generate_certificate=generate_certificate,
            prover=prover,
            translator=translator,
            samples=samples,
            agree=agree,
            reference_answer=reference_answer,
            source=source,
        )
        return await self._post_job("/v1/verify/reasoning", body, idempotency_key)

    async def submit_many(self, requests: Iterable[VerifyRequest | Mapping[str, Any]], *,
                    idempotency_key: str | None = None) -> list[VerifyResponse]:
        """POST /v1/verify/batch: queue every request (100 per call), each its own task, in order."""
        tasks: list[VerifyResponse] = []
        key = idempotency_key or f"sdk-{uuid.uuid4()}"
        for part, body in enumerate(build_batch_bodies(requests)):
            response = await self._request("POST", "/v1/verify/batch", json=body,
                                     headers={"Idempotency-Key": f"{key}.{part}"})
            tasks += protocol.parse_body(TaskPage, response.content, "POST /v1/verify/batch").tasks
        return tasks

    async def verify_many(self, requests: Iterable[VerifyRequest | Mapping[str, Any]], *, wait: bool = True,
                    timeout_s: float = 300.0, wait_via: WaitVia = "poll",
                    idempotency_key: str | None = None) -> list[VerifyResponse]:
        """Submit every request and (by default) wait for all their verdicts, in order; `timeout_s` bounds the
        whole wait (VerificationTimeoutError)."""
        protocol.check_wait_via(wait_via)
        jobs = await self.submit_many(requests, idempotency_key=idempotency_key)
        deadline = time.monotonic() + timeout_s
        return [await self._settle(job, wait, max(0.0, deadline - time.monotonic()), wait_via) for job in jobs]

    async def list_tasks(self, *, status: str | None = None, limit: int = 20, cursor: str | None = None) -> TaskPage:
        """GET /v1/verify: this key's tasks, newest first; pass `next_cursor` as `cursor` for the next page."""
        response = await self._request("GET", f"/v1/verify{list_query(status, limit, cursor)}")
        return protocol.parse_body(TaskPage, response.content, "GET /v1/verify")

    async def _post_job(self, path: str, body: dict[str, Any], idempotency_key: str | None) -> VerifyResponse:
        # A key per call makes a retried POST land on the same job instead of queueing a second one.
        key = idempotency_key or f"sdk-{uuid.uuid4()}"
        response = await self._request("POST", path, json=body, headers={"Idempotency-Key": key})
        return protocol.parse_body(VerifyResponse, response.content, f"POST {path}")

    async def verify_text(
        self,
        text: str,
        domain: str,
        original_query: str = "",
        claimed_answer: str | None = None,
        proof_level: str = "standard",
        **options: Any,
    ) -> VerifyResponse:
        """Verify plain reasoning text ("Step 1: …", paragraphs, lists, `<think>` tags) and (by default) wait;
        the options are `verify()`'s (wait, timeout_s, wait_via, callback_url, ...) and `source`."""
        if not isinstance(text, str):
            raise InputError(f"verify_text takes reasoning text, not a {type(text).__name__}; "
                             "use verify_response for a provider's response", field="reasoning")
        return await self._verify_reasoning(text, domain, original_query, claimed_answer, proof_level, **options)

    async def verify_response(
        self,
        response: Mapping[str, Any] | Any,
        domain: str,
        original_query: str = "",
        claimed_answer: str | None = None,
        proof_level: str = "standard",
        **options: Any,
    ) -> VerifyResponse:
        """Verify a provider's raw response (OpenAI Chat Completions / Responses, Anthropic, DeepSeek-R1: a dict
        or the SDK's object) and (by default) wait; the options are `verify_text`'s."""
        if isinstance(response, (str, bytes)):
            raise InputError("verify_response takes a provider's response object or dict; use verify_text for text",
                             field="reasoning")
        return await self._verify_reasoning(response, domain, original_query, claimed_answer, proof_level, **options)

    async def _verify_reasoning(
        self,
        reasoning: Any,
        domain: str,
        original_query: str,
        claimed_answer: str | None,
        proof_level: str,
        *,
        wait: bool = True,
        timeout_s: float = 300.0,
        wait_via: WaitVia = "stream",
        **submit: Any,
    ) -> VerifyResponse:
        protocol.check_wait_via(wait_via)
        job = await self.submit_reasoning(reasoning, domain, original_query, claimed_answer, proof_level, **submit)
        return await self._settle(job, wait, timeout_s, wait_via)

    async def _settle(self, job: VerifyResponse, wait: bool, timeout_s: float, wait_via: WaitVia) -> VerifyResponse:
        """The queued job itself (`wait=False`, or already finished), else the job once it finished."""
        if not wait or job.status in protocol.TERMINAL_STATUSES:
            return job
        return await self.wait(job.task_id, timeout_s=timeout_s, via=wait_via)

    async def certificate(self, cert_id: str) -> Certificate:
        """GET /v1/certificates/{cert_id}: the certificate document (claims, Groth16 proof, key reference)."""
        cert_id = protocol.check_path_id(cert_id, "cert_id")
        response = await self._request("GET", f"/v1/certificates/{cert_id}")
        return protocol.parse_body(
            Certificate, response.content, f"GET /v1/certificates/{cert_id}"
        )

    async def verify_certificate(self, cert_id: str) -> CertificateCheck:
        """POST /v1/certificates/{cert_id}/verify: the server re-checks the certificate's proof."""
        cert_id = protocol.check_path_id(cert_id, "cert_id")
        response = await self._request("POST", f"/v1/certificates/{cert_id}/verify")
        return protocol.parse_body(
            CertificateCheck,
            response.content,
            f"POST /v1/certificates/{cert_id}/verify",
        )

    async def stats(self) -> Stats:
        """GET /v1/stats: service-wide counters."""
        response = await self._request("GET", "/v1/stats")
        return protocol.parse_body(Stats, response.content, "GET /v1/stats")

    @staticmethod
    def parse_reasoning_chain(response: Any) -> list[ReasoningStep]:
        """Reasoning steps out of an OpenAI / Anthropic / DeepSeek response or plain text, ready for verify()."""
        from reasonforge.chain import parse_reasoning_chain

        return parse_reasoning_chain(response)
