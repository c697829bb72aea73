"""What a step's natural-language text claims, as relations the Coq alignment check can compare.

Relations (`x² + y² = z²`, chains `z² = 9 + 16 = 25`, bindings `Let x = 3`) come from the shared
extractor `lang.math.text.extract` (the translators read text with it too); parity and divisibility phrases (`n² is even`, `4 divides n²`,
`n² is divisible by 4`, `a multiple of 4`) are read here, since that extractor leaves them as domain
assumptions. A phrase introduced by `since`, `because`, `given`, `if`, `suppose`, `assume` or `let`
is a premise the step uses, not a claim it makes, and is not returned.

Fail closed: a relation the text asserts that is not compared makes the whole step unreadable
(`StepClaims.uncompared`): one the extractor lists as unread, an approximation, a value it cannot compute, a
relation sign (`=`, `<`, `≥`, ...) in no relation it returned, and any prose negation ("It is not true that
3 + 3 = 6"), whose scope this reader does not read. The step is then `unsupported`, never verified on the
relations it did read.

Binders: a name the text introduces existentially ("n = 2k for some integer k", "where k is an integer",
"there is an integer k") is recorded with its domain, so the alignment compares the claim with an existential
of the theorem, never with a `k` known from elsewhere; the domains the text's conditions give its names ("if n
is an integer") say over which numbers a universally quantified theorem may be instantiated.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from dataclasses import dataclass, field

import sympy

from reasonforge.lang.math.expr import (
    ExpressionError,
    Node,
    evaluate,
    parse_expression,
)
from reasonforge.lang.math.step import StepMath
from reasonforge.lang.math.text import extract
from reasonforge.verify.coq.terms import Atom

__all__ = [
    "ASSUMING",
    "DOMAIN_RANK",
    "DOMAIN_WORDS",
    "PROPERTY_ATOMS",
    "SOME",
    "Clauses",
    "Phrase",
    "StepClaims",
    "domain_of",
    "mentioned_names",
    "phrases",
    "read_spans",
    "relation_atom",
    "step_claims",
]

_SUPERSCRIPTS = str.maketrans({"²": "^2", "³": "^3", "⁴": "^4"})
# One maths word (`n²`, `(2k)²`, `n^2`): prose never joins it. It starts only where a word starts: without the
# lookbehind every offset inside a long run of digits is tried again, and a 20 kB step took a minute.
_TERM = r"(?<![\w²³⁴^()*+\-/])[\w²³⁴^()*+\-/]+"
_PREMISE = re.compile(r"\b(since|because|given|if|when|whenever|suppose|assume|assuming|let|as)\b[^.;,]*$",
                      re.IGNORECASE)
# A relation after one of these words (and before any "then") is a condition the step assumes, not a claim:
# "If x = 3 then x + 1 = 4" claims the implication. "Since A, B" claims A too (A must hold already).
_CONDITION = re.compile(r"\b(if|when|whenever|suppose|supposing|assume|assuming|given|where|provided)\b(?P<rest>[^.;]*)$",
                        re.IGNORECASE)
_CONSEQUENCE = re.compile(r"\b(then|so|therefore|hence|thus|we\s+get|it\s+follows)\b", re.IGNORECASE)
_PHRASES = [
    (re.compile(rf"(?P<x>{_TERM})\s+is\s+(?:an?\s+)?(?P<p>even|odd)\b", re.IGNORECASE), "parity"),
    (re.compile(rf"(?P<x>{_TERM})\s+is\s+(?:divisible|evenly\s+divisible)\s+by\s+(?P<d>[\w²³^()]+)",
                re.IGNORECASE), "divisible"),
    (re.compile(rf"(?P<x>{_TERM})\s+is\s+a\s+multiple\s+of\s+(?P<d>[\w²³^()]+)", re.IGNORECASE), "divisible"),
    (re.compile(rf"(?P<d>{_TERM})\s+divides\s+(?P<x>{_TERM})", re.IGNORECASE), "divisible"),
]


# The number domains a name can be known to lie in, narrowest first (a Coq number type has the same ranks).
DOMAIN_RANK = {"positive": 0, "natural": 1, "integer": 2, "rational": 3, "real": 4}
# A name introduced existentially: "for some integer k", "where k is an integer", "there is an integer k".
SOME = re.compile(r"\bfor\s+some\s+(?:\w+\s+){0,2}?([A-Za-z])\b|\bwhere\s+([A-Za-z])\s+is\s+an?\s+(?:\w+\s+)?"
                  r"(?:integer|number)\b|\bsome\s+(?:integer|natural\s+number|number)\s+([A-Za-z])\b"
                  r"|\bthere\s+(?:exists?|is|are)\s+(?:some\s+|an?\s+)?(?:\w+\s+){0,2}?([A-Za-z])\b", re.IGNORECASE)
_LETTER = re.compile(r"(?<![A-Za-z0-9_'])[A-Za-z](?![A-Za-z0-9_'])")
_ARTICLES = frozenset({"a", "A", "I"})


@dataclass
class StepClaims:
    """The step's claims as atoms (with their texts), the conditions it assumes, the names it introduces
    existentially and the domains its conditions give, the names it mentions, and what it could not compare."""

    claims: list[Atom] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    premises: list[Atom] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    existential: dict[str, str] = field(default_factory=dict)  # name -> domain ("integer", ..., "real")
    domains: dict[str, str] = field(default_factory=dict)  # name -> domain its conditions give it
    names: set[str] = field(default_factory=set)
    uncompared: list[str] = field(default_factory=list)  # relations the text asserts that were not compared
    bindings: dict[str, sympy.Expr] = field(default_factory=dict)  # "Let x = 3": names it introduces with a value


@dataclass(frozen=True)
class Phrase:
    """A parity or divisibility claim read from prose: `x` is even/odd, or `d` divides `x`."""

    kind: str  # even | odd | divides
    x: Node
    d: Node | None
    text: str
    span: tuple[int, int] = (0, 0)

    def atom(self) -> Atom | None:
        """The claim as an atom (`Mod(x, d) = 0`), or None when a side has no value."""
        try:
            x = evaluate(self.x)
            if self.kind == "divides":
                d = evaluate(self.d) if self.d is not None else None
                return None if d is None or d == 0 else Atom("=", sympy.Mod(x, d), self.text)
            return Atom("=", sympy.Mod(x, 2) - (1 if self.kind == "odd" else 0), self.text)
        except ExpressionError:
            return None


def _node(text: str) -> Node | None:
    """A maths fragment (`n²`, `2k`, `4`) as an expression tree through the safe parser, else None."""
    text = text.translate(_SUPERSCRIPTS).strip()
    if not text or re.search(r"[A-Za-z]{2,}", text):  # prose words are not maths
        return None
    text = re.sub(r"(\d)\s*([A-Za-z(])", r"\1*\2", text)  # `2k` → `2*k`, `3(x+1)` → `3*(x+1)`
    text = re.sub(r"\)\s*([A-Za-z(\d])", r")*\1", text)
    try:
        return parse_expression(text)
    except ExpressionError:
        return None


_MARKS = re.compile(rf"[.;,]|{_PREMISE.pattern.removesuffix(r'[^.;,]*$')}", re.IGNORECASE)


def _premised(text: str) -> Callable[[int], bool]:
    """`_PREMISE.search(text[:start])` for any `start`, from one pass over the text: is the last clause mark
    before `start` a premise word (not `.`, `;` or `,`)? Searching every prefix again was quadratic."""
    marks = [(m.end(), m.group(0) not in ".;,") for m in _MARKS.finditer(text)]
    ends = [end for end, _ in marks]

    def at(start: int) -> bool:
        index = bisect.bisect_right(ends, start) - 1
        return index >= 0 and marks[index][1]

    return at


def phrases(text: str) -> list[Phrase]:
    """Parity and divisibility claims of the text (premises introduced by since/if/... are left out)."""
    out: list[Phrase] = []
    premised = _premised(text)
    for pattern, kind in _PHRASES:
        for m in pattern.finditer(text):
            if premised(m.start()):
                continue
            x = _node(m.group("x"))
            if x is None:
                continue
            if kind == "parity":
                out.append(Phrase(m.group("p").lower(), x, None, m.group(0).strip(), m.span()))
                continue
            d = _node(m.group("d"))
            if d is not None:
                out.append(Phrase("divides", x, d, m.group(0).strip(), m.span()))
    return out


def read_spans(text: str) -> list[tuple[int, int]]:
    """Where this reader reads a claim or a binder besides the shared extractor's relations and assumptions:
    parity and divisibility phrases (premises too) and existential introductions ("for some integer k")."""
    spans = [m.span() for pattern, _ in _PHRASES for m in pattern.finditer(text)]
    return spans + [m.span() for m in SOME.finditer(text)]


DOMAIN_WORDS = frozenset(("integer", "natural", "whole", "positive", "rational", "real", "nonnegative"))
"""The properties that say which numbers a name ranges over (`domain_of` reads them)."""


def domain_of(properties: tuple[str, ...] | list[str], words: str = "") -> str | None:
    """The narrowest domain that a name's properties (or the words introducing it) say it lies in, if any."""
    said = set(properties) | set(re.findall(r"integer|natural|positive|rational|real|whole", words.lower()))
    if said & {"integer", "even", "odd", "whole", "natural"}:
        if "positive" in said:
            return "positive"
        return "natural" if said & {"nonnegative", "natural", "whole"} else "integer"
    if "rational" in said:
        return "rational"
    return "real" if "real" in said else None


def mentioned_names(text: str) -> set[str]:
    """Every name the text mentions: those of its relations and assumptions, and any lone letter but a/A/I."""
    found = extract(text)
    names: set[str] = set()
    for rel in found.relations:
        names |= set(rel.names)
    for a in found.assumptions:
        if a.name:
            names.add(a.name)
        if a.relation is not None:
            names |= set(a.relation.names)
    names |= {m.group(0) for m in _LETTER.finditer(text) if m.group(0) not in _ARTICLES}
    return names


_RELATION_SIGN = re.compile(r"\\(?:leq?|geq?|neq?|approx|lt|gt)\b|[=<>≤≥≠≈]")


def _unaccounted(text: str, found: StepMath) -> list[str]:
    """Relation signs of the text that lie in no relation or assumption the reader returned (read or unread):
    something the step asserts that nobody compared, so nothing may verify the step (fail closed)."""
    spans = [r.span for r in found.relations] + [a.span for a in found.assumptions]
    spans += [u.span for u in getattr(found, "unread", ())]
    out = []
    for m in _RELATION_SIGN.finditer(text):
        if not any(lo <= m.start() < hi for lo, hi in spans):
            lo, hi = max(0, m.start() - 20), min(len(text), m.end() + 20)
            out.append(f"`{' '.join(text[lo:hi].split())}` (a relation the reader did not return)")
    return out


# Prose negation reverses a relation the reader may still return as written ("It is not true that 3 + 3 = 6").
_NEGATION = re.compile(r"\b(?:not|no|never|none|neither|nor|false|untrue|incorrect|wrong|cannot)\b|n['’]t\b",
                       re.IGNORECASE)


def _existentials(text: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for m in SOME.finditer(text):
        name = next(g for g in m.groups() if g)
        out[name] = domain_of((), m.group(0)) or "real"
    return out


def relation_atom(op: str, lhs: sympy.Expr, rhs: sympy.Expr, text: str) -> Atom:
    """`lhs op rhs` as an atom `expr op 0` (`>`/`>=` turned around)."""
    if op == ">":
        return Atom("<", rhs - lhs, text)
    if op == ">=":
        return Atom("<=", rhs - lhs, text)
    return Atom(op, lhs - rhs, text)


class Clauses:
    """Where the "if ..." clauses of a text are, found once, so that asking about each of a step's relations
    costs a logarithm rather than a scan of its sentence (a step of thousands of relations was cubic)."""

    def __init__(self, text: str, words: re.Pattern[str]) -> None:
        self._stops = [m.start() for m in re.finditer(r"[.;]", text)]
        keyword = re.compile(words.pattern.split("(?P<rest>", 1)[0], words.flags)
        self._conditions = [m.end() for m in keyword.finditer(text)]
        self._consequences = [m.start() for m in _CONSEQUENCE.finditer(text)]

    def conditional(self, start: int) -> bool:
        """Is `start` inside an "if ..." clause of its sentence (after a condition word, before any "then")?"""
        stop = bisect.bisect_left(self._stops, start)
        sentence = self._stops[stop - 1] + 1 if stop else 0
        # The sentence's first condition word ends at or before `start`; a consequence word between the two
        # ends the clause.
        first = bisect.bisect_left(self._conditions, sentence)
        if first == len(self._conditions) or self._conditions[first] > start:
            return False
        after = bisect.bisect_left(self._consequences, self._conditions[first])
        return after == len(self._consequences) or self._consequences[after] >= start


ASSUMING = re.compile(_CONDITION.pattern.replace("(if|", "(let|if|"), re.IGNORECASE)


def step_claims(text: str) -> StepClaims:
    """What the text claims (definitions such as "Let x = 3" included: a formal step must establish them)
    and what it assumes (conditions such as "if x = 3", "suppose n is even"); empty when nothing is readable."""
    found = extract(text)
    out = StepClaims(notes=list(found.notes), existential=_existentials(text), names=mentioned_names(text))
    out.uncompared += [u.message for u in getattr(found, "unread", ())]
    out.uncompared += _unaccounted(text, found)
    negation = _NEGATION.search(text)
    if negation and (found.claims or found.bindings):
        out.uncompared.append(f"`{negation.group(0)}` (prose negation: the checker does not read its scope, so it "
                              "compares no relation of the step)")
    conditions = [a.relation for a in found.assumptions if a.relation is not None]
    conditionals, assuming = Clauses(text, _CONDITION), Clauses(text, ASSUMING)
    cases = list(getattr(found, "cases", ()))  # "if x = 3": holds for this step only, a condition
    for rel in found.bindings:
        try:
            value = evaluate(rel.rhs_tree)
        except ExpressionError:
            continue
        if rel.bound_name is not None and not value.free_symbols:
            out.bindings.setdefault(rel.bound_name, value)
    for rel in (*found.bindings, *found.claims, *conditions, *cases):
        premise = rel in cases or conditionals.conditional(rel.span[0])
        if rel.op == "~=":
            out.notes.append(f"`{rel.text}` is approximate; a Coq theorem states exact facts, so it is not compared")
            if not premise:
                out.uncompared.append(rel.text)
            continue
        try:
            atom = relation_atom(rel.op, evaluate(rel.lhs_tree), evaluate(rel.rhs_tree), rel.text)
        except ExpressionError as exc:
            out.notes.append(f"`{rel.text}` was not compared: {exc.message}")
            if not premise:
                out.uncompared.append(rel.text)
            continue
        if premise:
            out.premises.append(atom)
        else:
            out.claims.append(atom)
            out.texts.append(rel.text)
    for assumption in found.assumptions:
        if assumption.name is None:
            continue
        v = sympy.Symbol(assumption.name)
        premise = assuming.conditional(assumption.span[0] + len(assumption.source))
        domain = domain_of(assumption.properties)
        if domain is not None and premise:
            out.domains[assumption.name] = domain
        for prop in assumption.properties:
            if prop not in PROPERTY_ATOMS:
                continue
            op, expr = PROPERTY_ATOMS[prop](v)
            atom = Atom(op, expr, f"{assumption.name} is {prop}")
            if premise:
                out.premises.append(atom)
            else:
                out.claims.append(atom)
                out.texts.append(atom.text)
    for phrase in phrases(text):
        said = phrase.atom()
        if said is not None:
            out.claims.append(said)
            out.texts.append(phrase.text)
    return out


PROPERTY_ATOMS = {
    "even": lambda v: ("=", sympy.Mod(v, 2)),
    "odd": lambda v: ("=", sympy.Mod(v, 2) - 1),
    "positive": lambda v: ("<", -v),
    "negative": lambda v: ("<", v),
    "nonnegative": lambda v: ("<=", -v),
    "nonpositive": lambda v: ("<=", v),
}
