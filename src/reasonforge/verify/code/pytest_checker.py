"""The `python` checker: one module holding an implementation, its pytest tests and hypothesis properties.

Every run of artifact code happens in the sandbox (`verify/sandbox/runner.py`); the verifier only parses the
artifact (AST) and reads reports.

Before anything runs
- An artifact whose syntax tree nests deeper than the verifier's recursive readers of it can follow
  (`verify/code/nesting.py`) is `unsupported`, with what nests and how to write it instead: never a crash.
- An artifact that configures or patches hypothesis (profiles, internals, private attributes) is refused
  (`verify/code/policy.py`); per-test `@settings` are allowed and do not apply: every property runs
  under the harness's profile, and one whose generated examples did not run (explicit examples only,
  assume() rejecting nearly everything, a patched engine) fails (`harness_run.interpret`).
- The step's own checks are read (`verify/code/step_checks.py`): the `>>>` examples of the step text, of
  the question and of a writer that never saw the code, and the plain claims of the step text and the
  question ("returns the largest element"). They run against the artifact in every test run, original and
  mutants, in a process of their own (harness/rf_child_step.py) that never sees what they should give; a
  mismatch fails the step (`unaligned`); an example or claim the step must answer naming what the artifact
  does not bind, a value that is not plain data, or a run in which the artifact reached into the harness
  leaves it `unsupported`, and so does an artifact that gives its examples without computing them (a
  lookup, ignored parameters, an output perturbed inputs do not move: `computing.py`).

Evidence (the outcome's `evidence`, a `types.Evidence`): EXAMPLES lists the examples and claims checked and
whose they are (the question's, an independent writer's, the author's); AUTHOR_TESTS (the function
signatures, "author's tests only") says the verdict rests on the artifact author's tests alone. When nothing
counts (`computing.py`: single or trivial cases, tests that assert nothing or only types), the outcome is
verified without evidence, its message says why, and the aligner makes the step unsupported.

Levels
- quick: syntax check; mypy on the artifact when mypy is installed in the sandbox's Python (otherwise
  skipped with a note in details); the artifact's tests, top-level asserts and the step's checks run in
  the sandbox (few hypothesis examples).
- standard: the tests run (≥ 1 collected, all pass, no hypothesis property violated), then generated
  mutants of the implementation (`verify/code/mutants.py`) and the original run exactly alike
  (`harness_run.run_variants`: each in its own fresh sandbox, same file, command line and options, random
  order; the original must pass there too), two at a time, each with its own timeout; the tests must kill
  at least `mutation_threshold` (default 0.5, see "Threshold" below) of the mutants that are not likely
  equivalent:
  score = killed / (mutants − likely equivalent), and pass the value check (below). Tests that fall short (a
  low score, a function they never run, no value checked, nothing a mutant changes) say nothing either way
  about the code: the step is `unsupported` with what they miss, never `failed`, which only a check that does
  not hold (a failing test or example, a false claim, a violated property or contract) earns. A
  `# complexity: O(...)` claim is then measured and fitted (`verify/code/complexity.py`); only a clear
  violation fails.
- formal: standard, plus CrossHair on functions that carry PEP 316 contracts (`pre:` / `post:` in the
  docstring) when crosshair-tool is installed in the sandbox's Python; otherwise details say that
  formal adds nothing yet.

Equivalent mutants (`verify/code/equivalence.py`, run by `verify/code/judging.py`)
A mutant no input can tell from the original cannot be killed, so it must not count against the tests;
but the claim has to be earned. While the tests run on the original, the harness records the
plain-data arguments of every call the tests make to a top-level implementation function. Each
surviving mutant then gets a differential run in the sandbox: original and mutant side by side on the
recorded calls and deterministic perturbations of them, with the mutated code watched for execution.
A difference (kept as `distinguished_by` evidence in `surviving_mutants`) keeps the mutant counted; it
leaves the denominator (`equivalent_mutants`) only when its change ran and every input ran without a
difference. No recorded calls (tests that never call the code, `assert True`) → no claim; a crash,
timeout or unfinished run → no claim; every mutant likely equivalent → unsupported (the tests exercise
nothing that mutants change). `generate_mutants` already skips mutants equal after constant folding.

Value check (standard level and up)
A test that only runs the code, or only checks the types of its results, still kills the mutants that
crash or return another type (an arithmetic swap that raises TypeError, `return None`), and on a small
function those can be most of the mutants: measured on MBPP with checker 1.1, copies of the dataset's
tests that assert only types passed the 60 % score on 33 % of the tasks, copies that assert nothing
on 3.5 %. Two changes in 1.2 answer this. The return operator replaces a returned expression by the
empty value of its own type (`type(x)()`, `verify/code/mutants.py`) instead of `None`, so a function
offers a wrong value of the right type. And the differential run also classifies every counted mutant
on the tests' own recorded inputs as *loud* (some call raises, stops finishing, or returns another
type) or *quiet* (same kinds and types, values may differ). When a counted mutant is quiet, the tests
must kill at least one quiet mutant, or they check no value and the step is unsupported whatever the
score (`value_check` in details). Doubt goes against the tests: an unclassified killed mutant earns nothing,
an unclassified survivor counts as quiet. The check does not apply (details say why) when no mutant
survives, when the tests make no recordable call, or when no killed mutant could be classified (e.g.
every recorded call is too slow to repeat). What it cannot see: a function whose every mutant is loud
(MBPP/737 returns `re.search(...)`, whose only mutant crashes); there a type check is all the
operators can ask for.

Threshold
The default 0.5 was chosen from a measured trade-off (`benchmarks/mbpp.py` and
`benchmarks/humaneval.py` with `--weak-suites`: the canonical code under the dataset's tests and under
weakened copies of them, 10 mutants per artifact). With checker 1.2, the share of weakened suites rejected and of canonical
suites verified:

                          MBPP (170 tasks)          HumanEval (110 tasks)
    threshold              0.5       0.6             0.5       0.6
    canonical verified    99.4 %    95.3 %          100 %     100 %
    assert True           100 %     100 %           100 %     100 %
    asserts nothing       98.2 %    98.2 %          100 %     100 %
    asserts only types    98.2 %    98.2 %          100 %     100 %
    first assert only      8.8 %    15.3 %          30.0 %    41.8 %

The canonical MBPP suites that 0.6 rejects and 0.5 accepts (tasks 559, 721, 733, 741, 784, 799,
809) kill 50–57 % of mutants with real, if few, value asserts; at 0.5 the value check still rejects
every suite that asserts nothing or only types wherever a quiet mutant exists. What 0.5 gives up is
part of the single-example suites (the first assert alone) that 0.6 rejected: a thin but honest test
is harder to tell from the dataset's three asserts by mutation score alone. Checker 1.1 at 0.6 rejected 96.5 % / 67.1 % / 14.7 %
of the MBPP suites asserting nothing / only types / the first assert.

Test or implementation? A top-level `test*` function with a required argument no fixture supplies,
called by other code (MBPP/801's `test_three_equal(x, y, z)`), is implementation: pytest could only
ever error on it as a test, so the harness deselects it and the verifier mutates it
(`mutants.misnamed_implementations`).

How results reach the verifier: `verify/code/harness_run.py` (a harness the artifact cannot edit, reports
checked by nonce, and what an in-process adversary can still do).
"""

from __future__ import annotations

import ast
import builtins
import json
import re
import secrets
import time
from typing import Any

from reasonforge.registry import Spec, checkers
from reasonforge.types import (
    ArtifactLanguage,
    CheckLimits,
    CheckOutcome,
    ErrorKind,
    ProofLevel,
    StepContext,
    StepStatus,
)
from reasonforge.verify.code.complexity import ComplexityFit, find_claim, fit_claim, input_kind, read_measurement
from reasonforge.verify.code.equivalence import value_check
from reasonforge.verify.code.harness_run import (
    ARTIFACT,
    TestRunResult,
    expected_tests,
    recordable_functions,
    run_harness,
    run_options,
    run_tests,
    sandbox_tools,
    tail,
    uses_hypothesis,
)
from reasonforge.verify.code.judging import judge_survivors, run_mutants, survivor_entry, untested_functions
from reasonforge.verify.code.mutants import generate_mutants, implementation_nodes
from reasonforge.verify.code.nesting import too_deep, unparsable
from reasonforge.verify.code.policy import hypothesis_tampering
from reasonforge.verify.code.step_checks import ChecksStatus, StepPlan, plan_step_checks

__all__ = ["CHECKER_VERSION", "PythonTestsChecker"]

# 1.1: equivalent mutants leave the score's denominator; 1.2: the value check, typed return replacement;
# 1.3: runs alike (original among the mutants), process filter, enforced property profile, step checks, evidence;
# 1.4: a missing-return finding of the type check refutes nothing; 1.5: a failing test's message leaves out
# pytest's lines that show an object by its address; 1.6: the artifact must run the step's own definitions
# (`verify.code.align`)
CHECKER_VERSION = "1.6.0"

# mypy findings that do not say a value is wrong: whether a path without `return` is ever taken
_UNDECIDED_TYPE_ERROR = re.compile(r"\[(?:return|empty-body)\]\s*$")


@checkers.checker(ArtifactLanguage.PYTHON)
class PythonTestsChecker:
    """Checks `python` artifacts: tests, properties, mutation strength, complexity claims (see module doc)."""

    def __init__(self, *, mutation_threshold: float = 0.5, max_mutants: int = 20, seed: int = 0, workers: int = 2,
                 hypothesis_examples: int = 100, mutant_examples: int = 30, quick_examples: int = 10,
                 complexity_margin: float = 0.5, equivalence: bool = True, value_check: bool = True) -> None:
        self.mutation_threshold = mutation_threshold
        self.equivalence = equivalence  # the differential run on surviving mutants (off: every survivor counts)
        self.value_check = value_check  # the tests must kill a quiet mutant when one is counted (see module doc)
        self.max_mutants = max_mutants
        self.seed = seed
        self.workers = workers
        self.hypothesis_examples = hypothesis_examples
        self.mutant_examples = mutant_examples
        self.quick_examples = quick_examples
        self.complexity_margin = complexity_margin
        self.spec = Spec(name="python_tests", version=CHECKER_VERSION, args={
            "mutation_threshold": mutation_threshold, "max_mutants": max_mutants, "seed": seed,
            "hypothesis_examples": hypothesis_examples, "mutant_examples": mutant_examples,
            "quick_examples": quick_examples, "complexity_margin": complexity_margin, "equivalence": equivalence,
            "value_check": value_check})

    def check(self, artifact: str, *, level: ProofLevel, limits: CheckLimits,
              context: StepContext | None = None) -> CheckOutcome:
        started = time.perf_counter()
        level = ProofLevel(level)
        details: dict[str, Any] = {"checker": "python_tests"}
        try:
            tree = ast.parse(artifact)
        except SyntaxError as exc:
            return CheckOutcome(status=StepStatus.FAILED, message=f"syntax error at line {exc.lineno}, column "
                                f"{exc.offset}: {exc.msg}", error_kind=ErrorKind.SYNTAX, details=details)
        except (RecursionError, MemoryError) as exc:
            return CheckOutcome(status=StepStatus.UNSUPPORTED, message=unparsable(exc), error_kind=ErrorKind.TOO_LARGE,
                                details=details)
        # every later reader of the tree (mutants, messages, the step's checks) recurses through it: bound it first
        deep = too_deep(tree)
        if deep is not None:
            return CheckOutcome(status=StepStatus.UNSUPPORTED, message=deep, error_kind=ErrorKind.TOO_LARGE,
                                details=details)
        missing = undefined_calls(tree)
        if missing:
            # a test that calls what the artifact never defines says nothing about the step: the artifact is
            # incomplete (a translation without its implementation), not a refutation
            return CheckOutcome(status=StepStatus.ERROR, message=(
                f"the artifact calls {', '.join(missing)} but never defines or imports it: include the "
                "implementation the tests exercise"), error_kind=ErrorKind.COMPILE, details=details)
        tampering = hypothesis_tampering(tree)
        if tampering is not None:
            return self._done(CheckOutcome(status=StepStatus.FAILED, message=f"refused: {tampering}",
                                           error_kind=ErrorKind.REFUSED), details, started)
        plan = plan_step_checks(context, tree, seed=self.seed)
        details["step_checks"] = {"examples": [e.describe() for e in plan.examples],
                                  "claims": [c.describe() for c in plan.claims], "notes": plan.notes}
        if plan.unaligned is not None:
            return self._done(CheckOutcome(status=StepStatus.UNSUPPORTED, message=plan.unaligned,
                                           error_kind=ErrorKind.UNALIGNED), details, started)
        tools = sandbox_tools()
        details["coverage_available"] = tools.get("coverage", False)
        if level is ProofLevel.QUICK:
            typed = self._mypy(artifact, limits, tools, details)
            if typed is not None:
                return self._done(typed, details, started)
        examples = self.quick_examples if level is ProofLevel.QUICK else self.hypothesis_examples
        if uses_hypothesis(artifact):
            details["property_profile"] = (f"harness profile: max_examples={examples} (mutant runs "
                                           f"{self.mutant_examples}), derandomized, no database; the artifact's own "
                                           "@settings, @seed and @reproduce_failure do not apply")
        expected = expected_tests(tree)
        record = recordable_functions(tree) if level is not ProofLevel.QUICK else []
        run = run_tests(artifact, examples=examples, wall_s=limits.timeout_s, memory_mb=limits.memory_mb,
                        coverage=tools.get("coverage", False) and level is not ProofLevel.QUICK, expected=expected,
                        record=record, plan=plan)
        details.update(tests_total=run.tests_total, tests_passed=run.tests_passed,
                       property_violations=run.property_violations, tests_ms=round(run.elapsed_ms, 1))
        if run.failing:
            details["failing_tests"] = run.failing[:10]
        if run.coverage is not None:
            details["coverage_percent"] = _coverage_percent(tree, run.coverage)
        if run.status == "error":
            return self._done(CheckOutcome(status=StepStatus.ERROR, message=f"timeout or resource limit: {run.message}"),
                              details, started)
        if run.nothing_collected and not expected:  # nothing defined to run (an escape leaves tests uncollected)
            return self._done(CheckOutcome(status=StepStatus.ERROR, message=(
                f"nothing to check: {run.message}; an artifact needs pytest tests (def test_…) or the step's examples"),
                error_kind=ErrorKind.UNTRANSLATABLE), details, started)
        step = run.step
        if run.status != "passed" and step is not None and step.status is ChecksStatus.DISPUTED:
            # examples a model wrote from the texts may be the ones that are wrong: no refutation, no verdict
            return self._done(CheckOutcome(status=StepStatus.UNSUPPORTED, message=(
                f"{run.message}; the examples were written from the step's text by a translator that never saw "
                "the implementation, and the two disagree"), error_kind=ErrorKind.DISAGREEMENT),
                details, started)
        if run.status != "passed" and step is not None and step.status in (ChecksStatus.UNPLACED, ChecksStatus.VOID,
                                                                           ChecksStatus.UNREAD):
            return self._done(CheckOutcome(status=StepStatus.UNSUPPORTED, message=step.message,
                                           error_kind=ErrorKind.UNALIGNED), details, started)
        if run.status != "passed":
            kind = ErrorKind.UNALIGNED if step is not None and step.status is ChecksStatus.FAILED else None
            return self._done(CheckOutcome(status=StepStatus.FAILED, message=run.message, error_kind=kind), details,
                              started)
        if step is not None:
            shortcut = plan.shortcut(tree, run.step_events, step)
            if shortcut is not None:
                return self._done(CheckOutcome(status=StepStatus.UNSUPPORTED, message=shortcut,
                                               error_kind=ErrorKind.UNALIGNED), details, started)
        if level is not ProofLevel.QUICK:
            mutation = self._mutation(artifact, limits, run, plan, details)
            if mutation is not None:
                return self._done(mutation, details, started)
            claim_outcome = self._complexity(artifact, limits, details)
            if claim_outcome is not None:
                return self._done(claim_outcome, details, started)
        if level is ProofLevel.FORMAL:
            formal = self._crosshair(artifact, tree, limits, tools, details)
            if formal is not None:
                return self._done(formal, details, started)
        evidence = plan.evidence(tree, step, run.tests_total, mutants=level is not ProofLevel.QUICK)
        # without evidence the artifact is verified but tied to nothing: the aligner makes the step unsupported
        message = None if evidence is not None else f"no evidence: {plan.no_evidence(tree, step)}"
        return self._done(CheckOutcome(status=StepStatus.VERIFIED, evidence=evidence, message=message), details,
                          started)

    # ---------------------------------------------------------------------------------- stages

    def _done(self, outcome: CheckOutcome, details: dict[str, Any], started: float) -> CheckOutcome:
        details["elapsed_ms"] = round((time.perf_counter() - started) * 1000, 1)
        return outcome.model_copy(update={"details": {**details, **outcome.details}})

    def _mypy(self, artifact: str, limits: CheckLimits, tools: dict[str, bool],
              details: dict[str, Any]) -> CheckOutcome | None:
        if not tools.get("mypy"):
            details["type_check"] = "skipped: mypy is not installed in the sandbox's Python"
            return None
        report = run_harness(["{py}", "-m", "mypy", "--ignore-missing-imports", "--cache-dir=/dev/null",
                              "--no-error-summary", "--no-color-output", ARTIFACT], {ARTIFACT: artifact},
                             wall_s=max(limits.timeout_s, 30.0), memory_mb=max(limits.memory_mb, 1024))
        if not report.valid or report.resource:
            details["type_check"] = f"error: mypy did not finish ({report.resource or report.problem})"
            return CheckOutcome(status=StepStatus.ERROR, message="the type check (mypy) did not finish")
        if report.child_exit == 0:
            details["type_check"] = "passed (mypy)"
            return None
        errors = [ln for ln in report.output_tail.splitlines() if ": error:" in ln]
        decided = [ln for ln in errors if _UNDECIDED_TYPE_ERROR.search(ln) is None]
        if errors and not decided:
            # "Missing return statement" asks whether a path that returns nothing is reachable (a loop that
            # always returns, `-> Optional[str]` ending without `return None`): mypy cannot tell, so it refutes
            # nothing; the tests decide
            details["type_check"] = "passed (mypy), with reachability warnings only"
            details["type_errors"] = errors[:20]
            return None
        details["type_check"] = "failed (mypy)"
        details["type_errors"] = errors[:20]
        return CheckOutcome(status=StepStatus.FAILED,
                            message="type check failed: " + (decided[0] if decided else tail(report.output_tail, 300)))

    def _mutation(self, artifact: str, limits: CheckLimits, run: TestRunResult, plan: StepPlan,
                  details: dict[str, Any]) -> CheckOutcome | None:
        mutants = generate_mutants(artifact, seed=self.seed, max_mutants=self.max_mutants)
        details["mutants_total"] = len(mutants)
        if not mutants:
            details["mutation_score"] = None
            details["mutation_note"] = "the implementation offers no mutation sites; mutation strength not measured"
            return None
        wall = min(limits.timeout_s, max(3.0, 4 * run.elapsed_ms / 1000))
        options = run_options(artifact, examples=self.mutant_examples)
        original, results = run_mutants(artifact, mutants, options=options, examples=self.mutant_examples,
                                        run_timeout_s=wall, memory_mb=limits.memory_mb,
                                        expected=expected_tests(ast.parse(artifact)), plan=plan, workers=self.workers)
        if original.status != "passed":
            details["identical_run"] = original.message
            return CheckOutcome(status=StepStatus.ERROR if original.status == "error" else StepStatus.FAILED, message=(
                "the tests passed in the first run but not when run exactly as each mutant is run "
                f"({original.message}): tests that are flaky or behave differently between runs cannot be scored"))
        survivors = [m for m, r in zip(mutants, results, strict=True) if r.status == "passed"]
        dead = [m for m, r in zip(mutants, results, strict=True) if r.status != "passed"]
        killed = len(dead)
        judged, loud, facts = judge_survivors(artifact, survivors, dead, run.calls, seed=self.seed,
                                              memory_mb=limits.memory_mb, equivalence=self.equivalence,
                                              value_check=self.value_check)
        details.update(facts)
        equivalent = [m for m in survivors if judged[m.id].status == "equivalent"]
        survivors = [m for m in survivors if judged[m.id].status != "equivalent"]
        details["mutants_killed"] = killed
        details["equivalent_mutants"] = [{"id": m.id, "operator": m.operator, "change": m.description,
                                          "inputs": judged[m.id].inputs} for m in equivalent]
        details["surviving_mutants"] = [survivor_entry(m, judged[m.id]) for m in survivors]
        # From here on the tests are measured, not the code: tests too weak to tell the implementation from its
        # mutants are no evidence either way, so the step is unsupported; only a false check refutes it.
        if len(equivalent) == len(mutants):
            details["mutation_score"] = None
            return CheckOutcome(status=StepStatus.UNSUPPORTED, message=(
                f"no mutant behaves differently from the implementation on any input the tests call it with (nor "
                f"on their perturbations): the tests exercise nothing that mutants change ({len(mutants)} "
                "mutants, all likely equivalent)"))
        score = killed / (len(mutants) - len(equivalent))
        details["mutation_score"] = round(score, 4)
        untested = untested_functions(ast.parse(artifact), dead + survivors, judged)
        details["untested_functions"] = [name for name, _ in untested]
        values = value_check(dead, survivors, loud) if self.value_check and run.calls and survivors else None
        if not self.value_check:
            details["value_check"] = "off"
        elif values is None:
            details["value_check"] = ("holds: no mutant survives" if run.calls else
                                      "not measured: the tests made no recordable call of the implementation")
        else:
            details["value_check"] = {**values.model_dump(), "measured": values.measured, "passed": values.passed}
        if score + 1e-9 < self.mutation_threshold:
            counted = len(mutants) - len(equivalent)
            excluded = f"; {len(equivalent)} likely equivalent excluded" if equivalent else ""
            return CheckOutcome(status=StepStatus.UNSUPPORTED, message=(
                f"tests kill {round(score * 100)} % of mutants ({killed}/{counted}{excluded}), below the required "
                f"{round(self.mutation_threshold * 100)} %; e.g. this change survives: {survivors[0].description}"))
        if untested:
            name, count = untested[0]
            return CheckOutcome(status=StepStatus.UNSUPPORTED, message=(
                f"the tests never run {name}: none of its {count} mutants executes on the inputs the tests call the "
                "implementation with, nor on their perturbations; test every function the implementation defines"))
        if values is not None and not values.passed:
            quiet = next(m for m in survivors if m.id in values.quiet_survivor_ids)
            unclassified = f", {values.unclassified_killed} unclassified" if values.unclassified_killed else ""
            return CheckOutcome(status=StepStatus.UNSUPPORTED, message=(
                f"the tests check no value: the mutants they kill ({killed}: {values.loud_killed} crash or return "
                f"another type on the tests' own inputs{unclassified}) need no value checked, and every mutant that "
                f"returns values of the right types survives ({values.quiet_mutants}), e.g. {quiet.description}; "
                "assert the results, not only that the code runs or their types"))
        return None

    def _complexity(self, artifact: str, limits: CheckLimits, details: dict[str, Any]) -> CheckOutcome | None:
        claim = find_claim(artifact)
        if claim is None or claim.function is None:
            return None
        opts = json.dumps({"function": claim.function, "kind": input_kind(artifact, claim.function),
                           "budget_s": 6.0, "max_call_s": 0.05})
        # drawn here per run and read by the child before the artifact loads: a line without it is not the child's
        token = secrets.token_hex(16)
        report = run_harness(["{py}", "{h}/rf_child_complexity.py", ARTIFACT, opts], {ARTIFACT: artifact},
                             wall_s=max(limits.timeout_s, 15.0), memory_mb=limits.memory_mb, child_input=token)
        if not report.valid:
            details["complexity_fit"] = {"claim": claim.text, "function": claim.function, "verdict": "error",
                                         "message": report.problem}
            return CheckOutcome(status=StepStatus.FAILED, message=f"complexity measurement of {claim.function} "
                                f"produced no valid report: {tail(report.output_tail, 300)}")
        measured = read_measurement(report.events, token)
        if measured.tampered is not None:
            details["complexity_fit"] = {"claim": claim.text, "function": claim.function, "verdict": "void",
                                         "message": measured.tampered}
            return CheckOutcome(status=StepStatus.UNSUPPORTED, message=(
                f"the artifact reached into the harness that times {claim.function} for its claim {claim.text} "
                f"({measured.tampered}): nothing that run reported counts"))
        points = measured.points
        fit: ComplexityFit = fit_claim(claim, points, margin=self.complexity_margin)
        details["complexity_fit"] = {**fit.to_dict(), "inputs": measured.by or "unreported"}
        if not points:
            why = measured.problem or tail(report.output_tail, 300)
            details["complexity_fit"]["message"] = f"measurement failed: {why}"
            return CheckOutcome(status=StepStatus.ERROR, message=(
                f"could not time {claim.function} for its claim {claim.text}; define complexity_input(n) returning "
                f"its arguments for size n. Output: {why}"))
        if fit.verdict == "violation":
            # measured by the harness, on whatever inputs: the function did take that long
            return CheckOutcome(status=StepStatus.FAILED, message=fit.message)
        if measured.by == "artifact":
            return CheckOutcome(status=StepStatus.UNSUPPORTED, message=(
                f"the complexity {claim.text} of {claim.function} was timed only on inputs the artifact builds "
                "(its complexity_input): inputs its author chooses are no evidence for the claim; "
                f"{fit.message}"))
        if not measured.complete:
            return CheckOutcome(status=StepStatus.UNSUPPORTED, message=(
                f"the timing of {claim.function} for its claim {claim.text} did not finish (the artifact ended or "
                f"stopped its run: {measured.problem or tail(report.output_tail, 200)}): the sizes it reached are no "
                "evidence for the claim"))
        return None

    def _crosshair(self, artifact: str, tree: ast.Module, limits: CheckLimits, tools: dict[str, bool],
                   details: dict[str, Any]) -> CheckOutcome | None:
        contracted = [f.name for f in implementation_nodes(tree)
                      if any(tag in (ast.get_docstring(f) or "") for tag in ("pre:", "post:"))]
        if not tools.get("crosshair"):
            details["formal"] = "crosshair-tool is not installed in the sandbox's Python: formal adds nothing yet"
            return None
        if not contracted:
            details["formal"] = "no function carries PEP 316 contracts (pre:/post: in its docstring); nothing to check"
            return None
        report = run_harness(["{py}", "{h}/rf_filtered.py", "-m", "crosshair", "check", "--analysis_kind=PEP316",
                              "--per_condition_timeout=2", ARTIFACT], {ARTIFACT: artifact},
                             wall_s=max(limits.timeout_s, 30.0), memory_mb=max(limits.memory_mb, 1024))
        if not report.valid or report.resource:
            details["formal"] = "crosshair did not finish"
            return CheckOutcome(status=StepStatus.ERROR, message="CrossHair did not finish within its limits")
        details["crosshair_functions"] = contracted
        if report.child_exit == 0:
            details["formal"] = f"CrossHair found no counterexample to the contracts of {contracted}"
            return None
        details["formal"] = "CrossHair found a counterexample"
        return CheckOutcome(status=StepStatus.FAILED,
                            message=f"contract violated (CrossHair): {tail(report.output_tail, 500)}")


def _coverage_percent(tree: ast.Module, cov: dict[str, list[int]]) -> float | None:
    lines: set[int] = set()
    for f in implementation_nodes(tree):
        lines.update(range(f.body[0].lineno, (f.end_lineno or f.lineno) + 1))
    statements = [s for s in cov.get("statements", []) if s in lines]
    if not statements:
        return None
    missing = {s for s in cov.get("missing", []) if s in lines}
    return round(100 * (len(statements) - len(missing)) / len(statements), 1)


def undefined_calls(tree: ast.Module) -> list[str]:
    """Names the artifact calls that nothing in it defines, imports or binds and that are not builtins."""
    bound: set[str] = set(dir(builtins))
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            bound.add(node.name)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            if any(alias.name == "*" for alias in node.names):
                return []  # a star import binds what it binds: nothing to say
            bound.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            bound.add(node.id)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.Global | ast.Nonlocal):
            bound.update(node.names)
        elif isinstance(node, ast.ExceptHandler | ast.MatchAs | ast.MatchStar) and node.name:
            bound.add(node.name)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            bound.add(node.rest)
    called = [n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)]
    return sorted({name for name in called if name not in bound})
