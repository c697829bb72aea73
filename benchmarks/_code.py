"""Shared driver of the code benchmarks (HumanEval, MBPP): canonical artifacts must verify, mutants must fail.

For each task the benchmark builds one `python` artifact (implementation + the dataset's checks as pytest
tests) and checks it with the registered `python_tests` checker at the chosen level. Then it checks
`--mutants` mutants of the canonical implementation that *change behaviour*; a hit = the checker does not
verify the mutant artifact. All code runs in the sandbox.

Which mutants: a seeded draw of up to `CANDIDATES` × `--mutants` candidates (`verify/code/mutants.py`, in draw
order, never touching the tests) is judged by the checker's differential run (`verify/code/equivalence.py`) on
the arguments the dataset's tests call the canonical solution with, and their perturbations; the first
`--mutants` candidates with a concrete input on which they differ from the canonical solution are used.
Equivalent mutants (no input tells them apart) cannot fail honestly, so they are not counted as misses;
neither are candidates for which no difference was shown (the report counts them as excluded).

Threshold study (`--weak-suites`): the mutation threshold (and the checker's value check) trades
canonical acceptance against the rejection of weak tests, so the benchmark can measure both sides on
the same tasks. For each task it also checks the canonical implementation under weakened copies of the
dataset's tests (`WEAK_KINDS`, built by `weaken`): `vacuous` (every assert is `assert True`), `smoke`
(the asserted expressions are evaluated but nothing is asserted: a test that asserts nothing), `type`
(an `==` assert only compares the types of its sides, any other assert only checks `is not None`) and
`one` (only the first assert that calls something is kept). Every checked artifact keeps its mutation
score, value check and untested functions, so the report can say what each threshold in
`STUDY_THRESHOLDS`, with and without the value check, would have decided: canonical share verified,
mutants share failed, and weak suites share rejected per kind (a weak suite whose own tests fail on
the canonical code says nothing about the threshold and is left out of its kind's share).
"""

from __future__ import annotations

import ast
import json
import statistics
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from reasonforge.types import CheckLimits, CheckOutcome, ProofLevel, StepStatus
from reasonforge.verify.code.judging import judge_mutants
from reasonforge.verify.code.mutants import Mutant, generate_mutants
from reasonforge.verify.code.pytest_checker import PythonTestsChecker

from _common import REPO, ms_summary, read_rows

VERIFIED_TARGET = 0.98
MUTANTS_TARGET = 0.90
CANDIDATES = 4  # candidates drawn per mutant wanted
WEAK_KINDS = ("vacuous", "smoke", "type", "one")
STUDY_THRESHOLDS = (0.3, 0.4, 0.45, 0.5, 0.55, 0.6, 0.7, 0.8)


class Task(BaseModel):
    """One benchmark task as an artifact: `artifact` = implementation + tests."""

    id: str
    artifact: str
    weak: dict[str, str] = Field(default_factory=dict)  # kind → the artifact with weakened tests (--weak-suites)


class Decision(BaseModel):
    """One checked artifact, kept so that its verdict can be re-decided at another mutation threshold,
    with or without the value check."""

    status: str
    by_mutation: bool  # not verified only at the mutation stage: score, an untested function, or no value checked
    score: float | None
    values_checked: bool | None = None  # the checker's value check (None: not measured or off)
    untested: bool = False  # some implementation function never ran (fails at any threshold)
    message: str = ""

    def verified_at(self, threshold: float, *, value_check: bool = True) -> bool:
        """Would the checker verify this artifact with `mutation_threshold=threshold` (and `value_check`)?
        (Standard level: the mutation stage is the last one the benchmark artifacts can fail, they carry no
        complexity claim.)"""
        if (self.status != StepStatus.VERIFIED.value and not self.by_mutation) or self.untested:
            return False
        if value_check and self.values_checked is False:
            return False
        return self.score is None or self.score + 1e-9 >= threshold


class WeakFigures(BaseModel):
    """One kind of weakened test suite: how many were built, how many were rejected at the run's threshold."""

    suites: int = 0
    fail_own_tests: int = 0  # the weakened tests fail on the canonical code: no evidence about the threshold
    rejected: float = 0.0  # share of the other suites the checker did not verify
    verified_ids: list[str] = Field(default_factory=list)


class StudyRow(BaseModel):
    """What one mutation threshold, with or without the value check, would have decided on this run's artifacts."""

    threshold: float
    value_check: bool
    canonical_verified: float
    mutants_failed: float
    weak_rejected: dict[str, float]


class Report(BaseModel):
    """Figures of one benchmark run."""

    benchmark: str
    data: list[str]
    tasks: int
    level: str
    mutation_threshold: float
    verified: float
    tests_pass: float  # canonical artifacts whose dataset tests all pass (verified or not)
    weak_tests: list[str]  # canonical artifacts failed only for mutation strength below the threshold
    mutants: int
    mutants_failed: float
    mutant_candidates: int  # drawn and judged by the differential run
    mutants_excluded: int  # of those, not shown to change behaviour (likely equivalent or undecided)
    tasks_short_of_mutants: list[str]  # fewer behaviour-changing mutants than --mutants though as many were drawn
    task_ms: dict[str, float]
    mutant_ms: dict[str, float]
    mutation_score_median: float | None
    targets: dict[str, float]
    passed: bool
    misses: list[dict[str, Any]]
    weak: dict[str, WeakFigures] | None = None
    threshold_study: list[StudyRow] | None = None
    elapsed_s: float


def weaken(tests: str, kind: str) -> str:
    """`tests` (test code only, never the implementation) with its asserts weakened as `kind` says."""
    if kind not in WEAK_KINDS:
        raise ValueError(f"unknown weak-suite kind {kind!r}; choose one of {', '.join(WEAK_KINDS)}")
    tree = _Weaken(kind).visit(ast.parse(tests))
    return ast.unparse(ast.fix_missing_locations(tree))


class _Weaken(ast.NodeTransformer):
    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.kept = False  # `one`: the first assert that calls something is already kept

    def visit_Assert(self, node: ast.Assert) -> ast.stmt:
        if self.kind == "vacuous":
            return ast.Assert(test=ast.Constant(True))
        if self.kind == "smoke":
            return ast.Expr(value=node.test)
        if self.kind == "type":
            return ast.Assert(test=_type_only(node.test))
        if not self.kept and any(isinstance(n, ast.Call) for n in ast.walk(node.test)):
            self.kept = True
            return node
        return ast.Pass()


def _type_only(test: ast.expr) -> ast.expr:
    def type_of(e: ast.expr) -> ast.expr:
        return ast.Call(func=ast.Name("type", ast.Load()), args=[e], keywords=[])

    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq):
        return ast.Compare(left=type_of(test.left), ops=[ast.Is()], comparators=[type_of(test.comparators[0])])
    return ast.Compare(left=test, ops=[ast.IsNot()], comparators=[ast.Constant(None)])


def decide(outcome: CheckOutcome) -> Decision:
    """What `Decision.verified_at` needs from a checker outcome."""
    message = outcome.message or ""
    values = outcome.details.get("value_check")
    prefixes = ("tests kill", "the tests never run", "the tests check no value")
    return Decision(status=outcome.status.value, by_mutation=message.startswith(prefixes),
                    score=outcome.details.get("mutation_score"),
                    values_checked=values.get("passed") if isinstance(values, dict) else None,
                    untested=bool(outcome.details.get("untested_functions")), message=message[:300])


def tests_pass(outcome: CheckOutcome) -> bool:
    """Did every collected test pass (whatever the mutation stage said)?"""
    d = outcome.details
    return bool(d.get("tests_total")) and d.get("tests_passed") == d.get("tests_total")


def behaviour_changing(artifact: str, n: int, *, seed: int, limits: CheckLimits) -> tuple[list[Mutant], int, int]:
    """The first n drawn mutants shown to change behaviour on the tests' inputs; candidates judged; how
    many of them were not shown to change behaviour."""
    candidates = generate_mutants(artifact, seed=seed, max_mutants=CANDIDATES * n, draw_order=True)
    if not candidates:
        return [], 0, 0
    judged, _ = judge_mutants(artifact, candidates, limits=limits, seed=seed)
    shown = [m for m in candidates if judged[m.id].status == "distinguished"]
    return shown[:n], len(candidates), len(candidates) - len(shown)


def run(name: str, paths: list[Path], tasks: list[Task], *, level: str, mutants_per_task: int, seed: int,
        max_mutants: int, timeout_s: float, as_json: bool, threshold: float | None = None,
        rows_out: Path | None = None) -> Report:
    """Check every task's canonical artifact, its behaviour-changing mutants and its weak suites."""
    started = time.perf_counter()
    checker = (PythonTestsChecker(max_mutants=max_mutants, seed=seed) if threshold is None else
               PythonTestsChecker(max_mutants=max_mutants, seed=seed, mutation_threshold=threshold))
    limits = CheckLimits(timeout_s=timeout_s)
    lvl = ProofLevel(level)
    canonical: list[Decision] = []
    mutant_decisions: list[Decision] = []
    weak: dict[str, list[tuple[str, Decision]]] = {}
    own_fail: dict[str, int] = {}
    rows = _RowWriter(rows_out)
    passing = 0
    weak_ids: list[str] = []
    task_ms: list[float] = []
    mutant_ms: list[float] = []
    scores: list[float] = []
    misses: list[dict[str, Any]] = []
    candidates_total = 0
    excluded = 0
    short: list[str] = []

    def timed(src: str) -> tuple[CheckOutcome, float]:
        t0 = time.perf_counter()
        out = checker.check(src, level=lvl, limits=limits)
        return out, (time.perf_counter() - t0) * 1000

    with ThreadPoolExecutor(max_workers=2) as pool:
        for i, task in enumerate(tasks, start=1):
            outcome, ms = timed(task.artifact)
            task_ms.append(ms)
            decision = decide(outcome)
            canonical.append(decision)
            rows.append({"task": task.id, "artifact": "canonical", **decision.model_dump()})
            passing += tests_pass(outcome)
            if outcome.status is StepStatus.VERIFIED:
                pass
            elif decision.by_mutation:
                weak_ids.append(task.id)
            else:
                misses.append({"id": task.id, "kind": "canonical not verified", "status": outcome.status.value,
                               "message": decision.message})
            if decision.score is not None:
                scores.append(decision.score)
            # After the timed check, not beside it: task_ms stays the checker's own time.
            muts, judged, not_shown = behaviour_changing(task.artifact, mutants_per_task, seed=seed, limits=limits)
            candidates_total += judged
            excluded += not_shown
            if len(muts) < min(mutants_per_task, judged):
                short.append(task.id)
            results = list(pool.map(timed, [m.source for m in muts] + list(task.weak.values())))
            for m, (mo, mms) in zip(muts, results[: len(muts)], strict=True):
                mutant_ms.append(mms)
                md = decide(mo)
                mutant_decisions.append(md)
                rows.append({"task": task.id, "artifact": "mutant", "mutant": m.description, **md.model_dump()})
                if mo.status is StepStatus.VERIFIED:
                    misses.append({"id": task.id, "kind": "mutant verified", "mutant": m.description})
            for kind, (wo, _) in zip(task.weak, results[len(muts):], strict=True):
                wd = decide(wo)
                rows.append({"task": task.id, "artifact": f"weak:{kind}", "tests_pass": tests_pass(wo),
                             **wd.model_dump()})
                if tests_pass(wo):
                    weak.setdefault(kind, []).append((task.id, wd))
                else:
                    own_fail[kind] = own_fail.get(kind, 0) + 1
            if not as_json:
                failed = sum(not d.verified_at(checker.mutation_threshold) for d in mutant_decisions)
                print(f"\r{name}: {i}/{len(tasks)} tasks, verified {sum(d.status == 'verified' for d in canonical)}, "
                      f"mutants failed {failed}/{len(mutant_decisions)}", end="", file=sys.stderr, flush=True)
    if not as_json:
        print(file=sys.stderr)
    t0 = checker.mutation_threshold
    v_share = _share(d.verified_at(t0) for d in canonical)
    m_share = _share(not d.verified_at(t0) for d in mutant_decisions)
    studied = any(task.weak for task in tasks)
    return Report(
        benchmark=name, data=[str(p.relative_to(REPO)) if p.is_relative_to(REPO) else p.name for p in paths],
        tasks=len(tasks), level=level, mutation_threshold=t0, verified=v_share,
        tests_pass=round(passing / len(tasks), 4) if tasks else 0.0, weak_tests=weak_ids,
        mutants=len(mutant_decisions), mutants_failed=m_share, mutant_candidates=candidates_total,
        mutants_excluded=excluded, tasks_short_of_mutants=short, task_ms=ms_summary(task_ms),
        mutant_ms=ms_summary(mutant_ms),
        mutation_score_median=round(statistics.median(scores), 4) if scores else None,
        targets={"verified": VERIFIED_TARGET, "mutants_failed": MUTANTS_TARGET},
        passed=v_share >= VERIFIED_TARGET and m_share >= MUTANTS_TARGET,
        misses=sorted(misses, key=lambda m: m["kind"] != "canonical not verified")[:30],
        weak=({kind: WeakFigures(suites=len(weak.get(kind, [])) + own_fail.get(kind, 0),
                                 fail_own_tests=own_fail.get(kind, 0),
                                 rejected=_share(not d.verified_at(t0) for _, d in weak.get(kind, [])),
                                 verified_ids=[tid for tid, d in weak.get(kind, []) if d.verified_at(t0)])
               for kind in WEAK_KINDS} if studied else None),
        threshold_study=([StudyRow(threshold=t, value_check=vc,
                                   canonical_verified=_share(d.verified_at(t, value_check=vc) for d in canonical),
                                   mutants_failed=_share(not d.verified_at(t, value_check=vc) for d in mutant_decisions),
                                   weak_rejected={kind: _share(not d.verified_at(t, value_check=vc)
                                                               for _, d in weak.get(kind, []))
                                                  for kind in WEAK_KINDS})
                          for vc in ((True, False) if checker.value_check else (False,))
                          for t in sorted({*STUDY_THRESHOLDS, t0})] if studied else None),
        elapsed_s=round(time.perf_counter() - started, 1))


class _RowWriter:
    """Appends one JSON line per checked artifact as it is decided (a long run can be watched, and a
    stopped one keeps what it measured); without a path it writes nothing."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        if path is not None:
            path.write_text("", encoding="utf-8")

    def append(self, row: dict[str, Any]) -> None:
        if self.path is not None:
            with self.path.open("a", encoding="utf-8") as fh:
                fh.write(json.dumps(row) + "\n")


def _share(flags: Any) -> float:
    values = list(flags)
    return round(sum(bool(v) for v in values) / len(values), 4) if values else 0.0


def select(tasks: list[Task], ids: str | None) -> list[Task]:
    """The tasks whose id is listed in `ids` (comma-separated; `559` or `MBPP/559`), in data order."""
    if not ids:
        return tasks
    wanted = {w.strip() for w in ids.split(",") if w.strip()}
    chosen = [t for t in tasks if t.id in wanted or t.id.rsplit("/", 1)[-1] in wanted]
    found = {t.id for t in chosen} | {t.id.rsplit("/", 1)[-1] for t in chosen}
    unknown = sorted(wanted - found)
    if unknown:
        raise SystemExit(f"--ids: no task with id {', '.join(unknown)} in the data (ids look like "
                         f"{tasks[0].id if tasks else 'NAME/1'} or its number)")
    return chosen


def main(name: str, default: list[Path], to_task: Callable[..., Task], argv: list[str] | None = None) -> int:
    """Command line of a code benchmark; `to_task(row, weak=None | kind)` builds one task's artifact."""
    import argparse

    parser = argparse.ArgumentParser(description=f"{name}: canonical solutions verify, mutants fail")
    parser.add_argument("--data", type=Path, action="append", help="JSONL file(s); default: the slice in data/")
    parser.add_argument("--limit", type=int, default=None, help="first N tasks only")
    parser.add_argument("--ids", default=None, help="only these task ids, comma-separated (e.g. 559,721)")
    parser.add_argument("--level", choices=["quick", "standard", "formal"], default="standard")
    parser.add_argument("--mutants", type=int, default=5, help="mutants of the canonical solution per task")
    parser.add_argument("--max-mutants", type=int, default=10, help="checker's mutants per artifact (standard)")
    parser.add_argument("--threshold", type=float, default=None,
                        help="checker's mutation threshold (default: the checker's own default)")
    parser.add_argument("--weak-suites", action="store_true",
                        help="also check weakened test suites and report what each threshold would decide")
    parser.add_argument("--rows", type=Path, default=None, help="write one JSON line per checked artifact here")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=10.0, help="per test run, seconds")
    parser.add_argument("--json", action="store_true", help="print exactly one JSON object")
    args = parser.parse_args(argv)
    if args.threshold is not None and not 0.0 <= args.threshold <= 1.0:
        parser.error(f"--threshold must lie between 0 and 1, got {args.threshold}")
    paths = args.data or default
    rows = [row for path in paths for row in read_rows(path)]
    pairs = [(to_task(r), r) for r in rows]
    chosen = {t.id for t in select([t for t, _ in pairs], args.ids)}
    pairs = [(t, r) for t, r in pairs if t.id in chosen]
    if args.limit:
        pairs = pairs[: args.limit]
    tasks = [t.model_copy(update={"weak": {k: to_task(r, weak=k).artifact for k in WEAK_KINDS}})
             if args.weak_suites else t for t, r in pairs]
    report = run(name, paths, tasks, level=args.level, mutants_per_task=args.mutants, seed=args.seed,
                 max_mutants=args.max_mutants, timeout_s=args.timeout, as_json=args.json, threshold=args.threshold,
                 rows_out=args.rows)
    if args.json:
        print(report.model_dump_json())
    else:
        _print(name, report)
    return 0 if report.passed else 1


def _print(name: str, report: Report) -> None:
    print(f"{name} ({report.tasks} tasks, {report.level}, mutation threshold {report.mutation_threshold:.2f}): "
          f"canonical VERIFIED {report.verified:.1%} (target {VERIFIED_TARGET:.0%}); mutants FAILED "
          f"{report.mutants_failed:.1%} of {report.mutants} (target {MUTANTS_TARGET:.0%})")
    print(f"  dataset tests pass {report.tests_pass:.1%}; failed only on mutation strength: "
          f"{', '.join(report.weak_tests) or 'none'}")
    print(f"  mutants shown to change behaviour: {report.mutants} used of {report.mutant_candidates} candidates; "
          f"tasks short of --mutants: {len(report.tasks_short_of_mutants)}")
    print(f"  per task {report.task_ms['median']:.0f} ms median (mean {report.task_ms['mean']:.0f}); per mutant "
          f"{report.mutant_ms['median']:.0f} ms median; checker mutation score median "
          f"{report.mutation_score_median}; total {report.elapsed_s} s")
    for miss in report.misses[:10]:
        print(f"  miss: {json.dumps(miss)}")
    if report.weak:
        print("  weak suites (informative / built; rejected at this threshold): " + "; ".join(
            f"{k} {f.suites - f.fail_own_tests}/{f.suites} {f.rejected:.1%}" for k, f in report.weak.items()))
    if report.threshold_study:
        kinds = list(WEAK_KINDS)
        print("  threshold  values  canonical-verified  mutants-failed  " + "  ".join(f"{k}-rejected" for k in kinds))
        for row in report.threshold_study:
            print(f"  {row.threshold:9.2f}  {'on' if row.value_check else 'off':>6}  {row.canonical_verified:18.1%}  "
                  f"{row.mutants_failed:14.1%}  " + "  ".join(f"{row.weak_rejected[k]:{len(k) + 9}.1%}" for k in kinds))
    print("PASS" if report.passed else "BELOW TARGET")
