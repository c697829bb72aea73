"""Controlled English read into formulas: a problem's givens, and each step's sentences with the part each plays in
what the step claims (supporting claims, conclusion), as the offline translator and the logic aligner read them.

Chain semantics (DESIGN §3.1: the reader never guesses):
- Givens: the sentences of the question that a rule covers (question sentences such as "True or false: X." or
  "Are whales warm-blooded?", wherever they stand, are the query, not givens; uncovered sentences are skipped and
  named).
- A step claims everything it asserts. Its sentences introduced by Therefore/So/Hence/Thus/Consequently (or the
  "B" of "Since A, B" / "B because A") form its conclusion; its other sentences and the "A" of "Since A, B" are
  its *supporting claims*, the premises it states (the logic aligner decides which of them the givens give or
  derive, which contradict them and which are assumptions). A step with no marked sentence concludes the
  conjunction of its sentences. `claimed_conclusion`, when it reads as something the step does not already
  conclude, is added to a marked step's conclusion as a conjunct; a step with no marker is read as drawing it
  from its sentences, which are then its supporting claims. `StepReading.inference` records that the step marks
  a conclusion: it claims that the conclusion follows.
- Text is read in NFKC form; a sentence the parser refuses (no rule, an ambiguous scope, a word outside ASCII, a
  question) leaves the step unread with the reason, never given a guessed formula.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Literal

from reasonforge.errors import ReasonForgeError
from reasonforge.lang.english.lexicon import Lexicon
from reasonforge.lang.english.parser import EnglishParser, NoRule, normalize
from reasonforge.lang.english.sentences import sentence_role, split_query, split_sentences
from reasonforge.lang.logic import And, Formula
from reasonforge.lang.logic.formulas import conj

__all__ = ["ClaimPart", "ClaimRole", "EnglishReader", "Givens", "StepReading", "StepScope", "unique"]


class ClaimRole(StrEnum):
    """How a sentence takes part in a step's claim (a conclusion must follow; a supporting claim is a premise the
    step states, given, derived, contradicted or assumed)."""

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

    `premises`: the step's supporting claims (sentences before its conclusion, reasons), the premises it states;
    `conclusion`: what it concludes; `claims`: both, what dependants may build on; `claim`: their conjunction,
    everything the step asserts (its artifact proves `conclusion` from the givens, the ancestors' claims and
    `premises`); `parts`: each sentence with its formula, in the step's order."""

    premises: tuple[Formula, ...] = ()
    conclusion: Formula | None = None
    error: str | None = None
    notes: tuple[str, ...] = ()
    parts: tuple[ClaimPart, ...] = ()
    inference: bool = False  # the step marks a conclusion (Therefore/So/Since …, or a claimed_conclusion)

    @property
    def claims(self) -> tuple[Formula, ...]:
        """Everything the step asserts: its supporting claims and its conclusion (each checked by its artifact)."""
        return self.premises + ((self.conclusion,) if self.conclusion is not None else ())

    @property
    def claim(self) -> Formula | None:
        """The step's whole claim, the conclusion of its artifact: the conjunction of `claims` (None if unread)."""
        conjuncts = unique([c for f in self.claims for c in (f.args if isinstance(f, And) else (f,))])
        return conj(conjuncts) if conjuncts else None


@dataclass(frozen=True)
class Givens:
    """The problem's theory: translated sentences, and the ones no rule covers."""

    formulas: tuple[Formula, ...]
    skipped: tuple[str, ...]


@dataclass(frozen=True)
class StepScope:
    """One step as its artifact sees it: what it may use (givens, ancestors' claims, the premises it states) and
    what it claims."""

    givens: Givens
    inherited: tuple[Formula, ...]
    reading: StepReading

    @property
    def premises(self) -> tuple[Formula, ...]:
        """Γ: the givens, then the ancestors' claims, deduplicated."""
        return tuple(unique([*self.givens.formulas, *self.inherited]))

    @property
    def inference(self) -> tuple[tuple[Formula, ...], Formula | None]:
        """The step's inference, as its artifact states it: (Γ then the supporting claims, deduplicated; the
        conclusion), or (Γ, None) when the step is unread."""
        return tuple(unique([*self.premises, *self.reading.premises])), self.reading.conclusion


class EnglishReader:
    """Reads a chain's texts (question, steps, claimed conclusions) into formulas with one lexicon per chain."""

    def __init__(self, *, either_or: Literal["exclusive", "inclusive"] = "exclusive") -> None:
        if either_or not in ("exclusive", "inclusive"):
            raise ReasonForgeError(f"either_or must be 'exclusive' or 'inclusive', not {either_or!r}", field="either_or")
        self.either_or = either_or

    def parser(self, texts: Sequence[str]) -> EnglishParser:
        """The parser for a chain whose every text (question, steps, claimed conclusions) is `texts`."""
        return EnglishParser(Lexicon.from_texts([normalize(t) for t in texts]), either_or=self.either_or)

    def read_scope(self, question: str, ancestors: Sequence[tuple[str, str | None]], content: str,
                   claimed: str | None) -> StepScope:
        """One step's scope (the givens, its ancestors' claims, its reading) from the question, the ancestors'
        (content, claimed conclusion) in topological order and its own text.

        The lexicon is built from these texts only (a chain's later steps are not in a step's scope); it decides
        nothing but whether a lone plural-looking word after "are" is a noun, so readings agree but for such a word."""
        texts = [question]
        for text, claim in ancestors:
            texts += [text, claim or ""]
        texts += [content, claimed or ""]
        parser = self.parser(texts)
        givens = self.read_givens(question, parser)
        inherited = [f for text, claim in ancestors for f in self.read_step(text, claim, parser).claims]
        return StepScope(givens, tuple(inherited), self.read_step(content, claimed, parser))

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
        notes: list[str] = []
        claimed_part: ClaimPart | None = None
        if claimed and claimed.strip():
            claimed_text = sentence_role(normalize(claimed)).claim
            try:
                claimed_formula = parser.parse(claimed_text)
            except NoRule as exc:
                notes.append(f"claimed_conclusion \"{claimed}\" not translated ({exc}); checked the content only")
            else:
                claimed_part = ClaimPart(claimed_text, claimed_formula, ClaimRole.CLAIMED)
        any_marked = any(marked for _, marked in read)
        stated = [part for part, _ in read]
        if claimed_part is not None and not any_marked and claimed_part.formula not in [p.formula for p in stated]:
            # "A. B." concluding C (its claimed_conclusion): the content is what C is drawn from
            support, concluded = stated, [claimed_part]
            notes.append("claimed_conclusion is drawn from the content's sentences, its supporting claims")
        else:
            support = [part for part, marked in read if marked is None or (any_marked and not marked)]
            concluded = [ClaimPart(part.text, part.formula, ClaimRole.CONCLUSION)
                         for part, marked in read if marked or (marked is False and not any_marked)]
            if claimed_part is not None and claimed_part.formula not in [p.formula for p in concluded]:
                concluded.append(claimed_part)
                notes.append("claimed_conclusion differs from the content's conclusion; both are checked")
        support = [ClaimPart(p.text, p.formula, ClaimRole.SUPPORT) for p in support]
        return StepReading(
            premises=tuple(unique([p.formula for p in support])),
            conclusion=conj(unique([p.formula for p in concluded])),
            notes=tuple(notes),
            parts=(*support, *concluded),
            inference=any_marked or any(p.role is ClaimRole.CLAIMED for p in concluded),
        )

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



def unique(formulas: Sequence[Formula]) -> list[Formula]:
    """`formulas` without repeats, in order."""
    return list(dict.fromkeys(formulas))
