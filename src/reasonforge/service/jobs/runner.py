"""Run one claimed job: translate, verify, certify, complete; heartbeat the lease meanwhile.

The claiming thread keeps the lease alive while an executor (normally a child process, see
`executor.py`) does the work (`attempt`, which writes nothing); the outcome and the move to
`verifying` are written in the claiming process (`record`, `mark_verifying`), each write conditional
on the claim's lease token. Job processes hold no database connection, so on SQLite every write of
the embedded server comes from one process and queues on its write gate (`db.make_engine`) instead
of sleeping in SQLite's busy handler.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from enum import StrEnum
from typing import TYPE_CHECKING, Self

from pydantic import BaseModel
from sqlalchemy.orm import sessionmaker

from reasonforge.boundary.secrets import env_secrets, scrub
from reasonforge.errors import ReasonForgeError
from reasonforge.service.jobs import leases
from reasonforge.service.jobs.certify import CertificateFailure, CertificateIssuer
from reasonforge.service.jobs.context import JobContext
from reasonforge.service.jobs.progress import PROGRESS_INTERVAL_S, JobProgress, record_progress
from reasonforge.service.logs import job_context
from reasonforge.service.settings import ServiceSettings
from reasonforge.service.verdict_key import sign
from reasonforge.translate.llm import ModelError
from reasonforge.translate.protocol import (
    DECIDED_NOTE,
    Completing,
    ExampleWriter,
    Gateable,
    QuestionFormaliser,
    StepGate,
)
from reasonforge.types import (
    JobStatus,
    StepTranslation,
    TranslatorMode,
    VerificationVerdict,
    VerifyRequest,
)

if TYPE_CHECKING:
    from reasonforge.translate.question import QuestionPrograms

log = logging.getLogger(__name__)

Dispatch = Callable[[str], None]
Report = Callable[[JobProgress], None]
"""Told each step's progress as its check starts (`progress.JobProgress`)."""


class JobProcessDied(Exception):
    """The process running a job died (killed, out of memory, a crashing native library)."""


class LeaseLost(Exception):
    """The job was reclaimed or cancelled under us: stop without writing anything."""


class _LeaseKeeper:
    """Renews the claim's lease every third of its length until stopped."""

    def __init__(self, ctx: JobContext, claim: leases.Claim) -> None:
        self._ctx, self._claim = ctx, claim
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._run, name=f"lease-{claim.task_id[:8]}", daemon=True
        )

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        # Not joined: the thread ends on its own at once, and a renewal racing the job's end is refused by
        # its token, while waiting for the thread to be scheduled would idle the job process between jobs.
        self._stop.set()

    def _run(self) -> None:
        lease_s = self._ctx.settings.lease_seconds
        while not self._stop.wait(lease_s / 3):
            try:
                if not leases.renew_lease(
                    self._ctx.sessionmaker, self._claim, lease_s=lease_s
                ):
                    return  # reclaimed or cancelled: the attempt's writes will all be refused
            except Exception:  # a database hiccup: the next beat (or the lease) decides
                log.warning(
                    "lease renewal for %s failed", self._claim.task_id, exc_info=True
                )


class _PhaseTranslator:
    """Wraps the default translator to persist `verifying` once translation is done. Everything else the pipeline
    asks of a translator goes to the wrapped one: who writes its artifacts (a model's never refute alone), the
    soundness gate during repairs, the question's formalisations and code examples."""

    def __init__(self, inner, on_translated: Callable[[], None]) -> None:
        self._inner = inner
        self._on_translated = on_translated
        self.spec = inner.spec
        self.writer = getattr(inner, "writer", TranslatorMode.RULES)

    def with_gate(self, gate: StepGate) -> _PhaseTranslator:
        """The wrapped translator held to `gate`, still recording the phase change."""
        inner = self._inner.with_gate(gate) if isinstance(self._inner, Gateable) else self._inner
        return _PhaseTranslator(inner, self._on_translated)

    def formalise_question(self, request: VerifyRequest) -> QuestionPrograms | None:
        """The wrapped translator's formalisations of the question, if it writes any."""
        inner = self._inner
        return inner.formalise_question(request) if isinstance(inner, QuestionFormaliser) else None

    def write_examples(self, request: VerifyRequest) -> dict[int, str] | None:
        """The wrapped translator's code examples, if it writes any."""
        inner = self._inner
        return inner.write_examples(request) if isinstance(inner, ExampleWriter) else None

    def translate_chain(
        self, request: VerifyRequest, ancestors: Mapping[int, Sequence[int]]
    ) -> list[StepTranslation]:
        """Translate with the wrapped translator, then record the phase change."""
        out = self._inner.translate_chain(request, ancestors)
        self._on_translated()
        return out

    def complete_chain(self, request: VerifyRequest, ancestors: Mapping[int, Sequence[int]],
                       decided: Mapping[int, StepTranslation], why: str = DECIDED_NOTE) -> list[StepTranslation]:
        """The wrapped translator's translations of the steps `decided` leaves open (all of them when it cannot
        leave any out), then the phase change."""
        inner = self._inner
        out = (inner.complete_chain(request, ancestors, decided, why) if isinstance(inner, Completing)
               else inner.translate_chain(request, ancestors))
        self._on_translated()
        return out


def run_job(
    ctx: JobContext, task_id: str, *, executor, dispatch_webhook: Dispatch
) -> JobStatus | None:
    """Claim `task_id` and run it; None when it is not claimable (done, running elsewhere, cancelled)."""
    settings = ctx.settings
    claim = leases.claim(
        ctx.sessionmaker,
        task_id,
        lease_s=settings.lease_seconds,
        max_attempts=settings.max_attempts,
        owner=ctx.worker_id,
    )
    if claim is None:
        return None
    return run_claimed(ctx, claim, executor=executor, dispatch_webhook=dispatch_webhook)


def run_claimed(
    ctx: JobContext, claim: leases.Claim, *, executor, dispatch_webhook: Dispatch
) -> JobStatus | None:
    """Run a claimed job on `executor` to its end state; a webhook (if any) goes to `dispatch_webhook`."""
    with job_context(claim.task_id):
        return _run_claimed(ctx, claim, executor=executor, dispatch_webhook=dispatch_webhook)


def _run_claimed(ctx: JobContext, claim: leases.Claim, *, executor, dispatch_webhook: Dispatch) -> JobStatus | None:
    with _LeaseKeeper(ctx, claim):
        try:
            status = executor.execute(claim)
        except JobProcessDied as exc:  # counts as an attempt: a job that kills its process is not retried forever
            log.error("job %s attempt %d: %s", claim.task_id, claim.attempt, exc)
            status = leases.release(
                ctx.sessionmaker,
                claim,
                str(exc),
                max_attempts=ctx.settings.max_attempts,
            )
    if status in (JobStatus.COMPLETE, JobStatus.FAILED) and claim.request.callback_url:
        try:
            dispatch_webhook(claim.task_id)
        except Exception:  # the sweeper re-dispatches pending webhooks
            log.warning(
                "could not dispatch the webhook of %s now", claim.task_id, exc_info=True
            )
    return status


class OutcomeKind(StrEnum):
    """How an attempt ended, which decides the write that records it."""

    COMPLETE = "complete"
    FAIL = "fail"  # permanent: the request cannot be verified as sent
    RELEASE = "release"  # transient: back to the queue while attempts remain
    LEASE_LOST = "lease_lost"  # reclaimed or cancelled meanwhile: write nothing


class Outcome(BaseModel):
    """What one attempt at a job produced, before anything is written (`record` writes it under the lease)."""

    kind: OutcomeKind
    verdict: VerificationVerdict | None = None
    certificate: leases.IssuedCertificate | None = None
    error: str | None = None


def _shown(error: str) -> str:
    """A job's error as the store keeps it and the API shows it: without any credential the process holds."""
    return scrub(error, env_secrets())


def attempt(
    settings: ServiceSettings,
    claim: leases.Claim,
    issuer: CertificateIssuer,
    on_translated: Callable[[], bool],
    on_progress: Report | None = None,
) -> Outcome:
    """Verify (and certify) a claimed job without touching the store.

    `on_translated()` records the move to `verifying` and says whether the lease is still held; `on_progress` is
    told each step's check as it starts. The caller owns every write, so a job process needs no database
    connection of its own."""
    request = claim.request.model_copy(update={"task_id": claim.task_id})
    verdict: VerificationVerdict | None = None
    try:
        verdict = _verify(settings, request, on_translated, on_progress or (lambda _progress: None))
        certificate = issuer.issue(verdict) if request.generate_certificate else None
    except LeaseLost:
        return Outcome(kind=OutcomeKind.LEASE_LOST)
    except CertificateFailure as exc:
        # The verdict stands; issuing may succeed on another attempt (or another worker).
        log.warning("job %s: %s", claim.task_id, exc.message)
        return Outcome(kind=OutcomeKind.RELEASE, error=_shown(exc.message), verdict=verdict)
    except ModelError as exc:
        # The model endpoint did not answer: another attempt (later, or on another worker) may get through.
        log.warning("job %s: %s", claim.task_id, exc.message)
        return Outcome(kind=OutcomeKind.RELEASE, error=_shown(exc.message))
    except ReasonForgeError as exc:
        # The request cannot be verified as sent (bad translation, missing prover): retrying won't help.
        return Outcome(kind=OutcomeKind.FAIL, error=_shown(exc.message))
    except Exception as exc:
        log.exception("job %s attempt %d crashed", claim.task_id, claim.attempt)
        return Outcome(kind=OutcomeKind.RELEASE, error=_shown(f"internal error: {type(exc).__name__}: {exc}"))
    return Outcome(kind=OutcomeKind.COMPLETE, verdict=verdict, certificate=certificate)


def record(
    sm: sessionmaker,
    settings: ServiceSettings,
    claim: leases.Claim,
    outcome: Outcome,
    *,
    verifying_at: float | None = None,
) -> JobStatus | None:
    """Write an attempt's outcome under the claim's lease; the job's end status, None when the lease was lost.

    `verifying_at`: translation ended then and `verifying` is not written yet; it is written first (with the
    completion, in one transaction). Every verdict is stored signed with the service's key (`verdict_key`)."""
    if outcome.verdict is not None:
        outcome = outcome.model_copy(update={"verdict": _signed(settings, outcome.verdict)})
    kind = outcome.kind
    if verifying_at is not None and kind is not OutcomeKind.COMPLETE and kind is not OutcomeKind.LEASE_LOST:
        mark_verifying(sm, settings, claim, at=verifying_at)
    if kind is OutcomeKind.COMPLETE:
        assert outcome.verdict is not None  # attempt() makes a COMPLETE outcome only with its verdict
        if leases.complete(sm, claim, outcome.verdict, outcome.certificate, verifying_at=verifying_at):
            return JobStatus.COMPLETE
        log.info("job %s: completed by another attempt first; this result is discarded", claim.task_id)
        return None
    if kind is OutcomeKind.FAIL:
        return JobStatus.FAILED if leases.fail(sm, claim, outcome.error or "failed") else None
    if kind is OutcomeKind.RELEASE:
        return leases.release(sm, claim, outcome.error or "retrying",
                              max_attempts=settings.max_attempts, verdict=outcome.verdict)
    log.info("job %s: lease lost (reclaimed or cancelled); dropping this attempt", claim.task_id)
    return None


def _signed(settings: ServiceSettings, verdict: VerificationVerdict) -> VerificationVerdict:
    """`verdict` signed with the service's key; unsigned when the key cannot be read: then every page shows the
    verdict as unattested, which is true, rather than losing the verdict."""
    try:
        return sign(settings, verdict)
    except ReasonForgeError as exc:
        log.error("verdict of %s stored unsigned: %s", verdict.task_id, exc.message)
        return verdict


def mark_verifying(
    sm: sessionmaker, settings: ServiceSettings, claim: leases.Claim, *, at: float | None = None
) -> bool:
    """Record that translation is done (status verifying, at `at`, default now); False when the lease was lost."""
    return leases.advance(sm, claim, JobStatus.VERIFYING, lease_s=settings.lease_seconds, at=at)


def execute_with(
    sm: sessionmaker,
    settings: ServiceSettings,
    claim: leases.Claim,
    issuer: CertificateIssuer,
) -> JobStatus | None:
    """Verify (and certify), then complete, fail or release the job in this thread; None when the lease was lost."""
    last = [0.0]

    def report(progress: JobProgress) -> None:
        # in this thread, each write waits for the check that follows it: a step every PROGRESS_INTERVAL_S at most
        if time.monotonic() - last[0] >= PROGRESS_INTERVAL_S:
            last[0] = time.monotonic()
            record_progress(sm, claim, progress)

    outcome = attempt(settings, claim, issuer, lambda: mark_verifying(sm, settings, claim), report)
    return record(sm, settings, claim, outcome)


def _verify(
    settings: ServiceSettings,
    request: VerifyRequest,
    on_translated: Callable[[], bool],
    on_progress: Report,
) -> VerificationVerdict:
    from reasonforge.pipeline.run import verify_chain
    from reasonforge.translate.ensemble import Ensemble
    from reasonforge.translate.select import translator_for

    said = [""]

    def to_verifying() -> None:
        if not on_translated():
            raise LeaseLost

    def step_started(step_id: int, position: int, total: int) -> None:
        on_progress(JobProgress(step_id=step_id, position=position, total=total, message=said[0]))

    def run(translator=None) -> VerificationVerdict:
        return verify_chain(request, translator=translator, progress=lambda message: said.__setitem__(0, message),
                            on_step=step_started)

    if request.translations is not None:
        to_verifying()
        return run()
    inner = translator_for(request, request.translator or settings.translator)
    if isinstance(inner, Ensemble):
        # Members translate in order: the phase changes once the last one is done.
        *first, last = inner.members
        return run(Ensemble([*first, _PhaseTranslator(last, to_verifying)], min_agree=inner.min_agree))
    return run(_PhaseTranslator(inner, to_verifying))
