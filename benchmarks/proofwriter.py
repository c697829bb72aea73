"""ProofWriter (OWA, depth 5) benchmark for the rule-based logic translator (a stretch figure, no target).

Reported: the share of theories whose every sentence (and the question's statement) the translator
covers, and on the covered rows the True/False/Unknown label accuracy with open-world semantics:
context ⊢ statement → True, context ⊢ ¬statement → False, neither → Unknown (checked by the FOL
checker, i.e. classical logic). ProofWriter's own labels come from forward chaining without
contraposition, so a few rows differ by semantics, not translation (classically "Harry is not rough"
follows from "Rough things are green ... quiet things are cold" and "Harry is not cold"; ProofWriter
says Unknown), and a few theories are classically inconsistent. To separate those from translation
errors, the same translated theory is also forward-chained on ground literals in pure Python (the
dataset's semantics); that accuracy measures the translation alone.

Usage: python benchmarks/proofwriter.py [--data FILE ...] [--limit N] [--level standard|quick] [--json]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel

from reasonforge.lang.english import EnglishParser, Lexicon, NoRule, split_query
from reasonforge.lang.logic import And, Formula, Implies
from reasonforge.lang.logic.formulas import negate
from reasonforge.lang.logic.grounding import ground_entailment
from reasonforge.registry import CheckerRegistry
from reasonforge.translate import LogicTranslator
from reasonforge.types import ProofLevel, StepStatus

from _common import REPO, check, interleave, ms_summary, read_rows, share

DEFAULT_DATA = [REPO / "data" / "proofwriter" / "proofwriter-owa-d5-dev-logiclm.slice.jsonl"]
_LABELS = {"A": "True", "B": "False", "C": "Unknown"}
_SHOWN_FAILURES = 8


class Row(BaseModel):
    """One ProofWriter question: its theory, statement and gold label (True/False/Unknown)."""

    id: str
    theory_id: str
    context: str
    statement: str
    label: str


class Failure(BaseModel):
    """A row that was not covered or got the wrong label."""

    id: str
    kind: str
    reason: str


class Report(BaseModel):
    """Coverage and label accuracy."""

    rows: int
    theories: int
    level: str
    theories_covered: float
    rows_covered: float
    label_accuracy_on_covered: float
    accuracy_by_label: dict[str, float]
    forward_chaining_accuracy_on_covered: float
    ms_per_row: dict[str, float]
    failures: list[Failure]


def load_rows(paths: Sequence[Path], limit: int | None = None) -> list[Row]:
    """Rows of the Logic-LM ProofWriter files, interleaved across files, optionally the first `limit`."""
    groups = []
    for path in paths:
        group = []
        for raw in read_rows(Path(path)):
            statements = split_query(raw["question"]).statements
            group.append(Row(
                id=raw["id"], theory_id=raw["id"].rsplit("_Q", 1)[0], context=raw["context"],
                statement=statements[0] if statements else raw["question"], label=_LABELS[raw["answer"]],
            ))
        groups.append(group)
    rows = interleave(groups)
    return rows[:limit] if limit is not None else rows


def run_benchmark(
    rows: Sequence[Row], *, level: ProofLevel = ProofLevel.STANDARD, registry: CheckerRegistry | None = None
) -> Report:
    """Coverage of every theory, then label accuracy on the covered rows."""
    translator = LogicTranslator()
    failures: list[Failure] = []
    covered_theories: dict[str, bool] = {}
    covered = right = forward_right = 0
    per_label: Counter[str] = Counter()
    per_label_right: Counter[str] = Counter()
    times: list[float] = []
    for row in rows:
        parser = EnglishParser(Lexicon.from_texts([row.context, row.statement]))
        givens = translator.reader.read_givens(row.context, parser)
        problem = None
        if givens.skipped:
            problem = f"no rule for {givens.skipped[0]!r}"
        else:
            try:
                parser.parse(row.statement)
            except NoRule as exc:
                problem = f"statement {row.statement!r}: {exc}"
        covered_theories[row.theory_id] = covered_theories.get(row.theory_id, True) and problem is None
        if problem is not None:
            failures.append(Failure(id=row.id, kind="coverage", reason=problem))
            continue
        covered += 1
        forward = forward_label(givens.formulas, parser.parse(row.statement))
        if forward == row.label:
            forward_right += 1
        else:
            failures.append(Failure(id=row.id, kind="forward", reason=f"{row.statement!r}: expected {row.label}, got {forward}"))
        started = time.perf_counter()
        predicted = _label(translator, row, level, registry)
        times.append((time.perf_counter() - started) * 1000)
        per_label[row.label] += 1
        if predicted == row.label:
            right += 1
            per_label_right[row.label] += 1
        else:
            failures.append(Failure(id=row.id, kind="label", reason=f"{row.statement!r}: expected {row.label}, got {predicted}"))
    return Report(
        rows=len(rows),
        theories=len(covered_theories),
        level=level.value,
        theories_covered=share(sum(covered_theories.values()), len(covered_theories)),
        rows_covered=share(covered, len(rows)),
        label_accuracy_on_covered=share(right, covered),
        accuracy_by_label={k: share(per_label_right[k], per_label[k]) for k in sorted(per_label)},
        forward_chaining_accuracy_on_covered=share(forward_right, covered),
        ms_per_row=ms_summary(times),
        failures=failures,
    )


def forward_label(theory: Sequence[Formula], statement: Formula) -> str:
    """ProofWriter's semantics on the translated theory: ground it, forward-chain literals, no contraposition."""
    ground, goal = ground_entailment(list(theory), statement)
    facts: set[Formula] = set()
    rules: list[tuple[list[Formula], list[Formula]]] = []
    for formula in ground:
        for part in _conjuncts(formula):
            if isinstance(part, Implies):
                rules.append((_conjuncts(part.left), _conjuncts(part.right)))
            else:
                facts.add(part)
    changed = True
    while changed:
        changed = False
        for body, heads in rules:
            if all(b in facts for b in body):
                fresh = [h for h in heads if h not in facts]
                facts.update(fresh)
                changed = changed or bool(fresh)
    return "True" if goal in facts else "False" if negate(goal) in facts else "Unknown"


def _conjuncts(formula: Formula) -> list[Formula]:
    return list(formula.args) if isinstance(formula, And) else [formula]


def _label(translator: LogicTranslator, row: Row, level: ProofLevel, registry: CheckerRegistry | None) -> str:
    proves = check(translator.entailment(row.context, row.statement, level=level), level, registry)
    if proves.details.get("vacuous"):
        return "Inconsistent"  # classically the theory entails everything: ProofWriter's labels differ
    refutes = check(translator.entailment(row.context, row.statement, negated=True, level=level), level, registry)
    if proves.status is StepStatus.VERIFIED:
        return "True"
    if refutes.status is StepStatus.VERIFIED:
        return "False"
    if proves.status is StepStatus.FAILED and refutes.status is StepStatus.FAILED:
        return "Unknown"
    return f"undecided ({proves.status.value}/{refutes.status.value})"


def format_report(report: Report) -> str:
    """Human-readable summary with the first few failures."""
    pct = lambda x: f"{100 * x:.1f} %"
    by_label = ", ".join(f"{k} {pct(v)}" for k, v in report.accuracy_by_label.items())
    lines = [
        f"ProofWriter: {report.rows} rows, {report.theories} theories, level {report.level}",
        f"  theories fully covered   {pct(report.theories_covered)} (rows covered {pct(report.rows_covered)})",
        f"  label accuracy (covered) {pct(report.label_accuracy_on_covered)}  [{by_label}]  (classical FOL checker)",
        (f"  forward-chaining labels  {pct(report.forward_chaining_accuracy_on_covered)}  "
        "(the dataset's own semantics on the same translation)"),
        f"  ms per row: median {report.ms_per_row['median']:.1f}, max {report.ms_per_row['max']:.1f}",
    ]
    for failure in report.failures[:_SHOWN_FAILURES]:
        lines.append(f"  miss [{failure.kind}] {failure.id}: {failure.reason}")
    if len(report.failures) > _SHOWN_FAILURES:
        lines.append(f"  ... and {len(report.failures) - _SHOWN_FAILURES} more")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Command line entry point (always exits 0: this benchmark has no target)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, nargs="+", default=DEFAULT_DATA, help="Logic-LM ProofWriter JSONL file(s)")
    parser.add_argument("--limit", type=int, default=None, help="use the first N rows (interleaved across files)")
    parser.add_argument("--level", choices=[lv.value for lv in ProofLevel], default=ProofLevel.STANDARD.value)
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args(argv)
    report = run_benchmark(load_rows(args.data, args.limit), level=ProofLevel(args.level))
    print(report.model_dump_json(indent=2) if args.json else format_report(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
