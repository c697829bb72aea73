"""Alignment and provenance for fol, propositional and smtlib artifacts: conclusion equivalent to the reader's claim, premises grounded.

For a step its checker verified, the offline reader (lang.english.EnglishReader, its NFKC lexicon over
the question, the ancestors and the step) reads the givens Γ₀ (the question's sentences), each ancestor's
claims and the step's claim S: the conjunction of everything the step asserts, its supporting claims A₁…Aₙ
(sentences before "Therefore …", the A of "Since A, B") and its conclusion K. Γ = Γ₀ ∪ the ancestors' claims
is all the artifact may assume. The artifact is read as formulas (a `propositional` atom `Bird_rex` is the ground atom
`Bird(rex)` of the reading's vocabulary; an `smtlib` script is read back through Z3, see
`verify.logic.smt_to_fol`) and then:

0. *Supporting claims*: unless the artifact proves S itself (its conclusion is the reading, as the offline
   translator writes it), each Aᵢ must be a formula of Γ, an instance of one, or entailed by Γ (Z3, Γ
   consistent); one that is not makes the step failed naming its sentence (unsupported when undecided or Γ
   may be incomplete). The checked Aᵢ join Γ as what the artifact's premises may be.
1. *Vocabulary*: every predicate the artifact uses is one of the reading's, with the same arity (a name the
   reading does not use makes the step unsupported, naming it).
2. *Provenance*: every premise is a formula of Γ (up to bound-variable names), a conjunct of one, a ground
   instance of a universal one, or entailed by Γ (Z3, with Γ consistent); else the step is failed naming it
   (unsupported when the solver cannot decide, or when Γ may be incomplete: a question sentence or an ancestor
   the reader could not read). Constants the reading does not use (an artifact's own witness or "arbitrary
   element", a grounding's Skolem constant) are handled exactly: a premise about them that Γ does not entail
   is a hypothesis, universally generalised with the conclusion (`Whale(w)` … ⊢ `WarmBlooded(w)` proves
   ∀w (Whale(w) → WarmBlooded(w))) or, when Γ entails that such individuals exist, an existential witness.
3. *Alignment*: what the artifact proves from Γ, C* (its conclusion with those hypotheses), must imply K on
   its own (absolutely: a tautology never aligns with a contingent claim, whatever Γ says; with 0., Γ then
   entails all of S), and S must imply C* given Γ (the artifact may not claim more than the step; a `propositional` artifact speaks of the
   individuals it grounds over, so there S is read over them). Undecided is at best unsupported.

Then the outcome records Evidence(kind=CLAIM, aligned_claim=S in FOL text).

A failed outcome is left failed; for the offline translator's own artifact of a step with several sentences,
the message then names the first sentence that does not follow (`LogicTranslator.first_unentailed`). The formaliser is the offline
reader when the artifact's conclusion is the reading itself (up to bound-variable names), as the rule-based
translator writes it; otherwise the artifact's author, with the equivalence checked by Z3.
"""

from __future__ import annotations

import logging
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
    Formula,
    Implies,
    Not,
    Signature,
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
    is_instance,
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
    ProofLevel,
    StepContext,
    StepStatus,
    StepTranslation,
)
from reasonforge.verify.logic.propositional import PropositionalChecker
from reasonforge.verify.logic.script import parse_smtlib_artifact
from reasonforge.verify.logic.smt import FolChecker, fol_status
from reasonforge.verify.logic.smt_to_fol import NotFol, smtlib_formulas

log = logging.getLogger(__name__)

_LISTED = 6  # names or premises quoted in a message before "and N more"
_TEXT = 240  # characters of a formula quoted in a message


@checkers.aligner(ArtifactLanguage.FOL, ArtifactLanguage.SMTLIB, ArtifactLanguage.PROPOSITIONAL)
def align(context: StepContext, translation: StepTranslation, outcome: CheckOutcome, limits: CheckLimits) -> CheckOutcome:
    """The outcome once tied to the step (or downgraded); evidence is recorded on a verified outcome."""
    deadline = _Deadline(time.perf_counter() + limits.timeout_s, limits.memory_mb)
    if outcome.status is StepStatus.FAILED:
        try:
            return _name_failed_sentence(context, translation, outcome, limits, deadline)
        except Exception:  # naming the sentence only explains the verdict: nothing in it may cost the failed verdict
            log.exception("naming the failed sentence of step %s crashed", context.step_id)
            return outcome
    if outcome.status is not StepStatus.VERIFIED:
        return outcome  # only a verified step must be tied to its text; an honest failure stays as it is
    reading = read_context(context)
    if reading.claim is None:
        return outcome.downgraded(StepStatus.UNSUPPORTED, ErrorKind.UNREADABLE_CLAIM,
                         f"the step's claim cannot be read, so no artifact can be tied to it: {reading.error}")
    try:
        vocabulary = signature_of([*reading.theory, reading.claim])
    except ValueError as exc:
        return outcome.downgraded(StepStatus.UNSUPPORTED, ErrorKind.UNREADABLE_CLAIM,
                         f"the reading of the question and the step is inconsistent ({exc})")
    try:
        artifact = _read_artifact(translation, vocabulary)
    except (ArtifactSyntaxError, NotFol, ValueError) as exc:
        message = exc.message if isinstance(exc, ArtifactSyntaxError) else str(exc)
        return outcome.downgraded(StepStatus.UNSUPPORTED, ErrorKind.UNALIGNED,
                         f"the artifact cannot be compared with the step's claim: {message}")
    mismatch = _vocabulary_mismatch(artifact, vocabulary)
    if mismatch is not None:
        return outcome.downgraded(StepStatus.UNSUPPORTED, ErrorKind.UNALIGNED, mismatch)
    return _judge(outcome, reading, artifact, vocabulary, translation.language, deadline)


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
    scope: StepScope | None = None  # the translator's view of the step, for naming the sentence that fails

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
    supports = tuple(part for part in reading.parts if part.role is ClaimRole.SUPPORT) if claim is not None else ()
    return Reading(tuple(givens.formulas), tuple(dict.fromkeys(inherited)), claim, error, tuple(gaps), supports,
                   reading.conclusion if claim is not None else None, StepScope(givens, tuple(inherited), reading))


# ------------------------------------------------------------------------------- naming a failed sentence

def _name_failed_sentence(context: StepContext, translation: StepTranslation, outcome: CheckOutcome,
                          limits: CheckLimits, deadline: _Deadline) -> CheckOutcome:
    """The failed outcome, naming the first sentence that does not follow when the artifact is the offline
    translator's for a step of several sentences (the conjunction failed; the reader wants to know which part)."""
    if translation.language not in (ArtifactLanguage.FOL, ArtifactLanguage.PROPOSITIONAL):
        return outcome
    reading = read_context(context)
    scope = reading.scope
    if scope is None or reading.claim is None or len({p.formula for p in scope.reading.parts}) < 2:
        return outcome
    ground = context.proof_level is ProofLevel.QUICK
    # The translator's artifact for the whole step, rebuilt: only for it is the per-sentence check the explanation.
    if entailment_text(scope.premises, reading.claim, ground=ground)[1] != translation.formal_representation:
        return outcome
    seen: set[Formula] = set()
    for part in scope.reading.parts:
        if part.formula in seen:
            continue
        seen.add(part.formula)
        propositional, text, _ = entailment_text(scope.premises, part.formula, ground=ground)
        left = deadline.at - time.perf_counter()
        if left <= 0:
            return outcome
        checker = PropositionalChecker() if propositional else FolChecker()
        checked = checker.check(text, level=context.proof_level, limits=limits.model_copy(update={"timeout_s": left}))
        if checked.status is StepStatus.FAILED:
            message = (f"{outcome.message}; the first of the step's sentences that does not follow from the givens "
                       f'and the ancestors\' claims is "{_clip(part.text, 160)}"')
            return outcome.model_copy(update={"message": message,
                                              "details": {**outcome.details, "unentailed_sentence": part.text}})
        if checked.status is not StepStatus.VERIFIED:
            return outcome  # one could not be decided: nothing sure to name
    return outcome


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


# -------------------------------------------------------------------------------------------- judging


@dataclass
class _Deadline:
    at: float
    memory_mb: int

    def status(self, formulas: Sequence[Formula]) -> Literal["sat", "unsat", "unknown"]:
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


@dataclass
class _Grounds:
    """Γ and the ways a premise can be grounded in it, cheapest first."""

    theory: tuple[Formula, ...]
    deadline: _Deadline
    exact: set[Formula] = field(default_factory=set)
    patterns: list[tuple[tuple[str, ...], Formula]] = field(default_factory=list)
    consistent: str | None = None

    def __post_init__(self) -> None:
        self._index(self.theory)

    def extend(self, checked: Sequence[Formula]) -> None:
        """Add formulas already shown to follow from Γ (so Γ's consistency, and what it entails, are unchanged)."""
        self.theory = tuple(dict.fromkeys([*self.theory, *checked]))
        self._index(checked)

    def _index(self, formulas: Iterable[Formula]) -> None:
        for gamma in formulas:
            self.exact.update(conjuncts(canonical(gamma)))
            bound, body = universal_prefix(gamma)
            if bound:
                self.patterns.extend((bound, part) for part in conjuncts(body))

    def ground(self, premise: Formula) -> Literal["theory", "entailed", "no", "unknown", "contradictory"]:
        parts = conjuncts(canonical(premise))
        if all(p in self.exact or any(is_instance(p, pattern, set(bound), {}) for bound, pattern in self.patterns)
               for p in parts):
            return "theory"
        if self.consistent is None:
            self.consistent = self.deadline.status(self.theory)
        if self.consistent == "unsat":
            return "contradictory"
        if self.consistent != "sat":
            return "unknown"
        answer = self.deadline.proves(self.theory, premise)
        return {"yes": "entailed"}.get(answer, answer)  # type: ignore[return-value]


def _judge(outcome: CheckOutcome, reading: Reading, artifact: _Artifact, vocabulary: Signature,
           language: ArtifactLanguage, deadline: _Deadline) -> CheckOutcome:
    assert reading.claim is not None
    claim = reading.claim
    grounds = _Grounds(reading.theory, deadline)
    # An artifact that proves the whole claim proves its supporting claims too; else each is checked on its own.
    supports = [] if canonical(artifact.conclusion) == canonical(claim) else _distinct_supports(reading)
    for part in supports:
        verdict = grounds.ground(part.formula)
        if verdict not in ("theory", "entailed"):
            return _unfounded_support(outcome, part, verdict, reading)
    grounds.extend([part.formula for part in supports])
    target = reading.conclusion if supports and reading.conclusion is not None else claim
    known = set(vocabulary.constants)
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
    # Premises about the artifact's own individuals: a group the conclusion does not speak of needs Γ to say that
    # such individuals exist (a witness); a group it speaks of is a hypothesis of the conclusion (the deduction
    # theorem: Whale(w) ⊢ WarmBlooded(w) proves ∀w (Whale(w) → WarmBlooded(w))), or a witness where Γ allows.
    witnesses: list[_Group] = []
    hypotheses: list[_Group] = []
    witnessable: list[_Group] = []
    for members in _components(own, known):
        group = _Group(members, known)
        exists = deadline.proves(reading.theory, close("exists", group.body, group.fresh))
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
        return outcome.downgraded(StepStatus.UNSUPPORTED, ErrorKind.UNALIGNED, aligned[1],
                         aligned_with=_clip(to_text(target)), artifact_proves=_clip(to_text(readings[0])))
    if unfounded:
        return _ungrounded(outcome, unfounded, reading)
    syntactic = aligned is None
    basis = [f"{counts['theory']} premise(s) are givens, ancestors' claims or instances of them"]
    if counts["entailed"]:
        basis.append(f"{counts['entailed']} are entailed by them (Z3)")
    if own:
        basis.append(f"{len(own)} about the artifact's own individuals are read as hypotheses or witnesses")
    if supports:
        basis.append(f"the step's {len(supports)} supporting claim(s) follow from the givens and ancestors' claims")
    reads = "the reading's conclusion" if supports else "the reading"
    how = f"its conclusion is {reads} itself" if syntactic else f"what it proves is equivalent to {reads} (Z3)"
    evidence = Evidence(kind=EvidenceKind.CLAIM, aligned_claim=to_text(claim),
                        formaliser=Formaliser.OFFLINE_READER if syntactic else Formaliser.ARTIFACT,
                        note=f"{how}; " + ", ".join(basis))
    verified = outcome.with_evidence(evidence)
    provenance = {**counts, "own_individuals": len(own), "supporting_claims": len(supports)}
    details = {**verified.details, "provenance": provenance, "artifact_proves": _clip(to_text(proven))}
    return verified.model_copy(update={"details": details})


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


def _distinct_supports(reading: Reading) -> list[ClaimPart]:
    """The step's supporting claims, one per formula, in the step's order."""
    return list({part.formula: part for part in reversed(reading.supports)}.values())[::-1]


def _unfounded_support(outcome: CheckOutcome, part: ClaimPart, verdict: str, reading: Reading) -> CheckOutcome:
    """The step asserts, on the way to its conclusion, a sentence that does not follow: the step is not proven."""
    message = (f'the step\'s supporting claim "{_clip(part.text, 120)}" (read as {_clip(to_text(part.formula), 120)}) '
               "does not follow from the givens and the ancestors' claims")
    status = StepStatus.FAILED
    if verdict == "contradictory":
        message += " (they contradict each other, so entailment from them shows nothing)"
    elif verdict == "no" and reading.gaps:
        message += f" as far as they could be read; but {_names(list(reading.gaps), quote=False)}"
        status = StepStatus.UNSUPPORTED
    elif verdict == "unknown":
        message = (f'cannot decide within the time limit whether the step\'s supporting claim "{_clip(part.text, 120)}" '
                   "follows from the givens and the ancestors' claims")
        status = StepStatus.UNSUPPORTED
    else:
        message += ": a step's own sentences are claims to check, never premises"
    return outcome.downgraded(status, ErrorKind.UNGROUNDED_PREMISE, message, unentailed_sentence=part.text)


def _ungrounded(outcome: CheckOutcome, unfounded: list[tuple[int, Formula, str]], reading: Reading) -> CheckOutcome:
    verdicts = {v for _, _, v in unfounded}
    shown = "; ".join(f"line {line}: {_clip(to_text(p), 120)}" for line, p, _ in unfounded[:_LISTED])
    more = f" and {len(unfounded) - _LISTED} more" if len(unfounded) > _LISTED else ""
    what = "premise" if len(unfounded) == 1 else "premises"
    message = f"the artifact assumes what the question and the step's ancestors do not give: {what} {shown}{more}"
    if "contradictory" in verdicts:
        message += " (the givens and ancestors' claims contradict each other, so entailment from them grounds nothing)"
        status = StepStatus.FAILED
    elif "no" in verdicts and not reading.gaps:
        message += ": neither a given, an ancestor's claim, nor entailed by them"
        status = StepStatus.FAILED
    elif "no" in verdicts:
        # What was not read might be what the premise says: not decided, so not failed.
        message += (": neither a given, an ancestor's claim, nor entailed by them as far as they could be read; "
                    f"but {_names(list(reading.gaps), quote=False)}")
        status = StepStatus.UNSUPPORTED
    else:
        message += " (Z3 could not decide within the time limit whether the givens entail it)"
        status = StepStatus.UNSUPPORTED
    return outcome.downgraded(status, ErrorKind.UNGROUNDED_PREMISE, message,
                     ungrounded_premise_lines=[line for line, _, _ in unfounded])


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
