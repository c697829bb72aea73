"""Shared driver of the code benchmarks (HumanEval, MBPP): canonical artifacts must verify, mutants must fail.

For each task the benchmark builds one `python` artifact (implementation + the dataset's checks as pytest
tests) and checks it with the registered `python_tests` checker at the chosen level. Then it draws
`--mutants` mutants of the canonical implementation (`verify/mutants.py`, seeded, AST-distinct from the
original and from each other, never touching the tests) and checks each mutant artifact the same way; a
hit = the checker does not verify it. All code runs in the sandbox.
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
from reasonforge.verify.mutants import generate_mutants
from reasonforge.verify.python_tests import PythonTestsChecker

VERIFIED_TARGET = 0.98
MUTANTS_TARGET = 0.90


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
    task_ms: dict[str, float]
    mutant_ms: dict[str, float]
    mutation_score_median: float | None
    targets: dict[str, float]
    passed: bool
    misses: list[dict[str, Any]]
    elapsed_s: float


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
            muts = generate_mutants(task.artifact, seed=seed, max_mutants=mutants_per_task)
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
        mutants_failed=round(m_share, 4), task_ms=ms_summary(task_ms), mutant_ms=ms_summary(mutant_ms),
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
        print(f"  per task {report.task_ms['median']:.0f} ms median (mean {report.task_ms['mean']:.0f}); per mutant "
              f"{report.mutant_ms['median']:.0f} ms median; checker mutation score median "
              f"{report.mutation_score_median}; total {report.elapsed_s} s")
        for miss in report.misses[:10]:
            print(f"  miss: {json.dumps(miss)}")
        print("PASS" if report.passed else "BELOW TARGET")
    return 0 if report.passed else 1
