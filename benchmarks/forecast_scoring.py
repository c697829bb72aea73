"""Forecast scoring benchmark: every metric with question-clustered bootstrap CIs on synthetic items.

    python benchmarks/forecast_scoring.py                    # 100,000 items, 1,000 resamples
    python benchmarks/forecast_scoring.py --rounds 3 --json  # each question asked 3 times (like 24/72/168 h)

Times `reasonforge.forecast.metrics.score` (NumPy: all metrics, all items and the 0.05–0.95 market
band, 1,000 resamples by question) and a plain-Python loop computing the same metrics and the same
kind of resamples. The Python loop runs `--python-resamples` resamples and is extrapolated linearly
to the full count (its cost per resample is constant); the report says which figures are measured.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time

import numpy as np
from pydantic import BaseModel

from reasonforge.forecast.metrics import score


class ScoringReport(BaseModel):
    """Everything the benchmark prints, as data (`--json`)."""

    items: int
    questions: int
    resamples: int
    bootstrap: str
    numpy_s: float
    numpy_cpu_s: float
    numpy_runs_s: list[float]
    python_resamples_measured: int
    python_point_s: float
    python_per_resample_s: float
    python_extrapolated_s: float
    ratio: float
    brier: float
    brier_ci: tuple[float, float]


def synthetic(n: int, rounds: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Forecasts (5 % unparsed), outcomes, market prices and question ids for n items."""
    rng = np.random.default_rng(seed)
    questions = (n + rounds - 1) // rounds
    truth = rng.uniform(size=questions)
    group = np.repeat(np.arange(questions), rounds)[:n]
    q = np.clip(truth[group] + rng.normal(0, 0.05, n), 0, 1)
    outcome = (rng.uniform(size=questions) < truth)[group].astype(np.float64)
    market = np.clip(q + rng.normal(0, 0.05, n), 0, 1)
    p = np.clip(q + rng.normal(0, 0.1, n), 0, 1)
    p[rng.uniform(size=n) < 0.05] = np.nan
    return p, outcome, market, group


def python_metrics(sums: list[float]) -> float:
    """Brier from the sums a plain loop accumulates (n, squared error)."""
    return sums[1] / sums[0] if sums[0] else math.nan


def python_loop(p: list[float], o: list[float], m: list[float], group: list[int], resamples: int, seed: int) -> tuple[float, float]:
    """Seconds for the point metrics and per bootstrap resample, computed with lists and floats only."""
    started = time.perf_counter()
    per_q: dict[int, list[float]] = {}
    eps = 1e-3
    for pi, oi, mi, g in zip(p, o, m, group):
        ok = not math.isnan(pi)
        se = (pi - oi) ** 2 if ok else 1.0
        q = (pi if oi == 1 else 1 - pi) if ok else eps
        lr = 1 - math.log(min(max(q, eps), 1 - eps)) / math.log(eps) if ok else 0.0
        row = [1.0, se, 1 - se, lr, (mi - oi) ** 2, float(ok), abs(pi - 0.5) * 2 if ok else 0.0,
               pi if ok else 0.0, mi if ok else 0.0, pi * mi if ok else 0.0]
        band = 0.05 <= mi <= 0.95
        acc = per_q.setdefault(g, [0.0] * 20)
        for k, v in enumerate(row):
            acc[k] += v
            if band:
                acc[10 + k] += v
    keys = list(per_q)
    point_s = time.perf_counter() - started
    rng = random.Random(seed)
    started = time.perf_counter()
    for _ in range(resamples):
        sums = [0.0] * 20
        for _ in keys:
            acc = per_q[keys[rng.randrange(len(keys))]]
            for k in range(20):
                sums[k] += acc[k]
        python_metrics(sums)
    return point_s, (time.perf_counter() - started) / max(resamples, 1)


def run(items: int = 100_000, rounds: int = 1, resamples: int = 1000, repeats: int = 3,
        python_resamples: int = 5, seed: int = 0) -> ScoringReport:
    """Measure both implementations on the same synthetic data."""
    p, o, m, group = synthetic(items, rounds, seed)
    times, cpu = [], []
    report = None
    for _ in range(repeats):
        wall, proc = time.perf_counter(), time.process_time()
        report = score(p, o, m, group, resamples=resamples, seed=seed)
        times.append(time.perf_counter() - wall)
        cpu.append(time.process_time() - proc)
    assert report is not None
    point_s, per_resample = python_loop(p.tolist(), o.tolist(), m.tolist(), group.tolist(), python_resamples, seed)
    python_total = point_s + per_resample * resamples
    numpy_s = statistics.median(times)
    brier = report.all.metrics["brier"]
    return ScoringReport(
        items=items, questions=report.n_questions, resamples=resamples, bootstrap=report.bootstrap,
        numpy_s=round(numpy_s, 4), numpy_cpu_s=round(statistics.median(cpu), 4), numpy_runs_s=[round(t, 4) for t in times],
        python_resamples_measured=python_resamples, python_point_s=round(point_s, 4),
        python_per_resample_s=round(per_resample, 4), python_extrapolated_s=round(python_total, 2),
        ratio=round(python_total / numpy_s, 1), brier=round(brier.value or math.nan, 6),
        brier_ci=(round(brier.ci_low or math.nan, 6), round(brier.ci_high or math.nan, 6)),
    )


def render(r: ScoringReport) -> str:
    """The human-readable report."""
    return "\n".join([
        (f"forecast scoring: {r.items:,} items, {r.questions:,} questions, {r.resamples:,} {r.bootstrap} bootstrap "
        "resamples by question (all metrics, all items and the 0.05–0.95 band)"),
        f"NumPy: {r.numpy_s:.3f} s wall (median of {len(r.numpy_runs_s)}: {r.numpy_runs_s}), {r.numpy_cpu_s:.3f} s CPU",
        (f"plain Python: point metrics {r.python_point_s:.3f} s, {r.python_per_resample_s:.3f} s per resample "
        f"(measured on {r.python_resamples_measured}), extrapolated to {r.resamples:,}: {r.python_extrapolated_s:.1f} s"),
        f"ratio plain Python / NumPy: {r.ratio:.0f}x",
        f"Brier {r.brier:.4f} [{r.brier_ci[0]:.4f}, {r.brier_ci[1]:.4f}]",
    ])


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=1, help="items per question (1: every item its own question)")
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3, help="NumPy runs (the median is reported)")
    parser.add_argument("--python-resamples", type=int, default=5, help="resamples actually run by the Python loop")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="print the report as one JSON object")
    args = parser.parse_args(argv)
    report = run(args.items, args.rounds, args.resamples, args.repeats, args.python_resamples, args.seed)
    print(report.model_dump_json() if args.json else render(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
