"""The lean4 family's aligner. The Lean 4 checker compiles and audits proofs but does not read theorem statements,
so nothing ties a Lean theorem to what its step says: a verified lean4 outcome carries no evidence and the gate
leaves the step unsupported (the checker already says so); whatever evidence an outcome claims is dropped."""

from __future__ import annotations

from reasonforge.registry import checkers
from reasonforge.types import ArtifactLanguage, CheckLimits, CheckOutcome, StepContext, StepTranslation

__all__ = ["align"]


@checkers.aligner(ArtifactLanguage.LEAN4)
def align(context: StepContext, translation: StepTranslation, outcome: CheckOutcome, limits: CheckLimits) -> CheckOutcome:
    """`outcome` without evidence: no Lean statement is read, so none is aligned with the step."""
    return outcome.model_copy(update={"evidence": None}) if outcome.evidence is not None else outcome
