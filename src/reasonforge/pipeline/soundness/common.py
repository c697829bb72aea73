"""What every aligner shares: reading and writing `evidence`, and the one rule no verified step escapes."""

from __future__ import annotations

from pydantic import ValidationError

from reasonforge.types import CheckOutcome, ErrorKind, Evidence, StepStatus

EVIDENCE_KEY = "evidence"
ALIGNED_KEY = "aligned_claim"


def evidence_of(outcome: CheckOutcome) -> Evidence | None:
    """The outcome's recorded evidence, or None when absent or malformed."""
    raw = outcome.details.get(EVIDENCE_KEY)
    if isinstance(raw, Evidence):
        return raw
    if not isinstance(raw, dict):
        return None
    try:
        return Evidence.model_validate(raw)
    except ValidationError:
        return None


def with_evidence(outcome: CheckOutcome, evidence: Evidence) -> CheckOutcome:
    """`outcome` with `evidence` and its aligned claim recorded in the details (plain JSON)."""
    details = {**outcome.details, EVIDENCE_KEY: evidence.model_dump(mode="json"), ALIGNED_KEY: evidence.aligned_claim}
    return outcome.model_copy(update={"details": details})


def downgrade(outcome: CheckOutcome, status: StepStatus, kind: ErrorKind, message: str, **extra: object) -> CheckOutcome:
    """`outcome` turned into `status` for `message`; the checker's own verdict stays in `checker_status`."""
    details = {**outcome.details, "error_kind": kind, "checker_status": outcome.status.value, **extra}
    details.pop(EVIDENCE_KEY, None)
    details.pop(ALIGNED_KEY, None)
    return CheckOutcome(status=status, message=message, details=details)


def require_evidence(outcome: CheckOutcome) -> CheckOutcome:
    """A verified outcome without evidence becomes unsupported: an artifact proven but tied to nothing."""
    if outcome.status is not StepStatus.VERIFIED or evidence_of(outcome) is not None:
        return outcome
    return downgrade(outcome, StepStatus.UNSUPPORTED, ErrorKind.NO_EVIDENCE,
                     "the checker proved the artifact, but nothing ties the artifact to what the step says")
