"""Live servers: `reasonforge serve` embedded, and scaled out on PostgreSQL + Celery/Redis workers."""

from __future__ import annotations

import json
import signal
import time

import httpx
import pytest
from websockets.sync.client import connect

from servers import ServiceHandle

TERMINAL = {"complete", "failed", "cancelled"}


def quick_chain(n: int, *, wrong: bool = False) -> dict:
    """A closed-arithmetic chain (verifies in milliseconds); `wrong` breaks step 2, on which step 3 depends."""
    return {
        "original_query": f"Let n = {n}. What is n + 1 and 2n?",
        "domain": "mathematics",
        "proof_level": "quick",
        "generate_certificate": False,
        "reasoning_chain": [
            {"step_id": 1, "content": f"Let n = {n}"},
            {"step_id": 2, "content": f"So n + 1 = {n + (2 if wrong else 1)}"},
            {"step_id": 3, "content": f"Then 2 * n = {2 * n}", "dependencies": [2]},
        ],
    }


def request(client: httpx.Client, method: str, url: str, **kwargs) -> httpx.Response:
    """Like a real client: wait out 429s for as long as Retry-After says."""
    while True:
        response = client.request(method, url, **kwargs)
        if response.status_code != 429:
            return response
        time.sleep(float(response.headers["retry-after"]))


def wait_all(
    client: httpx.Client, task_ids: list[str], timeout: float = 180.0
) -> dict[str, dict]:
    done: dict[str, dict] = {}
    deadline = time.monotonic() + timeout
    while len(done) < len(task_ids) and time.monotonic() < deadline:
        for task_id in task_ids:
            if task_id not in done:
                body = request(client, "GET", f"/v1/verify/{task_id}").json()
                if body.get("status") in TERMINAL:
                    done[task_id] = body
        time.sleep(0.3)
    missing = [t for t in task_ids if t not in done]
    assert not missing, f"{len(missing)} tasks unfinished after {timeout} s"
    return done


def test_verifications_complete_on_the_live_server(service: ServiceHandle) -> None:
    with httpx.Client(
        base_url=service.base_url, headers=service.headers, timeout=30
    ) as client:
        wrong = [n % 3 == 0 for n in range(8)]
        bodies = [quick_chain(n, wrong=w) for n, w in enumerate(wrong)]
        submitted = [
            request(
                client,
                "POST",
                "/v1/verify",
                json=body,
                headers={"Idempotency-Key": f"k{i}"},
            )
            for i, body in enumerate(bodies)
        ]
        assert {r.status_code for r in submitted} == {202}
        ids = [r.json()["task_id"] for r in submitted]
        done = wait_all(client, ids)
        assert [done[t]["status"] for t in ids] == ["complete"] * 8
        assert [done[t]["verdict"] for t in ids] == [
            "PARTIAL" if w else "VERIFIED" for w in wrong
        ]
        # Idempotency holds across the configurations (the store decides, not the API process).
        again = request(
            client,
            "POST",
            "/v1/verify",
            json=bodies[0],
            headers={"Idempotency-Key": "k0"},
        )
        assert (
            again.json()["task_id"] == ids[0] and again.json()["status"] == "complete"
        )
        stats = request(client, "GET", "/v1/stats").json()
        assert stats["queue"] == ("celery" if service.scaled else "inprocess")
        assert stats["jobs"]["complete"] >= len(ids)
        assert (
            'reasonforge_jobs{status="complete"}'
            in httpx.get(f"{service.base_url}/metrics").text
        )


def test_stream_over_a_real_websocket(service: ServiceHandle) -> None:
    ws_url = service.base_url.replace("http://", "ws://") + "/v1/stream"
    with connect(ws_url, additional_headers=service.headers, open_timeout=30) as ws:
        assert json.loads(ws.recv(timeout=30))["type"] == "ready"
        task_id = httpx.post(
            f"{service.base_url}/v1/verify",
            json=quick_chain(11),
            headers=service.headers,
            timeout=30,
        ).json()["task_id"]
        ws.send(json.dumps({"type": "subscribe", "task_ids": [task_id]}))
        statuses = []
        while not statuses or statuses[-1]["status"] not in TERMINAL:
            event = json.loads(ws.recv(timeout=60))
            assert event["task_id"] == task_id
            statuses.append(event)
        assert (
            statuses[-1]["status"] == "complete"
            and statuses[-1]["response"]["verdict"] == "VERIFIED"
        )


def test_worker_refuses_to_start_without_the_celery_queue(
    embedded_service: ServiceHandle,
) -> None:
    done = embedded_service.cli("worker", timeout=60)
    assert done.returncode == 2
    assert "REASONFORGE_QUEUE=celery" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize(
    ("option", "words"),
    [
        ("--pool=gevent", "use solo or threads"),
        ("--pool=prefork", "daemonic processes"),
    ],
)
def test_worker_rejects_unsupported_pools(
    embedded_service: ServiceHandle, option: str, words: str
) -> None:
    done = embedded_service.cli("worker", option, timeout=60)
    assert (
        done.returncode == 2 and words in done.stderr and "Traceback" not in done.stderr
    )


def test_a_store_outage_is_503_not_a_traceback(tmp_path) -> None:
    """PostgreSQL stops under a running API: clear 503s with Retry-After, never a traceback."""
    from fastapi.testclient import TestClient

    from reasonforge.service import create_app
    from reasonforge.service.accounts import create_key
    from reasonforge.service.settings import ServiceSettings

    from servers import running_postgres

    with running_postgres() as pg:
        settings = ServiceSettings(home=tmp_path, database_url=pg.create_database())
        client = TestClient(create_app(settings))  # no lifespan: no workers needed here
        with client.app.state.rf.jobs.sessionmaker() as session:
            key, _ = create_key(session, "outage")
        headers = {"Authorization": f"Bearer {key}"}
        assert client.get("/v1/stats", headers=headers).status_code == 200
        pg.process.send_signal(signal.SIGINT)  # fast shutdown: clients are cut off
        pg.process.wait(30)
        down = client.get("/v1/stats", headers=headers)
        assert down.status_code == 503 and down.headers["retry-after"] == "5"
        assert down.json()["error"]["code"] == "store_unavailable"
        assert client.get("/healthz").status_code == 503
