"""`verify_chain`: translate each step (unless translations are given), check it with the
checker for its artifact language, cascade failures through the DAG, and build the verdict."""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence

from reasonforge.chain import (
    apply_cascade,
    check_translations,
    failure_report,
    overall_of,
    task_hash,
    validate_request,
    verdict_hash,
)
from reasonforge.errors import ReasonForgeError
from reasonforge.registry import CheckerRegistry, checkers
from reasonforge.translate.protocol import Translator
from reasonforge.types import (
    ChainLimits,
    CheckLimits,
    CheckOutcome,
    ProofLevel,
    StepStatus,
    StepTranslation,
    StepVerdict,
    VerificationVerdict,
    VerifyRequest,
)

log = logging.getLogger(__name__)


def verify_chain(
    request: VerifyRequest,
    translations: Sequence[StepTranslation] | None = None,
    translator: Translator | None = None,
    *,
    limits: CheckLimits | None = None,
    chain_limits: ChainLimits | None = None,
    registry: CheckerRegistry | None = None,
) -> VerificationVerdict:
    """Verify every step of `request` and return the chain's verdict (see DESIGN §3.2)."""
    started = time.perf_counter()
    graph = validate_request(request, chain_limits)
    limits = limits or CheckLimits()
    registry = registry or checkers
    if translations is None:
        translations = request.translations
    translator_spec = None
    if translations is None:
        translator = translator or _default_translator(request)
        translator_spec = translator.spec.model_dump(mode="json")
        ancestors = {sid: graph.ancestors(sid) for sid in graph.order}
        translations = translator.translate_chain(request, ancestors)
    check_translations(translations, graph)
    by_step = {t.step_id: t for t in translations}
    own = {
        sid: _check_step(sid, by_step.get(sid), request.proof_level, limits, registry, translator_spec)
        for sid in graph.order
    }
    cascaded = apply_cascade(graph, own)
    ordered = [cascaded[step.step_id] for step in request.reasoning_chain]
    overall = overall_of(cascaded)
    t_hash = task_hash(request)
    task_id = request.task_id or t_hash[:32]
    return VerificationVerdict(
        task_id=task_id,
        overall=overall,
        step_verdicts=ordered,
        total_steps=len(ordered),
        verified_steps=sum(v.verified for v in ordered),
        failure_points=[v for v in ordered if not v.verified],
        failure_report=failure_report(request, graph, cascaded),
        domain=request.domain,
        proof_level=request.proof_level,
        verification_time_ms=round((time.perf_counter() - started) * 1000),
        task_hash=t_hash,
        verdict_hash=verdict_hash(task_id, overall.value, ordered),
    )


def _default_translator(request: VerifyRequest) -> Translator:
    from reasonforge.translate import default_translator

    return default_translator(request.domain)


def _check_step(
    step_id: int,
    translation: StepTranslation | None,
    level: ProofLevel,
    limits: CheckLimits,
    registry: CheckerRegistry,
    translator_spec: dict | None,
) -> StepVerdict:
    if translation is None:
        outcome = CheckOutcome(
            status=StepStatus.UNSUPPORTED,
            message="no translation was supplied for this step; add one to translations",
            details={"error_kind": "untranslatable"},
        )
        return _verdict(step_id, "", outcome, translator_spec)
    artifact = translation.formal_representation
    if not artifact.strip():
        outcome = CheckOutcome(
            status=StepStatus.UNSUPPORTED,
            message=translation.notes or "the translator produced no artifact for this step",
            details={"error_kind": "untranslatable", "language": translation.language.value},
        )
        return _verdict(step_id, artifact, outcome, translator_spec)
    started = time.perf_counter()
    try:
        checker = registry.get(translation.language)
        outcome = checker.check(artifact, level=level, limits=limits)
        spec = checker.spec.model_dump(mode="json")
    except ReasonForgeError as exc:
        outcome, spec = CheckOutcome(status=StepStatus.ERROR, message=exc.message), None
    except Exception as exc:  # a checker bug must cost one step, not the whole verdict
        log.exception("checker for %s crashed on step %s", translation.language.value, step_id)
        outcome = CheckOutcome(status=StepStatus.ERROR, message=f"checker crashed: {type(exc).__name__}: {exc}")
        spec = None
    if outcome.status is StepStatus.INVALIDATED:
        outcome = CheckOutcome(status=StepStatus.ERROR, message="checker returned 'invalidated', which only the cascade may set")
    details = {
        "language": translation.language.value,
        "translation_confidence": translation.translation_confidence,
        "elapsed_ms": round((time.perf_counter() - started) * 1000, 3),
        **outcome.details,
    }
    if spec is not None:
        details["spec"] = spec
    return _verdict(step_id, artifact, outcome.model_copy(update={"details": details}), translator_spec)


def _verdict(step_id: int, artifact: str, outcome: CheckOutcome, translator_spec: dict | None) -> StepVerdict:
    details = dict(outcome.details)
    if translator_spec is not None:
        details["translator"] = translator_spec
    verified = outcome.status is StepStatus.VERIFIED
    return StepVerdict(
        step_id=step_id,
        verified=verified,
        status=outcome.status,
        error_message=None if verified else outcome.message,
        formal_representation=artifact,
        details=details,
    )


__all__ = ["verify_chain"]
