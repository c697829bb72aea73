"""Alignment and provenance for python artifacts: the checker's evidence, tied to the step it was reached for.

The python checker (verify/code/pytest_checker.py) reads the step text, the question and the written examples
with the offline reader (verify/code/step_checks.py), runs every example and claim it can read against the
artifact in a process of their own, in the original run and in every mutant's, and records `evidence`:
EXAMPLES (what was checked, and whose: the question's, an independent writer's, the author's) or
AUTHOR_TESTS (the artifact author's tests alone, when they assert values; never enough for VERIFIED), or
none, when nothing counts (`computing.py`'s rules: a single or trivial case, an assertion-free or type-only
test, an example answered without computing): then the step is unsupported, with the checker's reason.
This aligner accepts the evidence after checking it against the step: it reads the same texts again and
requires every check the reader finds to be among those the checker ran (a verdict reached without the
step's context, or on other texts, is not this step's), and a step whose text the reader cannot place on
the artifact is unsupported.
"""

from __future__ import annotations

import ast

from reasonforge.registry import checkers
from reasonforge.types import (
    ArtifactLanguage,
    CheckLimits,
    CheckOutcome,
    ErrorKind,
    EvidenceKind,
    StepContext,
    StepStatus,
    StepTranslation,
)
from reasonforge.verify.code.step_checks import plan_step_checks

CODE_EVIDENCE = (EvidenceKind.EXAMPLES, EvidenceKind.AUTHOR_TESTS)


@checkers.aligner(ArtifactLanguage.PYTHON)
def align(context: StepContext, translation: StepTranslation, outcome: CheckOutcome, limits: CheckLimits) -> CheckOutcome:
    """The outcome once tied to the step (or downgraded); evidence is recorded on a verified outcome."""
    if outcome.status is not StepStatus.VERIFIED:
        return outcome
    evidence = outcome.evidence
    if evidence is None:  # the checker found nothing that counts (its message says why)
        return outcome.downgraded(StepStatus.UNSUPPORTED, ErrorKind.NO_EVIDENCE, outcome.message or (
            "the artifact is verified, but nothing the step, the question or its tests state is evidence"))
    if evidence.kind not in CODE_EVIDENCE:
        return outcome.downgraded(StepStatus.UNSUPPORTED, ErrorKind.NO_EVIDENCE,
                         f"a python step's evidence must be examples or author tests, not {evidence.kind.value}")
    try:
        tree = ast.parse(translation.formal_representation or "")
    except (SyntaxError, ValueError):
        return outcome.downgraded(StepStatus.UNSUPPORTED, ErrorKind.NO_EVIDENCE,
                         "the verified artifact does not parse: the verdict cannot be tied to it")
    plan = plan_step_checks(context, tree)
    if plan.unaligned is not None:
        return outcome.downgraded(StepStatus.UNSUPPORTED, ErrorKind.UNALIGNED, plan.unaligned)
    ran = outcome.details.get("step_checks")
    ran_checks: set[str] = set()
    if isinstance(ran, dict):
        for key in ("examples", "claims"):
            if isinstance(ran.get(key), list):
                ran_checks.update(str(x) for x in ran[key])
    wanted = [e.describe() for e in plan.examples] + [c.describe() for c in plan.claims]
    missing = [w for w in wanted if w not in ran_checks]
    if missing:
        return outcome.downgraded(StepStatus.UNSUPPORTED, ErrorKind.UNALIGNED,
                         f"the step states checks the verdict did not run ({len(missing)}, e.g. {missing[0]})")
    return outcome.with_evidence(evidence)
