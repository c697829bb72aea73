"""Rewards benchmark: the ReasonForge reward over GSM8K gold solutions with references, against math-verify alone on
the same rows, in one run; then the same rows again through the verdict cache.

Rows: the first N GSM8K solutions (calculator annotations taken out, the way a model writes them), every fifth given
a final answer one too high; the reference is the gold `#### N`. Printed (`--json`: as data):
- rewards per second with `--jobs` workers (each completion verified in its own killed-at-budget worker), and
  math-verify's comparisons per second over the same rows with the same number of processes, and their ratio;
- what each said: the share of wrong rows each gives 0, and of right rows each rewards;
- the cache: a first pass into an empty cache, a second pass over the same rows, its hit ratio and speed-up.

    python benchmarks/rewards.py                                  # the repository's 300-row slice
    python benchmarks/rewards.py --data PATH/train.jsonl --rows 500 --jobs 2
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from reasonforge.rewards import RewardInput, Scorer

from _common import REPO, display_path, gold_completions

DEFAULT_DATA = REPO / "data" / "gsm8k" / "train.slice.jsonl"


class RewardsReport(BaseModel):
    """Everything the benchmark prints."""

    data: str
    rows: int
    jobs: int
    reasonforge_per_s: float
    math_verify_per_s: float
    speed_ratio: float  # reasonforge / math-verify (below 1: slower, it checks every step)
    wrong_given_zero: float  # of the wrong rows, the share rewarded 0
    right_rewarded: float  # of the right rows, the share rewarded above 0
    math_verify_wrong_rejected: float
    math_verify_right_accepted: float
    outcomes: dict[str, int]
    cache_first_pass_s: float
    cache_second_pass_s: float
    cache_hit_ratio: float
    cache_speedup: float


def rows_of(path: Path, n: int) -> list[tuple[RewardInput, bool]]:
    """The first `n` rows as completions with references, and whether each was made wrong."""
    return [(RewardInput(question=q, completion=c, reference=r), w) for q, c, r, w in gold_completions(path, n)]


def _math_verify(pair: tuple[str, str]) -> bool:
    from math_verify import parse, verify

    gold, completion = pair
    return bool(verify(parse(f"${gold}$"), parse(completion)))


def run(data: Path, n: int, jobs: int) -> RewardsReport:
    rows = rows_of(data, n)
    inputs = [r for r, _ in rows]
    wrong = [w for _, w in rows]
    with tempfile.TemporaryDirectory() as cache_dir:
        import os

        os.environ["REASONFORGE_CACHE_DIR"] = cache_dir  # an empty cache, so the first pass computes everything
        with Scorer(jobs=jobs) as scorer:
            scorer.score(inputs[:jobs * 2])  # start the pool's workers before the clock
            t0 = time.perf_counter()
            rewards = scorer.score(inputs)
            ours_s = time.perf_counter() - t0
        with Scorer(jobs=jobs, cached=True) as scorer:
            scorer.score([])
            t0 = time.perf_counter()
            scorer.score(inputs)
            first_s = time.perf_counter() - t0
            t0 = time.perf_counter()
            second = scorer.score(inputs)
            second_s = time.perf_counter() - t0
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        list(pool.map(_math_verify, [(inputs[0].reference or "", inputs[0].completion)] * jobs))  # warm imports
        t0 = time.perf_counter()
        verdicts = list(pool.map(_math_verify, [(r.reference or "", r.completion) for r in inputs], chunksize=8))
        mv_s = time.perf_counter() - t0
    n_wrong = sum(wrong) or 1
    n_right = (len(rows) - sum(wrong)) or 1
    outcomes: dict[str, int] = {}
    for reward in rewards:
        outcomes[reward.outcome.value] = outcomes.get(reward.outcome.value, 0) + 1
    return RewardsReport(
        data=display_path(data), rows=len(rows), jobs=jobs,
        reasonforge_per_s=round(len(rows) / ours_s, 2), math_verify_per_s=round(len(rows) / mv_s, 2),
        speed_ratio=round(mv_s / ours_s, 4),
        wrong_given_zero=round(sum(1 for r, w in zip(rewards, wrong, strict=True) if w and r.reward == 0) / n_wrong, 4),
        right_rewarded=round(sum(1 for r, w in zip(rewards, wrong, strict=True) if not w and r.reward > 0) / n_right, 4),
        math_verify_wrong_rejected=round(sum(1 for v, w in zip(verdicts, wrong, strict=True) if w and not v) / n_wrong, 4),
        math_verify_right_accepted=round(sum(1 for v, w in zip(verdicts, wrong, strict=True) if not w and v) / n_right, 4),
        outcomes=dict(sorted(outcomes.items())), cache_first_pass_s=round(first_s, 2),
        cache_second_pass_s=round(second_s, 2), cache_hit_ratio=round(sum(r.cached for r in second) / len(rows), 4),
        cache_speedup=round(first_s / second_s, 2) if second_s else 0.0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="a GSM8K JSONL file")
    parser.add_argument("--rows", type=int, default=300, help="the first N rows")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes, for both")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if not args.data.is_file():
        print(f"error: --data {args.data}: no such file", file=sys.stderr)
        return 2
    report = run(args.data, args.rows, args.jobs)
    if args.json:
        print(report.model_dump_json(indent=2))
        return 0
    values: dict[str, Any] = report.model_dump()
    for name, value in values.items():
        print(f"{name:28} {value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
