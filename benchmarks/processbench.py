"""ProcessBench benchmark: find the earliest wrong step of model-written maths solutions with the real
pipeline (`verify_chain` with `MathTranslator`, quick level).

Each row `{problem, steps, label}` becomes a chain (the problem is the query, each step depends on the
one before). The predicted first-error index is the 0-based index of the first `failed` step, -1 when
no step fails (`unsupported` and `error` steps are not errors of the solution). ProcessBench's metric
(paper §4.1), per subset: accuracy on erroneous rows (prediction == label), accuracy on correct rows
(prediction == -1), and F1 = their harmonic mean; the headline is the average F1 over subsets.
Also the precision of VERIFIED (the share of VERIFIED chains that are error-free: what a VERIFIED is worth) and
its recall (the share of error-free chains that come out VERIFIED), per subset and pooled, and seconds per step.

    python benchmarks/processbench.py                        # the committed slices (4 × 60 rows)
    python benchmarks/processbench.py --data DIR_OR_FILE --json
    python benchmarks/processbench.py --translator ensemble  # the rules and a model (default: the local one)
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
from reasonforge.translate.protocol import Translator
from reasonforge.types import CheckLimits, Domain, Overall, ProofLevel, StepStatus, TranslatorMode, VerifyRequest

from _common import REPO, benchmark_translator, display_path, interleave, read_rows, share, translator_arguments

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
    verified: int = 0  # chains whose verdict is VERIFIED
    verified_correct: int = 0  # of those, the error-free ones
    precision_verified: float | None = None  # verified_correct / verified; None when nothing was VERIFIED
    recall_verified: float = 0.0  # verified_correct / correct


class Miss(BaseModel):
    """A row whose prediction differs from the label."""

    id: str
    label: int
    predicted: int
    message: str = ""


class ProcessBenchReport(BaseModel):
    """Everything the benchmark prints, as data (`--json`)."""

    data: list[str]
    translator: str = "rules"
    subsets: dict[str, SubsetReport]
    average_f1: float
    verified: int = 0
    verified_correct: int = 0
    precision_verified: float | None = None  # pooled over every subset
    recall_verified: float = 0.0
    seconds_per_step: float = 0.0
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


def predict(row: dict[str, Any], translator: Translator, limits: CheckLimits
            ) -> tuple[int, dict[str, int], str, bool]:
    """(predicted first-error index, own status counts, message of the first failed step, VERIFIED or not)."""
    verdict = verify_chain(chain_request(row), translator=translator, limits=limits)
    verified = verdict.overall is Overall.VERIFIED
    counts: dict[str, int] = {}
    for sv in verdict.step_verdicts:
        status = (sv.local_status or sv.status).value
        counts[status] = counts.get(status, 0) + 1
    for index, sv in enumerate(verdict.step_verdicts):
        if sv.status is StepStatus.FAILED:
            return index, counts, sv.error_message or "", verified
    return -1, counts, "", verified


def run_processbench(data: Path = DEFAULT_DATA, *, limit: int | None = None, limits: CheckLimits | None = None,
                     progress: bool = False, translator: TranslatorMode = TranslatorMode.RULES,
                     model: str | None = None, question_samples: int = 0) -> ProcessBenchReport:
    """Run over one ProcessBench JSONL file or a folder of them (one subset per file), translated by `translator`
    (`model`: its URL or name; default the configured endpoint, else the local model)."""
    started = time.perf_counter()
    limits = limits or CheckLimits()
    files = _files(data)
    groups = [[(_subset(path), row) for row in read_rows(path)] for path in files]
    rows = interleave(groups)
    if limit:
        rows = rows[:limit]
    chosen = (benchmark_translator(chain_request(rows[0][1]), translator, model, question_samples)
              if rows else None)
    tallies: dict[str, dict[str, Any]] = {}
    false_alarms: list[Miss] = []
    steps = 0
    for count, (subset, row) in enumerate(rows, start=1):
        t0 = time.perf_counter()
        predicted, counts, message, verified = predict(row, chosen, limits)  # type: ignore[arg-type]
        steps += len(row["steps"])
        tally = tallies.setdefault(subset, {"rows": 0, "err": 0, "err_ok": 0, "cor": 0, "cor_ok": 0, "early": 0,
                                            "late": 0, "status": {}, "ms": [], "ver": 0, "ver_ok": 0})
        tally["ms"].append((time.perf_counter() - t0) * 1000)
        tally["rows"] += 1
        tally["ver"] += verified
        tally["ver_ok"] += verified and int(row["label"]) == -1
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
            step_status=dict(sorted(t["status"].items())), median_ms_per_row=round(statistics.median(t["ms"]), 1),
            verified=t["ver"], verified_correct=t["ver_ok"],
            precision_verified=share(t["ver_ok"], t["ver"]) if t["ver"] else None,
            recall_verified=share(t["ver_ok"], t["cor"]))
    average = round(statistics.fmean(s.f1 for s in subsets.values()), 4) if subsets else 0.0
    verified = sum(s.verified for s in subsets.values())
    verified_correct = sum(s.verified_correct for s in subsets.values())
    correct = sum(s.correct for s in subsets.values())
    elapsed = time.perf_counter() - started
    return ProcessBenchReport(
        data=[display_path(p) for p in files], translator=TranslatorMode(translator).value
        + (f" + question model ×{question_samples}" if question_samples > 0 else ""), subsets=subsets,
        average_f1=average, verified=verified, verified_correct=verified_correct,
        precision_verified=share(verified_correct, verified) if verified else None,
        recall_verified=share(verified_correct, correct), seconds_per_step=round(elapsed / steps, 3) if steps else 0.0,
        elapsed_s=round(elapsed, 1), false_alarms=false_alarms)




def render(report: ProcessBenchReport) -> str:
    """The human-readable report."""
    def pct(value: float | None) -> str:
        return "-" if value is None else f"{value:.2%}"

    out = [f"ProcessBench benchmark: {', '.join(report.data)} (translator: {report.translator})",
           (f"{'subset':<15}{'rows':>6}{'err acc':>10}{'corr acc':>10}{'F1':>8}{'early':>7}{'late':>6}"
            f"{'VERIFIED':>10}{'precision':>11}{'recall':>9}  statuses")]
    for name, s in report.subsets.items():
        out.append(f"{name:<15}{s.rows:>6}{s.acc_erroneous:>10.2%}{s.acc_correct:>10.2%}{s.f1:>8.3f}"
                   f"{s.flagged_too_early:>7}{s.flagged_too_late:>6}{s.verified:>10}{pct(s.precision_verified):>11}"
                   f"{s.recall_verified:>9.2%}  {s.step_status}")
    out.append(f"average F1: {report.average_f1:.3f}; VERIFIED chains {report.verified}, of them error-free "
               f"{report.verified_correct}: precision {pct(report.precision_verified)}, recall "
               f"{report.recall_verified:.2%}; {report.seconds_per_step:.3f} s per step; elapsed {report.elapsed_s:.1f} s")
    out.append(f"flagged a step that is not the labelled first error: {len(report.false_alarms)} listed")
    out.extend(f"  {m.id}: label {m.label}, predicted {m.predicted}: {m.message}" for m in report.false_alarms)
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="a ProcessBench JSONL file or a folder of them")
    parser.add_argument("--limit", type=int, default=None, help="first N rows (taken round-robin across subsets)")
    translator_arguments(parser)
    args = parser.parse_args(argv)
    report = run_processbench(args.data, limit=args.limit, limits=CheckLimits(timeout_s=args.timeout),
                              progress=not args.json, translator=TranslatorMode(args.translator), model=args.model,
                              question_samples=args.question_samples)
    print(report.model_dump_json(indent=2) if args.json else render(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
