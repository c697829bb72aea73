"""The queue interface the API uses, and the choice between in-process workers and Celery."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from reasonforge.service.jobs.context import JobContext
from reasonforge.service.settings import QueueKind


class JobQueue(Protocol):
    """Hands queued jobs to workers; the store stays the source of truth."""

    def start(self) -> None:
        """Start background threads."""

    def enqueue(self, task_id: str) -> None:
        """Make a queued job's existence known to the workers."""

    def stop(self, timeout: float | None = None) -> None:
        """Stop background threads (running jobs get `timeout`, default the settings' stop grace)."""


def make_queue(ctx: JobContext, on_finished: Callable[[str], None] | None = None) -> JobQueue:
    """In-process thread pool by default (its quick lane beside it, `lanes`); Celery on Redis when `settings.queue`
    is celery (one queue: its workers take jobs of both lanes).

    `on_finished(task_id)` is called when an in-process worker ends a job (the stream hub polls at once, so
    long-polls and streams hear of it without waiting out a poll interval); Celery workers end jobs elsewhere."""
    if ctx.settings.queue is QueueKind.CELERY:
        from reasonforge.service.celery_app import CeleryQueue

        return CeleryQueue(ctx)
    from reasonforge.service.jobs.executor import ProcessExecutor
    from reasonforge.service.jobs.pool import InProcessQueue

    settings = ctx.settings
    quick = ProcessExecutor(settings, ctx.sessionmaker, settings.quick_workers) if settings.quick_workers else None
    return InProcessQueue(ctx, ProcessExecutor(settings, ctx.sessionmaker, settings.workers), on_finished, quick)
