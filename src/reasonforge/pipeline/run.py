"""`verify_chain`: translate each step (unless translations are given), check it with the
checker for its artifact language, cascade failures through the DAG, and build the verdict."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping, Sequence

from reasonforge.chain import (
    StepGraph,
    apply_cascade,
    build_verdict,
    check_translations,
    step_contexts,
    validate_request,
)
from reasonforge.errors import ReasonForgeError
from reasonforge.pipeline.agreement import agree
from reasonforge.pipeline.corroboration import corroborate, question_model
from reasonforge.pipeline.gate import gate
from reasonforge.pipeline.key_lemmas import StepLemmas, prove_key_lemmas, with_proofs
from reasonforge.pipeline.provers import check_prover
from reasonforge.registry import ChainChecker, Checker, CheckerRegistry, checkers
from reasonforge.translate.ensemble import Ensemble
from reasonforge.translate.protocol import (
    DECIDED_NOTE,
    RESTATED_NOTE,
    Completing,
    ExampleWriter,
    Gateable,
    QuestionFormaliser,
    Translator,
)
from reasonforge.types import (
    ArtifactLanguage,
    ChainLimits,
    ChainStep,
    CheckLimits,
    CheckOutcome,
    Domain,
    ErrorKind,
    ProofLevel,
    QuestionModel,
    ReferenceCheck,
    Spec,
    StepContext,
    StepStatus,
    StepTranslation,
    StepVerdict,
    TranslatorMode,
    VerificationVerdict,
    VerifyRequest,
)
from reasonforge.verify.math import REFERENCE_TIMEOUT_S, ArithmeticChecker, compare_reference, is_word_problem

log = logging.getLogger(__name__)
# a problem model is a few equations: Z3 decides one in milliseconds, or is lost in nonlinear arithmetic
MAX_PROBLEM_MODEL_S = 2.0


def verify_chain(
    request: VerifyRequest,
    translations: Sequence[StepTranslation] | None = None,
    translator: Translator | None = None,
    *,
    limits: CheckLimits | None = None,
    chain_limits: ChainLimits | None = None,
    registry: CheckerRegistry | None = None,
    progress: Callable[[str], None] | None = None,
    on_step: Callable[[int, int, int], None] | None = None,
) -> VerificationVerdict:
    """Verify every step of `request` and return the chain's verdict (see DESIGN §3.2); `progress` is told what
    is being done as it starts (translating, checking step k of n), `on_step` the same as numbers: (step id, its
    position in the checking order, the number of steps) as each step's check starts (for steps a chain checker
    checks together, its first step's as that check starts), again for each translation of an ensemble. With
    `translations` supplied (here or in the request), a `translator` given beside them translates nothing: it only
    writes code examples from the texts alone."""
    started = time.perf_counter()
    say = progress or (lambda _message: None)
    step_started = on_step or (lambda _sid, _position, _total: None)
    graph = validate_request(request, chain_limits)
    limits = limits or CheckLimits()
    registry = registry or checkers
    if translations is None:
        translations = request.translations
    elif request.translations is None:
        check_translations(translations, graph, request.domain)  # supplied beside the request: its languages too
    translator_spec = None
    writer = TranslatorMode.RULES  # supplied translations are their author's to fix: a syntax error stays one
    formalised: QuestionModel | None = None
    written: dict[int, str] = {}
    if translations is None:
        translator = translator or _default_translator(request)
        translator_spec = translator.spec
        if isinstance(translator, Gateable):
            # a model's artifact that checks but is not the step (another conclusion, a smuggled premise) goes
            # back to the model with the gate's reason while it can still be repaired
            translator = translator.with_gate(lambda c, t, o: _gated(c, t, o, limits, registry))
        ancestors = {sid: graph.ancestors(sid) for sid in graph.order}
        say(f"translating {len(graph.order)} step(s)")
        formalised = _formalised(request, translator, limits)
        written = _written(request, translator)
        if isinstance(translator, Ensemble):
            own = _check_ensemble(request, graph, translator, ancestors, limits, registry, written, say,
                                  step_started)
        else:
            translations = translator.translate_chain(request, ancestors)
            writer = _writer(translator)
    elif translator is not None:
        # The artifacts are supplied and checked as they are; a translator passed beside them still writes code
        # examples from the texts alone, which the artifact's code (aligned with the step's: `verify.code.align`)
        # must satisfy. A word problem's formalisations are not asked for: a supplied artifact's relations are
        # corroborated by nothing but its own check.
        written = _written(request, translator)
    if translations is not None:
        check_translations(translations, graph)
        check_prover(request, translations)
        own = _written_by(writer, _check_all(request, graph, translations, limits, registry, translator_spec,
                                             written, say, step_started))
    if formalised is not None:
        own = corroborate(step_contexts(request, graph), own, formalised)
    cascaded = apply_cascade(graph, own)
    reference = _reference(request, graph, limits) if request.reference_answer.strip() else None
    return build_verdict([cascaded[step.step_id] for step in request.reasoning_chain], domain=request.domain,
                         proof_level=request.proof_level, request=request, graph=graph, reference=reference,
                         verification_time_ms=round((time.perf_counter() - started) * 1000))


def _reference(request: VerifyRequest, graph: StepGraph, limits: CheckLimits) -> ReferenceCheck:
    """The chain's final value against the request's reference answer (mathematics; other domains say why not)."""
    if request.domain is not Domain.MATHEMATICS:
        return ReferenceCheck(reference=request.reference_answer, matches=None, message=(
            f"reference answers are compared with a mathematics chain's final value; this chain is "
            f"{request.domain.value}"))
    last = step_contexts(request, graph)[request.reasoning_chain[-1].step_id]
    return compare_reference(last, request.reference_answer, timeout_s=max(limits.timeout_s, REFERENCE_TIMEOUT_S))


def _check_ensemble(request: VerifyRequest, graph: StepGraph, ensemble: Ensemble,
                    ancestors: Mapping[int, Sequence[int]], limits: CheckLimits, registry: CheckerRegistry,
                    written: dict[int, str], say: Callable[[str], None],
                    step_started: Callable[[int, int, int], None]) -> dict[int, StepVerdict]:
    """Each member's translations checked on their own, then agreed on per step (`pipeline.agreement`).

    Where one proof is enough (`min_agree` 1), the rules check first and a member that can (`protocol.Completing`,
    the model) is asked only for what could change a verdict. Not a step the rules' checked reading proved or
    refuted: the model could only add a second proof, and its refutation of a proved step, or proof of a refuted
    one, would be its own misreading (it never refutes alone). Not any step in a language whose aligner accepts only
    restatements of its reader's own translation (`CheckerRegistry.restates_reading`: maths' relations): there the
    model's artifact aligns only when it says what the rules' translation says, which is checked already; in
    maths the model's part is the question's formalisations (`pipeline.corroboration`)."""
    runs = []
    decided: dict[int, StepTranslation] = {}
    why = DECIDED_NOTE
    for index, member in enumerate(ensemble.members, start=1):
        if decided and isinstance(member, Completing):
            translations = member.complete_chain(request, ancestors, decided, why)
        else:
            translations = member.translate_chain(request, ancestors)
        check_translations(translations, graph)
        check_prover(request, translations)
        run = _written_by(_writer(member), _check_all(request, graph, translations, limits, registry, member.spec,
                                                      written, _numbered(say, index, len(ensemble.members)),
                                                      step_started))
        runs.append(run)
        if ensemble.min_agree == 1 and _writer(member) is TranslatorMode.RULES:
            by_step = {t.step_id: t for t in translations if t.step_id in graph.dependencies}
            if by_step and all(registry.restates_reading(t.language) for t in by_step.values()):
                decided, why = by_step, RESTATED_NOTE
            else:
                decided.update({sid: by_step[sid] for sid, verdict in run.items()
                                if verdict.status in (StepStatus.VERIFIED, StepStatus.FAILED) and sid in by_step})
    return agree(runs, [m.spec for m in ensemble.members], ensemble.min_agree, ensemble.writers)


def _writer(translator: Translator) -> TranslatorMode:
    """Who wrote `translator`'s artifacts: a model (a translator whose `writer` says so) or the rules."""
    return getattr(translator, "writer", TranslatorMode.RULES)


def _written_by(writer: TranslatorMode, verdicts: dict[int, StepVerdict]) -> dict[int, StepVerdict]:
    """`verdicts`, where a model wrote the artifacts, with each artifact that does not parse making its step
    unread (`unsupported`, the artifact kept): a model's malformed artifact says nothing about the step, and
    an `error` would read as the checker's fault."""
    if writer is not TranslatorMode.MODEL:
        return verdicts
    out = dict(verdicts)
    for sid, verdict in verdicts.items():
        if verdict.status is StepStatus.ERROR and verdict.error_kind == ErrorKind.SYNTAX:
            out[sid] = verdict.model_copy(update={
                "status": StepStatus.UNSUPPORTED, "verified": False,
                "error_message": f"the model's artifact does not parse ({verdict.error_message}): the step is unread"})
    return out


def _numbered(say: Callable[[str], None], index: int, of: int) -> Callable[[str], None]:
    """`say`, each message naming which of the ensemble's translations it is about."""
    return lambda message: say(f"{message}, translation {index} of {of}")


def _formalised(request: VerifyRequest, translator: Translator, limits: CheckLimits) -> QuestionModel | None:
    """The question's independent formalisations, for a word problem and a translator that writes them."""
    if request.domain is not Domain.MATHEMATICS or not isinstance(translator, QuestionFormaliser):
        return None
    if not is_word_problem(request.original_query):
        return None
    programs = translator.formalise_question(request)
    if programs is None:
        return None
    return question_model(request.original_query, programs, timeout_s=min(limits.timeout_s, MAX_PROBLEM_MODEL_S))


def _written(request: VerifyRequest, translator: Translator) -> dict[int, str]:
    """Code examples written from the texts alone, for a translator that writes them."""
    if request.domain is not Domain.CODE or not isinstance(translator, ExampleWriter):
        return {}
    return translator.write_examples(request) or {}


def _default_translator(request: VerifyRequest) -> Translator:
    from reasonforge.translate.select import translator_for

    return translator_for(request)


def _check_all(
    request: VerifyRequest,
    graph: StepGraph,
    translations: Sequence[StepTranslation],
    limits: CheckLimits,
    registry: CheckerRegistry,
    translator_spec: Spec | None,
    written: dict[int, str] | None = None,
    say: Callable[[str], None] = lambda _message: None,
    step_started: Callable[[int, int, int], None] = lambda _sid, _position, _total: None,
) -> dict[int, StepVerdict]:
    """Per-step checkers run step by step; chain checkers (Coq, Lean 4) once per language per chain (`written`:
    code examples a translator wrote from the texts, by step id). At the standard level, the `sympy` steps of a
    mathematics chain are gated only once their key lemmas are proved (`pipeline.key_lemmas`)."""
    by_step = {t.step_id: t for t in translations if t.step_id in graph.dependencies}
    contexts = {t.language: t.formal_representation for t in translations if t.step_id not in graph.dependencies}
    step_context = step_contexts(request, graph, written)
    own: dict[int, StepVerdict] = {}
    key_lemmas_due = request.domain is Domain.MATHEMATICS and request.proof_level is ProofLevel.STANDARD
    deferred: dict[int, tuple[CheckOutcome, Spec | None, float]] = {}
    arithmetic: ArithmeticChecker | None = None
    # Each step's checker is built once and handed on; a chain checker once per language, for all its steps.
    chain_checkers: dict[ArtifactLanguage, ChainChecker] = {}
    groups: dict[ArtifactLanguage, list[int]] = {}
    total = len(graph.order)
    for position, sid in enumerate(graph.order, start=1):
        say(f"checking step {sid} ({position} of {total})")
        translation = by_step.get(sid)
        checker: Checker | ChainChecker | ReasonForgeError | None = None
        if translation is not None and translation.formal_representation.strip():
            language = translation.language
            if language in chain_checkers:
                groups[language].append(sid)
                continue
            checker = _lookup(registry, language)
            if hasattr(checker, "check_chain"):
                chain_checkers[language] = checker  # type: ignore[assignment]
                groups[language] = [sid]
                continue
            if key_lemmas_due and isinstance(checker, ArithmeticChecker):
                step_started(sid, position, total)
                arithmetic = checker
                deferred[sid] = _run_checker(step_context[sid], translation, checker, limits)
                continue
        step_started(sid, position, total)
        own[sid] = _check_step(step_context[sid], translation, checker, limits, translator_spec, registry)
    if arithmetic is not None:
        say(f"proving the key lemmas of {len(deferred)} SymPy-checked step(s) in Coq")
        own.update(_with_key_lemmas(arithmetic, deferred, step_context, by_step, limits, registry, translator_spec))
    texts = {step.step_id: step.content for step in request.reasoning_chain}
    for language, sids in groups.items():
        steps = [
            ChainStep(
                step_id=sid,
                content=texts[sid],
                artifact=by_step[sid].formal_representation,
                dependencies=list(graph.dependencies[sid]),
                ancestors=list(graph.ancestors(sid)),
                context=step_context[sid],
            )
            for sid in sids
        ]
        # a chain checker checks its steps together, now: its first step is where the checking is
        step_started(sids[0], graph.order.index(sids[0]) + 1, total)
        outcomes = _run_chain_checker(chain_checkers[language], language, steps, contexts.get(language, ""),
                                      request.proof_level, limits)
        for sid in sids:
            outcome, spec, elapsed_ms = outcomes[sid]
            outcome = _gated(step_context[sid], by_step[sid], outcome, limits, registry)
            own[sid] = _record(sid, by_step[sid], (outcome, spec, elapsed_ms), translator_spec)
    return own


def _with_key_lemmas(checker: ArithmeticChecker, deferred: Mapping[int, tuple[CheckOutcome, Spec | None, float]],
                     contexts: Mapping[int, StepContext], translations: Mapping[int, StepTranslation],
                     limits: CheckLimits, registry: CheckerRegistry, translator_spec: Spec | None) -> dict[int, StepVerdict]:
    """The deferred `sympy` steps' verdicts: SymPy's outcomes, after their key lemmas, gated and recorded (a step
    Coq proved a lemma of names the prover in its checker spec)."""
    proved: dict[int, StepLemmas] = {}
    try:
        proved = prove_key_lemmas({sid: (contexts[sid], translations[sid].formal_representation, outcome)
                                   for sid, (outcome, _, _) in deferred.items()}, checker, limits,
                                  gate=lambda sid, outcome: _gated(contexts[sid], translations[sid], outcome, limits,
                                                                   registry))
    except Exception:  # the key lemmas add to SymPy's verdicts; they must never cost them
        log.exception("the key lemmas failed")
    out: dict[int, StepVerdict] = {}
    for sid, (outcome, spec, elapsed_ms) in deferred.items():
        lemmas = proved.get(sid)
        if lemmas is not None:
            outcome = lemmas.outcome
            if spec is not None and lemmas.prover is not None and lemmas.proved:
                spec = spec.model_copy(update={"args": {**spec.args, "key_lemmas": lemmas.prover.model_dump(mode="json")}})
        gated = with_proofs(_gated(contexts[sid], translations[sid], outcome, limits, registry), lemmas)
        out[sid] = _record(sid, translations[sid], (gated, spec, elapsed_ms), translator_spec)
    return out


def _gated(context: StepContext, translation: StepTranslation, outcome: CheckOutcome, limits: CheckLimits,
           registry: CheckerRegistry) -> CheckOutcome:
    """The soundness gate, failing closed: an aligner that crashes costs the step, never verifies it."""
    try:
        return gate(context, translation, outcome, limits, registry)
    except ReasonForgeError as exc:
        return CheckOutcome(status=StepStatus.ERROR, message=exc.message, details=outcome.details)
    except Exception as exc:
        log.exception("soundness gate crashed on step %s", context.step_id)
        return CheckOutcome(status=StepStatus.ERROR, message=f"soundness gate crashed: {type(exc).__name__}: {exc}")


def _lookup(registry: CheckerRegistry, language: ArtifactLanguage) -> Checker | ChainChecker | ReasonForgeError:
    """The checker for `language`, or why there is none (reported on the step, not raised)."""
    try:
        return registry.get(language)
    except ReasonForgeError as exc:
        return exc


def _run_chain_checker(
    checker: ChainChecker,
    language: ArtifactLanguage,
    steps: list[ChainStep],
    context: str,
    level: ProofLevel,
    limits: CheckLimits,
) -> dict[int, tuple[CheckOutcome, Spec | None, float]]:
    started = time.perf_counter()
    try:
        outcomes = checker.check_chain(steps, context=context, level=level, limits=limits)
        spec = checker.spec
    except ReasonForgeError as exc:
        outcomes, spec = {s.step_id: CheckOutcome(status=StepStatus.ERROR, message=exc.message) for s in steps}, None
    except Exception as exc:  # a checker bug must cost these steps, not the whole verdict
        log.exception("chain checker for %s crashed", language.value)
        crash = CheckOutcome(status=StepStatus.ERROR, message=f"checker crashed: {type(exc).__name__}: {exc}")
        outcomes, spec = {s.step_id: crash for s in steps}, None
    elapsed_ms = (time.perf_counter() - started) * 1000
    missing = CheckOutcome(status=StepStatus.ERROR, message=f"the {language.value} checker returned no result for this step")
    return {s.step_id: (outcomes.get(s.step_id, missing), spec, elapsed_ms) for s in steps}


def _check_step(
    context: StepContext,
    translation: StepTranslation | None,
    checker: Checker | ChainChecker | ReasonForgeError | None,
    limits: CheckLimits,
    translator_spec: Spec | None,
    registry: CheckerRegistry,
) -> StepVerdict:
    """Check one step with its `checker` (the lookup's error, or None when the step has no artifact)."""
    step_id = context.step_id
    if translation is None:
        outcome = CheckOutcome(
            status=StepStatus.UNSUPPORTED,
            message="no translation was supplied for this step; add one to translations",
            error_kind=ErrorKind.UNTRANSLATABLE,
        )
        return _verdict(step_id, "", outcome, translator_spec)
    artifact = translation.formal_representation
    if not artifact.strip():
        outcome = CheckOutcome(
            status=StepStatus.UNSUPPORTED,
            message=translation.notes or "the translator produced no artifact for this step",
            error_kind=ErrorKind.UNTRANSLATABLE,
            details={"language": translation.language.value},
        )
        return _verdict(step_id, artifact, outcome, translator_spec)
    outcome, spec, elapsed_ms = _run_checker(context, translation, checker, limits)
    outcome = _gated(context, translation, outcome, limits, registry)
    return _record(step_id, translation, (outcome, spec, elapsed_ms), translator_spec)


def _run_checker(context: StepContext, translation: StepTranslation,
                 checker: Checker | ChainChecker | ReasonForgeError | None,
                 limits: CheckLimits) -> tuple[CheckOutcome, Spec | None, float]:
    """The checker's own outcome on the step's artifact (not gated yet), its spec and the milliseconds it took."""
    started = time.perf_counter()
    spec: Spec | None = None
    try:
        if isinstance(checker, ReasonForgeError):
            raise checker  # the lookup failed: reported on the step like any checker error
        outcome = checker.check(translation.formal_representation, level=context.proof_level,  # type: ignore[union-attr]
                                limits=limits, context=context)
        spec = checker.spec  # type: ignore[union-attr]
    except ReasonForgeError as exc:
        outcome = CheckOutcome(status=StepStatus.ERROR, message=exc.message)
    except Exception as exc:  # a checker bug must cost one step, not the whole verdict
        log.exception("checker for %s crashed on step %s", translation.language.value, context.step_id)
        outcome = CheckOutcome(status=StepStatus.ERROR, message=f"checker crashed: {type(exc).__name__}: {exc}")
    return outcome, spec, (time.perf_counter() - started) * 1000


def _record(
    step_id: int,
    translation: StepTranslation,
    result: tuple[CheckOutcome, Spec | None, float],
    translator_spec: Spec | None,
) -> StepVerdict:
    outcome, spec, elapsed_ms = result
    if outcome.status is StepStatus.INVALIDATED:
        outcome = CheckOutcome(status=StepStatus.ERROR, message="checker returned 'invalidated', which only the cascade may set")
    details = {
        "language": translation.language.value,
        "translation_confidence": translation.translation_confidence,
        "elapsed_ms": round(elapsed_ms, 3),
        **outcome.details,
    }
    return _verdict(step_id, translation.formal_representation, outcome.model_copy(update={"details": details}),
                    translator_spec, spec)


def _verdict(step_id: int, artifact: str, outcome: CheckOutcome, translator_spec: Spec | None,
             checker_spec: Spec | None = None) -> StepVerdict:
    verified = outcome.status is StepStatus.VERIFIED
    return StepVerdict(
        step_id=step_id,
        verified=verified,
        status=outcome.status,
        error_message=None if verified else outcome.message,
        formal_representation=artifact,
        error_kind=outcome.error_kind,
        evidence=outcome.evidence if verified else None,
        checker_spec=checker_spec,
        translator_spec=translator_spec,
        details=outcome.details,
    )


__all__ = ["verify_chain"]
