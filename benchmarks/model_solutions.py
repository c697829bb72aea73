"""Model-written GSM8K solutions with final-answer labels: what a VERIFIED verdict is worth on them.

The dev set is ProcessBench's gsm8k subset (solutions written by Qwen and Llama models, step by step, each
row labelled by whether its final answer is right and by its first wrong step). Each row becomes a chain
whose claimed answer is the one its last step states (`\\boxed{…}`, "The answer is …"), verified at quick
level by `translator` (rules, the local model, or both).

Reported, for three tiers of verdict — the share of chains in each whose final answer is right (precision)
and the share of right chains that reach it (recall):
- `arithmetic`: nothing refuted, and every step with a relation the reader can read is verified on its
  arithmetic or left unsupported only because an operand is not grounded in the question: what checking the
  arithmetic alone says (the measurement that made a VERIFIED worthless: wrong solutions pass);
- `grounded`: the same, with problem grounding (`lang.math.quantities`): every operand a stated quantity,
  an earlier result or a named constant;
- `VERIFIED`: the chain's verdict (every step proven on its claim).
Also the share of wrong solutions (final answer wrong) with a refuted step and of right ones with a refuted step
(each of those listed by row id: a misreading to fix, or a slip of the solution the final answer hides),
ProcessBench's first-error F1 (the first `failed` step against the labelled one) and seconds per step.

    python benchmarks/model_solutions.py                  # the committed gsm8k slice (60 rows)
    python benchmarks/model_solutions.py --data ../shared/data/processbench/gsm8k.jsonl --json
    python benchmarks/model_solutions.py --translator ensemble --limit 20
    python benchmarks/model_solutions.py --data ../shared/data/processbench/gsm8k.jsonl --translator ensemble \
        --sample 20 --seed 0             # 20 wrong and 20 right solutions, the local model (≤ 45 min, 2 cores)
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path
from typing import Any

from processbench import chain_request, f1_score
from pydantic import BaseModel

from reasonforge.chain import final_answer
from reasonforge.pipeline.run import verify_chain
from reasonforge.translate.protocol import Translator
from reasonforge.types import (
    CheckLimits,
    ErrorKind,
    Overall,
    StepStatus,
    StepVerdict,
    TranslatorMode,
    VerifyRequest,
    VerifyResponse,
)

from _common import REPO, benchmark_translator, display_path, read_rows, share, translator_arguments

DEFAULT_DATA = REPO / "data" / "processbench" / "gsm8k.slice.jsonl"
_NO_RELATION = {ErrorKind.UNTRANSLATABLE.value}  # a step with nothing the reader can check (prose only)


class Tier(BaseModel):
    """One tier of verdict: how many chains reach it, how many of those have the right final answer."""

    chains: int = 0
    right: int = 0
    precision: float | None = None  # right / chains; None when no chain reaches the tier
    recall: float = 0.0  # right / every chain whose final answer is right


class ModelSolutionsReport(BaseModel):
    """Everything the benchmark prints, as data (`--json`)."""

    data: str
    translator: str
    rows: int
    right_answers: int  # rows whose final answer is right
    arithmetic: Tier
    grounded: Tier
    verified: Tier
    ungrounded_steps: int  # steps left unsupported by problem grounding alone
    first_error_f1: float
    acc_erroneous: float
    acc_correct: float
    wrong_refuted: float = 0.0  # of the chains whose final answer is wrong, the share with a refuted step
    right_refuted: float = 0.0  # of the chains whose final answer is right, the share with a refuted step
    right_refuted_ids: list[str] = []  # those right chains, by row id (each a misreading or a labelling slip)
    seconds_per_step: float
    elapsed_s: float


def request_for(row: dict[str, Any]) -> VerifyRequest:
    """The row as a chain that claims the answer its last step states."""
    request = chain_request(row)
    return request.model_copy(update={"claimed_answer": final_answer(row["steps"][-1]) if row["steps"] else ""})


def _kind(step: StepVerdict) -> str:
    return str(step.error_kind or "")


def tiers_of(verdict: VerifyResponse) -> tuple[bool, bool, bool]:
    """Whether the chain reaches the arithmetic, grounded and VERIFIED tiers."""
    steps = verdict.step_verdicts
    if any(s.status is StepStatus.FAILED for s in steps):
        return False, False, False
    checkable = [s for s in steps if _kind(s) not in _NO_RELATION]
    ungrounded = [s for s in checkable if _kind(s) == ErrorKind.UNGROUNDED_OPERAND.value]
    verified = [s for s in checkable if s.status is StepStatus.VERIFIED]
    arithmetic = bool(verified) and len(verified) + len(ungrounded) == len(checkable)
    grounded = arithmetic and not ungrounded
    return arithmetic, grounded, verdict.overall is Overall.VERIFIED


def balanced(rows: list[dict[str, Any]], per_side: int, seed: int) -> list[dict[str, Any]]:
    """A seeded sample of `per_side` rows whose final answer is wrong and `per_side` whose final answer is right,
    in file order (a slice sized to a slow translator: the same rows for the same seed)."""
    picked: list[dict[str, Any]] = []
    for right in (False, True):
        side = [r for r in rows if bool(r.get("final_answer_correct")) is right]
        picked += random.Random(seed).sample(side, min(per_side, len(side)))
    order = {id(r): n for n, r in enumerate(rows)}
    return sorted(picked, key=lambda r: order[id(r)])


def run_model_solutions(data: Path = DEFAULT_DATA, *, limit: int | None = None, limits: CheckLimits | None = None,
                        translator: TranslatorMode = TranslatorMode.RULES, model: str | None = None,
                        progress: bool = False, question_samples: int = 0, sample: int | None = None,
                        seed: int = 0) -> ModelSolutionsReport:
    """Run every row of `data` (ProcessBench gsm8k rows; `sample` wrong and `sample` right ones, seeded, when
    given) through the pipeline and tally the tiers."""
    started = time.perf_counter()
    limits = limits or CheckLimits()
    rows = read_rows(data)
    if sample is not None:
        rows = balanced(rows, sample, seed)
    rows = rows[:limit] if limit else rows
    chosen: Translator | None = (benchmark_translator(request_for(rows[0]), translator, model, question_samples)
                                 if rows else None)
    counts = {"arith": [0, 0], "ground": [0, 0], "ver": [0, 0]}
    right_answers = steps = ungrounded = 0
    err = err_ok = cor = cor_ok = 0
    refuted = {True: 0, False: 0}  # by whether the final answer is right
    right_refuted: list[str] = []
    for n, row in enumerate(rows, start=1):
        verdict = verify_chain(request_for(row), translator=chosen, limits=limits)
        right = bool(row.get("final_answer_correct"))
        right_answers += right
        steps += len(row["steps"])
        ungrounded += sum(_kind(s) == ErrorKind.UNGROUNDED_OPERAND.value for s in verdict.step_verdicts)
        for key, reached in zip(counts, tiers_of(verdict), strict=True):
            counts[key][0] += reached
            counts[key][1] += reached and right
        predicted = next((i for i, s in enumerate(verdict.step_verdicts) if s.status is StepStatus.FAILED), -1)
        if predicted != -1:
            refuted[right] += 1
            if right:
                right_refuted.append(str(row.get("id", n)))
        if int(row["label"]) == -1:
            cor, cor_ok = cor + 1, cor_ok + (predicted == -1)
        else:
            err, err_ok = err + 1, err_ok + (predicted == int(row["label"]))
        if progress:
            print(f"\rmodel solutions: {n}/{len(rows)} rows", end="", file=sys.stderr, flush=True)
    if progress:
        print(file=sys.stderr)

    def tier(key: str) -> Tier:
        reached, right = counts[key]
        return Tier(chains=reached, right=right, precision=share(right, reached) if reached else None,
                    recall=share(right, right_answers))

    acc_err, acc_cor = share(err_ok, err), share(cor_ok, cor)
    elapsed = time.perf_counter() - started
    return ModelSolutionsReport(
        data=display_path(data), translator=TranslatorMode(translator).value + (f" + question model ×{question_samples}" if question_samples > 0 else ""),
        rows=len(rows),
        right_answers=right_answers, arithmetic=tier("arith"), grounded=tier("ground"), verified=tier("ver"),
        ungrounded_steps=ungrounded, first_error_f1=f1_score(acc_err, acc_cor), acc_erroneous=acc_err,
        acc_correct=acc_cor, wrong_refuted=share(refuted[False], len(rows) - right_answers),
        right_refuted=share(refuted[True], right_answers), right_refuted_ids=right_refuted, seconds_per_step=round(elapsed / steps, 3) if steps else 0.0, elapsed_s=round(elapsed, 1))


def render(report: ModelSolutionsReport) -> str:
    """The human-readable report."""
    def line(name: str, t: Tier) -> str:
        precision = "-" if t.precision is None else f"{t.precision:.2%}"
        return f"  {name:<11}{t.chains:>7}{t.right:>7}{precision:>11}{t.recall:>9.2%}"

    return "\n".join([
        (f"model-written solutions: {report.data} (translator: {report.translator}); {report.rows} rows, "
         f"{report.right_answers} with the right final answer"),
        f"  {'tier':<11}{'chains':>7}{'right':>7}{'precision':>11}{'recall':>9}",
        line("arithmetic", report.arithmetic), line("grounded", report.grounded), line("VERIFIED", report.verified),
        (f"problem grounding left {report.ungrounded_steps} steps unsupported; precision bought over arithmetic "
         f"alone: {_gain(report)}"),
        (f"refuted: {report.wrong_refuted:.2%} of the wrong solutions, {report.right_refuted:.2%} of the right ones"
         + (f" ({', '.join(report.right_refuted_ids[:15])})" if report.right_refuted_ids else "")),
        (f"first-error F1 {report.first_error_f1:.3f} (erroneous {report.acc_erroneous:.2%}, correct "
         f"{report.acc_correct:.2%}); {report.seconds_per_step:.3f} s per step; elapsed {report.elapsed_s:.1f} s"),
    ])


def _gain(report: ModelSolutionsReport) -> str:
    a, g = report.arithmetic.precision, report.grounded.precision
    if a is None or g is None:
        return "-"
    return f"{(g - a) * 100:+.1f} points ({a:.2%} → {g:.2%})"


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="a ProcessBench gsm8k JSONL file")
    parser.add_argument("--limit", type=int, default=None, help="the first N rows")
    parser.add_argument("--sample", type=int, default=None, metavar="N", help=(
        "a seeded sample of N rows with a wrong final answer and N with a right one (a slice for the model)"))
    parser.add_argument("--seed", type=int, default=0, help="the sample's seed")
    translator_arguments(parser)
    args = parser.parse_args(argv)
    if not args.data.is_file():
        print(f"error: --data {args.data} is not a file; pass a ProcessBench gsm8k JSONL file", file=sys.stderr)
        return 2
    report = run_model_solutions(args.data, limit=args.limit, limits=CheckLimits(timeout_s=args.timeout),
                                 translator=TranslatorMode(args.translator), model=args.model, progress=not args.json,
                                 question_samples=args.question_samples, sample=args.sample, seed=args.seed)
    print(report.model_dump_json(indent=2) if args.json else render(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
