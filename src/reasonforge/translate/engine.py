"""`TranslationEngine`: the miner's translator. A model writes each step's artifact, the local checker compiles
it, and the checker's errors go back to the model (`repair`) until it compiles or `max_attempts` runs out.

Without a model (no backend, or a domain not in `domains`) it is the offline rule-based translator of
`translate.defaults`, so the default path never needs a network. It satisfies the `Translator` protocol,
so `verify_chain(request, translator=engine)` works; `atranslate` returns the same translations plus a
per-step account (attempts, tokens, seconds, local status) for benchmarks and miners.

Per chain: the target language follows DESIGN §3.3 (`targets.target_language`). For coq/lean4 the
engine first asks for the Context (step 0: the givens) and checks it compiles. Steps are translated in
topological order, each prompt showing the step's ancestors with their artifacts (names stay consistent,
and a chain checker needs them compiled). At quick level a logic step is written in FOL and grounded to
propositional logic here, exactly as the rule-based translator does. Dependencies are the request's
(the DAG is the caller's contract); a model's differing declaration is kept in the notes.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import copy
from collections.abc import Coroutine, Iterable, Mapping, Sequence
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, Field

from reasonforge.chain import StepGraph, step_contexts
from reasonforge.errors import ArtifactSyntaxError, InputError
from reasonforge.lang.logic import parse_fol_artifact, signature_of, to_text
from reasonforge.lang.logic.grounding import NotGroundable, ground_entailment, render_propositional
from reasonforge.registry import CheckerRegistry, Spec
from reasonforge.translate.checking import ChainPosition, CompileResult, compilation_check
from reasonforge.translate.examples import (
    EXAMPLES_SYSTEM,
    MAX_EXAMPLE_TOKENS,
    examples_grammar,
    examples_messages,
    signatures,
    written_examples,
)
from reasonforge.translate.grammars import grammar_for
from reasonforge.translate.llm import (
    ChatMessage,
    ChatReply,
    ChatRequest,
    ModelBackend,
    ModelError,
    ModelSettings,
    TokenUsage,
    complete_samples,
    make_backend,
    settings_from_env,
)
from reasonforge.translate.parsers import ArtifactReply, parse_artifact_reply
from reasonforge.translate.prompts import (
    TRANSLATION_SCHEMA,
    PriorStep,
    StepPrompt,
    context_prompt,
    step_prompt,
    system_prompt,
)
from reasonforge.translate.protocol import DECIDED_NOTE, StepGate, Translator
from reasonforge.translate.question import (
    MAX_PROGRAM_TOKENS,
    PROBLEM_GRAMMAR,
    PROBLEM_SYSTEM,
    QUESTION_GRAMMAR,
    QUESTION_SYSTEM,
    QuestionPrograms,
    problem_messages,
    question_messages,
    question_program,
)
from reasonforge.translate.repair import DEFAULT_MAX_ATTEMPTS, Checked, RepairResult, run_repair_loop
from reasonforge.translate.targets import LogicFormat, model_language, target_language
from reasonforge.types import (
    CHAIN_LANGUAGES,
    CONTEXT_STEP_ID,
    ArtifactLanguage,
    ChainStep,
    CheckLimits,
    CheckOutcome,
    Domain,
    ErrorKind,
    ProofLevel,
    Prover,
    ReasoningStep,
    StepStatus,
    StepTranslation,
    TranslatorMode,
    VerifyRequest,
)

__all__ = ["ChainOutcome", "StepOutcome", "TranslationEngine"]

ENGINE_NAME = "llm-translator"
ENGINE_VERSION = "1.0"
_MAX_GROUND_NODES = 50_000
DEFAULT_QUESTION_SAMPLES = 3  # a word problem's formalisations: the answer counts when 2 of 3 agree
MAX_QUESTION_SAMPLES = 16
_PROBES = {ArtifactLanguage.COQ: "Lemma rf_context_probe : True.\nProof. exact I. Qed.\n",
           ArtifactLanguage.LEAN4: "theorem rf_context_probe : True := trivial\n"}
T = TypeVar("T")
OutcomeStatus = Literal["verified", "compiled", "unchecked", "error", "offline", "decided"]


class StepOutcome(BaseModel):
    """How one step's translation went: local status, attempts, tokens, seconds."""

    step_id: int
    language: ArtifactLanguage
    status: OutcomeStatus = Field(description="verified/compiled locally; unchecked: the checker could not "
                                              "decide; error: no artifact that compiles; offline: rule-based")
    message: str | None = None
    translated: bool = False
    compiled: bool | None = None
    first_attempt_compiled: bool = False
    attempts: int = 0
    usage: TokenUsage = Field(default_factory=TokenUsage)
    model_ms: float = 0.0
    check_ms: float = 0.0


class ChainOutcome(BaseModel):
    """Translations (request order, a coq/lean4 Context first) and the account of each step."""

    mode: Literal["model", "offline"]
    translator: Spec
    translations: list[StepTranslation]
    steps: list[StepOutcome] = Field(default_factory=list)
    context: StepOutcome | None = None


def _run_sync(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine from sync code, also when called inside a running event loop (in a worker thread)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def _resolve_backend(backend: ModelBackend | ModelSettings | str | None, model: str | None) -> ModelBackend | None:
    if backend is None and model is None:
        return None
    if isinstance(backend, ModelSettings):
        return make_backend(backend)
    if backend is None or isinstance(backend, str):
        if backend not in (None, "openai", "anthropic"):
            raise InputError(f"unknown backend {backend!r}; use 'openai' (any OpenAI-compatible server) or "
                             "'anthropic'", field="backend")
        name = model or ""
        if backend is not None and name and not name.startswith(("http://", "https://")):
            name = f"{backend}:{name.split(':', 1)[-1]}"
        settings = settings_from_env(name or None)
        if settings is None:
            raise InputError("no model configured: pass model= or set REASONFORGE_MODEL / "
                             "REASONFORGE_MODEL_BASE_URL", field="model")
        return make_backend(settings)
    if not hasattr(backend, "complete"):
        raise InputError(f"backend {type(backend).__name__} has no async complete(request) method", field="backend")
    return backend


def _not_asked(decided: StepTranslation, why: str) -> StepTranslation:
    """The model's translation of a step it was not asked: empty, saying why (the pipeline reads it as unread)."""
    return StepTranslation(step_id=decided.step_id, original_content=decided.original_content,
                           formal_representation="", language=decided.language, dependencies=list(decided.dependencies),
                           translation_confidence=0.0, compilation_check=False, notes=why)


class TranslationEngine:
    """Model-backed translator with compile-feedback repair; offline rule-based when no model is configured."""

    def __init__(self, backend: ModelBackend | ModelSettings | str | None = None, model: str | None = None,
                 domains: Iterable[Domain | str] | None = None, *, max_attempts: int = DEFAULT_MAX_ATTEMPTS,
                 logic_format: LogicFormat = "fol", json_mode: bool | None = None,
                 registry: CheckerRegistry | None = None, limits: CheckLimits | None = None,
                 max_ground_nodes: int = _MAX_GROUND_NODES, strict: bool = False,
                 question_samples: int = DEFAULT_QUESTION_SAMPLES, question_agree: int | None = None,
                 sample: int = 0) -> None:
        if max_attempts < 1:
            raise InputError("max_attempts must be at least 1", field="max_attempts")
        if not 1 <= question_samples <= MAX_QUESTION_SAMPLES:
            raise InputError(f"question_samples must be between 1 and {MAX_QUESTION_SAMPLES}, not {question_samples}",
                             field="question_samples")
        agree = question_agree if question_agree is not None else question_samples // 2 + 1
        if not 1 <= agree <= question_samples:
            raise InputError(f"question_agree must be between 1 and question_samples ({question_samples}), not "
                             f"{agree}", field="question_agree")
        if logic_format not in ("fol", "smtlib"):
            raise InputError(f"logic_format must be 'fol' or 'smtlib', not {logic_format!r}", field="logic_format")
        self.backend = _resolve_backend(backend, model)
        self.domains = frozenset(Domain(d) for d in (domains if domains is not None else Domain))
        self.max_attempts = max_attempts
        self.logic_format: LogicFormat = logic_format
        settings = getattr(self.backend, "settings", None)
        self.json_mode = bool(json_mode if json_mode is not None else getattr(settings, "json_mode", False))
        self.registry = registry
        self.limits = limits or CheckLimits()
        self.max_ground_nodes = max_ground_nodes
        # strict: a call the endpoint cannot answer (unreachable, 401, timeout) ends the chain with that ModelError,
        # instead of leaving the step untranslated; verification paths want the one clear error.
        self.strict = strict
        self.gate: StepGate | None = None  # the pipeline's soundness gate, handed in by `with_gate`
        self.question_samples = question_samples
        self.question_agree = agree
        # which independent sample of the chain's translation this engine writes: sample i asks its attempts as
        # attempts i·max_attempts + 1 … (`llm.sampling`: another temperature and seed than every other sample's)
        self.sample = sample
        backend_spec = self.backend.spec.model_dump(mode="json") if self.backend is not None else None
        self.spec = Spec(name=ENGINE_NAME, version=ENGINE_VERSION, args={
            "backend": backend_spec, "domains": sorted(d.value for d in self.domains),
            "max_attempts": max_attempts, "logic_format": logic_format, "json_mode": self.json_mode,
            "question_samples": question_samples, "question_agree": agree, "sample": sample})

    def sampled(self, sample: int) -> TranslationEngine:
        """This engine writing independent sample `sample` (0: the first, at the configured temperature)."""
        if sample < 0:
            raise InputError(f"a sample index is 0 or more, not {sample}", field="samples")
        other = copy.copy(self)
        other.sample = sample
        other.spec = Spec(name=self.spec.name, version=self.spec.version, args={**self.spec.args, "sample": sample})
        return other

    def with_gate(self, gate: StepGate) -> TranslationEngine:
        """This engine (same spec) with each locally verified artifact also held to `gate`: one that checks but is
        not the step goes back to the model with the gate's reason, as a repair."""
        gated = copy.copy(self)
        gated.gate = gate
        return gated

    @classmethod
    def from_env(cls, model: str | None = None, **kwargs: Any) -> TranslationEngine:
        """An engine for `--model URL_OR_NAME` or the REASONFORGE_MODEL* environment; offline when neither is set."""
        settings = settings_from_env(model)
        return cls(make_backend(settings) if settings is not None else None, **kwargs)

    @property
    def offline(self) -> bool:
        """True when no model is configured (every domain uses the rule-based translators)."""
        return self.backend is None

    @property
    def writer(self) -> TranslatorMode:
        """Who writes this engine's artifacts: the model, or the rules when none is configured."""
        return TranslatorMode.RULES if self.backend is None else TranslatorMode.MODEL

    def uses_model(self, domain: Domain | str) -> bool:
        """Whether `domain` is translated by the model (else by the offline translator)."""
        return self.backend is not None and Domain(domain) in self.domains

    # ---- the Translator protocol ----------------------------------------------------------------
    def translate_chain(self, request: VerifyRequest,
                        ancestors: Mapping[int, Sequence[int]] | None = None) -> list[StepTranslation]:
        """One translation per step in request order (a coq/lean4 Context first), as `verify_chain` expects."""
        return _run_sync(self.atranslate(request, ancestors)).translations

    def complete_chain(self, request: VerifyRequest, ancestors: Mapping[int, Sequence[int]],
                       decided: Mapping[int, StepTranslation], why: str = DECIDED_NOTE) -> list[StepTranslation]:
        """`translate_chain` asking the model only for the steps `decided` leaves open (`protocol.Completing`)."""
        return _run_sync(self.atranslate(request, ancestors, decided=decided, why=why)).translations

    def formalise_question(self, request: VerifyRequest) -> QuestionPrograms | None:
        """`question_samples` programs for the question of a maths chain, written from the question alone
        (`translate.question`); None offline, outside maths, or with no question."""
        if not self.uses_model(request.domain) or request.domain is not Domain.MATHEMATICS or not request.original_query.strip():
            return None
        return _run_sync(self.aformalise_question(request.original_query))

    async def aformalise_question(self, question: str) -> QuestionPrograms:
        """The programs and problem models for `question`: independent samples of each (each later one at the retry
        temperature, own seed)."""
        programs = await self._samples(ChatRequest(system=QUESTION_SYSTEM, messages=question_messages(question),
                                                   grammar=QUESTION_GRAMMAR, max_tokens=MAX_PROGRAM_TOKENS))
        models = await self._samples(ChatRequest(system=PROBLEM_SYSTEM, messages=problem_messages(question),
                                                 grammar=PROBLEM_GRAMMAR, max_tokens=MAX_PROGRAM_TOKENS))
        return QuestionPrograms(programs=programs, problem_models=models, required=self.question_agree,
                                formaliser=self.spec)

    async def _samples(self, request: ChatRequest) -> list[str]:
        """`question_samples` replies to `request`, each one's fenced block ("" for a reply that failed)."""
        assert self.backend is not None
        out: list[str] = []
        for reply in await complete_samples(self.backend, request, range(1, self.question_samples + 1)):
            if isinstance(reply, ModelError):
                if self.strict:
                    raise reply
                out.append("")
            else:
                out.append(question_program(reply))
        return out

    def write_examples(self, request: VerifyRequest) -> dict[int, str] | None:
        """For each code step that defines a function, `>>>` examples written from the question and the step's
        prose and signatures alone (`translate.examples`); None offline or outside code."""
        if not self.uses_model(request.domain) or request.domain is not Domain.CODE:
            return None
        return _run_sync(self.awrite_examples(request))

    async def awrite_examples(self, request: VerifyRequest) -> dict[int, str]:
        """The examples of each step, by step id (steps with no function, or no usable reply, are left out)."""
        assert self.backend is not None
        out: dict[int, str] = {}
        for step in request.reasoning_chain:
            shown = signatures(step.content)
            if not shown:
                continue
            try:
                reply = await self.backend.complete(ChatRequest(
                    system=EXAMPLES_SYSTEM, messages=examples_messages(request.original_query, shown),
                    grammar=examples_grammar(shown), max_tokens=MAX_EXAMPLE_TOKENS, attempt=1 + self.sample * self.max_attempts))
            except ModelError:
                if self.strict:
                    raise
                continue
            if written := written_examples(reply):
                out[step.step_id] = written
        return out

    # ---- async API ------------------------------------------------------------------------------
    async def atranslate(self, request: VerifyRequest, ancestors: Mapping[int, Sequence[int]] | None = None, *,
                         decided: Mapping[int, StepTranslation] | None = None,
                         why: str = DECIDED_NOTE) -> ChainOutcome:
        """Translate a whole chain and account for every step. A step of `decided` (another translation's checked
        reading settles it) is not asked: its translation there stands in for the model's as the later steps'
        ancestor, and its own translation here is empty, its notes saying `why`. Chain languages (Coq, Lean 4)
        check every step in one development, so there every step is asked."""
        graph = StepGraph(request.reasoning_chain)
        if ancestors is None:
            ancestors = {sid: graph.ancestors(sid) for sid in graph.order}
        if not self.uses_model(request.domain):
            return await asyncio.to_thread(self._offline_chain, request, ancestors)
        target = target_language(request.domain, request.proof_level, request.prover, self.logic_format)
        done: dict[int, StepTranslation] = {}
        context_text = ""
        context_outcome: StepOutcome | None = None
        context_translation: StepTranslation | None = None
        if target in CHAIN_LANGUAGES:
            context_translation, context_outcome = await self.translate_context(request, target)
            context_text = context_translation.formal_representation
        outcomes: dict[int, StepOutcome] = {}
        by_id = {step.step_id: step for step in request.reasoning_chain}
        vocabulary = (await asyncio.to_thread(self._vocabulary, request, ancestors)
                      if target in (ArtifactLanguage.FOL, ArtifactLanguage.PROPOSITIONAL) else "")
        settled = {sid: t for sid, t in (decided or {}).items()
                   if target not in CHAIN_LANGUAGES and t.language is target}
        for sid in graph.order:
            prior = [done[a] for a in ancestors.get(sid, ()) if a in done]
            if sid in settled:
                done[sid] = settled[sid]
                outcomes[sid] = StepOutcome(step_id=sid, language=target, status="decided", message=why)
                continue
            translation, outcome = await self._translate_one(
                by_id[sid], request, target, list(graph.dependencies[sid]), prior, context_text, graph, vocabulary)
            done[sid], outcomes[sid] = translation, outcome
        translations = [_not_asked(done[step.step_id], why) if step.step_id in settled else done[step.step_id]
                        for step in request.reasoning_chain]
        if context_translation is not None:
            translations.insert(0, context_translation)
        return ChainOutcome(mode="model", translator=self.spec, translations=translations,
                            steps=[outcomes[step.step_id] for step in request.reasoning_chain],
                            context=context_outcome)

    async def translate_step(self, step: ReasoningStep | Mapping[str, Any], domain: Domain | str,
                             proof_level: ProofLevel | str, previous_steps: Sequence[StepTranslation],
                             original_query: str, *, prover: Prover | str = Prover.AUTO) -> StepTranslation:
        """The plan's per-step call: translate `step` given the translations of the steps before it.

        For coq/lean4, pass the Context translation (step 0, from `translate_context`) among `previous_steps`."""
        current = step if isinstance(step, ReasoningStep) else ReasoningStep.model_validate(dict(step))
        earlier = [t for t in previous_steps if t.step_id != CONTEXT_STEP_ID and t.step_id != current.step_id]
        chain = [ReasoningStep(step_id=t.step_id, content=t.original_content or f"(step {t.step_id})",
                               dependencies=list(t.dependencies)) for t in earlier]
        request = VerifyRequest(reasoning_chain=[*chain, current], domain=Domain(domain),
                                proof_level=ProofLevel(proof_level), original_query=original_query,
                                prover=Prover(prover))
        graph = StepGraph(request.reasoning_chain)
        if not self.uses_model(request.domain):
            ancestors = {sid: graph.ancestors(sid) for sid in graph.order}
            translations = await asyncio.to_thread(self._offline_chain, request, ancestors)
            return next(t for t in translations.translations if t.step_id == current.step_id)
        target = target_language(request.domain, request.proof_level, request.prover, self.logic_format)
        context = next((t.formal_representation for t in previous_steps
                        if t.step_id == CONTEXT_STEP_ID and t.language in CHAIN_LANGUAGES), "")
        known = {t.step_id: t for t in earlier}
        prior = [known[a] for a in graph.ancestors(current.step_id) if a in known]
        translation, _ = await self._translate_one(current, request, target,
                                                   list(graph.dependencies[current.step_id]), prior, context, graph)
        return translation

    async def translate_context(self, request: VerifyRequest,
                                target: ArtifactLanguage) -> tuple[StepTranslation, StepOutcome]:
        """The Context (step 0) of a coq/lean4 chain: the problem's givens, checked to compile."""
        steps = [(s.step_id, s.content) for s in request.reasoning_chain]
        messages = [ChatMessage(role="user", content=context_prompt(request.original_query, steps, target))]
        system = system_prompt(target, json_mode=self.json_mode, context=True)

        async def check(reply: ArtifactReply) -> Checked:
            probe = ChainPosition(step_id=1, content="", context=reply.artifact)
            result = await asyncio.to_thread(compilation_check, _PROBES[target], target, request.proof_level,
                                             registry=self.registry, limits=self.limits, chain=probe)
            return Checked(reply.artifact, target, _context_result(result))

        result = await run_repair_loop(self._ask(system), messages, self._parse(target), check,
                                       max_attempts=self.max_attempts)
        self._raise_endpoint_failure(result)
        return self._assemble(CONTEXT_STEP_ID, request.original_query, target, [], result, context=True)

    # ---- internals ------------------------------------------------------------------------------
    def _offline_chain(self, request: VerifyRequest, ancestors: Mapping[int, Sequence[int]]) -> ChainOutcome:
        from reasonforge.translate.defaults import default_translator

        translator: Translator = default_translator(request.domain, level=request.proof_level, prover=request.prover)
        translations = translator.translate_chain(request, ancestors)
        outcomes = [StepOutcome(step_id=t.step_id, language=t.language, status="offline",
                                translated=bool(t.formal_representation.strip()),
                                compiled=t.compilation_check if t.formal_representation.strip() else None,
                                message=t.notes) for t in translations if t.step_id != CONTEXT_STEP_ID]
        return ChainOutcome(mode="offline", translator=translator.spec, translations=translations, steps=outcomes)

    @staticmethod
    def _vocabulary(request: VerifyRequest, ancestors: Mapping[int, Sequence[int]]) -> str:
        """The predicate and constant names the offline reader gives the chain's texts (the logic soundness gate
        ties an artifact to the text through them), as a prompt line; "" when it reads nothing."""
        from reasonforge.translate.logic import LogicTranslator

        translator = LogicTranslator()
        texts = [request.original_query, *(t for s in request.reasoning_chain for t in (s.content,
                                                                                     s.claimed_conclusion or ""))]
        givens = list(translator.reader.read_givens(request.original_query, translator.reader.parser(texts)).formulas)
        formulas = list(givens)
        fol = request.model_copy(update={"proof_level": ProofLevel.STANDARD})
        for translation in translator.translate_chain(fol, ancestors):
            try:
                parsed = parse_fol_artifact(translation.formal_representation)
            except ArtifactSyntaxError:
                continue
            formulas += [*parsed.premises, parsed.conclusion]
        if not formulas:
            return ""
        signature = signature_of(formulas)
        args = "xyzuvw"
        predicates = [f"{name}({', '.join(args[:arity])})" if arity else name
                      for name, arity in signature.predicates.items()]
        lines = ["predicates: " + ", ".join(predicates)]
        if signature.constants:
            lines.append("constants: " + ", ".join(signature.constants))
        if givens:
            # The givens as the checker reads them: a premise must be one of these (or an earlier step's
            # conclusion), so the model's own work is reading the step's claim, which is what is cross-checked.
            lines.append("the problem's givens, as the checker reads them (use those the step relies on as "
                         "premises, written exactly so):\n" + "\n".join(to_text(f) for f in givens))
        return "\n".join(lines)

    def _constrained(self, language: ArtifactLanguage) -> bool:
        """Whether replies in `language` are decoded under its grammar (which has no room for metadata lines)."""
        settings = getattr(self.backend, "settings", None)
        return not self.json_mode and bool(getattr(settings, "grammar", False)) and grammar_for(language) is not None

    def _ask(self, system: str, language: ArtifactLanguage | None = None):
        backend = self.backend
        schema = TRANSLATION_SCHEMA if self.json_mode else None
        grammar = grammar_for(language) if language is not None and schema is None else None

        async def ask(messages: Sequence[ChatMessage], attempt: int = 1) -> ChatReply:
            assert backend is not None
            return await backend.complete(ChatRequest(system=system, messages=list(messages), json_schema=schema,
                                                      grammar=grammar,
                                                      attempt=attempt + self.sample * self.max_attempts))

        return ask

    @staticmethod
    def _parse(language: ArtifactLanguage):
        def parse(reply: ChatReply) -> ArtifactReply:
            return parse_artifact_reply(reply.text, language, tool_arguments=reply.tool_arguments,
                                        refusal=reply.refusal, truncated=reply.truncated)

        return parse

    async def _translate_one(self, step: ReasoningStep, request: VerifyRequest, target: ArtifactLanguage,
                             direct: list[int], prior: Sequence[StepTranslation], context: str,
                             graph: StepGraph, vocabulary: str = "") -> tuple[StepTranslation, StepOutcome]:
        written = model_language(target)
        shown = [PriorStep(t.step_id, t.original_content, t.formal_representation, t.language, t.compilation_check)
                 for t in prior]
        prompt = StepPrompt(step_id=step.step_id, content=step.content, language=written,
                            original_query=request.original_query, claimed_conclusion=step.claimed_conclusion,
                            dependencies=direct, prior=shown, context_artifact=context, vocabulary=vocabulary)
        messages = [ChatMessage(role="user", content=step_prompt(prompt))]
        system = system_prompt(written, json_mode=self.json_mode, metadata=not self._constrained(written))
        position = None
        if target in CHAIN_LANGUAGES:
            position = ChainPosition(
                step_id=step.step_id, content=step.content, context=context, dependencies=direct,
                ancestors=[ChainStep(step_id=t.step_id, content=t.original_content, artifact=t.formal_representation,
                                     dependencies=list(graph.dependencies.get(t.step_id, ())),
                                     ancestors=list(graph.ancestors(t.step_id)))
                           for t in prior if t.formal_representation.strip()])

        async def check(reply: ArtifactReply) -> Checked:
            checked = await asyncio.to_thread(self._check, reply.artifact, target, request.proof_level, position)
            if self.gate is not None and checked.result.verified:
                checked = await asyncio.to_thread(self._gated, checked, request, graph, step, direct)
            return checked

        result = await run_repair_loop(self._ask(system, written), messages, self._parse(written), check,
                                       max_attempts=self.max_attempts)
        self._raise_endpoint_failure(result)
        return self._assemble(step.step_id, step.content, target, direct, result)

    def _raise_endpoint_failure(self, result: RepairResult) -> None:
        """In strict mode, the endpoint's failure as the one ModelError (the step is never left silently empty)."""
        last = result.attempts[-1] if result.attempts else None
        if not (self.strict and last is not None and last.problem_kind == "model_error"):
            return
        settings = getattr(self.backend, "settings", None)
        if settings is not None and settings.provider == "local":
            raise ModelError(f"the local model ({settings.model}) could not answer: {last.problem}")
        described = settings.describe() if settings is not None else "the model"
        raise ModelError(f"the model endpoint ({described}) did not answer: {last.problem}; check that it is "
                         "running and reachable, and its key (REASONFORGE_MODEL_API_KEY / ANTHROPIC_API_KEY)")

    def _gated(self, checked: Checked, request: VerifyRequest, graph: StepGraph, step: ReasoningStep,
               direct: list[int]) -> Checked:
        """A verified artifact the soundness gate does not tie to the step, as a repairable rejection."""
        assert self.gate is not None
        translation = StepTranslation(step_id=step.step_id, original_content=step.content,
                                      formal_representation=checked.artifact, language=checked.language,
                                      dependencies=direct)
        outcome = CheckOutcome(status=StepStatus.VERIFIED, message=checked.result.message,
                               details=dict(checked.result.details))
        gated = self.gate(step_contexts(request, graph)[step.step_id], translation, outcome)
        if gated.status is StepStatus.VERIFIED:
            return checked
        reason = gated.message or f"the soundness gate returned {gated.status.value}"
        message = (f"the artifact checks, but it is not this step: {reason}. Write the artifact whose conclusion is "
                   "exactly what the step claims, from the question's givens and earlier steps' claims only")
        result = CompileResult(True, True, gated.status, message, gated.error_kind, dict(gated.details))
        return Checked(checked.artifact, checked.language, result, checked.notes)

    def _check(self, artifact: str, target: ArtifactLanguage, level: ProofLevel,
               position: ChainPosition | None) -> Checked:
        """Compile-check an artifact; a propositional target is written as FOL and grounded first."""
        if target is not ArtifactLanguage.PROPOSITIONAL:
            result = compilation_check(artifact, target, level, registry=self.registry, limits=self.limits,
                                       chain=position)
            return Checked(artifact, target, result)
        try:
            parsed = parse_fol_artifact(artifact)
        except ArtifactSyntaxError as exc:
            result = CompileResult(False, True, StepStatus.ERROR, exc.message, ErrorKind.SYNTAX)
            return Checked(artifact, ArtifactLanguage.FOL, result)
        try:
            premises, conclusion = ground_entailment(list(parsed.premises), parsed.conclusion,
                                                     max_nodes=self.max_ground_nodes)
        except NotGroundable as exc:
            note = f"kept the fol artifact: cannot ground it to propositional logic ({exc})"
            result = compilation_check(artifact, ArtifactLanguage.FOL, level, registry=self.registry, limits=self.limits)
            return Checked(artifact, ArtifactLanguage.FOL, result, (note,))
        names: dict[str, tuple[str, tuple[str, ...]]] = {}
        lines = list(dict.fromkeys(render_propositional(p, names) for p in premises))
        grounded = "\n".join([*lines, "⊢ " + render_propositional(conclusion, names)]) + "\n"
        result = compilation_check(grounded, ArtifactLanguage.PROPOSITIONAL, level, registry=self.registry,
                                   limits=self.limits)
        return Checked(grounded, ArtifactLanguage.PROPOSITIONAL, result, ("the model's FOL, grounded to propositional logic",))

    def _assemble(self, step_id: int, content: str, target: ArtifactLanguage, direct: list[int],
                  result: RepairResult, *, context: bool = False) -> tuple[StepTranslation, StepOutcome]:
        """The StepTranslation and StepOutcome for a finished repair loop."""
        final = result.final
        attempts = len(result.attempts)
        summaries = [a.summary() for a in result.attempts]
        usage = result.usage
        model_ms = round(sum(a.model_ms for a in result.attempts), 1)
        check_ms = round(sum(a.check_ms for a in result.attempts), 1)
        tokens = f"tokens in {usage.input_tokens}, out {usage.output_tokens}"
        if final is None or final.checked is None or final.reply is None:
            last = result.attempts[-1] if result.attempts else None
            why = (last.problem if last is not None else None) or "the model produced no artifact"
            failure = f"no usable artifact after {attempts} attempt(s): {why}"
            translation = StepTranslation(step_id=step_id, original_content=content, formal_representation="",
                                          language=target, dependencies=direct, translation_confidence=0.0,
                                          compilation_check=False,
                                          notes="; ".join([f"error: {failure}", *summaries[:-1], tokens]))
            outcome = StepOutcome(step_id=step_id, language=target, status="error", message=failure,
                                  attempts=attempts, usage=usage, model_ms=model_ms, check_ms=check_ms)
            return translation, outcome
        checked, reply = final.checked, final.reply
        compiled = checked.result.compiled
        if checked.result.verified:
            status: OutcomeStatus = "verified"
        elif compiled and not checked.result.repairable:
            status = "compiled"
        elif compiled is None:
            status = "unchecked"
        else:
            status = "error"
        message = None if status in ("verified", "compiled") else checked.result.feedback()
        head = {"verified": "verified locally", "compiled": f"compiled (local status {checked.result.status.value})",
                "unchecked": f"the checker could not decide: {message}",
                "error": f"error: did not pass the local checker after {attempts} attempt(s): {message}"}[status]
        notes = [head, *summaries, *reply.notes, *checked.notes]
        if reply.dependencies is not None and not context and sorted(reply.dependencies) != sorted(direct):
            notes.append(f"the model declared dependencies {list(reply.dependencies)}; the request's are {direct}")
        notes.append(tokens)
        confidence = reply.confidence if reply.confidence is not None else 0.5
        if compiled is False:
            confidence = 0.0  # it knows the artifact does not compile
        translation = StepTranslation(step_id=step_id, original_content=content,
                                      formal_representation=checked.artifact, language=checked.language,
                                      dependencies=direct, translation_confidence=confidence,
                                      compilation_check=bool(compiled), notes="; ".join(notes))
        outcome = StepOutcome(step_id=step_id, language=checked.language, status=status, message=message,
                              translated=True, compiled=compiled, first_attempt_compiled=result.first_attempt_compiled,
                              attempts=attempts, usage=usage, model_ms=model_ms, check_ms=check_ms)
        return translation, outcome


def _context_result(probe: CompileResult) -> CompileResult:
    """A probe step's result read as the Context's: only a Context complaint is the Context's fault."""
    message = probe.message or ""
    if probe.status is StepStatus.VERIFIED:
        return CompileResult(True, False, StepStatus.VERIFIED, None)
    if "Context (step 0)" in message or probe.error_kind is ErrorKind.CONTEXT:
        return CompileResult(False, True, StepStatus.ERROR, message, ErrorKind.CONTEXT)
    return CompileResult(None, False, probe.status, message, probe.error_kind)
