"""API errors reach the caller as typed exceptions: 401, 402, 413, 422, 429, refused connections, non-API servers."""

from __future__ import annotations

import http.server
import socket
import threading

import pytest

from reasonforge.errors import InputError
from reasonforge.sdk import (
    APIConnectionError,
    AuthenticationError,
    InvalidRequestError,
    InvalidResponseError,
    PayloadTooLargeError,
    PaymentRequiredError,
    RateLimitError,
    ReasonForge,
    ReasonForgeAPIError,
)

from sdk_support import PENCILS, PYTHAGORAS, live_service

QUICK = {"proof_level": "quick", "generate_certificate": False}


@pytest.mark.parametrize("key", [None, "rf_not_a_real_key_0000000000000000"])
def test_missing_or_unknown_key_is_401(service, key):
    with (
        ReasonForge(api_key=key, base_url=service.base_url) as rf,
        pytest.raises(AuthenticationError) as caught,
    ):
        rf.submit(**PYTHAGORAS, **QUICK)
    assert caught.value.status == 401 and caught.value.message


def test_revoked_key_is_401(service):
    key = service.create_key("sdk-revoked")
    with ReasonForge(api_key=key, base_url=service.base_url) as rf:
        rf.verify(**PYTHAGORAS, **QUICK, timeout_s=120)
        done = service.cli("keys", "revoke", key)
        assert done.returncode == 0, done.stderr
        with pytest.raises(AuthenticationError):
            rf.submit(**PYTHAGORAS, **QUICK)


def test_free_tier_cannot_run_formal_402(service):
    key = service.create_key("sdk-free", "--tier", "free")
    with (
        ReasonForge(api_key=key, base_url=service.base_url) as rf,
        pytest.raises(PaymentRequiredError) as caught,
    ):
        rf.submit(**PYTHAGORAS, proof_level="formal")
    assert caught.value.status == 402 and "formal" in caught.value.message


def test_oversized_body_is_413(rf):
    # 20 steps of 60 KB: each step is within the per-step limit, the body is over the 1 MiB default.
    chain = [{"step_id": i, "content": "x = 1 " * 10_000} for i in range(1, 21)]
    with pytest.raises(PayloadTooLargeError) as caught:
        rf.submit(chain, "mathematics", **QUICK)
    assert caught.value.status == 413


def test_server_side_validation_is_422_naming_the_step(rf):
    chain = [
        {"step_id": 1, "content": "Let x = 3"},
        {"step_id": 2, "content": "x = 3", "dependencies": [7]},
    ]
    with pytest.raises(InvalidRequestError) as caught:
        rf.submit(chain, "mathematics", **QUICK)
    assert caught.value.status == 422 and "7" in caught.value.message


def test_client_side_validation_never_reaches_the_server(rf):
    with pytest.raises(InputError) as caught:
        rf.submit(**(PENCILS | {"domain": "astrology"}), **QUICK)
    assert caught.value.field == "domain"
    with pytest.raises(InputError):
        rf.get("../../etc/passwd")
    before = rf.stats().jobs
    with pytest.raises(InputError) as caught:
        rf.verify(**PENCILS, **QUICK, wait_via="socket")
    assert caught.value.field == "wait_via"
    assert rf.stats().jobs == before  # refused before submitting, so no job was queued


def test_rate_limit_is_429_with_retry_after(tmp_path):
    limited = {"REASONFORGE_RATE_LIMIT_PER_MINUTE": "2"}
    with (
        live_service(tmp_path, env=limited) as handle,
        ReasonForge(handle.api_key, handle.base_url, max_retries=0) as rf,
        pytest.raises(RateLimitError) as caught,
    ):
        for _ in range(5):
            rf.stats()
    assert caught.value.status == 429
    assert caught.value.retry_after is not None and caught.value.retry_after >= 1


def test_refused_connection_is_a_connection_error():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # bound, never listening: connections are refused
        with (
            ReasonForge("rf_x", f"http://127.0.0.1:{port}", max_retries=1) as rf,
            pytest.raises(APIConnectionError) as caught,
        ):
            rf.stats()
    assert f"127.0.0.1:{port}" in caught.value.message


class _NotTheApi(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = (
            b"<html>welcome to nginx</html>"
            if self.path != "/v1/verify/abc"
            else b'{"task_id": 5}'
        )
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        self.send_response(502)
        self.send_header("Content-Length", "11")
        self.end_headers()
        self.wfile.write(b"bad gateway")

    def log_message(self, *args):
        pass


def test_a_server_that_is_not_the_api_gives_clear_errors():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _NotTheApi)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with ReasonForge(
            api_key="rf_x",
            base_url=f"http://127.0.0.1:{server.server_port}",
            max_retries=0,
        ) as rf:
            with pytest.raises(InvalidResponseError) as caught:
                rf.stats()
            assert "check that base_url" in caught.value.message
            with pytest.raises(InvalidResponseError):
                rf.get("abc")
            with pytest.raises(ReasonForgeAPIError) as gateway:
                rf.submit(**PYTHAGORAS, **QUICK)
            assert (
                gateway.value.status == 502 and "bad gateway" in gateway.value.message
            )
    finally:
        server.shutdown()
        server.server_close()
