"""`LogicTranslator`: the offline rule-based translator of logic chains into `fol`/`propositional` artifacts.

Chain semantics (DESIGN §3.1, issue 17: offline translators never assume):
- Givens: the sentences of `original_query` that a rule covers (question sentences such as "True or
  false: X." are the query, not givens; uncovered sentences are skipped and named in the notes).
- A step claims everything it asserts. Its sentences introduced by Therefore/So/Hence/Thus/Consequently
  (or the "B" of "Since A, B" / "B because A") form its conclusion; its other sentences and the "A" of
  "Since A, B" are *supporting claims*: checked like the conclusion, never assumed. A step with no marked
  sentence concludes the conjunction of its sentences. `claimed_conclusion`, when it translates to something
  the step does not already conclude, is added to the conclusion as a conjunct (stricter, never looser).
- A step's artifact: givens, then the claims (supporting claims and conclusion) of its ancestors in
  topological order, deduplicated; then `⊢ (supporting claims ∧ conclusion)`, the step's whole claim
  (`StepReading.claim`). Nothing the step itself says is a premise: "Rex is a bird. So Rex is a bird." and
  "Since every cat is a bird, Tom is a bird." fail unless the givens entail them. A sentence that restates
  a given is entailed, so a step that restates givens is verified. An untranslatable ancestor contributes
  nothing (fewer premises: never a looser check). `first_unentailed` names the first sentence of a failed
  step that does not follow, one check per sentence.
- At proof level `quick` the entailment is Skolemised and grounded to a `propositional` artifact
  (exact; see `grounding`), else the `fol` artifact is kept (the quick checker reports it unsupported).
- Text is read in NFKC form; a sentence the parser refuses (no rule, an ambiguous scope, a word outside ASCII)
  leaves the step without an artifact, so it is unsupported with the reason, never given a guessed formula.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Literal

from reasonforge.errors import ArtifactSyntaxError, ReasonForgeError
from reasonforge.lang.logic import And, FolParser, Formula, to_text
from reasonforge.lang.logic.formulas import conj, negate
from reasonforge.registry import Spec
from reasonforge.translate.english import EnglishParser, NoRule, normalize
from reasonforge.translate.grounding import NotGroundable, ground_entailment, render_propositional
from reasonforge.translate.lexicon import Lexicon
from reasonforge.translate.sentences import sentence_role, split_query, split_sentences
from reasonforge.types import (
    ArtifactLanguage,
    CheckOutcome,
    ProofLevel,
    StepContext,
    StepStatus,
    StepTranslation,
    VerifyRequest,
)

TRANSLATOR_NAME = "rule-based-logic"
TRANSLATOR_VERSION = "2.0"  # 2.0: a step's own sentences are claims, not premises
_MAX_QUOTED = 3  # skipped given sentences quoted in notes; the rest are counted


class ClaimRole(StrEnum):
    """How a sentence takes part in a step's claim (every role is checked; none is assumed)."""

    SUPPORT = "support"  # said on the way: a sentence before "Therefore …", the "A" of "Since A, B"
    CONCLUSION = "conclusion"  # a marked conclusion, or every sentence of a step with no marker
    CLAIMED = "claimed"  # the step's `claimed_conclusion`, where it adds to the content's conclusion


@dataclass(frozen=True)
class ClaimPart:
    """One sentence (or the reason or conclusion of one) that a step asserts, with its formula."""

    text: str
    formula: Formula
    role: ClaimRole


@dataclass(frozen=True)
class StepReading:
    """A step read into formulas, or the reason it could not be read.

    `premises`: the step's supporting claims (sentences before its conclusion, reasons), checked, never assumed;
    `conclusion`: what it concludes; `claims`: both, what dependants may build on; `claim`: their conjunction,
    the formula the step's artifact proves; `parts`: each sentence with its formula, in the step's order."""

    premises: tuple[Formula, ...] = ()
    conclusion: Formula | None = None
    error: str | None = None
    notes: tuple[str, ...] = ()
    parts: tuple[ClaimPart, ...] = ()

    @property
    def claims(self) -> tuple[Formula, ...]:
        """Everything the step asserts: its supporting claims and its conclusion (each checked by its artifact)."""
        return self.premises + ((self.conclusion,) if self.conclusion is not None else ())

    @property
    def claim(self) -> Formula | None:
        """The step's whole claim, the conclusion of its artifact: the conjunction of `claims` (None if unread)."""
        conjuncts = _unique([c for f in self.claims for c in (f.args if isinstance(f, And) else (f,))])
        return conj(conjuncts) if conjuncts else None


@dataclass(frozen=True)
class Givens:
    """The problem's theory: translated sentences, and the ones no rule covers."""

    formulas: tuple[Formula, ...]
    skipped: tuple[str, ...]


@dataclass(frozen=True)
class StepScope:
    """One step as its artifact sees it: what it may use (givens, ancestors' claims) and what it claims."""

    givens: Givens
    inherited: tuple[Formula, ...]
    reading: StepReading

    @property
    def premises(self) -> tuple[Formula, ...]:
        """The artifact's premises: givens, then the ancestors' claims, deduplicated."""
        return tuple(_unique([*self.givens.formulas, *self.inherited]))


class LogicTranslator:
    """Offline controlled-English → FOL translator for logic chains (PrOntoQA, ProofWriter, syllogisms)."""

    def __init__(
        self,
        *,
        either_or: Literal["exclusive", "inclusive"] = "exclusive",
        ground_quick: bool = True,
        max_ground_nodes: int = 50_000,
    ) -> None:
        if either_or not in ("exclusive", "inclusive"):
            raise ReasonForgeError(f"either_or must be 'exclusive' or 'inclusive', not {either_or!r}", field="either_or")
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
        parser = self.parser(texts)
        givens = self.read_givens(request.original_query, parser)
        readings = {
            step.step_id: self.read_step(step.content, step.claimed_conclusion, parser)
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

    def parser(self, texts: Sequence[str]) -> EnglishParser:
        """The parser for a chain whose every text (question, steps, claimed conclusions) is `texts`."""
        return EnglishParser(Lexicon.from_texts([normalize(t) for t in texts]), either_or=self.either_or)

    def read_context(self, context: StepContext) -> StepScope:
        """One step's scope from its context (question, ancestors, own text), read as `translate_chain` reads it.

        The lexicon is built from these texts only (a chain's later steps are not in a context); it decides
        nothing but whether a lone plural-looking word after "are" is a noun, so readings agree but for such a word."""
        texts = [context.original_query]
        for step in context.ancestors:
            texts += [step.content, step.claimed_conclusion or ""]
        texts += [context.content, context.claimed_conclusion or ""]
        parser = self.parser(texts)
        givens = self.read_givens(context.original_query, parser)
        inherited = [f for step in context.ancestors
                     for f in self.read_step(step.content, step.claimed_conclusion, parser).claims]
        return StepScope(givens, tuple(inherited), self.read_step(context.content, context.claimed_conclusion, parser))

    def entailment(
        self, theory: str, statement: str, *, negated: bool = False, level: ProofLevel = ProofLevel.STANDARD
    ) -> StepTranslation:
        """Artifact for "theory ⊢ statement" (or ⊢ ¬statement): how a benchmark reproduces a label."""
        parser = self.parser([theory, statement])
        givens = self.read_givens(theory, parser)
        reading = self.read_step(statement, None, parser)
        if negated and reading.claim is not None:
            negation = negate(reading.claim)
            reading = StepReading((), negation, None, reading.notes, (ClaimPart(statement, negation, ClaimRole.CONCLUSION),))
        return self._artifact(0, statement, [], StepScope(givens, (), reading), level, _CompileCheck())

    def read_givens(self, text: str, parser: EnglishParser) -> Givens:
        """Translate the theory sentences of a problem text, skipping questions and uncovered sentences."""
        formulas: list[Formula] = []
        skipped: list[str] = []
        for sentence in split_query(normalize(text)).theory:
            try:
                formulas.append(parser.parse(sentence))
            except NoRule:
                skipped.append(sentence)
        return Givens(tuple(formulas), tuple(skipped))

    def read_step(self, content: str, claimed: str | None, parser: EnglishParser) -> StepReading:
        """Read a step's sentences into supporting claims and a conclusion (or the reason it cannot be)."""
        sentences = split_sentences(normalize(content))
        if not sentences:
            return StepReading(error="cannot translate an empty step: it states nothing to check")
        # (part, marked): a reason is never marked; an unmarked sentence concludes only in a step with no marker
        read: list[tuple[ClaimPart, bool | None]] = []
        for sentence in sentences:
            try:
                reasons, claim, is_marked = self._read_sentence(sentence, parser)
            except NoRule as exc:
                return StepReading(error=f"cannot translate \"{sentence}\": {exc}")
            read += [(reason, None) for reason in reasons]
            read.append((claim, is_marked))
        any_marked = any(marked for _, marked in read)
        support = [part for part, marked in read if marked is None or (any_marked and not marked)]
        concluded = [ClaimPart(part.text, part.formula, ClaimRole.CONCLUSION)
                     for part, marked in read if marked or (marked is False and not any_marked)]
        notes: list[str] = []
        if claimed and claimed.strip():
            claimed_text = sentence_role(normalize(claimed)).claim
            try:
                claimed_formula = parser.parse(claimed_text)
            except NoRule as exc:
                notes.append(f"claimed_conclusion \"{claimed}\" not translated ({exc}); checked the content only")
            else:
                if claimed_formula not in [p.formula for p in concluded]:
                    concluded.append(ClaimPart(claimed_text, claimed_formula, ClaimRole.CLAIMED))
                    notes.append("claimed_conclusion differs from the content's conclusion; both are checked")
        support_formulas = [p.formula for p in support]
        return StepReading(
            premises=tuple(_unique(support_formulas)),
            conclusion=conj(_unique([p.formula for p in concluded])),
            notes=tuple(notes),
            parts=(*support, *concluded),
        )

    def sentence_translations(self, scope: StepScope, level: ProofLevel = ProofLevel.STANDARD
                              ) -> list[tuple[ClaimPart, StepTranslation]]:
        """One artifact per sentence the step asserts (premises ⊢ that sentence), in the step's order."""
        seen: set[Formula] = set()
        out: list[tuple[ClaimPart, StepTranslation]] = []
        for part in scope.reading.parts:
            if part.formula in seen:
                continue
            seen.add(part.formula)
            reading = StepReading((), part.formula, None, (), (part,))
            out.append((part, self._artifact(0, part.text, [], StepScope(scope.givens, scope.inherited, reading),
                                             level, _CompileCheck())))
        return out

    def first_unentailed(
        self, scope: StepScope, check: Callable[[StepTranslation], CheckOutcome], level: ProofLevel = ProofLevel.STANDARD
    ) -> tuple[ClaimPart, CheckOutcome] | None:
        """The first sentence of the step that `check` does not verify from the givens and the ancestors' claims,
        with its outcome; None when every sentence is verified (so is their conjunction)."""
        for part, translation in self.sentence_translations(scope, level):
            outcome = check(translation)
            if outcome.status is not StepStatus.VERIFIED:
                return part, outcome
        return None

    # ---- helpers -----------------------------------------------------------------------------------
    @staticmethod
    def _read_sentence(sentence: str, parser: EnglishParser) -> tuple[list[ClaimPart], ClaimPart, bool]:
        role = sentence_role(sentence)
        try:
            reasons = [ClaimPart(p, parser.parse(p), ClaimRole.SUPPORT) for p in role.premises]
            return reasons, ClaimPart(role.claim, parser.parse(role.claim), ClaimRole.SUPPORT), role.marked
        except NoRule:
            if not role.premises:
                raise
            # "because"/"so" may be part of a sentence that reads as a whole; else report the split's error
            try:
                return [], ClaimPart(sentence, parser.parse(sentence), ClaimRole.SUPPORT), False
            except NoRule:
                pass
            raise

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
        claim = reading.claim
        if reading.error is not None or claim is None:
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
        if len(reading.parts) > 1:
            quoted = "; ".join(f'"{p.text}"' for p in reading.parts[:_MAX_QUOTED])
            more = " …" if len(reading.parts) > _MAX_QUOTED else ""
            notes.append(f"the step asserts {len(reading.parts)} sentences, all checked (none assumed): {quoted}{more}")
        premises = list(scope.premises)
        language, text = ArtifactLanguage.FOL, _fol_text(premises, claim)
        if level is ProofLevel.QUICK and self.ground_quick:
            try:
                text = _propositional_text(premises, claim, self.max_ground_nodes)
                language = ArtifactLanguage.PROPOSITIONAL
            except NotGroundable as exc:
                notes.append(f"kept the fol artifact: cannot ground to propositional logic ({exc})")
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


def _unique(formulas: Sequence[Formula]) -> list[Formula]:
    return list(dict.fromkeys(formulas))


def _fol_text(premises: Sequence[Formula], conclusion: Formula) -> str:
    return "\n".join([*(to_text(p, explicit=True) for p in premises), "⊢ " + to_text(conclusion, explicit=True)])


def _propositional_text(premises: Sequence[Formula], conclusion: Formula, max_nodes: int) -> str:
    ground_premises, ground_conclusion = ground_entailment(list(premises), conclusion, max_nodes=max_nodes)
    names: dict[str, tuple[str, tuple[str, ...]]] = {}
    lines = [render_propositional(p, names) for p in _unique(ground_premises)]
    return "\n".join([*dict.fromkeys(lines), "⊢ " + render_propositional(ground_conclusion, names)])


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
