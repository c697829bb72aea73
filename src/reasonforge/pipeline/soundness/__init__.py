"""The soundness gate: a step is VERIFIED only when what was proven is tied to what the step says.

A checker proves its artifact; this gate asks whether the artifact is the step. For every step the checker
verified, the family's aligner (one module per artifact family) checks

- *alignment*: the artifact's conclusion states what the step's text claims, as the offline reader reads it
  (a claim the reader cannot read leaves the step at best `unsupported`), and
- *provenance*: every premise the artifact uses is a given of the question, an ancestor's claim, or checked to
  follow from them,

and records `evidence` (types.Evidence) in the details. Then one rule holds for every language: a `verified`
outcome without evidence becomes `unsupported` (ErrorKind.NO_EVIDENCE), so no checker path can yield a VERIFIED
that nothing ties to the step.
"""

from __future__ import annotations

from collections.abc import Callable

from reasonforge.pipeline.soundness import code, logic, math, proofs
from reasonforge.pipeline.soundness.common import EVIDENCE_KEY, evidence_of, require_evidence
from reasonforge.types import ArtifactLanguage, CheckLimits, CheckOutcome, StepContext, StepStatus, StepTranslation

__all__ = ["EVIDENCE_KEY", "evidence_of", "gate", "require_evidence"]

Aligner = Callable[[StepContext, StepTranslation, CheckOutcome, CheckLimits], CheckOutcome]

ALIGNERS: dict[ArtifactLanguage, Aligner] = {
    ArtifactLanguage.FOL: logic.align,
    ArtifactLanguage.SMTLIB: logic.align,
    ArtifactLanguage.PROPOSITIONAL: logic.align,
    ArtifactLanguage.SYMPY: math.align,
    ArtifactLanguage.PYTHON: code.align,
    ArtifactLanguage.COQ: proofs.align,
    ArtifactLanguage.LEAN4: proofs.align,
}


def gate(context: StepContext, translation: StepTranslation, outcome: CheckOutcome, limits: CheckLimits) -> CheckOutcome:
    """The step's outcome after alignment and provenance (see the module docstring)."""
    aligner = ALIGNERS.get(translation.language)
    if aligner is not None:
        outcome = aligner(context, translation, outcome, limits)
    return require_evidence(outcome) if outcome.status is StepStatus.VERIFIED else outcome
