"""Run one claimed job: translate, verify, certify, complete; heartbeat the lease meanwhile.

The claiming thread keeps the lease alive while an executor (normally a child process, see
`executor.py`) does the work and writes the job's transitions and outcome itself, each write
conditional on the claim's lease token.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Self

from sqlalchemy.orm import sessionmaker

from reasonforge.errors import ReasonForgeError
from reasonforge.service.jobs import leases
from reasonforge.service.jobs.certify import CertificateFailure, CertificateIssuer
from reasonforge.service.jobs.context import JobContext
from reasonforge.service.settings import ServiceSettings
from reasonforge.translate.llm import ModelError
from reasonforge.types import (
    JobStatus,
    StepTranslation,
    VerificationVerdict,
    VerifyRequest,
)

log = logging.getLogger(__name__)

Dispatch = Callable[[str], None]


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
        self._stop.set()
        self._thread.join()

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
    """Wraps the default translator to persist `verifying` once translation is done."""

    def __init__(self, inner, on_translated: Callable[[], None]) -> None:
        self._inner = inner
        self._on_translated = on_translated
        self.spec = inner.spec

    def translate_chain(
        self, request: VerifyRequest, ancestors: Mapping[int, Sequence[int]]
    ) -> list[StepTranslation]:
        """Translate with the wrapped translator, then record the phase change."""
        out = self._inner.translate_chain(request, ancestors)
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


def execute_with(
    sm: sessionmaker,
    settings: ServiceSettings,
    claim: leases.Claim,
    issuer: CertificateIssuer,
) -> JobStatus | None:
    """Verify (and certify), then complete, fail or release the job; None when the lease was lost."""
    request = claim.request.model_copy(update={"task_id": claim.task_id})
    verdict: VerificationVerdict | None = None
    try:
        verdict = _verify(sm, settings, claim, request)
        certificate = issuer.issue(verdict) if request.generate_certificate else None
    except LeaseLost:
        log.info(
            "job %s: lease lost (reclaimed or cancelled); dropping this attempt",
            claim.task_id,
        )
        return None
    except CertificateFailure as exc:
        # The verdict stands; issuing may succeed on another attempt (or another worker).
        log.warning("job %s: %s", claim.task_id, exc.message)
        return leases.release(
            sm, claim, exc.message, max_attempts=settings.max_attempts, verdict=verdict
        )
    except ModelError as exc:
        # The model endpoint did not answer: another attempt (later, or on another worker) may get through.
        log.warning("job %s: %s", claim.task_id, exc.message)
        return leases.release(sm, claim, exc.message, max_attempts=settings.max_attempts)
    except ReasonForgeError as exc:
        # The request cannot be verified as sent (bad translation, missing prover): retrying won't help.
        return JobStatus.FAILED if leases.fail(sm, claim, exc.message) else None
    except Exception as exc:
        log.exception("job %s attempt %d crashed", claim.task_id, claim.attempt)
        return leases.release(
            sm,
            claim,
            f"internal error: {type(exc).__name__}: {exc}",
            max_attempts=settings.max_attempts,
        )
    if leases.complete(sm, claim, verdict, certificate):
        return JobStatus.COMPLETE
    log.info(
        "job %s: completed by another attempt first; this result is discarded",
        claim.task_id,
    )
    return None


def _verify(
    sm: sessionmaker,
    settings: ServiceSettings,
    claim: leases.Claim,
    request: VerifyRequest,
) -> VerificationVerdict:
    from reasonforge.pipeline.run import verify_chain
    from reasonforge.translate.ensemble import Ensemble
    from reasonforge.translate.select import translator_for

    def to_verifying() -> None:
        if not leases.advance(
            sm, claim, JobStatus.VERIFYING, lease_s=settings.lease_seconds
        ):
            raise LeaseLost

    if request.translations is not None:
        to_verifying()
        return verify_chain(request)
    inner = translator_for(request, request.translator or settings.translator)
    if isinstance(inner, Ensemble):
        # Members translate in order: the phase changes once the last one is done.
        *first, last = inner.members
        phased = Ensemble([*first, _PhaseTranslator(last, to_verifying)], min_agree=inner.min_agree)
        return verify_chain(request, translator=phased)
    return verify_chain(request, translator=_PhaseTranslator(inner, to_verifying))
