"""Running artifact code under the harness in the sandbox, and reading what comes back.

`run_harness` runs one child process under the harness parent and returns its nonce-checked report;
`run_tests` and `run_tests_batch` run an artifact's tests (or those of many variants of it, mutants) with
pytest and `interpret` reads their report, failing closed. The pytest checker (`pytest_checker.py`) and
mutant judging (`judging.py`) both run code through here; this module imports neither.

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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reasonforge.errors import ToolUnavailableError
from reasonforge.verify.code.equivalence import RecordedCall, parse_calls
from reasonforge.verify.code.mutants import implementation_nodes, misnamed_implementations

__all__ = ["ARTIFACT", "HARNESS_DIR", "HarnessReport", "TestRunResult", "expected_tests", "interpret",
           "recordable_functions", "run_harness", "run_tests", "run_tests_batch", "sandbox_tools", "staged_harness",
           "tail", "uses_hypothesis"]

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
                             f"before tests reported. Output: {tail(report.output_tail)}", elapsed_ms=elapsed)
    events = report.events
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


def tail(text: str, n: int = 600) -> str:
    """The last `n` characters of a run's output, or "(none)"."""
    text = text.strip()
    return (text[-n:] if text else "(none)")

