"""`MathTranslator`: the offline translator of mathematics chains into `sympy` artifacts (quick level).

Per step, the artifact (format: `verify/math/relations.py`) holds, in this order:
- givens from `original_query`: its bindings and cases as `let`, its relations (stated with `=`, `<`, ...,
  hypotheses "if 2x + 3 = 7" included: the question's conditions are what it gives) as `fact`, its
  assumptions as `assume` (prose such as "legs 3 and 4" is not read);
- for each ancestor step in topological order: its bindings as `let`, its claims as `fact`, its
  assumptions as `assume` (an ancestor's claims are trusted here: if one is false, its own check fails
  and the cascade invalidates this step). An ancestor's cases ("if x = 2", "for n = 1") held for that
  step only: such a step passes on its bindings, not its claims or assumptions. A given or ancestor
  relation stated in other units than the step states the same names in (`3x = 1 hour`, then
  `3x = 60 minutes`) is restated exactly in the step's units (`fact 3*x = 1*60`) or left out;
- the step's own assumptions (`assume`), bindings and cases (`define`) and claims (`claim`), plus the
  claims of `claimed_conclusion` that the content does not already make;
- `assume v >= 0` for the step's unknowns when the query or the step speaks of a length, distance,
  hypotenuse, side, radius, area, age, "number of" or "how many" (such quantities are nonnegative);
- for a GSM8K answer line `#### N`: `claim <last computed value> = N` (or `100*(…) = N`, an answer in
  percent or cents; `~=` where N is the value rounded to N's written precision), where the last computed
  value is the right side of the last equation the latest ancestor claims (a binding or case computes
  nothing); an answer that matches none of these is left unchecked (see `_answer_claim`).
A step with no claim and no binding gets an empty artifact (→ `unsupported`) whose notes quote it.

Provenance (issue 17): a binding or case of the text (`Let x = 3`, `c = 9`) introduces its name only when
the name is fresh. Otherwise the relation is a claim to check (`claim`, not `define`):
- a given of the question (a name its relations use): "Let y = 5" when the question fixed y = 2 is a claim
  the given refutes (`StepPlan.rebound` names the given), even as a case;
- a name the question asks for ("find c", "solve for x", or a name the text puts after the asked noun:
  "what is the hypotenuse?" … "the hypotenuse c = 9"), see `read_question`;
- a name an ancestor's relations already determine ("Let c = 9" after c² = 3² + 4²).
An explicit hypothetical case ("If b = 0, then …", "for n = 1") of an asked or determined name stays a case:
the step asserts an implication, and cases never reach later steps or the answer. A case with no hypothetical
word (`x = 15`, `x = -1 could be a root`) only names a value: as a claim it is verified when it holds, and the
gate reports it unsupported, never failed, when it does not (`StepPlan.named`). Several values listed for a
name that is not fresh (the roots `x = 2 and x = 3`) stay cases, and the gate leaves the step unsupported
(`StepPlan.alternatives`). A question that gives one name several values ("15 when x = 2 and 3 when x = 5")
describes scenarios: those are not givens.

`plan_step` builds one step's artifact from the question and the ancestors' texts alone, so the soundness
gate (`pipeline/soundness/math.py`) rebuilds exactly what this translator emits and aligns supplied
artifacts with it.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

import sympy

from reasonforge.errors import ArtifactSyntaxError
from reasonforge.lang.math.expr import ExpressionError, Node, evaluate, rounding_tolerance, to_text
from reasonforge.lang.math.text import (
    Relation,
    StepMath,
    extract,
    extract_value,
    restate,
)
from reasonforge.registry import Spec
from reasonforge.types import (
    ArtifactLanguage,
    ReasoningStep,
    StepTranslation,
    VerifyRequest,
)
from reasonforge.verify.math.relations import parse_artifact

__all__ = ["MathTranslator", "Question", "Rebound", "StepPlan", "answer_line", "plan_step", "read_question",
           "read_step"]

TRANSLATOR_NAME = "math-rules"
TRANSLATOR_VERSION = "1.2"
_NONNEGATIVE = re.compile(
    r"\b(lengths?|distances?|hypotenuse|sides?|radius|radii|diameter|perimeter|area|heights?|width|ages?|"
    r"number\s+of|how\s+many)\b",
    re.IGNORECASE,
)
_MAX_QUOTE = 60
_CACHED_READINGS = 2048
_CACHED_QUESTIONS = 64
_CACHED_TEXT = 4096  # characters: a longer text is read again each time, never kept
# what a question asks for: the object of one of these verbs ("find c", "what is the hypotenuse")
_ASK = re.compile(
    r"\b(?:what\s+(?:is|are|was|were|will\s+be)|what's|find|compute|calculate|determine|evaluate|solve\s+for|"
    r"how\s+many|how\s+much|value\s+of)\s+",
    re.IGNORECASE,
)
_LONE_NAME = re.compile(r"(?:\$|\\\(|\\\[)?\s*([A-Za-z])\s*(?:\$|\\\)|\\\])?(?=\s*(?:[?.,;:]|$|=\s*\?|\s(?:if|when|"
                        r"given|such|where|and|in|for|that|so)\b))")
_AND_NAME = re.compile(r"\s*(?:,|and|,\s*and)\s*(?:\$|\\\()?\s*([A-Za-z])\b\s*(?:\$|\\\))?")
_UNKNOWN_MARK = re.compile(r"(?<![A-Za-z])([A-Za-z])\s*=\s*\?")
_WORD = re.compile(r"[A-Za-z]+")
# words of an asked phrase that name no quantity of their own ("the value of", "how many more")
_NOT_NOUNS = frozenset((
    "the", "a", "an", "its", "his", "her", "their", "this", "that", "these", "those", "of", "each", "all", "total",
    "value", "values", "number", "numbers", "more", "many", "much",
))
# words that end an asked phrase ("how many pencils does he have")
_PHRASE_STOPS = frozenset((
    "is", "are", "was", "were", "be", "been", "will", "does", "do", "did", "has", "have", "had", "can", "could",
    "would", "should", "with", "if", "when", "given", "in", "on", "at", "for", "to", "from", "by", "and", "or", "as",
    "than", "then", "so", "such", "that", "which", "who", "whose", "where", "while", "after", "before",
))
_MAX_ASKED_WORDS = 4
# the words that make a case explicitly hypothetical: the step then asserts an implication
_HYPOTHETICAL = re.compile(
    r"\b(?:if|when|whenever|suppose|supposing|assume|assuming|consider|considering|for|case|try|trying|test|"
    r"testing|substitute|substituting|plug|plugging|setting|set|at|with)\b",
    re.IGNORECASE,
)


def _quote(text: str, limit: int = _MAX_QUOTE) -> str:
    text = " ".join(text.split()).replace("#", "")
    return text if len(text) <= limit else text[:limit - 1] + "…"


# ---- reading ---------------------------------------------------------------------------------------------------
def read_step(step: ReasoningStep) -> StepMath:
    """The step's maths as the reader reads it; every relation of claimed_conclusion is a claim (`z = 5` there
    is what the step concludes, not a case), added when the content does not already claim it."""
    if len(step.content) + len(step.claimed_conclusion or "") > _CACHED_TEXT:
        return _read_text(step.content, step.claimed_conclusion)
    return _read(step.content, step.claimed_conclusion)


# The soundness gate re-reads every ancestor of every step, and reads what this translator read: memoised,
# since the reader is a pure function of the text and its results are immutable. Bounded in entries and in the
# length of what is kept, so the memory a server holds stays small whatever texts it is sent.
@functools.lru_cache(maxsize=_CACHED_READINGS)
def _read(content: str, claimed_conclusion: str | None) -> StepMath:
    return _read_text(content, claimed_conclusion)


def _read_text(content: str, claimed_conclusion: str | None) -> StepMath:
    math = extract(content)
    if not claimed_conclusion:
        return math
    extra = extract(claimed_conclusion)
    claimed = {r.text for r in math.claims}
    added = tuple(r for r in extra.relations if r.text not in claimed)
    return replace(math, claims=math.claims + added, notes=math.notes + extra.notes, unread=math.unread + extra.unread)


@dataclass(frozen=True)
class Question:
    """What the question gives (its relations, read as givens) and what it asks for."""

    givens: StepMath = field(default_factory=StepMath)
    asked_names: frozenset[str] = frozenset()  # "find c", "solve for x", "x = ?"
    asked_words: frozenset[str] = frozenset()  # "what is the hypotenuse" → hypotenuse
    nonnegative: bool = False  # it speaks of lengths or counts

    def asked_in(self, text: str) -> frozenset[str]:
        """The names `text` puts right after an asked word ("the hypotenuse c = 9" → c)."""
        if not self.asked_words:
            return frozenset()
        words = "|".join(sorted(re.escape(w) for w in self.asked_words))
        found = set()
        linking = r"(?:\s+(?:is|be|was|equals|will\s+be|is\s+called|we\s+call))?"
        # one way to split each run of blanks, so a long run costs linear time
        for m in re.finditer(rf"\b(?:{words})s?\b{linking}[\s,:]*(?:(?:\$|\\\(|\\\[)\s*)?([A-Za-z])(?![\w'])", text,
                             re.IGNORECASE):
            name, rest = m.group(1), text[m.end():].lstrip()
            if name in "aAI" and re.match(r"[A-Za-z]{2,}", rest):
                continue  # the article "a", the pronoun "I"
            found.add(name)
        return frozenset(found)


def read_question(query: str) -> Question:
    """The question's givens (its relations; its hypotheses and cases are givens too) and what it asks for."""
    return _read_question(query) if len(query) <= _CACHED_TEXT else _question_of(query)


@functools.lru_cache(maxsize=_CACHED_QUESTIONS)
def _read_question(query: str) -> Question:
    return _question_of(query)


def _question_of(query: str) -> Question:
    if not query.strip():
        return Question()
    raw = extract(query)
    # the question's conditions ("if 2x + 3 = 7", "for n = 5") are what it gives, not hypotheses of a step; a
    # name it gives several values ("15 when x = 2 and 3 when x = 5") has scenarios, not a value: no given
    facts = tuple(a.relation for a in raw.assumptions if a.relation is not None and a.relation.op == "=")
    scenarios = {name for name, count in Counter(r.bound_name for r in (*raw.bindings, *raw.cases)).items()
                 if count > 1}
    fixed = tuple(r for r in (*raw.bindings, *raw.cases) if r.bound_name not in scenarios)
    givens = replace(raw, claims=tuple(sorted((*raw.claims, *facts), key=lambda r: r.span)),
                     bindings=tuple(sorted(fixed, key=lambda r: r.span)), cases=(),
                     assumptions=tuple(a for a in raw.assumptions if a.relation is None or a.relation.op != "="))
    names: set[str] = set(_UNKNOWN_MARK.findall(query))
    words: set[str] = set()
    for m in _ASK.finditer(query):
        rest = query[m.end():]
        lone = _LONE_NAME.match(rest)
        if lone:
            names.add(lone.group(1))
            tail = rest[lone.end():]
            while (more := _AND_NAME.match(tail)) is not None:
                names.add(more.group(1))
                tail = tail[more.end():]
            continue
        taken, previous_end = 0, 0
        for word in _WORD.finditer(rest[:200]):
            lower = word.group().lower()
            if taken and re.search(r"[^\w\s'-]", rest[previous_end:word.start()]):
                break  # the asked phrase ends with its clause (or at a number, a formula)
            previous_end = word.end()
            if lower in _PHRASE_STOPS:
                break
            if lower in _NOT_NOUNS or len(lower) < 3:
                continue
            words.add(lower)
            taken += 1
            if taken == _MAX_ASKED_WORDS:
                break
    words.add("answer")
    question = Question(givens=givens, asked_names=frozenset(names), asked_words=frozenset(words),
                        nonnegative=bool(_NONNEGATIVE.search(query)))
    # "what is the length of the third side c?": the question names what it asks for
    return replace(question, asked_names=question.asked_names | question.asked_in(query))


# ---- provenance --------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Rebound:
    """A relation of the step's text that gives a given of the question another value; `asserted` when the text
    binds it ("Let y = 5", "y is 5", "if y = 5"), not when it only names the value (`y = 5` with no verb)."""

    relation: Relation
    given: Relation
    asserted: bool = True


def _hypothetical(math: StepMath) -> bool:
    """Whether a step considers a case, so that its claims hold in that case only."""
    return bool(math.cases) or any(a.relation is not None and a.relation.op == "=" for a in math.assumptions)


def _context_relations(math: StepMath) -> list[tuple[str, Relation]]:
    """(keyword, relation) for what a given or an ancestor contributes: bindings as let, claims as fact. A step
    that considers a case ("if x = 2", "for n = 1", "if K^2 = 1") may claim what holds in that case only, so it
    contributes its bindings alone."""
    out = []
    hypothetical = _hypothetical(math)
    for rel in math.relations:
        if rel in math.bindings:
            out.append(("let", rel))
        elif rel in math.claims and not hypothetical:
            out.append(("fact", rel))
    return out


def _context_lines(math: StepMath, units: Mapping[str, str]) -> list[str]:
    """What a given or an ancestor step contributes (see `_context_relations`). A relation stated in other units
    than the checked step uses for its names (`3x = 1 hour` before `3x = 60 minutes`) is restated in the step's
    units, or left out when that cannot be done exactly (see `restate`)."""
    lines = [] if _hypothetical(math) else [f"assume {a.text}" for a in math.assumptions]
    for keyword, rel in _context_relations(math):
        targets = {units[name] for name in rel.names if name in units}
        if rel.unit is None or not targets or targets == {rel.unit}:
            lines.append(f"{keyword} {rel.text}")
            continue
        restated = restate(rel, targets.pop()) if len(targets) == 1 else None
        if restated is not None:
            lines.append(f"{keyword} {restated.text}  # {rel.text} in {rel.unit}s, here in {restated.unit}s")
    return lines


def _units(math: StepMath) -> dict[str, str]:
    """The unit each name's quantities are stated in by this step's own relations (names given two units
    are left out)."""
    seen: dict[str, set[str]] = {}
    for rel in math.relations:
        if rel.unit:
            for name in rel.names:
                seen.setdefault(name, set()).add(rel.unit)
    return {name: next(iter(units)) for name, units in seen.items() if len(units) == 1}


def _closed_value(node: Node) -> sympy.Expr | None:
    try:
        value = evaluate(node)
    except (ExpressionError, TypeError, ValueError):
        return None
    return None if value.free_symbols else value


def _explicitly_hypothetical(text: str, rel: Relation, breaks: Sequence[int]) -> bool:
    """Whether the prose of the relation's sentence before it makes it a hypothesis ("If b = 0, then …");
    `breaks` are the positions of the text's sentence ends, sorted."""
    start = rel.span[0]
    if not 0 <= start <= len(text):
        return False
    index = bisect.bisect_left(breaks, start)
    lo = breaks[index - 1] + 1 if index else 0
    return _HYPOTHETICAL.search(text, lo, start) is not None


@dataclass(frozen=True)
class _Provenance:
    reading: StepMath
    rebound: tuple[Rebound, ...] = ()
    alternatives: tuple[str, ...] = ()
    named: tuple[Relation, ...] = ()
    bound: tuple[Relation, ...] = ()
    notes: tuple[str, ...] = ()


def _provenance(own: StepMath, text: str, given_values: Mapping[str, Relation], given_names: frozenset[str],
                determined: frozenset[str], asked: frozenset[str]) -> _Provenance:
    """The step's reading once bindings and cases of names that are not fresh are claims (module docstring).

    Values listed for one name (`x = 2` and `x = 1/2`, the roots) are alternatives, not claims that all hold:
    for a name that is not fresh they stay cases, and the plan says which value is taken is not checked (a
    case analysis whose every case is explicit, "if b = 0 …; if b = 1 …", is checked case by case). A case
    with no hypothetical word (`x = -1 could be a root`, `x = 15`) only names a value: made a claim, it is
    verified when it holds, and `named` lets the gate call it unsupported, not failed, when it does not."""
    demoted: list[Relation] = []
    named: list[Relation] = []
    bound: list[Relation] = []
    rebound: list[Rebound] = []
    notes: list[str] = []
    breaks = [i for i, c in enumerate(text) if c in ".;\n?!"]
    explicit = {rel for rel in own.cases if _explicitly_hypothetical(text, rel, breaks)}
    values: dict[str, set[sympy.Expr]] = {}
    for rel in own.cases:
        value = _closed_value(rel.rhs_tree)
        if rel.bound_name and value is not None:  # `X = 11 - 6, X = 5` gives one value twice; `T = M` none
            values.setdefault(rel.bound_name, set()).add(value)
    listed = {name for name, seen in values.items() if len(seen) > 1}
    alternatives: set[str] = set()
    for rel in (*own.bindings, *own.cases):
        name = rel.bound_name
        if name is None:
            continue
        fresh = name not in given_names and name not in asked and name not in determined
        implicit = rel in own.cases and rel not in explicit
        if rel in own.cases and name in listed:
            if not fresh and any(r.bound_name == name and r not in explicit for r in own.cases):
                alternatives.add(name)
            continue
        if name in given_names:
            given = given_values.get(name)
            value, fixed = _closed_value(rel.rhs_tree), given and _closed_value(given.rhs_tree)
            if given is not None and value is not None and fixed is not None and value != fixed:
                rebound.append(Rebound(rel, given, asserted=not implicit))
            why = "a given of the question"
        elif rel in explicit:
            continue  # "If b = 0, then …": an implication over a case
        elif name in asked:
            why = "what the question asks for"
        elif name in determined:
            why = "determined by an earlier step"
        else:
            continue
        demoted.append(rel)
        (named if implicit else bound).append(rel)
        notes.append(f"{name} is {why}: `{rel.text}` is a claim to check, not a binding")
    notes += [f"the values listed for {name} are alternatives; which of them {name} takes is not checked"
              for name in sorted(alternatives)]
    reading = own
    if demoted:
        claims = tuple(sorted((*own.claims, *demoted), key=lambda r: r.span))
        reading = replace(own, claims=claims, bindings=tuple(r for r in own.bindings if r not in demoted),
                          cases=tuple(r for r in own.cases if r not in demoted))
    return _Provenance(reading, tuple(rebound), tuple(sorted(alternatives)), tuple(named), tuple(bound), tuple(notes))


# ---- the plan of one step --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class StepPlan:
    """One step's artifact, and the reading it was built from: what the gate aligns supplied artifacts with."""

    premises: tuple[str, ...]  # givens, ancestors' relations, assumptions (artifact lines, comments included)
    own: tuple[str, ...]  # the step's claim and define lines
    reading: StepMath  # the step's relations after the provenance rules
    asked: frozenset[str] = frozenset()
    rebound: tuple[Rebound, ...] = ()
    alternatives: tuple[str, ...] = ()  # names not fresh whose listed values (`x = 2`, `x = 3`) stay cases
    named: tuple[Relation, ...] = ()  # claims that were cases with no hypothetical word: named, maybe not asserted
    bound: tuple[Relation, ...] = ()  # claims that were bindings the text asserts ("Let c = 9") of names not fresh
    as_bound: str = ""  # the artifact with `bound` as `define` lines again: what the step says under its bindings
    answer: tuple[int, Relation] | None = None  # for an answer line: the ancestor relation it is checked against
    notes: tuple[str, ...] = ()

    @property
    def artifact(self) -> str:
        """The artifact text ("" when the step has nothing to check)."""
        if not any(line.startswith(("claim", "define")) for line in self.own):
            return ""
        return "\n".join((*self.premises, *self.own)) + "\n"


def answer_line(content: str) -> str | None:
    """The answer of a GSM8K answer line (`#### 72` → `72`), else None (string operations, no regex
    backtracking over long blank runs)."""
    stripped = content.strip()
    if not stripped.startswith("####"):
        return None
    answer = stripped[4:].strip()
    return answer if answer and "\n" not in answer and "\r" not in answer else None


def _own_lines(math: StepMath, bound: Sequence[Relation] = ()) -> list[str]:
    lines = []
    for rel in math.relations:
        keyword = "claim" if rel in math.claims and rel not in bound else "define"
        lines.append(f"{keyword} {rel.text}  # \"{_quote(rel.source)}\"")
    return lines


def _last_value(ancestors: Sequence[tuple[ReasoningStep, StepMath]], given_values: Mapping[str, Relation],
                given_names: frozenset[str], asked: frozenset[str]) -> tuple[int, Relation] | None:
    """The last equation the latest ancestor claims, for a final answer line. A claim as that ancestor's own
    plan had it: its bindings and cases of names that were not fresh were claims it checked (`x = 15` after
    10x = 150), a fresh binding or case names a value and computes none. (Each ancestor is taken to follow
    the ones listed before it, exact for a chain whose steps each use the one before.)"""
    determined: frozenset[str] = frozenset()
    latest: tuple[int, Relation] | None = None
    for step, math in ancestors:
        reading = _provenance(math, step.content, given_values, given_names, determined, asked).reading
        equations = [r for r in reading.claims if r.op == "="]
        if equations:
            latest = step.step_id, equations[-1]
        determined |= frozenset().union(*(rel.names for _, rel in _context_relations(math)))
    return latest


def _answer_claim(answer: str, last: tuple[int, Relation] | None) -> tuple[str | None, str]:
    """The claim for a `#### N` answer line, or (None, why not).

    The answer is compared with the last computed value v, as GSM8K writes it: v itself, or v in percent
    or cents (100·v), each exactly (`=`) or rounded to the answer's written precision (`~=`, emitted only when
    v is within half a unit of N's last digit: `15.36` → `#### 15`, never `70` → `#### 71`, so the claim does not
    rest on how generous `~=` is). An answer that matches no reading is not evidence of an error (the answer
    may be a value computed earlier), so the line is left unchecked."""
    value = extract_value(answer)
    if value is None or last is None:
        return None, "it has no value, or the step before it computes none"
    sid, rel = last
    try:
        computed, stated = evaluate(rel.rhs_tree), evaluate(value)
    except ExpressionError as exc:
        return None, exc.message
    if computed.free_symbols:
        return None, f"the last computed value {to_text(rel.rhs_tree)} is not a number"
    source = f"# the final answer against the last computed value (step {sid}: {rel.text})"
    allowance = rounding_tolerance(value) or sympy.Rational(1, 2)
    for shown, scaled, why in ((to_text(rel.rhs_tree), computed, ""),
                               (f"100*({to_text(rel.rhs_tree)})", 100 * computed, ", in percent or cents")):
        if scaled == stated:
            return f"claim {shown} = {to_text(value)}  {source}{why}", ""
        if abs(scaled - stated) <= allowance:
            return f"claim {shown} ~= {to_text(value)}  {source}{why}, rounded", ""
    return None, f"{to_text(value)} is not the last computed value ({rel.text})"


def _nonnegative(own: StepMath, context: Sequence[str]) -> list[str]:
    """`assume v >= 0` for the unknowns of the step's claims (lengths, counts: nonnegative quantities)."""
    bound = {r.bound_name for r in own.bindings}
    bound |= {line.split()[1] for line in context if line.startswith("let ")}
    names = sorted(set().union(*(r.names for r in own.claims)) - bound) if own.claims else []
    return [f"assume {name} >= 0  # a length or count" for name in names if f"assume {name} >= 0" not in context]


def plan_step(step: ReasoningStep, question: Question, ancestors: Sequence[tuple[ReasoningStep, StepMath]],
              own: StepMath | None = None) -> StepPlan:
    """The artifact for `step` from the question and its ancestors with their readings (topological order):
    the one function both this translator and the soundness gate use (module docstring)."""
    raw = own if own is not None else read_step(step)
    givens = question.givens
    given_relations = [rel for _, rel in _context_relations(givens)]
    given_names = frozenset().union(*(rel.names for rel in given_relations))
    given_values = {rel.bound_name: rel for rel in given_relations
                    if rel.bound_name and _closed_value(rel.rhs_tree) is not None}
    determined = frozenset().union(*(rel.names for _, math in ancestors for _, rel in _context_relations(math)))
    texts = [step.content, step.claimed_conclusion or "", *(a.content for a, _ in ancestors)]
    asked = question.asked_names | frozenset().union(*(question.asked_in(t) for t in texts))
    provenance = _provenance(raw, step.content, given_values, given_names, determined, asked)
    reading = provenance.reading
    notes = [*reading.notes, *provenance.notes]
    own_lines = _own_lines(reading)
    answer_of = None
    answer = answer_line(step.content)
    if answer is not None and raw.empty:
        last = _last_value(ancestors, given_values, given_names, asked)
        line, why = _answer_claim(answer, last)
        if line:
            own_lines.append(line)
            answer_of = last
        else:
            notes.append(f"the answer line \"{_quote(step.content)}\" is not checked: {why}")
    premises: list[str] = []
    units = _units(reading)
    if not givens.empty or givens.assumptions:
        premises += ["# givens (from the query)", *_context_lines(givens, units)]
    for ancestor, math in ancestors:
        context = _context_lines(math, units)
        if context:
            premises += [f"# step {ancestor.step_id}", *context]
    premises.append(f"# step {step.step_id} (checked)")
    if question.nonnegative or _NONNEGATIVE.search(step.content):
        premises += _nonnegative(reading, premises)
    premises += [f"assume {a.text}" for a in reading.assumptions]
    as_bound = "\n".join((*premises, *_own_lines(reading, provenance.bound))) + "\n" if provenance.bound else ""
    return StepPlan(premises=tuple(premises), own=tuple(own_lines), reading=reading, asked=asked,
                    rebound=provenance.rebound, alternatives=provenance.alternatives, named=provenance.named,
                    bound=provenance.bound, as_bound=as_bound, answer=answer_of,
                    notes=tuple(notes))


class MathTranslator:
    """Mathematics-domain offline translator (see the module docstring)."""

    def __init__(self) -> None:
        self.spec = Spec(name=TRANSLATOR_NAME, version=TRANSLATOR_VERSION)

    def translate_chain(self, request: VerifyRequest, ancestors: Mapping[int, Sequence[int]]) -> list[StepTranslation]:
        """One `sympy` translation per step, in request order."""
        question = read_question(request.original_query)
        readings = {step.step_id: read_step(step) for step in request.reasoning_chain}
        steps = {step.step_id: step for step in request.reasoning_chain}
        out = []
        for index, step in enumerate(request.reasoning_chain):
            if step.dependencies is not None:
                direct = list(step.dependencies)
            else:
                direct = [request.reasoning_chain[index - 1].step_id] if index else []
            before = [(steps[sid], readings[sid]) for sid in ancestors.get(step.step_id, ())]
            plan = plan_step(step, question, before, readings[step.step_id])
            out.append(self._translation(step, direct, plan))
        return out

    @staticmethod
    def _translation(step: ReasoningStep, direct: list[int], plan: StepPlan) -> StepTranslation:
        notes = list(plan.notes)
        artifact = plan.artifact
        if not artifact:
            reason = f"no checkable relation in \"{_quote(step.content, 160)}\""
            return StepTranslation(step_id=step.step_id, original_content=step.content, formal_representation="",
                                   language=ArtifactLanguage.SYMPY, dependencies=direct, translation_confidence=0.0,
                                   notes="; ".join([reason, *notes]))
        try:
            parse_artifact(artifact)
            compiles = True
        except ArtifactSyntaxError as exc:
            compiles = False
            notes.append(f"the artifact does not parse ({exc.message}): a translator bug")
        return StepTranslation(step_id=step.step_id, original_content=step.content, formal_representation=artifact,
                               language=ArtifactLanguage.SYMPY, dependencies=direct,
                               translation_confidence=1.0 if not notes else 0.5, compilation_check=compiles,
                               notes="; ".join(notes) or None)
