"""FOLIO benchmark: check the gold FOL of each row with Z3 and compare with the gold label.

Validation format (rows with `conclusion-FOL`): label True if premises ⊢ C, False if premises ⊢ ¬C,
Uncertain otherwise; self-contradictory premise sets are reported as vacuous, never as proofs.
Train format (no `conclusion-FOL`): each distinct premise set is checked for satisfiability.

    python benchmarks/folio.py                      # the repo slice, strict parser
    python benchmarks/folio.py --data PATH --lenient --json

Parse failures name the row (0-based) and `line L, column C`, where line L is the L-th formula of
the row: premises 1..n, then the conclusion as n+1. Times are per row (parse + solve) and are also
printed as a ratio to a baseline measured in the same process: a bare Z3 `Solver().check()` of `True`.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

import z3
from pydantic import BaseModel, Field

from reasonforge.errors import ArtifactSyntaxError
from reasonforge.lang.logic import BoolConst, FolParser, Formula
from reasonforge.types import CheckLimits
from reasonforge.verify.logic.smt import classify, entails

DEFAULT_DATA = Path(__file__).resolve().parent.parent / "data" / "folio" / "folio-validation.shared.jsonl"


class RowIssue(BaseModel):
    """One row worth listing: a parse failure, a repair, a vacuous set, a label mismatch."""

    row: int
    message: str


class FolioReport(BaseModel):
    """Everything the benchmark prints, as data (`--json`)."""

    data: str
    format: Literal["validation", "train"]
    lenient: bool
    rows: int
    checked: int = Field(description="validation: rows parsed and answered; train: distinct premise sets checked")
    agreement: int = 0
    agreement_rate: float = 0.0
    premise_sets: int = 0
    satisfiable: int = 0
    parse_failures: list[RowIssue] = Field(default_factory=list)
    repairs: list[RowIssue] = Field(default_factory=list)
    vacuous: list[RowIssue] = Field(default_factory=list)
    unknown: list[RowIssue] = Field(default_factory=list)
    mismatches: list[RowIssue] = Field(default_factory=list)
    median_ms: float = 0.0
    max_ms: float = 0.0
    baseline_ms: float = 0.0
    median_ratio: float = 0.0


def baseline_ms(repeats: int = 200) -> float:
    """Median time of a bare Z3 `Solver().check()` of `True` in this process."""
    ctx = z3.Context()
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        s = z3.Solver(ctx=ctx)
        s.add(z3.BoolVal(True, ctx))
        s.check()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def load_rows(path: Path) -> list[dict[str, Any]]:
    """The JSONL rows of a FOLIO file; a line that is not a JSON object becomes `{"_error": why}`."""
    rows: list[dict[str, Any]] = []
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                row = {"_error": f"invalid JSON: {exc}"}
            rows.append(row if isinstance(row, dict) else {"_error": "not a JSON object"})
    return rows


def _row_problem(row: dict[str, Any], *, conclusion: bool) -> str | None:
    """Why a row cannot be checked at all (bad JSON, missing fields), or None."""
    if "_error" in row:
        return str(row["_error"])
    premises = row.get("premises-FOL")
    if not isinstance(premises, list) or not all(isinstance(p, str) for p in premises):
        return "missing or malformed 'premises-FOL'"
    if conclusion and not isinstance(row.get("conclusion-FOL"), str):
        return "missing or malformed 'conclusion-FOL'"
    return None


def run_folio(data: Path = DEFAULT_DATA, *, lenient: bool = False, limits: CheckLimits | None = None) -> FolioReport:
    """Run the benchmark over one FOLIO file (validation or train format)."""
    limits = limits or CheckLimits()
    rows = load_rows(data)
    # The train file is the one without conclusion-FOL (see data/folio/SOURCE.md).
    train = bool(rows) and not any("conclusion-FOL" in row for row in rows)
    base = baseline_ms()
    report = FolioReport(data=_display(data), format="train" if train else "validation", lenient=lenient,
                         rows=len(rows), checked=0, baseline_ms=round(base, 4))
    times = _run_train(rows, report, lenient, limits) if train else _run_validation(rows, report, lenient, limits)
    if times:
        report.median_ms = round(statistics.median(times), 3)
        report.max_ms = round(max(times), 3)
        report.median_ratio = round(report.median_ms / base, 2) if base else 0.0
    return report


def _display(path: Path) -> str:
    # Paths inside the repository are shown relative to it, so reports do not depend on the checkout.
    try:
        return str(path.resolve().relative_to(DEFAULT_DATA.parents[2]))
    except ValueError:
        return str(path)


def _parse_lines(lines: Sequence[str], index: int, report: FolioReport, lenient: bool) -> list[Formula] | None:
    """Parse a row's formulas as lines 1..n of one artifact (one symbol table); None after reporting why not."""
    parser = FolParser(lenient=lenient)
    try:
        parsed = [parser.parse(text, line=i) for i, text in enumerate(lines, start=1)]
    except ArtifactSyntaxError as exc:
        report.parse_failures.append(RowIssue(row=index, message=exc.message))
        return None
    if parser.repairs:
        report.repairs.append(RowIssue(row=index, message="; ".join(parser.repairs)))
    return parsed


def _run_validation(rows: list[dict[str, Any]], report: FolioReport, lenient: bool,
                    limits: CheckLimits) -> list[float]:
    times = []
    for index, row in enumerate(rows):
        started = time.perf_counter()
        problem = _row_problem(row, conclusion=True)
        if problem is not None:
            report.parse_failures.append(RowIssue(row=index, message=problem))
            continue
        parsed = _parse_lines([*row["premises-FOL"], row["conclusion-FOL"]], index, report, lenient)
        if parsed is None:
            continue
        try:
            result = classify(parsed[:-1], parsed[-1], limits=limits)
        except Exception as exc:  # noqa: BLE001 - one bad row must not end the run
            report.unknown.append(RowIssue(row=index, message=f"{type(exc).__name__}: {exc}"))
            continue
        times.append((time.perf_counter() - started) * 1000)
        report.checked += 1
        if result.label == "vacuous":
            core = result.conclusion.unsat_core
            report.vacuous.append(RowIssue(row=index, message=f"premises contradictory (premises {core})"))
        elif result.label == "unknown":
            reason = (result.negation or result.conclusion).message
            report.unknown.append(RowIssue(row=index, message=reason))
        if result.label == row.get("label"):
            report.agreement += 1
        else:
            report.mismatches.append(RowIssue(row=index, message=f"gold {row.get('label')}, solver {result.label}"))
    report.agreement_rate = round(report.agreement / report.rows, 4) if report.rows else 0.0
    return times


def _run_train(rows: list[dict[str, Any]], report: FolioReport, lenient: bool, limits: CheckLimits) -> list[float]:
    first_row: dict[tuple[str, ...], int] = {}
    for index, row in enumerate(rows):
        problem = _row_problem(row, conclusion=False)
        if problem is not None:
            report.parse_failures.append(RowIssue(row=index, message=problem))
        else:
            first_row.setdefault(tuple(row["premises-FOL"]), index)
    report.premise_sets = len(first_row)
    times = []
    for premises, index in first_row.items():
        started = time.perf_counter()
        parsed = _parse_lines(premises, index, report, lenient)
        if parsed is None:
            continue
        # premises ⊢ ⊥ holds exactly when the premises are unsatisfiable, which entails() calls vacuous.
        try:
            result = entails(parsed, BoolConst(False), limits=limits, counterexample=False)
        except Exception as exc:  # noqa: BLE001 - one bad row must not end the run
            report.unknown.append(RowIssue(row=index, message=f"{type(exc).__name__}: {exc}"))
            continue
        times.append((time.perf_counter() - started) * 1000)
        report.checked += 1
        if result.status == "not_entailed":
            report.satisfiable += 1
        elif result.status == "vacuous":
            story = rows[index].get("story_id")
            message = f"story {story}: premises {result.unsat_core} contradict"
            report.vacuous.append(RowIssue(row=index, message=message))
        else:
            report.unknown.append(RowIssue(row=index, message=result.message))
    return times


def render(report: FolioReport) -> str:
    """The human-readable report."""
    mode = "lenient parser (repairs listed)" if report.lenient else "strict parser"
    out = [f"FOLIO benchmark: {report.data} ({report.format} format, {mode})", f"rows: {report.rows}"]
    if report.format == "validation":
        out.append(f"agreement with gold labels: {report.agreement}/{report.rows} ({report.agreement_rate:.1%})")
    else:
        out.append(f"distinct premise sets: {report.premise_sets}; satisfiable: {report.satisfiable}")

    def section(title: str, issues: list[RowIssue]) -> None:
        out.append(f"{title}: {len(issues)}")
        out.extend(f"  row {issue.row}: {issue.message}" for issue in issues)

    section("parse failures", report.parse_failures)
    section("repairs", report.repairs)
    section("vacuous premise sets", report.vacuous)
    section("solver unknown", report.unknown)
    if report.format == "validation":
        section("label mismatches", report.mismatches)
    out.append(f"time per item: median {report.median_ms:.2f} ms, max {report.max_ms:.2f} ms")
    out.append(f"baseline (bare z3 check of True, same process): {report.baseline_ms:.4f} ms; "
               f"median/baseline = {report.median_ratio:.1f}x")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="a FOLIO JSONL file (validation or train)")
    parser.add_argument("--lenient", action="store_true", help="repair FOLIO's known syntax slips (reported per row)")
    parser.add_argument("--timeout", type=float, default=10.0, help="solver timeout per check in seconds")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args(argv)
    report = run_folio(args.data, lenient=args.lenient, limits=CheckLimits(timeout_s=args.timeout))
    print(report.model_dump_json(indent=2) if args.json else render(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
