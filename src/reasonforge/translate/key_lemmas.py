"""Key lemmas, the Coq half of the standard level for mathematics (DESIGN §3.3, the seed's "key lemmas"): the
symbolic claims of a step, each stated as one standalone Coq lemma with a bounded proof script, for
`pipeline.key_lemmas` to have proved.

Which claims: the `claim` lines of the step's plan (`verify.math.plan_step`, rebuilt from the question's, the
step's and the ancestors' texts, never from a supplied artifact) that still have unknowns once every name the plan
gives a closed value is replaced: an identity, an inequality, a relation that holds for every value the givens
allow. Closed arithmetic is SymPy's, which decides it exactly. A step whose plan considers cases (a `case` line,
a name bound twice) gets none: its claims hold case by case.

What a lemma states: `forall <its names> : R, <hypotheses> -> <the claim>`, over Z instead when the question
says every one of its names is an integer and nothing in it needs division or decimals. The hypotheses are:
- the question's givens, as the Coq givens reader reads them (`verify.coq.givens.read_givens`): what the
  question asks to show ("Show that x + 1/x >= 2") is a goal, never a hypothesis, though the SymPy plan lists
  it among the facts; a sign it gives a name ("a is positive"); a natural number's `0 <= n`; none at all when
  that reader finds the givens contradict each other;
- the ancestors' bindings and claims (each is checked in its own step; a false one fails there);
- the step's own definitions of fresh names and its claims before this one (the step is verified only when
  those are too).
Never what the step's author supplies as a premise ("Assume x > 5"), an ancestor's assumptions, or the plan's
"a length or count is nonnegative": a proof may not rest on them. Only hypotheses that share names with the claim
(transitively) are kept, and one the Coq emitter cannot write is left out (fewer hypotheses, a stronger lemma).
A claim false at one of a fixed set of points where every hypothesis holds (computed exactly) gets no lemma: Coq
could only fail on it, and a run costs seconds.

The proof: `intros`; then a probe that refuses the lemma when the same tactics prove `False` from its hypotheses
(contradictory hypotheses would prove anything; the probe sees what `lra` and `nra` see, so a contradiction
beyond them goes unseen, as at the formal level); then the first of `ring`, `field`, `lra`, `nra` over R (`ring`,
`lia`, `nia` over Z) that closes the goal, also after `subst`, and `nra`/`nia` with hints (squares such as
`pow2_ge_0 (x - y)` and the squared factors of the claim's two sides' difference, found with SymPy), which can
only help a tactic. The slow tactics run under `timeout`; the script prints which tactic closed the goal. Coq,
not this module, decides whether a lemma holds: one that is false, or beyond these tactics, does not compile.

`lemma_file` puts several lemmas of one number domain in one file (one Coq audit for all of them), and says which
lines each takes, so that an error Coq reports at a line names its lemma.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field

import sympy

from reasonforge.errors import ArtifactSyntaxError
from reasonforge.lang.math.expr import ExpressionError, Name, Node, Num, evaluate, names_in, parse_expression, to_text
from reasonforge.lang.math.reading import read_question
from reasonforge.translate.math_coq_emit import Domain, NotCoq, coq_expr, coq_relation, needs_rationals
from reasonforge.types import ReasoningStep, StepContext
from reasonforge.verify.coq.givens import read_givens
from reasonforge.verify.math import Line, parse_artifact, plan_step, read_step

__all__ = ["TACTIC_MARK", "TACTIC_TIMEOUT_S", "KeyLemma", "KeyLemmas", "LemmaFile", "key_lemmas", "lemma_file"]

TACTIC_MARK = "RF-TACTIC:"
"""What the proof script prints before the tactic that closed the goal."""
TACTIC_TIMEOUT_S = 3
"""Seconds each slow tactic (`nra`, `nia`, `field`) may take on one goal."""
MAX_PER_STEP = 6
_MAX_NAMES = 8  # names in one lemma: beyond this nra and nia are hopeless within their time
_MAX_HINTS = 8
_SIGNS = {"positive": "<", "negative": ">", "nonnegative": "<=", "nonpositive": ">="}  # `0 op name`
_INTEGER_DOMAINS = ("integer", "natural", "positive")
_OWN_CLAIM = "this step's claim before it"
_PRELUDE = {"R": "From Coq Require Import Reals Lra Psatz.\nOpen Scope R_scope.\n",
            "Z": "From Coq Require Import ZArith Lia.\nOpen Scope Z_scope.\n"}


@dataclass(frozen=True)
class KeyLemma:
    """One symbolic claim of a step as a Coq lemma: the claim as the plan states it, the lemma's name, number
    domain and statement, the hypotheses it rests on (with where each comes from) and its proof script."""

    step_id: int
    relation: str
    name: str
    domain: Domain
    statement: str
    hypotheses: tuple[str, ...]
    proof: str

    @property
    def declaration(self) -> str:
        """`Lemma <name> : <statement>.`, as the file states it."""
        return f"Lemma {self.name} : {self.statement}."

    @property
    def block(self) -> str:
        """The lemma with its proof, as the file holds it."""
        return f"(* {_comment(self.relation)} *)\n{self.declaration}\nProof.\n{self.proof}\nQed.\n"


@dataclass(frozen=True)
class LemmaFile:
    """Lemmas of one number domain as one Coq file, and the lines (first, last) each lemma's block takes."""

    text: str
    lines: dict[str, tuple[int, int]]

    def lemma_at(self, line: int) -> str | None:
        """The name of the lemma whose block holds `line`, or None."""
        return next((name for name, (lo, hi) in self.lines.items() if lo <= line <= hi), None)


def lemma_file(lemmas: Sequence[KeyLemma]) -> LemmaFile:
    """One file for `lemmas` (all over the same domain): the domain's prelude, then each block in order."""
    domains = {lemma.domain for lemma in lemmas}
    if len(domains) != 1:
        raise ValueError("one lemma file holds lemmas of one number domain")
    parts = [_PRELUDE[domains.pop()]]
    lines: dict[str, tuple[int, int]] = {}
    at = parts[0].count("\n") + 1
    for lemma in lemmas:
        block = lemma.block
        lines[lemma.name] = (at, at + block.count("\n") - 1)
        at += block.count("\n")
        parts.append(block)
    return LemmaFile("".join(parts), lines)


@dataclass(frozen=True)
class KeyLemmas:
    """A step's key lemmas, and why any of its claims got none (`skipped`)."""

    lemmas: tuple[KeyLemma, ...] = ()
    skipped: tuple[str, ...] = ()


@dataclass(frozen=True)
class _Premise:
    lhs: Node
    op: str
    rhs: Node
    origin: str

    @property
    def names(self) -> frozenset[str]:
        return names_in(self.lhs) | names_in(self.rhs)


@dataclass
class _Writer:
    """The lemmas of one step as its own lines are read in order."""

    step_id: int
    premises: list[_Premise]
    domains: dict[str, str]
    lemmas: list[KeyLemma] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


def key_lemmas(context: StepContext) -> KeyLemmas:
    """The key lemmas of the step `context` describes (see the module docstring)."""
    step = ReasoningStep(step_id=context.step_id, content=context.content,
                         claimed_conclusion=context.claimed_conclusion)
    ancestors = [(a, read_step(a)) for a in context.ancestors]
    plan = plan_step(step, read_question(context.original_query), ancestors)
    if not plan.artifact:
        return KeyLemmas()
    try:
        everything = parse_artifact(plan.artifact)
        own = parse_artifact("\n".join(plan.own))
        given = parse_artifact("\n".join(plan.given))
        derived = parse_artifact("\n".join(plan.derived))
    except ArtifactSyntaxError as exc:  # the plan always parses; a reader bug must cost only the lemmas
        return KeyLemmas(skipped=(f"the plan does not parse: {exc.message}",))
    bound = [line.name for line in everything if line.kind in ("let", "define")]
    if any(line.kind == "case" for line in own) or len(bound) != len(set(bound)):
        return KeyLemmas(skipped=("the step considers cases: its claims hold case by case",))
    givens = read_givens(context.original_query)
    # givens that contradict each other give nothing (anything would follow from them)
    premises = ([] if givens.contradiction else _given_premises(given, set(givens.texts))) + [
        _Premise(line.lhs, line.op, line.rhs, "an earlier step") for line in derived
        if line.kind in ("let", "fact") and line.lhs is not None and line.rhs is not None and line.op is not None]
    writer = _Writer(context.step_id, premises, {} if givens.contradiction else dict(givens.domains))
    closed = _closed_values(everything)
    for line in own:
        if line.lhs is None or line.rhs is None or line.op is None:
            continue
        if line.kind == "claim" and _symbolic(line, closed):
            if len(writer.lemmas) < MAX_PER_STEP:
                _write(writer, line)
            else:
                writer.skipped.append(f"{line.relation}: more than {MAX_PER_STEP} symbolic claims in one step")
        origin = "this step's definition" if line.kind == "define" else _OWN_CLAIM
        writer.premises.append(_Premise(line.lhs, line.op, line.rhs, origin))
    return KeyLemmas(tuple(writer.lemmas), tuple(writer.skipped))


def _given_premises(lines: list[Line], given: set[str]) -> list[_Premise]:
    """The question's lines the Coq givens reader also reads as givens (never a goal the question asks for)."""
    out = []
    for line in lines:
        if line.lhs is not None and line.rhs is not None and line.op is not None:
            if line.relation in given and line.kind in ("let", "fact", "assume"):
                out.append(_Premise(line.lhs, line.op, line.rhs, "the question"))
        elif line.kind == "assume" and line.name is not None:
            for prop in line.properties:
                if prop in _SIGNS and f"{line.name} is {prop}" in given:
                    out.append(_Premise(Num(text="0", decimals=0), _SIGNS[prop], Name(line.name), "the question"))
    return out


def _closed_values(lines: list[Line]) -> dict[str, sympy.Expr]:
    """Every name the artifact gives a closed value, as the SymPy checker binds them (`let`, and a relation
    `name = <closed value>`)."""
    env: dict[str, sympy.Expr] = {}
    for line in lines:
        if line.op != "=" or line.lhs is None or line.rhs is None or line.kind == "assume":
            continue
        for name_side, value_side in ((line.lhs, line.rhs), (line.rhs, line.lhs)):
            if not isinstance(name_side, Name) or name_side.name in env:
                continue
            try:
                value = evaluate(value_side, env)
            except (ExpressionError, TypeError, ValueError):
                continue
            if not value.free_symbols:
                env[name_side.name] = value
                break
    return env


def _symbolic(line: Line, closed: dict[str, sympy.Expr]) -> bool:
    """Does the claim keep unknowns once the closed values are in (not closed arithmetic)?"""
    assert line.lhs is not None and line.rhs is not None
    if line.op == "~=":
        return False  # an approximation is no theorem
    try:
        return bool(evaluate(line.lhs, closed).free_symbols or evaluate(line.rhs, closed).free_symbols)
    except (ExpressionError, TypeError, ValueError):
        return False


def _write(writer: _Writer, line: Line) -> None:
    assert line.lhs is not None and line.rhs is not None and line.op is not None
    reach = set(names_in(line.lhs) | names_in(line.rhs))
    kept: list[_Premise] = []
    # one left out says more; and a claim the step made before is no premise of the same claim made again
    pending = [p for p in writer.premises if p.op != "~=" and _writable(p)
               and not (p.origin == _OWN_CLAIM and _relation_text(p) == line.relation)]
    changed = True
    while changed:
        changed = False
        for premise in list(pending):
            if premise.names & reach:
                kept.append(premise)
                reach |= premise.names
                pending.remove(premise)
                changed = True
    kept.sort(key=writer.premises.index)
    names = sorted(reach)
    if len(names) > _MAX_NAMES:
        writer.skipped.append(f"{line.relation}: {len(names)} names, more than a lemma's tactics handle")
        return
    nodes = [line.lhs, line.rhs, *(n for p in kept for n in (p.lhs, p.rhs))]
    integers = all(writer.domains.get(n) in _INTEGER_DOMAINS for n in names)
    domain: Domain = "Z" if integers and not any(needs_rationals(n) for n in nodes) else "R"
    try:
        for name in names:
            coq_expr(Name(name), domain)
        claim = coq_relation(line.lhs, line.op, line.rhs, domain)
    except NotCoq as exc:
        writer.skipped.append(f"{line.relation}: {exc}")
        return
    signs = {"natural": "<=", "positive": "<"}
    domains = {n: d for n in names if (d := writer.domains.get(n, "")) in signs}
    signed = [_Premise(Num(text="0", decimals=0), signs[d], Name(n), "the question") for n, d in domains.items()]
    if (point := _counterexample(line, [*signed, *kept], names, domain)) is not None:
        writer.skipped.append(f"{line.relation}: no lemma: it is false at {point}, where every hypothesis holds, so "
                              "Coq could not prove it (SymPy's outcome stands)")
        return
    hypotheses = {f"0 {signs[d]} {n}": f"{n} is {d} (the question)" for n, d in domains.items()}
    for premise in kept:
        hypotheses.setdefault(coq_relation(premise.lhs, premise.op, premise.rhs, domain),
                              f"{_relation_text(premise)} ({premise.origin})")
    name = f"key_{writer.step_id}_{len(writer.lemmas) + 1}"
    arrows = "".join(f"{h} -> " for h in hypotheses)
    statement = f"forall {' '.join(names)} : {domain}, {arrows}{claim}"
    proof = _proof(name, domain, bool(hypotheses), _hints(line, domain))
    writer.lemmas.append(KeyLemma(writer.step_id, line.relation, name, domain, statement, tuple(hypotheses.values()),
                                  proof))


def _writable(premise: _Premise) -> bool:
    """Can the Coq emitter write the premise (over R, which takes all that Z does)?"""
    try:
        coq_relation(premise.lhs, premise.op, premise.rhs, "R")
    except NotCoq:
        return False
    return all(_name_ok(n) for n in premise.names)


def _name_ok(name: str) -> bool:
    try:
        coq_expr(Name(name), "R")
    except NotCoq:
        return False
    return True


# The values a lemma's names take at the points it is tried at, before Coq is asked (`_counterexample`).
_VALUES = tuple(sympy.Rational(v) for v in ("0", "1", "-1", "2", "-2", "1/2", "-1/2", "3", "-3", "1/3", "5", "-7/2"))
_POINTS = 24


def _counterexample(line: Line, premises: list[_Premise], names: list[str], domain: Domain) -> str | None:
    """A point (`x = -2`) where every premise holds and the claim does not, among a fixed set of points (integers
    only over Z), computed exactly; None when there is none. Such a lemma is false: Coq would only fail on it, at
    the cost of a run, and its failure refutes nothing either way."""
    assert line.lhs is not None and line.rhs is not None and line.op is not None
    values = [v for v in _VALUES if v.is_integer] if domain == "Z" else list(_VALUES)
    for k in range(_POINTS):
        point = {n: values[(k * (i + 1) + i) % len(values)] for i, n in enumerate(names)}
        if all(_holds(p.lhs, p.op, p.rhs, point) is True for p in premises) \
                and _holds(line.lhs, line.op, line.rhs, point) is False:
            return ", ".join(f"{n} = {v}" for n, v in point.items())
    return None


def _holds(lhs: Node, op: str, rhs: Node, point: dict[str, sympy.Rational]) -> bool | None:
    """The relation at `point`, exactly; None when a side has no value there (a division by zero)."""
    try:
        a, b = evaluate(lhs, point), evaluate(rhs, point)
    except (ExpressionError, TypeError, ValueError, ZeroDivisionError):
        return None
    if not (a.is_Rational and b.is_Rational):
        return None
    compared = {"=": a == b, "!=": a != b, "<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}.get(op)
    return None if compared is None else bool(compared)


def _relation_text(premise: _Premise) -> str:
    return f"{to_text(premise.lhs)} {premise.op} {to_text(premise.rhs)}"


def _hints(line: Line, domain: Domain) -> list[str]:
    """Polynomials whose squares are worth handing to nra/nia for an inequality: the squared factors of the
    difference of its sides (and their product), and the differences and sums of its names taken two at a time."""
    assert line.lhs is not None and line.rhs is not None
    if line.op not in ("<", "<=", ">", ">="):
        return []
    try:
        gap = sympy.expand(evaluate(line.lhs) - evaluate(line.rhs))
    except (ExpressionError, TypeError, ValueError):
        return []
    plain = {s: sympy.Symbol(s.name) for s in gap.free_symbols if isinstance(s, sympy.Symbol)}
    gap = gap.xreplace(plain)
    candidates: list[sympy.Expr] = []
    if gap.is_polynomial() and gap.free_symbols:
        _, factors = sympy.factor_list(gap)
        squared = [f ** (m // 2) for f, m in factors if m >= 2]
        candidates += squared
        if len(squared) > 1:
            candidates.append(sympy.Mul(*squared))
    symbols = sorted(gap.free_symbols, key=str)
    for u, v in itertools.combinations(symbols, 2):
        candidates += [u - v, u + v]
    out: list[str] = []
    for poly in candidates:
        try:
            text = coq_expr(parse_expression(sympy.sstr(poly).replace("**", "^")), domain)
        except (NotCoq, ExpressionError):
            continue
        if text not in out:
            out.append(text)
    return out[:_MAX_HINTS]


def _proof(name: str, domain: Domain, hypotheses: bool, hints: list[str]) -> str:
    """The bounded proof script (module docstring): intros, the probe for contradictory hypotheses, the tactics."""
    slow = f"timeout {TACTIC_TIMEOUT_S}"
    if domain == "R":
        square = "pow2_ge_0"
        tactics = ["ring", f"{slow} field", f"{slow} field; lra", "lra", *(["subst; ring", f"subst; {slow} field; lra"]
                                                                      if hypotheses else []), f"{slow} nra"]
        nonlinear = "nra"
        probe = ["lra", f"{slow} nra"]
    else:
        square = "Z.square_nonneg"
        tactics = ["ring", "lia", *(["subst; ring"] if hypotheses else []), f"{slow} nia"]
        nonlinear = "nia"
        probe = ["lia", f"{slow} nia"]
    if hints:
        posed = "; ".join(f"pose proof ({square} ({h}))" for h in hints)
        tactics.append(f"{posed}; {slow} {nonlinear}")
        probe.append(f"{posed}; {slow} {nonlinear}")
    lines = ["  intros."]
    if hypotheses:
        lines.append(f"  tryif (assert False by (first [{' | '.join(probe)}])) "
                     "then fail 0 \"the hypotheses contradict each other\" else idtac.")
    alternatives = "\n    | ".join(f"solve [{t}]; idtac \"{TACTIC_MARK} {name}: {_shown(t)}\"" for t in tactics)
    lines.append(f"  first [ {alternatives} ].")
    return "\n".join(lines)


def _shown(tactic: str) -> str:
    """The tactic as the evidence names it (without its time limit)."""
    return tactic.replace(f"timeout {TACTIC_TIMEOUT_S} ", "").replace('"', "'")


def _comment(text: str) -> str:
    return " ".join(text.split()).replace("(*", "( *").replace("*)", "* )")
