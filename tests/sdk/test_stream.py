"""Waiting on `WS /v1/stream`: the socket is really used, frames are read defensively, errors are typed."""

from __future__ import annotations

import json
import re

import httpx
import pytest

from reasonforge.sdk import AuthenticationError, NotFoundError, ReasonForge
from reasonforge.sdk.stream import read_frame
from reasonforge.types import JobStatus, Overall

from sdk_support import PENCILS, PYTHAGORAS

QUICK = {"proof_level": "quick", "generate_certificate": False}
_CONNECTIONS = re.compile(
    r"^reasonforge_stream_connections_total\s+(\S+)$", re.MULTILINE
)


def stream_connections(base_url: str) -> float:
    """The server's count of accepted stream connections (its Prometheus counter)."""
    found = _CONNECTIONS.search(httpx.get(f"{base_url}/metrics", timeout=10).text)
    assert found, "the server exports no reasonforge_stream_connections_total"
    return float(found.group(1))


def test_stream_wait_uses_the_socket_and_poll_does_not(service, rf):
    before = stream_connections(service.base_url)
    streamed = rf.verify(**PENCILS, **QUICK, wait_via="stream", timeout_s=120)
    middle = stream_connections(service.base_url)
    polled = rf.verify(**PENCILS, **QUICK, wait_via="poll", timeout_s=120)
    after = stream_connections(service.base_url)
    assert (middle - before, after - middle) == (1, 0)
    assert streamed.verdict is polled.verdict is Overall.PARTIAL
    assert streamed.failure_points == polled.failure_points


def test_stream_wait_on_a_job_that_already_finished(rf):
    job = rf.verify(**PYTHAGORAS, **QUICK, wait_via="poll", timeout_s=120)
    again = rf.wait(job.task_id, via="stream", timeout_s=30)
    assert again == job


def test_stream_refuses_a_bad_key_and_a_foreign_task(service, rf):
    job = rf.verify(**PYTHAGORAS, **QUICK, timeout_s=120)
    with (
        ReasonForge("rf_never_issued_000000", service.base_url) as stranger,
        pytest.raises(AuthenticationError),
    ):
        stranger.wait(job.task_id, via="stream", timeout_s=30)
    other = service.create_key("sdk-stream-other", "--tier", "enterprise")
    with (
        ReasonForge(other, service.base_url) as neighbour,
        pytest.raises(NotFoundError),
    ):
        neighbour.wait(job.task_id, via="stream", timeout_s=30)


def test_read_frame_ignores_what_is_not_about_the_task():
    response = {"task_id": "t1", "status": "complete", "verdict": "VERIFIED"}
    frame = {
        "type": "status",
        "task_id": "t1",
        "status": "complete",
        "response": response,
    }
    status, parsed = read_frame(json.dumps(frame), "t1")
    assert status is JobStatus.COMPLETE and parsed.verdict is Overall.VERIFIED
    for other in (
        "not json",
        "[1]",
        json.dumps({"type": "ready", "key_id": "k"}),
        json.dumps(frame | {"task_id": "t2"}),
        json.dumps(frame | {"status": "exploded"}),
        "[" * 100_000,  # deeper than the decoder recurses: ignored, never a RecursionError
    ):
        assert read_frame(other, "t1") is None
    # A snapshot that is not a VerifyResponse (or is another task's) is not trusted as the result.
    odd = frame | {"response": {"task_id": "t1", "status": 7}}
    assert read_frame(json.dumps(odd), "t1") == (JobStatus.COMPLETE, None)
    foreign = frame | {"response": response | {"task_id": "t9"}}
    assert read_frame(json.dumps(foreign), "t1") == (JobStatus.COMPLETE, None)


def test_read_frame_raises_error_frames_as_typed_errors():
    frame = {"type": "error", "error": {"code": "unauthorized", "message": "no key"}}
    with pytest.raises(AuthenticationError) as caught:
        read_frame(json.dumps(frame), "t1")
    assert caught.value.status == 401 and caught.value.message == "no key"
