"""ProcessBench benchmark: find the earliest wrong step of model-written maths solutions with the real
pipeline (`verify_chain` with `MathTranslator`, quick level).

Each row `{problem, steps, label}` becomes a chain (the problem is the query, each step depends on the
one before). The predicted first-error index is the 0-based index of the first `failed` step, -1 when
no step fails (`unsupported` and `error` steps are not errors of the solution). ProcessBench's metric
(paper §4.1), per subset: accuracy on erroneous rows (prediction == label), accuracy on correct rows
(prediction == -1), and F1 = their harmonic mean; the headline is the average F1 over subsets.

    python benchmarks/processbench.py                        # the committed slices (4 × 60 rows)
    python benchmarks/processbench.py --data DIR_OR_FILE --json
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from reasonforge.pipeline.run import verify_chain
from reasonforge.translate.math_quick import MathTranslator
from reasonforge.types import CheckLimits, Domain, ProofLevel, StepStatus, VerifyRequest

from _common import REPO, display_path, interleave, read_rows, share

DEFAULT_DATA = REPO / "data" / "processbench"
_MAX_LISTED = 15


class SubsetReport(BaseModel):
    """ProcessBench's figures for one subset (one data file)."""

    rows: int
    erroneous: int
    correct: int
    acc_erroneous: float
    acc_correct: float
    f1: float
    flagged_too_early: int  # erroneous rows whose predicted error precedes the labelled one
    flagged_too_late: int  # erroneous rows predicted wrong later (or -1)
    step_status: dict[str, int]
    median_ms_per_row: float


class Miss(BaseModel):
    """A row whose prediction differs from the label."""

    id: str
    label: int
    predicted: int
    message: str = ""


class ProcessBenchReport(BaseModel):
    """Everything the benchmark prints, as data (`--json`)."""

    data: list[str]
    subsets: dict[str, SubsetReport]
    average_f1: float
    elapsed_s: float
    false_alarms: list[Miss]


def chain_request(row: dict[str, Any]) -> VerifyRequest:
    """A ProcessBench row as a quick-level mathematics chain."""
    return VerifyRequest(
        original_query=row.get("problem", ""), domain=Domain.MATHEMATICS, proof_level=ProofLevel.QUICK,
        reasoning_chain=[{"step_id": i + 1, "content": text if text.strip() else "(empty step)"}  # type: ignore[misc]
                         for i, text in enumerate(row["steps"])],
    )


def _files(data: Path) -> list[Path]:
    return sorted(data.glob("*.jsonl")) if data.is_dir() else [data]


def _subset(path: Path) -> str:
    return path.name.split(".")[0]


def f1_score(acc_erroneous: float, acc_correct: float) -> float:
    """Harmonic mean of the two accuracies (0 when either is 0)."""
    total = acc_erroneous + acc_correct
    return round(2 * acc_erroneous * acc_correct / total, 4) if total else 0.0


def predict(row: dict[str, Any], translator: MathTranslator, limits: CheckLimits) -> tuple[int, dict[str, int], str]:
    """(predicted first-error index, own status counts, message of the first failed step)."""
    verdict = verify_chain(chain_request(row), translator=translator, limits=limits)
    counts: dict[str, int] = {}
    for sv in verdict.step_verdicts:
        status = str(sv.details.get("local_status", sv.status.value))
        counts[status] = counts.get(status, 0) + 1
    for index, sv in enumerate(verdict.step_verdicts):
        if sv.status is StepStatus.FAILED:
            return index, counts, sv.error_message or ""
    return -1, counts, ""


def run_processbench(data: Path = DEFAULT_DATA, *, limit: int | None = None, limits: CheckLimits | None = None,
                     progress: bool = False) -> ProcessBenchReport:
    """Run over one ProcessBench JSONL file or a folder of them (one subset per file)."""
    started = time.perf_counter()
    limits = limits or CheckLimits()
    files = _files(data)
    groups = [[(_subset(path), row) for row in read_rows(path)] for path in files]
    rows = interleave(groups)
    if limit:
        rows = rows[:limit]
    translator = MathTranslator()
    tallies: dict[str, dict[str, Any]] = {}
    false_alarms: list[Miss] = []
    for count, (subset, row) in enumerate(rows, start=1):
        t0 = time.perf_counter()
        predicted, counts, message = predict(row, translator, limits)
        tally = tallies.setdefault(subset, {"rows": 0, "err": 0, "err_ok": 0, "cor": 0, "cor_ok": 0, "early": 0,
                                            "late": 0, "status": {}, "ms": []})
        tally["ms"].append((time.perf_counter() - t0) * 1000)
        tally["rows"] += 1
        for status, n in counts.items():
            tally["status"][status] = tally["status"].get(status, 0) + n
        label = int(row["label"])
        if label == -1:
            tally["cor"] += 1
            tally["cor_ok"] += predicted == -1
        else:
            tally["err"] += 1
            tally["err_ok"] += predicted == label
            tally["early"] += 0 <= predicted < label
            tally["late"] += predicted > label or predicted == -1
        if predicted != -1 and predicted != label and len(false_alarms) < _MAX_LISTED:
            false_alarms.append(Miss(id=str(row.get("id", count)), label=label, predicted=predicted,
                                     message=message[:300]))
        if progress:
            print(f"\rProcessBench: {count}/{len(rows)} rows", end="", file=sys.stderr, flush=True)
    if progress:
        print(file=sys.stderr)
    subsets = {}
    for subset, t in tallies.items():
        acc_err, acc_cor = share(t["err_ok"], t["err"]), share(t["cor_ok"], t["cor"])
        subsets[subset] = SubsetReport(
            rows=t["rows"], erroneous=t["err"], correct=t["cor"], acc_erroneous=acc_err, acc_correct=acc_cor,
            f1=f1_score(acc_err, acc_cor), flagged_too_early=t["early"], flagged_too_late=t["late"],
            step_status=dict(sorted(t["status"].items())), median_ms_per_row=round(statistics.median(t["ms"]), 1))
    average = round(statistics.fmean(s.f1 for s in subsets.values()), 4) if subsets else 0.0
    return ProcessBenchReport(data=[display_path(p) for p in files], subsets=subsets, average_f1=average,
                              elapsed_s=round(time.perf_counter() - started, 1), false_alarms=false_alarms)




def render(report: ProcessBenchReport) -> str:
    """The human-readable report."""
    out = [f"ProcessBench benchmark: {', '.join(report.data)}",
           f"{'subset':<15}{'rows':>6}{'err acc':>10}{'corr acc':>10}{'F1':>8}{'early':>7}{'late':>6}  statuses"]
    for name, s in report.subsets.items():
        out.append(f"{name:<15}{s.rows:>6}{s.acc_erroneous:>10.2%}{s.acc_correct:>10.2%}{s.f1:>8.3f}"
                   f"{s.flagged_too_early:>7}{s.flagged_too_late:>6}  {s.step_status}")
    out.append(f"average F1: {report.average_f1:.3f}; elapsed {report.elapsed_s:.1f} s")
    out.append(f"flagged a step that is not the labelled first error: {len(report.false_alarms)} listed")
    out.extend(f"  {m.id}: label {m.label}, predicted {m.predicted}: {m.message}" for m in report.false_alarms)
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="a ProcessBench JSONL file or a folder of them")
    parser.add_argument("--limit", type=int, default=None, help="first N rows (taken round-robin across subsets)")
    parser.add_argument("--timeout", type=float, default=10.0, help="per step check, seconds")
    parser.add_argument("--json", action="store_true", help="print exactly one JSON object")
    args = parser.parse_args(argv)
    report = run_processbench(args.data, limit=args.limit, limits=CheckLimits(timeout_s=args.timeout),
                              progress=not args.json)
    print(report.model_dump_json(indent=2) if args.json else render(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
