"""Webhook state of finished jobs: who may send a pending webhook now, and marking it sent."""

from __future__ import annotations

import time

from sqlalchemy import select, update
from sqlalchemy.orm import sessionmaker

from reasonforge.service.jobs.store import TERMINAL
from reasonforge.service.jobs.tables import JobRow


def claim_webhook(sm: sessionmaker, task_id: str, *, lease_s: float) -> JobRow | None:
    """Take the pending webhook of a finished job under a lease; None when it is not due."""
    now = time.time()
    with sm.begin() as session:
        result = session.execute(
            update(JobRow)
            .where(
                JobRow.task_id == task_id,
                JobRow.webhook_pending,
                JobRow.status.in_(TERMINAL),
                (JobRow.webhook_lease_expires_at.is_(None))
                | (JobRow.webhook_lease_expires_at < now),
            )
            .values(webhook_lease_expires_at=now + lease_s)
            .execution_options(synchronize_session=False)
        )
        if result.rowcount != 1:
            return None
        return session.get(JobRow, task_id)


def finish_webhook(sm: sessionmaker, task_id: str) -> None:
    """The webhook was delivered or dead-lettered: nothing more to send."""
    with sm.begin() as session:
        session.execute(
            update(JobRow)
            .where(JobRow.task_id == task_id)
            .values(webhook_pending=False, webhook_lease_expires_at=None)
            .execution_options(synchronize_session=False)
        )


def due_webhooks(
    sm: sessionmaker, *, grace_s: float = 10.0, limit: int = 100
) -> list[str]:
    """Pending webhooks nobody holds: never taken within `grace_s` of finishing, or whose sender's lease expired."""
    now = time.time()
    never_taken = JobRow.webhook_lease_expires_at.is_(None) & (
        JobRow.updated_at < now - grace_s
    )
    with sm() as session:
        return list(
            session.scalars(
                select(JobRow.task_id)
                .where(
                    JobRow.webhook_pending,
                    JobRow.status.in_(TERMINAL),
                    never_taken | (JobRow.webhook_lease_expires_at < now),
                )
                .limit(limit)
            ).all()
        )
