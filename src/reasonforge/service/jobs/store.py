"""The job store: submission, idempotency lookups, events, cancellation, cleanup, counts.

Every status change is written together with its event row (`record_event`) in one transaction;
the changes a worker makes under a lease live in `leases.py`.
"""

from __future__ import annotations

import hashlib
import json
import time
import uuid
from collections.abc import Sequence

from sqlalchemy import and_, delete, func, insert, or_, select, update
from sqlalchemy.orm import Session, sessionmaker

from reasonforge.service.jobs.lanes import Lane
from reasonforge.service.jobs.tables import JobEventRow, JobRow
from reasonforge.types import JobStatus, VerifyRequest

ACTIVE = (JobStatus.TRANSLATING.value, JobStatus.VERIFYING.value)


TERMINAL = (JobStatus.COMPLETE.value, JobStatus.FAILED.value, JobStatus.CANCELLED.value)


def request_hash(request: VerifyRequest) -> str:
    """sha256 of the request's canonical JSON: what an Idempotency-Key is bound to."""
    body = json.dumps(
        request.model_dump(mode="json"),
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return hashlib.sha256(body.encode()).hexdigest()


def new_task_id() -> str:
    """A fresh, unguessable task id (32 hex digits)."""
    return uuid.uuid4().hex


_EVENT = insert(JobEventRow)
_JOB = insert(JobRow)


def record_event(
    session: Session,
    task_id: str,
    owner: str,
    status: str,
    attempt: int,
    now: float,
    message: str | None = None,
    *,
    worker: str | None = None,
) -> None:
    """Write the event row of a status change in `session`'s transaction (a prepared INSERT: no ORM flush)."""
    session.connection().execute(_EVENT, {
        "task_id": task_id, "owner_key_id": owner, "worker_id": worker or None, "status": status,
        "attempt": attempt, "message": message, "at": now,
    })


def insert_job(
    session: Session,
    *,
    task_id: str,
    owner_key_id: str,
    request: VerifyRequest,
    idempotency_key: str | None,
    cost_credits: float | None,
    digest: str | None = None,
    lane: Lane = Lane.HEAVY,
) -> JobRow:
    """Insert a queued job and its first event in `session`'s transaction (the caller commits); the row returned
    is a detached copy of what was written."""
    now = time.time()
    values = {
        "task_id": task_id,
        "owner_key_id": owner_key_id,
        "request_json": request.model_dump_json(),
        "request_hash": digest or request_hash(request),
        "idempotency_key": idempotency_key,
        "proof_level": request.proof_level.value,
        "steps_total": len(request.reasoning_chain),
        "callback_url": request.callback_url,
        "status": JobStatus.QUEUED.value,
        "lane": lane.value,
        "attempts": 0,
        "enqueued_at": now,
        "cost_credits": cost_credits,
        "webhook_pending": False,
        "created_at": now,
        "updated_at": now,
    }
    session.connection().execute(_JOB, values)
    record_event(session, task_id, owner_key_id, JobStatus.QUEUED.value, 0, now)
    return JobRow(**values)


def find_by_idempotency_key(
    session: Session, owner_key_id: str, key: str
) -> JobRow | None:
    """The caller's job submitted with `key`, if any."""
    return session.scalars(
        select(JobRow).where(
            JobRow.owner_key_id == owner_key_id, JobRow.idempotency_key == key
        )
    ).first()


def list_jobs(session: Session, owner_key_id: str, *, status: JobStatus | None = None,
              before: tuple[float, str] | None = None, limit: int = 20) -> list[JobRow]:
    """The caller's jobs, newest first (created_at, then task_id), after the `before` position, at most `limit`."""
    query = select(JobRow).where(JobRow.owner_key_id == owner_key_id)
    if status is not None:
        query = query.where(JobRow.status == status.value)
    if before is not None:
        created, task_id = before
        query = query.where(or_(JobRow.created_at < created,
                                and_(JobRow.created_at == created, JobRow.task_id < task_id)))
    query = query.order_by(JobRow.created_at.desc(), JobRow.task_id.desc()).limit(limit)
    return list(session.scalars(query))


def cancel(sm: sessionmaker, task_id: str, owner_key_id: str) -> bool:
    """Cancel a job that has not finished; a worker still running it loses its lease. False if already final."""
    now = time.time()
    with sm.begin() as session:
        result = session.execute(
            update(JobRow)
            .where(
                JobRow.task_id == task_id,
                JobRow.owner_key_id == owner_key_id,
                JobRow.status.in_((JobStatus.QUEUED.value, *ACTIVE)),
            )
            .values(
                status=JobStatus.CANCELLED.value,
                lease_token=None,
                lease_owner=None,
                lease_expires_at=None,
                finished_at=now,
                updated_at=now,
            )
            .execution_options(synchronize_session=False)
        )
        if result.rowcount != 1:
            return False
        attempts = (
            session.scalar(select(JobRow.attempts).where(JobRow.task_id == task_id))
            or 0
        )
        record_event(
            session,
            task_id,
            owner_key_id,
            JobStatus.CANCELLED.value,
            attempts,
            now,
            "cancelled by the owner",
        )
        return True


def cleanup(sm: sessionmaker, *, retention_s: float) -> int:
    """Delete finished and cancelled jobs (and their events) last touched before the retention window."""
    cutoff = time.time() - retention_s
    with sm.begin() as session:
        old = select(JobRow.task_id).where(
            JobRow.status.in_(TERMINAL),
            JobRow.updated_at < cutoff,
            ~JobRow.webhook_pending,
        )
        ids = session.scalars(old.limit(1000)).all()
        if not ids:
            return 0
        session.execute(
            delete(JobEventRow)
            .where(JobEventRow.task_id.in_(ids))
            .execution_options(synchronize_session=False)
        )
        session.execute(
            delete(JobRow)
            .where(JobRow.task_id.in_(ids))
            .execution_options(synchronize_session=False)
        )
        return len(ids)


def status_counts(session: Session) -> dict[str, int]:
    """Number of jobs in each status (every status present, zero when none)."""
    counts = {status.value: 0 for status in JobStatus}
    for status, count in session.execute(
        select(JobRow.status, func.count()).group_by(JobRow.status)
    ):
        counts[status] = count
    return counts


def events_after(
    session: Session, after_id: int, *, limit: int = 1000
) -> Sequence[JobEventRow]:
    """Events with id above `after_id`, oldest first."""
    return session.scalars(
        select(JobEventRow)
        .where(JobEventRow.id > after_id)
        .order_by(JobEventRow.id)
        .limit(limit)
    ).all()
