"""The periodic sweep: requeue expired leases, re-send lost queue messages and webhooks, clean up."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from pydantic import BaseModel

from reasonforge.service.jobs import leases, store, webhook_state
from reasonforge.service.jobs.context import JobContext

log = logging.getLogger(__name__)

CLEANUP_EVERY_S = 300.0


class SweepReport(BaseModel):
    """What one sweep did."""

    requeued: list[str] = []
    resent: list[str] = []
    webhooks: list[str] = []
    deleted: int = 0


def sweep_once(
    ctx: JobContext,
    enqueue: Callable[[str], None],
    dispatch_webhook: Callable[[str], None],
    *,
    clean: bool = False,
) -> SweepReport:
    """One pass; safe to run in many processes at once (every change is conditional)."""
    settings, sm = ctx.settings, ctx.sessionmaker
    report = SweepReport(
        requeued=leases.reclaim_expired(
            sm, max_attempts=settings.max_attempts, lease_s=settings.lease_seconds
        ),
        # A queued job unclaimed for that long may have lost its queue message (broker restart, a
        # worker killed holding a prefetched message, a failed send): send it again. Duplicates are
        # harmless because only one claim can succeed.
        resent=leases.stale_queued(sm, older_than_s=settings.resend_after_s),
        webhooks=webhook_state.due_webhooks(sm),
    )
    for task_id in report.requeued + report.resent:
        enqueue(task_id)
    for task_id in report.webhooks:
        dispatch_webhook(task_id)
    if clean:
        report.deleted = store.cleanup(
            sm, retention_s=settings.job_retention_days * 86400.0
        )
    return report


class Sweeper:
    """Runs `sweep_once` every `sweep_interval_s` on a daemon thread until stopped."""

    def __init__(
        self,
        ctx: JobContext,
        enqueue: Callable[[str], None],
        dispatch_webhook: Callable[[str], None],
    ) -> None:
        self._ctx, self._enqueue, self._dispatch = ctx, enqueue, dispatch_webhook
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._run, name="reasonforge-sweeper", daemon=True
        )

    def start(self) -> None:
        """Start sweeping."""
        self._thread.start()

    def stop(self, timeout: float = 10.0) -> None:
        """Stop after the current pass."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout)

    def _run(self) -> None:
        last_clean = 0.0
        while not self._stop.wait(self._ctx.settings.sweep_interval_s):
            clean = time.monotonic() - last_clean > CLEANUP_EVERY_S
            try:
                report = sweep_once(
                    self._ctx, self._enqueue, self._dispatch, clean=clean
                )
            except Exception:  # the database may be briefly away; the next pass retries
                log.warning("sweep failed", exc_info=True)
                continue
            if clean:
                last_clean = time.monotonic()
            if report.requeued or report.resent or report.deleted:
                log.info(
                    "sweep: %d requeued after an expired lease, %d re-sent, %d deleted",
                    len(report.requeued),
                    len(report.resent),
                    report.deleted,
                )
