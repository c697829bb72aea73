"""The soundness gate: a step's outcome counts only once its checker family's aligner has tied it to what the
step says.

A checker proves its artifact; the aligner registered with its family (`verify/<family>/align.py`) asks whether
the artifact is the step, as the family's reader reads the step's text:

- *the domain picks the family*: an artifact in a language the chain's domain does not accept (a `python`
  artifact for a logic claim) is judged by nobody: unsupported, whatever its checker said;
- *alignment*: the artifact's conclusion states what the step's text claims (a claim the reader cannot read
  leaves the step at best `unsupported`);
- *provenance*: every premise the artifact uses is a given of the question, an ancestor's claim, checked to
  follow from them, or a premise the step itself states (an assumption, listed in the evidence);

and records the `Evidence` a verified outcome rests on. Then one rule holds for every language: a `verified`
outcome without evidence becomes `unsupported` (ErrorKind.NO_EVIDENCE), and a family with no aligner ties
nothing, so no checker path can yield a verdict that nothing ties to the step. And one for proof assistants: a
proof that does not go through (it does not compile, a tactic fails, it uses a forbidden axiom, its theorem is
not the step's) shows that the artifact proves nothing, never that the step is false: such a step is refuted
only when its own arithmetic is false as written (`lang.math.reading.false_closed_claim`), else unsupported.
"""

from __future__ import annotations

from reasonforge.lang.math import false_closed_claim
from reasonforge.registry import CheckerRegistry, checkers
from reasonforge.types import (
    DOMAIN_LANGUAGES,
    ArtifactLanguage,
    CheckLimits,
    CheckOutcome,
    Domain,
    ErrorKind,
    StepContext,
    StepStatus,
    StepTranslation,
)

__all__ = ["gate", "require_evidence"]


def gate(context: StepContext, translation: StepTranslation, outcome: CheckOutcome, limits: CheckLimits,
         registry: CheckerRegistry = checkers) -> CheckOutcome:
    """The step's outcome after its family's alignment and provenance (see the module docstring)."""
    if outcome.status is StepStatus.ERROR:
        return outcome.model_copy(update={"evidence": None})
    accepted = DOMAIN_LANGUAGES[context.domain]
    aligner = registry.aligner_for(translation.language) if translation.language in accepted else None
    if aligner is not None:
        outcome = aligner(context, translation, outcome, limits)
        if translation.language in _PROOF_ASSISTANTS:
            outcome = _no_proof_is_no_refutation(context, outcome)
        return require_evidence(outcome)
    if outcome.status not in (StepStatus.VERIFIED, StepStatus.FAILED):
        return outcome.model_copy(update={"evidence": None})
    if translation.language not in accepted:
        allowed = ", ".join(sorted(language.value for language in accepted))
        why = (f"a {translation.language.value} artifact cannot judge a {context.domain.value} step: the "
               f"{context.domain.value} domain accepts {allowed}")
    else:
        why = (f"no aligner is registered for {translation.language.value} artifacts, so nothing ties the "
               "checker's verdict to what the step says")
    return outcome.downgraded(StepStatus.UNSUPPORTED, ErrorKind.UNALIGNED, why)


_PROOF_ASSISTANTS = frozenset({ArtifactLanguage.COQ, ArtifactLanguage.LEAN4})
# what a proof assistant's outcome may refute a step for: a value or relation checked false, the claimed answer
# against the derived one, a premise the givens contradict
_REFUTING = frozenset({ErrorKind.ARITHMETIC, ErrorKind.CONTRADICTION, ErrorKind.ANSWER_MISMATCH,
                       ErrorKind.CONTRADICTED_PREMISE, ErrorKind.BINDING, ErrorKind.COUNTEREXAMPLE})


def _no_proof_is_no_refutation(context: StepContext, outcome: CheckOutcome) -> CheckOutcome:
    """A failed proof is no refutation (module docstring): the step's own false arithmetic refutes it, else it is
    unsupported with the proof assistant's message."""
    if outcome.status is not StepStatus.FAILED or outcome.error_kind in _REFUTING:
        return outcome
    false = false_closed_claim(context.content, context.claimed_conclusion) \
        if context.domain is Domain.MATHEMATICS else None
    if false is not None:
        return outcome.downgraded(StepStatus.FAILED, ErrorKind.ARITHMETIC,
                                  f"{false} (the step's own arithmetic; its proof did not go through either: "
                                  f"{outcome.message})")
    return outcome.downgraded(StepStatus.UNSUPPORTED, outcome.error_kind or ErrorKind.NOT_CHECKED,
                              f"the proof did not go through ({outcome.message}): a proof that fails shows that the "
                              "artifact proves nothing, not that the step is false")


def require_evidence(outcome: CheckOutcome) -> CheckOutcome:
    """A verified outcome without evidence becomes unsupported: an artifact proven but tied to nothing."""
    if outcome.status is not StepStatus.VERIFIED or outcome.evidence is not None:
        return outcome
    return outcome.downgraded(StepStatus.UNSUPPORTED, ErrorKind.NO_EVIDENCE,
                              "the checker proved the artifact, but nothing ties the artifact to what the step says")
