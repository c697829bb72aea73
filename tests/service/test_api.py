"""The HTTP API in process (FastAPI TestClient, real in-process workers on a SQLite store)."""

from __future__ import annotations

import base64
import json
import re
import shutil
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import pytest
from chains import sleeping_code_chain
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from reasonforge.service import create_app
from reasonforge.service.accounts import Tier, create_key, quote_credits, revoke_key
from reasonforge.service.pages import certificate_page
from reasonforge.service.settings import ServiceSettings

TERMINAL = {"complete", "failed", "cancelled"}


def quick_chain(n: int, *, wrong: bool = False, certificate: bool = False) -> dict:
    """A closed-arithmetic chain (verifies in milliseconds); `wrong` breaks step 2, on which step 3 depends. The
    claimed answer is the final step's value (the answer check compares them)."""
    return {
        "original_query": f"Let n = {n}. What is n + 1 and 2n?",
        "claimed_answer": f"{2 * n}",
        "domain": "mathematics",
        "proof_level": "quick",
        "generate_certificate": certificate,
        "reasoning_chain": [
            {"step_id": 1, "content": f"Let n = {n}"},
            {"step_id": 2, "content": f"So n + 1 = {n + (2 if wrong else 1)}"},
            {"step_id": 3, "content": f"Then 2 * n = {2 * n}", "dependencies": [2]},
        ],
    }


class Api:
    """A running app, its client and helpers to make keys and wait for tasks."""

    def __init__(self, client: TestClient) -> None:
        self.client = client
        self.sm = client.app.state.rf.jobs.sessionmaker

    def key(
        self, tier: Tier = Tier.PRO, scopes: tuple[str, ...] = ("verify", "read")
    ) -> dict[str, str]:
        with self.sm() as session:
            plaintext, _ = create_key(
                session, f"test-{tier.value}", tier=tier, scopes=scopes
            )
        return {"Authorization": f"Bearer {plaintext}"}

    def wait(
        self, task_id: str, headers: dict[str, str], timeout: float = 120.0
    ) -> dict:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            body = self.client.get(f"/v1/verify/{task_id}", headers=headers).json()
            if body.get("status") in TERMINAL:
                return body
            time.sleep(0.05)
        raise AssertionError(f"task {task_id} did not finish in {timeout} s: {body}")


def small_circuit_home(request: pytest.FixtureRequest, home: Path) -> Path:
    """`home` with the reduced circuit's keys, built once and shared with the certificate tests' cache."""
    from reasonforge.certificate import toolchain
    from reasonforge.certificate.params import SMALL
    from reasonforge.certificate.prover import ensure_keys

    if shutil.which("node") is None:
        pytest.fail("node is not installed: run `make install`", pytrace=False)
    toolchain.node_modules()
    cache = getattr(request.config, "cache", None)
    shared = (
        Path(cache.mkdir("reasonforge-certificate")) / "home" / "certificate" / "keys"
        if cache
        else home / "keys"
    )
    ensure_keys(SMALL, shared)
    (home / "certificate").mkdir(parents=True, exist_ok=True)
    (home / "certificate" / "keys").symlink_to(shared, target_is_directory=True)
    return home


@pytest.fixture(scope="module")
def api(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Api]:
    home = small_circuit_home(request, tmp_path_factory.mktemp("rf-api"))
    settings = ServiceSettings(
        home=home,
        certificate_circuit="small",
        rate_limit_per_minute=100_000,
        public_base_url="https://rf.test",
        workers=2,
        webhook_allow_private=True,  # the webhook receiver below listens on loopback
        webhook_backoff_s=0.2,
    )
    with TestClient(create_app(settings)) as client:
        yield Api(client)


@pytest.fixture
def idle_app(tmp_path: Path):
    """An app whose workers are not started (no lifespan): submitted jobs stay queued."""

    def make(**overrides) -> Api:
        settings = ServiceSettings(
            home=tmp_path, rate_limit_per_minute=100_000, **overrides
        )
        return Api(TestClient(create_app(settings)))

    return make


def error_of(response) -> dict:
    body = response.json()
    assert set(body) == {"error"} and set(body["error"]) == {
        "code",
        "message",
        "field",
    }, body
    return body["error"]


def test_submit_then_poll_gives_the_verdict(api: Api) -> None:
    headers = api.key()
    response = api.client.post("/v1/verify", json=quick_chain(3), headers=headers)
    assert response.status_code == 202
    queued = response.json()
    assert queued["status"] == "queued" and queued["verdict"] is None
    assert response.headers["location"] == f"/v1/verify/{queued['task_id']}"
    assert queued["cost_credits"] == quote_credits("quick", 3, False) == 0.16
    done = api.wait(queued["task_id"], headers)
    assert done["status"] == "complete"
    assert (done["verdict"], done["steps_verified"], done["steps_total"]) == (
        "VERIFIED",
        3,
        3,
    )
    assert done["failure_points"] == [] and done["certificate_id"] is None
    assert isinstance(done["verification_time_ms"], int) and done["assurance"] == "proven"


def test_a_failed_step_reports_its_error_fix_and_cascade(api: Api) -> None:
    headers = api.key()
    task_id = api.client.post(
        "/v1/verify", json=quick_chain(4, wrong=True), headers=headers
    ).json()["task_id"]
    done = api.wait(task_id, headers)
    assert (done["verdict"], done["steps_verified"], done["assurance"]) == ("PARTIAL", 1, "refuted")
    [failure] = done["failure_points"]
    assert failure["step_id"] == 2 and failure["original_content"] == "So n + 1 = 6"
    assert "false" in failure["error"] and failure["suggested_fix"]
    assert failure["cascade_impact"] == [3]
    steps = done["steps"]
    assert [(s["step_id"], s["status"]) for s in steps] == [(1, "verified"), (2, "failed"), (3, "invalidated")]
    assert steps[0]["checker"].startswith("sympy-relations ") and steps[0]["aligned_claim"]
    assert "false" in steps[1]["message"] and steps[1]["aligned_claim"] is None
    assert len(done["verdict_digest"]) == 64


def test_a_reference_answer_is_compared_beside_the_verdict(api: Api) -> None:
    headers = api.key()
    right = api.client.post("/v1/verify", json=quick_chain(6) | {"reference_answer": "12"}, headers=headers)
    wrong = api.client.post("/v1/verify", json=quick_chain(6) | {"reference_answer": "13"}, headers=headers)
    got = [api.wait(r.json()["task_id"], headers) for r in (right, wrong)]
    assert [g["verdict"] for g in got] == ["VERIFIED", "VERIFIED"]  # the reference changes nothing proven
    assert [g["answer_matches_reference"] for g in got] == [True, False]
    assert got[1]["reference_check"]["compared_by"] == "reader" and "13" in got[1]["reference_check"]["message"]


def test_a_batch_queues_each_request_and_the_key_lists_its_tasks(api: Api) -> None:
    headers = api.key()
    batch = {"requests": [quick_chain(7), quick_chain(8, wrong=True)]}
    response = api.client.post("/v1/verify/batch", json=batch, headers=headers | {"Idempotency-Key": "b-1"})
    assert response.status_code == 202
    tasks = response.json()["tasks"]
    assert [t["status"] for t in tasks] == ["queued", "queued"]
    done = [api.wait(t["task_id"], headers) for t in tasks]
    assert [d["verdict"] for d in done] == ["VERIFIED", "PARTIAL"]
    again = api.client.post("/v1/verify/batch", json=batch, headers=headers | {"Idempotency-Key": "b-1"})
    assert [t["task_id"] for t in again.json()["tasks"]] == [t["task_id"] for t in tasks]  # a retry queues nothing
    listed = api.client.get("/v1/verify?limit=1", headers=headers).json()
    assert len(listed["tasks"]) == 1 and listed["next_cursor"]
    following = api.client.get(f"/v1/verify?limit=100&cursor={listed['next_cursor']}", headers=headers).json()
    ids = [t["task_id"] for t in listed["tasks"] + following["tasks"]]
    assert sorted(ids) == sorted(t["task_id"] for t in tasks) and following["next_cursor"] is None
    other = api.client.get("/v1/verify", headers=api.key()).json()
    assert other["tasks"] == []  # another key sees none of them
    assert api.client.get("/v1/verify?status=failed", headers=headers).json()["tasks"] == []


def test_a_key_s_verdicts_are_listed_on_one_page(api: Api) -> None:
    headers = api.key()
    tasks = api.client.post("/v1/verify/batch", json={"requests": [quick_chain(11), quick_chain(12, wrong=True)]},
                            headers=headers).json()["tasks"]
    for task in tasks:
        api.wait(task["task_id"], headers)
    page = api.client.get("/verdicts", headers=headers)
    assert page.status_code == 200 and "script-src" not in page.headers["content-security-policy"]
    assert "2 verdicts" in page.text and "<script" not in page.text
    for task in tasks:
        assert f'href="/verdicts/{task["task_id"]}"' in page.text
    assert "0 verdicts" in api.client.get("/verdicts", headers=api.key()).text  # another key's page holds none
    assert api.client.get("/verdicts").status_code == 401


def test_a_bad_request_refuses_the_whole_batch_naming_it(api: Api) -> None:
    headers = api.key()
    bad = quick_chain(9) | {"domain": "biology"}
    response = api.client.post("/v1/verify/batch", json={"requests": [quick_chain(9), bad]}, headers=headers)
    assert response.status_code == 422 and "requests[1]" in response.text
    assert api.client.get("/v1/verify", headers=headers).json()["tasks"] == []  # nothing was queued
    assert api.client.post("/v1/verify/batch", json={"requests": []}, headers=headers).status_code == 422
    assert api.client.get("/v1/verify?cursor=nonsense", headers=headers).status_code == 422


R1_RESPONSE = {  # a DeepSeek-R1 style chat completion: the reasoning in reasoning_content, the answer in content
    "id": "r1", "object": "chat.completion", "model": "deepseek-reasoner",
    "choices": [{"index": 0, "finish_reason": "stop", "message": {
        "role": "assistant", "reasoning_content": "Let n = 3.\n\nSo n + 1 = 4.\n\nThen 2 * n = 6.",
        "content": "The answer is $\\boxed{6}$."}}],
}


def test_reasoning_as_a_model_wrote_it_is_split_and_verified(api: Api) -> None:
    headers = api.key()
    body = {"reasoning": R1_RESPONSE, "domain": "mathematics", "proof_level": "quick",
            "original_query": "Let n = 3. What is 2n?", "generate_certificate": False}
    response = api.client.post("/v1/verify/reasoning", json=body, headers=headers)
    assert response.status_code == 202, response.text
    done = api.wait(response.json()["task_id"], headers)
    # The visible answer is checked too: it states the claimed answer, so it joins the last step. That step is
    # verified on its relations only while the maths reader takes the word "boxed" for prose beyond them.
    assert (done["verdict"], done["steps_verified"], done["steps_total"]) == ("PARTIAL", 3, 3)
    plain = {**body, "reasoning": {**R1_RESPONSE, "choices": [{**R1_RESPONSE["choices"][0], "message": {
        **R1_RESPONSE["choices"][0]["message"], "content": "The answer is 6."}}]}}
    done = api.wait(api.client.post("/v1/verify/reasoning", json=plain, headers=headers).json()["task_id"], headers)
    assert (done["verdict"], done["steps_verified"], done["steps_total"]) == ("VERIFIED", 3, 3)
    # A false relation in the visible answer is refuted, whatever the reasoning says.
    wrong = {**body, "reasoning": {**R1_RESPONSE, "choices": [{**R1_RESPONSE["choices"][0], "message": {
        **R1_RESPONSE["choices"][0]["message"], "content": "Also 2 * n = 7. The answer is 6."}}]}}
    done = api.wait(api.client.post("/v1/verify/reasoning", json=wrong, headers=headers).json()["task_id"], headers)
    assert (done["assurance"], done["steps_total"]) == ("refuted", 4)
    assert [(s["step_id"], s["status"]) for s in done["steps"]][-1] == (4, "failed")
    # Plain text with a wrong final answer: the answer read from "#### 7" is compared with what the chain derived.
    text = {"reasoning": "Let n = 3.\n\nThen 2 * n = 6.\n\n#### 7", "domain": "mathematics",
            "proof_level": "quick", "original_query": "Let n = 3. What is 2n?", "generate_certificate": False}
    done = api.wait(api.client.post("/v1/verify/reasoning", json=text, headers=headers).json()["task_id"], headers)
    assert done["verdict"] != "VERIFIED"


def test_reasoning_that_cannot_be_split_is_a_422_naming_the_field(api: Api) -> None:
    headers = api.key()
    for reasoning, words in (({"choices": []}, "no choices"), ("   ", "no answer text"),
                             ({"object": "list", "data": []}, "unrecognised response shape")):
        response = api.client.post("/v1/verify/reasoning", json={"reasoning": reasoning, "domain": "logic"},
                                   headers=headers)
        assert response.status_code == 422, response.text
        error = response.json()["error"]
        assert error["field"] == "reasoning" and words in error["message"], error
    unknown = api.client.post("/v1/verify/reasoning", json={"reasoning": "x", "domain": "logic", "extra": 1},
                              headers=headers)
    assert unknown.status_code == 422


def test_idempotency_key_returns_the_same_task_and_refuses_a_different_body(
    api: Api,
) -> None:
    headers = api.key() | {"Idempotency-Key": "order-42"}
    first = api.client.post("/v1/verify", json=quick_chain(5), headers=headers)
    again = api.client.post("/v1/verify", json=quick_chain(5), headers=headers)
    assert first.status_code == again.status_code == 202
    assert again.json()["task_id"] == first.json()["task_id"]
    assert again.headers["idempotent-replayed"] == "true"
    clash = api.client.post("/v1/verify", json=quick_chain(6), headers=headers)
    assert clash.status_code == 409
    assert (
        error_of(clash)["field"] == "Idempotency-Key"
        and first.json()["task_id"] in error_of(clash)["message"]
    )
    # Keys are per API key: another caller's "order-42" is another task.
    neighbour = api.key()
    other = api.client.post(
        "/v1/verify",
        json=quick_chain(5),
        headers=neighbour | {"Idempotency-Key": "order-42"},
    )
    assert (
        other.status_code == 202 and other.json()["task_id"] != first.json()["task_id"]
    )
    api.wait(first.json()["task_id"], headers)
    assert (
        api.client.post("/v1/verify", json=quick_chain(5), headers=headers).json()[
            "status"
        ]
        == "complete"
    )
    api.wait(other.json()["task_id"], neighbour)  # later tests compare job counts on this shared app


def test_tasks_are_visible_to_their_owner_only(api: Api) -> None:
    owner, stranger = api.key(), api.key()
    task_id = api.client.post("/v1/verify", json=quick_chain(7), headers=owner).json()[
        "task_id"
    ]
    for method in ("get", "delete"):
        response = getattr(api.client, method)(
            f"/v1/verify/{task_id}", headers=stranger
        )
        assert response.status_code == 404 and error_of(response)["code"] == "not_found"
    assert api.wait(task_id, owner)["status"] == "complete"


def test_missing_invalid_and_revoked_keys_are_401_and_scopes_403(api: Api) -> None:
    body = quick_chain(1)
    missing = api.client.post("/v1/verify", json=body)
    assert missing.status_code == 401 and missing.headers[
        "www-authenticate"
    ].startswith("Bearer")
    assert error_of(missing)["code"] == "unauthorized"
    invalid = api.client.post(
        "/v1/verify", json=body, headers={"Authorization": "Bearer rf_nonsense"}
    )
    assert invalid.status_code == 401
    headers = api.key()
    with api.sm() as session:
        revoke_key(session, headers["Authorization"].split()[1])
    revoked = api.client.get("/v1/stats", headers=headers)
    assert revoked.status_code == 401 and "revoked" in error_of(revoked)["message"]
    reader = api.key(scopes=("read",))
    forbidden = api.client.post("/v1/verify", json=body, headers=reader)
    assert forbidden.status_code == 403 and error_of(forbidden)["field"] == "scope"


def test_free_tier_refuses_formal_with_402(api: Api) -> None:
    body = quick_chain(2) | {"proof_level": "formal"}
    response = api.client.post("/v1/verify", json=body, headers=api.key(Tier.FREE))
    assert response.status_code == 402
    error = error_of(response)
    assert (
        error["code"] == "payment_required"
        and error["field"] == "proof_level"
        and "quick" in error["message"]
    )


@pytest.mark.parametrize(
    ("change", "field", "words"),
    [
        ({"domain": "astrology"}, "domain", "mathematics"),
        (
            {"reasoning_chain": [{"step_id": 1}]},
            "reasoning_chain[0].content",
            "required",
        ),
        ({"task_id": "mine"}, "task_id", "assigned by the service"),
        (
            {"translations": [{"step_id": 1, "language": "python",
                               "formal_representation": "def test_t():\n    assert True\n"}]},
            "translations[0].language",
            "the mathematics domain accepts coq, lean4, sympy",
        ),
        ({"callback_url": "ftp://example.com/x"}, "callback_url", "http"),
        ({"proof_level": "formal", "prover": "lean4"}, "prover", "Lean 4"),
        (
            {
                "reasoning_chain": [
                    {"step_id": 1, "content": "a = 1", "dependencies": [2]},
                    {"step_id": 2, "content": "b = 2", "dependencies": [1]},
                ]
            },
            None,
            "cycle",
        ),
    ],
)
def test_invalid_requests_are_422_naming_the_field(
    api: Api, change: dict, field: str | None, words: str
) -> None:
    response = api.client.post(
        "/v1/verify", json=quick_chain(1) | change, headers=api.key()
    )
    assert response.status_code == 422, response.text
    error = error_of(response)
    if field is not None:
        assert error["field"] == field, error
    assert words.lower() in error["message"].lower()


def test_callbacks_to_private_addresses_are_refused_by_default(idle_app) -> None:
    api = idle_app()
    for url in (
        "http://127.0.0.1:9/hook",
        "http://169.254.169.254/latest",
        "http://[::ffff:10.0.0.1]/x",
    ):
        response = api.client.post(
            "/v1/verify", json=quick_chain(1) | {"callback_url": url}, headers=api.key()
        )
        assert (
            response.status_code == 422
            and error_of(response)["field"] == "callback_url"
        ), url


def test_completion_webhook_is_signed_and_verifiable(api: Api) -> None:
    from reasonforge.service.webhooks import (
        SIGNATURE_HEADER,
        TIMESTAMP_HEADER,
        key_webhook_secret,
        verify_signature,
    )

    received: list[tuple[bytes, dict[str, str]]] = []

    class Receiver(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            received.append(
                (
                    self.rfile.read(int(self.headers["Content-Length"])),
                    dict(self.headers),
                )
            )
            self.send_response(204)
            self.end_headers()

        def log_message(self, *_args) -> None:
            pass

    server = HTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        headers = api.key()
        url = f"http://127.0.0.1:{server.server_port}/hook"
        task_id = api.client.post(
            "/v1/verify", json=quick_chain(12) | {"callback_url": url}, headers=headers
        ).json()
        api.wait(task_id["task_id"], headers)
        deadline = time.monotonic() + 60
        while not received and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        server.shutdown()
        server.server_close()
    [(body, sent)] = received
    payload = json.loads(body)
    assert payload["task_id"] == task_id["task_id"] and payload["verdict"] == "VERIFIED"
    key_id = headers["Authorization"].split("_")[1]
    secret = key_webhook_secret(api.client.app.state.rf.settings, key_id)
    assert verify_signature(
        secret, body, signature=sent[SIGNATURE_HEADER], timestamp=sent[TIMESTAMP_HEADER]
    )
    assert not verify_signature(
        secret,
        body + b" ",
        signature=sent[SIGNATURE_HEADER],
        timestamp=sent[TIMESTAMP_HEADER],
    )


def test_a_body_that_is_not_json_is_422_on_body(api: Api) -> None:
    headers = api.key() | {"Content-Type": "application/json"}
    response = api.client.post("/v1/verify", content=b"{not json", headers=headers)
    assert response.status_code == 422 and error_of(response)["field"] == "body"


def test_oversized_bodies_are_413_before_parsing(idle_app) -> None:
    api = idle_app(max_body_bytes=2048)
    headers = api.key()
    big = quick_chain(1) | {"original_query": "x" * 4096}
    declared = api.client.post("/v1/verify", json=big, headers=headers)
    assert (
        declared.status_code == 413
        and error_of(declared)["code"] == "payload_too_large"
    )
    # No Content-Length: a chunked upload is counted as it streams.
    chunks = (
        json.dumps(big)[i : i + 512].encode()
        for i in range(0, len(json.dumps(big)), 512)
    )
    streamed = api.client.post(
        "/v1/verify",
        content=chunks,
        headers=headers | {"Content-Type": "application/json"},
    )
    assert streamed.status_code == 413 and "streamed" in error_of(streamed)["message"]
    assert (
        api.client.post("/v1/verify", json=quick_chain(1), headers=headers).status_code
        == 202
    )


def test_rate_limit_is_429_with_retry_after(tmp_path: Path) -> None:
    client = TestClient(
        create_app(ServiceSettings(home=tmp_path, rate_limit_per_minute=2))
    )
    headers = Api(client).key()
    assert [client.get("/v1/stats", headers=headers).status_code for _ in range(2)] == [
        200,
        200,
    ]
    limited = client.get("/v1/stats", headers=headers)
    assert limited.status_code == 429 and int(limited.headers["retry-after"]) >= 1
    assert error_of(limited)["code"] == "rate_limited"


def test_cancel_a_queued_task(idle_app) -> None:
    api = idle_app()
    headers = api.key()
    task_id = api.client.post(
        "/v1/verify", json=quick_chain(1), headers=headers
    ).json()["task_id"]
    cancelled = api.client.delete(f"/v1/verify/{task_id}", headers=headers)
    assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"
    again = api.client.delete(f"/v1/verify/{task_id}", headers=headers)
    assert again.status_code == 409 and "cancelled" in error_of(again)["message"]


def test_stream_sends_status_events_and_snapshots(api: Api) -> None:
    headers = api.key()
    with api.client.websocket_connect("/v1/stream", headers=headers) as ws:
        assert ws.receive_json()["type"] == "ready"
        task_id = api.client.post(
            "/v1/verify", json=quick_chain(8), headers=headers
        ).json()["task_id"]
        seen = []
        while not seen or seen[-1]["status"] not in TERMINAL:
            event = ws.receive_json()
            assert event["type"] == "status" and event["task_id"] == task_id
            seen.append(event)
        assert [e["status"] for e in seen] == [
            "queued",
            "translating",
            "verifying",
            "complete",
        ]
        assert seen[-1]["response"]["verdict"] == "VERIFIED"
        # Subscribing to a finished task sends its current state at once.
        ws.send_json({"type": "subscribe", "task_ids": [task_id, "f" * 32]})
        snapshot, missing = ws.receive_json(), ws.receive_json()
        assert (
            snapshot["status"] == "complete"
            and snapshot["response"]["steps_verified"] == 3
        )
        assert missing["type"] == "error" and missing["error"]["code"] == "not_found"
        # Bad frames get an error and the stream stays open.
        ws.send_bytes(b"\xff\xfe")
        assert ws.receive_json()["error"]["field"] == "frame"
        ws.send_json({"type": "subscribe", "task_ids": []})
        assert ws.receive_json()["error"]["field"] == "task_ids"
        ws.send_json({"type": "subscribe", "task_ids": [task_id]})
        assert ws.receive_json()["status"] == "complete"


def test_stream_refuses_a_missing_key(api: Api) -> None:
    with api.client.websocket_connect("/v1/stream") as ws:
        ws.send_json({"type": "auth", "authorization": "Bearer rf_wrong"})
        frame = ws.receive_json()
        assert frame["type"] == "error" and frame["error"]["code"] == "unauthorized"
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
        assert closed.value.code == 4401


def test_certificates_are_issued_served_checked_and_shown(api: Api) -> None:
    headers = api.key()
    task_id = api.client.post(
        "/v1/verify", json=quick_chain(9, certificate=True), headers=headers
    ).json()["task_id"]
    done = api.wait(task_id, headers, timeout=240)
    assert done["status"] == "complete", done
    cert_id = done["certificate_id"]
    assert done["certificate_url"] == f"https://rf.test/verify/{cert_id}"
    cert = api.client.get(f"/v1/certificates/{cert_id}", headers=headers).json()
    assert cert["certificate_id"] == cert_id and (
        cert["verified_steps"],
        cert["total_steps"],
    ) == (3, 3)
    assert cert["verify_url"] == done["certificate_url"]
    check = api.client.post(
        f"/v1/certificates/{cert_id}/verify", headers=headers
    ).json()
    assert check == {"valid": True, "reasons": []}
    proved = [line for line in api.client.get("/metrics").text.splitlines()
              if line.startswith("reasonforge_certificate_prove_seconds_count")]
    assert proved and float(proved[0].split()[-1]) >= 1
    page = api.client.get(f"/verify/{cert_id}")
    assert page.status_code == 200 and page.headers["content-type"].startswith(
        "text/html"
    )
    assert cert_id in page.text and "Checked just now" in page.text
    assert "default-src 'none'" in page.headers["content-security-policy"]
    unknown = "0x" + "0" * 64
    assert (
        api.client.get(f"/v1/certificates/{unknown}", headers=headers).status_code
        == 404
    )
    assert api.client.get(f"/verify/{unknown}").status_code == 404
    assert (
        error_of(
            api.client.get(f"/verify/{unknown}", headers={"Accept": "application/json"})
        )["code"]
        == "not_found"
    )


def test_the_certificate_page_escapes_every_value() -> None:
    from reasonforge.certificate import CheckResult, VerificationCertificate
    from reasonforge.registry import Spec

    benign = VerificationCertificate.model_validate(
        {
            "certificate_id": "0x" + "c" * 64,
            "task_hash": "ab" * 32,
            "domain": "logic",
            "proof_level": "quick",
            "total_steps": 1,
            "verified_steps": 1,
            "overall_verdict": "VERIFIED",
            "assurance": "proven",
            "verdict_digest": "ef" * 32,
            "checkers_digest": "01" * 32,
            "timestamp": 1_767_000_000,
            "validator_count": 1,
            "validator_threshold": 1,
            "stake_threshold": 0,
            "validator_commitment": "0x" + "1" * 64,
            "verdict_commitment": "0x" + "2" * 64,
            "verdict_hash": "cd" * 32,
            "zk_proof": [
                {
                    "proof": "0" * 512,
                    "public_inputs": ["1", "2", "3", "4"],
                    "first_step": 0,
                    "total_steps": 1,
                    "verified_steps": 1,
                }
            ],
            "verification_key": {
                "circuit": "small",
                "params": {
                    "max_steps": 8,
                    "max_validators": 3,
                    "merkle_depth": 4,
                    "open_bits": 2,
                },
                "sha256": "0" * 64,
            },
        }
    )
    # A stored certificate is data from the database: the page must escape whatever it holds.
    hostile = "<script>alert(1)</script>"
    key = benign.verification_key.model_copy(
        update={"circuit": hostile, "sha256": hostile}
    )
    cert = benign.model_copy(
        update={
            "certificate_id": hostile,
            "domain": hostile,
            "overall_verdict": hostile,
            "verdict_hash": hostile,
            "verification_key": key,
            "checker_specs": [Spec(name=hostile, version=hostile)],
            "registry_address": hostile,
        }
    )
    html = certificate_page(cert, CheckResult(valid=False, reasons=[hostile]), None)
    assert "<script>" not in html
    assert html.count("&lt;script&gt;alert(1)&lt;/script&gt;") >= 9
    assert "<script>" not in certificate_page(cert, None, hostile)


def test_forecasts_are_scored_with_the_forecast_rules(api: Api) -> None:
    body = {
        "forecasts": [
            {
                "id": "a",
                "probability": 0.8,
                "outcome": 1,
                "market_price": 0.6,
                "question_id": "q1",
            },
            {
                "id": "b",
                "reply": "Reasoning...\nPROBABILITY: 30%",
                "outcome": 0,
                "market_price": 0.5,
            },
            {"id": "c", "reply": "no number here", "outcome": 1, "market_price": 0.4},
        ],
        "resamples": 200,
    }
    response = api.client.post("/v1/forecasts/score", json=body, headers=api.key())
    assert response.status_code == 200, response.text
    scored = response.json()
    a, b, c = scored["items"]
    assert a["brier"] == pytest.approx(0.04) and b["probability"] == pytest.approx(0.3)
    assert (
        b["brier"] == pytest.approx(0.09)
        and c["probability"] is None
        and c["brier_reward"] == 0.0
    )
    assert scored["n_parsed"] == 2 and scored["mean"]["brier"] == pytest.approx(
        (0.04 + 0.09 + 1.0) / 3
    )
    assert (
        scored["report"]["n_items"] == 3
        and "market_skill" in scored["report"]["all"]["metrics"]
    )
    both = {
        "forecasts": [{"probability": 0.5, "reply": "PROBABILITY: 0.5", "outcome": 1}]
    }
    invalid = api.client.post("/v1/forecasts/score", json=both, headers=api.key())
    assert invalid.status_code == 422 and "exactly one" in error_of(invalid)["message"]


def test_stats_metrics_health_and_docs(api: Api) -> None:
    headers = api.key()
    task_id = api.client.post(
        "/v1/verify", json=quick_chain(10), headers=headers
    ).json()["task_id"]
    api.wait(task_id, headers)
    stats = api.client.get("/v1/stats", headers=headers).json()
    assert stats["jobs"]["complete"] >= 1 and stats["verdicts"]["VERIFIED"] >= 1
    assert stats["steps_verified"] >= 3 and stats["queue"] == "inprocess"
    metrics = api.client.get("/metrics")
    assert metrics.headers["content-type"].startswith("text/plain")
    text = metrics.text
    assert (
        f'reasonforge_jobs{{status="complete"}} {float(stats["jobs"]["complete"])}'
        in text
    )
    assert (
        'reasonforge_http_request_duration_seconds_count{method="POST",route="/v1/verify",status="202"}'
        in text
    )
    assert api.client.get("/healthz").json() == {
        "status": "ok",
        "database": "ok",
        "queue": "inprocess",
        "certificate_keys": "ready",
    }
    paths = api.client.get("/openapi.json").json()["paths"]
    for path in (
        "/v1/verify",
        "/v1/verify/{task_id}",
        "/v1/certificates/{cert_id}",
        "/v1/certificates/{cert_id}/verify",
        "/v1/stats",
        "/v1/forecasts/score",
        "/verify/{cert_id}",
        "/healthz",
        "/metrics",
        "/",
    ):
        assert path in paths
    unknown = api.client.get("/v2/nothing")
    assert unknown.status_code == 404 and error_of(unknown)["code"] == "not_found"


def test_the_landing_page_links_what_a_newcomer_needs(api) -> None:
    page = api.client.get("/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "default-src 'none'" in page.headers["content-security-policy"]
    for href in ("/docs", "/redoc", "/openapi.json", "/healthz", "/metrics"):
        assert f'href="{href}"' in page.text
        assert api.client.get(href).status_code == 200, href
    assert "/verify/{certificate_id}" in page.text and "?wait=30" in page.text
    assert 'href="/dashboard"' in page.text and api.client.get("/dashboard").status_code == 401  # asks for the key
    assert "/verdicts/{task_id}" in page.text and "report.pdf" in page.text
    assert "<td>inprocess</td>" in page.text and "<td>ready</td>" in page.text


def _raw_chain(step_id: str = "1", content: str = '"1 + 1 = 2"', head: str = "") -> str:
    return ('{' + head + '"domain": "mathematics", "proof_level": "quick", "generate_certificate": false, '
            '"reasoning_chain": [{"step_id": ' + step_id + ', "content": ' + content + "}]}")


@pytest.mark.parametrize(
    ("body", "field", "words"),
    [
        (b"[" * 100_000, "body", "nested more than 32 levels"),
        (_raw_chain("9" * 5000).encode(), "reasoning_chain[0].step_id", "5000 digits"),
        (_raw_chain(content='"1 + 1 = 2 \\ud800"').encode(), "reasoning_chain[0].content", "lone surrogate"),
        (b"\xef\xbb\xbf" + _raw_chain().encode(), "body", "byte-order mark"),
        (_raw_chain().encode("utf-16"), "body", "UTF-16"),
        (_raw_chain(content='"caf\xe9 1 + 1 = 2"').encode("latin-1"), "body", "not UTF-8"),
        (_raw_chain(content='"x"').encode().replace(b"x", b"\xed\xa0\x80"), "body", "not UTF-8"),
        (_raw_chain(head='"domain": "logic", ').encode(), "domain", 'repeats the key "domain"'),
        (_raw_chain("NaN").encode(), "reasoning_chain[0].step_id", "NaN"),
        (_raw_chain("true").encode(), "reasoning_chain[0].step_id", "got true"),
        (_raw_chain("1.0").encode(), "reasoning_chain[0].step_id", "got 1.0"),
        (_raw_chain('"1"').encode(), "reasoning_chain[0].step_id", 'got "1"'),
        (_raw_chain("0").encode(), "reasoning_chain[0].step_id", "0 is the Context"),
        (_raw_chain("-2").encode(), "reasoning_chain[0].step_id", "positive"),
        (_raw_chain(content='"\\u200b\\u2060"').encode(), "reasoning_chain[0].content", "invisible"),
        (b'"a string"', "body", "not a string"),
        (b"", "body", "not valid JSON"),
    ],
)
def test_bad_bodies_are_4xx_with_the_clis_message_never_500(
    idle_app, body: bytes, field: str, words: str
) -> None:
    api = idle_app()
    headers = api.key() | {"Content-Type": "application/json"}
    response = api.client.post("/v1/verify", content=body, headers=headers)
    assert response.status_code == 422, response.text
    error = error_of(response)
    assert error["field"] == field and words in error["message"], error


def test_bad_bodies_over_the_request_limit_are_413_even_under_a_larger_body_limit(
    idle_app,
) -> None:
    api = idle_app(max_body_bytes=4 * 1024 * 1024)
    headers = api.key() | {"Content-Type": "application/json"}
    big = _raw_chain(content=json.dumps("1 + 1 = 2 " + "x" * (1024 * 1024))).encode()
    response = api.client.post("/v1/verify", content=big, headers=headers)
    assert response.status_code == 413 and error_of(response)["code"] == "payload_too_large"
    assert "over the limit of 1048576" in error_of(response)["message"]


def test_bad_bodies_control_an_honest_chain_is_still_accepted(idle_app) -> None:
    api = idle_app()
    response = api.client.post("/v1/verify", json=quick_chain(4), headers=api.key())
    assert response.status_code == 202, response.text


def test_bad_bodies_elsewhere_get_the_json_checks_too(idle_app) -> None:
    api = idle_app()
    headers = api.key() | {"Content-Type": "application/json"}
    duplicated = b'{"forecasts": [{"probability": 0.9, "probability": 0.1, "outcome": 1}]}'
    response = api.client.post("/v1/forecasts/score", content=duplicated, headers=headers)
    assert response.status_code == 422 and "repeats the key" in error_of(response)["message"]
    deep = api.client.post("/v1/forecasts/score", content=b"[" * 100_000, headers=headers)
    assert deep.status_code == 422 and error_of(deep)["field"] == "body"


def test_a_translator_the_server_cannot_run_is_refused_at_submission(api: Api) -> None:
    response = api.client.post("/v1/verify", json=quick_chain(1) | {"translator": "model"}, headers=api.key())
    assert response.status_code == 422, response.text
    error = response.json()["error"]
    assert error["field"] == "translator" and "no model endpoint is configured" in error["message"]
    unknown = api.client.post("/v1/verify", json=quick_chain(1) | {"translator": "oracle"}, headers=api.key())
    assert unknown.status_code == 422
    rules = api.client.post("/v1/verify", json=quick_chain(1) | {"translator": "rules"}, headers=api.key())
    assert rules.status_code == 202


@pytest.mark.parametrize(("extra", "field", "fragment"), [
    ({"translator": "rules", "samples": 3}, "samples", "--translator rules has one"),
    ({"samples": 9}, "samples", "less than or equal to 8"),
    ({"agree": 0}, "agree", "greater than or equal to 1"),
    ({"translator": "rules", "translations": [{"step_id": 1, "formal_representation": "claim 1 = 1",
                                               "language": "sympy"}]}, "translator", "brings its own translations"),
])
def test_samples_and_agree_are_request_fields_checked_at_submission(api: Api, extra, field, fragment) -> None:
    response = api.client.post("/v1/verify", json=quick_chain(1) | extra, headers=api.key())
    assert response.status_code == 422, response.text
    error = response.json()["error"]
    assert fragment in error["message"] and field in (error["field"] or ""), error


def test_a_fresh_server_builds_its_keys_at_start_and_says_so(tmp_path: Path) -> None:
    """The first certificate request on a fresh home: the keys are already being built, and the job says why
    it waits; once they are ready the certificate is issued (small circuit, a fresh key folder)."""
    if shutil.which("node") is None:
        pytest.fail("node is not installed: run `make install`", pytrace=False)
    settings = ServiceSettings(home=tmp_path, certificate_circuit="small", rate_limit_per_minute=100_000,
                               workers=1)
    with TestClient(create_app(settings)) as client:
        api = Api(client)
        building = client.get("/healthz").json()["certificate_keys"]
        assert building == "building keys"  # the build takes seconds; the app started it a moment ago
        headers = api.key()
        queued = client.post("/v1/verify", json=quick_chain(2, certificate=True), headers=headers).json()
        assert "waiting for the certificate keys" in queued["status_detail"]
        done = api.wait(queued["task_id"], headers, timeout=600)
        assert done["status"] == "complete" and done["certificate_id"], done
        assert done["status_detail"] is None
        assert client.get("/healthz").json()["certificate_keys"] == "ready"


def test_long_poll_answers_with_the_verdict_in_one_request(api: Api) -> None:
    headers = api.key()
    task_id = api.client.post("/v1/verify", json=quick_chain(5), headers=headers).json()["task_id"]
    done = api.client.get(f"/v1/verify/{task_id}", params={"wait": 60}, headers=headers).json()
    assert done["status"] == "complete" and done["verdict"] == "VERIFIED"
    too_long = api.client.get(f"/v1/verify/{task_id}", params={"wait": 61}, headers=headers)
    assert too_long.status_code == 422 and error_of(too_long)["field"] == "wait"


def test_long_poll_gives_up_at_its_wait_with_the_current_status(idle_app) -> None:
    api = idle_app()
    headers = api.key()
    task_id = api.client.post("/v1/verify", json=quick_chain(2), headers=headers).json()["task_id"]
    assert api.client.get(f"/v1/verify/{task_id}", params={"wait": 0.3}, headers=headers).json()["status"] == "queued"


def test_405_names_every_method_of_the_path_and_auth_comes_before_the_body(api: Api) -> None:
    put = api.client.put("/v1/verify/abc", headers=api.key())
    assert put.status_code == 405 and error_of(put)["code"] == "method_not_allowed"
    allowed = {m.strip() for m in put.headers["allow"].split(",")}
    assert {"GET", "DELETE"} <= allowed and not allowed & {"POST", "PUT"}, allowed
    blank = {**quick_chain(1), "reasoning_chain": [{"step_id": 1, "content": " "}]}
    assert api.client.post("/v1/verify", json=blank).status_code == 401  # not the 422 the body deserves
    assert api.client.post("/v1/verify", json=blank, headers=api.key()).status_code == 422


def test_keys_left_for_the_first_job_are_reported_as_not_built(tmp_path: Path) -> None:
    settings = ServiceSettings(home=tmp_path, certificate_circuit="small", build_keys_at_start=False)
    with TestClient(create_app(settings)) as client:
        assert client.get("/healthz").json()["certificate_keys"] == "not built"


def test_verdict_page_asks_a_browser_for_the_key_and_shows_only_the_owners_task(api: Api) -> None:
    headers = api.key()
    done = api.wait(api.client.post("/v1/verify", json=quick_chain(5, wrong=True), headers=headers).json()["task_id"],
                    headers)
    page = f"/verdicts/{done['task_id']}"
    anonymous = api.client.get(page)
    assert anonymous.status_code == 401 and anonymous.headers["www-authenticate"].startswith("Basic realm=")
    assert anonymous.headers["content-type"].startswith("text/html") and "missing API key" in anonymous.text
    key = headers["Authorization"].removeprefix("Bearer ")
    basic = "Basic " + base64.b64encode(f"anyone:{key}".encode()).decode()
    for auth in (basic, headers["Authorization"]):
        shown = api.client.get(page, headers={"Authorization": auth})
        assert shown.status_code == 200 and 'id="overall">PARTIAL<' in shown.text, shown.text[:300]
        assert "script-src" not in shown.headers["content-security-policy"]  # default-src 'none': no script at all
    stranger = api.client.get(page, headers=api.key())
    assert stranger.status_code == 404 and "no task" in stranger.text
    garbled = api.client.get(page, headers={"Authorization": "Basic !!!"})
    assert garbled.status_code == 401


def test_report_pdf_of_a_finished_task_and_of_one_still_queued(api: Api, idle_app) -> None:
    headers = api.key()
    done = api.wait(api.client.post("/v1/verify", json=quick_chain(6), headers=headers).json()["task_id"], headers)
    pdf = api.client.get(f"/v1/verify/{done['task_id']}/report.pdf?template=eu_ai_act", headers=headers)
    assert pdf.status_code == 200 and pdf.headers["content-type"] == "application/pdf"
    assert pdf.content.startswith(b"%PDF-") and "eu_ai_act.pdf" in pdf.headers["content-disposition"]
    assert api.client.get(f"/v1/verify/{done['task_id']}/report.pdf", headers=api.key()).status_code == 404
    bad = api.client.get(f"/v1/verify/{done['task_id']}/report.pdf?template=gdpr", headers=headers)
    assert bad.status_code == 422 and error_of(bad)["field"] == "template"
    idle = idle_app()
    idle_headers = idle.key()
    queued = idle.client.post("/v1/verify", json=quick_chain(7), headers=idle_headers).json()["task_id"]
    early = idle.client.get(f"/v1/verify/{queued}/report.pdf", headers=idle_headers)
    assert early.status_code == 409 and "no verdict" in error_of(early)["message"]
    waiting = idle.client.get(f"/verdicts/{queued}", headers=idle_headers)
    assert waiting.status_code == 200 and "queued" in waiting.text and waiting.headers["refresh"] == "5"


GRAFANA = Path(__file__).resolve().parents[2] / "deploy" / "grafana" / "reasonforge-service.json"


def test_work_metrics_count_what_the_jobs_did_and_grafana_queries_only_exported_metrics(api: Api) -> None:
    headers = api.key()
    for n, wrong in ((11, True), (12, False)):
        api.wait(api.client.post("/v1/verify", json=quick_chain(n, wrong=wrong), headers=headers).json()["task_id"],
                 headers)
    from prometheus_client.parser import text_string_to_metric_families

    samples = [s for f in text_string_to_metric_families(api.client.get("/metrics").text) for s in f.samples]
    names = {s.name for s in samples}

    def value(name: str, **labels: str) -> float:
        return sum(s.value for s in samples if s.name == name and all(s.labels.get(k) == v for k, v in labels.items()))

    assert value("reasonforge_verifications_total", domain="mathematics", level="quick", verdict="PARTIAL") >= 1
    assert value("reasonforge_verifications_total", verdict="VERIFIED") >= 1
    assert value("reasonforge_checker_duration_seconds_count", checker="sympy-relations") >= 6
    assert value("reasonforge_first_failure_step_total", step="2") >= 1  # quick_chain(wrong=True) breaks step 2
    assert {"reasonforge_sandbox_kills_total", "reasonforge_jobs_failed_total", "reasonforge_jobs"} <= names
    dashboard = json.loads(GRAFANA.read_text())
    queried = {name for panel in dashboard["panels"] for target in panel["targets"]
               for name in re.findall(r"\breasonforge_[a-z0-9_]+", target["expr"])}
    assert len(queried) >= 8 and queried <= names, sorted(queried - names)


def test_dashboard_forecast_leaderboard_rows_and_notes(tmp_path: Path, idle_app) -> None:
    from reasonforge.service.dashboard import ForecastRow, dashboard_page, gather

    undefined = -(1 << 63)
    rows = [ForecastRow.from_ppm("0x" + "1" * 64, "0xB<script>", "0x" + "2" * 64, 10, 210_000, 600_000, -50_000),
            ForecastRow.from_ppm("0x" + "3" * 64, "0xA", "0x" + "2" * 64, 0, undefined, undefined, undefined),
            ForecastRow.from_ppm("0x" + "4" * 64, "0xC", "0x" + "2" * 64, 12, 150_000, 500_000, 100_000)]
    sm = idle_app().client.app.state.rf.jobs.sessionmaker
    page = dashboard_page(gather(sm, forecasts=(rows, "")))
    order = [page.index(name) for name in ("0xC", "0xB&lt;script&gt;", "0xA")]
    assert order == sorted(order) and "<script>" not in page  # best Brier first, nothing scored last
    assert "0.1500" in page and "-0.0500" in page and "–" in page
    unconfigured = idle_app()
    admin = unconfigured.key(scopes=("admin",))
    shown = unconfigured.client.get("/dashboard", headers=admin)
    assert shown.status_code == 200 and "No ForecastRegistry configured" in shown.text
    reader = unconfigured.client.get("/dashboard", headers=unconfigured.key())
    assert reader.status_code == 403 and "lacks the &#x27;admin&#x27; scope" in reader.text
    down = idle_app(forecast_rpc_url="http://127.0.0.1:9", forecast_registry="0x" + "5" * 40)
    note = down.client.get("/dashboard", headers=down.key(scopes=("admin",)))
    assert note.status_code == 200 and "The ForecastRegistry cannot be read now" in note.text


def test_dashboard_reliability_diagram_bins_the_scored_reveals(idle_app) -> None:
    from reasonforge.service.dashboard import dashboard_page, gather
    from reasonforge.service.jobs.tables import ForecastRevealRow

    api = idle_app()
    sm = api.client.app.state.rf.jobs.sessionmaker
    # forecasts of 0.85 (four, three happened) and 0.15 (four, one happened): both bins calibrated
    rows = [(0.85, 1), (0.85, 1), (0.85, 1), (0.85, 0), (0.15, 0), (0.15, 0), (0.15, 0), (0.15, 1)]
    with sm.begin() as session:
        for i, (p, outcome) in enumerate(rows):
            session.add(ForecastRevealRow(forecaster="0xabc", scope="0x" + "1" * 64, item_id=f"q{i}",
                                          probability_ppm=int(p * 1e6), outcome=outcome, created_at=1.0 + i))
    board = gather(sm)
    assert board.reveals == 8 and board.reliability == [(4, 0.15, 0.25), (4, 0.85, 0.75)]
    page = dashboard_page(board)
    assert page.count('class="bin"') == 2 and 'data-p="0.850" data-freq="0.750"' in page


def test_quick_jobs_do_not_wait_behind_code_jobs(tmp_path: Path) -> None:
    """Two code jobs hold the one heavy worker and its queue; the maths jobs sent after them finish first, on the
    quick lane's own job process."""
    settings = ServiceSettings(home=tmp_path, rate_limit_per_minute=100_000, workers=1, quick_workers=1,
                               build_keys_at_start=False)
    with TestClient(create_app(settings)) as client:
        api = Api(client)
        headers = api.key()
        slow = [client.post("/v1/verify", json=sleeping_code_chain(6), headers=headers).json()["task_id"]
                for _ in range(2)]
        quick = [client.post("/v1/verify", json=quick_chain(n), headers=headers).json()["task_id"]
                 for n in range(3, 8)]
        for task_id in quick:
            assert api.wait(task_id, headers)["verdict"] == "VERIFIED"
        statuses = [client.get(f"/v1/verify/{t}", headers=headers).json()["status"] for t in slow]
        assert statuses.count("complete") < 2, statuses  # the second code job cannot have ended before them
        for task_id in slow:
            assert api.wait(task_id, headers)["status"] == "complete"
