"""GSM8K benchmark: reference solutions through the real pipeline (`verify_chain` with `MathTranslator`,
quick level), then seeded one-slip perturbations.

Each solution is a chain: one line = one step (each step depends on the one before); the final
`#### N` line is the claimed answer, checked against the last computed value. Figures:
- checkable steps verified: steps holding a calculator annotation `<<…>>` or an explicit equation
  (`=` between maths tokens, see `_checkable`) whose own check is `verified` (target ≥ 92 %: a number is
  grounded only by the question or by a derivation from grounded numbers, so a step resting on world knowledge
  — a bike's 2 wheels, a round trip's 2 — or on arithmetic done in the head — 3 readings of 20 minutes in an
  hour — is `unsupported`, never `verified` on a value that merely coincides);
  answer lines are counted apart;
- false `failed`: unperturbed solutions refuted on a relation that holds as written (target ≤ 0.5 %); one
  refuted on a relation that is false as written (evaluated apart from the checker: `written_false`) is a slip
  in the dataset's own solution, caught, and counted apart;
- localisation: for `--perturb` solutions (seeded), one computed result is changed — the number after
  `=` in one annotation and its repetition right after it in the text, nothing else — and the hit is
  the first failed step being the perturbed one (target ≥ 95 %);
- median milliseconds per step (verify_chain wall time of a solution / its steps).

    python benchmarks/gsm8k.py                          # the committed slice (300 rows)
    python benchmarks/gsm8k.py --data PATH --json       # e.g. the full train.jsonl
    python benchmarks/gsm8k.py --text --perturb 0       # each solution split as model text (`verify --text`)
"""

from __future__ import annotations

import argparse
import ast
import random
import re
import statistics
import sys
import time
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

from pydantic import BaseModel, Field

from reasonforge.chain import request_from_reasoning
from reasonforge.pipeline.run import verify_chain
from reasonforge.translate.math_quick import MathTranslator
from reasonforge.types import (
    CheckLimits,
    Domain,
    ProofLevel,
    ReasoningSubmission,
    StepStatus,
    StepVerdict,
    VerificationVerdict,
    VerifyRequest,
)

from _common import REPO, display_path, read_rows, share

DEFAULT_DATA = REPO / "data" / "gsm8k" / "train.slice.jsonl"
TARGETS = {"checkable_verified": 0.92, "localized": 0.95, "false_failed_max": 0.005}
_ANNOTATION = re.compile(r"<<([^<>=]*)=([^<>]*)>>")
_MAX_LISTED = 50  # the full train.jsonl has 31 solutions with a (reference) slip: list them all
_EQUATION = re.compile(r"(?:\d|(?<![A-Za-z])[A-Za-z]|[)%])\s*=\s*\$?\s*(?:\d|\.\d|[A-Za-z](?![A-Za-z])|\(|-)")


class Issue(BaseModel):
    """One row worth a look: a false failure, a missed slip, an unverified checkable step."""

    row: int
    step: int | None = None
    status: str = ""
    message: str = ""


class GsmReport(BaseModel):
    """Everything the benchmark prints, as data (`--json`)."""

    data: str
    solutions: int
    steps: int
    checkable_steps: int
    checkable_verified: float
    answer_lines: int
    answer_verified: float
    step_status: dict[str, int]
    false_failed: float = Field(description="share of unperturbed solutions with a failed step whose relation, as "
                                            "written, holds (a misreading)")
    reference_slips: int = Field(description="unperturbed solutions refuted on a relation that is false as written "
                                             "(the dataset's own arithmetic slip, evaluated apart from the checker)")
    perturbed: int
    localized: float = Field(description="share of perturbed solutions whose first failed step is the perturbed one")
    detected: float = Field(description="share of perturbed solutions with any failed step")
    median_ms_per_step: float
    elapsed_s: float
    targets: dict[str, float]
    passed: bool
    false_failures: list[Issue]
    unverified_checkable: list[Issue]
    missed_slips: list[Issue]
    reference_slip_list: list[Issue] = []
    split: str = "lines"  # how solutions became chains: a step per line, or by the reader of model text (--text)
    split_per_line: float = 0.0  # share of solutions split a step per line (the answer line joined to the last)


def chain_request(question: str, answer: str, *, text: bool = False) -> VerifyRequest:
    """A GSM8K solution as a quick-level mathematics chain, one step per non-empty line; with `text`, the solution
    as a model's text, split by the product's own reader (`--text`: the answer line joins the step before it)."""
    if text:
        return request_from_reasoning(ReasoningSubmission(reasoning=answer, original_query=question,
                                                          domain=Domain.MATHEMATICS, proof_level=ProofLevel.QUICK))
    lines = [line for line in answer.split("\n") if line.strip()]
    return VerifyRequest(
        original_query=question, domain=Domain.MATHEMATICS, proof_level=ProofLevel.QUICK,
        reasoning_chain=[{"step_id": i + 1, "content": line} for i, line in enumerate(lines)],  # type: ignore[misc]
    )


def _shifted(result: str, rng: random.Random) -> str | None:
    """A different value written like `result` (same decimals): integers move by 1-3, decimals by 2-3 units
    of their last digit, so a value rounded within its allowance still lands outside it."""
    try:
        value = Decimal(result)
    except ArithmeticError:
        return None
    exponent = value.as_tuple().exponent
    decimals = -exponent if isinstance(exponent, int) and exponent < 0 else 0
    unit = Decimal(1).scaleb(-decimals)
    steps = [1, 2, 3] if decimals == 0 else [2, 3]
    delta = rng.choice(steps) * unit
    new = value + delta if rng.random() < 0.5 or value - delta < 0 else value - delta
    text = f"{new:.{decimals}f}"
    if result.startswith(".") and text.startswith("0."):
        text = text[1:]
    return text


def perturb(answer: str, rng: random.Random) -> tuple[str, int] | None:
    """Change one annotation's result and its repetition after `>>`; (new answer, 1-based step) or None."""
    lines = answer.split("\n")
    spots = [(i, m) for i, line in enumerate(lines) for m in _ANNOTATION.finditer(line)]
    if not spots:
        return None
    index, m = rng.choice(spots)
    line = lines[index]
    result = m.group(2)
    new = _shifted(result, rng)
    if new is None:
        return None
    after = line[m.end():]
    shown = re.match(r"\$?(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d*\.?\d+)", after)
    if shown and shown.group(1).replace(",", "") == result:
        start, end = m.end() + shown.start(1), m.end() + shown.end(1)
        repeated = f"{Decimal(new):,}" if "," in shown.group(1) else new
        line = line[:start] + repeated + line[end:]
    line = line[:m.start(2)] + new + line[m.end(2):]
    lines[index] = line
    step = [i for i, text in enumerate(lines) if text.strip()].index(index) + 1
    return "\n".join(lines), step


def _checkable(text: str) -> bool:
    """A calculator annotation, or an explicit equation: `=` between maths tokens (a number, a one-letter
    name, `)` or `%` on the left; a number, name or `(` on the right). `Last week = 111 texts` is prose."""
    return "<<" in text or _EQUATION.search(text) is not None


_WRITTEN = re.compile(r'#\s*"(?P<source>[^"]*)"')
_ARITHMETIC = re.compile(r"[\d.+\-*/() ×x÷]+")


def written_false(failing_line: str) -> bool:
    """Whether the relation the artifact line quotes (`# "192*100=$1920"`) is false as written, evaluated apart
    from the checker: currency signs, thousands commas and trailing unit words dropped, each side plain arithmetic
    of numbers read by Python's own parser, compared exactly. A slip in the reference solution, not a misreading."""
    m = _WRITTEN.search(failing_line)
    if m is None:
        return False
    sides = [re.sub(r"(?<=\d),(?=\d{3})", "", side.replace("$", "")).strip() for side in m.group("source").split("=")]
    values = []
    for side in sides:
        side = re.sub(r"\s*[A-Za-z][A-Za-z ]*$", "", side)  # "0.5 hour" → "0.5"
        if not side or not _ARITHMETIC.fullmatch(side):
            return False
        value = _exact(side.replace("×", "*").replace("x", "*").replace("÷", "/"))
        if value is None:
            return False
        values.append(value)
    return len(values) >= 2 and len(set(values)) > 1


def _exact(text: str) -> Fraction | None:
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError:
        return None

    def walk(node: ast.AST) -> Fraction:
        if isinstance(node, ast.Expression):
            return walk(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
            return Fraction(str(node.value))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
            value = walk(node.operand)
            return -value if isinstance(node.op, ast.USub) else value
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Sub | ast.Mult | ast.Div):
            a, b = walk(node.left), walk(node.right)
            return a + b if isinstance(node.op, ast.Add) else a - b if isinstance(node.op, ast.Sub) \
                else a * b if isinstance(node.op, ast.Mult) else a / b
        raise ValueError(type(node).__name__)

    try:
        return walk(tree)
    except (ValueError, ZeroDivisionError):
        return None


def _failing_line(verdict: StepVerdict) -> str:
    """The artifact line of the first false relation (it quotes the step's text after `#`)."""
    lines = verdict.formal_representation.splitlines()
    for relation in verdict.details.get("relations", []):
        if relation.get("verdict") == "failed" and 0 < relation.get("line", 0) <= len(lines):
            return lines[relation["line"] - 1][:160]
    return lines[-1][:160] if lines else ""


def _own_status(verdict: VerificationVerdict, step_id: int) -> str:
    sv = next(v for v in verdict.step_verdicts if v.step_id == step_id)
    return (sv.local_status or sv.status).value


def _first_failed(verdict: VerificationVerdict) -> int | None:
    return verdict.failure_report.failed_step_id if verdict.failure_report and any(
        v.status is StepStatus.FAILED for v in verdict.step_verdicts) else None


def run_gsm8k(data: Path = DEFAULT_DATA, *, limit: int | None = None, perturbations: int = 1000, seed: int = 0,
              limits: CheckLimits | None = None, progress: bool = False, text: bool = False) -> GsmReport:
    """Run the benchmark over a GSM8K JSONL file (rows `{question, answer}`); `text`: each solution split by the
    product's reader of model text (`split_per_line` counts the solutions it splits a step per line)."""
    started = time.perf_counter()
    limits = limits or CheckLimits()
    rows = read_rows(data)[:limit] if limit else read_rows(data)
    translator = MathTranslator()
    status_counts: dict[str, int] = {}
    checkable = checkable_ok = answers = answers_ok = steps = with_failure = slips = 0
    slip_list: list[Issue] = []
    per_step_ms: list[float] = []
    false_failures: list[Issue] = []
    unverified: list[Issue] = []
    per_line = 0
    for index, row in enumerate(rows):
        request = chain_request(row["question"], row["answer"], text=text)
        lines = [line for line in row["answer"].split("\n") if line.strip()]
        per_line += len(request.reasoning_chain) == len(lines) - lines[-1].lstrip().startswith("####")
        t0 = time.perf_counter()
        verdict = verify_chain(request, translator=translator, limits=limits)
        per_step_ms.append((time.perf_counter() - t0) * 1000 / len(request.reasoning_chain))
        steps += len(request.reasoning_chain)
        for step in request.reasoning_chain:
            status = _own_status(verdict, step.step_id)
            status_counts[status] = status_counts.get(status, 0) + 1
            sv = next(v for v in verdict.step_verdicts if v.step_id == step.step_id)
            if step.content.lstrip().startswith("####"):
                answers += 1
                answers_ok += status == "verified"
            elif _checkable(step.content):
                checkable += 1
                checkable_ok += status == "verified"
                if status != "verified" and len(unverified) < _MAX_LISTED:
                    unverified.append(Issue(row=index, step=step.step_id, status=status,
                                            message=f"{step.content[:160]} → {sv.error_message or ''}"[:400]))
        failed = _first_failed(verdict)
        if failed is not None:
            sv = next(v for v in verdict.step_verdicts if v.step_id == failed)
            issue = Issue(row=index, step=failed, status="failed",
                          message=f"{_failing_line(sv)} → {sv.error_message or ''}"[:400])
            if written_false(_failing_line(sv)):
                slips += 1
                if len(slip_list) < _MAX_LISTED:
                    slip_list.append(issue)
            else:
                with_failure += 1
                if len(false_failures) < _MAX_LISTED:
                    false_failures.append(issue)
        if progress and index % 200 == 0:
            print(f"\rreference solutions: {index + 1}/{len(rows)}", end="", file=sys.stderr, flush=True)
    rng = random.Random(seed)
    chosen = rng.sample(range(len(rows)), min(perturbations, len(rows)))
    perturbed = localized = detected = 0
    missed: list[Issue] = []
    for count, index in enumerate(chosen):
        changed = perturb(rows[index]["answer"], rng)
        if changed is None:
            continue
        answer, step = changed
        perturbed += 1
        verdict = verify_chain(chain_request(rows[index]["question"], answer, text=text), translator=translator,
                               limits=limits)
        first = _first_failed(verdict)
        detected += first is not None
        localized += first == step
        if first != step and len(missed) < _MAX_LISTED:
            line = answer.split("\n")[[i for i, t in enumerate(answer.split("\n")) if t.strip()][step - 1]]
            missed.append(Issue(row=index, step=step, status=_own_status(verdict, step),
                                message=f"perturbed step {step}: {line[:160]}; first failed: {first}"))
        if progress and count % 200 == 0:
            print(f"\rperturbed solutions: {count + 1}/{len(chosen)}", end="", file=sys.stderr, flush=True)
    if progress:
        print(file=sys.stderr)
    figures = {
        "checkable_verified": share(checkable_ok, checkable),
        "localized": share(localized, perturbed),
        "false_failed": share(with_failure, len(rows)),
    }
    return GsmReport(
        data=display_path(data), solutions=len(rows), steps=steps, checkable_steps=checkable,
        checkable_verified=figures["checkable_verified"], answer_lines=answers,
        answer_verified=share(answers_ok, answers), step_status=dict(sorted(status_counts.items())),
        false_failed=figures["false_failed"], reference_slips=slips, perturbed=perturbed, localized=figures["localized"],
        detected=share(detected, perturbed),
        median_ms_per_step=round(statistics.median(per_step_ms), 3) if per_step_ms else 0.0,
        elapsed_s=round(time.perf_counter() - started, 1), targets=TARGETS,
        passed=figures["checkable_verified"] >= TARGETS["checkable_verified"]
        and figures["localized"] >= TARGETS["localized"] and figures["false_failed"] <= TARGETS["false_failed_max"],
        false_failures=false_failures, unverified_checkable=unverified, missed_slips=missed,
        reference_slip_list=slip_list, split="text" if text else "lines", split_per_line=share(per_line, len(rows)),
    )




def render(report: GsmReport) -> str:
    """The human-readable report."""
    out = [
        f"GSM8K benchmark: {report.data} ({report.solutions} solutions, {report.steps} steps)",
        (f"checkable steps verified: {report.checkable_verified:.2%} of {report.checkable_steps} "
         f"(target ≥ {TARGETS['checkable_verified']:.1%})"),
        f"answer lines verified: {report.answer_verified:.2%} of {report.answer_lines}",
        f"split: {report.split}; solutions split a step per line: {report.split_per_line:.2%}",
        f"step status: {report.step_status}",
        (f"false failed (unperturbed solutions refuted on a relation that holds as written): "
         f"{report.false_failed:.2%} (target ≤ {TARGETS['false_failed_max']:.1%})"),
        f"slips in the reference caught (refuted on a relation false as written): {report.reference_slips}",
        (f"perturbed: {report.perturbed}; first failed step = perturbed step: {report.localized:.2%} "
         f"(target ≥ {TARGETS['localized']:.0%}); any failure: {report.detected:.2%}"),
        f"median ms per step: {report.median_ms_per_step:.2f}; elapsed {report.elapsed_s:.1f} s",
        f"targets met: {report.passed}",
    ]

    def section(title: str, issues: list[Issue]) -> None:
        out.append(f"{title}: {len(issues)} listed")
        out.extend(f"  row {i.row} step {i.step} [{i.status}]: {i.message}" for i in issues)

    section("false failures", report.false_failures)
    section("slips in the reference caught", report.reference_slip_list)
    section("unverified checkable steps", report.unverified_checkable)
    section("missed or misplaced slips", report.missed_slips)
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="a GSM8K JSONL file (question, answer)")
    parser.add_argument("--limit", type=int, default=None, help="first N solutions only")
    parser.add_argument("--perturb", type=int, default=1000, help="solutions to perturb (seeded sample)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=10.0, help="per step check, seconds")
    parser.add_argument("--text", action="store_true", help="split each solution as model text (`verify --text`)")
    parser.add_argument("--json", action="store_true", help="print exactly one JSON object")
    args = parser.parse_args(argv)
    report = run_gsm8k(args.data, limit=args.limit, perturbations=args.perturb, seed=args.seed,
                       limits=CheckLimits(timeout_s=args.timeout), progress=not args.json, text=args.text)
    print(report.model_dump_json(indent=2) if args.json else render(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())

