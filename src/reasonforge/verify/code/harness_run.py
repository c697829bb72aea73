"""Running artifact code under the harness in the sandbox, and reading what comes back.

`run_harness` runs one child process (after the step-check child, when there are step checks) under the
harness parent and returns its nonce-checked report;
`run_tests` runs an artifact's tests (its first, diagnostic run: coverage, recorded calls) and
`run_variants` runs the original and its mutants exactly alike; `interpret` reads their reports, failing
closed. The pytest checker (`pytest_checker.py`) and mutant judging (`judging.py`) both run code through
here; this module imports neither.

How results reach the verifier (the harness, `verify/code/harness/`, mounted read-only)
The sandbox runs `rf_parent.py`, which reads its config and a fresh random nonce from stdin, closes
stdin, makes itself non-dumpable (so the same-uid artifact can neither ptrace it nor open
/proc/<ppid>/mem, fd or environ), and only then starts a child process: pytest with a reporting plugin
registered before the artifact is imported. The child's stdout and stderr go to a file; its events go
to a pipe; the parent alone writes the final `RFREPORT {...}` line, with the nonce, to the sandbox's
stdout. The verifier accepts only a line carrying its nonce and cross-checks the collected test ids
against an independent AST listing of the artifact's `test_*` functions. Hence `os._exit(0)` before
tests, `sys.exit(0)` during collection, a killed parent, a conftest (never loaded: `--noconftest`), a
printed or written fake report all end without a valid, complete report → failed, never verified.

No other process: before artifact code runs, every harness child installs a seccomp filter
(`harness/rf_seccomp.py`): exec, fork, vfork, clone without CLONE_THREAD (subprocess, multiprocessing,
posix_spawn) and ptrace fail; a foreign syscall ABI kills the process. So the only process that can
write the event pipe is the one the parent started and waits for: an artifact cannot exec into a
program that writes a fabricated stream, nor leave a detached child that writes one after the test
process has exited, nor carry state from one run to the next in a process. Where the filter cannot be
installed, the child runs no artifact code and the run is an error.

Runs the artifact cannot tell apart (`run_variants`): the original and each mutant run in their own
fresh sandbox (fresh work dir, /tmp, pid namespace: the same pids), as `artifact.py` in the form
`ast.unparse` writes (the mutants' form: no comments or line numbers mark the original), under one
command line and one options string (same hypothesis profile, same step checks, no coverage, no
recorder), the same limits, with a harness copy staged for that run alone (its file times say
nothing about the order of runs), in a random order. The first, diagnostic run (more hypothesis
examples, coverage, recorded calls) can be told apart, so its pass counts for nothing by itself: the
original must also pass its run among the mutants'.

The step's own checks run apart (`StepPlan.payload`, harness/rf_child_step.py): the step-check child runs
first in the sandbox, before any artifact code has run there, on a pipe of its own (the parent tags every
event with the child it came from). It is sent only the calls to evaluate (the question's, the writer's and
the step's examples, a claim's function on generated inputs, each example's call on perturbed inputs and once
more spelled otherwise), under opaque ids new for each check; never an expected output or a reference. It
captures what it reports with (marshal, os.write, eval, a builtins snapshot) before the artifact loads, takes
ctypes out of reach and refuses, as tampering, tracing, gc's object walks, other threads' frames and any path
into /proc; each value goes back as marshal bytes, exact builtin types only, and the verifier reads and compares
it (type and value) on its own side. So patching the harness, its encoder, the event channel, builtins or
sys.modules changes what is reported but cannot tell the artifact what to report; a second answer to a call is
seen, and so is a run that does not finish.

What an in-process adversary can still do, honestly: the artifact runs in the processes whose reports are
read, and a process can report anything about itself. In the pytest child it can patch pytest or the plugin,
or write fabricated event lines, and so report tests or property statistics that did not happen (what the
author's tests say is never more than `self_tested`). In the step-check child it cannot learn the expected
values, but it can hold them: a lookup of the examples (keyed by their input, in whatever disguise), or a
correct implementation it uses when it sees the harness (it can tell the processes apart, read its own code,
read the calls from the child's frames). A lookup the reader sees (the inputs as literals, a table of the
examples, the same call answered twice differently, an output no perturbation moves) is no evidence; one hidden
from the reader passes the examples it hard-codes, exactly as a hidden lookup in honest-looking code would; and
a correct implementation used when checked is what the checks then show the artifact holds. The claims'
references are computed here on generated inputs, so a claim holds only where the code (some code of the
artifact) computes it. For artifacts from untrusted miners, tests written by someone else (the validator) and
a static or formal proof are the stronger checks.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import hmac
import json
import random
import re
import secrets
import shutil
import tempfile
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reasonforge.errors import ToolUnavailableError
from reasonforge.verify.code.equivalence import RecordedCall, parse_calls
from reasonforge.verify.code.mutants import implementation_nodes, misnamed_implementations
from reasonforge.verify.code.step_checks import ChecksStatus, StepPlan, StepRun

__all__ = ["ARTIFACT", "HARNESS_DIR", "PYTEST_CHILD", "STEP_CHILD", "HarnessReport", "TestRunResult", "expected_tests",
           "interpret", "recordable_functions", "run_harness", "run_tests", "run_variants", "sandbox_tools",
           "staged_harness", "step_input", "tail", "uses_hypothesis"]

ARTIFACT = "artifact.py"
HARNESS_DIR = Path(__file__).resolve().parent / "harness"
HARNESS_MOUNT = "/rf-harness"


@contextlib.contextmanager
def staged_harness() -> Iterator[str]:
    """A fresh world-readable copy of the harness for one run: the sandbox binds it as an unprivileged user,
    who may not be able to reach the installed package (a checkout under root's home, say). Fresh per run,
    so that its times (ctime, mtime) say nothing about which run of a check this is."""
    target = Path(tempfile.mkdtemp(prefix="reasonforge-harness-"))
    try:
        target.chmod(0o755)
        for source in HARNESS_DIR.glob("*.py"):
            copy = target / source.name
            shutil.copyfile(source, copy)
            copy.chmod(0o644)
        yield str(target)
    finally:
        shutil.rmtree(target, ignore_errors=True)


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
    """The parent's nonce-checked report, or why there is none. `events` are the main child's (the last one);
    `step_events` the step-check child's, when one ran first (each child's events come on its own pipe)."""

    valid: bool
    events: list[dict[str, Any]] = field(default_factory=list)
    child_exit: int | None = None
    timed_out: bool = False
    resource: str | None = None  # "wall clock" | "memory" | "CPU time" when a limit stopped the run
    output_tail: str = ""
    elapsed_ms: float = 0.0
    problem: str = ""
    step_events: list[dict[str, Any]] = field(default_factory=list)


STEP_CHILD = ["{py}", "-s", "{h}/rf_child_step.py", ARTIFACT]


def run_harness(child: Sequence[str], files: dict[str, str | bytes], *, wall_s: float, memory_mb: int,
                step_input: str | None = None, child_input: str | None = None) -> HarnessReport:
    """Run `child` (argv; `{py}` and `{h}` expand to the sandbox interpreter and harness dir) under the
    harness parent in a fresh sandbox and return its verified report. With `step_input` (the step checks'
    calls, `StepPlan.payload`), the step-check child (harness/rf_child_step.py) runs first, in the same
    sandbox, within the same time limit, on a pipe of its own. `child_input` is written to `child`'s stdin, which
    is then closed (the complexity child reads its run's token there before any artifact code runs)."""
    sandbox = _sandbox()
    py = sandbox.sandbox_python()
    nonce = secrets.token_hex(16)

    def expand(argv: Sequence[str]) -> list[str]:
        return [a.replace("{py}", py).replace("{h}", HARNESS_MOUNT) for a in argv]

    children: list[dict[str, Any]] = []
    if step_input is not None:
        children.append({"argv": expand(STEP_CHILD), "input": step_input, "output_file": "_rf_step_output.txt"})
    children.append({"argv": expand(child), "input": child_input, "output_file": "_rf_output.txt"})
    config = {"nonce": nonce, "children": children, "timeout_s": wall_s}
    started = time.perf_counter()
    try:
        with staged_harness() as harness:
            result = sandbox.run_sandboxed(
                [py, f"{HARNESS_MOUNT}/rf_parent.py"], files, _limits(sandbox, wall_s + 5.0, memory_mb),
                stdin=json.dumps(config).encode(), extra_ro_binds=[(harness, HARNESS_MOUNT)])
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
    main = len(children) - 1
    for line in reversed(stdout.splitlines()):
        if not line.startswith("RFREPORT "):
            continue
        payload = line[len("RFREPORT "):]
        if _nesting(payload) > _MAX_REPORT_NESTING:
            continue  # the checked code printed it: deeper than any report, and the decoder would recurse that deep
        try:
            data = json.loads(payload)
        except (ValueError, RecursionError):  # the checked code wrote this line: anything it prints is skipped
            continue
        if not isinstance(data, dict) or not hmac.compare_digest(str(data.get("nonce", "")), nonce):
            continue
        events = [e for e in data.get("events", []) if isinstance(e, dict)]
        timed_out = bool(data.get("timed_out"))
        ran = data["children"] if isinstance(data.get("children"), list) else []
        return HarnessReport(True, [e for e in events if e.get("src") == main],
                             data.get("child_exit") if len(ran) == len(children) else None, timed_out,
                             resource or ("wall clock" if timed_out else None), str(data.get("output_tail", "")),
                             elapsed, step_events=[e for e in events if main and e.get("src") == 0])
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
    properties: list[str] = field(default_factory=list)  # ids of the collected hypothesis tests
    step: StepRun | None = None  # the judgement of the step's own checks, when they ran
    step_events: list[dict[str, Any]] = field(default_factory=list)  # what the step-check child reported
    nothing_collected: bool = False  # the artifact imported, but held no test and the step no check


def run_options(source: str, *, examples: int, coverage: bool = False, record: Sequence[str] = ()) -> str:
    """The pytest child's options for `source` (JSON): the same string for the original and every mutant
    (`run_variants`); `coverage` and `record` only for the first, diagnostic run."""
    opts: dict[str, Any] = {"examples": examples, "hypothesis": uses_hypothesis(source), "not_tests": _not_tests(source)}
    if coverage:
        opts["coverage"] = True
    if record:
        opts["record"] = list(record)
    return json.dumps(opts, sort_keys=True)


PYTEST_CHILD = ["{py}", "-s", "{h}/rf_child_pytest.py", ARTIFACT]


def step_input(plan: StepPlan | None) -> str | None:
    """The step-check child's input for `plan` (None when it states no check): the same for every variant."""
    return json.dumps(plan.payload(), sort_keys=True) if plan is not None and plan.checks else None


def run_tests(source: str, *, examples: int, wall_s: float, memory_mb: int, coverage: bool = False,
              expected: set[tuple[str | None, str]] | None = None, record: Sequence[str] = (),
              plan: StepPlan | None = None) -> TestRunResult:
    """Run the artifact's tests (and the step's own checks, `plan`) in the sandbox and interpret the
    nonce-checked report; with `record` (function names), also keep the arguments the tests call those
    functions with."""
    if expected is None:
        expected = expected_tests(ast.parse(source))
    opts = run_options(source, examples=examples, coverage=coverage, record=record)
    report = run_harness(PYTEST_CHILD + [opts], {ARTIFACT: source}, wall_s=wall_s, memory_mb=memory_mb,
                         step_input=step_input(plan))
    result = interpret(report, expected, examples=examples, plan=plan)
    if record and report.valid:
        result.calls = parse_calls(report.events, set(record))
    return result


def run_variants(sources: Sequence[str], *, options: str, run_timeout_s: float, memory_mb: int,
                 expected: set[tuple[str | None, str]], examples: int, plan: StepPlan | None,
                 workers: int) -> list[TestRunResult]:
    """Run every variant of one artifact (the original and its mutants) exactly alike: each in its own fresh
    sandbox, as `artifact.py`, under the same command line and options (`options`, from `run_options` on the
    original), the same limits, a freshly staged harness, in a random order, `workers` at a time. Nothing in
    a run tells it which variant it is but its own code. Results in `sources` order."""
    order = list(range(len(sources)))
    random.SystemRandom().shuffle(order)
    checks = step_input(plan)

    def one(k: int) -> TestRunResult:
        report = run_harness(PYTEST_CHILD + [options], {ARTIFACT: sources[k]}, wall_s=run_timeout_s,
                             memory_mb=memory_mb, step_input=checks)
        return interpret(report, expected, examples=examples, plan=plan)

    with ThreadPoolExecutor(max_workers=max(1, min(workers, len(sources) or 1))) as pool:
        results = dict(zip(order, pool.map(one, order), strict=True))
    return [results[k] for k in range(len(sources))]


def interpret(report: HarnessReport, expected: set[tuple[str | None, str]], *, examples: int | None = None,
              plan: StepPlan | None = None) -> TestRunResult:
    """Turn a harness report into a TestRunResult (fail closed: anything incomplete is not a pass). With
    `examples` (the profile's max_examples), every passing property must show that its generated examples
    ran; with `plan`, the step's own checks must agree with the texts."""
    checks = plan is not None and bool(plan.checks)
    result = _interpret_tests(report, expected, checks_only=checks)
    result.step_events = report.step_events
    if result.status != "passed":
        return result
    if examples is not None:
        weak = _weak_property(report.events, result, examples)
        if weak:
            result.status, result.message = "failed", weak
            return result
    if plan is not None and plan.checks:
        result.step = plan.judge(report.step_events)
        if result.step.status is not ChecksStatus.PASSED:
            result.status, result.message = "failed", f"the step's own check failed: {result.step.message}"
    return result


def _weak_property(events: list[dict[str, Any]], result: TestRunResult, examples: int) -> str | None:
    """Why a passing property test does not count (its generated examples did not run as the profile
    says), or None."""
    runs: dict[str, list[Any]] = {}
    for e in events:
        if e.get("ev") == "property":
            runs.setdefault(str(e.get("id")), []).append(e.get("runs"))
    for tid in result.properties:
        reported = runs.get(tid, [])
        if len(reported) != 1 or not isinstance(reported[0], list) or not reported[0]:
            return (f"property {tid} reported no generated examples: hypothesis's engine did not run under the "
                    "harness's profile (patched, or the test is not a plain @given test)")
        for stats in reported[0]:
            if not isinstance(stats, dict) or not stats.get("generate"):
                return f"property {tid} ran no generated examples (only explicit ones): the generate phase is required"
            stopped = str(stats.get("stopped", ""))
            if stopped == "nothing left to do":
                continue  # every input of the strategy was tried
            if stopped != f"settings.max_examples={examples}":
                return (f"property {tid} stopped because {stopped!r}, not after the harness's {examples} examples "
                        "(most generated inputs were rejected by assume() or .filter(), or the profile was changed)")
            if int(stats.get("valid") or 0) < max(1, examples // 2):
                return (f"property {tid} ran {stats.get('valid')} valid examples of the {examples} the harness "
                        "requires (assume() or .filter() rejected the rest)")
    return None


def _interpret_tests(report: HarnessReport, expected: set[tuple[str | None, str]], *,
                     checks_only: bool = False) -> TestRunResult:
    elapsed = report.elapsed_ms
    if report.resource is not None:
        return TestRunResult("error", f"the test run exceeded its {report.resource} limit", elapsed_ms=elapsed)
    if not report.valid:
        return TestRunResult("failed", f"{report.problem}: the artifact ended the run or killed the harness "
                             f"before tests reported. Output: {tail(report.output_tail)}", elapsed_ms=elapsed)
    events = report.events
    refused = next((e for e in [*events, *report.step_events] if e.get("ev") == "filter_error"), None)
    if refused is not None:
        return TestRunResult("error", "the harness could not install its process filter (seccomp), so artifact "
                             f"code was not run: {refused.get('message', '')}", elapsed_ms=elapsed)
    items = next((e.get("items", []) for e in events if e.get("ev") == "collected"), None)
    finish = next((e for e in events if e.get("ev") == "finish"), None)
    collect_errors = [e for e in events if e.get("ev") == "collect_error"]
    if collect_errors:
        return TestRunResult("failed", f"the artifact failed to import or collect: {collect_errors[0].get('message', '')}",
                             elapsed_ms=elapsed)
    if items is None or finish is None:
        return TestRunResult("failed", "pytest did not finish (the artifact exited, e.g. os._exit or sys.exit, or "
                             f"crashed; exit code {report.child_exit}). Output: {tail(report.output_tail)}",
                             elapsed_ms=elapsed)
    if not items and not checks_only:
        return TestRunResult("failed", "no tests were collected: add `def test_...()` functions that call the "
                             "implementation", elapsed_ms=elapsed, nothing_collected=True)
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
    result = TestRunResult("passed", "", len(items), passed, failing, violations, coverage, elapsed,
                           properties=sorted(props))
    if failing:
        first = failing[0]
        kind = "property violated" if violations else "test failed"
        result.status = "failed"
        result.message = f"{kind}: {first['test']} ({first['outcome']}): {_first_line(first['message'])}"
    elif (finish.get("exitstatus"), report.child_exit) != (0, 0) and not (
            not items and (finish.get("exitstatus"), report.child_exit) == (5, 5)):  # 5: nothing collected
        result.status = "failed"
        result.message = (f"pytest reported exit status {finish.get('exitstatus')} (process exit "
                          f"{report.child_exit}) although every test reported a pass")
    return result


# An object shown by its address (`<built-in method values of dict object at 0x7f…>`): pytest's assertion
# explanation names the bound method of a call that way. It says nothing about a value and differs on every run.
_ADDRESS_REPR = re.compile(r"<[^<>]* at 0x[0-9a-fA-F]+>")


def _first_line(text: str) -> str:
    """The first three lines of a failing test's report, leaving out the ones that show an object by its address."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip() and not _ADDRESS_REPR.search(ln)]
    return " | ".join(lines[:3])[:400]


def tail(text: str, n: int = 600) -> str:
    """The last `n` characters of a run's output, or "(none)"."""
    text = text.strip()
    return (text[-n:] if text else "(none)")


_MAX_REPORT_NESTING = 200  # a report nests a few levels around the values the tests recorded


def _nesting(text: str) -> int:
    """The deepest bracket nesting of a JSON text, outside strings (a linear scan; no decoder recursion)."""
    depth = deepest = 0
    inside = escaped = False
    for ch in text:
        if inside:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                inside = False
        elif ch == '"':
            inside = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest
