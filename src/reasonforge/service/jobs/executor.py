"""Where a claimed job's work runs: long-lived single-threaded child processes, or the calling thread.

Verification is CPU-bound Python (SymPy, solvers, Groth16 proving) and the checkers start
subprocesses of their own. In child processes, jobs run in parallel across cores instead of queueing
on one interpreter lock (and the API stays responsive while a proof is computed), a crashing checker
takes down a child instead of the server, and each child stays single-threaded, which lets the
arithmetic checker fork its warm workers directly (a threaded process must go through a cold fork
server: about a second per step instead of milliseconds). Each child keeps its certificate issuer
(proving key loaded once) for its whole life and holds no database connection: it tells the parent
when translation is done and sends it the outcome, and the parent writes, so a job store on SQLite
has one writing process.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import queue
import signal
import threading
import time
from multiprocessing import resource_tracker
from multiprocessing.connection import Connection
from typing import Protocol

from reasonforge.service.jobs import leases
from reasonforge.service.jobs.certify import CertificateIssuer
from reasonforge.service.jobs.context import JobContext, make_context
from reasonforge.service.jobs.progress import PROGRESS_INTERVAL_S, JobProgress, record_progress
from reasonforge.service.jobs.runner import (
    JobProcessDied,
    Outcome,
    attempt,
    execute_with,
    mark_verifying,
    record,
)
from reasonforge.service.settings import ServiceSettings
from reasonforge.types import JobStatus

log = logging.getLogger(__name__)

_SERVER_SIGNALS = frozenset({signal.SIGINT, signal.SIGTERM})


class JobExecutor(Protocol):
    """Runs a claimed job's work (`runner.execute_with`) and returns the job's end status."""

    def warm(self) -> None:
        """Get ready ahead of the first job (start processes)."""

    def idle(self) -> bool:
        """Whether a job handed over now would start at once (it would not wait for one before it)."""

    def execute(self, claim: leases.Claim) -> JobStatus | None:
        """Do the claimed job's work; its outcome is recorded in the store when this returns."""

    def shutdown(self, wait: bool = True) -> None:
        """Release the executor's resources (without waiting for running work when `wait` is false)."""


class InlineExecutor:
    """Runs jobs in the calling thread with the caller's store: no isolation, no extra processes."""

    def __init__(self, settings: ServiceSettings, sm) -> None:
        self._settings, self._sm = settings, sm
        self._issuer = CertificateIssuer(settings)

    def warm(self) -> None:
        """Nothing to start."""

    def idle(self) -> bool:
        """Always: each calling thread runs its own job."""
        return True

    def execute(self, claim: leases.Claim) -> JobStatus | None:
        """Run the job here."""
        return execute_with(self._sm, self._settings, claim, self._issuer)

    def shutdown(self, wait: bool = True) -> None:
        """Nothing to release."""


def _warm() -> None:
    """Verify a two-step chain so the first real job pays no import or cache cost.

    Offline rules only: warming must not depend on anything outside the process (a model endpoint configured for
    the jobs may be slow, stalled or down), and a warm-up that fails anyway is logged, never fatal: the job process
    is still good for jobs, which report their own errors."""
    from reasonforge.pipeline.run import verify_chain
    from reasonforge.types import Domain, ProofLevel, ReasoningStep, TranslatorMode, VerifyRequest

    steps = [
        ReasoningStep(step_id=1, content="Let x = 2"),
        ReasoningStep(step_id=2, content="So x + 1 = 3"),
    ]
    try:
        verify_chain(
            VerifyRequest(
                domain=Domain.MATHEMATICS,
                proof_level=ProofLevel.QUICK,
                reasoning_chain=steps,
                translator=TranslatorMode.RULES,
            )
        )
    except Exception:  # an optimisation that failed: the first job pays the imports instead
        log.warning("the job process's warm-up verification failed; continuing cold", exc_info=True)


TRANSLATED = "translated"
"""A child's note to the parent mid-job: translation is done (sent with its time)."""
PROGRESS = "progress"
"""A child's note to the parent mid-job: a step's check started (sent with its `JobProgress`)."""

VERIFYING_GRACE_S = 0.2
"""A job whose verdict follows its translation this soon gets its `verifying` event written together with its
completion, one transaction instead of two; a longer one gets it written when the grace runs out."""


def child_main(conn: Connection, settings: ServiceSettings) -> None:
    """A job process: receive claims until None or EOF, run each (`runner.attempt`), send back its Outcome.

    Pipe protocol, pickled: parent -> child a Claim, or None to stop; child -> parent (TRANSLATED, time) once
    translation is done and (PROGRESS, JobProgress) as each step's check starts, then the Outcome. The child does
    not wait for the parent to record either: a lease lost meanwhile (cancelled, reclaimed) only makes the parent
    refuse to record the outcome."""
    # The server decides when its jobs stop: a SIGTERM or Ctrl-C sent to the whole process group must not kill a
    # job midway (nor print a KeyboardInterrupt). A handler, not SIG_IGN: it does not outlive an exec into a checker.
    # The process was born with these signals blocked (`_Child`), so one sent while it was still starting waits
    # for the handler instead of killing it.
    for sig in _SERVER_SIGNALS:
        signal.signal(sig, _ignore)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _SERVER_SIGNALS)
    issuer = CertificateIssuer(settings)
    _warm()
    while True:
        try:
            message = conn.recv()
        except EOFError:
            return
        if message is None:
            return

        def on_translated() -> bool:
            conn.send((TRANSLATED, time.time()))
            return True

        def on_progress(progress: JobProgress) -> None:
            conn.send((PROGRESS, progress))

        conn.send(attempt(settings, message, issuer, on_translated, on_progress))


def _ignore(_signum, _frame) -> None:
    """Signals the parent handles for its job processes."""


def _mark(on_translated, at: float) -> None:
    try:
        on_translated(at)
    except Exception:  # the completion is still written under the lease; only the phase is missing
        log.warning("could not record a job's move to verifying", exc_info=True)


def _report(on_progress, progress: JobProgress) -> None:
    try:
        on_progress(progress)
    except Exception:  # only the page's progress is missing
        log.warning("could not record a job's progress", exc_info=True)


class _Child:
    """One job process and our end of its pipe."""

    def __init__(self, settings: ServiceSettings) -> None:
        # spawn, not fork: the parent has threads (API, lease keepers); forking those can deadlock.
        mp = multiprocessing.get_context("spawn")
        self.conn, theirs = mp.Pipe()
        # Not a daemon: checkers start processes of their own. It exits on EOF when we go away.
        self.process = mp.Process(
            target=child_main,
            args=(theirs, settings),
            name="reasonforge-job",
            daemon=False,
        )
        # The child inherits this thread's signal mask: blocked, a stop signal sent to the process group while the
        # child imports (seconds on a loaded machine) is held until child_main has its handler, not fatal. The
        # resource tracker unblocks both signals when start() launches it, so it is launched first.
        resource_tracker.ensure_running()
        previous = signal.pthread_sigmask(signal.SIG_BLOCK, _SERVER_SIGNALS)
        try:
            self.process.start()
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, previous)
        theirs.close()

    def run(self, claim: leases.Claim, on_translated, on_progress=None) -> tuple[Outcome, float | None]:
        """The job's outcome and, when `verifying` is still to be written with it, the time translation ended.

        The phase is written once the verification has taken `VERIFYING_GRACE_S`; the latest step's progress once
        it is `PROGRESS_INTERVAL_S` old (after the phase), so a quick job writes neither before its outcome."""
        pending: float | None = None
        verifying_due: float | None = None
        progress: JobProgress | None = None
        progress_due: float | None = None
        try:
            self.conn.send(claim)
            while True:
                due = [d for d in (verifying_due, progress_due) if d is not None]
                if due and not self.conn.poll(max(0.0, min(due) - time.monotonic())):
                    now = time.monotonic()
                    if pending is not None and (now >= (verifying_due or now) or progress_due is not None
                                                and now >= progress_due):
                        _mark(on_translated, pending)  # a long verification: show the phase now
                        pending = verifying_due = None
                    if progress is not None and progress_due is not None and now >= progress_due:
                        if on_progress is not None:
                            _report(on_progress, progress)
                        progress = progress_due = None
                    continue
                reply = self.conn.recv()
                if isinstance(reply, tuple) and reply[0] == TRANSLATED:
                    pending, verifying_due = reply[1], time.monotonic() + VERIFYING_GRACE_S
                    continue
                if isinstance(reply, tuple) and reply[0] == PROGRESS:
                    progress = reply[1]
                    progress_due = progress_due or time.monotonic() + PROGRESS_INTERVAL_S
                    continue
                return reply, pending
        except (EOFError, OSError) as exc:
            self.process.join(timeout=5)
            raise JobProcessDied(
                f"the process running the job died (exit code {self.process.exitcode})"
            ) from exc

    def close(self, wait: bool = True) -> None:
        try:
            self.conn.send(None)
        except OSError:
            pass
        self.process.join(timeout=30 if wait else 0.5)
        if self.process.is_alive():
            self.process.kill()
            self.process.join(timeout=5)
        self.conn.close()


class ProcessExecutor:
    """`size` job processes started on demand; one that dies is replaced by a fresh one. The outcomes they
    send back are written to `sm` here."""

    def __init__(self, settings: ServiceSettings, sm, size: int) -> None:
        self._settings, self._sm = settings, sm
        self._slots: queue.Queue[_Child | None] = queue.Queue()
        self._children: list[_Child] = []
        self._lock = threading.Lock()
        for _ in range(size):
            self._slots.put(None)

    def _start(self) -> _Child:
        child = _Child(self._settings)
        with self._lock:
            self._children.append(child)
        return child

    def warm(self) -> None:
        """Start every job process now (each verifies a tiny chain before taking jobs)."""
        slots = []
        while True:
            try:
                slots.append(self._slots.get_nowait())
            except queue.Empty:
                break
        for slot in slots:
            self._slots.put(slot if slot is not None else self._start())

    def idle(self) -> bool:
        """Whether a job process is free."""
        return not self._slots.empty()

    def execute(self, claim: leases.Claim) -> JobStatus | None:
        """Run the job on a free job process (waiting for one); JobProcessDied if it died meanwhile."""
        child = self._slots.get()
        if child is None or not child.process.is_alive():
            child = self._start()
        try:
            outcome, verifying_at = child.run(
                claim, lambda at: mark_verifying(self._sm, self._settings, claim, at=at),
                lambda progress: record_progress(self._sm, claim, progress),
            )
        except JobProcessDied:
            with self._lock:
                if child in self._children:  # shutdown() may have taken the list meanwhile
                    self._children.remove(child)
            child.conn.close()
            child = None
            raise
        finally:
            self._slots.put(child)
        return record(self._sm, self._settings, claim, outcome, verifying_at=verifying_at)

    def shutdown(self, wait: bool = True) -> None:
        """Stop every job process after its current job, or (`wait` false) at once."""
        with self._lock:
            children, self._children = self._children, []
        for child in children:
            child.close(wait)


class ContextHolder:
    """A `JobContext` and a job executor built lazily per process (a forked Celery child must not
    reuse its parent's connections or executor processes)."""

    def __init__(self, settings: ServiceSettings, executor_size: int = 1) -> None:
        self.settings = settings
        self._executor_size = executor_size
        self._pid: int | None = None
        self._context: JobContext | None = None
        self._executor: ProcessExecutor | None = None

    def _fresh(self) -> None:
        if self._pid != os.getpid():
            self._pid, self._context, self._executor = os.getpid(), None, None

    def get(self) -> JobContext:
        """This process's context."""
        self._fresh()
        if self._context is None:
            self._context = make_context(self.settings)
        return self._context

    def executor(self) -> ProcessExecutor:
        """This process's job executor (child processes, `executor_size` of them)."""
        self._fresh()
        if self._executor is None:
            self._executor = ProcessExecutor(self.settings, self.get().sessionmaker, self._executor_size)
        return self._executor

    def close(self) -> None:
        """Stop this process's executor and release its connections."""
        if self._pid != os.getpid():
            return
        if self._executor is not None:
            self._executor.shutdown()
        if self._context is not None:
            self._context.close()
        self._context, self._executor = None, None
