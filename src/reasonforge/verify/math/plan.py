"""The plan of a mathematics step: the `sympy` artifact the offline translator writes for it, built from the
question's and the ancestors' texts alone (`plan_step`), so the sympy aligner (`align.py`) rebuilds exactly what the
translator emits and aligns supplied artifacts with it.

Per step, the artifact (format: `relations.py`) holds, in this order:
- givens from `original_query`: its bindings and cases as `let`, its relations (stated with `=`, `<`, ...,
  hypotheses "if 2x + 3 = 7" included: the question's conditions are what it gives) as `fact`, its
  assumptions as `assume` (prose such as "legs 3 and 4" is not read);
- for each ancestor step in topological order: its bindings as `let`, its claims as `fact`, its
  assumptions as `assume` (an ancestor's claims are trusted here: if one is false, its own check fails
  and the cascade invalidates this step). An ancestor's cases ("if x = 2", "for n = 1") held for that
  step only, and so did what it bound and claimed in them: such a step passes on nothing. A given or ancestor
  relation stated in other units than the step states the same names in (`3x = 1 hour`, then
  `3x = 60 minutes`) is restated exactly in the step's units (`fact 3*x = 1*60`) or left out;
- the step's own assumptions (`assume`), bindings and cases (`define`) and claims (`claim`), plus the
  claims of `claimed_conclusion` that the content does not already make;
- `assume v >= 0` for the step's unknowns when the query or the step speaks of a length, distance,
  hypotenuse, side, radius, area, age, "number of" or "how many" (such quantities are nonnegative);
- for a GSM8K answer line `#### N`: `claim <last computed value> = N` (or `100*(…) = N`, an answer in
  percent or cents; `~=` where N is the value rounded to N's written precision), where the last computed
  value is the right side of the last equation the latest ancestor claims (a binding or case computes
  nothing); an answer that matches none of these is left unchecked (see `_answer_claim`). A sentence that only
  states the boxed answer ("Therefore, the combined number of marbles is \\boxed{336}.", `lang.math.reading.answer_line`)
  is one too, held to more: N exactly, in the unit the last value was computed in, and said of no one the
  question tells of but does not ask about.
A step with no claim and no binding gets an empty artifact (→ `unsupported`) whose notes quote it.

Provenance (issue 17): a binding or case of the text (`Let x = 3`, `c = 9`) introduces its name only when
the name is fresh. Otherwise the relation is a claim to check (`claim`, not `define`):
- a given of the question (a name its relations use): "Let y = 5" when the question fixed y = 2 is a claim
  the given refutes (`StepPlan.rebound` names the given); as a case or a supposition ("If y = 5, …",
  "Suppose y = 5") it is a value the step supposes (`Rebound.hypothesis`), which the gate neither refutes nor
  verifies;
- a name the question asks for ("find c", "solve for x", or a name the text puts after the asked noun:
  "what is the hypotenuse?" … "the hypotenuse c = 9"), see `read_question`;
- a name an ancestor's relations already determine ("Let c = 9" after c² = 3² + 4²).
An explicit hypothetical case ("If b = 0, then …", "for n = 1") of an asked or determined name stays a case:
the step asserts an implication, and cases never reach later steps or the answer. A case with no hypothetical
word (`x = 15`, `x = -1 could be a root`) only names a value: as a claim it is verified when it holds, and the
gate reports it unsupported, never failed, when it does not (`StepPlan.named`). Several values listed for a
name that is not fresh (the roots `x = 2 and x = 3`) stay cases, and the gate leaves the step unsupported
(`StepPlan.alternatives`). A question that gives one name several values in cases ("15 when x = 2 and 3 when
x = 5") describes scenarios: those are not givens; one that binds a name to two values ("Let x = 3. Let x = 4.")
contradicts itself (`Question.conflicts`, see `lang.math.reading`).
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

import sympy

from reasonforge.lang.math import (
    ExpressionError,
    Node,
    Relation,
    StepMath,
    Undefined,
    Unread,
    UnreadReason,
    evaluate,
    extract_value,
    restate,
    to_text,
)
from reasonforge.lang.math.reading import (
    Question,
    answer_line,
    answer_units,
    declared_functions,
    proper_names,
    read_text,
    speaks_of_nonnegatives,
    uses_function,
)
from reasonforge.types import ReasoningStep

__all__ = ["Rebound", "StepPlan", "case_openers", "case_openings", "closed_value", "plan_step", "read_step"]

_MAX_QUOTE = 60
# the words that make a case explicitly hypothetical: the step then asserts an implication
_HYPOTHETICAL = re.compile(
    r"\b(?:if|when|whenever|suppose|supposing|assume|assuming|consider|considering|for|case|try|trying|test|"
    r"testing|substitute|substituting|plug|plugging|setting|set|at|with|choose|choosing|pick|picking|imagine|"
    r"imagining)\b",
    re.IGNORECASE,
)


# an order relation as a test of lhs − rhs
_ORDER: dict[str, Callable[[sympy.Expr], bool]] = {
    "<": lambda gap: bool(gap < 0), ">": lambda gap: bool(gap > 0), "<=": lambda gap: bool(gap <= 0),
    ">=": lambda gap: bool(gap >= 0), "!=": lambda gap: bool(gap != 0),
}


def _quote(text: str, limit: int = _MAX_QUOTE) -> str:
    text = " ".join(text.split()).replace("#", "")
    return text if len(text) <= limit else text[:limit - 1] + "…"


def read_step(step: ReasoningStep) -> StepMath:
    """The step's maths as the reader reads it (`lang.math.reading.read_text` of its content and claimed
    conclusion)."""
    return read_text(step.content, step.claimed_conclusion)


# ---- provenance --------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Rebound:
    """A relation of the step's text that gives a given of the question another value; `asserted` when the text
    binds it ("Let y = 5", "y is 5"), not when it only names the value (`y = 5` with no verb) or supposes it
    (`hypothesis`: "if y = 5", "suppose y = 5")."""

    relation: Relation
    given: Relation
    asserted: bool = True
    # "If x = 5 then …", "Suppose x = 5": the step reasons under a value the givens exclude; what it derives
    # there is an implication this plan cannot check (the given would refute it, vacuously true as it is)
    hypothesis: bool = False


def _hypothetical(math: StepMath) -> bool:
    """Whether a step considers a case, so that its claims hold in that case only."""
    return bool(math.cases) or any(a.relation is not None and a.relation.op == "=" for a in math.assumptions)


def _context_relations(math: StepMath) -> list[tuple[str, Relation]]:
    """(keyword, relation) for what a given or an ancestor contributes: bindings as let, claims as fact. A step
    that considers a case ("if x = 2", "for n = 1", "try d = 1", "Case k = 0") claims and binds what holds in that
    case only (`K = 2009` for d = 1; b = 50 for b − a = 1), so it contributes nothing to the steps after it."""
    if _hypothetical(math):
        return []
    math = _alternatives(math)  # the values it lists for one expression are alternatives, not facts
    out = []
    for rel in math.relations:
        if rel in math.bindings:
            out.append(("let", rel))
        elif rel in math.claims:
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


def closed_value(node: Node) -> sympy.Expr | None:
    """The value of an expression with no unknowns, else None."""
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
    renamed: tuple[Relation, ...] = ()


def _bound_again(own: StepMath, explicit: set[Relation], kept: set[str] | frozenset[str]) -> StepMath:
    """`Write y = (x + 3)^2. … y = x^2 + 9`: a name the step introduces and gives a value a second time, not as a
    hypothesis, is claimed to have that value too, a claim to check against the first. `kept`: names left to
    the rules below (listed values, which are cases; names the question or earlier steps speak of)."""
    seen: set[str] = set()
    again: list[Relation] = []
    for rel in sorted((*own.bindings, *own.cases), key=lambda r: r.span):
        if rel.bound_name in seen and rel not in explicit and rel.bound_name not in kept:
            again.append(rel)
        elif rel.bound_name:
            seen.add(rel.bound_name)
    if not again:
        return own
    return replace(own, bindings=tuple(r for r in own.bindings if r not in again),
                   cases=tuple(r for r in own.cases if r not in again),
                   claims=tuple(sorted((*own.claims, *again), key=lambda r: r.span)))


def _listed_as_cases(own: StepMath, listed: set[str]) -> StepMath:
    """Bindings and claims of a closed value to a name the step lists several values for are cases, one value
    each, like the step's other values of it (never a binding that the next steps inherit, never a claim that
    all of them hold)."""
    def listing(rel: Relation) -> bool:
        return rel.bound_name in listed and closed_value(rel.rhs_tree) is not None

    moved = [r for r in (*own.bindings, *own.claims) if listing(r)]
    if not moved:
        return own
    return replace(own, bindings=tuple(r for r in own.bindings if r not in moved),
                   claims=tuple(r for r in own.claims if r not in moved),
                   cases=tuple(sorted((*own.cases, *moved), key=lambda r: r.span)))


def _conditions_per_value(own: StepMath, listed: Mapping[str, set[sympy.Expr]]) -> StepMath:
    """Claims in one listed name that hold at some of its listed values and not at others (`k + 1 = 0 ⇒ k = −1`,
    `k + 9 = 0 ⇒ k = −9`: the factors of a product that is 0) are the conditions of one value each, like the
    values themselves, never claims that all hold at once: not asserted, so unread (never refuted, and the step
    is not verified without them)."""
    moved = []
    for rel in own.claims:
        names = rel.names
        if rel.op != "=" and names & listed.keys() and not _holds_at_each(rel, listed):
            # an order in the name after its values (`(x - a)(x - b)/(x - 1) < 0` after the roots a and b) speaks
            # of the name in general, as a sign chart does, not at the values listed for it
            moved.append(rel)
            continue
        if rel.op != "=" or len(names) != 1 or (name := next(iter(names))) not in listed:
            continue
        holds: set[bool] = set()
        for value in listed[name]:
            try:
                gap = sympy.simplify(evaluate(rel.lhs_tree, {name: value}) - evaluate(rel.rhs_tree, {name: value}))
            except Undefined:
                # undefined at a listed value (`1/((n+1)(n+4)) = …` after "setting n = -1 … setting n = -4"):
                # the claim speaks of the name in general, not at that value
                holds = {True, False}
                break
            except (ExpressionError, TypeError, ValueError):
                holds = set()
                break
            if gap.free_symbols or not gap.is_number:
                holds = set()
                break
            holds.add(gap == 0)
        if holds == {True, False}:
            moved.append(rel)
    return _not_asserted(own, moved, lambda r: f"it does not hold at every value listed for {next(iter(r.names))}: "
                                               "one value's condition, or a claim about any value")


def _holds_at_each(rel: Relation, listed: Mapping[str, set[sympy.Expr]]) -> bool:
    """Whether a relation holds, exactly, at every value listed for each listed name in it."""
    names = rel.names & listed.keys()
    if len(names) != 1 or rel.op not in _ORDER:
        return False
    name = next(iter(names))
    for value in listed[name]:
        try:
            gap = sympy.simplify(evaluate(rel.lhs_tree, {name: value}) - evaluate(rel.rhs_tree, {name: value}))
        except (ExpressionError, TypeError, ValueError):
            return False
        if gap.free_symbols or not gap.is_number or not gap.is_real or not _ORDER[rel.op](gap):
            return False
    return True


def _listed_expressions(own: StepMath) -> StepMath:
    """Claims giving one expression that is not a lone name several closed values (`y^2 + 3y = 11` and
    `y^2 + 3y = -11`, the two factors of `z^2 = 121`) list alternatives, one value each, not facts that all hold:
    not asserted, so unread (never refuted, never passed on, and the step is not verified without them). Lone
    names are `_listed_as_cases`'."""
    sides = {r: to_text(r.lhs_tree) for r in own.claims
             if r.op == "=" and r.bound_name is None and closed_value(r.lhs_tree) is None}
    values: dict[str, set[sympy.Expr]] = {}
    for rel, side in sides.items():
        if (value := closed_value(rel.rhs_tree)) is not None:
            values.setdefault(side, set()).add(value)
    moved = [r for r, side in sides.items() if len(values.get(side, ())) > 1]
    return _not_asserted(own, moved, lambda r: f"it gives {sides[r]} one of the values the step lists for it, "
                                               "not all")


_MAX_EXCLUSIVE = 8  # equations in one name compared pairwise, and the highest degree compared


def _one_name_poly(rel: Relation) -> tuple[str, sympy.Poly] | None:
    """An equation in one name as the polynomial (numerator) its sides differ by, of degree 1 to `_MAX_EXCLUSIVE`."""
    if rel.op != "=" or len(rel.names) != 1:
        return None
    name = next(iter(rel.names))
    try:
        symbol = sympy.Symbol(name)
        gap = sympy.together(evaluate(rel.lhs_tree, {name: symbol}) - evaluate(rel.rhs_tree, {name: symbol}))
        poly = sympy.Poly(sympy.numer(gap), symbol)
    except (ExpressionError, sympy.PolynomialError, sympy.GeneratorsNeeded, TypeError, ValueError):
        return None
    return (name, poly) if 1 <= poly.degree() <= _MAX_EXCLUSIVE else None


def _exclusive_equations(own: StepMath) -> StepMath:
    """Polynomials in one name set to 0 that share no root with another such claim of the step (`x^2 - 11 = 0`
    and `x + 1 = 0`, the critical points; `x^3 = 0` and `x^2 - x - 72 = 0`, the factors of a product that is 0)
    cannot all hold: they are alternatives, each for its own case, not facts, and so is what the step derives
    from one of them alone (`x = -1` from `x + 1 = 0`): not asserted, so unread (never refuted, never passed on).
    One that shares a root with every other (`x^2 - 4 = 0` beside `x - 2 = 0`) stays. Only zero sets, as factors
    and critical points are written: `b + 6 = 1 and b + 7 = 3` asserts both, and contradicts itself."""
    zero_sets: dict[str, list[tuple[Relation, sympy.Poly]]] = {}
    others: list[tuple[Relation, str, sympy.Poly]] = []
    for rel in own.claims:
        if (found := _one_name_poly(rel)) is None:
            continue
        if 0 in (closed_value(rel.lhs_tree), closed_value(rel.rhs_tree)):
            zero_sets.setdefault(found[0], []).append((rel, found[1]))
        else:
            others.append((rel, *found))
    moved: list[Relation] = []
    for name, equations in zero_sets.items():
        if len(equations) > _MAX_EXCLUSIVE:
            continue
        exclusive: dict[Relation, sympy.Poly] = {}
        for (a, pa), (b, pb) in itertools.combinations(equations, 2):
            if sympy.gcd(pa, pb).degree() < 1:
                exclusive.update({a: pa, b: pb})
        moved += [r for r in exclusive if r not in moved]
        for rel, other, poly in others:
            shares = {sympy.gcd(poly, p).degree() >= 1 for p in exclusive.values()}
            if other == name and shares == {True, False} and rel not in moved:
                moved.append(rel)
    return _not_asserted(own, moved, lambda r: f"it holds in one of the cases the step lists for "
                                               f"{next(iter(r.names))} (equations that share no root), not in all")


def _alternatives(own: StepMath) -> StepMath:
    """`own` without the claims that list alternatives (`_listed_expressions`, `_exclusive_equations`)."""
    return _exclusive_equations(_listed_expressions(own))


def _without_functions(math: StepMath, functions: frozenset[str]) -> StepMath:
    """`math` without the relations that apply one of `functions` (as context they would be misread facts)."""
    def keep(rels: tuple[Relation, ...]) -> tuple[Relation, ...]:
        return tuple(r for r in rels if not uses_function(r.source, functions))

    return replace(math, claims=keep(math.claims), bindings=keep(math.bindings), cases=keep(math.cases))


def _not_asserted(own: StepMath, moved: Sequence[Relation], why: Callable[[Relation], str]) -> StepMath:
    """`own` with the `moved` claims unread as not asserted, each for its `why`."""
    if not moved:
        return own
    unread = tuple(Unread(r.span, r.source, UnreadReason.NOT_ASSERTED, why(r)) for r in moved)
    return replace(own, claims=tuple(r for r in own.claims if r not in moved), unread=(*own.unread, *unread))


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
    renamed: list[Relation] = []
    notes: list[str] = []
    breaks = [i for i, c in enumerate(text) if c in ".;\n?!"]
    explicit = {rel for rel in own.cases if _explicitly_hypothetical(text, rel, breaks)}
    # "Suppose x = 5", "Assume x = 5": a binding under a hypothesis word supposes the value, it does not assert it
    supposed = {rel for rel in own.bindings if _explicitly_hypothetical(text, rel, breaks)}
    values: dict[str, set[sympy.Expr]] = {}
    supposed_values = [a.relation for a in own.assumptions if a.relation is not None and a.relation.op == "="]
    # "x = (-5 + 7)/2 = 1 and x = (-5 - 7)/2 = -6", "when x = 5 and x = 15": whether bound, claimed, supposed or
    # a case, one name given several values in one step lists them
    for rel in (*own.cases, *own.bindings, *own.claims, *supposed_values):
        value = closed_value(rel.rhs_tree)
        if rel.bound_name and value is not None:  # `X = 11 - 6, X = 5` gives one value twice; `T = M` none
            values.setdefault(rel.bound_name, set()).add(value)
    listed = {name for name, seen in values.items() if len(seen) > 1}
    own = _conditions_per_value(_exclusive_equations(_listed_as_cases(_listed_expressions(own), listed)),
                                {name: values[name] for name in listed})
    own = _bound_again(own, explicit, listed | determined | given_names | asked)
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
            value, fixed = closed_value(rel.rhs_tree), given and closed_value(given.rhs_tree)
            hypothesis = rel in explicit or rel in supposed
            if given is not None and value is not None and fixed is not None and value != fixed:
                rebound.append(Rebound(rel, given, asserted=not implicit and not hypothesis, hypothesis=hypothesis))
            elif rel in own.bindings and rel not in supposed:
                renamed.append(rel)  # "Let x = a + b" of the question's root x: the letter may take a new meaning
            if hypothesis and (given is None or fixed is None):
                continue  # "if a = 1, …" of an unknown of the question: one case of it, supposed, not claimed
            why = "a given of the question"
        elif rel in explicit:
            continue  # "If b = 0, then …": an implication over a case
        elif name in asked:
            why = "what the question asks for"
        elif name in determined:
            why = "determined by an earlier step"
            if rel in own.bindings and rel not in supposed:
                renamed.append(rel)  # "where b = 4": the letter may take a new meaning here
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
    return _Provenance(reading, tuple(rebound), tuple(sorted(alternatives)), tuple(named), tuple(bound), tuple(notes),
                       tuple(renamed))


# ---- the plan of one step --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class StepPlan:
    """One step's artifact, and the reading it was built from: what the gate aligns supplied artifacts with."""

    premises: tuple[str, ...]  # givens, ancestors' relations, assumptions (artifact lines, comments included)
    own: tuple[str, ...]  # the step's claim and define lines
    reading: StepMath  # the step's relations after the provenance rules
    # the premise lines by origin (each also in `premises`): what the question gives (its bindings, relations and
    # assumptions, as the plan reads it: a goal it asks to show may be among them), and what the ancestors give
    # (their bindings and claims, and the assumptions they state)
    given: tuple[str, ...] = ()
    derived: tuple[str, ...] = ()
    asked: frozenset[str] = frozenset()
    rebound: tuple[Rebound, ...] = ()
    alternatives: tuple[str, ...] = ()  # names not fresh whose listed values (`x = 2`, `x = 3`) stay cases
    named: tuple[Relation, ...] = ()  # claims that were cases with no hypothetical word: named, maybe not asserted
    bound: tuple[Relation, ...] = ()  # claims that were bindings the text asserts ("Let c = 9") of names not fresh
    as_bound: str = ""  # the artifact with `bound` as `define` lines again: what the step says under its bindings
    # bindings the text asserts with a binder word ("where b = 4", "let x = ω − 1") of names an earlier step
    # determined: the letter may take a new meaning, so a failure through it refutes nothing
    renamed: tuple[Relation, ...] = ()
    inherited: frozenset[str] = frozenset()  # names only earlier steps (not the question) speak of
    answer: tuple[int, Relation] | None = None  # for an answer line: the ancestor relation it is checked against
    notes: tuple[str, ...] = ()

    @property
    def artifact(self) -> str:
        """The artifact text ("" when the step has nothing to check)."""
        if not any(line.startswith(("claim", "define")) for line in self.own):
            return ""
        return "\n".join((*self.premises, *self.own)) + "\n"


def _own_lines(math: StepMath, bound: Sequence[Relation] = (), cases: Sequence[tuple[int, str]] = ()) -> list[str]:
    """The step's claim and define lines in text order, a `case` line where the text opens another case."""
    lines = []
    pending = list(cases[1:])  # the first case opens with nothing before it to forget
    for rel in math.relations:
        opened = [c for c in pending if c[0] <= rel.span[0]]
        if opened:
            lines.append(f"case  # \"{_quote(opened[-1][1])}\"")
            pending = [c for c in pending if c[0] > rel.span[0]]
        keyword = "claim" if rel in math.claims and rel not in bound else "define"
        lines.append(f"{keyword} {rel.text}  # \"{_quote(rel.source)}\"")
    return lines


# "First, b + 6 = 1 … Second, b + 6 = 3 …", "Case 2:", "In case (3)": an enumeration of cases at a sentence start
_CASE_OPENER = re.compile(
    r"(?:^|[.;:!?\n]\s*)(?:\*\*)?((?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth)(?:ly)?\b|"
    r"(?:in\s+)?(?:sub)?case\s*\(?\d{1,2}\)?)", re.IGNORECASE)


def case_openings(text: str) -> list[tuple[int, str]]:
    """Where the text opens a case of an enumeration, with the opener's words; none unless it opens two or more
    (one "First," alone begins a sequence, not a case analysis)."""
    found = case_openers(text)
    return found if len(found) >= 2 else []


def case_openers(text: str) -> list[tuple[int, str]]:
    """Every place the text opens a case or an item of an enumeration ("First,", "Case 2:"), with its words."""
    return [(m.start(1), m.group(1)) for m in _CASE_OPENER.finditer(text)]


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


def _answer_claim(answer: str, last: tuple[int, Relation] | None,
                  units: Sequence[str] | None = None, hundredths: bool = False) -> tuple[str | None, str]:
    """The claim for a `#### N` answer line, or (None, why not).

    The answer is compared with the last computed value v, as GSM8K writes it: v itself, or, when the question
    speaks of percents or cents (`hundredths`), 100·v, each exactly. An answer that matches no reading is not
    evidence of an error (the answer may be a value computed earlier, or v rounded: up for buses, down for full
    boxes, as the question wants), so the line is left unchecked. A sentence that states the answer in words
    (`units` given: the units its words name) says what its number is: v itself, in v's own unit."""
    value = extract_value(answer)
    if value is None or last is None:
        return None, "it has no value, or the step before it computes none"
    sid, rel = last
    if units is not None and any(unit != rel.unit for unit in units):
        return None, f"its words name a unit ({', '.join(units)}) that {rel.text} is not stated in"
    try:
        computed, stated = evaluate(rel.rhs_tree), evaluate(value)
    except ExpressionError as exc:
        return None, exc.message
    if computed.free_symbols:
        return None, f"the last computed value {to_text(rel.rhs_tree)} is not a number"
    source = f"# the final answer against the last computed value (step {sid}: {rel.text})"
    readings = ((to_text(rel.rhs_tree), computed, ""),
                (f"100*({to_text(rel.rhs_tree)})", 100 * computed, ", in percent or cents"))
    for shown, scaled, why in readings if hundredths and units is None else readings[:1]:
        if scaled == stated:
            return f"claim {shown} = {to_text(value)}  {source}{why}", ""
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
    functions = question.functions.union(*(declared_functions(t) for t in (step.content, *(a.content for a, _ in ancestors))))
    if functions:
        # `p(n+1)` where the question defines p(n) is p's value, which the reader would misread as a product
        raw = _not_asserted(raw, [r for r in raw.claims if uses_function(r.source, functions)],
                            lambda r: "it applies a function the chain defines, which the reader does not evaluate")
        givens = _without_functions(givens, functions)
        ancestors = [(a, _without_functions(m, functions)) for a, m in ancestors]
    given_relations = [rel for _, rel in _context_relations(givens)]
    given_names = frozenset().union(*(rel.names for rel in given_relations))
    given_values = {rel.bound_name: rel for rel in given_relations
                    if rel.bound_name and closed_value(rel.rhs_tree) is not None}
    determined = frozenset().union(*(rel.names for _, math in ancestors for _, rel in _context_relations(math)))
    texts = [step.content, step.claimed_conclusion or "", *(a.content for a, _ in ancestors)]
    asked = question.asked_names | frozenset().union(*(question.asked_in(t) for t in texts))
    provenance = _provenance(raw, step.content, given_values, given_names, determined, asked)
    reading = provenance.reading
    notes = [*reading.notes, *provenance.notes]
    cases = case_openings(step.content)
    own_lines = _own_lines(reading, cases=cases)
    answer_of = None
    answer = answer_line(step.content)
    if answer is not None and raw.empty:
        last = _last_value(ancestors, given_values, given_names, asked)
        worded = None if step.content.strip().startswith("####") else answer_units(step.content)
        other = sorted(proper_names(step.content) & question.told_names) if worded is not None else []
        line, why = (None, f"it speaks of {', '.join(other)}, whom the question does not ask about") if other \
            else _answer_claim(answer, last, worded, question.hundredths)
        if line:
            own_lines.append(line)
            answer_of = last
        else:
            notes.append(f"the answer line \"{_quote(step.content)}\" is not checked: {why}")
    premises: list[str] = []
    given: list[str] = []
    derived: list[str] = []
    units = _units(reading)
    if not givens.empty or givens.assumptions:
        given = _context_lines(givens, units)
        premises += ["# givens (from the query)", *given]
    for ancestor, math in ancestors:
        context = _context_lines(math, units)
        if context:
            premises += [f"# step {ancestor.step_id}", *context]
            derived += context
    premises.append(f"# step {step.step_id} (checked)")
    if question.nonnegative or speaks_of_nonnegatives(step.content):
        premises += _nonnegative(reading, premises)
    premises += [f"assume {a.text}" for a in reading.assumptions]
    as_bound = "\n".join((*premises, *_own_lines(reading, provenance.bound, cases))) + "\n" if provenance.bound else ""
    return StepPlan(premises=tuple(premises), own=tuple(own_lines), given=tuple(given), derived=tuple(derived),
                    reading=reading, asked=asked,
                    rebound=provenance.rebound, alternatives=provenance.alternatives, named=provenance.named,
                    bound=provenance.bound, as_bound=as_bound, renamed=provenance.renamed,
                    inherited=determined - given_names, answer=answer_of,
                    notes=tuple(notes))
