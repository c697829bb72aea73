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
from collections.abc import Sequence
from typing import Any

from reasonforge.pipeline.soundness.common import downgrade, evidence_of, with_evidence
from reasonforge.types import (
    CheckLimits,
    CheckOutcome,
    ErrorKind,
    EvidenceKind,
    Formaliser,
    StepContext,
    StepStatus,
    StepTranslation,
)
from reasonforge.verify.code.step_checks import ExampleCheck, plan_step_checks

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
    if (faked := _answers_examples_without_computing(tree, plan.examples)) is not None:
        return downgrade(outcome, StepStatus.UNSUPPORTED, ErrorKind.UNALIGNED, faked)
    texts = [context.content, *(a.content for a in context.ancestors)]
    if evidence.kind is EvidenceKind.AUTHOR_TESTS and (tests := _tests_in_text(tree, translation, texts)):
        # the tests are the step's own text (its code block): running them checks what the step says, not
        # what a separate artifact's author chose to assert
        evidence = evidence.model_copy(update={
            "kind": EvidenceKind.STEP_EXAMPLES, "formaliser": Formaliser.OFFLINE_READER,
            "note": f"the step's own tests, as its text writes them ({', '.join(tests)}), run against the "
                    "implementation and its mutants"})
    return with_evidence(outcome, evidence)


def _tests_in_text(tree: ast.Module, translation: StepTranslation, texts: Sequence[str]) -> list[str]:
    """The artifact's test functions when at least one is written, as is, in the step's own text and each other
    one is in an ancestor's text or only asserts the texts' own `>>>` examples; else []."""
    squeezed = [" ".join(t.split()) for t in texts]
    examples = _doctests(texts)
    tests = [f for f in tree.body if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef) and f.name.startswith("test")]
    own = 0  # tests written in this step's own text: an ancestor's tests check the ancestor's claim, not this one
    for f in tests:
        source = ast.get_source_segment(translation.formal_representation, f)
        written = " ".join(source.split()) if source is not None else None
        if written is not None and written in squeezed[0]:
            own += 1
        elif not (written is not None and any(written in t for t in squeezed[1:])
                  or f.body and all(_asserts_an_example(stmt, examples) for stmt in f.body)):
            return []
    return [f.name for f in tests] if own else []


def _doctests(texts: Sequence[str]) -> set[tuple[str, str]]:
    """(call, expected) of every `>>> call` line followed by its output line, both as `ast.unparse` prints them."""
    found: set[tuple[str, str]] = set()
    for text in texts:
        lines = text.splitlines()
        for k, line in enumerate(lines[:-1]):
            stripped = line.strip()
            if stripped.startswith(">>>"):
                try:
                    call = ast.unparse(ast.parse(stripped[3:].strip(), mode="eval"))
                    want = ast.unparse(ast.parse(lines[k + 1].strip(), mode="eval"))
                except (SyntaxError, ValueError, RecursionError):
                    continue
                found.add((call, want))
    return found


def _asserts_an_example(stmt: ast.stmt, examples: set[tuple[str, str]]) -> bool:
    """`assert (call) == (expected), …` for one of the texts' examples."""
    test = stmt.test if isinstance(stmt, ast.Assert) else None
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return False
    return (ast.unparse(test.left), ast.unparse(test.comparators[0])) in examples


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
