"""FOLIO from natural language: a model translates each problem into first-order logic, Z3 gives the label.

For each FOLIO validation row the premises (in English) become a logic chain's question and the conclusion its one
step, and the model translates that step exactly as `reasonforge verify --translator model` does (the same prompt,
grammar and repair loop, `translate.engine`): premise lines and a `⊢ conclusion` line. The artifact's premises and
conclusion are then labelled the way the gold FOL is labelled by `benchmarks/folio.py` (`verify.logic.classify`):
True when the premises entail the conclusion, False when they entail its negation, Uncertain otherwise. This is the
LINC recipe (a model translates, a prover decides) with the product's own translator.

Reported: the first-attempt compile rate (the share of rows whose first reply is an artifact the checker parses),
the share with an artifact after repairs, label accuracy over all rows (a row with no artifact, or whose premises
contradict themselves, counts as wrong) and over the rows with an artifact, accuracy by gold label, the confusion
counts, and seconds per row. The seed's anchor is LINC with GPT-4: 72.5 % label accuracy on FOLIO; answering the
commonest gold label alone is printed beside it. The artifact is labelled as written, as LINC labels it: `verify`
would also hold it to the step's reading (`verify.logic.align`), which this benchmark does not measure.

    python benchmarks/folio_nl.py                                    # the shared validation rows, the local model
    python benchmarks/folio_nl.py --sample 40 --seed 0 --json
    python benchmarks/folio_nl.py --model local:qwen2.5-coder-1.5b --record DIR
    python benchmarks/folio_nl.py --replay tests/benchmarks/recordings/folio-nl --sample 3
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from reasonforge.errors import ArtifactSyntaxError, InputError
from reasonforge.lang.logic import parse_fol_artifact
from reasonforge.translate.engine import TranslationEngine
from reasonforge.translate.select import model_backend
from reasonforge.types import CheckLimits, Domain, ReasoningStep, VerifyRequest
from reasonforge.verify.logic import classify

from _common import REPO, display_path, print_model_report, share

DEFAULT_DATA = REPO / "data" / "folio" / "folio-validation.shared.jsonl"
LABELS = ("True", "False", "Uncertain")
LINC_GPT4 = 0.725


class Row(BaseModel):
    """One problem: what the model wrote and what it decides."""

    index: int
    gold: str
    label: str  # True / False / Uncertain, or why there is none: untranslated, vacuous, unknown
    first_attempt_compiled: bool
    attempts: int
    artifact: str


class Report(BaseModel):
    """Everything the benchmark prints (`--json`)."""

    data: str
    model: str
    rows: int
    first_attempt_compile_rate: float
    compiled: int
    compile_rate: float
    correct: int
    accuracy: float
    accuracy_compiled: float | None
    by_gold: dict[str, float]
    confusion: dict[str, dict[str, int]]
    anchor_linc_gpt4: float
    majority_label: float  # the share of the commonest gold label: what answering it alone scores
    seconds_per_row: float
    wrong: list[Row]


def load(path: Path) -> list[dict[str, Any]]:
    """The rows of a FOLIO validation file (premises, conclusion, label); ValueError naming the line otherwise."""
    from folio import load_rows

    rows = load_rows(path)
    for number, row in enumerate(rows, start=1):
        premises, conclusion, label = row.get("premises"), row.get("conclusion"), row.get("label")
        if "_error" in row:
            raise ValueError(f"line {number}: {row['_error']}")
        if isinstance(premises, str):
            premises = [p for p in premises.splitlines() if p.strip()]
            row["premises"] = premises
        if not (isinstance(premises, list) and premises and all(isinstance(p, str) for p in premises)
                and isinstance(conclusion, str) and conclusion.strip() and label in LABELS):
            raise ValueError(f"line {number}: a FOLIO validation row needs 'premises' (a list of sentences), "
                             f"'conclusion' and 'label' ({', '.join(LABELS)})")
    return rows


def request_for(row: dict[str, Any]) -> VerifyRequest:
    """The chain `verify` would get for the problem: the premises as its question, the conclusion as its step."""
    return VerifyRequest(domain=Domain.LOGIC, original_query="\n".join(p.strip() for p in row["premises"]),
                         reasoning_chain=[ReasoningStep(step_id=1, content=row["conclusion"].strip())])


def label_of(artifact: str, limits: CheckLimits) -> str:
    """What the artifact's premises say of its conclusion, or why nothing: untranslated, vacuous, unknown."""
    if not artifact.strip():
        return "untranslated"
    try:
        parsed = parse_fol_artifact(artifact)
    except ArtifactSyntaxError:
        return "untranslated"
    return classify(parsed.premises, parsed.conclusion, limits=limits).label


def run(rows: list[tuple[int, dict[str, Any]]], engine: TranslationEngine, model: str, data: Path,
        limits: CheckLimits) -> Report:
    """Every row translated by the model and labelled by Z3."""
    done: list[Row] = []
    started = time.perf_counter()
    for index, row in rows:
        outcome = asyncio.run(engine.atranslate(request_for(row)))
        [translation] = outcome.translations
        [step] = outcome.steps
        artifact = translation.formal_representation if step.compiled else ""
        done.append(Row(index=index, gold=row["label"], label=label_of(artifact, limits),
                        first_attempt_compiled=step.first_attempt_compiled, attempts=step.attempts,
                        artifact=translation.formal_representation))
    elapsed = time.perf_counter() - started
    compiled = [r for r in done if r.label != "untranslated"]
    correct = sum(r.label == r.gold for r in done)
    confusion: dict[str, dict[str, int]] = {gold: {} for gold in LABELS}
    for (gold, label), count in Counter((r.gold, r.label) for r in done).items():
        confusion[gold][label] = count
    return Report(
        data=display_path(data), model=model, rows=len(done),
        first_attempt_compile_rate=share(sum(r.first_attempt_compiled for r in done), len(done)),
        compiled=len(compiled), compile_rate=share(len(compiled), len(done)),
        correct=correct, accuracy=share(correct, len(done)),
        accuracy_compiled=share(sum(r.label == r.gold for r in compiled), len(compiled)) if compiled else None,
        by_gold={gold: share(sum(r.label == gold for r in done if r.gold == gold), sum(r.gold == gold for r in done))
                 for gold in LABELS},
        confusion=confusion, anchor_linc_gpt4=LINC_GPT4,
        majority_label=share(max(Counter(r.gold for r in done).values(), default=0), len(done)),
        seconds_per_row=round(elapsed / max(len(done), 1), 1),
        wrong=[r for r in done if r.label != r.gold])


def render(report: Report) -> str:
    """The human-readable report."""
    n = report.rows
    within = "-" if report.accuracy_compiled is None else f"{report.accuracy_compiled:.1%}"
    lines = [
        f"{report.model}: {n} FOLIO problems from {report.data}, premises and conclusion translated to FOL, Z3 labels",
        (f"  compiled at the first attempt: {report.first_attempt_compile_rate:.1%}; with repairs: "
         f"{report.compiled}/{n} ({report.compile_rate:.1%})"),
        (f"  label accuracy: {report.correct}/{n} = {report.accuracy:.1%} (on compiled rows {within}); "
         f"LINC with GPT-4: {report.anchor_linc_gpt4:.1%}; the commonest label alone: {report.majority_label:.1%}"),
        "  by gold label: " + ", ".join(f"{g} {a:.1%}" for g, a in report.by_gold.items()),
        "  gold → label: " + "; ".join(f"{g}: {dict(sorted(c.items()))}" for g, c in report.confusion.items()),
        f"  {report.seconds_per_row} s per row",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="a FOLIO validation JSONL file")
    parser.add_argument("--sample", type=int, default=None, metavar="N", help="a seeded sample of N rows (default all)")
    parser.add_argument("--seed", type=int, default=0, help="the sample's seed")
    parser.add_argument("--attempts", type=int, default=2, help="model attempts per row (1: no repair)")
    parser.add_argument("--timeout", type=float, default=10.0, help="solver timeout per check, seconds")
    parser.add_argument("--model", default=None, help="an OpenAI-compatible URL or a model name (local, local:NAME)")
    parser.add_argument("--record", type=Path, default=None, metavar="DIR", help="record the model's replies in DIR")
    parser.add_argument("--replay", type=Path, default=None, metavar="DIR", help="replay the replies recorded in DIR")
    parser.add_argument("--json", action="store_true", help="print exactly one JSON object")
    args = parser.parse_args(argv)
    if args.sample is not None and args.sample < 1:
        parser.error("--sample must be at least 1")
    if args.attempts < 1:
        parser.error("--attempts must be at least 1")
    if not args.data.is_file():
        print(f"error: --data {args.data}: no such file (a FOLIO validation JSONL)", file=sys.stderr)
        return 2
    try:
        rows = list(enumerate(load(args.data)))
    except ValueError as exc:
        print(f"error: --data {args.data}: {exc}", file=sys.stderr)
        return 2
    if args.sample is not None:
        rows = sorted(random.Random(args.seed).sample(rows, min(args.sample, len(rows))), key=lambda r: r[0])
    limits = CheckLimits(timeout_s=args.timeout)
    try:
        backend = model_backend(args.model, record=args.record, replay=args.replay)
        engine = TranslationEngine(backend, strict=True, domains=[Domain.LOGIC], max_attempts=args.attempts,
                                   limits=limits)
    except InputError as exc:
        print(f"error: {exc.message}", file=sys.stderr)
        return 2
    return print_model_report(lambda model: run(rows, engine, model, args.data, limits), backend, render, args.json)


if __name__ == "__main__":
    sys.exit(main())
