"""Alignment and provenance for python artifacts: the checker records whether the tests include the step text's own examples and claims.

The python checker (verify/code/pytest_checker.py) reads the step text and the question with the offline
reader (verify/code/step_checks.py), runs every example and claim it can read against the artifact, in the
original run and in every mutant's, and records `evidence`: STEP_EXAMPLES (what was checked) or
AUTHOR_TESTS (only the artifact author's tests: verified, and saying so). This aligner accepts that evidence
after checking it against the step: it reads the same texts again and requires every check the reader finds
to be among those the checker ran (a verdict reached without the step's context, or on other texts, is not
this step's), and a step whose text the reader cannot place on the artifact is unsupported.
"""

from __future__ import annotations

import ast

from reasonforge.pipeline.soundness.common import downgrade, evidence_of, with_evidence
from reasonforge.types import (
    CheckLimits,
    CheckOutcome,
    ErrorKind,
    EvidenceKind,
    StepContext,
    StepStatus,
    StepTranslation,
)
from reasonforge.verify.code.step_checks import plan_step_checks

CODE_EVIDENCE = (EvidenceKind.STEP_EXAMPLES, EvidenceKind.AUTHOR_TESTS)


def align(context: StepContext, translation: StepTranslation, outcome: CheckOutcome, limits: CheckLimits) -> CheckOutcome:
    """The outcome once tied to the step (or downgraded); evidence is recorded on a verified outcome."""
    if outcome.status is not StepStatus.VERIFIED:
        return outcome
    evidence = evidence_of(outcome)
    if evidence is None:
        return outcome  # the gate's one rule: verified without evidence is unsupported
    if evidence.kind not in CODE_EVIDENCE:
        return downgrade(outcome, StepStatus.UNSUPPORTED, ErrorKind.NO_EVIDENCE,
                         f"a python step's evidence must be step examples or author tests, not {evidence.kind.value}")
    try:
        tree = ast.parse(translation.formal_representation or "")
    except (SyntaxError, ValueError):
        return downgrade(outcome, StepStatus.UNSUPPORTED, ErrorKind.NO_EVIDENCE,
                         "the verified artifact does not parse: the verdict cannot be tied to it")
    plan = plan_step_checks(context, tree)
    if plan.unaligned is not None:
        return downgrade(outcome, StepStatus.UNSUPPORTED, ErrorKind.UNALIGNED, plan.unaligned)
    ran = outcome.details.get("step_checks")
    ran_checks: set[str] = set()
    if isinstance(ran, dict):
        for key in ("examples", "claims"):
            if isinstance(ran.get(key), list):
                ran_checks.update(str(x) for x in ran[key])
    wanted = [e.describe() for e in plan.examples] + [c.describe() for c in plan.claims]
    missing = [w for w in wanted if w not in ran_checks]
    if missing or (wanted and evidence.kind is not EvidenceKind.STEP_EXAMPLES):
        shown = missing[0] if missing else wanted[0]
        return downgrade(outcome, StepStatus.UNSUPPORTED, ErrorKind.UNALIGNED,
                         f"the step states checks the verdict did not run ({len(missing) or len(wanted)}, e.g. {shown})")
    return with_evidence(outcome, evidence)
