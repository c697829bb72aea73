"""`reasonforge worker`: a Celery worker for the job queue, plus this machine's sweeper.

Start one on every worker machine with the same REASONFORGE_DATABASE_URL and REASONFORGE_REDIS_URL
as the API. Each worker also sweeps (requeues expired leases): sweeping is idempotent, so any
number of sweepers is safe and the jobs of a dead machine are recovered by the living ones.

Pools: `solo` runs one job at a time; `threads` with `--concurrency N` runs N at once. Either way
the verification itself runs in job processes (see `jobs/executor.py`), one per concurrent job, so
N threads use N cores. Celery's `prefork` pool is refused: its children are daemonic processes,
and a daemonic process may not start the job process, nor the processes the checkers start.
"""

from __future__ import annotations

import logging
import os
import socket
from enum import Enum

from reasonforge.service.errors import BadRequestError
from reasonforge.service.settings import QueueKind, ServiceSettings

log = logging.getLogger(__name__)


class Pool(str, Enum):
    """Celery execution pools the worker runs."""

    SOLO = "solo"
    THREADS = "threads"


def parse_pool(name: str) -> Pool:
    """The pool called `name`, or a BadRequestError that says what to use instead."""
    if name == "prefork":
        raise BadRequestError(
            "--pool prefork is not supported: Celery's prefork children are daemonic processes, which may not "
            "start the job processes that verification runs in; use --pool threads --concurrency N (N jobs run "
            "in parallel, each in its own process), or start several solo workers",
            field="pool",
        )
    try:
        return Pool(name)
    except ValueError:
        raise BadRequestError(
            f"unknown --pool {name!r}; use solo or threads", field="pool"
        ) from None


def worker_argv(pool: Pool, concurrency: int, loglevel: str) -> list[str]:
    """The `celery worker` arguments for our queue."""
    from reasonforge.service.celery_app import QUEUE

    return [
        "worker",
        f"--pool={pool.value}",
        f"--concurrency={1 if pool is Pool.SOLO else concurrency}",
        f"--queues={QUEUE}",
        f"--loglevel={loglevel}",
        f"--hostname=reasonforge-{os.getpid()}@{socket.gethostname()}",
        "--without-gossip",
        "--without-mingle",
        "--without-heartbeat",
    ]


def run_worker(
    settings: ServiceSettings,
    *,
    pool: Pool = Pool.SOLO,
    concurrency: int | None = None,
    loglevel: str = "INFO",
) -> None:
    """Run a Celery worker until it is stopped (blocks)."""
    if settings.queue is not QueueKind.CELERY:
        raise BadRequestError(
            "`reasonforge worker` serves the Celery queue: set REASONFORGE_QUEUE=celery, and give it the same "
            "REASONFORGE_DATABASE_URL and REASONFORGE_REDIS_URL as the API (the default in-process queue needs "
            "no separate worker)",
            field="queue",
        )
    from celery.signals import worker_ready, worker_shutdown

    from reasonforge.service.celery_app import (
        DELIVER_WEBHOOK,
        QUEUE,
        RUN_JOB,
        make_celery,
    )
    from reasonforge.service.jobs.context import make_context
    from reasonforge.service.jobs.executor import ContextHolder
    from reasonforge.service.jobs.sweeper import Sweeper
    from reasonforge.service.verdict_key import ensure_verdict_key

    ensure_verdict_key(settings)  # the key every verdict this worker records is signed with
    slots = 1 if pool is Pool.SOLO else (concurrency or settings.workers)
    parent = make_context(settings)  # creates the tables before any job runs
    holder = ContextHolder(settings, executor_size=slots)
    app = make_celery(settings, holder)

    def publish(name: str):
        def send(task_id: str) -> None:
            try:
                app.send_task(name, args=[task_id], queue=QUEUE)
            except Exception:  # the next sweep re-sends
                log.warning(
                    "could not publish %s for %s now", name, task_id, exc_info=True
                )

        return send

    sweeper = Sweeper(parent, publish(RUN_JOB), publish(DELIVER_WEBHOOK))

    def on_ready(**_kwargs: object) -> None:
        sweeper.start()
        holder.executor().warm()

    def on_shutdown(**_kwargs: object) -> None:
        sweeper.stop()
        holder.close()
        parent.close()

    worker_ready.connect(on_ready, weak=False)
    worker_shutdown.connect(on_shutdown, weak=False)
    app.worker_main(worker_argv(pool, slots, loglevel))
