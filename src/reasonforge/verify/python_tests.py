"""The `python` checker: one module holding an implementation, its pytest tests and hypothesis properties.

Every run of artifact code happens in the sandbox (`verify/sandbox.py`); the verifier only parses the
artifact (AST) and reads reports.

Levels
- quick: syntax check; mypy on the artifact when mypy is installed in the sandbox's Python (otherwise
  skipped with a note in details); the artifact's tests and top-level asserts run in the sandbox (few
  hypothesis examples).
- standard: the tests run (≥ 1 collected, all pass, no hypothesis property violated), then generated
  mutants of the implementation (`verify/mutants.py`) run in two sandboxes in parallel, each mutant in
  a fresh fork of a clean pytest process (`run_tests_batch`) with its own timeout; the tests must kill
  at least `mutation_threshold` (default 0.5, see "Threshold" below) of the mutants that are not likely
  equivalent:
  score = killed / (mutants − likely equivalent), and pass the value check (below). A
  `# complexity: O(...)` claim is then measured and fitted (`verify/complexity.py`); only a clear
  violation fails.
- formal: standard, plus CrossHair on functions that carry PEP 316 contracts (`pre:` / `post:` in the
  docstring) when crosshair-tool is installed in the sandbox's Python; otherwise details say that
  formal adds nothing yet.

Equivalent mutants (`verify/equivalence.py`)
A mutant no input can tell from the original cannot be killed, so it must not count against the tests;
but the claim has to be earned. While the tests run on the original, the harness records the
plain-data arguments of every call the tests make to a top-level implementation function. Each
surviving mutant then gets a differential run in the sandbox: original and mutant side by side on the
recorded calls and deterministic perturbations of them, with the mutated code watched for execution.
A difference (kept as `distinguished_by` evidence in `surviving_mutants`) keeps the mutant counted; it
leaves the denominator (`equivalent_mutants`) only when its change ran and every input ran without a
difference. No recorded calls (tests that never call the code, `assert True`) → no claim; a crash,
timeout or unfinished run → no claim; every mutant likely equivalent → failed (the tests exercise
nothing that mutants change). `generate_mutants` already skips mutants equal after constant folding.

Value check (standard level and up)
A test that only runs the code, or only checks the types of its results, still kills the mutants that
crash or return another type (an arithmetic swap that raises TypeError, `return None`), and on a small
function those can be most of the mutants: measured on MBPP with checker 1.1, copies of the dataset's
tests that assert only types passed the 60 % score on 33 % of the tasks, copies that assert nothing
on 3.5 %. Two changes in 1.2 answer this. The return operator replaces a returned expression by the
empty value of its own type (`type(x)()`, `verify/mutants.py`) instead of `None`, so a function
offers a wrong value of the right type. And the differential run also classifies every counted mutant
on the tests' own recorded inputs as *loud* (some call raises, stops finishing, or returns another
type) or *quiet* (same kinds and types, values may differ). When a counted mutant is quiet, the tests
must kill at least one quiet mutant, or they check no value and the step fails whatever the score
(`value_check` in details). Doubt goes against the tests: an unclassified killed mutant earns nothing,
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

How results reach the verifier (the harness, `verify/harness/`, mounted read-only)
The sandbox runs `rf_parent.py`, which reads its config and a fresh random nonce from stdin, closes
stdin, makes itself non-dumpable (so the same-uid artifact can neither ptrace it nor open
/proc/<ppid>/mem, fd or environ), and only then starts a child process: pytest with a reporting plugin
registered before the artifact is imported. The child's stdout and stderr go to a file; its events go
to a pipe; the parent alone writes the final `RFREPORT {...}` line, with the nonce, to the sandbox's
stdout. The verifier accepts only a line carrying its nonce and cross-checks the collected test ids
against an independent AST listing of the artifact's `test_*` functions. Hence `os._exit(0)` before
tests, `sys.exit(0)` during collection, a killed parent, a conftest (never loaded: `--noconftest`), a
printed or written fake report all end without a valid, complete report → failed, never verified.

What an in-process adversary can still do, honestly: the artifact runs in the same process as pytest
and the plugin. Deliberately hostile code can patch pytest or the plugin, or write fabricated event
lines to the event pipe (it can find the descriptor in /proc/self/fd), and so report tests as passed
that did not pass. The nonce does not stop this (it only proves the report came from the parent).
The same holds for the recorded calls and the differential run's verdicts: forging them (to have a
mutant judged equivalent) takes the same kind of explicit code. The verifier only accepts one recorder
event and exactly one verdict per mutant from a fork that ended cleanly.
Mutation testing bounds the *accidental* and *lazy* cases (vacuous tests, `assert True`, tests that
never call the implementation) because such tests cannot kill mutants; it does not bound a forger,
who could also detect its own mutation. What bounds a forger is that the forgery has to be explicit
code in the artifact, which is part of the published verdict and certificate; for artifacts from
untrusted miners, re-running tests written by someone else (the validator) against the implementation
is the stronger check.
"""

from __future__ import annotations

import ast
import atexit
import functools
import hmac
import json
import secrets
import shutil
import tempfile
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reasonforge.errors import ToolUnavailableError
from reasonforge.registry import Spec, checkers
from reasonforge.types import (
    ArtifactLanguage,
    CheckLimits,
    CheckOutcome,
    ProofLevel,
    StepStatus,
)
from reasonforge.verify.complexity import ComplexityFit, find_claim, fit_claim
from reasonforge.verify.equivalence import (
    Judgement,
    RecordedCall,
    differential,
    parse_calls,
    value_check,
)
from reasonforge.verify.mutants import (
    Mutant,
    generate_mutants,
    implementation_nodes,
    misnamed_implementations,
)

__all__ = ["CHECKER_VERSION", "PythonTestsChecker", "TestRunResult", "expected_tests", "judge_mutants", "run_tests",
           "run_tests_batch"]

# 1.1: equivalent mutants leave the score's denominator; 1.2: the value check, typed return replacement
CHECKER_VERSION = "1.2.0"
ARTIFACT = "artifact.py"
HARNESS_DIR = Path(__file__).resolve().parent / "harness"
HARNESS_MOUNT = "/rf-harness"


@functools.cache
def staged_harness() -> str:
    """A world-readable copy of the harness: the sandbox binds it as an unprivileged user, who may not
    be able to reach the installed package (a checkout under root's home, say)."""
    target = Path(tempfile.mkdtemp(prefix="reasonforge-harness-"))
    target.chmod(0o755)
    atexit.register(shutil.rmtree, target, True)
    for source in HARNESS_DIR.glob("*.py"):
        copy = target / source.name
        shutil.copyfile(source, copy)
        copy.chmod(0o644)
    return str(target)


# ------------------------------------------------------------------------------------------ sandbox


def _sandbox() -> Any:
    try:
        from reasonforge.verify import sandbox
    except ImportError as exc:  # pragma: no cover - the sandbox ships with the package
        raise ToolUnavailableError(
            "the code sandbox is not available, and artifact code is never run outside it") from exc
    return sandbox


def _limits(sandbox: Any, wall_s: float, memory_mb: int) -> Any:
    return sandbox.Limits(wall_s=wall_s, cpu_s=max(1, int(wall_s) + 1), memory_mb=memory_mb)


@dataclass
class HarnessReport:
    """The parent's nonce-checked report, or why there is none."""

    valid: bool
    events: list[dict[str, Any]] = field(default_factory=list)
    child_exit: int | None = None
    timed_out: bool = False
    resource: str | None = None  # "wall clock" | "memory" | "CPU time" when a limit stopped the run
    output_tail: str = ""
    elapsed_ms: float = 0.0
    problem: str = ""


def run_harness(child: Sequence[str], files: dict[str, str | bytes], *, wall_s: float, memory_mb: int) -> HarnessReport:
    """Run `child` (argv; `{py}` and `{h}` expand to the sandbox interpreter and harness dir) under the
    harness parent in a fresh sandbox and return its verified report."""
    sandbox = _sandbox()
    py = sandbox.sandbox_python()
    nonce = secrets.token_hex(16)
    argv_child = [a.replace("{py}", py).replace("{h}", HARNESS_MOUNT) for a in child]
    config = {"nonce": nonce, "child": argv_child, "timeout_s": wall_s}
    started = time.perf_counter()
    try:
        result = sandbox.run_sandboxed(
            [py, f"{HARNESS_MOUNT}/rf_parent.py"], files, _limits(sandbox, wall_s + 5.0, memory_mb),
            stdin=json.dumps(config).encode(), extra_ro_binds=[(staged_harness(), HARNESS_MOUNT)])
    except sandbox.SandboxUnavailable as exc:
        raise ToolUnavailableError(f"the code sandbox cannot run here: {exc}") from exc
    elapsed = (time.perf_counter() - started) * 1000
    resource = None
    if result.memory_exceeded:
        resource = "memory"
    elif result.cpu_exceeded:
        resource = "CPU time"
    elif result.disk_exceeded:
        resource = "work dir size"
    elif result.timed_out:
        resource = "wall clock"
    stdout = result.stdout.decode("utf-8", "replace") if isinstance(result.stdout, bytes) else str(result.stdout)
    for line in reversed(stdout.splitlines()):
        if not line.startswith("RFREPORT "):
            continue
        try:
            data = json.loads(line[len("RFREPORT "):])
        except ValueError:
            continue
        if not isinstance(data, dict) or not hmac.compare_digest(str(data.get("nonce", "")), nonce):
            continue
        events = [e for e in data.get("events", []) if isinstance(e, dict)]
        timed_out = bool(data.get("timed_out"))
        return HarnessReport(True, events, data.get("child_exit"), timed_out,
                             resource or ("wall clock" if timed_out else None), str(data.get("output_tail", "")),
                             elapsed)
    stderr = result.stderr.decode("utf-8", "replace") if isinstance(result.stderr, bytes) else str(result.stderr)
    return HarnessReport(False, timed_out=resource is not None, resource=resource, elapsed_ms=elapsed,
                         output_tail=(stdout + stderr)[-2000:],
                         problem="the harness produced no report carrying this run's nonce")


@functools.cache
def sandbox_tools() -> dict[str, bool]:
    """Which optional tools the sandbox's Python can import (probed once per process; trusted code)."""
    sandbox = _sandbox()
    py = sandbox.sandbox_python()
    mods = ["pytest", "hypothesis", "coverage", "mypy", "crosshair"]
    code = f"import importlib.util as u, json; print(json.dumps({{m: u.find_spec(m) is not None for m in {mods!r}}}))"
    try:
        result = sandbox.run_sandboxed([py, "-c", code], {}, _limits(sandbox, 20.0, 1024))
        out = result.stdout.decode() if isinstance(result.stdout, bytes) else str(result.stdout)
        return {k: bool(v) for k, v in json.loads(out.strip().splitlines()[-1]).items()}
    except Exception:  # noqa: BLE001 - whatever stops the probe, the tools count as missing
        return {m: False for m in mods}


# ------------------------------------------------------------------------------------------- tests


def expected_tests(tree: ast.Module) -> set[tuple[str | None, str]]:
    """(class, function) for every test pytest should collect, from the AST alone (misnamed
    implementations, `mutants.misnamed_implementations`, are deselected in the harness and not expected)."""
    out: set[tuple[str | None, str]] = set()
    misnamed = misnamed_implementations(tree)
    for node in tree.body:
        if (isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test")
                and node.name not in misnamed):
            out.add((None, node.name))
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            out.update((node.name, n.name) for n in node.body
                       if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name.startswith("test"))
    return out


def recordable_functions(tree: ast.Module) -> list[str]:
    """Top-level implementation functions: the ones the harness records calls of (methods are not)."""
    top = {id(n) for n in tree.body}
    return [f.name for f in implementation_nodes(tree) if id(f) in top]


def _not_tests(source: str) -> list[str]:
    try:
        return sorted(misnamed_implementations(ast.parse(source)))
    except SyntaxError:
        return []


def uses_hypothesis(source: str) -> bool:
    """Does the artifact import hypothesis? (If not, its pytest plugin, ~0.6 s to import, stays off.)"""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return True
    for node in ast.walk(tree):
        if isinstance(node, ast.Import) and any(a.name.split(".")[0] == "hypothesis" for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "hypothesis":
            return True
    return "hypothesis" in source


@dataclass
class TestRunResult:
    """One pytest run of an artifact: `status` is passed | failed | error."""

    __test__ = False

    status: str
    message: str = ""
    tests_total: int = 0
    tests_passed: int = 0
    failing: list[dict[str, str]] = field(default_factory=list)
    property_violations: list[dict[str, str]] = field(default_factory=list)
    coverage: dict[str, list[int]] | None = None
    elapsed_ms: float = 0.0
    calls: list[RecordedCall] = field(default_factory=list)  # what the tests called the implementation with


def run_tests(source: str, *, examples: int, wall_s: float, memory_mb: int, coverage: bool = False,
              expected: set[tuple[str | None, str]] | None = None, record: Sequence[str] = ()) -> TestRunResult:
    """Run the artifact's tests in the sandbox and interpret the nonce-checked report; with `record`
    (function names), also keep the arguments the tests call those functions with."""
    if expected is None:
        expected = expected_tests(ast.parse(source))
    opts = json.dumps({"examples": examples, "coverage": coverage, "hypothesis": uses_hypothesis(source),
                       "record": list(record), "not_tests": _not_tests(source)})
    report = run_harness(["{py}", "{h}/rf_child_pytest.py", ARTIFACT, opts], {ARTIFACT: source},
                         wall_s=wall_s, memory_mb=memory_mb)
    result = interpret(report, expected)
    if record and report.valid:
        result.calls = parse_calls(report.events, set(record))
    return result


def run_tests_batch(sources: Sequence[str], *, examples: int, run_timeout_s: float, memory_mb: int,
                    expected: set[tuple[str | None, str]]) -> list[TestRunResult]:
    """Run several variants (mutants) of one artifact in ONE sandbox: pytest is imported once and each
    variant runs in a fresh fork of that clean process with its own timeout (see rf_child_pytest.py).
    Variants share the sandbox, so one can disturb a later one; all come from the same artifact, and a
    disturbed run can only count as killed or as surviving, never turn a failing artifact into a pass."""
    names = [f"variant_{k}.py" for k in range(len(sources))]
    use_h = any(uses_hypothesis(src) for src in sources)
    opts = json.dumps({"examples": examples, "hypothesis": use_h, "run_timeout_s": run_timeout_s,
                       "not_tests": _not_tests(sources[0]) if sources else []})
    report = run_harness(["{py}", "{h}/rf_child_pytest.py", json.dumps(names), opts], dict(zip(names, sources, strict=True)),
                         wall_s=len(sources) * (run_timeout_s + 0.5) + 10.0, memory_mb=memory_mb)
    results = []
    for k in range(len(sources)):
        events = [e for e in report.events if e.get("run") == k]
        end = next((e for e in events if e.get("ev") == "run_end"), None)
        if not report.valid or end is None:
            sub = HarnessReport(False, events, None, report.timed_out, report.resource, report.output_tail,
                                report.elapsed_ms, report.problem or "the batch ended before this variant ran")
        else:
            timed_out = bool(end.get("timed_out"))
            sub = HarnessReport(True, events, end.get("exit"), timed_out, "wall clock" if timed_out else None,
                                "", report.elapsed_ms / max(1, len(sources)))
        results.append(interpret(sub, expected))
    return results


def interpret(report: HarnessReport, expected: set[tuple[str | None, str]]) -> TestRunResult:
    """Turn a harness report into a TestRunResult (fail closed: anything incomplete is not a pass)."""
    elapsed = report.elapsed_ms
    if report.resource is not None:
        return TestRunResult("error", f"the test run exceeded its {report.resource} limit", elapsed_ms=elapsed)
    if not report.valid:
        return TestRunResult("failed", f"{report.problem}: the artifact ended the run or killed the harness "
                             f"before tests reported. Output: {_tail(report.output_tail)}", elapsed_ms=elapsed)
    events = report.events
    items = next((e.get("items", []) for e in events if e.get("ev") == "collected"), None)
    finish = next((e for e in events if e.get("ev") == "finish"), None)
    collect_errors = [e for e in events if e.get("ev") == "collect_error"]
    if collect_errors:
        return TestRunResult("failed", f"the artifact failed to import or collect: {collect_errors[0].get('message', '')}",
                             elapsed_ms=elapsed)
    if items is None or finish is None:
        return TestRunResult("failed", "pytest did not finish (the artifact exited, e.g. os._exit or sys.exit, or "
                             f"crashed; exit code {report.child_exit}). Output: {_tail(report.output_tail)}",
                             elapsed_ms=elapsed)
    if not items:
        return TestRunResult("failed", "no tests were collected: add `def test_...()` functions that call the "
                             "implementation", elapsed_ms=elapsed)
    collected = {(i.get("cls"), i.get("name")) for i in items}
    if collected != expected:
        missing = sorted(n for _, n in expected - collected)
        extra = sorted(str(n) for _, n in collected - expected)
        return TestRunResult("failed", f"collected tests do not match the artifact's test functions "
                             f"(missing: {missing}, unexpected: {extra})", tests_total=len(items), elapsed_ms=elapsed)
    props = {i["id"] for i in items if i.get("property")}
    outcomes: dict[str, list[dict[str, Any]]] = {}
    for e in events:
        if e.get("ev") == "test":
            outcomes.setdefault(str(e.get("id")), []).append(e)
    failing: list[dict[str, str]] = []
    violations: list[dict[str, str]] = []
    passed = 0
    for item in items:
        tid = item["id"]
        evs = outcomes.get(tid, [])
        bad = [e for e in evs if e.get("outcome") != "passed"]
        ok = any(e.get("when") == "call" and e.get("outcome") == "passed" for e in evs) and not bad
        if ok:
            passed += 1
            continue
        first = bad[0] if bad else {"outcome": "not run", "message": ""}
        entry = {"test": tid, "outcome": str(first.get("outcome")), "message": str(first.get("message", ""))[:1500]}
        failing.append(entry)
        if tid in props and first.get("outcome") == "failed":
            violations.append(entry)
    coverage = next(({"statements": e.get("statements", []), "missing": e.get("missing", [])}
                     for e in events if e.get("ev") == "coverage"), None)
    result = TestRunResult("passed", "", len(items), passed, failing, violations, coverage, elapsed)
    if failing:
        first = failing[0]
        kind = "property violated" if violations else "test failed"
        result.status = "failed"
        result.message = f"{kind}: {first['test']} ({first['outcome']}): {_first_line(first['message'])}"
    elif finish.get("exitstatus") != 0 or report.child_exit != 0:
        result.status = "failed"
        result.message = (f"pytest reported exit status {finish.get('exitstatus')} (process exit "
                          f"{report.child_exit}) although every test reported a pass")
    return result


def _first_line(text: str) -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return " | ".join(lines[:3])[:400]


def _tail(text: str, n: int = 600) -> str:
    text = text.strip()
    return (text[-n:] if text else "(none)")


# ---------------------------------------------------------------------------------------- checker


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

    def check(self, artifact: str, *, level: ProofLevel, limits: CheckLimits) -> CheckOutcome:
        started = time.perf_counter()
        level = ProofLevel(level)
        details: dict[str, Any] = {"checker": "python_tests"}
        try:
            tree = ast.parse(artifact)
        except SyntaxError as exc:
            return CheckOutcome(status=StepStatus.FAILED, message=f"syntax error at line {exc.lineno}, column "
                                f"{exc.offset}: {exc.msg}", details={**details, "error_kind": "syntax"})
        tools = sandbox_tools()
        details["coverage_available"] = tools.get("coverage", False)
        if level is ProofLevel.QUICK:
            typed = self._mypy(artifact, limits, tools, details)
            if typed is not None:
                return self._done(typed, details, started)
        examples = self.quick_examples if level is ProofLevel.QUICK else self.hypothesis_examples
        expected = expected_tests(tree)
        record = recordable_functions(tree) if level is not ProofLevel.QUICK else []
        run = run_tests(artifact, examples=examples, wall_s=limits.timeout_s, memory_mb=limits.memory_mb,
                        coverage=tools.get("coverage", False) and level is not ProofLevel.QUICK, expected=expected,
                        record=record)
        details.update(tests_total=run.tests_total, tests_passed=run.tests_passed,
                       property_violations=run.property_violations, tests_ms=round(run.elapsed_ms, 1))
        if run.failing:
            details["failing_tests"] = run.failing[:10]
        if run.coverage is not None:
            details["coverage_percent"] = _coverage_percent(tree, run.coverage)
        if run.status == "error":
            return self._done(CheckOutcome(status=StepStatus.ERROR, message=f"timeout or resource limit: {run.message}"),
                              details, started)
        if run.status != "passed":
            return self._done(CheckOutcome(status=StepStatus.FAILED, message=run.message), details, started)
        if level is ProofLevel.QUICK:
            return self._done(CheckOutcome(status=StepStatus.VERIFIED, message=None), details, started)
        mutation = self._mutation(artifact, limits, run, details)
        if mutation is not None:
            return self._done(mutation, details, started)
        claim_outcome = self._complexity(artifact, limits, details)
        if claim_outcome is not None:
            return self._done(claim_outcome, details, started)
        if level is ProofLevel.FORMAL:
            formal = self._crosshair(artifact, tree, limits, tools, details)
            if formal is not None:
                return self._done(formal, details, started)
        return self._done(CheckOutcome(status=StepStatus.VERIFIED), details, started)

    # ---------------------------------------------------------------------------------- stages

    def _done(self, outcome: CheckOutcome, details: dict[str, Any], started: float) -> CheckOutcome:
        details["elapsed_ms"] = round((time.perf_counter() - started) * 1000, 1)
        details["spec"] = self.spec.model_dump(mode="json")
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
        details["type_check"] = "failed (mypy)"
        details["type_errors"] = errors[:20]
        return CheckOutcome(status=StepStatus.FAILED,
                            message="type check failed: " + (errors[0] if errors else _tail(report.output_tail, 300)))

    def _mutation(self, artifact: str, limits: CheckLimits, run: TestRunResult,
                  details: dict[str, Any]) -> CheckOutcome | None:
        mutants = generate_mutants(artifact, seed=self.seed, max_mutants=self.max_mutants)
        details["mutants_total"] = len(mutants)
        if not mutants:
            details["mutation_score"] = None
            details["mutation_note"] = "the implementation offers no mutation sites; mutation strength not measured"
            return None
        wall = min(limits.timeout_s, max(3.0, 4 * run.elapsed_ms / 1000))
        expected = expected_tests(ast.parse(artifact))
        workers = max(1, min(self.workers, len(mutants)))
        chunks = [list(range(len(mutants)))[w::workers] for w in range(workers)]

        def batch(indices: list[int]) -> list[TestRunResult]:
            return run_tests_batch([mutants[i].source for i in indices], examples=self.mutant_examples,
                                   run_timeout_s=wall, memory_mb=limits.memory_mb, expected=expected)

        results_by_index: dict[int, TestRunResult] = {}
        with ThreadPoolExecutor(max_workers=workers) as pool:
            for indices, batch_results in zip(chunks, pool.map(batch, chunks), strict=True):
                results_by_index.update(zip(indices, batch_results, strict=True))
        results = [results_by_index[i] for i in range(len(mutants))]
        survivors = [m for m, r in zip(mutants, results, strict=True) if r.status == "passed"]
        dead = [m for m, r in zip(mutants, results, strict=True) if r.status != "passed"]
        killed = len(dead)
        judged, loud = self._judge(artifact, survivors, dead, run.calls, limits, details)
        equivalent = [m for m in survivors if judged[m.id].status == "equivalent"]
        survivors = [m for m in survivors if judged[m.id].status != "equivalent"]
        details["mutants_killed"] = killed
        details["equivalent_mutants"] = [{"id": m.id, "operator": m.operator, "change": m.description,
                                          "inputs": judged[m.id].inputs} for m in equivalent]
        details["surviving_mutants"] = [_survivor(m, judged[m.id]) for m in survivors]
        if len(equivalent) == len(mutants):
            details["mutation_score"] = None
            return CheckOutcome(status=StepStatus.FAILED, message=(
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
            return CheckOutcome(status=StepStatus.FAILED, message=(
                f"tests kill {round(score * 100)} % of mutants ({killed}/{counted}{excluded}), below the required "
                f"{round(self.mutation_threshold * 100)} %; e.g. this change survives: {survivors[0].description}"))
        if untested:
            name, count = untested[0]
            return CheckOutcome(status=StepStatus.FAILED, message=(
                f"the tests never run {name}: none of its {count} mutants executes on the inputs the tests call the "
                "implementation with, nor on their perturbations; test every function the implementation defines"))
        if values is not None and not values.passed:
            quiet = next(m for m in survivors if m.id in values.quiet_survivor_ids)
            unclassified = f", {values.unclassified_killed} unclassified" if values.unclassified_killed else ""
            return CheckOutcome(status=StepStatus.FAILED, message=(
                f"the tests check no value: the mutants they kill ({killed}: {values.loud_killed} crash or return "
                f"another type on the tests' own inputs{unclassified}) need no value checked, and every mutant that "
                f"returns values of the right types survives ({values.quiet_mutants}), e.g. {quiet.description}; "
                "assert the results, not only that the code runs or their types"))
        return None

    def _judge(self, artifact: str, survivors: list[Mutant], dead: list[Mutant], calls: list[RecordedCall],
               limits: CheckLimits, details: dict[str, Any]) -> tuple[dict[int, Judgement], dict[int, bool | None]]:
        """Differential run on the surviving mutants, and loudness of every mutant (see `verify/equivalence.py`).
        With no survivor there is nothing to judge, and the value check holds whatever the loudness."""
        details["recorded_calls"] = len(calls)
        skipped = {m.id: Judgement(mutant=m.id, status="undecided", reason="equivalence not judged") for m in survivors}
        if not survivors or not (self.equivalence or self.value_check):
            details["equivalence_inputs"] = 0
            return skipped, {}
        started = time.perf_counter()
        judged, loud, facts = differential(artifact, survivors, calls, run=run_harness, seed=self.seed,
                                           memory_mb=limits.memory_mb, preimport=_preimports(artifact),
                                           killed=dead if self.value_check else (), judge=self.equivalence)
        details["equivalence_ms"] = round((time.perf_counter() - started) * 1000, 1)
        details["equivalence_inputs"] = int(facts.get("kept") or 0) if self.equivalence else 0
        if "note" in facts:
            details["equivalence_note"] = facts["note"]
        return (judged if self.equivalence else skipped), loud

    def _complexity(self, artifact: str, limits: CheckLimits, details: dict[str, Any]) -> CheckOutcome | None:
        claim = find_claim(artifact)
        if claim is None or claim.function is None:
            return None
        opts = json.dumps({"function": claim.function, "budget_s": 6.0, "max_call_s": 0.05})
        report = run_harness(["{py}", "{h}/rf_child_complexity.py", ARTIFACT, opts], {ARTIFACT: artifact},
                             wall_s=max(limits.timeout_s, 15.0), memory_mb=limits.memory_mb)
        points = next((e.get("points") for e in report.events if e.get("ev") == "complexity_done"), None)
        if points is None:
            points = [[e["n"], e["median_s"], e["mad_s"]] for e in report.events if e.get("ev") == "point"]
        if not report.valid:
            details["complexity_fit"] = {"claim": claim.text, "function": claim.function, "verdict": "error",
                                         "message": report.problem}
            return CheckOutcome(status=StepStatus.FAILED, message=f"complexity measurement of {claim.function} "
                                f"produced no valid report: {_tail(report.output_tail, 300)}")
        fit: ComplexityFit = fit_claim(claim, points, margin=self.complexity_margin)
        details["complexity_fit"] = fit.to_dict()
        if not points:
            details["complexity_fit"]["message"] = f"measurement failed: {_tail(report.output_tail, 300)}"
            return CheckOutcome(status=StepStatus.ERROR, message=(
                f"could not time {claim.function} for its claim {claim.text}; define complexity_input(n) returning "
                f"its arguments for size n. Output: {_tail(report.output_tail, 300)}"))
        if fit.verdict == "violation":
            return CheckOutcome(status=StepStatus.FAILED, message=fit.message)
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
        report = run_harness(["{py}", "-m", "crosshair", "check", "--analysis_kind=PEP316",
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
                            message=f"contract violated (CrossHair): {_tail(report.output_tail, 500)}")


def untested_functions(tree: ast.Module, counted: Sequence[Mutant], judged: dict[int, Judgement]) -> list[tuple[str, int]]:
    """(name, mutants) of each implementation function whose every counted mutant survived and was shown
    never to execute (`Judgement.unreached`): code the tests do not run at all. Doubt (an unjudged or
    unwatched mutant) clears the function."""
    out: list[tuple[str, int]] = []
    for func in implementation_nodes(tree):
        inside = [m for m in counted if func.lineno <= m.line <= (func.end_lineno or func.lineno)]
        if inside and all(m.id in judged and judged[m.id].unreached for m in inside):
            out.append((func.name, len(inside)))
    return out


def _survivor(m: Mutant, judged: Judgement) -> dict[str, Any]:
    entry: dict[str, Any] = {"id": m.id, "operator": m.operator, "change": m.description}
    if judged.status == "distinguished":
        entry["distinguished_by"] = judged.evidence
    else:
        entry["undecided"] = judged.reason
    return entry


def _preimports(source: str) -> list[str]:
    """Heavy test libraries the artifact imports: the differential run imports them once, before its forks."""
    names = ["pytest"] if "pytest" in source else []
    return names + (["hypothesis"] if uses_hypothesis(source) else [])


def judge_mutants(artifact: str, mutants: Sequence[Mutant], *, limits: CheckLimits, seed: int = 0,
                  examples: int = 30, per_call_s: float = 0.1) -> tuple[dict[int, Judgement], TestRunResult]:
    """Record the artifact's test calls and judge each mutant by the differential run (keyed by
    `Mutant.id`). For callers that need mutants shown to change behaviour, e.g. the code benchmarks.
    `per_call_s` is the differential run's base time limit for one call."""
    tree = ast.parse(artifact)
    run = run_tests(artifact, examples=examples, wall_s=limits.timeout_s, memory_mb=limits.memory_mb,
                    expected=expected_tests(tree), record=recordable_functions(tree))
    if run.status != "passed":
        return {m.id: Judgement(mutant=m.id, status="undecided", reason="the tests do not pass") for m in mutants}, run
    judged, _, _ = differential(artifact, mutants, run.calls, run=run_harness, seed=seed, memory_mb=limits.memory_mb,
                                preimport=_preimports(artifact), per_call_s=per_call_s)
    return judged, run


def _coverage_percent(tree: ast.Module, cov: dict[str, list[int]]) -> float | None:
    lines: set[int] = set()
    for f in implementation_nodes(tree):
        lines.update(range(f.body[0].lineno, (f.end_lineno or f.lineno) + 1))
    statements = [s for s in cov.get("statements", []) if s in lines]
    if not statements:
        return None
    missing = {s for s in cov.get("missing", []) if s in lines}
    return round(100 * (len(statements) - len(missing)) / len(statements), 1)
