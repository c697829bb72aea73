"""The embedded queue: worker threads in the API process claiming jobs straight from the store."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from reasonforge.service.jobs import leases
from reasonforge.service.jobs.context import JobContext
from reasonforge.service.jobs.executor import JobExecutor
from reasonforge.service.jobs.lanes import Lane
from reasonforge.service.jobs.notify import deliver_pending
from reasonforge.service.jobs.runner import run_claimed
from reasonforge.service.jobs.sweeper import Sweeper

log = logging.getLogger(__name__)

IDLE_POLL_S = 0.5
"""An idle worker re-checks the store this often even without a wake-up (jobs from other processes)."""

THREADS_PER_PROCESS = 2
"""Worker threads per job process: while one records its job's outcome and claims the next, the other's job
runs, so a job process does not sit idle for the store's writes between jobs."""


class InProcessQueue:
    """THREADS_PER_PROCESS x `settings.workers` threads feeding the executor's `settings.workers` job processes and
    taking the oldest job of any lane; beside them, THREADS_PER_PROCESS x `settings.quick_workers` threads feeding
    `quick_executor`'s processes with quick jobs only (`lanes`). `enqueue` only wakes them, since the store itself
    is the queue."""

    def __init__(self, ctx: JobContext, executor: JobExecutor,
                 on_finished: Callable[[str], None] | None = None, quick_executor: JobExecutor | None = None) -> None:
        self._ctx = ctx
        self._executor = executor
        self._quick_executor = quick_executor
        self._on_finished = on_finished
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._threads = [
            threading.Thread(
                target=self._work, args=(executor, None), name=f"reasonforge-worker-{i}", daemon=True
            )
            for i in range(ctx.settings.workers * THREADS_PER_PROCESS)
        ]
        if quick_executor is not None:
            self._threads += [
                threading.Thread(target=self._work, args=(quick_executor, Lane.QUICK),
                                 name=f"reasonforge-quick-worker-{i}", daemon=True)
                for i in range(ctx.settings.quick_workers * THREADS_PER_PROCESS)
            ]
        # Webhook deliveries retry with backoff: keep them off the verification threads.
        self._webhooks = ThreadPoolExecutor(
            max_workers=2, thread_name_prefix="reasonforge-webhook"
        )
        self._sweeper = Sweeper(ctx, self.enqueue, self.dispatch_webhook)
        self._running: dict[str, leases.Claim] = {}  # claims being worked on, by task id
        self._running_lock = threading.Lock()

    def start(self) -> None:
        """Start the executor, the workers and the sweeper."""
        self._executor.warm()
        if self._quick_executor is not None:
            self._quick_executor.warm()
        for thread in self._threads:
            thread.start()
        self._sweeper.start()

    def enqueue(self, task_id: str) -> None:
        """Wake the workers for a newly queued job."""
        self._wake.set()

    def dispatch_webhook(self, task_id: str) -> None:
        """Deliver a finished job's webhook on the webhook threads."""
        if not self._stop.is_set():
            self._webhooks.submit(deliver_pending, self._ctx, task_id)

    def stop(self, timeout: float | None = None) -> None:
        """Stop claiming; give running jobs `timeout` (default settings.stop_grace_s) to finish, hand the rest back
        to the queue at once (queued jobs stay queued for the next start), and stop the job processes."""
        grace = self._ctx.settings.stop_grace_s if timeout is None else timeout
        self._stop.set()
        self._wake.set()
        self._sweeper.stop()
        deadline = time.monotonic() + grace
        for thread in self._threads:
            if thread.is_alive():
                thread.join(max(0.0, deadline - time.monotonic()))
        with self._running_lock:
            unfinished = list(self._running.values())
        for claim in unfinished:
            try:
                if leases.hand_back(self._ctx.sessionmaker, claim,
                                    f"handed back: the server stopped before the job finished (grace {grace:g} s)"):
                    log.warning("job %s handed back to the queue: still running after the stop grace", claim.task_id)
            except Exception:  # its lease expires and the sweeper of the next start retries it
                log.exception("could not hand back job %s", claim.task_id)
        self._webhooks.shutdown(wait=True, cancel_futures=True)
        # Job processes still busy are the handed-back jobs': no point waiting for them.
        self._executor.shutdown(wait=not unfinished)
        if self._quick_executor is not None:
            self._quick_executor.shutdown(wait=not unfinished)

    def _lane_to_claim(self, executor: JobExecutor, lane: Lane | None) -> Lane | None:
        """A heavy worker whose job processes are all busy would hold a job it claims until one is free: then it
        takes heavy jobs only, and leaves the quick ones to the quick lane's workers (when there are some)."""
        if lane is None and self._quick_executor is not None and not executor.idle():
            return Lane.HEAVY
        return lane

    def _work(self, executor: JobExecutor, lane: Lane | None) -> None:
        settings = self._ctx.settings
        while not self._stop.is_set():
            try:
                claim = leases.claim_next(
                    self._ctx.sessionmaker,
                    lease_s=settings.lease_seconds,
                    max_attempts=settings.max_attempts,
                    owner=self._ctx.worker_id,
                    lane=self._lane_to_claim(executor, lane),
                )
            except Exception:
                log.warning("could not claim a job; retrying", exc_info=True)
                claim = None
            if claim is None:
                self._wake.wait(IDLE_POLL_S)
                self._wake.clear()
                continue
            with self._running_lock:
                self._running[claim.task_id] = claim
            try:
                run_claimed(
                    self._ctx,
                    claim,
                    executor=executor,
                    dispatch_webhook=self.dispatch_webhook,
                )
            except (
                Exception
            ):  # run_claimed handles job errors; this is the store going away mid-write
                log.exception(
                    "worker lost job %s; its lease will expire and it will be retried",
                    claim.task_id,
                )
            finally:
                with self._running_lock:
                    self._running.pop(claim.task_id, None)
            if self._on_finished is not None:
                self._on_finished(claim.task_id)
