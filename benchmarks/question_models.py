"""How often a model's formalisations of a word problem agree, and on the right answer: the anchor corroboration
checks a chain's steps against (`pipeline.corroboration`).

For a seeded sample of GSM8K problems (the training split: its `#### N` is the gold answer), the model writes
`--samples` programs and `--samples` problem models from the question alone (`translate.question`), and
`question_model` reads and decides them exactly as `verify` does. Reported:
- `program_right`: problems whose programs' most common answer (strictly) is the gold one;
- `problem_right`: problems where at least `required` problem models force the gold answer (Z3);
- `agreed`: problems with an agreed answer (problem models and programs on one value); `agreed_right` of them on
  the gold answer, and `precision` = agreed_right / agreed: a wrong agreed answer is what could corroborate a wrong
  chain that reached the same value, so this is the ceiling on what corroboration can be trusted with;
- `rejected`: why formalisations were not used, by kind (a number the question does not state, under-determined,
  a name used before it is assigned, ...);
- seconds per problem.
The worked examples of the prompts (GSM8K training problems too) are never in the sample.

    python benchmarks/question_models.py                                     # 30 problems, the local model
    python benchmarks/question_models.py --model local:qwen2.5-coder-1.5b --sample 30 --seed 0 --json
    python benchmarks/question_models.py --replay tests/benchmarks/recordings/question-models
"""

from __future__ import annotations

import argparse
import asyncio
import random
import re
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import sympy
from pydantic import BaseModel

from reasonforge.errors import InputError
from reasonforge.pipeline.corroboration import question_model
from reasonforge.translate.engine import TranslationEngine
from reasonforge.translate.question import problem_messages, question_messages
from reasonforge.translate.select import model_backend

from _common import REPO, display_path, print_model_report, read_rows, share

DEFAULT_DATA = REPO / "data" / "gsm8k" / "train.slice.jsonl"
_REASONS = (  # the first that matches names a rejection's kind
    ("not a stated quantity", re.compile(r"is not a quantity the question states")),
    ("under-determined", re.compile(r"do not determine the answer")),
    ("unsatisfiable", re.compile(r"contradict|unsatisfiable|no value satisfies", re.IGNORECASE)),
    ("used before assigned", re.compile(r"used before any line assigns it")),
    ("no reply", re.compile(r"carried no")),
)


class Problem(BaseModel):
    """One problem's formalisations, decided."""

    question: str
    gold: str
    program_answer: str | None
    problem_answer: str | None
    answer: str | None
    rejected: list[str]


class Report(BaseModel):
    """Everything the benchmark prints (`--json`)."""

    data: str
    model: str
    samples: int
    required: int
    problems: int
    program_right: int
    problem_right: int
    agreed: int
    agreed_right: int
    precision: float | None
    coverage: float
    rejected: dict[str, int]
    seconds_per_problem: float
    wrong_agreements: list[Problem]


def gold_answer(row: dict[str, Any]) -> sympy.Rational:
    """GSM8K's `#### N`, exact."""
    return sympy.Rational(str(row["answer"]).rsplit("####", 1)[1].strip().replace(",", ""))


def sample(rows: list[dict[str, Any]], size: int, seed: int) -> list[dict[str, Any]]:
    """`size` rows chosen with `seed`, none of them a worked example the prompts show."""
    shown = {m.content.removeprefix("Problem: ").strip() for build in (question_messages, problem_messages)
             for m in build("")[:-1] if m.role == "user"}
    eligible = [r for r in rows if str(r.get("question", "")).strip() not in shown and "####" in str(r.get("answer"))]
    return random.Random(seed).sample(eligible, min(size, len(eligible)))


def _same(value: str | None, gold: sympy.Rational) -> bool:
    return value is not None and sympy.nsimplify(sympy.sympify(value)) == gold


def _kind(reason: str) -> str:
    return next((name for name, pattern in _REASONS if pattern.search(reason)), "other")


def run(rows: list[dict[str, Any]], engine: TranslationEngine, model: str, data: Path) -> Report:
    """Every row's formalisations written, decided and compared with its gold answer."""
    problems: list[Problem] = []
    rejected: Counter[str] = Counter()
    started = time.perf_counter()
    for row in rows:
        gold = gold_answer(row)
        written = asyncio.run(engine.aformalise_question(row["question"]))
        decided = question_model(row["question"], written)
        rejected.update(_kind(r) for r in decided.rejected)
        problems.append(Problem(question=row["question"], gold=str(gold), program_answer=decided.program_answer,
                                problem_answer=decided.problem_answer, answer=decided.answer,
                                rejected=decided.rejected))
    elapsed = time.perf_counter() - started
    golds = [sympy.Rational(p.gold) for p in problems]
    agreed = [(p, g) for p, g in zip(problems, golds, strict=True) if p.answer is not None]
    right = sum(_same(p.answer, g) for p, g in agreed)
    return Report(
        data=display_path(data), model=model, samples=engine.question_samples, required=engine.question_agree,
        problems=len(problems),
        program_right=sum(_same(p.program_answer, g) for p, g in zip(problems, golds, strict=True)),
        problem_right=sum(_same(p.problem_answer, g) for p, g in zip(problems, golds, strict=True)),
        agreed=len(agreed), agreed_right=right, precision=share(right, len(agreed)) if agreed else None,
        coverage=share(len(agreed), len(problems)), rejected=dict(rejected.most_common()),
        seconds_per_problem=round(elapsed / max(len(problems), 1), 1),
        wrong_agreements=[p for p, g in agreed if not _same(p.answer, g)])


def render(report: Report) -> str:
    """The human-readable report."""
    n = report.problems
    precision = "-" if report.precision is None else f"{report.precision:.0%}"
    lines = [
        (f"{report.model}: {n} GSM8K problems from {report.data}, {report.samples} programs and {report.samples} "
         f"problem models each ({report.required} must agree)"),
        (f"  programs' answer right: {report.program_right}/{n}; problem models force the right answer: "
         f"{report.problem_right}/{n}"),
        (f"  agreed: {report.agreed}/{n} (coverage {report.coverage:.0%}), right {report.agreed_right} "
         f"(precision {precision})"),
        f"  rejected formalisations: {report.rejected}",
        f"  {report.seconds_per_problem} s per problem",
    ]
    lines += [f"  wrong agreement: {p.answer} (gold {p.gold}): {p.question[:100]}" for p in report.wrong_agreements]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="GSM8K JSONL (question, answer with ####)")
    parser.add_argument("--sample", type=int, default=30, metavar="N", help="problems in the seeded sample")
    parser.add_argument("--seed", type=int, default=0, help="the sample's seed")
    parser.add_argument("--samples", type=int, default=3, metavar="K", help="programs and problem models per problem")
    parser.add_argument("--model", default=None, help="an OpenAI-compatible URL or a model name (local, local:NAME)")
    parser.add_argument("--record", type=Path, default=None, metavar="DIR", help="record the model's replies in DIR")
    parser.add_argument("--replay", type=Path, default=None, metavar="DIR", help="replay the replies recorded in DIR")
    parser.add_argument("--json", action="store_true", help="print exactly one JSON object")
    args = parser.parse_args(argv)
    if args.sample < 1:
        parser.error("--sample must be at least 1")
    if not args.data.is_file():
        print(f"error: --data {args.data}: no such file (a GSM8K JSONL of question and answer rows)", file=sys.stderr)
        return 2
    try:
        rows = sample(read_rows(args.data), args.sample, args.seed)
        backend = model_backend(args.model, record=args.record, replay=args.replay)
        engine = TranslationEngine(backend, strict=True, question_samples=args.samples)
    except InputError as exc:
        print(f"error: {exc.message}", file=sys.stderr)
        return 2
    except (ValueError, KeyError, IndexError) as exc:
        print(f"error: --data {args.data}: not GSM8K rows ({exc})", file=sys.stderr)
        return 2
    return print_model_report(lambda model: run(rows, engine, model, args.data), backend, render, args.json)


if __name__ == "__main__":
    sys.exit(main())
