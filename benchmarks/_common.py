"""Helpers shared by the logic benchmarks: reading data files, checking one artifact, summarising times."""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from reasonforge.registry import CheckerRegistry, Spec, checkers
from reasonforge.translate.protocol import QuestionFormaliser, Translator
from reasonforge.translate.question import QuestionPrograms
from reasonforge.types import (
    CheckLimits,
    CheckOutcome,
    ProofLevel,
    StepStatus,
    StepTranslation,
    TranslatorMode,
    VerifyRequest,
)

REPO = Path(__file__).resolve().parents[1]


def display_path(path: Path) -> str:
    """`path` relative to the repository when inside it, so reports do not depend on the checkout."""
    try:
        return str(path.resolve().relative_to(REPO))
    except ValueError:
        return str(path)


def read_rows(path: Path) -> list[dict[str, Any]]:
    """Rows of a JSONL file, a JSON list, or a raw PrOntoQA dict `{"exampleN": {"test_example": ...}}`."""
    text = path.read_text(encoding="utf-8")
    stripped = text.lstrip()
    if stripped.startswith("["):
        return list(json.loads(text))
    if stripped.startswith("{"):
        try:
            whole = json.loads(text)
        except json.JSONDecodeError:
            whole = None  # JSONL: one object per line
        if isinstance(whole, dict):
            return _flatten_raw_prontoqa(whole) if _is_raw_prontoqa(whole) else [whole]
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _is_raw_prontoqa(data: dict[str, Any]) -> bool:
    return all(isinstance(v, dict) and "test_example" in v for v in list(data.values())[:3])


def _flatten_raw_prontoqa(data: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for entry, examples in data.items():
        for role, row in examples.items():
            rows.append({"id": f"{entry}.{role}", **row})
    return rows


def check(translation: StepTranslation, level: ProofLevel, registry: CheckerRegistry | None = None) -> CheckOutcome:
    """One artifact under the registered checker (an empty artifact is `unsupported`)."""
    if not translation.formal_representation:
        return CheckOutcome(status=StepStatus.UNSUPPORTED, message=translation.notes)
    checker = (registry or checkers).get(translation.language)
    return checker.check(translation.formal_representation, level=level, limits=CheckLimits())


def interleave(groups: Iterable[list[Any]]) -> list[Any]:
    """Round-robin merge, so a `--limit` keeps every data file represented."""
    lists = [list(g) for g in groups]
    out: list[Any] = []
    for i in range(max((len(g) for g in lists), default=0)):
        out.extend(g[i] for g in lists if i < len(g))
    return out


def ms_summary(values: list[float]) -> dict[str, float]:
    """Median, mean and max of a list of milliseconds (zeros when empty)."""
    if not values:
        return {"median": 0.0, "mean": 0.0, "max": 0.0}
    return {
        "median": round(statistics.median(values), 3),
        "mean": round(statistics.fmean(values), 3),
        "max": round(max(values), 3),
    }


def translator_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of a benchmark that verifies chains: --timeout, --translator, --model, --json."""
    parser.add_argument("--timeout", type=float, default=10.0, help="per step check, seconds")
    parser.add_argument("--translator", choices=[m.value for m in TranslatorMode], default="rules",
                        help="who translates the steps (model, ensemble: --model, the configured endpoint, or the "
                             "local model)")
    parser.add_argument("--model", default=None, help="an OpenAI-compatible URL or a model name (local, anthropic:…)")
    parser.add_argument("--question-samples", type=int, default=0, metavar="K", help=(
        "with --translator rules: the rules translate the steps and the model (--model, else the local one) "
        "formalises each word problem K times (corroboration; a majority must agree); 0: no formalisation"))
    parser.add_argument("--json", action="store_true", help="print exactly one JSON object")


class RulesWithQuestionModel:
    """The rules for every step, a model for the question's formalisations only: what corroboration adds to
    the offline translator, at one model call per sample and chain instead of several per step."""

    def __init__(self, rules: Translator, engine: QuestionFormaliser, samples: int) -> None:
        self.rules, self.engine = rules, engine
        self.spec = Spec(name="rules+question-model", version="1", args={
            "rules": rules.spec.model_dump(mode="json"), "question_samples": samples})

    def translate_chain(self, request: VerifyRequest, ancestors: Mapping[int, Sequence[int]]) -> list[StepTranslation]:
        """The rules' translations."""
        return self.rules.translate_chain(request, ancestors)

    def formalise_question(self, request: VerifyRequest) -> QuestionPrograms | None:
        """The model's formalisations of the question."""
        return self.engine.formalise_question(request)


class FixedFormaliser:
    """Formalisations written in advance (an adversarial case's): the worst a fooled model could write."""

    def __init__(self, programs: Sequence[str]) -> None:
        self.programs = list(programs)
        self.spec = Spec(name="fixed-question-programs", version="1")

    def formalise_question(self, request: VerifyRequest) -> QuestionPrograms:
        """The programs, of which a majority must agree."""
        return QuestionPrograms(programs=self.programs, required=len(self.programs) // 2 + 1, formaliser=self.spec)


def benchmark_translator(request: VerifyRequest, mode: TranslatorMode | str, model: str | None,
                         question_samples: int = 0) -> Translator:
    """The translator a benchmark run asked for (`translator_arguments`)."""
    from reasonforge.errors import InputError
    from reasonforge.translate.engine import TranslationEngine
    from reasonforge.translate.select import model_backend, translator_for

    chosen = translator_for(request, mode, model=model)
    if question_samples <= 0 or TranslatorMode(mode) is not TranslatorMode.RULES:
        return chosen
    try:
        backend = model_backend(model)  # recorded or replayed like every other model path
    except InputError:
        raise SystemExit("error: --question-samples needs a model: --model, REASONFORGE_MODEL_BASE_URL, or "
                         "`make model`") from None
    engine = TranslationEngine(backend, strict=True, question_samples=question_samples)
    return RulesWithQuestionModel(chosen, engine, question_samples)


def print_model_report(measure: Callable[[str], BaseModel], backend: Any, render: Callable[[Any], str],
                       as_json: bool) -> int:
    """Measure with a strict model `backend` (`measure` gets the model's name) and print the report: 0; or, when the
    endpoint (or a replay) could not answer, exit 2 with why and nothing half-measured shown."""
    from reasonforge.translate.llm import ModelError

    try:
        report = measure(str(backend.spec.args.get("model") or backend.spec.name))
    except ModelError as exc:
        print(f"error: the model could not answer: {exc.message}", file=sys.stderr)
        return 2
    print(report.model_dump_json(indent=2) if as_json else render(report))
    return 0


def share(hits: int, total: int) -> float:
    """hits / total as a fraction (0 when there is nothing to count)."""
    return round(hits / total, 4) if total else 0.0


def gold_completions(path: Path, n: int) -> list[tuple[str, str, str, bool]]:
    """The first `n` GSM8K rows as (question, completion, reference, wrong): the gold solution without its
    calculator annotations (the way a model writes it), every fifth made wrong (its final answer one too high)."""
    out = []
    for index, line in enumerate(path.read_text(encoding="utf-8").splitlines()[:n]):
        row = json.loads(line)
        completion = re.sub(r"<<[^>]*>>", "", row["answer"])
        final = row["answer"].rsplit("####", 1)[1].strip()
        wrong = index % 5 == 4
        if wrong:
            completion = completion.rsplit("####", 1)[0] + f"#### {float(final.replace(',', '')) + 1:g}"
        out.append((row["question"], completion, final, wrong))
    return out
