"""`LogicTranslator`: the offline rule-based translator of logic chains into `fol`/`propositional` artifacts.

The reading (givens, supporting claims, conclusion) is `lang.english.EnglishReader`'s. A step's artifact is its
inference: the givens, then the claims (supporting claims and conclusion) of its ancestors in topological order,
then the step's own supporting claims (the premises it states), deduplicated; then `⊢ conclusion`. The checker
decides whether the conclusion follows from all of them; the logic aligner (verify/logic/align.py) decides which
of the step's own premises the givens and ancestors give or derive, which they contradict (refuted) and which are
assumptions (the step then rests on conditional evidence), and refutes nothing the reader's reading does not
refute. An untranslatable ancestor contributes nothing (fewer premises: never a looser check). At proof level
`quick` the entailment is Skolemised and grounded to a `propositional` artifact (exact; see
`lang.logic.grounding`), else the `fol` artifact is kept (the quick checker reports it unsupported).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

from reasonforge.errors import ArtifactSyntaxError, ReasonForgeError
from reasonforge.lang.english import ClaimPart, ClaimRole, EnglishReader, StepReading, StepScope
from reasonforge.lang.logic import FolParser
from reasonforge.lang.logic.artifacts import MAX_GROUND_NODES, entailment_text
from reasonforge.lang.logic.formulas import negate
from reasonforge.registry import Spec
from reasonforge.types import (
    ArtifactLanguage,
    ProofLevel,
    StepContext,
    StepTranslation,
    VerifyRequest,
)

TRANSLATOR_NAME = "rule-based-logic"
TRANSLATOR_VERSION = "3.0"  # 3.0: a step's supporting claims are premises of its inference, its conclusion the goal
_MAX_QUOTED = 3  # skipped given sentences quoted in notes; the rest are counted


class LogicTranslator:
    """Offline controlled-English → FOL translator for logic chains (PrOntoQA, ProofWriter, syllogisms)."""

    def __init__(
        self,
        *,
        either_or: Literal["exclusive", "inclusive"] = "exclusive",
        ground_quick: bool = True,
        max_ground_nodes: int = MAX_GROUND_NODES,
    ) -> None:
        self.reader = EnglishReader(either_or=either_or)
        if max_ground_nodes < 1:
            raise ReasonForgeError("max_ground_nodes must be a positive number of formula nodes", field="max_ground_nodes")
        self.either_or = either_or
        self.ground_quick = ground_quick
        self.max_ground_nodes = max_ground_nodes
        self.spec = Spec(
            name=TRANSLATOR_NAME,
            version=TRANSLATOR_VERSION,
            args={"either_or": either_or, "ground_quick": ground_quick, "max_ground_nodes": max_ground_nodes},
        )

    # ---- public API --------------------------------------------------------------------------------
    def translate_chain(
        self, request: VerifyRequest, ancestors: Mapping[int, Sequence[int]]
    ) -> list[StepTranslation]:
        """One translation per step, in request order (see the module docstring for the semantics)."""
        texts = [request.original_query]
        for step in request.reasoning_chain:
            texts += [step.content, step.claimed_conclusion or ""]
        parser = self.reader.parser(texts)
        givens = self.reader.read_givens(request.original_query, parser)
        readings = {
            step.step_id: self.reader.read_step(step.content, step.claimed_conclusion, parser)
            for step in request.reasoning_chain
        }
        translations = []
        compile_check = _CompileCheck()
        for index, step in enumerate(request.reasoning_chain):
            if step.dependencies is not None:
                direct = list(step.dependencies)
            else:
                direct = [request.reasoning_chain[index - 1].step_id] if index else []
            inherited = [f for a in ancestors.get(step.step_id, ()) if a in readings for f in readings[a].claims]
            scope = StepScope(givens, tuple(inherited), readings[step.step_id])
            translations.append(
                self._artifact(step.step_id, step.content, direct, scope, request.proof_level, compile_check)
            )
        return translations

    def read_context(self, context: StepContext) -> StepScope:
        """One step's scope from its context (question, ancestors, own text), read as `translate_chain` reads it."""
        return self.reader.read_scope(context.original_query,
                                      [(step.content, step.claimed_conclusion) for step in context.ancestors],
                                      context.content, context.claimed_conclusion)

    def entailment(
        self, theory: str, statement: str, *, negated: bool = False, level: ProofLevel = ProofLevel.STANDARD
    ) -> StepTranslation:
        """Artifact for "theory ⊢ statement" (or ⊢ ¬statement): how a benchmark reproduces a label."""
        parser = self.reader.parser([theory, statement])
        givens = self.reader.read_givens(theory, parser)
        reading = self.reader.read_step(statement, None, parser)
        if reading.claim is not None:  # the whole statement is the goal: nothing it says is a premise here
            goal = negate(reading.claim) if negated else reading.claim
            reading = StepReading((), goal, None, reading.notes, (ClaimPart(statement, goal, ClaimRole.CONCLUSION),))
        return self._artifact(0, statement, [], StepScope(givens, (), reading), level, _CompileCheck())

    # ---- helpers -----------------------------------------------------------------------------------
    def _artifact(
        self,
        step_id: int,
        content: str,
        direct: list[int],
        scope: StepScope,
        level: ProofLevel,
        compile_check: _CompileCheck,
    ) -> StepTranslation:
        reading, givens = scope.reading, scope.givens
        notes = list(reading.notes)
        if givens.skipped:
            quoted = "; ".join(f'"{s}"' for s in givens.skipped[:_MAX_QUOTED])
            more = f" and {len(givens.skipped) - _MAX_QUOTED} more" if len(givens.skipped) > _MAX_QUOTED else ""
            notes.append(f"skipped {len(givens.skipped)} query sentence(s) no rule covers: {quoted}{more}")
        premises, conclusion = scope.inference
        if reading.error is not None or conclusion is None:
            return StepTranslation(
                step_id=step_id,
                original_content=content,
                formal_representation="",
                language=ArtifactLanguage.FOL,
                dependencies=direct,
                translation_confidence=0.0,
                compilation_check=False,
                notes="; ".join([reading.error or "cannot translate this step", *notes]),
            )
        supports = [p for p in reading.parts if p.role is ClaimRole.SUPPORT]
        if supports:
            quoted = "; ".join(f'"{p.text}"' for p in supports[:_MAX_QUOTED])
            more = " …" if len(supports) > _MAX_QUOTED else ""
            notes.append(f"the step states {len(supports)} premise(s) of its own, each to be given, derived or "
                         f"assumed: {quoted}{more}")
        grounded, text, refused = entailment_text(premises, conclusion,
                                                  ground=level is ProofLevel.QUICK and self.ground_quick,
                                                  max_nodes=self.max_ground_nodes)
        language = ArtifactLanguage.PROPOSITIONAL if grounded else ArtifactLanguage.FOL
        if refused is not None:
            notes.append(f"kept the fol artifact: cannot ground to propositional logic ({refused})")
        compiles = compile_check(text, language)
        if not compiles:
            notes.append("the artifact does not parse with the checker's parser (a translator bug)")
        return StepTranslation(
            step_id=step_id,
            original_content=content,
            formal_representation=text,
            language=language,
            dependencies=direct,
            translation_confidence=1.0,
            compilation_check=compiles,
            notes="; ".join(notes) or None,
        )


class _CompileCheck:
    """Parses artifact lines with the checker's own parser, each distinct line once per chain (the
    givens repeat in every step's artifact, and re-parsing them dominated translation time)."""

    def __init__(self) -> None:
        self._parsers: dict[bool, FolParser] = {}
        self._seen: dict[tuple[bool, str], bool] = {}

    def __call__(self, text: str, language: ArtifactLanguage) -> bool:
        """Whether every line parses."""
        propositional = language is ArtifactLanguage.PROPOSITIONAL
        parser = self._parsers.setdefault(propositional, FolParser(propositional=propositional))
        ok = True
        for line in text.splitlines():
            body = line.removeprefix("⊢ ")
            key = (propositional, body)
            if key not in self._seen:
                try:
                    parser.parse(body)
                    self._seen[key] = True
                except ArtifactSyntaxError:
                    self._seen[key] = False
            ok = ok and self._seen[key]
        return ok
