"""ProcessBench benchmark: find the earliest wrong step of model-written maths solutions with the real
pipeline (`verify_chain` with `MathTranslator`, quick level; `--level standard` adds the key lemmas: the steps'
symbolic claims proved as Coq lemmas, and the report counts the steps whose evidence names Coq).

Each row `{problem, steps, label}` becomes a chain (the problem is the query, each step depends on the
one before). The predicted first-error index is the 0-based index of the first `failed` step, -1 when
no step fails (`unsupported` and `error` steps are not errors of the solution). ProcessBench's metric
(paper §4.1), per subset: accuracy on erroneous rows (prediction == label), accuracy on correct rows
(prediction == -1), and F1 = their harmonic mean; the headline is the average F1 over subsets.
Also the precision of VERIFIED (the share of VERIFIED chains that are error-free: what a VERIFIED is worth) and
its recall (the share of error-free chains that come out VERIFIED), per subset and pooled, and seconds per step.

False refutations — a refuted step before the labelled first error, or in a solution labelled error-free — are
listed in full, by row id with the refuting relation: each is a misreading to fix or a labelling error of the
dataset to show (the reader refutes only what it proves false). `--sample N` takes a seeded sample of N rows per
subset; `--jobs K` verifies rows in K processes (the figures do not depend on it).

    python benchmarks/processbench.py                        # the committed slices (4 × 60 rows)
    python benchmarks/processbench.py --data DIR_OR_FILE --json --jobs 2
    python benchmarks/processbench.py --data DIR --sample 100 --seed 0   # a fixed slice: 100 rows per subset
    python benchmarks/processbench.py --translator ensemble  # the rules and a model (default: the local one)
    python benchmarks/processbench.py --level standard --limit 40   # with the key lemmas in Coq
"""

from __future__ import annotations

import argparse
import contextlib
import random
import statistics
import sys
import time
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from reasonforge.pipeline.run import verify_chain
from reasonforge.translate.protocol import Translator
from reasonforge.types import (
    CheckLimits,
    Domain,
    Overall,
    ProofLevel,
    ProvedBy,
    StepStatus,
    StepVerdict,
    TranslatorMode,
    VerifyRequest,
)

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
    message: str = ""  # the refuting relation and why it is false


class ProcessBenchReport(BaseModel):
    """Everything the benchmark prints, as data (`--json`)."""

    data: list[str]
    translator: str = "rules"
    level: str = "quick"
    subsets: dict[str, SubsetReport]
    average_f1: float
    verified: int = 0
    verified_correct: int = 0
    precision_verified: float | None = None  # pooled over every subset
    recall_verified: float = 0.0
    seconds_per_step: float = 0.0
    elapsed_s: float
    false_alarms: list[Miss]  # the first rows flagged at a step other than the labelled one (early or late)
    false_refutations: list[Miss] = []  # every row refuted before its labelled first error, or when error-free
    false_refutation_rate: float = 0.0  # of all rows
    # standard level: key lemmas written and proved by Coq, the verified steps whose evidence names Coq for some
    # relation, and of them those verified only because Coq proved what SymPy left undecided
    lemmas_attempted: int = 0
    lemmas_proved: int = 0
    coq_steps: int = 0
    coq_only_steps: int = 0


def chain_request(row: dict[str, Any], level: ProofLevel = ProofLevel.QUICK) -> VerifyRequest:
    """A ProcessBench row as a mathematics chain (quick level unless `level` says otherwise)."""
    return VerifyRequest(
        original_query=row.get("problem", ""), domain=Domain.MATHEMATICS, proof_level=level,
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


def predict(row: dict[str, Any], translator: Translator, limits: CheckLimits, level: ProofLevel = ProofLevel.QUICK
            ) -> tuple[int, dict[str, int], str, bool, dict[str, int]]:
    """(predicted first-error index, own status counts, message of the first failed step, VERIFIED or not, the key
    lemma counts: `coq_counts`)."""
    verdict = verify_chain(chain_request(row, level), translator=translator, limits=limits)
    verified = verdict.overall is Overall.VERIFIED
    counts: dict[str, int] = {}
    for sv in verdict.step_verdicts:
        status = (sv.local_status or sv.status).value
        counts[status] = counts.get(status, 0) + 1
    coq = coq_counts(verdict.step_verdicts)
    for index, sv in enumerate(verdict.step_verdicts):
        if sv.status is StepStatus.FAILED:
            return index, counts, sv.error_message or "", verified, coq
    return -1, counts, "", verified, coq


def coq_counts(steps: Iterable[StepVerdict]) -> dict[str, int]:
    """Key lemmas written and proved, the verified steps whose evidence names Coq, and those only Coq verified."""
    out = {"attempted": 0, "proved": 0, "steps": 0, "only": 0}
    for sv in steps:
        lemmas = [r for r in sv.details.get("key_lemmas", []) if isinstance(r, dict)]
        out["attempted"] += len(lemmas)
        out["proved"] += sum(bool(r.get("proved")) for r in lemmas)
        proofs = sv.evidence.proofs if sv.verified and sv.evidence is not None else []
        coq = [p for p in proofs if p.proved_by is ProvedBy.COQ]
        out["steps"] += bool(coq)
        out["only"] += any(p.sympy is None for p in coq)
    return out


_WORKER: dict[str, Any] = {}  # the translator of a worker process (built once per process by `_start_worker`)


def _start_worker(first: VerifyRequest, translator: TranslatorMode, model: str | None, question_samples: int,
                  limits: CheckLimits, level: ProofLevel = ProofLevel.QUICK) -> None:
    _WORKER["translator"] = benchmark_translator(first, translator, model, question_samples)
    _WORKER["limits"] = limits
    _WORKER["level"] = level


def _predict_row(row: dict[str, Any]) -> tuple[int, dict[str, int], str, bool, float, dict[str, int]]:
    t0 = time.perf_counter()
    predicted, counts, message, verified, coq = predict(row, _WORKER["translator"], _WORKER["limits"], _WORKER["level"])
    return predicted, counts, message, verified, (time.perf_counter() - t0) * 1000, coq


def sample_rows(groups: list[list[tuple[str, dict[str, Any]]]], per_subset: int, seed: int
                ) -> list[list[tuple[str, dict[str, Any]]]]:
    """A seeded sample of `per_subset` rows of each subset, in file order."""
    out = []
    for group in groups:
        keep = sorted(random.Random(f"{seed}:{group[0][0] if group else ''}").sample(
            range(len(group)), min(per_subset, len(group))))
        out.append([group[k] for k in keep])
    return out


def run_processbench(data: Path = DEFAULT_DATA, *, limit: int | None = None, limits: CheckLimits | None = None,
                     progress: bool = False, translator: TranslatorMode = TranslatorMode.RULES,
                     model: str | None = None, question_samples: int = 0, sample: int | None = None, seed: int = 0,
                     jobs: int = 1, level: ProofLevel = ProofLevel.QUICK) -> ProcessBenchReport:
    """Run over one ProcessBench JSONL file or a folder of them (one subset per file), translated by `translator`
    (`model`: its URL or name; default the configured endpoint, else the local model); `sample`: a seeded sample
    of that many rows per subset; `jobs`: worker processes; `level`: the proof level of every chain."""
    started = time.perf_counter()
    limits = limits or CheckLimits()
    files = _files(data)
    groups = [[(_subset(path), row) for row in read_rows(path)] for path in files]
    if sample:
        groups = sample_rows(groups, sample, seed)
    rows = interleave(groups)
    if limit:
        rows = rows[:limit]
    tallies: dict[str, dict[str, Any]] = {}
    false_alarms: list[Miss] = []
    false_refutations: list[Miss] = []
    steps = 0
    coq = {"attempted": 0, "proved": 0, "steps": 0, "only": 0}
    setup = (chain_request(rows[0][1], level), translator, model, question_samples, limits, level) if rows else None
    with contextlib.ExitStack() as stack:
        if not rows:
            results: Iterable[tuple[int, dict[str, int], str, bool, float, dict[str, int]]] = []
        elif jobs > 1:
            pool = stack.enter_context(ProcessPoolExecutor(max_workers=jobs, initializer=_start_worker,
                                                           initargs=setup))
            results = pool.map(_predict_row, [row for _, row in rows], chunksize=4)
        else:
            _start_worker(*setup)  # type: ignore[misc]
            results = map(_predict_row, [row for _, row in rows])
        for count, ((subset, row), result) in enumerate(zip(rows, results, strict=True), start=1):
            predicted, counts, message, verified, ms, lemmas = result
            steps += len(row["steps"])
            for key, n in lemmas.items():
                coq[key] += n
            tally = tallies.setdefault(subset, {"rows": 0, "err": 0, "err_ok": 0, "cor": 0, "cor_ok": 0, "early": 0,
                                                "late": 0, "status": {}, "ms": [], "ver": 0, "ver_ok": 0})
            tally["ms"].append(ms)
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
            miss = Miss(id=str(row.get("id", count)), label=label, predicted=predicted, message=message[:300])
            if predicted != -1 and predicted != label and len(false_alarms) < _MAX_LISTED:
                false_alarms.append(miss)
            if predicted != -1 and (label == -1 or predicted < label):
                false_refutations.append(miss)
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
        + (f" + question model ×{question_samples}" if question_samples > 0 else ""), level=ProofLevel(level).value,
        lemmas_attempted=coq["attempted"], lemmas_proved=coq["proved"], coq_steps=coq["steps"],
        coq_only_steps=coq["only"], subsets=subsets,
        average_f1=average, verified=verified, verified_correct=verified_correct,
        precision_verified=share(verified_correct, verified) if verified else None,
        recall_verified=share(verified_correct, correct), seconds_per_step=round(elapsed / steps, 3) if steps else 0.0,
        elapsed_s=round(elapsed, 1), false_alarms=false_alarms, false_refutations=false_refutations,
        false_refutation_rate=share(len(false_refutations), len(rows)))


def render(report: ProcessBenchReport) -> str:
    """The human-readable report."""
    def pct(value: float | None) -> str:
        return "-" if value is None else f"{value:.2%}"

    out = [f"ProcessBench benchmark: {', '.join(report.data)} (translator: {report.translator}, level: {report.level})",
           (f"{'subset':<15}{'rows':>6}{'err acc':>10}{'corr acc':>10}{'F1':>8}{'early':>7}{'late':>6}"
            f"{'VERIFIED':>10}{'precision':>11}{'recall':>9}  statuses")]
    for name, s in report.subsets.items():
        out.append(f"{name:<15}{s.rows:>6}{s.acc_erroneous:>10.2%}{s.acc_correct:>10.2%}{s.f1:>8.3f}"
                   f"{s.flagged_too_early:>7}{s.flagged_too_late:>6}{s.verified:>10}{pct(s.precision_verified):>11}"
                   f"{s.recall_verified:>9.2%}  {s.step_status}")
    out.append(f"average F1: {report.average_f1:.3f}; VERIFIED chains {report.verified}, of them error-free "
               f"{report.verified_correct}: precision {pct(report.precision_verified)}, recall "
               f"{report.recall_verified:.2%}; {report.seconds_per_step:.3f} s per step; elapsed {report.elapsed_s:.1f} s")
    if report.level == ProofLevel.STANDARD.value:
        out.append(f"key lemmas: {report.lemmas_proved} of {report.lemmas_attempted} proved in Coq; verified steps whose "
                   f"evidence names Coq: {report.coq_steps}, of them verified only through Coq: {report.coq_only_steps}")
    out.append(f"false refutations (refuted before the labelled first error, or in an error-free solution): "
               f"{len(report.false_refutations)} ({report.false_refutation_rate:.2%} of rows)")
    out.extend(f"  {m.id}: label {m.label}, refuted step {m.predicted}: {m.message}" for m in report.false_refutations)
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="a ProcessBench JSONL file or a folder of them")
    parser.add_argument("--limit", type=int, default=None, help="first N rows (taken round-robin across subsets)")
    parser.add_argument("--sample", type=int, default=None, metavar="N", help="a seeded sample of N rows per subset")
    parser.add_argument("--seed", type=int, default=0, help="the sample's seed")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument("--level", choices=[ProofLevel.QUICK.value, ProofLevel.STANDARD.value], default="quick",
                        help="the chains' proof level (standard: the key lemmas in Coq too)")
    translator_arguments(parser)
    args = parser.parse_args(argv)
    report = run_processbench(args.data, limit=args.limit, limits=CheckLimits(timeout_s=args.timeout),
                              progress=not args.json, translator=TranslatorMode(args.translator), model=args.model,
                              question_samples=args.question_samples, sample=args.sample, seed=args.seed,
                              jobs=max(1, args.jobs), level=ProofLevel(args.level))
    print(report.model_dump_json(indent=2) if args.json else render(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
