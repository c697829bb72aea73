"""The `propositional` checker: the FOL artifact format restricted to bare atoms, decided by Z3 as SAT
(every level; quick and standard use Z3 alone, formal also requires cvc5 to agree)."""

from __future__ import annotations

from reasonforge.registry import checkers
from reasonforge.types import ArtifactLanguage, CheckLimits, CheckOutcome, ProofLevel
from reasonforge.verify.logic.smt import EntailmentChecker


@checkers.checker(ArtifactLanguage.PROPOSITIONAL)
class PropositionalChecker(EntailmentChecker):
    """Checks `propositional` artifacts (atom-only premise lines, then `⊢ conclusion`); the
    counterexample of a failed step is a truth assignment."""

    language = ArtifactLanguage.PROPOSITIONAL
    quick_supported = True


def check_propositional(artifact: str, *, level: ProofLevel = ProofLevel.QUICK,
                        limits: CheckLimits | None = None) -> CheckOutcome:
    """Check a `propositional` artifact text (convenience wrapper around PropositionalChecker)."""
    return PropositionalChecker().check(artifact, level=level, limits=limits or CheckLimits())
