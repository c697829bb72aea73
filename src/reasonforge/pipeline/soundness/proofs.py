"""Alignment and provenance for coq and lean4 artifacts: the chain checkers align each theorem and Context hypothesis themselves.

The Coq checker (verify/coq/judge.py) reads each step's theorems as Coq printed them, compares them with the
claims its offline reader takes from the step's text (binders respected), checks every Context declaration a
proof uses against the question's givens, and records `evidence` of kind THEOREM on the steps it verifies.
This aligner accepts exactly that evidence: a verified coq or lean4 outcome whose evidence is missing, of
another kind, without an aligned claim, or not the one its details name is stripped of it, and the gate's one
rule (no evidence: unsupported, NO_EVIDENCE) then applies.
"""

from __future__ import annotations

from reasonforge.pipeline.soundness.common import ALIGNED_KEY, EVIDENCE_KEY, evidence_of
from reasonforge.types import CheckLimits, CheckOutcome, EvidenceKind, StepContext, StepStatus, StepTranslation


def align(context: StepContext, translation: StepTranslation, outcome: CheckOutcome, limits: CheckLimits) -> CheckOutcome:
    """The outcome once tied to the step (or downgraded); evidence is recorded on a verified outcome."""
    if outcome.status is not StepStatus.VERIFIED:
        return outcome
    evidence = evidence_of(outcome)
    accepted = (
        evidence is not None
        and evidence.kind is EvidenceKind.THEOREM
        and bool(evidence.aligned_claim.strip())
        and outcome.details.get(ALIGNED_KEY) == evidence.aligned_claim
        and (outcome.details.get("alignment") or {}).get("status") == "aligned"
    )
    if accepted:
        return outcome
    details = {k: v for k, v in outcome.details.items() if k not in (EVIDENCE_KEY, ALIGNED_KEY)}
    return outcome.model_copy(update={"details": details})
