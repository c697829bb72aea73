"""200 jobs on PostgreSQL + Celery/Redis (threads pools, two jobs per worker); a worker SIGKILLed
mid-job twice; every job completes exactly once with its verdict, nothing lost or duplicated."""

from __future__ import annotations

import signal
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import httpx
from sqlalchemy import func, select

from reasonforge.service.db import make_engine, make_sessionmaker
from reasonforge.service.jobs.tables import JobEventRow, JobRow

JOBS = 200
TERMINAL = {"complete", "failed", "cancelled"}


def chain(n: int) -> dict:
    """Every tenth chain is the Pythagoras example (symbolic steps, slow enough to be caught mid-run)."""
    if n % 10 == 0:
        query = "Find the hypotenuse of a right triangle with legs 3 and 4"
        steps = [
            "Let x = 3 and y = 4",
            "By Pythagorean theorem, x² + y² = z²",
            "So z² = 9 + 16 = 25",
            "Therefore z = 5",
        ]
    else:
        query = f"Let n = {n}. What are n + 1 and 2n?"
        steps = [f"Let n = {n}", f"So n + 1 = {n + 1}", f"Then 2 * n = {2 * n}"]
    return {
        "original_query": query,
        "domain": "mathematics",
        "proof_level": "quick",
        "generate_certificate": False,
        "reasoning_chain": [
            {"step_id": i + 1, "content": text} for i, text in enumerate(steps)
        ],
    }


def wait_for_completions(sm, count: int, timeout: float = 180.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with sm() as session:
            if (
                session.scalar(select(func.count()).where(JobRow.status == "complete"))
                >= count
            ):
                return
        time.sleep(0.1)
    raise AssertionError(f"fewer than {count} jobs completed within {timeout} s")


def kill_a_worker_mid_job(handle, sm, timeout: float = 120.0) -> tuple[int, str]:
    """SIGKILL (the whole process group of) a worker holding a running job; returns (pid, task id).

    A job seen running may finish in the instant before the signal lands; such a kill caught no job,
    so a replacement worker is started and another one is tried until a kill leaves a job unfinished.
    """
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with sm() as session:
            running = session.execute(
                select(JobRow.task_id, JobRow.lease_owner).where(
                    JobRow.status.in_(("translating", "verifying"))
                )
            ).all()
        held: dict[int, list[str]] = {}
        for task_id, owner in running:
            if owner:
                held.setdefault(int(owner.split(":")[1]), []).append(task_id)
        for index, proc in enumerate(handle.workers):
            if proc.pid not in held or proc.poll() is not None:
                continue
            handle.kill_worker(index, signal.SIGKILL)
            # The worker is dead, so the store now shows for good what it finished before dying.
            with sm() as session:
                unfinished = session.scalars(
                    select(JobRow.task_id).where(
                        JobRow.task_id.in_(held[proc.pid]), JobRow.status.not_in(TERMINAL)
                    )
                ).all()
            if unfinished:
                return proc.pid, unfinished[0]
            handle.start_worker()
            break
        time.sleep(0.005)
    raise AssertionError(f"no worker was caught holding a job within {timeout} s")


def test_every_job_completes_exactly_once_through_two_worker_kills(
    service_factory,
) -> None:
    handle = service_factory(
        scaled=True,
        workers=2,
        key_args=("--tier", "enterprise"),
        worker_args=("--pool=threads", "--concurrency=2"),
        env={
            "REASONFORGE_LEASE_SECONDS": "3",
            "REASONFORGE_SWEEP_INTERVAL_S": "0.5",
            "REASONFORGE_RESEND_AFTER_S": "20",
            "REASONFORGE_MAX_ATTEMPTS": "5",
            "REASONFORGE_RATE_LIMIT_PER_MINUTE": "1000000",
        },
    )
    engine = make_engine(handle.env["REASONFORGE_DATABASE_URL"])
    sm = make_sessionmaker(engine)
    try:
        with httpx.Client(
            base_url=handle.base_url, headers=handle.headers, timeout=60
        ) as client:

            def submit(n: int) -> str:
                response = client.post(
                    "/v1/verify",
                    json=chain(n),
                    headers={"Idempotency-Key": f"durable-{n}"},
                )
                assert response.status_code == 202, response.text
                return response.json()["task_id"]

            # Clients keep submitting while the workers are killed: jobs arrive before, during and after.
            with ThreadPoolExecutor(max_workers=8) as clients:
                submitted = clients.map(submit, range(JOBS))
                killed: dict[int, str] = {}
                for threshold in (JOBS // 5, JOBS // 2):
                    wait_for_completions(sm, threshold)
                    pid, task_id = kill_a_worker_mid_job(handle, sm)
                    killed[pid] = task_id
                    handle.start_worker()
                ids = list(submitted)
            assert len(killed) == 2 and all(
                proc.poll() is not None for proc in handle.workers if proc.pid in killed
            )

            pending = set(ids)
            deadline = time.monotonic() + 240
            while pending and time.monotonic() < deadline:
                with sm() as session:
                    finished = session.scalars(
                        select(JobRow.task_id).where(
                            JobRow.task_id.in_(pending), JobRow.status.in_(TERMINAL)
                        )
                    ).all()
                pending -= set(finished)
                time.sleep(0.5)
            assert not pending, (
                f"{len(pending)} jobs never finished; worker log:\n{handle.log('worker-2')}"
            )

            # The API agrees with the store for every task.
            responses = [client.get(f"/v1/verify/{task_id}").json() for task_id in ids]
        assert {r["status"] for r in responses} == {"complete"}
        assert Counter(r["verdict"] for r in responses) == Counter({"VERIFIED": JOBS})

        with sm() as session:
            rows = session.scalars(select(JobRow)).all()
            events = session.execute(
                select(JobEventRow.task_id, JobEventRow.status, JobEventRow.worker_id)
            ).all()
        # Nothing lost, nothing duplicated: exactly the submitted tasks, each with its verdict.
        assert len(rows) == JOBS and {r.task_id for r in rows} == set(ids)
        assert all(r.status == "complete" and r.verdict_json for r in rows)
        assert all(r.steps_verified == r.steps_total for r in rows)
        # Exactly once: one completion event per task.
        done = Counter(task_id for task_id, status, _ in events if status == "complete")
        assert set(done) == set(ids) and set(done.values()) == {1}
        finisher = {t: worker for t, status, worker in events if status == "complete"}
        pid_of = {worker: int(worker.split(":")[1]) for worker in finisher.values()}
        assert len(set(pid_of.values())) >= 3, (
            "original and replacement workers took jobs"
        )
        by_id = {r.task_id: r for r in rows}
        for pid, task_id in killed.items():
            # The killed attempt's lease expired and a living worker finished the job.
            assert by_id[task_id].attempts >= 2, by_id[task_id].attempts
            claims = [s for t, s, _ in events if t == task_id and s == "translating"]
            assert len(claims) == by_id[task_id].attempts
            assert pid_of[finisher[task_id]] != pid
    finally:
        engine.dispose()
