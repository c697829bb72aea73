"""SIGTERM mid-job: the running job finishes within the stop grace, or is handed back to the queue at once and
completes after the restart; either way exactly once. Long-polls answer when the stop begins."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import httpx
from chains import sleeping_code_chain
from sqlalchemy import func, select

from reasonforge.service.db import make_engine, make_sessionmaker
from reasonforge.service.jobs.tables import JobEventRow, JobRow

from servers import running_service

EXIT_GUARD_S = 180  # generous: only a server that never stops gets near it


def _store(home: Path):
    return make_sessionmaker(make_engine(f"sqlite:///{home / 'service.db'}"))


def _wait_running(client: httpx.Client, task_id: str) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        status = client.get(f"/v1/verify/{task_id}").json()["status"]
        if status in ("translating", "verifying"):
            return
        assert status == "queued", status
        time.sleep(0.05)
    raise AssertionError(f"task {task_id} never started")


def _stop(server, *, group: bool) -> int:
    if group:  # what `systemctl stop` does by default: the whole control group gets the signal
        os.killpg(server.pid, signal.SIGTERM)
    else:  # what `kill PID` or a container stop does
        server.send_signal(signal.SIGTERM)
    return server.wait(EXIT_GUARD_S)


def _completions(sm, task_id: str) -> int:
    with sm() as session:
        return session.scalar(
            select(func.count()).where(JobEventRow.task_id == task_id, JobEventRow.status == "complete")
        )


def test_sigterm_lets_the_running_job_finish_and_answers_long_polls(tmp_path: Path) -> None:
    env = {"REASONFORGE_STOP_GRACE_S": "120", "REASONFORGE_WORKERS": "1"}
    with running_service(tmp_path, env=env) as svc, httpx.Client(
        base_url=svc.base_url, headers=svc.headers, timeout=120
    ) as client:
        task_id = client.post("/v1/verify", json=sleeping_code_chain(3)).json()["task_id"]
        _wait_running(client, task_id)
        polled: list[dict] = []
        poller = threading.Thread(
            target=lambda: polled.append(client.get(f"/v1/verify/{task_id}", params={"wait": 60}).json())
        )
        poller.start()
        time.sleep(0.3)  # the long-poll is waiting
        code = _stop(svc.server, group=True)
        poller.join(EXIT_GUARD_S)
    assert code in (0, -signal.SIGTERM), code
    # The long-poll was answered when the stop began, with the job still running, not held to its end.
    assert polled and polled[0]["status"] in ("translating", "verifying")
    sm = _store(tmp_path)
    with sm() as session:
        row = session.get(JobRow, task_id)
    assert row.status == "complete" and row.attempts == 1 and row.lease_token is None
    assert row.verdict_json is not None
    assert _completions(sm, task_id) == 1


def test_sigterm_past_the_grace_hands_the_job_back_and_it_completes_once_after_restart(tmp_path: Path) -> None:
    env = {"REASONFORGE_STOP_GRACE_S": "0.5", "REASONFORGE_WORKERS": "1"}
    with running_service(tmp_path, env=env) as svc, httpx.Client(
        base_url=svc.base_url, headers=svc.headers, timeout=120
    ) as client:
        task_id = client.post("/v1/verify", json=sleeping_code_chain(8)).json()["task_id"]
        _wait_running(client, task_id)
        code = _stop(svc.server, group=False)
    assert code in (0, -signal.SIGTERM), code
    sm = _store(tmp_path)
    with sm() as session:
        row = session.get(JobRow, task_id)
        trail = session.execute(
            select(JobEventRow.status, JobEventRow.message).where(JobEventRow.task_id == task_id)
            .order_by(JobEventRow.id)
        ).all()
    # Requeued at once (no lease left to expire), the interrupted attempt not counted against the job.
    assert row.status == "queued" and row.lease_token is None and row.attempts == 0
    assert trail[-1].status == "queued" and "handed back" in trail[-1].message
    assert _completions(sm, task_id) == 0

    with running_service(tmp_path, env=env) as again, httpx.Client(
        base_url=again.base_url, headers=again.headers, timeout=120
    ):
        deadline = time.monotonic() + EXIT_GUARD_S
        while time.monotonic() < deadline:
            with sm() as session:
                if session.get(JobRow, task_id).status == "complete":
                    break
            time.sleep(0.2)
    with sm() as session:
        row = session.get(JobRow, task_id)
    assert row.status == "complete" and row.attempts == 1 and row.verdict_json is not None
    assert _completions(sm, task_id) == 1
