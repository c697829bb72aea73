"""Celery on Redis for scaled-out deployments: messages carry only a task id; the store decides.

A message is acknowledged after the job ran (`acks_late`), one at a time per worker process
(prefetch 1), and requeued if the worker process dies (`reject_on_worker_lost`). None of that is
relied on for correctness: a message may be lost (broker restart, a SIGKILLed worker's prefetched
message waiting out the visibility timeout) or delivered twice. The store's lease and conditional
completion make duplicates harmless, and the sweeper re-sends messages for jobs whose lease expired
or that sat queued for a whole lease.
"""

from __future__ import annotations

import logging

from celery import Celery

from reasonforge.service.jobs.context import JobContext
from reasonforge.service.jobs.executor import ContextHolder
from reasonforge.service.jobs.notify import deliver_pending
from reasonforge.service.jobs.runner import run_job
from reasonforge.service.jobs.sweeper import Sweeper
from reasonforge.service.settings import ServiceSettings

log = logging.getLogger(__name__)

RUN_JOB = "reasonforge.run_job"
DELIVER_WEBHOOK = "reasonforge.deliver_webhook"
QUEUE = "reasonforge"


def make_celery(
    settings: ServiceSettings, holder: ContextHolder | None = None
) -> Celery:
    """A Celery app on `settings.redis_url` with the job and webhook tasks bound to `holder`'s store."""
    holder = holder or ContextHolder(settings)
    app = Celery("reasonforge", broker=settings.redis_url, set_as_current=False)
    app.conf.update(
        task_default_queue=QUEUE,
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        task_ignore_result=True,
        task_serializer="json",
        accept_content=["json"],
        broker_connection_retry_on_startup=True,
        worker_cancel_long_running_tasks_on_connection_loss=True,
        worker_hijack_root_logger=False,
        broker_transport_options={
            "visibility_timeout": max(3600.0, 4 * settings.lease_seconds)
        },
    )

    def send_webhook(task_id: str) -> None:
        app.send_task(DELIVER_WEBHOOK, args=[task_id], queue=QUEUE)

    @app.task(
        name=RUN_JOB,
        shared=False,
        acks_late=True,
        reject_on_worker_lost=True,
        ignore_result=True,
    )
    def run_job_task(task_id: str) -> str | None:
        status = run_job(
            holder.get(),
            task_id,
            executor=holder.executor(),
            dispatch_webhook=send_webhook,
        )
        return status.value if status else None

    @app.task(
        name=DELIVER_WEBHOOK,
        shared=False,
        acks_late=True,
        reject_on_worker_lost=True,
        ignore_result=True,
    )
    def deliver_webhook_task(task_id: str) -> bool:
        return deliver_pending(holder.get(), task_id)

    return app


class CeleryQueue:
    """The API side: publishes task ids and runs a sweeper; `reasonforge worker` runs the jobs."""

    def __init__(self, ctx: JobContext) -> None:
        self._ctx = ctx
        self.app = make_celery(ctx.settings)
        self._sweeper = Sweeper(ctx, self.enqueue, self.dispatch_webhook)

    def start(self) -> None:
        """Start the sweeper."""
        self._sweeper.start()

    def enqueue(self, task_id: str) -> None:
        """Publish the job; if Redis is unreachable the job stays queued and the sweeper re-sends it."""
        try:
            self.app.send_task(RUN_JOB, args=[task_id], queue=QUEUE)
        except Exception:
            log.warning(
                "could not publish job %s now; the sweeper will re-send it",
                task_id,
                exc_info=True,
            )

    def dispatch_webhook(self, task_id: str) -> None:
        """Publish a webhook delivery."""
        try:
            self.app.send_task(DELIVER_WEBHOOK, args=[task_id], queue=QUEUE)
        except Exception:
            log.warning(
                "could not publish the webhook of %s now", task_id, exc_info=True
            )

    def stop(self, timeout: float | None = None) -> None:
        """Stop the sweeper and close broker connections (jobs run on the workers, which stop on their own)."""
        self._sweeper.stop(30.0 if timeout is None else timeout)
        self.app.close()
