"""`LogicTranslator`: the offline rule-based translator of logic chains into `fol`/`propositional` artifacts.

Chain semantics (DESIGN §3.1):
- Givens: the sentences of `original_query` that a rule covers (question sentences such as "True or
  false: X." are the query, not givens; uncovered sentences are skipped and named in the notes).
- A step's sentences introduced by Therefore/So/Hence/Thus/Consequently (or the "B" of "Since A, B" /
  "B because A") form its conclusion; its other sentences are local premises. A step with no marked
  sentence claims the conjunction of its sentences.
- `claimed_conclusion`, when it translates to something the step does not already conclude, is added
  to the conclusion as a conjunct: it can only make the check stricter, never looser.
- A step's artifact: givens, then the claims (local premises and conclusion) of its ancestors in
  topological order, then its own local premises, deduplicated; then `⊢ conclusion`. A step that
  restates a given is therefore verified. An untranslatable ancestor contributes nothing.
- At proof level `quick` the entailment is Skolemised and grounded to a `propositional` artifact
  (exact; see `grounding`), else the `fol` artifact is kept (the quick checker reports it unsupported).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from reasonforge.errors import ArtifactSyntaxError, ReasonForgeError
from reasonforge.lang.logic import FolParser, Formula, to_text
from reasonforge.lang.logic.formulas import conj, negate
from reasonforge.registry import Spec
from reasonforge.translate.english import EnglishParser, NoRule
from reasonforge.translate.grounding import NotGroundable, ground_entailment, render_propositional
from reasonforge.translate.lexicon import Lexicon
from reasonforge.translate.sentences import sentence_role, split_query, split_sentences
from reasonforge.types import ArtifactLanguage, ProofLevel, StepTranslation, VerifyRequest

TRANSLATOR_NAME = "rule-based-logic"
TRANSLATOR_VERSION = "1.0"
_MAX_QUOTED = 3  # skipped given sentences quoted in notes; the rest are counted


@dataclass(frozen=True)
class StepReading:
    """A step read into formulas: local premises and conclusion, or the reason it could not be read."""

    premises: tuple[Formula, ...] = ()
    conclusion: Formula | None = None
    error: str | None = None
    notes: tuple[str, ...] = ()

    @property
    def claims(self) -> tuple[Formula, ...]:
        """What the step asserts for its dependants: its local premises and its conclusion."""
        return self.premises + ((self.conclusion,) if self.conclusion is not None else ())


@dataclass(frozen=True)
class Givens:
    """The problem's theory: translated sentences, and the ones no rule covers."""

    formulas: tuple[Formula, ...]
    skipped: tuple[str, ...]


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
        parser = EnglishParser(Lexicon.from_texts(texts), either_or=self.either_or)
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
            reading = readings[step.step_id]
            inherited = [f for a in ancestors.get(step.step_id, ()) if a in readings for f in readings[a].claims]
            translations.append(
                self._artifact(
                    step.step_id, step.content, direct, reading, givens, inherited, request.proof_level, compile_check
                )
            )
        return translations

    def entailment(
        self, theory: str, statement: str, *, negated: bool = False, level: ProofLevel = ProofLevel.STANDARD
    ) -> StepTranslation:
        """Artifact for "theory ⊢ statement" (or ⊢ ¬statement): how a benchmark reproduces a label."""
        parser = EnglishParser(Lexicon.from_texts([theory, statement]), either_or=self.either_or)
        givens = self.read_givens(theory, parser)
        reading = self.read_step(statement, None, parser)
        if negated and reading.conclusion is not None:
            reading = StepReading(reading.premises, negate(reading.conclusion), None, reading.notes)
        return self._artifact(0, statement, [], reading, givens, [], level, _CompileCheck())

    def read_givens(self, text: str, parser: EnglishParser) -> Givens:
        """Translate the theory sentences of a problem text, skipping questions and uncovered sentences."""
        formulas: list[Formula] = []
        skipped: list[str] = []
        for sentence in split_query(text).theory:
            try:
                formulas.append(parser.parse(sentence))
            except NoRule:
                skipped.append(sentence)
        return Givens(tuple(formulas), tuple(skipped))

    def read_step(self, content: str, claimed: str | None, parser: EnglishParser) -> StepReading:
        """Read a step's sentences into local premises and a conclusion (or the reason it cannot be)."""
        premises: list[Formula] = []
        marked: list[Formula] = []
        unmarked: list[Formula] = []
        sentences = split_sentences(content)
        if not sentences:
            return StepReading(error="cannot translate an empty step: it states nothing to check")
        for sentence in sentences:
            try:
                role_premises, claim, is_marked = self._read_sentence(sentence, parser)
            except NoRule as exc:
                return StepReading(error=f"cannot translate \"{sentence}\": {exc}")
            premises += role_premises
            (marked if is_marked else unmarked).append(claim)
        if marked:
            premises += unmarked
            conclusion_parts = marked
        else:
            conclusion_parts = unmarked
        notes: list[str] = []
        if claimed and claimed.strip():
            try:
                claimed_formula = parser.parse(sentence_role(claimed).claim)
            except NoRule as exc:
                notes.append(f"claimed_conclusion \"{claimed}\" not translated ({exc}); checked the content only")
            else:
                if claimed_formula not in conclusion_parts:
                    conclusion_parts = [*conclusion_parts, claimed_formula]
                    notes.append("claimed_conclusion differs from the content's conclusion; both are checked")
        return StepReading(tuple(_unique(premises)), conj(_unique(conclusion_parts)), None, tuple(notes))

    # ---- helpers -----------------------------------------------------------------------------------
    @staticmethod
    def _read_sentence(sentence: str, parser: EnglishParser) -> tuple[list[Formula], Formula, bool]:
        role = sentence_role(sentence)
        try:
            return [parser.parse(p) for p in role.premises], parser.parse(role.claim), role.marked
        except NoRule:
            if not role.premises:
                raise
            # "because"/"so" may be part of a sentence that reads as a whole; else report the split's error
            try:
                return [], parser.parse(sentence), False
            except NoRule:
                pass
            raise

    def _artifact(
        self,
        step_id: int,
        content: str,
        direct: list[int],
        reading: StepReading,
        givens: Givens,
        inherited: list[Formula],
        level: ProofLevel,
        compile_check: _CompileCheck,
    ) -> StepTranslation:
        notes = list(reading.notes)
        if givens.skipped:
            quoted = "; ".join(f'"{s}"' for s in givens.skipped[:_MAX_QUOTED])
            more = f" and {len(givens.skipped) - _MAX_QUOTED} more" if len(givens.skipped) > _MAX_QUOTED else ""
            notes.append(f"skipped {len(givens.skipped)} query sentence(s) no rule covers: {quoted}{more}")
        if reading.error is not None or reading.conclusion is None:
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
        premises = _unique([*givens.formulas, *inherited, *reading.premises])
        language, text = ArtifactLanguage.FOL, _fol_text(premises, reading.conclusion)
        if level is ProofLevel.QUICK and self.ground_quick:
            try:
                text = _propositional_text(premises, reading.conclusion, self.max_ground_nodes)
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
