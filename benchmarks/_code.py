"""Shared driver of the code benchmarks (HumanEval, MBPP): canonical artifacts must verify, mutants must fail.

For each task the benchmark builds one `python` artifact (implementation + the dataset's checks as pytest
tests) and checks it with the registered `python_tests` checker at the chosen level. Then it checks
`--mutants` mutants of the canonical implementation that *change behaviour*; a hit = the checker does not
verify the mutant artifact. All code runs in the sandbox.

Which mutants: a seeded draw of up to `CANDIDATES` × `--mutants` candidates (`verify/mutants.py`, in draw
order, never touching the tests) is judged by the checker's differential run (`verify/equivalence.py`) on
the arguments the dataset's tests call the canonical solution with, and their perturbations; the first
`--mutants` candidates with a concrete input on which they differ from the canonical solution are used.
Equivalent mutants (no input tells them apart) cannot fail honestly, so they are not counted as misses;
neither are candidates for which no difference was shown (the report counts them as excluded).
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from _common import REPO, ms_summary, read_rows
from reasonforge.types import CheckLimits, ProofLevel, StepStatus
from reasonforge.verify.mutants import Mutant, generate_mutants
from reasonforge.verify.python_tests import PythonTestsChecker, judge_mutants

VERIFIED_TARGET = 0.98
MUTANTS_TARGET = 0.90
CANDIDATES = 4  # candidates drawn per mutant wanted


class Task(BaseModel):
    """One benchmark task as an artifact: `artifact` = implementation + tests."""

    id: str
    artifact: str


class Report(BaseModel):
    """Figures of one benchmark run."""

    benchmark: str
    data: list[str]
    tasks: int
    level: str
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
    elapsed_s: float


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
        max_mutants: int, timeout_s: float, as_json: bool) -> Report:
    started = time.perf_counter()
    checker = PythonTestsChecker(max_mutants=max_mutants, seed=seed)
    limits = CheckLimits(timeout_s=timeout_s)
    lvl = ProofLevel(level)
    verified = 0
    tests_pass = 0
    weak: list[str] = []
    task_ms: list[float] = []
    mutant_ms: list[float] = []
    scores: list[float] = []
    misses: list[dict[str, Any]] = []
    mutant_total = 0
    mutant_failed = 0
    candidates_total = 0
    excluded = 0
    short: list[str] = []

    def timed(src: str) -> tuple[Any, float]:
        t0 = time.perf_counter()
        out = checker.check(src, level=lvl, limits=limits)
        return out, (time.perf_counter() - t0) * 1000

    with ThreadPoolExecutor(max_workers=2) as pool:
        for i, task in enumerate(tasks, start=1):
            outcome, ms = timed(task.artifact)
            task_ms.append(ms)
            d = outcome.details
            if d.get("tests_total") and d.get("tests_passed") == d.get("tests_total"):
                tests_pass += 1
            if outcome.status is StepStatus.VERIFIED:
                verified += 1
            elif (outcome.message or "").startswith("tests kill"):
                weak.append(task.id)
            else:
                misses.append({"id": task.id, "kind": "canonical not verified", "status": outcome.status.value,
                               "message": (outcome.message or "")[:300]})
            if outcome.details.get("mutation_score") is not None:
                scores.append(outcome.details["mutation_score"])
            # After the timed check, not beside it: task_ms stays the checker's own time.
            muts, judged, not_shown = behaviour_changing(task.artifact, mutants_per_task, seed=seed, limits=limits)
            candidates_total += judged
            excluded += not_shown
            if len(muts) < min(mutants_per_task, judged):
                short.append(task.id)
            results = list(pool.map(timed, [m.source for m in muts]))
            for m, (mo, mms) in zip(muts, results, strict=True):
                mutant_total += 1
                mutant_ms.append(mms)
                if mo.status is not StepStatus.VERIFIED:
                    mutant_failed += 1
                else:
                    misses.append({"id": task.id, "kind": "mutant verified", "mutant": m.description})
            if not as_json:
                print(f"\r{name}: {i}/{len(tasks)} tasks, verified {verified}, mutants failed "
                      f"{mutant_failed}/{mutant_total}", end="", file=sys.stderr, flush=True)
    if not as_json:
        print(file=sys.stderr)
    v_share = verified / len(tasks) if tasks else 0.0
    m_share = mutant_failed / mutant_total if mutant_total else 0.0
    return Report(
        benchmark=name, data=[str(p.relative_to(REPO)) if p.is_relative_to(REPO) else p.name for p in paths],
        tasks=len(tasks), level=level, verified=round(v_share, 4),
        tests_pass=round(tests_pass / len(tasks), 4) if tasks else 0.0, weak_tests=weak, mutants=mutant_total,
        mutants_failed=round(m_share, 4), mutant_candidates=candidates_total, mutants_excluded=excluded,
        tasks_short_of_mutants=short, task_ms=ms_summary(task_ms), mutant_ms=ms_summary(mutant_ms),
        mutation_score_median=round(statistics.median(scores), 4) if scores else None,
        targets={"verified": VERIFIED_TARGET, "mutants_failed": MUTANTS_TARGET},
        passed=v_share >= VERIFIED_TARGET and m_share >= MUTANTS_TARGET,
        misses=sorted(misses, key=lambda m: m["kind"] != "canonical not verified")[:30],
        elapsed_s=round(time.perf_counter() - started, 1))


def main(name: str, default: list[Path], to_task: Callable[[dict[str, Any]], Task], argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(description=f"{name}: canonical solutions verify, mutants fail")
    parser.add_argument("--data", type=Path, action="append", help="JSONL file(s); default: the slice in data/")
    parser.add_argument("--limit", type=int, default=None, help="first N tasks only")
    parser.add_argument("--level", choices=["quick", "standard", "formal"], default="standard")
    parser.add_argument("--mutants", type=int, default=5, help="mutants of the canonical solution per task")
    parser.add_argument("--max-mutants", type=int, default=10, help="checker's mutants per artifact (standard)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=10.0, help="per test run, seconds")
    parser.add_argument("--json", action="store_true", help="print exactly one JSON object")
    args = parser.parse_args(argv)
    paths = args.data or default
    rows = [row for path in paths for row in read_rows(path)]
    if args.limit:
        rows = rows[: args.limit]
    tasks = [to_task(r) for r in rows]
    report = run(name, paths, tasks, level=args.level, mutants_per_task=args.mutants, seed=args.seed,
                 max_mutants=args.max_mutants, timeout_s=args.timeout, as_json=args.json)
    if args.json:
        print(report.model_dump_json())
    else:
        print(f"{name} ({report.tasks} tasks, {report.level}): canonical VERIFIED {report.verified:.1%} "
              f"(target {VERIFIED_TARGET:.0%}); mutants FAILED {report.mutants_failed:.1%} of {report.mutants} "
              f"(target {MUTANTS_TARGET:.0%})")
        print(f"  dataset tests pass {report.tests_pass:.1%}; failed only on mutation strength: "
              f"{', '.join(report.weak_tests) or 'none'}")
        print(f"  mutants shown to change behaviour: {report.mutants} used of {report.mutant_candidates} candidates; "
              f"tasks short of --mutants: {len(report.tasks_short_of_mutants)}")
        print(f"  per task {report.task_ms['median']:.0f} ms median (mean {report.task_ms['mean']:.0f}); per mutant "
              f"{report.mutant_ms['median']:.0f} ms median; checker mutation score median "
              f"{report.mutation_score_median}; total {report.elapsed_s} s")
        for miss in report.misses[:10]:
            print(f"  miss: {json.dumps(miss)}")
        print("PASS" if report.passed else "BELOW TARGET")
    return 0 if report.passed else 1
