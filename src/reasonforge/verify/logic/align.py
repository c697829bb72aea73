"""The logic family's aligner: a step's outcome decided by what the reader reads the step to say, and a verified
artifact tied to it (conclusion equivalent to the reader's, premises given, derived or the step's own).

The offline reader (lang.english.EnglishReader, its NFKC lexicon over the question, the ancestors and the step)
reads the givens Γ₀ (the question's sentences; its questions are never givens), each ancestor's claims, and the
step: its supporting claims A₁…Aₙ (sentences before "Therefore …", the A of "Since A, B": the premises it
states) and its conclusion K. Γ = Γ₀ ∪ the ancestors' claims. Then, with Z3 (`_Judge`):

1. *The premises.* Γ₀ contradicting itself is a defect of the question: nothing is verified from it, the step is
   `unsupported` (VACUOUS). Γ contradicting itself (the ancestors' claims against the givens or each other), an
   Aᵢ that Γ contradicts (CONTRADICTED_PREMISE, naming its sentence) and Aᵢ that contradict each other given Γ
   (VACUOUS) are refutations: `failed`. An Aᵢ that Γ gives or entails is *derived*; one that it neither entails
   nor contradicts is an *assumption* (but while part of Γ is unread, what is unread may contradict it: then
   `unsupported`). Undecided within the time limit: `unsupported`.
2. *The conclusion* (asked when the artifact failed or is refused). K following from Γ ∪ A: the inference holds.
   K contradicted by Γ ∪ A: refuted. K not following: a step that *claims an inference* (it marks a conclusion —
   Therefore, So, Since, because, a claimed_conclusion beyond its text — or builds on earlier steps, its
   dependencies, by default the previous step) is refuted, the fallacy named where `fallacies` names it; a step
   that claims none (the first step, or one with `dependencies: []`, stating sentences with no marker) states
   premises: an assumption, `unsupported` (ASSUMED_CONCLUSION), never refuted. A refutation also needs the
   reading to be sure: when Γ may be incomplete (a question sentence or an ancestor the reader could not read),
   or when K would follow under a reading the reader did not choose but English allows (a compound noun phrase
   "warm-blooded mammal" read as entailing "warm-blooded" and "mammal", "the cat" as the individual Cat, "either
   … or" as inclusive), the step is `unsupported`, not refuted.
3. *Circularity.* An inference whose conclusion (a conjunct of it that Γ alone does not give) follows from one
   assumed premise (a conjunct of one) alone assumes what it concludes: it proves nothing, `unsupported`
   (ASSUMED_CONCLUSION). Several assumptions that together give K are a valid inference from them, reported as
   such (conditional evidence says exactly that K holds if they do).

A *failed* outcome stands only when the reading refutes the step (1 or 2): an artifact that fails while the
reading holds is not the step's inference (`unsupported`, UNALIGNED), and one whose step cannot be read is
`unsupported`. A *verified* outcome is tied to the step when (the artifact read as formulas: a `propositional`
atom `Bird_rex` is the ground atom `Bird(rex)` of the reading's vocabulary, an `smtlib` script is read back
through Z3, see `verify.logic.smt_to_fol`):

- *vocabulary*: every predicate the artifact uses is the reading's, with its arity (else `unsupported`);
- *provenance*: every premise is a formula of Γ ∪ A (up to bound-variable names), a conjunct or a ground instance
  of one, or entailed by it; premises about constants the reading does not use (an artifact's own witness or
  "arbitrary element", a grounding's Skolem constant) are hypotheses, universally generalised with the
  conclusion (`Whale(w)` … ⊢ `WarmBlooded(w)` proves ∀w (Whale(w) → WarmBlooded(w))), or existential witnesses
  where Γ ∪ A entails that such individuals exist;
- *alignment*: what the artifact proves, C* (its conclusion with those hypotheses), implies K on its own (a
  tautology never aligns with a contingent claim), and the step's whole claim implies C* given Γ.

An artifact refused on provenance or alignment is `failed` when the reading refutes the step (2) and
`unsupported` otherwise: an invented premise is not a refutation of what the step says. A tied outcome records
Evidence(kind=CLAIM) when every Aᵢ is derived, else Evidence(kind=CONDITIONAL) with the assumed sentences as its
`assumptions` (after the circularity check), and `aligned_claim` = the step's whole claim in FOL text. The
formaliser is the offline reader when the artifact's conclusion is the reading itself (up to bound-variable
names), as the rule-based translator writes it; otherwise the artifact's author, the equivalence checked by Z3.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import combinations, pairwise
from typing import Literal

from reasonforge.errors import ArtifactSyntaxError
from reasonforge.lang.english import ClaimPart, ClaimRole, EnglishReader, StepScope
from reasonforge.lang.logic import (
    Atom,
    Const,
    Eq,
    Formula,
    Implies,
    Not,
    Or,
    Signature,
    Var,
    Xor,
    parse_fol_artifact,
    signature_of,
    to_text,
)
from reasonforge.lang.logic.artifacts import entailment_text
from reasonforge.lang.logic.formulas import (
    canonical,
    close,
    conj,
    conjuncts,
    constants,
    domain_closure,
    forall,
    is_instance,
    negate,
    rebuild,
    universal_prefix,
)
from reasonforge.registry import checkers
from reasonforge.types import (
    ArtifactLanguage,
    CheckLimits,
    CheckOutcome,
    ErrorKind,
    Evidence,
    EvidenceKind,
    Formaliser,
    StepContext,
    StepStatus,
    StepTranslation,
)
from reasonforge.verify.logic.fallacies import name_fallacy
from reasonforge.verify.logic.script import parse_smtlib_artifact
from reasonforge.verify.logic.smt import fol_status
from reasonforge.verify.logic.smt_to_fol import NotFol, smtlib_formulas

_LISTED = 6  # names or premises quoted in a message before "and N more"
_TEXT = 240  # characters of a formula quoted in a message


@checkers.aligner(ArtifactLanguage.FOL, ArtifactLanguage.SMTLIB, ArtifactLanguage.PROPOSITIONAL)
def align(context: StepContext, translation: StepTranslation, outcome: CheckOutcome, limits: CheckLimits) -> CheckOutcome:
    """The outcome once the reader has judged the step and tied the artifact to it (see the module docstring)."""
    if outcome.status not in (StepStatus.VERIFIED, StepStatus.FAILED):
        return outcome  # an error or an unsupported outcome claims nothing about the step
    deadline = _Deadline(time.perf_counter() + limits.timeout_s, limits.memory_mb)
    reading = read_context(context)
    if reading.claim is None:
        return outcome.downgraded(StepStatus.UNSUPPORTED, ErrorKind.UNREADABLE_CLAIM,
                                  f"the step's claim cannot be read, so no artifact can be tied to it and nothing "
                                  f"refutes it: {reading.error}")
    try:
        vocabulary = signature_of([*reading.theory, reading.claim])
    except ValueError as exc:
        return outcome.downgraded(StepStatus.UNSUPPORTED, ErrorKind.UNREADABLE_CLAIM,
                                  f"the reading of the question and the step is inconsistent ({exc})")
    judge = _Judge(reading, vocabulary, deadline)
    if outcome.status is StepStatus.FAILED:
        return _settle_failure(outcome, judge)
    # A verified artifact whose premises are all of Γ and the step's premises (the translator's own) was checked
    # consistent by its checker (premises satisfiable first): the reader need not ask Z3 again.
    premises = judge.premises(consistent=_states_everything(translation, reading))
    if isinstance(premises, _Finding):
        return premises.applied(outcome)
    try:
        artifact = _read_artifact(translation, vocabulary)
    except (ArtifactSyntaxError, NotFol, ValueError) as exc:
        message = exc.message if isinstance(exc, ArtifactSyntaxError) else str(exc)
        return _refused(outcome, judge, ErrorKind.UNALIGNED,
                        f"the artifact cannot be compared with the step's claim: {message}")
    mismatch = _vocabulary_mismatch(artifact, vocabulary)
    if mismatch is not None:
        return _refused(outcome, judge, ErrorKind.UNALIGNED, mismatch)
    return _tie(outcome, judge, premises, artifact, translation.language)


# ------------------------------------------------------------------------------------------- reading


@dataclass(frozen=True)
class Reading:
    """What the offline reader makes of a step's context: the givens, the ancestors' claims, the step's claim."""

    givens: tuple[Formula, ...]
    ancestor_claims: tuple[Formula, ...]
    claim: Formula | None  # the conjunction of everything the step asserts; None when it cannot be read
    error: str | None = None
    gaps: tuple[str, ...] = ()  # why Γ may miss something an artifact could rightly assume
    supports: tuple[ClaimPart, ...] = ()  # the step's supporting claims, each with its sentence
    conclusion: Formula | None = None  # what the step concludes (the claim less its supporting claims)
    scope: StepScope | None = None  # the translator's view of the step
    inference: bool = False  # the step claims that its conclusion follows (a marker, or earlier steps it builds on)
    concluded: tuple[ClaimPart, ...] = ()  # the sentences of its conclusion

    @property
    def theory(self) -> tuple[Formula, ...]:
        """Γ: every formula a premise may be (or be entailed by)."""
        return tuple(dict.fromkeys([*self.givens, *self.ancestor_claims]))


def read_context(context: StepContext) -> Reading:
    """Read the givens, the ancestors' claims and the step's claim as the offline translator does (one NFKC lexicon
    over the same texts), noting what could not be read."""
    texts = [context.original_query]
    for step in context.ancestors:
        texts += [step.content, step.claimed_conclusion or ""]
    texts += [context.content, context.claimed_conclusion or ""]
    reader = EnglishReader()
    parser = reader.parser(texts)
    givens = reader.read_givens(context.original_query, parser)
    gaps = [f'the question sentence "{_clip(s, 80)}" is not read' for s in givens.skipped]
    inherited: list[Formula] = []
    for step in context.ancestors:
        ancestor = reader.read_step(step.content, step.claimed_conclusion, parser)
        if ancestor.error is not None:
            gaps.append(f"step {step.step_id} cannot be read ({ancestor.error})")
        inherited += ancestor.claims
    reading = reader.read_step(context.content, context.claimed_conclusion, parser)
    error = reading.error
    if error is None and context.claimed_conclusion and context.claimed_conclusion.strip():
        # The claimed conclusion is part of the claim; when it cannot be read, the claim is not known.
        claimed = reader.read_step(context.claimed_conclusion, None, parser)
        if claimed.error is not None:
            error = f"its claimed_conclusion cannot be read ({claimed.error})"
    claim = reading.claim if error is None else None
    if error is None and claim is None:
        error = "the reader found nothing the step asserts"
    read = claim is not None
    supports = tuple(part for part in reading.parts if part.role is ClaimRole.SUPPORT) if read else ()
    concluded = tuple(part for part in reading.parts if part.role is not ClaimRole.SUPPORT) if read else ()
    return Reading(tuple(givens.formulas), tuple(dict.fromkeys(inherited)), claim, error, tuple(gaps), supports,
                   reading.conclusion if read else None, StepScope(givens, tuple(inherited), reading),
                   reading.inference or bool(context.ancestors), concluded)


# ------------------------------------------------------------------------------------------- the judge


@dataclass
class _Deadline:
    at: float
    memory_mb: int

    def status(self, formulas: Sequence[Formula]) -> Literal["sat", "unsat", "unknown"]:
        if not formulas:
            return "sat"
        left = self.at - time.perf_counter()
        if left <= 0:
            return "unknown"
        try:
            return fol_status(formulas, timeout_s=left, memory_mb=self.memory_mb)
        except ValueError:
            return "unknown"

    def proves(self, premises: Sequence[Formula], goal: Formula) -> Literal["yes", "no", "unknown"]:
        answer = self.status([*premises, Not(goal)])
        return {"unsat": "yes", "sat": "no"}.get(answer, "unknown")  # type: ignore[return-value]


@dataclass(frozen=True)
class _Finding:
    """The reader's verdict on a step where it settles the step whatever the artifact: a refutation (`failed`) or a
    reason nothing can be verified (`unsupported`)."""

    status: StepStatus
    kind: ErrorKind
    message: str
    sentence: str | None = None  # the step's sentence it names

    @property
    def refutes(self) -> bool:
        return self.status is StepStatus.FAILED

    def applied(self, outcome: CheckOutcome, artifact_note: str | None = None) -> CheckOutcome:
        """`outcome` turned into this finding (the checker's status and message kept as diagnostics)."""
        message = self.message if artifact_note is None else f"{self.message}; {artifact_note}"
        extra = {"sentence": self.sentence} if self.sentence is not None else {}
        if outcome.message:
            extra["checker_message"] = outcome.message
        return outcome.downgraded(self.status, self.kind, message, **extra)


@dataclass(frozen=True)
class _Premises:
    """The step's supporting claims, each derived (given or entailed by Γ) or assumed; Γ ∪ A is consistent."""

    derived: tuple[ClaimPart, ...]
    assumed: tuple[ClaimPart, ...]

    @property
    def formulas(self) -> list[Formula]:
        return [p.formula for p in (*self.derived, *self.assumed)]


class _Judge:
    """The reader's own judgement of a step (Z3 on its reading), asked in stages as the outcome needs them."""

    def __init__(self, reading: Reading, vocabulary: Signature, deadline: _Deadline) -> None:
        assert reading.claim is not None and reading.conclusion is not None
        self.reading = reading
        self.vocabulary = vocabulary
        self.deadline = deadline
        self.claim: Formula = reading.claim
        self.conclusion: Formula = reading.conclusion

    # ---- 1. the premises
    def premises(self, *, consistent: bool = False) -> _Premises | _Finding:
        """The supporting claims classified, or the finding that settles the step before its conclusion matters.
        `consistent`: Γ ∪ A is known to be consistent (then no premise is contradicted)."""
        reading, deadline = self.reading, self.deadline
        theory = "sat" if consistent else deadline.status(reading.theory)
        if theory == "unsat":
            givens = deadline.status(reading.givens) if reading.ancestor_claims else "unsat"
            if givens == "unsat":
                return _Finding(StepStatus.UNSUPPORTED, ErrorKind.VACUOUS,
                                "the question's givens contradict each other, so nothing can be verified from them "
                                "(a defect of the question, not a refutation of the step)")
            if givens == "sat":
                return _Finding(StepStatus.FAILED, ErrorKind.VACUOUS,
                                "the claims of the steps it builds on contradict the givens or each other, so the "
                                "step proves nothing from them")
        if theory != "sat":
            return self._undecided("whether the givens and the ancestors' claims are consistent")
        grounds = _Grounds(reading.theory, deadline)
        derived: list[ClaimPart] = []
        assumed: list[ClaimPart] = []
        for part in _distinct(reading.supports):
            verdict = grounds.ground(part.formula)
            if verdict in ("theory", "entailed"):
                derived.append(part)
                continue
            contradicted = "no" if consistent and verdict == "no" else \
                deadline.proves(reading.theory, negate(part.formula)) if verdict == "no" else "unknown"
            if contradicted == "yes":
                return _Finding(StepStatus.FAILED, ErrorKind.CONTRADICTED_PREMISE,
                                f'the step\'s premise "{_clip(part.text, 120)}" (read as '
                                f"{_clip(to_text(part.formula), 120)}) is contradicted by the givens and the "
                                "ancestors' claims", part.text)
            if contradicted != "no":
                return self._undecided(f'whether the step\'s premise "{_clip(part.text, 120)}" follows from or '
                                       "contradicts the givens and the ancestors' claims")
            assumed.append(part)
        if assumed and not consistent:
            joint = deadline.status([*reading.theory, *(p.formula for p in assumed)])
            if joint == "unsat":
                quoted = _names([p.text for p in assumed], quote=True)
                return _Finding(StepStatus.FAILED, ErrorKind.VACUOUS,
                                f"the step's premises {quoted} contradict each other (with the givens and the "
                                "ancestors' claims), so the step proves nothing from them")
            if joint != "sat":
                return self._undecided("whether the step's premises are consistent with the givens")
        if assumed and reading.gaps:
            # an assumption is a premise nothing contradicts: with part of Γ unread, that is not known
            return _Finding(StepStatus.UNSUPPORTED, ErrorKind.UNGROUNDED_PREMISE,
                            f'the step\'s premise "{_clip(assumed[0].text, 120)}" is neither given nor derived as far '
                            f"as the question could be read; but {_names(list(reading.gaps), quote=False)}, so "
                            "whether it is an assumption or contradicted is not known", assumed[0].text)
        return _Premises(tuple(derived), tuple(assumed))

    # ---- 2. the conclusion
    def conclusion_follows(self) -> _Finding | None:
        """None when K follows from Γ ∪ A; else the finding: refuted, assumed or undecided. (A model of Γ ∪ A ∪ {¬K}
        shows Γ ∪ A consistent, so no premise is contradicted and the finding is the conclusion's.)"""
        reading, deadline = self.reading, self.deadline
        base = [*reading.theory, *(p.formula for p in _distinct(reading.supports))]
        follows = deadline.proves(base, self.conclusion)
        if follows == "yes":
            return None
        if follows != "no":
            return self._undecided("whether the step's conclusion follows from its premises")
        granting = "the givens, the ancestors' claims and the step's own premises" if reading.supports else \
            "the givens and the ancestors' claims"
        sentence = self._first_unfollowed(base)
        quoted = f'"{_clip(sentence, 160)}"' if sentence else _clip(to_text(self.conclusion))
        contradicted = deadline.proves(base, negate(self.conclusion))
        if contradicted == "yes":
            return _Finding(StepStatus.FAILED, ErrorKind.COUNTEREXAMPLE,
                            f"the step's conclusion {quoted} contradicts {granting}", sentence)
        if not reading.inference:
            return _Finding(StepStatus.UNSUPPORTED, ErrorKind.ASSUMED_CONCLUSION,
                            f"the step states {quoted}, which {granting} neither give, derive nor contradict: an "
                            "assumption, not a derivation (reported, not refuted)", sentence)
        if reading.gaps:
            return _Finding(StepStatus.UNSUPPORTED, ErrorKind.COUNTEREXAMPLE,
                            f"the step's conclusion {quoted} does not follow from {granting} as far as they could "
                            f"be read; but {_names(list(reading.gaps), quote=False)}", sentence)
        other = self._other_reading(base)
        if other is not None:
            return _Finding(StepStatus.UNSUPPORTED, ErrorKind.AMBIGUOUS,
                            f"the step's conclusion {quoted} does not follow from {granting} as read, but it would "
                            f"if {other}: the reading is not sure enough to refute it", sentence)
        fallacy = name_fallacy(base, self.conclusion)
        named = f" ({fallacy.value.replace('_', ' ')})" if fallacy else ""
        marked = reading.scope is not None and reading.scope.reading.inference
        hint = "" if marked else ("; it builds on earlier steps, so it claims to follow from them (a step that only "
                                  "states a premise names no dependencies: `dependencies: []`)")
        return _Finding(StepStatus.FAILED, fallacy or ErrorKind.COUNTEREXAMPLE,
                        f"the step's conclusion {quoted} does not follow from {granting}, even granting them all"
                        f"{named}{hint}", sentence)

    def _first_unfollowed(self, base: list[Formula]) -> str | None:
        """The first sentence of the conclusion that does not follow (None when it is the only one)."""
        parts = _distinct(self.reading.concluded)
        if len(parts) < 2:
            return parts[0].text if parts else None
        for part in parts:
            if self.deadline.proves(base, part.formula) != "yes":
                return part.text
        return None

    def _other_reading(self, base: list[Formula]) -> str | None:
        """What English allows that the reading did not choose and under which K would follow, or None."""
        postulates, said = _alternative_postulates(self.vocabulary)
        inclusive = [_inclusive(f) for f in base]
        goal = _inclusive(self.conclusion)
        if goal != self.conclusion or inclusive != base:
            said.append("'either … or' is read as inclusive")
        if not said:
            return None
        for premises in dict.fromkeys([tuple(base), tuple(inclusive)]):
            if self.deadline.proves([*premises, *postulates], goal) == "yes":
                return " or ".join(said[:_LISTED])
        return None

    # ---- 3. circularity
    def circular(self, premises: _Premises) -> _Finding | None:
        """The finding when one assumed premise alone gives a conjunct of the conclusion Γ does not give."""
        if not premises.assumed:
            return None
        theory = [*self.reading.theory, *(p.formula for p in premises.derived)]
        singles = [(part, p) for part in premises.assumed for p in conjuncts(part.formula)]
        for goal in conjuncts(self.conclusion):
            if self.deadline.proves(theory, goal) == "yes":
                continue  # derived without any assumption
            for part, single in singles:
                if self.deadline.proves([single], goal) == "yes":
                    return _Finding(StepStatus.UNSUPPORTED, ErrorKind.ASSUMED_CONCLUSION,
                                    f'the step\'s conclusion {_clip(to_text(goal), 120)} follows from its own premise '
                                    f'"{_clip(part.text, 120)}" alone, which nothing gives: it assumes what it '
                                    "concludes, so it proves nothing", part.text)
        return None

    def _undecided(self, what: str) -> _Finding:
        return _Finding(StepStatus.UNSUPPORTED, ErrorKind.TIMEOUT, f"cannot decide within the time limit {what}")


def _states_everything(translation: StepTranslation, reading: Reading) -> bool:
    """Is the artifact the translator's own for this reading (its premises Γ and the step's premises)?"""
    if reading.scope is None or translation.language not in (ArtifactLanguage.FOL, ArtifactLanguage.PROPOSITIONAL):
        return False
    premises, conclusion = reading.scope.inference
    if conclusion is None:
        return False
    grounded = translation.language is ArtifactLanguage.PROPOSITIONAL
    try:
        return entailment_text(premises, conclusion, ground=grounded)[1] == translation.formal_representation
    except ValueError:
        return False


def _distinct(parts: Sequence[ClaimPart]) -> list[ClaimPart]:
    """`parts`, one per formula, in the step's order."""
    return list({part.formula: part for part in reversed(parts)}.values())[::-1]


_CAMEL = re.compile(r"[A-Z][a-z]*|[0-9]+|[a-z]+")


def _alternative_postulates(vocabulary: Signature) -> tuple[list[Formula], list[str]]:
    """Meaning postulates of readings English allows and the reader does not choose, with what each says: a
    compound noun phrase's predicate (WarmBloodedMammal) entails the reading's predicates it is made of
    (WarmBlooded, Mammal) and they entail it; a definite description ("the cat", `the_cat`) names the individual of
    that name (`cat`). They are only ever used to refuse a refutation, never to verify."""
    unary = [p for p, arity in vocabulary.predicates.items() if arity == 1]
    words = {p: _CAMEL.findall(p) for p in unary}
    x = Var("x")
    postulates: list[Formula] = []
    said: list[str] = []
    for compound in unary:
        parts = words[compound]
        for part in unary:
            size = len(words[part])
            if part != compound and size < len(parts) and words[part] in (parts[:size], parts[-size:]):
                postulates.append(forall("x", Implies(Atom(compound, (x,)), Atom(part, (x,)))))
                said.append(f"a {compound} is a {part}")
        for cut in range(1, len(parts)):
            left, right = "".join(parts[:cut]), "".join(parts[cut:])
            if left in unary and right in unary:
                postulates.append(forall("x", Implies(conj([Atom(left, (x,)), Atom(right, (x,))]),
                                                      Atom(compound, (x,)))))
    names = set(vocabulary.constants)
    for name in vocabulary.constants:
        if name.startswith("the_") and name[4:] in names:
            postulates.append(Eq(Const(name), Const(name[4:])))
            said.append(f"the {name[4:].replace('_', ' ')} is the individual named {name[4:]}")
    return postulates, said


def _inclusive(formula: Formula) -> Formula:
    """`formula` with every exclusive "either … or" read as inclusive."""
    if isinstance(formula, Xor):
        return Or(tuple(_inclusive(a) for a in formula.args))
    return rebuild(formula, _inclusive)


# ------------------------------------------------------------------------------------------ artifact


@dataclass(frozen=True)
class _Artifact:
    premises: list[Formula]
    lines: list[int]
    conclusion: Formula
    universe: tuple[str, ...] = ()  # a propositional artifact: the individuals its atoms speak of


def _read_artifact(translation: StepTranslation, vocabulary: Signature) -> _Artifact:
    text = translation.formal_representation
    if translation.language is ArtifactLanguage.SMTLIB:
        read = smtlib_formulas(parse_smtlib_artifact(text))
        return _Artifact(read.premises, read.premise_lines, read.conclusion)
    propositional = translation.language is ArtifactLanguage.PROPOSITIONAL
    parsed = parse_fol_artifact(text, propositional=propositional)
    if not propositional:
        return _Artifact(parsed.premises, parsed.premise_lines, parsed.conclusion)
    lifter = _Lifter(vocabulary)
    premises = [lifter.lift(p) for p in parsed.premises]
    conclusion = lifter.lift(parsed.conclusion)
    return _Artifact(premises, parsed.premise_lines, conclusion, tuple(dict.fromkeys(lifter.seen)))


class _Lifter:
    """Propositional atoms back to ground atoms of the reading: `Bird_rex` → Bird(rex), as `grounding` names them.

    Predicate names have no `_` (the reader's are CamelCase), so the name's first part is the predicate and the
    rest its arguments; an argument the reading does not name is one of the artifact's own individuals (a
    Skolem constant such as `sk1`). A name that fits no predicate, or fits in two ways, is refused."""

    def __init__(self, vocabulary: Signature) -> None:
        self.predicates = vocabulary.predicates
        self.constants = set(vocabulary.constants)
        self.seen: list[str] = []
        self.memo: dict[str, Atom] = {}

    def lift(self, formula: Formula) -> Formula:
        if isinstance(formula, Atom):
            return self.atom(formula.pred)
        return rebuild(formula, self.lift)

    def atom(self, name: str) -> Atom:
        if name not in self.memo:
            self.memo[name] = self._atom(name)
            self.seen.extend(t.name for t in self.memo[name].args)
        return self.memo[name]

    def _atom(self, name: str) -> Atom:
        pred, *parts = name.split("_")
        arity = self.predicates.get(pred)
        if arity is None:
            raise NotFol(f"the atom {name!r} names no predicate of the step's reading (it uses "
                         f"{_names(sorted(self.predicates))})")
        if arity == 0:
            if parts:
                raise NotFol(f"the atom {name!r} gives arguments to {pred}, which takes none in the reading")
            return Atom(pred)
        if len(parts) < arity or not all(parts):
            raise NotFol(f"the atom {name!r} does not give {pred} its {arity} argument(s)")
        fits: list[tuple[str, ...]] = []
        for cuts in combinations(range(1, len(parts)), arity - 1):
            bounds = (0, *cuts, len(parts))
            args = tuple("_".join(parts[a:b]) for a, b in pairwise(bounds))
            fits.append(args)
        known = [a for a in fits if all(x in self.constants for x in a)]
        # An argument the reading does not name must be one word: `Likes_bob_sk1`, never a guess at a split.
        plain = [a for a in fits if all(x in self.constants or "_" not in x for x in a)]
        chosen = known if known else plain
        if len(chosen) != 1:
            why = "fits no split into" if not chosen else "splits in more than one way into"
            raise NotFol(f"the atom {name!r} {why} {pred} and {arity} individual(s) of the reading")
        return Atom(pred, tuple(Const(x) for x in chosen[0]))


def _vocabulary_mismatch(artifact: _Artifact, vocabulary: Signature) -> str | None:
    try:
        used = signature_of([*artifact.premises, artifact.conclusion])
    except ValueError as exc:
        return f"the artifact uses a name inconsistently ({exc})"
    missing = [f"{p}/{a}" for p, a in used.predicates.items() if p not in vocabulary.predicates]
    arity = [f"{p}/{a} (the reading's {p} takes {vocabulary.predicates[p]})" for p, a in used.predicates.items()
             if p in vocabulary.predicates and vocabulary.predicates[p] != a]
    as_constant = [c for c in used.constants if c in vocabulary.predicates]
    problems = []
    if missing:
        problems.append(f"the predicate(s) {_names(missing)} are not in the reading")
    if arity:
        problems.append(f"{_names(arity)} have another arity")
    if as_constant:
        problems.append(f"{_names(as_constant)} are predicates in the reading but individuals in the artifact")
    if not problems:
        return None
    reading_names = _names([f"{p}/{a}" for p, a in vocabulary.predicates.items()])
    individuals = f" and individuals {_names(vocabulary.constants)}" if vocabulary.constants else ""
    return (f"the artifact's vocabulary does not match the step's reading: {'; '.join(problems)} (the reading "
            f"uses {reading_names}{individuals}); write the artifact in the reading's names")


# -------------------------------------------------------------------------------------------- settling


def _settle_failure(outcome: CheckOutcome, judge: _Judge) -> CheckOutcome:
    """A failed outcome stands only when the reading refutes the step."""
    finding = judge.conclusion_follows()
    if finding is None:  # K follows from Γ ∪ A: unless they are inconsistent, the artifact is not the inference
        premises = judge.premises()
        finding = premises if isinstance(premises, _Finding) else None
    if finding is not None:
        checker = outcome.message or ""
        example = checker.partition("; e.g. ")[2]
        note = f"the checker's counterexample: {example}" if example else (f"the checker: {checker}" if checker else None)
        return finding.applied(outcome, note)
    return outcome.downgraded(StepStatus.UNSUPPORTED, ErrorKind.UNALIGNED,
                              "the artifact fails, but the step's conclusion follows from the givens, the ancestors' "
                              "claims and the premises it states (as read): the artifact is not the step's inference, "
                              f"so its failure refutes nothing (the checker: {outcome.message})")


def _refused(outcome: CheckOutcome, judge: _Judge, kind: ErrorKind, why: str, **diagnostics: object) -> CheckOutcome:
    """A verified artifact that cannot be tied to the step: refuted when the reading refutes the step, else
    unsupported for `why` (an artifact that is not the step refutes nothing)."""
    finding = judge.conclusion_follows()
    if finding is not None and finding.refutes:
        return finding.applied(outcome, f"and the artifact is not the step's: {why}")
    return outcome.downgraded(StepStatus.UNSUPPORTED, kind, why, **diagnostics)


@dataclass
class _Grounds:
    """What a premise may be (Γ and the step's premises, consistent) and the ways to ground one, cheapest first."""

    theory: tuple[Formula, ...]
    deadline: _Deadline
    exact: set[Formula] = field(default_factory=set)
    patterns: list[tuple[tuple[str, ...], Formula]] = field(default_factory=list)

    def __post_init__(self) -> None:
        for gamma in self.theory:
            self.exact.update(conjuncts(canonical(gamma)))
            bound, body = universal_prefix(gamma)
            if bound:
                self.patterns.extend((bound, part) for part in conjuncts(body))

    def ground(self, premise: Formula) -> Literal["theory", "entailed", "no", "unknown"]:
        parts = conjuncts(canonical(premise))
        if all(p in self.exact or any(is_instance(p, pattern, set(bound), {}) for bound, pattern in self.patterns)
               for p in parts):
            return "theory"
        answer = self.deadline.proves(self.theory, premise)
        return {"yes": "entailed"}.get(answer, answer)  # type: ignore[return-value]


def _tie(outcome: CheckOutcome, judge: _Judge, premises: _Premises, artifact: _Artifact,
         language: ArtifactLanguage) -> CheckOutcome:
    """Tie a verified artifact to the step: provenance and alignment, then the evidence it rests on."""
    reading, deadline = judge.reading, judge.deadline
    claim = judge.claim
    grounds = _Grounds(tuple(dict.fromkeys([*reading.theory, *premises.formulas])), deadline)
    target = judge.conclusion if reading.supports else claim
    known = set(judge.vocabulary.constants)
    in_conclusion = {c for c in constants(artifact.conclusion) if c not in known}
    counts = {"theory": 0, "entailed": 0}
    unfounded: list[tuple[int, Formula, str]] = []
    own: list[tuple[int, Formula]] = []  # not entailed, but about individuals of the artifact's own
    for line, premise in zip(artifact.lines, artifact.premises):
        verdict = grounds.ground(premise)
        if verdict in counts:
            counts[verdict] += 1
        elif verdict == "no" and any(c not in known for c in constants(premise)):
            own.append((line, premise))
        else:
            unfounded.append((line, premise, verdict))
    # Premises about the artifact's own individuals: a group the conclusion does not speak of needs Γ ∪ A to say
    # that such individuals exist (a witness); a group it speaks of is a hypothesis of the conclusion (the deduction
    # theorem: Whale(w) ⊢ WarmBlooded(w) proves ∀w (Whale(w) → WarmBlooded(w))), or a witness where Γ ∪ A allows.
    witnesses: list[_Group] = []
    hypotheses: list[_Group] = []
    witnessable: list[_Group] = []
    for members in _components(own, known):
        group = _Group(members, known)
        exists = deadline.proves(grounds.theory, close("exists", group.body, group.fresh))
        if not in_conclusion.intersection(group.fresh):
            if exists == "yes":
                witnesses.append(group)
            else:
                unfounded += [(line, p, exists) for line, p in members]
            continue
        hypotheses.append(group)
        if exists == "yes":
            witnessable.append(group)
    readings = [_proven(artifact.conclusion, witnesses, hypotheses, in_conclusion)]
    if witnessable:
        rest = [g for g in hypotheses if g not in witnessable]
        readings.append(_proven(artifact.conclusion, witnesses + witnessable, rest, in_conclusion))
    aligned: tuple[str, str] | None = ("unaligned", "")
    proven = readings[0]
    for candidate in readings:
        result = _alignment(candidate, claim, target, reading, artifact, language, deadline)
        if result is None or result[0] == "ok":
            aligned, proven = result, candidate
            break
        if candidate is readings[0]:
            aligned = result
    if aligned is not None and aligned[0] != "ok":
        return _refused(outcome, judge, ErrorKind.UNALIGNED, aligned[1],
                        aligned_with=_clip(to_text(target)), artifact_proves=_clip(to_text(readings[0])))
    if unfounded:
        return _ungrounded(outcome, judge, unfounded)
    circular = judge.circular(premises)
    if circular is not None:
        return circular.applied(outcome)
    syntactic = aligned is None
    basis = [f"{counts['theory']} premise(s) are givens, ancestors' claims, the step's premises or instances of them"]
    if counts["entailed"]:
        basis.append(f"{counts['entailed']} are entailed by them (Z3)")
    if own:
        basis.append(f"{len(own)} about the artifact's own individuals are read as hypotheses or witnesses")
    if premises.derived:
        basis.append(f"the step's {len(premises.derived)} derived premise(s) follow from the givens and ancestors' "
                     "claims")
    reads = "the reading's conclusion" if reading.supports else "the reading"
    how = f"its conclusion is {reads} itself" if syntactic else f"what it proves is equivalent to {reads} (Z3)"
    note = f"{how}; " + ", ".join(basis)
    kind = EvidenceKind.CLAIM
    if premises.assumed:
        kind = EvidenceKind.CONDITIONAL
        note += ("; an inference from premises the step states that nothing gives, derives or contradicts: "
                 + "; ".join(f'"{_clip(p.text, 120)}" ({_clip(to_text(p.formula), 120)})' for p in premises.assumed))
    evidence = Evidence(kind=kind, aligned_claim=to_text(claim),
                        formaliser=Formaliser.OFFLINE_READER if syntactic else Formaliser.ARTIFACT,
                        assumptions=[p.text for p in premises.assumed], note=note)
    verified = outcome.with_evidence(evidence)
    provenance = {**counts, "own_individuals": len(own), "derived_premises": len(premises.derived),
                  "assumed_premises": len(premises.assumed)}
    details = {**verified.details, "provenance": provenance, "artifact_proves": _clip(to_text(proven))}
    return verified.model_copy(update={"details": details})


def _ungrounded(outcome: CheckOutcome, judge: _Judge, unfounded: list[tuple[int, Formula, str]]) -> CheckOutcome:
    shown = "; ".join(f"line {line}: {_clip(to_text(p), 120)}" for line, p, _ in unfounded[:_LISTED])
    more = f" and {len(unfounded) - _LISTED} more" if len(unfounded) > _LISTED else ""
    what = "premise" if len(unfounded) == 1 else "premises"
    message = (f"the artifact assumes what neither the question, the step's ancestors nor the step itself states: "
               f"{what} {shown}{more}")
    if any(v == "unknown" for _, _, v in unfounded):
        message += " (Z3 could not decide within the time limit whether they entail it)"
    elif judge.reading.gaps:
        message += (": not entailed by them as far as they could be read; but "
                    f"{_names(list(judge.reading.gaps), quote=False)}")
    return _refused(outcome, judge, ErrorKind.UNGROUNDED_PREMISE, message,
                    ungrounded_premise_lines=[line for line, _, _ in unfounded])


@dataclass
class _Group:
    """Premises linked by the artifact's own individuals (constants the reading does not use)."""

    members: list[tuple[int, Formula]]
    known: set[str]

    @property
    def fresh(self) -> list[str]:
        return sorted({c for _, p in self.members for c in constants(p) if c not in self.known})

    @property
    def body(self) -> Formula:
        return conj([p for _, p in self.members])


def _alignment(proven: Formula, claim: Formula, target: Formula, reading: Reading, artifact: _Artifact,
               language: ArtifactLanguage, deadline: _Deadline) -> tuple[str, str] | None:
    """None when the conclusion is the claim (or, its supporting claims checked, the conclusion) itself; ("ok", "")
    when Z3 shows that it implies `target` and that the claim implies it given Γ; else why not."""
    if canonical(proven) in (canonical(claim), canonical(target)):
        return None
    what = "concludes" if target is not claim else "claims"
    both = f"the step {what} {_clip(to_text(target))} (as read), the artifact proves {_clip(to_text(proven))}"
    forward = deadline.proves([proven], target)
    if forward == "no":
        return "unaligned", (f"the artifact's conclusion does not state what the step claims: {both}; what it "
                             "proves does not imply the claim")
    backward = deadline.proves([*reading.theory, claim], proven)
    if backward == "no" and language is ArtifactLanguage.PROPOSITIONAL:
        # A grounded artifact speaks of the individuals it names: read the claim over them alone.
        closure = domain_closure(artifact.universe or tuple(constants(claim)))
        if closure is not None:
            backward = deadline.proves([*reading.theory, claim, closure], proven)
    if backward == "no":
        return "unaligned", (f"the artifact's conclusion does not state what the step claims: {both}; it claims "
                             "more than the step does")
    if "unknown" in (forward, backward):
        return "undecided", (f"cannot decide within the time limit whether the artifact's conclusion states what "
                             f"the step claims: {both}")
    return "ok", ""


def _components(premises: list[tuple[int, Formula]], known: set[str]) -> list[list[tuple[int, Formula]]]:
    """Group premises that share an individual the reading does not name."""
    groups: list[tuple[set[str], list[tuple[int, Formula]]]] = []
    for line, premise in premises:
        fresh = {c for c in constants(premise) if c not in known}
        joined = [g for g in groups if g[0] & fresh]
        names, members = set(fresh), [(line, premise)]
        for g in joined:
            names |= g[0]
            members = g[1] + members
            groups.remove(g)
        groups.append((names, sorted(members)))
    return [members for _, members in groups]


def _proven(conclusion: Formula, witnesses: list[_Group], hypotheses: list[_Group], in_conclusion: set[str]) -> Formula:
    """C*: what the artifact proves from Γ, its conclusion with the hypotheses and witnesses it rests on."""
    body = conclusion
    if hypotheses:
        body = Implies(conj([g.body for g in hypotheses]), body)
    witnessed = {c for g in witnesses for c in g.fresh}
    universal = sorted((in_conclusion | {c for g in hypotheses for c in g.fresh}) - witnessed)
    body = close("forall", body, universal)
    for group in reversed(witnesses):
        body = close("exists", conj([group.body, body]), group.fresh)
    return body


def _names(items: Iterable[str], *, quote: bool = True) -> str:
    items = list(items)
    shown = [repr(i) if quote else i for i in items[:_LISTED]]
    more = f" and {len(items) - _LISTED} more" if len(items) > _LISTED else ""
    return ", ".join(shown) + more


def _clip(text: str, limit: int = _TEXT) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
