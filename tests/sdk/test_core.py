"""The calls without I/O (`sdk.core`): each Operation is driven here by hand, effect by effect, the way both
transports drive it — so every decision (retries, the stream and its fall-back, parsing) is tested once, with no
server and no socket."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from reasonforge.sdk import AsyncReasonForge, RateLimitError, ReasonForge
from reasonforge.sdk.core import Calls, OpenStream, Pause, Quiet, ReceiveFrame, Send, SendFrame
from reasonforge.types import JobStatus

QUEUED = {"task_id": "t1", "status": "queued"}
DONE = {"task_id": "t1", "status": "complete", "verdict": "VERIFIED", "steps_verified": 1, "steps_total": 1}


def _response(status: int, body: Any, headers: dict[str, str] | None = None) -> httpx.Response:
    return httpx.Response(status, content=json.dumps(body).encode(), headers=headers)


def _drive(op, replies: list[tuple[type, Any]]) -> tuple[Any, list]:
    """Run `op` answering each effect with the next scripted reply, checking the effect's kind; (result, effects)."""
    effects, reply = [], None
    script = iter(replies)
    while True:
        try:
            effect = op.send(reply)
        except StopIteration as done:
            assert next(script, None) is None, "the operation ended before the script did"
            return done.value, effects
        effects.append(effect)
        kind, reply = next(script)
        assert isinstance(effect, kind), (effect, kind)


def _calls(max_retries: int = 2) -> Calls:
    return Calls("rf_test", "http://api.test", timeout=30.0, max_retries=max_retries)


def test_verify_submits_with_an_idempotency_key_and_waits_on_the_stream() -> None:
    frame = json.dumps({"type": "status", "task_id": "t1", "status": "complete", "response": DONE})
    result, effects = _drive(_calls()._verify(["2 + 2 = 4"], "mathematics"), [
        (Send, _response(202, QUEUED)),
        (OpenStream, True),
        (SendFrame, True),
        (ReceiveFrame, json.dumps({"type": "ready"})),  # not about the task: ignored
        (ReceiveFrame, frame),
    ])
    assert result.status is JobStatus.COMPLETE and result.verdict.value == "VERIFIED"
    post = effects[0]
    assert (post.method, post.url) == ("POST", "http://api.test/v1/verify")
    assert post.headers["Authorization"] == "Bearer rf_test" and post.headers["Idempotency-Key"].startswith("sdk-")
    assert post.json["reasoning_chain"] == [{"step_id": 1, "content": "2 + 2 = 4"}]
    assert effects[1].uri == "ws://api.test/v1/stream" and "Accept" not in effects[1].headers
    assert json.loads(effects[2].text) == {"type": "subscribe", "task_ids": ["t1"]}


def test_a_stream_that_cannot_open_falls_back_to_one_long_poll() -> None:
    result, effects = _drive(_calls()._wait("t1"), [(OpenStream, False), (Send, _response(200, DONE))])
    assert result.status is JobStatus.COMPLETE
    assert effects[1].method == "GET" and effects[1].url.startswith("http://api.test/v1/verify/t1?wait=")


def test_a_quiet_stream_is_rechecked_by_a_get_and_a_dropped_one_polls() -> None:
    running = {"task_id": "t1", "status": "verifying"}
    result, effects = _drive(_calls()._wait("t1"), [
        (OpenStream, True), (SendFrame, True),
        (ReceiveFrame, Quiet.TIMED_OUT), (Send, _response(200, running)),  # the safety-net GET
        (ReceiveFrame, Quiet.DROPPED), (Send, _response(200, DONE)),  # the long-poll after the drop
    ])
    assert result.status is JobStatus.COMPLETE
    assert effects[3].url == "http://api.test/v1/verify/t1" and "?wait=" in effects[5].url


def test_throttling_is_retried_after_the_servers_retry_after_then_raised_when_retries_are_spent() -> None:
    throttled = _response(429, {"error": {"code": "rate_limited", "message": "slow down"}}, {"Retry-After": "2"})
    page, effects = _drive(_calls()._list_tasks(), [
        (Send, throttled), (Pause, None), (Send, _response(200, {"tasks": []})),
    ])
    assert effects[1] == Pause(2.0) and page.tasks == []
    with pytest.raises(RateLimitError):
        _drive(_calls(max_retries=0)._list_tasks(), [(Send, throttled)])


def test_a_dropped_connection_is_retried_like_a_restart() -> None:
    dropped = httpx.ConnectError("connection refused")
    result, effects = _drive(_calls()._get("t1"), [(Send, dropped), (Pause, None), (Send, _response(200, DONE))])
    assert result.status is JobStatus.COMPLETE and isinstance(effects[1], Pause)


def test_both_transports_expose_every_call_with_its_signature() -> None:
    import inspect

    sync, asynchronous = ReasonForge(api_key="rf_x"), AsyncReasonForge(api_key="rf_x")
    for name in ("submit", "get", "wait", "verify", "submit_reasoning", "submit_many", "verify_many", "list_tasks",
                 "verify_text", "verify_response", "certificate", "verify_certificate", "stats"):
        plain, awaited = getattr(sync, name), getattr(asynchronous, name)
        assert not inspect.iscoroutinefunction(plain) and inspect.iscoroutinefunction(awaited), name
        assert inspect.signature(plain) == inspect.signature(awaited), name
        assert "self" not in inspect.signature(plain).parameters and plain.__doc__, name
    sync.close()
