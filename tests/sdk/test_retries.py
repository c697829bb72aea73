"""Retries: throttling and restarts are retried after Retry-After, with the same Idempotency-Key.

The server here is a loopback stand-in for a proxy in front of the API that answers 503 while the
API restarts; the live service cannot be made to do that on cue.
"""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Iterator

import pytest

from reasonforge.sdk import ReasonForge, ServerError
from reasonforge.types import JobStatus

from sdk_support import PYTHAGORAS

JOB = {"task_id": "t1", "status": "queued", "steps_total": 4}


class Restarting(http.server.ThreadingHTTPServer):
    """Answers 503 (Retry-After: 0) to the first `failures` requests, then a queued job."""

    def __init__(self, failures: int) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.failures = failures
        self.seen: list[tuple[str, str | None]] = []


class _Handler(http.server.BaseHTTPRequestHandler):
    server: Restarting

    def _answer(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(length)
        self.server.seen.append((self.command, self.headers.get("Idempotency-Key")))
        if len(self.server.seen) <= self.server.failures:
            status, body = (
                503,
                {"error": {"code": "restarting", "message": "back soon"}},
            )
        else:
            status, body = (202 if self.command == "POST" else 200), JOB
        raw = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        if status == 503:
            self.send_header("Retry-After", "0")
        self.end_headers()
        self.wfile.write(raw)

    do_GET = do_POST = _answer

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def restarting(request: pytest.FixtureRequest) -> Iterator[Restarting]:
    server = Restarting(request.param)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server
    server.shutdown()
    server.server_close()


def client_for(server: Restarting, retries: int) -> ReasonForge:
    return ReasonForge(
        "rf_x", f"http://127.0.0.1:{server.server_port}", max_retries=retries
    )


@pytest.mark.parametrize("restarting", [2], indirect=True)
def test_submit_is_retried_with_one_idempotency_key(restarting):
    with client_for(restarting, retries=2) as rf:
        job = rf.submit(**PYTHAGORAS, proof_level="quick")
    assert job.status is JobStatus.QUEUED
    methods, keys = zip(*restarting.seen, strict=True)
    assert methods == ("POST", "POST", "POST")
    assert len(set(keys)) == 1 and keys[0].startswith("sdk-")


@pytest.mark.parametrize("restarting", [2], indirect=True)
def test_retries_run_out_into_a_server_error(restarting):
    with client_for(restarting, retries=1) as rf, pytest.raises(ServerError) as caught:
        rf.get("t1")
    assert caught.value.status == 503 and caught.value.code == "restarting"
    assert caught.value.retry_after == 0
    assert len(restarting.seen) == 2
