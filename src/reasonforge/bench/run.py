"""`reasonforge bench translate`: how well a translator turns benchmark reasoning into artifacts that check.

For every item the translator (the model through `TranslationEngine`, or the offline rule-based one when no
model is configured) translates the chain, then `verify_chain` checks the translations. Figures per step:
translated (an artifact exists), compiled (the local checker accepts its syntax / compiles it), verified
(the pipeline's verdict), plus, with a model, first-attempt compile rate, repair attempts, tokens and seconds.
Per benchmark: FOLIO label agreement (the translated premises decide True / False / Uncertain through Z3, as
LINC does), ProcessBench first-error F1 (its paper's metric), code tests passing.

Checker results are memoised for the run (`MemoRegistry`): the engine's compile checks and the pipeline's
checks see the same artifacts, and every checker is deterministic, so nothing is checked twice.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from reasonforge.bench.data import FORMAT_DOMAIN, BenchItem, DataFormat
from reasonforge.errors import ArtifactSyntaxError
from reasonforge.registry import Aligner, CheckerRegistry, checkers
from reasonforge.translate.engine import ChainOutcome, TranslationEngine
from reasonforge.translate.protocol import Translator
from reasonforge.types import (
    CONTEXT_STEP_ID,
    ArtifactLanguage,
    CheckLimits,
    Domain,
    ErrorKind,
    ProofLevel,
    StepContext,
    StepStatus,
    VerificationVerdict,
    VerifyRequest,
)

__all__ = ["BenchReport", "DomainFigures", "ItemResult", "MemoRegistry", "render_report", "run_bench"]

OFFLINE_NOTE = "no model configured: offline rule-based translators"
LINC_GPT4_FOLIO = 0.725  # LINC (Olausson et al., 2023), GPT-4 with Prover9 on FOLIO: the seed target to beat
COMPILE_TARGET = 0.70  # the plan: > 70 % of translations compile on the first attempt
_MAX_LISTED = 15


class MemoRegistry(CheckerRegistry):
    """A checker registry that remembers each (language, artifact, level, limits) result for one run."""

    def __init__(self, base: CheckerRegistry | None = None) -> None:
        super().__init__()
        self._base = base or checkers
        self._memo: dict[tuple[Any, ...], Any] = {}

    def get(self, language: ArtifactLanguage) -> Any:
        """The base checker wrapped so repeated checks are answered from memory."""
        return _Memo(self._base.get(language), ArtifactLanguage(language), self._memo)

    def languages(self) -> set[ArtifactLanguage]:
        """Same as the base registry."""
        return self._base.languages()

    def aligner_for(self, language: ArtifactLanguage) -> Aligner | None:
        """The base registry's aligner: memoising checks changes nothing about what ties them to a step."""
        return self._base.aligner_for(language)

    def restates_reading(self, language: ArtifactLanguage) -> bool:
        """Same as the base registry."""
        return self._base.restates_reading(language)


class _Memo:
    def __init__(self, checker: Any, language: ArtifactLanguage, memo: dict[tuple[Any, ...], Any]) -> None:
        self._checker, self._language, self._memo = checker, language, memo
        self.spec = checker.spec
        if hasattr(checker, "check_chain"):
            self.check_chain = self._check_chain

    def check(self, artifact: str, *, level: ProofLevel, limits: CheckLimits,
              context: StepContext | None = None) -> Any:
        # The step's context is part of the key: a checker may tie the same artifact to different step texts.
        shown = context.model_dump_json() if context is not None else None
        key = (self._language, "one", artifact, ProofLevel(level), limits.timeout_s, limits.memory_mb, shown)
        if key not in self._memo:
            self._memo[key] = self._checker.check(artifact, level=level, limits=limits, context=context)
        return self._memo[key]

    def _check_chain(self, steps: Sequence[Any], *, context: str, level: ProofLevel, limits: CheckLimits) -> Any:
        shape = tuple((s.step_id, s.artifact, tuple(s.ancestors), s.content,
                       s.context.model_dump_json() if s.context is not None else None) for s in steps)
        key = (self._language, "chain", shape, context, ProofLevel(level), limits.timeout_s, limits.memory_mb)
        if key not in self._memo:
            self._memo[key] = self._checker.check_chain(steps, context=context, level=level, limits=limits)
        return self._memo[key]


class ItemResult(BaseModel):
    """One item's figures and, where the benchmark has one, its prediction against the gold answer."""

    id: str
    subset: str
    steps: int
    translated: int
    compiled: int
    verified: int
    first_attempt_compiled: int = 0
    attempts: int = 0
    repairs: int = 0
    tokens: int = 0
    seconds: float = 0.0
    gold: Any = None
    predicted: Any = None
    handled: bool = True
    message: str | None = None


class DomainFigures(BaseModel):
    """Counts and rates over all steps of one domain."""

    items: int = 0
    steps: int = 0
    translated: int = 0
    compiled: int = 0
    verified: int = 0
    compile_rate: float = 0.0
    first_attempt_compile_rate: float | None = None
    verify_rate: float = 0.0
    attempts_per_step: float | None = None
    repair_attempts_per_step: float | None = Field(default=None, description="model calls after the first, per step")
    tokens_per_step: float | None = None
    seconds_per_step: float = 0.0


class BenchReport(BaseModel):
    """Everything `bench translate` prints (`--json` prints exactly this object)."""

    model: str
    mode: str
    data: str
    format: DataFormat
    level: str
    items: int
    steps: int
    translated: int
    compiled: int
    verified: int
    compile_rate: float
    first_attempt_compile_rate: float | None = None
    verify_rate: float
    attempts_per_step: float | None = None
    repair_attempts_per_step: float | None = Field(default=None, description="model calls after the first, per step")
    tokens_per_step: float | None = None
    seconds_per_step: float
    elapsed_s: float
    domains: dict[str, DomainFigures]
    scores: dict[str, Any] = Field(default_factory=dict)
    targets: dict[str, float] = Field(default_factory=dict)
    misses: list[dict[str, Any]] = Field(default_factory=list)


def _share(hits: int, total: int) -> float:
    return round(hits / total, 4) if total else 0.0


def _figures(results: Sequence[ItemResult], with_model: bool) -> DomainFigures:
    steps = sum(r.steps for r in results)
    figures = DomainFigures(items=len(results), steps=steps, translated=sum(r.translated for r in results),
                            compiled=sum(r.compiled for r in results), verified=sum(r.verified for r in results),
                            seconds_per_step=round(sum(r.seconds for r in results) / steps, 3) if steps else 0.0)
    figures.compile_rate = _share(figures.compiled, steps)
    figures.verify_rate = _share(figures.verified, steps)
    if with_model:
        figures.first_attempt_compile_rate = _share(sum(r.first_attempt_compiled for r in results), steps)
        figures.attempts_per_step = round(sum(r.attempts for r in results) / steps, 3) if steps else 0.0
        figures.repair_attempts_per_step = round(sum(r.repairs for r in results) / steps, 3) if steps else 0.0
        figures.tokens_per_step = round(sum(r.tokens for r in results) / steps, 1) if steps else 0.0
    return figures


async def run_bench(items: Sequence[BenchItem], fmt: DataFormat, engine: TranslationEngine, *, data: str,
                    model: str, limits: CheckLimits | None = None, concurrency: int = 1,
                    progress: Callable[[int, int], None] | None = None,
                    agreeing: Callable[[VerifyRequest], Translator] | None = None) -> BenchReport:
    """Translate and verify every item; score it against the benchmark's gold answers. With `agreeing` (an
    ensemble, or k samples of `engine`, per request) the verdict is that translator's, its translations each
    checked and agreed on per step; `engine`'s own translation (the compile figures, FOLIO's label) is the
    first model sample's, read from the same recorded or cached replies."""
    started = time.perf_counter()
    limits = limits or CheckLimits()
    registry = engine.registry or checkers  # pass the engine a MemoRegistry to share checks with verify_chain
    gate = asyncio.Semaphore(max(1, concurrency))
    done = 0

    async def one(item: BenchItem) -> ItemResult:
        nonlocal done
        async with gate:
            result = await _run_item(item, fmt, engine, registry, limits, agreeing)
        done += 1
        if progress is not None:
            progress(done, len(items))
        return result

    results = await asyncio.gather(*(one(item) for item in items))
    with_model = not engine.offline and any(engine.uses_model(i.request.domain) for i in items)
    domains: dict[str, list[ItemResult]] = {}
    for item, result in zip(items, results, strict=True):
        domains.setdefault(item.request.domain.value, []).append(result)
    overall = _figures(results, with_model)
    level = items[0].request.proof_level.value if items else ""
    return BenchReport(
        model=model, mode="model" if with_model else "offline", data=data, format=fmt, level=level,
        items=len(results), steps=overall.steps, translated=overall.translated, compiled=overall.compiled,
        verified=overall.verified, compile_rate=overall.compile_rate,
        first_attempt_compile_rate=overall.first_attempt_compile_rate, verify_rate=overall.verify_rate,
        attempts_per_step=overall.attempts_per_step,
        repair_attempts_per_step=overall.repair_attempts_per_step, tokens_per_step=overall.tokens_per_step,
        seconds_per_step=overall.seconds_per_step, elapsed_s=round(time.perf_counter() - started, 1),
        domains={name: _figures(rs, with_model) for name, rs in domains.items()},
        scores=_scores(fmt, results), targets=_targets(fmt, with_model),
        misses=[_miss(r) for r in results if _missed(fmt, r)][:_MAX_LISTED])


async def _run_item(item: BenchItem, fmt: DataFormat, engine: TranslationEngine, registry: CheckerRegistry,
                    limits: CheckLimits, agreeing: Callable[[VerifyRequest], Translator] | None) -> ItemResult:
    from reasonforge.pipeline.run import verify_chain

    started = time.perf_counter()
    outcome = await engine.atranslate(item.request)
    if agreeing is None:
        verdict = await asyncio.to_thread(verify_chain, item.request, outcome.translations, limits=limits,
                                          registry=registry)
    else:
        verdict = await asyncio.to_thread(verify_chain, item.request, translator=agreeing(item.request),
                                          limits=limits, registry=registry)
    result = _tally(item, outcome, verdict)
    if fmt == "folio":
        result.handled, result.predicted, result.message = await asyncio.to_thread(
            _folio_label, item, outcome, engine, limits)
    elif fmt == "processbench":
        result.predicted = next((i for i, sv in enumerate(verdict.step_verdicts) if sv.status is StepStatus.FAILED), -1)
    elif fmt in ("humaneval", "mbpp"):
        result.predicted = verdict.step_verdicts[0].status is StepStatus.VERIFIED
        result.message = verdict.step_verdicts[0].error_message
    result.seconds = round(time.perf_counter() - started, 3)
    return result


def _tally(item: BenchItem, outcome: ChainOutcome, verdict: VerificationVerdict) -> ItemResult:
    steps = [t for t in outcome.translations if t.step_id != CONTEXT_STEP_ID]
    translated = sum(1 for t in steps if t.formal_representation.strip())
    if outcome.mode == "model":
        compiled = sum(1 for s in outcome.steps if s.compiled)
        first = sum(1 for s in outcome.steps if s.first_attempt_compiled)
        attempts = sum(s.attempts for s in outcome.steps)
        repairs = sum(max(s.attempts - 1, 0) for s in outcome.steps)
        tokens = sum(s.usage.total for s in outcome.steps) + (outcome.context.usage.total if outcome.context else 0)
    else:
        # A rule-based artifact "compiles" when its checker got past the syntax: any verdict but a syntax error.
        compiled = sum(1 for t, sv in zip(steps, verdict.step_verdicts, strict=False)
                       if t.formal_representation.strip() and sv.error_kind is not ErrorKind.SYNTAX)
        first, attempts, repairs, tokens = compiled, 0, 0, 0
    verified = sum(1 for sv in verdict.step_verdicts if sv.status is StepStatus.VERIFIED)
    first_problem = next((sv.error_message for sv in verdict.step_verdicts if not sv.verified), None)
    return ItemResult(id=item.id, subset=item.subset, steps=len(steps), translated=translated, compiled=compiled,
                      verified=verified, first_attempt_compiled=first, attempts=attempts, repairs=repairs,
                      tokens=tokens,
                      gold=item.gold, message=(first_problem or "")[:300] or None)


def _folio_label(item: BenchItem, outcome: ChainOutcome, engine: TranslationEngine,
                 limits: CheckLimits) -> tuple[bool, str | None, str | None]:
    """(handled, predicted label, why not handled): the translated premises decide the conclusion with Z3."""
    from reasonforge.lang.logic import parse_fol_artifact
    from reasonforge.verify.logic.smt import classify

    step = item.request.reasoning_chain[0]
    if outcome.mode == "offline":
        from reasonforge.lang.english import EnglishReader

        reader = EnglishReader()
        parser = reader.parser([item.request.original_query, step.content])
        givens = reader.read_givens(item.request.original_query, parser)
        reading = reader.read_step(step.content, None, parser)
        if givens.skipped:
            return False, None, f"{len(givens.skipped)} premise sentence(s) no rule covers, e.g. \"{givens.skipped[0]}\""
        if reading.error is not None or reading.conclusion is None:
            return False, None, reading.error or "the conclusion was not translated"
        premises, conclusion = [*givens.formulas, *reading.premises], reading.conclusion
    else:
        translation = next(t for t in outcome.translations if t.step_id == step.step_id)
        if translation.language is not ArtifactLanguage.FOL or not translation.compilation_check:
            return False, None, "the model's translation is not a compiling fol artifact"
        try:
            parsed = parse_fol_artifact(translation.formal_representation)
        except ArtifactSyntaxError as exc:
            return False, None, exc.message
        premises, conclusion = parsed.premises, parsed.conclusion
    return True, classify(premises, conclusion, limits=limits).label, None


def _scores(fmt: DataFormat, results: Sequence[ItemResult]) -> dict[str, Any]:
    if fmt == "folio":
        handled = [r for r in results if r.handled]
        agree = sum(1 for r in handled if r.predicted == r.gold)
        by_label: dict[str, dict[str, int]] = {}
        for r in results:
            slot = by_label.setdefault(str(r.gold), {"items": 0, "handled": 0, "agree": 0})
            slot["items"] += 1
            slot["handled"] += r.handled
            slot["agree"] += r.handled and r.predicted == r.gold
        return {"handled": len(handled), "handled_rate": _share(len(handled), len(results)),
                "label_agreement": agree, "label_agreement_rate": _share(agree, len(handled)),
                "label_accuracy": _share(agree, len(results)), "by_gold_label": by_label}
    if fmt == "processbench":
        subsets: dict[str, dict[str, Any]] = {}
        for r in results:
            s = subsets.setdefault(r.subset, {"rows": 0, "erroneous": 0, "err_ok": 0, "correct": 0, "cor_ok": 0})
            s["rows"] += 1
            if r.gold == -1:
                s["correct"] += 1
                s["cor_ok"] += r.predicted == -1
            else:
                s["erroneous"] += 1
                s["err_ok"] += r.predicted == r.gold
        for s in subsets.values():
            s["acc_erroneous"] = _share(s.pop("err_ok"), s["erroneous"])
            s["acc_correct"] = _share(s.pop("cor_ok"), s["correct"])
            total = s["acc_erroneous"] + s["acc_correct"]
            s["f1"] = round(2 * s["acc_erroneous"] * s["acc_correct"] / total, 4) if total else 0.0
        average = round(statistics.fmean(s["f1"] for s in subsets.values()), 4) if subsets else 0.0
        return {"subsets": subsets, "average_f1": average}
    if fmt in ("humaneval", "mbpp"):
        passed = sum(1 for r in results if r.predicted)
        return {"tests_pass": passed, "tests_pass_rate": _share(passed, len(results))}
    return {}


def _targets(fmt: DataFormat, with_model: bool) -> dict[str, float]:
    targets = {"first_attempt_compile_rate": COMPILE_TARGET} if with_model else {}
    if fmt == "folio":
        targets["label_accuracy_above"] = LINC_GPT4_FOLIO
    return targets


def _missed(fmt: DataFormat, r: ItemResult) -> bool:
    if fmt == "folio":
        return not r.handled or r.predicted != r.gold
    if fmt == "processbench":
        return r.predicted != r.gold
    return r.verified < r.steps


def _miss(r: ItemResult) -> dict[str, Any]:
    out: dict[str, Any] = {"id": r.id}
    if r.gold is not None:
        out.update(gold=r.gold, predicted=r.predicted)
    if r.message:
        out["message"] = r.message[:200]
    return out


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"


def render_report(report: BenchReport) -> str:
    """The human-readable report."""
    out = [f"translation benchmark: {report.data} ({report.format}, {report.level} level)",
           f"translator: {report.model}",
           (f"items {report.items}, steps {report.steps}: translated {report.translated}, compiled {report.compiled} "
            f"({_pct(report.compile_rate)}), verified {report.verified} ({_pct(report.verify_rate)})")]
    if report.mode == "model":
        out.append(f"first-attempt compile rate {_pct(report.first_attempt_compile_rate)} (target "
                   f"{COMPILE_TARGET:.0%}); repair attempts per step {report.repair_attempts_per_step} "
                   f"(model calls per step {report.attempts_per_step}); "
                   f"tokens per step {report.tokens_per_step}")
    out.append(f"seconds per step {report.seconds_per_step:.3f}; total {report.elapsed_s} s")
    scores = report.scores
    if report.format == "folio":
        out.append(f"FOLIO: handled {scores['handled']}/{report.items} NL items ({_pct(scores['handled_rate'])}); "
                   f"label agreement on handled {scores['label_agreement']}/{scores['handled']} "
                   f"({_pct(scores['label_agreement_rate'])}); end-to-end label accuracy {_pct(scores['label_accuracy'])} "
                   f"(LINC GPT-4: {LINC_GPT4_FOLIO:.1%})")
        for label, slot in sorted(scores["by_gold_label"].items()):
            out.append(f"  gold {label}: {slot['items']} items, handled {slot['handled']}, agree {slot['agree']}")
    elif report.format == "processbench":
        for name, s in scores["subsets"].items():
            out.append(f"  {name}: rows {s['rows']}, erroneous acc {_pct(s['acc_erroneous'])}, correct acc "
                       f"{_pct(s['acc_correct'])}, F1 {s['f1']:.3f}")
        out.append(f"ProcessBench average first-error F1: {scores['average_f1']:.3f}")
    elif report.format in ("humaneval", "mbpp"):
        out.append(f"dataset tests pass: {scores['tests_pass']}/{report.items} ({_pct(scores['tests_pass_rate'])})")
    if report.misses:
        out.append(f"first {len(report.misses)} misses:")
        out.extend(f"  {m}" for m in report.misses)
    return "\n".join(out)


def display_path(path: Path) -> str:
    """A path as the user gave it, relative to the working directory when inside it (no machine paths in reports)."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def domain_of(fmt: DataFormat, items: Sequence[BenchItem]) -> Domain | None:
    """The benchmark's domain (None for mixed chain files)."""
    if fmt in FORMAT_DOMAIN:
        return FORMAT_DOMAIN[fmt]
    found = {i.request.domain for i in items}
    return found.pop() if len(found) == 1 else None
