"""Commit–reveal benchmark: one committed batch of forecasts on the devnode, then verified reveals.

    python benchmarks/forecast_commit.py                     # 1,000 forecasts
    python benchmarks/forecast_commit.py --forecasts 4000 --json

Measures: time to build the batch (salts, Poseidon leaves, quaternary tree), the gas of its one commit
transaction and per forecast, reveal building, and reveal verification (leaf + Merkle path per opening,
the rules of forecast/commit/match.py) in reveals per second, against a baseline in the same run: plain
scoring of the same forecasts with no verification (forecast.metrics.point_metrics), as a ratio. One
forecast is tampered after commit, one is for an item whose cutoff has passed, one is never revealed:
the report shows each excluded with its reason.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from pydantic import BaseModel

from reasonforge.certificate import devnode
from reasonforge.certificate import forecast_registry as fr
from reasonforge.certificate.validators import generate
from reasonforge.forecast.commit import (
    PredictionRow,
    commit_rows,
    compute_scores,
    match_reveals,
    question_set_digest,
    register_batch,
    reveal,
    validator_addresses,
)
from reasonforge.forecast.commit.onchain import records_for
from reasonforge.forecast.dataset import ForecastItem


class CommitReport(BaseModel):
    """Everything the benchmark prints, as data (`--json`)."""

    forecasts: int
    build_batch_s: float
    commit_gas: int
    gas_per_forecast: float
    reveal_build_s: float
    verify_s: float
    verify_runs_s: list[float]
    reveals_per_s: float
    chain_reads_s: float
    plain_score_s: float
    ratio_verify_to_plain: float
    scored: int
    excluded: dict[str, list[str]]
    brier: float | None
    market_skill: float | None


def synthetic(n: int, seed: int) -> tuple[list[ForecastItem], list[PredictionRow]]:
    """n items (the last one's cutoff already passed) and one forecast each."""
    rng = random.Random(seed)
    future = datetime(2099, 1, 1, tzinfo=UTC)
    items, rows = [], []
    for i in range(n):
        cutoff = datetime(2020, 1, 1, tzinfo=UTC) if i == n - 1 else future + timedelta(hours=i)
        truth = rng.random()
        items.append(ForecastItem(id=f"bench/{i}", question=f"Question {i}?", cutoff=cutoff,
                                  resolved_at=cutoff + timedelta(days=7), outcome=int(rng.random() < truth),
                                  market_price=min(1.0, max(0.0, truth + rng.gauss(0, 0.1))), source="bench"))
        rows.append(PredictionRow(id=f"bench/{i}", probability=round(min(1.0, max(0.0, truth + rng.gauss(0, 0.15))), 6),
                                  reasoning=f"reasoning for question {i}"))
    return items, rows


def run(n: int, repeats: int, seed: int) -> CommitReport:
    """Build, commit, reveal (one tampered, one withheld) and verify; time each phase."""
    items, rows = synthetic(n, seed)
    t0 = time.perf_counter()
    batch = commit_rows(rows, items)
    build_s = time.perf_counter() - t0
    server, url = devnode.start()
    try:
        w3 = fr.connect(url)
        with tempfile.TemporaryDirectory() as tmp:
            compiled = fr.compile_forecast_registry(Path(tmp))
        vset = generate(4, threshold=3)
        deployment = fr.deploy(w3, compiled, validator_addresses(vset), vset.threshold)
        receipt = register_batch(w3, compiled, deployment.address, batch)
        t0 = time.perf_counter()
        openings = reveal(batch)
        reveal_s = time.perf_counter() - t0
        tampered = openings[0]
        openings[0] = tampered.model_copy(update={"forecast": tampered.forecast.model_copy(
            update={"probability_ppm": 1_000_000 - tampered.forecast.probability_ppm})})
        del openings[1]  # never revealed
        scope = question_set_digest(items)
        t0 = time.perf_counter()
        forecaster, roots, records = records_for(w3, compiled, deployment.address, openings, scope)
        chain_s = time.perf_counter() - t0
    finally:
        devnode.stop(server)
    verify_runs, plain_runs = [], []
    for _ in range(repeats):
        t0 = time.perf_counter()
        match = match_reveals(openings, items, records, roots, forecaster, scope)
        scores = compute_scores(match.scored, items)
        verify_runs.append(time.perf_counter() - t0)
        # baseline: the same forecasts scored as a plain file would be, nothing verified
        t0 = time.perf_counter()
        compute_scores(match.scored, items)
        plain_runs.append(time.perf_counter() - t0)
    verify_s, plain_s = statistics.median(verify_runs), statistics.median(plain_runs)
    excluded: dict[str, list[str]] = {}
    for e in match.excluded:
        if e.reason != "no_forecast":
            excluded.setdefault(str(e.reason), []).append(e.detail)
    return CommitReport(forecasts=n, build_batch_s=build_s, commit_gas=receipt.gas_used,
                        gas_per_forecast=receipt.gas_used / n, reveal_build_s=reveal_s, verify_s=verify_s,
                        verify_runs_s=verify_runs, reveals_per_s=len(openings) / verify_s, chain_reads_s=chain_s,
                        plain_score_s=plain_s, ratio_verify_to_plain=verify_s / plain_s, scored=len(match.scored),
                        excluded=excluded, brier=scores.brier, market_skill=scores.market_skill)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--forecasts", type=int, default=1000, help="forecasts in the batch (default 1000)")
    parser.add_argument("--repeats", type=int, default=3, help="verification runs (median reported)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if args.forecasts < 3:
        parser.error("--forecasts must be at least 3 (one tampered, one late, one unrevealed)")
    report = run(args.forecasts, max(1, args.repeats), args.seed)
    if args.json:
        sys.stdout.write(report.model_dump_json() + "\n")
        return 0
    print(f"batch of {report.forecasts} forecasts built in {report.build_batch_s:.3f} s; one commit transaction: "
          f"{report.commit_gas} gas = {report.gas_per_forecast:.1f} gas per forecast")
    print(f"reveal openings built in {report.reveal_build_s:.3f} s; registry reads {report.chain_reads_s:.3f} s")
    print(f"verified {report.forecasts - 1} reveals in {report.verify_s:.3f} s = {report.reveals_per_s:,.0f} reveals/s "
          f"(median of {len(report.verify_runs_s)}); plain scoring of the same forecasts {report.plain_score_s * 1e3:.2f} ms: "
          f"verification costs {report.ratio_verify_to_plain:,.0f}× plain scoring")
    print(f"scored {report.scored}: Brier {report.brier:.4f}, market skill {report.market_skill:.4f}")
    for reason, details in report.excluded.items():
        for detail in details:
            print(f"  excluded [{reason}] {detail}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
