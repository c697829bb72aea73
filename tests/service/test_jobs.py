"""Job store and runner: exclusive claims, leases, retries, exactly-once completion, cleanup."""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
from pathlib import Path

import pytest
from chains import sleeping_code_chain
from sqlalchemy import select, update

from reasonforge.service.jobs import (
    Lane,
    lane_of,
    leases,
    make_context,
    run_job,
    store,
    sweep_once,
    to_response,
    webhook_state,
)
from reasonforge.service.jobs.executor import InlineExecutor, ProcessExecutor
from reasonforge.service.jobs.runner import run_claimed
from reasonforge.service.jobs.tables import JobEventRow, JobRow
from reasonforge.service.settings import ServiceSettings
from reasonforge.types import JobStatus, Overall, ProofLevel, Prover, TranslatorMode, VerifyRequest

from hostile_endpoint import HostileEndpoint, Script


def quick_chain(n: int, *, wrong: bool = False, steps: int = 3) -> VerifyRequest:
    """A closed-arithmetic chain (verifies in milliseconds); `wrong` breaks its second step."""
    lines = [f"Let n = {n}", f"So n + 1 = {n + (2 if wrong else 1)}"]
    lines += [f"Then {k} * n = {k * n}" for k in range(2, steps)]
    return VerifyRequest.model_validate(
        {
            "original_query": f"Let n = {n}. What is n + 1?",
            "domain": "mathematics",
            "proof_level": "quick",
            "generate_certificate": False,
            "reasoning_chain": [
                {"step_id": i + 1, "content": text} for i, text in enumerate(lines)
            ],
        }
    )


@pytest.fixture
def ctx(tmp_path: Path):
    context = make_context(
        ServiceSettings(home=tmp_path, lease_seconds=30, max_attempts=2)
    )
    yield context
    context.close()


def submit(
    ctx, request: VerifyRequest, owner: str = "owner1", callback: str | None = None, lane: Lane = Lane.HEAVY
) -> str:
    if callback:
        request = request.model_copy(update={"callback_url": callback})
    task_id = store.new_task_id()
    with ctx.sessionmaker() as session:
        store.insert_job(
            session,
            task_id=task_id,
            owner_key_id=owner,
            request=request,
            idempotency_key=None,
            cost_credits=0.5,
            lane=lane,
        )
        session.commit()
    return task_id


def events(ctx, task_id: str) -> list[str]:
    with ctx.sessionmaker() as session:
        rows = session.scalars(
            select(JobEventRow)
            .where(JobEventRow.task_id == task_id)
            .order_by(JobEventRow.id)
        )
        return [row.status for row in rows]


def job(ctx, task_id: str) -> JobRow:
    with ctx.sessionmaker() as session:
        return session.get(JobRow, task_id)


def expire_lease(ctx, task_id: str) -> None:
    """What the clock does to a dead worker's lease, without waiting for it."""
    with ctx.sessionmaker.begin() as session:
        session.execute(
            update(JobRow)
            .where(JobRow.task_id == task_id)
            .values(lease_expires_at=time.time() - 1)
        )


def no_webhook(task_id: str) -> None:
    raise AssertionError(f"no webhook expected for {task_id}")


def test_a_job_runs_through_every_status_and_completes_once(ctx) -> None:
    task_id = submit(ctx, quick_chain(3))
    status = run_job(
        ctx,
        task_id,
        executor=InlineExecutor(ctx.settings, ctx.sessionmaker),
        dispatch_webhook=no_webhook,
    )
    assert status is JobStatus.COMPLETE
    assert events(ctx, task_id) == ["queued", "translating", "verifying", "complete"]
    row = job(ctx, task_id)
    response = to_response(row, "http://rf.test")
    assert (response.verdict, response.steps_verified, response.steps_total) == (
        Overall.VERIFIED,
        3,
        3,
    )
    assert response.failure_points == [] and response.cost_credits == 0.5
    assert row.lease_token is None and row.attempts == 1
    # A second delivery of the same queue message finds nothing to claim.
    assert (
        run_job(
            ctx,
            task_id,
            executor=InlineExecutor(ctx.settings, ctx.sessionmaker),
            dispatch_webhook=no_webhook,
        )
        is None
    )
    assert events(ctx, task_id).count("complete") == 1


def test_failure_points_carry_cascade_and_fix(ctx) -> None:
    request = quick_chain(4, wrong=True, steps=4)
    # Step 3 depends on step 2 (the wrong one): it is step 2's cascade, not a failure point of its own;
    # step 4 depends on step 1 only and stands.
    deps = {3: [2], 4: [1]}
    chain = [
        s.model_copy(update={"dependencies": deps.get(s.step_id, s.dependencies)})
        for s in request.reasoning_chain
    ]
    task_id = submit(ctx, request.model_copy(update={"reasoning_chain": chain}))
    run_job(
        ctx,
        task_id,
        executor=InlineExecutor(ctx.settings, ctx.sessionmaker),
        dispatch_webhook=no_webhook,
    )
    response = to_response(job(ctx, task_id), "http://rf.test")
    assert (response.verdict, response.steps_verified) == (Overall.PARTIAL, 2)
    [failure] = response.failure_points
    assert failure.step_id == 2 and failure.original_content == "So n + 1 = 6"
    assert "false" in failure.error and failure.suggested_fix
    assert failure.cascade_impact == [3]


def test_claims_are_exclusive_under_contention(ctx) -> None:
    task_id = submit(ctx, quick_chain(1))
    results: list[leases.Claim | None] = []
    barrier = threading.Barrier(6)

    def grab() -> None:
        barrier.wait()
        results.append(
            leases.claim(ctx.sessionmaker, task_id, lease_s=30, max_attempts=2)
        )

    threads = [threading.Thread(target=grab) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sum(r is not None for r in results) == 1
    assert events(ctx, task_id) == ["queued", "translating"]


def _claim_next_drains_oldest_first_once_each(ctx) -> None:
    ids = [submit(ctx, quick_chain(100 + n)) for n in range(24)]
    with ctx.sessionmaker.begin() as session:  # the oldest by creation, whatever the insertion order
        for n, task_id in enumerate(ids):
            session.execute(update(JobRow).where(JobRow.task_id == task_id).values(created_at=1000.0 + n))
    taken: dict[str, list[str]] = {}
    barrier = threading.Barrier(6)

    def drain(name: str) -> None:
        barrier.wait()
        mine = taken.setdefault(name, [])
        while (claim := leases.claim_next(ctx.sessionmaker, lease_s=30, max_attempts=2, owner=name)) is not None:
            mine.append(claim.task_id)

    threads = [threading.Thread(target=drain, args=(f"w{i}",)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    claimed = [task_id for mine in taken.values() for task_id in mine]
    assert sorted(claimed) == sorted(ids)  # each exactly once
    for mine in taken.values():  # each worker saw the queue drain oldest first
        assert mine == sorted(mine, key=ids.index)
    assert all(events(ctx, task_id) == ["queued", "translating"] for task_id in ids)
    # Out of attempts: a queued job is no longer claimable.
    spent = submit(ctx, quick_chain(200))
    with ctx.sessionmaker.begin() as session:
        session.execute(update(JobRow).where(JobRow.task_id == spent).values(attempts=2))
    assert leases.claim_next(ctx.sessionmaker, lease_s=30, max_attempts=2) is None


def test_claim_next_takes_the_oldest_job_and_no_job_twice(ctx) -> None:
    _claim_next_drains_oldest_first_once_each(ctx)


def test_claim_next_takes_the_oldest_job_and_no_job_twice_on_postgresql(tmp_path: Path, fresh_postgres_url) -> None:
    # PostgreSQL runs the claims concurrently: the pick skips rows another claim holds instead of colliding.
    context = make_context(
        ServiceSettings(home=tmp_path, database_url=fresh_postgres_url, lease_seconds=30, max_attempts=2)
    )
    try:
        _claim_next_drains_oldest_first_once_each(context)
    finally:
        context.close()


def test_a_late_worker_cannot_overwrite_the_worker_that_took_over(ctx) -> None:
    from reasonforge.pipeline.run import verify_chain

    task_id = submit(ctx, quick_chain(5))
    stale = leases.claim(ctx.sessionmaker, task_id, lease_s=30, max_attempts=3)
    expire_lease(ctx, task_id)
    assert leases.reclaim_expired(ctx.sessionmaker, max_attempts=3, lease_s=30) == [
        task_id
    ]
    assert (
        run_job(
            ctx,
            task_id,
            executor=InlineExecutor(ctx.settings, ctx.sessionmaker),
            dispatch_webhook=no_webhook,
        )
        is JobStatus.COMPLETE
    )
    winner = job(ctx, task_id).verdict_json
    # The first worker wakes up and tries to record a (different) result with its old lease.
    late = verify_chain(
        quick_chain(5, wrong=True).model_copy(update={"task_id": task_id})
    )
    assert leases.complete(ctx.sessionmaker, stale, late, None) is False
    assert leases.fail(ctx.sessionmaker, stale, "late") is False
    assert (
        leases.advance(ctx.sessionmaker, stale, JobStatus.VERIFYING, lease_s=30)
        is False
    )
    row = job(ctx, task_id)
    assert row.verdict_json == winner and row.status == "complete" and row.attempts == 2
    assert events(ctx, task_id) == [
        "queued",
        "translating",
        "queued",
        "translating",
        "verifying",
        "complete",
    ]


def test_expired_leases_are_retried_then_failed_with_a_clear_error(ctx) -> None:
    task_id = submit(ctx, quick_chain(2))
    for attempt in (1, 2):
        claim = leases.claim(ctx.sessionmaker, task_id, lease_s=30, max_attempts=2)
        assert claim is not None and claim.attempt == attempt
        expire_lease(ctx, task_id)
        leases.reclaim_expired(ctx.sessionmaker, max_attempts=2, lease_s=30)
    row = job(ctx, task_id)
    assert row.status == "failed"
    assert (
        "no worker finished this job in 2 attempts" in row.error
        and "lease" in row.error
    )
    assert leases.claim(ctx.sessionmaker, task_id, lease_s=30, max_attempts=2) is None
    response = to_response(row, "http://rf.test")
    assert response.status is JobStatus.FAILED
    assert (
        response.failure_points[-1].step_id == 0
        and "giving up" in response.failure_points[-1].error
    )


def test_a_live_worker_keeps_its_lease_by_heartbeat(tmp_path: Path) -> None:
    # 1.5 s leases renewed every third of that: two renewals can stall on a loaded disk and it holds.
    context = make_context(
        ServiceSettings(home=tmp_path, lease_seconds=1.5, max_attempts=1)
    )
    try:
        task_id = submit(context, quick_chain(6))
        claim = leases.claim(context.sessionmaker, task_id, lease_s=1.5, max_attempts=1)

        class SlowExecutor(InlineExecutor):
            def execute(self, claim):  # the job outlives its lease several times over
                time.sleep(4.5)
                assert (
                    leases.reclaim_expired(
                        context.sessionmaker, max_attempts=1, lease_s=1.5
                    )
                    == []
                )
                return super().execute(claim)

        executor = SlowExecutor(context.settings, context.sessionmaker)
        assert (
            run_claimed(context, claim, executor=executor, dispatch_webhook=no_webhook)
            is JobStatus.COMPLETE
        )
    finally:
        context.close()


def test_permanent_errors_fail_at_once_and_transient_ones_retry(ctx) -> None:
    # Formal mathematics on Lean 4 without translations: no offline translator exists, retrying cannot help.
    request = quick_chain(1).model_copy(
        update={"proof_level": ProofLevel.FORMAL, "prover": Prover.LEAN4}
    )
    task_id = submit(ctx, request)
    assert (
        run_job(
            ctx,
            task_id,
            executor=InlineExecutor(ctx.settings, ctx.sessionmaker),
            dispatch_webhook=no_webhook,
        )
        is JobStatus.FAILED
    )
    row = job(ctx, task_id)
    assert row.attempts == 1 and "Lean 4" in row.error

    other = submit(ctx, quick_chain(2))
    for expected in (JobStatus.QUEUED, JobStatus.FAILED):
        claim = leases.claim(ctx.sessionmaker, other, lease_s=30, max_attempts=2)
        assert (
            leases.release(ctx.sessionmaker, claim, "disk full", max_attempts=2)
            is expected
        )
    assert job(ctx, other).error == "gave up after 2 attempts; last error: disk full"


def test_cancel_stops_queued_and_discards_running_results(ctx) -> None:
    queued = submit(ctx, quick_chain(1))
    assert store.cancel(ctx.sessionmaker, queued, "owner1") is True
    assert leases.claim(ctx.sessionmaker, queued, lease_s=30, max_attempts=2) is None
    assert store.cancel(ctx.sessionmaker, queued, "owner1") is False  # already final

    running = submit(ctx, quick_chain(2))
    claim = leases.claim(ctx.sessionmaker, running, lease_s=30, max_attempts=2)
    assert store.cancel(ctx.sessionmaker, running, "someone-else") is False
    assert store.cancel(ctx.sessionmaker, running, "owner1") is True
    assert (
        run_claimed(
            ctx,
            claim,
            executor=InlineExecutor(ctx.settings, ctx.sessionmaker),
            dispatch_webhook=no_webhook,
        )
        is None
    )
    row = job(ctx, running)
    assert row.status == "cancelled" and row.verdict_json is None


def test_cleanup_removes_only_old_finished_jobs(ctx) -> None:
    old, recent, pending = (
        submit(ctx, quick_chain(1)),
        submit(ctx, quick_chain(2)),
        submit(ctx, quick_chain(3)),
    )
    for task_id in (old, recent):
        run_job(
            ctx,
            task_id,
            executor=InlineExecutor(ctx.settings, ctx.sessionmaker),
            dispatch_webhook=no_webhook,
        )
    with ctx.sessionmaker.begin() as session:
        session.execute(
            update(JobRow)
            .where(JobRow.task_id == old)
            .values(updated_at=time.time() - 90_000)
        )
        session.execute(
            update(JobRow)
            .where(JobRow.task_id == pending)
            .values(updated_at=time.time() - 90_000)
        )
    assert store.cleanup(ctx.sessionmaker, retention_s=86_400) == 1
    assert job(ctx, old) is None and events(ctx, old) == []
    assert (
        job(ctx, recent).status == "complete" and job(ctx, pending).status == "queued"
    )


def test_sweep_resends_lost_messages_and_requeues_expired_leases(ctx) -> None:
    lost, dead = submit(ctx, quick_chain(1)), submit(ctx, quick_chain(2))
    leases.claim(ctx.sessionmaker, dead, lease_s=30, max_attempts=2)
    expire_lease(ctx, dead)
    with ctx.sessionmaker.begin() as session:
        session.execute(
            update(JobRow)
            .where(JobRow.task_id == lost)
            .values(enqueued_at=time.time() - 3600)
        )
    sent: list[str] = []
    report = sweep_once(ctx, sent.append, no_webhook)
    assert report.requeued == [dead] and report.resent == [lost]
    assert sorted(sent) == sorted([dead, lost])
    # Stamped when re-sent: the next sweep does not send the same jobs again.
    assert sweep_once(ctx, sent.append, no_webhook).resent == []


def test_webhooks_are_handed_out_once_per_lease(ctx) -> None:
    task_id = submit(ctx, quick_chain(1), callback="https://hooks.example/rf")
    dispatched: list[str] = []
    run_job(
        ctx,
        task_id,
        executor=InlineExecutor(ctx.settings, ctx.sessionmaker),
        dispatch_webhook=dispatched.append,
    )
    assert dispatched == [task_id] and job(ctx, task_id).webhook_pending is True
    assert (
        webhook_state.claim_webhook(ctx.sessionmaker, task_id, lease_s=60) is not None
    )
    assert (
        webhook_state.claim_webhook(ctx.sessionmaker, task_id, lease_s=60) is None
    )  # held by the first sender
    webhook_state.finish_webhook(ctx.sessionmaker, task_id)
    assert job(ctx, task_id).webhook_pending is False
    assert webhook_state.due_webhooks(ctx.sessionmaker, grace_s=0) == []


def test_a_stalled_model_endpoint_does_not_keep_job_processes_from_rules_jobs(ctx, monkeypatch) -> None:
    # Job processes inherit the model environment; their warm-up must not call the endpoint (nor die when it stalls).
    with HostileEndpoint(Script(body=b'{"choices": []}', trickle_s=0.5, endless=True)) as stalled:
        monkeypatch.setenv("REASONFORGE_MODEL_BASE_URL", stalled.url + "/v1")
        monkeypatch.setenv("REASONFORGE_MODEL", "stalled")
        monkeypatch.setenv("REASONFORGE_MODEL_TIMEOUT_S", "1")
        executor = ProcessExecutor(ctx.settings, ctx.sessionmaker, 1)
        try:
            executor.warm()
            task_id = submit(ctx, quick_chain(5).model_copy(update={"translator": TranslatorMode.RULES}))
            status = run_job(ctx, task_id, executor=executor, dispatch_webhook=no_webhook)
            assert status is JobStatus.COMPLETE and job(ctx, task_id).attempts == 1, job(ctx, task_id).error
            assert stalled.requests == []
        finally:
            executor.shutdown()


def test_an_ensemble_job_asks_the_model_what_verify_chain_asks_it(ctx, monkeypatch) -> None:
    # The job wraps the model to mark the `verifying` phase; the wrapper must still be the model: its question
    # formalisations are asked for (a word problem), and the step the rules proved is not sent to it.
    from reasonforge.translate.question import PROBLEM_SYSTEM, QUESTION_SYSTEM

    from llm_replay import CHAT, ReplayServer, openai_reply

    story = VerifyRequest.model_validate({
        "original_query": "Tom has 3 apples and buys 2 more. How many apples does Tom have now?",
        "domain": "mathematics", "generate_certificate": False, "translator": "ensemble",
        "reasoning_chain": [{"step_id": 1, "content": "3 + 2 = 5"}]})
    with ReplayServer() as server:
        for _ in range(6):  # three programs and three problem models of the question
            server.queue(CHAT, openai_reply("```python\nanswer = 3 + 2\n```"))
        monkeypatch.setenv("REASONFORGE_MODEL_BASE_URL", server.url + "/v1")
        monkeypatch.setenv("REASONFORGE_MODEL", "gpt-4o")
        task_id = submit(ctx, story)
        status = run_job(ctx, task_id, executor=InlineExecutor(ctx.settings, ctx.sessionmaker),
                         dispatch_webhook=no_webhook)
        systems = [p["messages"][0]["content"] for p in server.posted(CHAT)]
    assert status is JobStatus.COMPLETE, job(ctx, task_id).error
    assert systems.count(QUESTION_SYSTEM) == 3 and systems.count(PROBLEM_SYSTEM) == 3 and len(systems) == 6


def test_jobs_run_in_child_processes_and_a_dying_child_is_one_attempt(ctx) -> None:
    executor = ProcessExecutor(ctx.settings, ctx.sessionmaker, 1)
    try:
        task_id = submit(ctx, quick_chain(7))
        assert (
            run_job(ctx, task_id, executor=executor, dispatch_webhook=no_webhook)
            is JobStatus.COMPLETE
        )
        assert job(ctx, task_id).steps_verified == 3
        # The child writes nothing; the parent records the phase with the completion, in order and dated.
        with ctx.sessionmaker() as session:
            trail = session.execute(
                select(JobEventRow.status, JobEventRow.at).where(JobEventRow.task_id == task_id).order_by(JobEventRow.id)
            ).all()
        assert [status for status, _ in trail] == ["queued", "translating", "verifying", "complete"]
        assert [at for _, at in trail] == sorted(at for _, at in trail)

        # Kill the child while it verifies a long chain: the job goes back to the queue with the reason. Its
        # doctest sleeps in the sandbox, so `verifying` (written once verification outlasts the executor's grace)
        # is seen long before the end; a loaded machine can still delay the killer, and that try caught nothing.
        for attempt in range(5):
            doomed = submit(ctx, VerifyRequest.model_validate(sleeping_code_chain(1.5 + attempt)))
            claim = leases.claim(ctx.sessionmaker, doomed, lease_s=30, max_attempts=2)
            killer = threading.Thread(
                target=_kill_children_when_verifying, args=(ctx, doomed)
            )
            killer.start()
            status = run_claimed(ctx, claim, executor=executor, dispatch_webhook=no_webhook)
            killer.join()
            if status is not JobStatus.COMPLETE:
                break
        row = job(ctx, doomed)
        assert status is JobStatus.QUEUED and row.status == "queued"
        assert "the process running the job died" in row.error
        # The pool was replaced: the retry runs to completion.
        assert (
            run_job(ctx, doomed, executor=executor, dispatch_webhook=no_webhook)
            is JobStatus.COMPLETE
        )
    finally:
        executor.shutdown()


def test_a_stop_signal_sent_while_a_job_process_starts_does_not_kill_it(ctx) -> None:
    # systemctl stop signals the whole process group; a job process still importing (seconds on a loaded machine)
    # with a claim already sent has no handler yet. It must hold the signal until its handler is in place, then
    # ignore it like any other, and run the job once.
    executor = ProcessExecutor(ctx.settings, ctx.sessionmaker, 1)
    task_id = submit(ctx, quick_chain(11))
    outcome: list = []
    runner = threading.Thread(
        target=lambda: outcome.append(run_job(ctx, task_id, executor=executor, dispatch_webhook=no_webhook))
    )
    try:
        runner.start()  # the executor was not warmed: the job starts its process
        deadline = time.monotonic() + 60
        children: list = []
        while not children and time.monotonic() < deadline:
            children = [c for c in multiprocessing.active_children() if c.name == "reasonforge-job"]
        assert children, "no job process started"
        for sig in (signal.SIGTERM, signal.SIGINT):
            os.kill(children[0].pid, sig)
        runner.join(120)
        assert outcome == [JobStatus.COMPLETE] and job(ctx, task_id).attempts == 1, job(ctx, task_id).error
    finally:
        runner.join(120)
        executor.shutdown()


def _kill_children_when_verifying(ctx, task_id: str) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and "verifying" not in events(ctx, task_id):
        time.sleep(0.01)
    for child in multiprocessing.active_children():
        os.kill(child.pid, signal.SIGKILL)


# ---- lanes ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("changes", "translator", "lane"), [
    ({}, TranslatorMode.RULES, Lane.QUICK),
    ({"proof_level": ProofLevel.STANDARD}, TranslatorMode.RULES, Lane.QUICK),
    ({"proof_level": ProofLevel.FORMAL}, TranslatorMode.RULES, Lane.HEAVY),
    ({}, TranslatorMode.ENSEMBLE, Lane.HEAVY),  # a model translates it
    ({}, TranslatorMode.MODEL, Lane.HEAVY),
])
def test_the_lane_of_a_job_is_what_its_check_costs(changes: dict, translator: TranslatorMode, lane: Lane) -> None:
    assert lane_of(quick_chain(1).model_copy(update=changes), translator) is lane


def test_code_is_heavy_and_supplied_translations_need_no_model() -> None:
    code = VerifyRequest.model_validate(sleeping_code_chain(1))
    assert lane_of(code, TranslatorMode.RULES) is Lane.HEAVY
    supplied = quick_chain(1).model_copy(update={"translations": []})
    assert lane_of(supplied, TranslatorMode.ENSEMBLE) is Lane.QUICK


def test_a_quick_lane_claim_skips_older_heavy_jobs_and_a_plain_claim_takes_the_oldest(ctx) -> None:
    heavy = submit(ctx, VerifyRequest.model_validate(sleeping_code_chain(1)), lane=Lane.HEAVY)
    quick = submit(ctx, quick_chain(3), lane=Lane.QUICK)
    later = submit(ctx, quick_chain(4), lane=Lane.QUICK)
    taken = leases.claim_next(ctx.sessionmaker, lease_s=30, max_attempts=2, lane=Lane.QUICK)
    assert taken is not None and taken.task_id == quick
    oldest = leases.claim_next(ctx.sessionmaker, lease_s=30, max_attempts=2)
    assert oldest is not None and oldest.task_id == heavy
    rest = leases.claim_next(ctx.sessionmaker, lease_s=30, max_attempts=2, lane=Lane.QUICK)
    assert rest is not None and rest.task_id == later
    assert leases.claim_next(ctx.sessionmaker, lease_s=30, max_attempts=2, lane=Lane.QUICK) is None
