"""Leases: claim a job, advance it, renew, complete once, fail, release for retry, reclaim.

A worker holds a job through a per-claim `lease_token`; every write it makes is one conditional
UPDATE on that token and on the job still being active (plus its event row, same transaction). So
a worker whose lease expired, or whose job was cancelled, can never overwrite the outcome of the
worker that took over: at-least-once processing, exactly-once completion.
"""

from __future__ import annotations

import time
import uuid

from pydantic import BaseModel
from sqlalchemy import bindparam, func, select, update
from sqlalchemy.orm import sessionmaker

from reasonforge.service.jobs.lanes import Lane
from reasonforge.service.jobs.store import ACTIVE, record_event
from reasonforge.service.jobs.tables import CertificateRow, CertificateTimingRow, JobRow
from reasonforge.types import JobStatus, VerificationVerdict, VerifyRequest


class Claim(BaseModel):
    """A worker's hold on one job: the token its writes must present, and what to run."""

    task_id: str
    token: str
    attempt: int
    owner_key_id: str
    request: VerifyRequest
    worker: str = ""


class IssuedCertificate(BaseModel):
    """A certificate to store with a completion (JSON texts, as issued)."""

    certificate_id: str
    certificate_json: str
    opening_json: str
    prove_seconds: float | None = None


# The hot writes as prepared Core statements, run on the session's connection: built and compiled once, not
# per call (building an UPDATE's SET clause and the ORM's bookkeeping cost more than the write itself).
HELD = (
    (JobRow.task_id == bindparam("b_task"))
    & (JobRow.lease_token == bindparam("b_token"))
    & JobRow.status.in_(ACTIVE)
)
_TAKE_VALUES = {
    "status": JobStatus.TRANSLATING.value,
    "attempts": JobRow.attempts + 1,
    "lease_token": bindparam("b_token"),
    "lease_owner": bindparam("b_owner"),
    "lease_expires_at": bindparam("b_expires"),
    "started_at": func.coalesce(JobRow.started_at, bindparam("b_now")),
    "progress_json": None,  # a new attempt starts from the first step
    "updated_at": bindparam("b_now"),
}
_TAKE_RETURNS = (JobRow.task_id, JobRow.attempts, JobRow.owner_key_id, JobRow.request_json)
_CLAIMABLE = (JobRow.status == JobStatus.QUEUED.value) & (JobRow.attempts < bindparam("b_max"))
_CLAIM = (
    update(JobRow)
    .where(JobRow.task_id == bindparam("b_task"), _CLAIMABLE)
    .values(_TAKE_VALUES)
    .returning(*_TAKE_RETURNS)
)


def _claim_oldest(claimable):
    """The claim of the oldest job `claimable` admits, picked inside the claiming UPDATE. Not enqueued_at: a re-sent
    job must not lose its place. SQLite runs one writer at a time, so no two workers pick the same job; PostgreSQL
    skips rows another claim has locked instead of queueing behind them."""
    oldest = (
        select(JobRow.task_id)
        .where(claimable)
        .order_by(JobRow.created_at)
        .limit(1)
        .with_for_update(skip_locked=True)
        .scalar_subquery()
    )
    return update(JobRow).where(JobRow.task_id == oldest, claimable).values(_TAKE_VALUES).returning(*_TAKE_RETURNS)


_CLAIM_NEXT = _claim_oldest(_CLAIMABLE)
_CLAIM_NEXT_IN_LANE = _claim_oldest(_CLAIMABLE & (JobRow.lane == bindparam("b_lane")))  # the quick lane's workers

_ADVANCE = (
    update(JobRow)
    .where(HELD)
    .values(status=bindparam("b_status"), lease_expires_at=bindparam("b_expires"), updated_at=bindparam("b_now"))
)
_RENEW = update(JobRow).where(HELD).values(lease_expires_at=bindparam("b_expires"))
_COMPLETE = (
    update(JobRow)
    .where(HELD)
    .values(
        status=JobStatus.COMPLETE.value,
        verdict_json=bindparam("b_verdict"),
        overall=bindparam("b_overall"),
        steps_verified=bindparam("b_verified"),
        certificate_id=bindparam("b_certificate"),
        verification_time_ms=bindparam("b_ms"),
        error=None,
        lease_token=None,
        lease_owner=None,
        lease_expires_at=None,
        webhook_pending=JobRow.callback_url.is_not(None),
        finished_at=bindparam("b_now"),
        updated_at=bindparam("b_now"),
    )
)


def held_params(claim_: Claim) -> dict:
    """The bind parameters of `HELD` for `claim_`."""
    return {"b_task": claim_.task_id, "b_token": claim_.token}


def claim(
    sm: sessionmaker,
    task_id: str,
    *,
    lease_s: float,
    max_attempts: int,
    owner: str = "",
) -> Claim | None:
    """Take a queued job under a fresh lease (status translating); None when someone else has it.

    `owner` names the worker (host:pid:nonce) for operators; only the lease token decides.
    """
    return _take(sm, _CLAIM, {"b_task": task_id}, lease_s=lease_s, max_attempts=max_attempts, owner=owner)


def claim_next(
    sm: sessionmaker,
    *,
    lease_s: float,
    max_attempts: int,
    owner: str = "",
    lane: Lane | None = None,
) -> Claim | None:
    """Claim the oldest queued job, of `lane` only when one is named (one statement: the pick and the take cannot
    be raced); None when none is."""
    if lane is None:
        return _take(sm, _CLAIM_NEXT, {}, lease_s=lease_s, max_attempts=max_attempts, owner=owner)
    return _take(sm, _CLAIM_NEXT_IN_LANE, {"b_lane": lane.value}, lease_s=lease_s, max_attempts=max_attempts,
                 owner=owner)


def _take(sm: sessionmaker, statement, params: dict, *, lease_s: float, max_attempts: int, owner: str) -> Claim | None:
    token, now = uuid.uuid4().hex, time.time()
    with sm.begin() as session:
        row = session.connection().execute(statement, {
            **params, "b_max": max_attempts, "b_token": token, "b_owner": owner[:200] or None,
            "b_expires": now + lease_s, "b_now": now,
        }).first()
        if row is None:
            return None
        task_id, attempts, owner_key_id, request_json = row
        record_event(session, task_id, owner_key_id, JobStatus.TRANSLATING.value, attempts, now, worker=owner)
    return Claim(
        task_id=task_id,
        token=token,
        worker=owner,
        attempt=attempts,
        owner_key_id=owner_key_id,
        request=VerifyRequest.model_validate_json(request_json),
    )


def _held(claim_: Claim):
    return (
        (JobRow.task_id == claim_.task_id)
        & (JobRow.lease_token == claim_.token)
        & JobRow.status.in_(ACTIVE)
    )


def advance(
    sm: sessionmaker, claim_: Claim, status: JobStatus, *, lease_s: float, at: float | None = None
) -> bool:
    """Move a held job to `status` (and extend its lease), its event dated `at` (default now); False when the
    lease was lost."""
    now = time.time()
    with sm.begin() as session:
        result = session.connection().execute(
            _ADVANCE, {**held_params(claim_), "b_status": status.value, "b_expires": now + lease_s, "b_now": now}
        )
        if result.rowcount != 1:
            return False
        record_event(
            session,
            claim_.task_id,
            claim_.owner_key_id,
            status.value,
            claim_.attempt,
            now if at is None else at,
            worker=claim_.worker,
        )
        return True


def renew_lease(sm: sessionmaker, claim_: Claim, *, lease_s: float) -> bool:
    """Push the lease expiry forward (heartbeat); False when the lease was lost."""
    now = time.time()
    with sm.begin() as session:
        result = session.connection().execute(_RENEW, {**held_params(claim_), "b_expires": now + lease_s})
        return result.rowcount == 1


def complete(
    sm: sessionmaker,
    claim_: Claim,
    verdict: VerificationVerdict,
    certificate: IssuedCertificate | None,
    *,
    verifying_at: float | None = None,
) -> bool:
    """Record the verdict (and certificate) once; False for a late duplicate, which changes nothing.

    `verifying_at`: also record the move to `verifying` (at that time) that was not written yet."""
    now = time.time()
    verdict_json = verdict.model_dump_json()  # before the transaction: nothing slow inside it
    with sm.begin() as session:
        result = session.connection().execute(_COMPLETE, {
            **held_params(claim_), "b_verdict": verdict_json, "b_overall": verdict.overall.value,
            "b_verified": verdict.verified_steps,
            "b_certificate": certificate.certificate_id if certificate else None,
            "b_ms": verdict.verification_time_ms, "b_now": now,
        })
        if result.rowcount != 1:
            return False
        if verifying_at is not None:
            record_event(session, claim_.task_id, claim_.owner_key_id, JobStatus.VERIFYING.value,
                         claim_.attempt, verifying_at, worker=claim_.worker)
        if (
            certificate is not None
            and session.get(CertificateRow, certificate.certificate_id) is None
        ):
            session.add(
                CertificateRow(
                    certificate_id=certificate.certificate_id,
                    task_id=claim_.task_id,
                    owner_key_id=claim_.owner_key_id,
                    certificate_json=certificate.certificate_json,
                    opening_json=certificate.opening_json,
                    created_at=now,
                )
            )
            if certificate.prove_seconds is not None:
                session.add(CertificateTimingRow(certificate_id=certificate.certificate_id,
                                                 prove_seconds=certificate.prove_seconds, created_at=now))
        record_event(
            session,
            claim_.task_id,
            claim_.owner_key_id,
            JobStatus.COMPLETE.value,
            claim_.attempt,
            now,
            worker=claim_.worker,
        )
        return True


def fail(
    sm: sessionmaker,
    claim_: Claim,
    error: str,
    verdict: VerificationVerdict | None = None,
) -> bool:
    """Mark a held job failed for good with `error` (keeping a verdict it reached); False when the lease was lost."""
    return _finish_failed(
        sm,
        _held(claim_),
        claim_.task_id,
        claim_.owner_key_id,
        claim_.attempt,
        error,
        verdict,
        worker=claim_.worker,
    )


def _verdict_values(verdict: VerificationVerdict | None) -> dict:
    if verdict is None:
        return {}
    return {
        "verdict_json": verdict.model_dump_json(),
        "overall": verdict.overall.value,
        "steps_verified": verdict.verified_steps,
        "verification_time_ms": verdict.verification_time_ms,
    }


def _finish_failed(
    sm: sessionmaker,
    condition,
    task_id: str,
    owner: str,
    attempt: int,
    error: str,
    verdict: VerificationVerdict | None = None,
    *,
    worker: str | None = None,
) -> bool:
    now = time.time()
    with sm.begin() as session:
        result = session.execute(
            update(JobRow)
            .where(condition)
            .values(
                status=JobStatus.FAILED.value,
                error=error,
                lease_token=None,
                lease_owner=None,
                lease_expires_at=None,
                webhook_pending=JobRow.callback_url.is_not(None),
                finished_at=now,
                updated_at=now,
                **_verdict_values(verdict),
            )
            .execution_options(synchronize_session=False)
        )
        if result.rowcount != 1:
            return False
        record_event(
            session,
            task_id,
            owner,
            JobStatus.FAILED.value,
            attempt,
            now,
            error,
            worker=worker,
        )
        return True


def release(
    sm: sessionmaker,
    claim_: Claim,
    error: str,
    *,
    max_attempts: int,
    verdict: VerificationVerdict | None = None,
) -> JobStatus | None:
    """After a transient error: back to queued while attempts remain, else failed; None if the lease was lost."""
    if claim_.attempt >= max_attempts:
        message = f"gave up after {claim_.attempt} attempts; last error: {error}"
        return JobStatus.FAILED if fail(sm, claim_, message, verdict) else None
    return JobStatus.QUEUED if _requeue(sm, claim_, error, counted=True) else None


def hand_back(sm: sessionmaker, claim_: Claim, reason: str) -> bool:
    """Requeue a held job at once, its attempt not counted (the worker stopped, the job did not fail); False when
    the lease was lost meanwhile."""
    return _requeue(sm, claim_, reason, counted=False)


def _requeue(sm: sessionmaker, claim_: Claim, message: str, *, counted: bool) -> bool:
    """Back to queued under the claim's lease, with `message` as the job's error (`counted`) or only as the event's
    (a hand-back, its attempt given back); False when the lease was lost."""
    now = time.time()
    values = {"error": message} if counted else {"attempts": JobRow.attempts - 1}
    attempt = claim_.attempt if counted else claim_.attempt - 1
    with sm.begin() as session:
        result = session.execute(
            update(JobRow)
            .where(_held(claim_))
            .values(
                status=JobStatus.QUEUED.value,
                lease_token=None,
                lease_owner=None,
                lease_expires_at=None,
                enqueued_at=now,
                updated_at=now,
                **values,
            )
            .execution_options(synchronize_session=False)
        )
        if result.rowcount != 1:
            return False
        record_event(session, claim_.task_id, claim_.owner_key_id, JobStatus.QUEUED.value,
                     attempt, now, message, worker=claim_.worker)
        return True


def reclaim_expired(
    sm: sessionmaker, *, max_attempts: int, lease_s: float, limit: int = 500
) -> list[str]:
    """Jobs whose worker stopped renewing its lease: requeue them (returned), or fail those out of attempts."""
    now = time.time()
    with sm() as session:
        expired = session.execute(
            select(
                JobRow.task_id, JobRow.lease_token, JobRow.attempts, JobRow.owner_key_id
            )
            .where(JobRow.status.in_(ACTIVE), JobRow.lease_expires_at < now)
            .limit(limit)
        ).all()
    requeued = []
    for task_id, token, attempts, owner in expired:
        condition = (
            (JobRow.task_id == task_id)
            & (JobRow.lease_token == token)
            & JobRow.status.in_(ACTIVE)
            & (JobRow.lease_expires_at < now)
        )
        if attempts >= max_attempts:
            _finish_failed(
                sm,
                condition,
                task_id,
                owner,
                attempts,
                f"no worker finished this job in {attempts} attempts: each time the worker stopped renewing its "
                f"{lease_s:g} s lease (it crashed, was killed or lost the database); giving up",
            )
            continue
        with sm.begin() as session:
            result = session.execute(
                update(JobRow)
                .where(condition)
                .values(
                    status=JobStatus.QUEUED.value,
                    error=f"attempt {attempts}: the worker's lease expired; retrying",
                    lease_token=None,
                    lease_owner=None,
                    lease_expires_at=None,
                    enqueued_at=now,
                    updated_at=now,
                )
                .execution_options(synchronize_session=False)
            )
            if result.rowcount == 1:
                record_event(
                    session,
                    task_id,
                    owner,
                    JobStatus.QUEUED.value,
                    attempts,
                    now,
                    "lease expired; requeued",
                )
                requeued.append(task_id)
    return requeued


def stale_queued(
    sm: sessionmaker, *, older_than_s: float, limit: int = 500
) -> list[str]:
    """Queued jobs nobody claimed for `older_than_s` (a lost queue message): stamp and return them to re-send."""
    now = time.time()
    cutoff = now - older_than_s
    with sm.begin() as session:
        ids = session.scalars(
            select(JobRow.task_id)
            .where(JobRow.status == JobStatus.QUEUED.value, JobRow.enqueued_at < cutoff)
            .limit(limit)
        ).all()
        if ids:
            session.execute(
                update(JobRow)
                .where(
                    JobRow.task_id.in_(ids),
                    JobRow.status == JobStatus.QUEUED.value,
                    JobRow.enqueued_at < cutoff,
                )
                .values(enqueued_at=now)
                .execution_options(synchronize_session=False)
            )
    return list(ids)
