"""Signed HTTP on loopback: real miner servers, real btauth/1 signatures, hostile peers."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

import httpx
import pytest
from bittensor import http_auth
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response

from reasonforge.pipeline.run import verify_chain
from reasonforge.subnet.chain import Endpoint
from reasonforge.subnet.keys import Identity
from reasonforge.subnet.miner_server import PriorityGate, create_miner_app
from reasonforge.subnet.protocol import TranslationTask, VerificationResult
from reasonforge.subnet.transport import MAX_BODY_BYTES, sign_response
from reasonforge.subnet.validator_client import QueryOutcome, ValidatorClient
from reasonforge.types import Overall

from subnet_support import (
    arithmetic_task,
    echo_translator,
    endpoint_of,
    running_miner,
    sympy_translations,
)

MINER = Identity.from_seed("//transport-miner")
VALIDATOR = Identity.from_seed("//transport-validator")
BANNED = Identity.from_seed("//transport-banned")
RESULT = VerificationResult(
    epoch_id=1, miner_uid=3, tasks_translated=2, steps_compiled=3, steps_total=4,
    compilation_rate=0.75, epoch_score=0.5, rank=2, tao_earned=0.01,
)


@dataclass
class Miner:
    """A running miner app and what it has seen."""

    base_url: str
    received: list[TranslationTask] = field(default_factory=list)
    results: list[VerificationResult] = field(default_factory=list)

    @property
    def endpoint(self) -> Endpoint:
        return endpoint_of(self.base_url)


@pytest.fixture(scope="module")
def miner() -> Iterator[Miner]:
    """One honest miner for the refusal tests; BANNED is blacklisted."""
    seen: list[TranslationTask] = []
    results: list[VerificationResult] = []

    async def handle(task: TranslationTask) -> TranslationTask:
        seen.append(task)
        return await echo_translator(task)

    async def on_result(result: VerificationResult) -> None:
        results.append(result)

    app = create_miner_app(MINER, handle, on_result, allow=lambda hotkey: hotkey != BANNED.hotkey)
    with running_miner(app) as base_url:
        yield Miner(base_url, seen, results)


def _body(task: TranslationTask | None = None) -> bytes:
    return (task or arithmetic_task()).model_dump_json().encode()


def _post(base_url: str, path: str, body: bytes, headers: dict[str, str] | None = None) -> httpx.Response:
    return httpx.post(base_url + path, content=body, headers=headers or {}, timeout=30, trust_env=False)


def _signed(body: bytes, *, signer: Identity = VALIDATOR, receiver: str = MINER.hotkey, path: str = "/task",
            nonce_ns: int | None = None) -> dict[str, str]:
    return http_auth.sign(signer, method="POST", path=path, body=body, receiver_ss58=receiver, nonce_ns=nonce_ns)


def _query(endpoint: Endpoint, task: TranslationTask, *, receiver: str = MINER.hotkey,
           margin: float = 2.0) -> QueryOutcome:
    async def main() -> QueryOutcome:
        async with ValidatorClient(VALIDATOR, timeout_margin_s=margin) as client:
            return await client.query(7, endpoint, receiver, task)

    return asyncio.run(main())


# ---------------------------------------------------------------------------------------------
# honest round trip


def test_signed_task_round_trips_and_verifies(miner: Miner) -> None:
    prefilled = arithmetic_task("round-trip").with_submission(sympy_translations(claimed_sum=9), "FAILED", 1)
    outcome = _query(miner.endpoint, prefilled)
    assert outcome.ok, outcome.error
    assert outcome.uid == 7 and outcome.status == 200 and outcome.elapsed_ms >= 0
    # The validator sends the task without miner fields; the miner fills them and hashes them.
    assert miner.received[-1].task_id == "round-trip" and miner.received[-1].translations is None
    assert outcome.task is not None
    assert outcome.task.translations == sympy_translations()
    assert outcome.task.has_valid_submission_hash()
    assert outcome.task.task_hash() == prefilled.task_hash()
    assert verify_chain(outcome.task.to_verify_request()).overall == Overall.VERIFIED


def test_one_client_serves_several_event_loops(miner: Miner) -> None:
    client = ValidatorClient(VALIDATOR)  # built outside any loop, as a validator's constructor does
    for epoch in range(2):  # each epoch in its own asyncio.run: the pool must not outlive its loop
        outcome = asyncio.run(client.query(epoch, miner.endpoint, MINER.hotkey, arithmetic_task(f"loop-{epoch}")))
        assert outcome.ok, outcome.error
    asyncio.run(client.aclose())


def test_health_is_unsigned_and_names_the_hotkey(miner: Miner) -> None:
    answer = httpx.get(miner.base_url + "/health", trust_env=False).json()
    assert answer["status"] == "ok" and answer["hotkey"] == MINER.hotkey


def test_result_notification_is_delivered(miner: Miner) -> None:
    async def main() -> tuple[bool, bool]:
        async with ValidatorClient(VALIDATOR) as client:
            delivered = await client.notify(miner.endpoint, MINER.hotkey, RESULT)
            misdirected = await client.notify(miner.endpoint, VALIDATOR.hotkey, RESULT)
            return delivered, misdirected

    delivered, misdirected = asyncio.run(main())
    assert delivered and not misdirected
    assert miner.results[-1] == RESULT


# ---------------------------------------------------------------------------------------------
# refusals


def test_unsigned_request_is_401(miner: Miner) -> None:
    response = _post(miner.base_url, "/task", _body())
    assert response.status_code == 401
    assert response.json()["code"] == "malformed_auth"


def test_replayed_request_is_refused(miner: Miner) -> None:
    body = _body(arithmetic_task("replay"))
    headers = _signed(body)
    assert _post(miner.base_url, "/task", body, headers).status_code == 200
    again = _post(miner.base_url, "/task", body, headers)
    assert again.status_code == 401
    assert again.json()["code"] == "replayed_request"


def test_stale_request_is_401(miner: Miner) -> None:
    body = _body()
    response = _post(miner.base_url, "/task", body, _signed(body, nonce_ns=time.time_ns() - 60 * 10**9))
    assert response.status_code == 401
    assert response.json()["code"] == "stale_request"


def test_request_signed_for_another_receiver_is_403(miner: Miner) -> None:
    body = _body()
    response = _post(miner.base_url, "/task", body, _signed(body, receiver=VALIDATOR.hotkey))
    assert response.status_code == 403
    assert response.json()["code"] == "wrong_receiver"


def test_tampered_body_is_401(miner: Miner) -> None:
    signed_body = _body(arithmetic_task("honest"))
    sent_body = _body(arithmetic_task("forged"))
    response = _post(miner.base_url, "/task", sent_body, _signed(signed_body))
    assert response.status_code == 401
    assert response.json()["code"] == "bad_signature"


def test_signature_for_another_path_is_401(miner: Miner) -> None:
    body = _body()
    response = _post(miner.base_url, "/task", body, _signed(body, path="/result"))
    assert response.status_code == 401
    assert response.json()["code"] == "bad_signature"


def test_blacklisted_caller_is_403(miner: Miner) -> None:
    body = _body()
    response = _post(miner.base_url, "/task", body, _signed(body, signer=BANNED))
    assert response.status_code == 403
    assert response.json()["code"] == "blacklisted"
    assert BANNED.hotkey in response.json()["message"]


def test_oversize_body_is_413(miner: Miner) -> None:
    body = b"x" * (MAX_BODY_BYTES + 1)
    response = _post(miner.base_url, "/task", body, _signed(body))
    assert response.status_code == 413
    assert response.json()["code"] == "body_too_large"

    def chunks() -> Iterator[bytes]:  # no Content-Length: the server must count as it reads
        for _ in range(20):
            yield b"y" * 65536

    chunked = httpx.post(miner.base_url + "/task", content=chunks(), headers=_signed(b""), trust_env=False)
    assert chunked.status_code == 413


def test_bad_json_is_422_with_a_specific_message(miner: Miner) -> None:
    body = b'{"task_id": "x", '
    response = _post(miner.base_url, "/task", body, _signed(body))
    assert response.status_code == 422
    assert response.json()["code"] == "invalid_json"
    assert "not valid JSON" in response.json()["message"]


def test_invalid_model_is_422_naming_the_field(miner: Miner) -> None:
    body = json.dumps({**arithmetic_task().model_dump(mode="json"), "difficulty": 11}).encode()
    response = _post(miner.base_url, "/task", body, _signed(body))
    assert response.status_code == 422
    assert response.json()["code"] == "invalid_model"
    assert "difficulty" in response.json()["message"]
    result_body = b'{"epoch_id": 1}'
    result = _post(miner.base_url, "/result", result_body, _signed(result_body, path="/result"))
    assert result.status_code == 422 and "miner_uid" in result.json()["message"]


# ---------------------------------------------------------------------------------------------
# deadlines and misbehaving miners


def test_slow_handler_misses_its_deadline_and_client_reports_timeout() -> None:
    async def slow(task: TranslationTask) -> TranslationTask:
        await asyncio.sleep(10)
        return await echo_translator(task)

    with running_miner(create_miner_app(MINER, slow)) as base_url:
        outcome = _query(endpoint_of(base_url), arithmetic_task(timeout_seconds=1))
    assert outcome.task is None and outcome.status == 504
    assert outcome.error is not None and outcome.error.startswith("timeout")


def test_peer_ignoring_deadlines_is_cut_off_by_the_client() -> None:
    hostile = FastAPI()

    @hostile.get("/health")
    async def health() -> dict[str, str]:
        return {"status": "ok"}

    @hostile.post("/task")
    async def task(request: Request) -> Response:
        await asyncio.sleep(6)  # then answers: a client ignoring its 1.2 s budget would see this 200
        return Response(status_code=200)

    with running_miner(hostile) as base_url:
        started = time.perf_counter()
        outcome = _query(endpoint_of(base_url), arithmetic_task(timeout_seconds=1), margin=0.2)
        elapsed = time.perf_counter() - started
    assert elapsed >= 1.2
    assert outcome.task is None and outcome.status is None
    assert outcome.error is not None and outcome.error.startswith("timeout: no answer within 1.2 s")


def _hostile_answer(answer: object, signer: Identity | None = MINER, replay: bool = False) -> FastAPI:
    """A peer that ignores authentication and answers every task with `answer(task_json)`.

    The answer is signed by `signer` (a dishonest miner holds its own key), or not at all for None;
    `replay` serves every request the answer signed for the first one.
    """
    app = FastAPI()
    first: list[Response] = []

    @app.get("/health")
    async def health() -> dict[str, str]:
        return {"status": "ok"}

    @app.post("/task")
    async def task(request: Request) -> Response:
        received = TranslationTask.model_validate_json(await request.body())
        response: Response = answer(received)  # type: ignore[operator]
        if signer is not None:
            response.headers.update(
                sign_response(signer, path="/task", request_headers=request.headers, body=response.body)
            )
        if replay:
            first.extend([] if first else [response])
            return first[0]
        return response

    return app


def test_answers_must_be_signed_by_the_queried_miner_for_this_request() -> None:
    def honest(received: TranslationTask) -> Response:
        filled = received.with_submission(sympy_translations(), "COMPILED", 1)
        return JSONResponse(filled.model_dump(mode="json"))

    with running_miner(_hostile_answer(honest)) as base_url:
        assert _query(endpoint_of(base_url), arithmetic_task()).ok  # the control: the same answer, well signed
    with running_miner(_hostile_answer(honest, signer=None)) as base_url:
        unsigned = _query(endpoint_of(base_url), arithmetic_task())
    # An endpoint relaying the answers of another miner (which signs them with its own key).
    with running_miner(_hostile_answer(honest, signer=VALIDATOR)) as base_url:
        relayed = _query(endpoint_of(base_url), arithmetic_task())
    with running_miner(_hostile_answer(honest, replay=True)) as base_url:
        assert _query(endpoint_of(base_url), arithmetic_task()).ok
        replayed = _query(endpoint_of(base_url), arithmetic_task())
    for outcome, prefix in ((unsigned, "unsigned response"), (relayed, "response signed by"),
                            (replayed, "bad response signature")):
        assert outcome.task is None and outcome.status == 200
        assert outcome.error is not None and outcome.error.startswith(prefix), outcome.error


def test_miner_answering_a_different_task_is_reported() -> None:
    def swap(received: TranslationTask) -> Response:
        other = arithmetic_task(received.task_id, x=4)  # an easier task it prefers, correctly hashed
        filled = other.with_submission(sympy_translations(x=4, claimed_sum=6), "COMPILED", 1)
        return JSONResponse(filled.model_dump(mode="json"))

    with running_miner(_hostile_answer(swap)) as base_url:
        outcome = _query(endpoint_of(base_url), arithmetic_task())
    assert outcome.task is None and outcome.status == 200
    assert outcome.error is not None and outcome.error.startswith("task mismatch")


def test_miner_with_a_wrong_submission_hash_is_reported() -> None:
    def forge(received: TranslationTask) -> Response:
        filled = received.with_submission(sympy_translations(), "COMPILED", 1)
        data = filled.model_dump(mode="json") | {"compilation_status": "PARTIAL"}  # changed after hashing
        return JSONResponse(data)

    with running_miner(_hostile_answer(forge)) as base_url:
        outcome = _query(endpoint_of(base_url), arithmetic_task())
    assert outcome.error is not None and outcome.error.startswith("bad submission_hash")


def test_miner_changing_unhashed_fields_cannot_smuggle_them_in() -> None:
    def pad(received: TranslationTask) -> Response:
        changed = received.model_copy(update={"claimed_answer": "42", "timeout_seconds": 3600})
        filled = changed.with_submission(sympy_translations(), "COMPILED", 1)
        return JSONResponse(filled.model_dump(mode="json"))

    with running_miner(_hostile_answer(pad)) as base_url:
        outcome = _query(endpoint_of(base_url), arithmetic_task())
    assert outcome.ok, outcome.error
    assert outcome.task is not None
    assert outcome.task.claimed_answer == "5" and outcome.task.timeout_seconds == 30


def test_garbage_and_oversized_answers_are_reported() -> None:
    answers = {
        "garbage": lambda received: Response(b"<html>hello</html>", media_type="text/html"),
        "huge": lambda received: Response(b"[" + b"0," * (3 * 1024 * 1024) + b"0]", media_type="application/json"),
    }
    for name, answer in answers.items():
        with running_miner(_hostile_answer(answer)) as base_url:
            outcome = _query(endpoint_of(base_url), arithmetic_task())
        assert outcome.task is None, name
        expected = "invalid response" if name == "garbage" else "response from"
        assert outcome.error is not None and outcome.error.startswith(expected), (name, outcome.error)


def test_error_body_too_deep_or_with_odd_fields_is_quoted_raw_not_raised() -> None:
    bodies = {
        b"[" * 100_000: "[[[[",  # deeper than any decoder's recursion: the start of the raw body, no RecursionError
        b'{"code": ["x"], "message": "busy"}': "error: busy",  # a code that is not a string is not printed as one
        b'{"message": {"nested": 1}}': '{"message": {"nested": 1}}',
    }
    for body, expected in bodies.items():
        answer = lambda received, body=body: Response(body, status_code=503, media_type="application/json")
        with running_miner(_hostile_answer(answer)) as base_url:
            outcome = _query(endpoint_of(base_url), arithmetic_task())
        assert outcome.task is None and outcome.status == 503
        assert outcome.error is not None and outcome.error.startswith(f"miner answered HTTP 503: {expected}"), \
            outcome.error


def test_handler_that_changes_or_fails_the_task_is_a_500() -> None:
    async def changes(task: TranslationTask) -> TranslationTask:
        return await echo_translator(arithmetic_task("someone-else"))

    async def fails(task: TranslationTask) -> TranslationTask:
        raise RuntimeError("engine crashed")

    async def own_timeout(task: TranslationTask) -> TranslationTask:
        raise TimeoutError("the prover timed out")  # the handler's own limit, not the task's deadline

    cases = ((changes, "task_changed"), (fails, "handler_failed"), (own_timeout, "handler_failed"))
    for handler, code in cases:
        with running_miner(create_miner_app(MINER, handler)) as base_url:
            outcome = _query(endpoint_of(base_url), arithmetic_task())
        assert outcome.status == 500 and outcome.task is None
        assert outcome.error is not None and code in outcome.error


def test_connection_refused_is_reported_not_raised() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))  # bound, never listening: refused, and no other test can take the port
        outcome = _query(endpoint_of(f"http://127.0.0.1:{sock.getsockname()[1]}"), arithmetic_task())
    assert outcome.task is None and outcome.status is None
    assert outcome.error is not None and outcome.error.startswith("connection failed")


# ---------------------------------------------------------------------------------------------
# priority


def test_waiting_callers_are_served_highest_priority_first() -> None:
    low, high = Identity.from_seed("//low-stake"), Identity.from_seed("//high-stake")
    stakes = {VALIDATOR.hotkey: 50.0, low.hotkey: 1.0, high.hotkey: 100.0}
    order: list[str] = []
    release = threading.Event()

    async def handler(task: TranslationTask) -> TranslationTask:
        order.append(task.task_id)
        if task.task_id == "first":
            await asyncio.to_thread(release.wait, 20)
        return await echo_translator(task)

    app = create_miner_app(MINER, handler, priority=lambda hotkey: stakes.get(hotkey, 0.0), max_concurrent=1)

    async def main(base_url: str) -> list[QueryOutcome]:
        endpoint = endpoint_of(base_url)
        clients = [ValidatorClient(identity) for identity in (VALIDATOR, low, high)]

        async def queued(waiting: int, active: int = 1) -> None:
            async with httpx.AsyncClient(trust_env=False) as http:
                for _ in range(500):
                    state = (await http.get(base_url + "/health")).json()
                    if state["waiting"] == waiting and state["active"] == active:
                        return
                    await asyncio.sleep(0.01)
            raise AssertionError(f"miner never reached waiting={waiting}: {state}")

        try:
            first = asyncio.create_task(clients[0].query(0, endpoint, MINER.hotkey, arithmetic_task("first")))
            await queued(0)
            slow = asyncio.create_task(clients[1].query(1, endpoint, MINER.hotkey, arithmetic_task("low")))
            await queued(1)
            fast = asyncio.create_task(clients[2].query(2, endpoint, MINER.hotkey, arithmetic_task("high")))
            await queued(2)
            release.set()
            return list(await asyncio.gather(first, slow, fast))
        finally:
            release.set()
            for client in clients:
                await client.aclose()

    with running_miner(app) as base_url:
        outcomes = asyncio.run(main(base_url))
    assert all(o.ok for o in outcomes), [o.error for o in outcomes]
    assert order == ["first", "high", "low"]


def test_priority_gate_admits_by_priority_and_survives_cancellation() -> None:
    async def main() -> list[str]:
        gate = PriorityGate(1)
        admitted: list[str] = []

        async def worker(name: str, priority: float) -> None:
            async with gate.slot(priority):
                admitted.append(name)
                await asyncio.sleep(0.01)

        await gate.acquire(0)  # hold the only slot while the others queue
        tasks = {name: asyncio.create_task(worker(name, p)) for name, p in
                 (("a", 1.0), ("b", 5.0), ("c", 5.0), ("d", 9.0), ("e", 3.0))}
        await asyncio.sleep(0.01)
        assert gate.waiting == 5
        tasks["d"].cancel()  # the best waiter gives up: its place must not be lost
        await asyncio.sleep(0)
        gate.release()
        await asyncio.gather(*(t for n, t in tasks.items() if n != "d"))
        assert gate.active == 0 and gate.waiting == 0
        return admitted

    assert asyncio.run(main()) == ["b", "c", "e", "a"]
