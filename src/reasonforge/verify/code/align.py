"""Alignment and provenance for python artifacts: the checker records whether the tests include the step text's own examples and claims.

The python checker (verify/code/pytest_checker.py) reads the step text and the question with the offline
reader (verify/code/step_checks.py), runs every example and claim it can read against the artifact, in the
original run and in every mutant's, and records `evidence`: EXAMPLES (what was checked, and whose examples they
are) or AUTHOR_TESTS (only the artifact author's tests: verified, and saying so; never enough for VERIFIED). This aligner accepts that evidence
after checking it against the step: it reads the same texts again and requires every check the reader finds
to be among those the checker ran (a verdict reached without the step's context, or on other texts, is not
this step's), and a step whose text the reader cannot place on the artifact is unsupported.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from typing import Any

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
from reasonforge.verify.code.step_checks import ExampleCheck, plan_step_checks

CODE_EVIDENCE = (EvidenceKind.EXAMPLES, EvidenceKind.AUTHOR_TESTS)


@checkers.aligner(ArtifactLanguage.PYTHON)
def align(context: StepContext, translation: StepTranslation, outcome: CheckOutcome, limits: CheckLimits) -> CheckOutcome:
    """The outcome once tied to the step (or downgraded); evidence is recorded on a verified outcome."""
    if outcome.status is not StepStatus.VERIFIED:
        return outcome
    evidence = outcome.evidence
    if evidence is None:
        return outcome  # the gate's one rule: verified without evidence is unsupported
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
    if missing or (wanted and evidence.kind is not EvidenceKind.EXAMPLES):
        shown = missing[0] if missing else wanted[0]
        return outcome.downgraded(StepStatus.UNSUPPORTED, ErrorKind.UNALIGNED,
                         f"the step states checks the verdict did not run ({len(missing) or len(wanted)}, e.g. {shown})")
    if (faked := _answers_examples_without_computing(tree, plan.examples)) is not None:
        return outcome.downgraded(StepStatus.UNSUPPORTED, ErrorKind.UNALIGNED, faked)
    return outcome.with_evidence(evidence)


_TRIVIAL = (None, True, False, 0, 1, -1, "", (), [], {})  # base cases real code compares with


def _answers_examples_without_computing(tree: ast.Module, examples: Sequence[ExampleCheck]) -> str | None:
    """Why the examples' function can pass them without computing (it ignores its input, or looks the
    examples' inputs up), or None. Examples are all the evidence a text gives; they must be computed."""
    calls: dict[str, list[Any]] = {}
    for example in examples:
        for source, _ in example.lines:
            try:
                parsed = ast.parse(source, mode="eval")
            except SyntaxError:
                continue
            for node in ast.walk(parsed):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                    calls.setdefault(node.func.id, []).extend(_literal(arg) for arg in node.args)
    functions = {f.name: f for f in ast.walk(tree) if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)}
    for name, inputs in calls.items():
        fn = functions.get(name)
        if fn is None:
            continue
        params = [a.arg for a in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs)]
        read = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        if params and not read & set(params):
            return (f"{name} never reads its parameter{'s' if len(params) > 1 else ''} {', '.join(params)}: a "
                    "function that ignores its input can match the examples without computing anything")
        shown = [x for x in inputs if x is not _UNREAD and not any(_same(x, t) for t in _TRIVIAL)]
        for node in ast.walk(fn):
            if isinstance(node, ast.Compare):
                for literal in (node.left, *node.comparators):
                    value = _literal(literal)
                    if value is not _UNREAD and any(_same(value, x) for x in shown):
                        return (f"{name} compares its input with the example's own input {ast.unparse(literal)}: "
                                "a lookup of the examples is not an implementation of the step")
    return None


_UNREAD = object()


def _literal(node: ast.AST) -> Any:
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return _UNREAD


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b
