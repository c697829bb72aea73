"""What a step's natural-language text claims, as relations the Coq alignment check can compare.

Relations (`x² + y² = z²`, chains `z² = 9 + 16 = 25`, bindings `Let x = 3`) come from the shared
extractor `lang.math.text.extract` (the translators read text with it too); parity and divisibility phrases (`n² is even`, `4 divides n²`,
`n² is divisible by 4`, `a multiple of 4`) are read here, since that extractor leaves them as domain
assumptions. A phrase introduced by `since`, `because`, `given`, `if`, `suppose`, `assume` or `let`
is a premise the step uses, not a claim it makes, and is not returned.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import sympy

from reasonforge.lang.math.expr import (
    ExpressionError,
    Node,
    evaluate,
    parse_expression,
)
from reasonforge.lang.math.text import extract
from reasonforge.verify.coq.terms import Atom

__all__ = ["Phrase", "StepClaims", "phrases", "step_claims"]

_SUPERSCRIPTS = str.maketrans({"²": "^2", "³": "^3", "⁴": "^4"})
_TERM = r"[\w²³⁴^()*+\-/]+"  # one maths word (`n²`, `(2k)²`, `n^2`): prose never joins it
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


@dataclass
class StepClaims:
    """The step's claims as atoms (with their texts), the conditions it assumes, and notes on what was skipped."""

    claims: list[Atom] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    premises: list[Atom] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Phrase:
    """A parity or divisibility claim read from prose: `x` is even/odd, or `d` divides `x`."""

    kind: str  # even | odd | divides
    x: Node
    d: Node | None
    text: str

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


def phrases(text: str) -> list[Phrase]:
    """Parity and divisibility claims of the text (premises introduced by since/if/... are left out)."""
    out: list[Phrase] = []
    for pattern, kind in _PHRASES:
        for m in pattern.finditer(text):
            if _PREMISE.search(text[:m.start()]):
                continue
            x = _node(m.group("x"))
            if x is None:
                continue
            if kind == "parity":
                out.append(Phrase(m.group("p").lower(), x, None, m.group(0).strip()))
                continue
            d = _node(m.group("d"))
            if d is not None:
                out.append(Phrase("divides", x, d, m.group(0).strip()))
    return out


def _atom(op: str, lhs: sympy.Expr, rhs: sympy.Expr, text: str) -> Atom:
    if op == ">":
        return Atom("<", rhs - lhs, text)
    if op == ">=":
        return Atom("<=", rhs - lhs, text)
    return Atom(op, lhs - rhs, text)


def _conditional(text: str, start: int, words: re.Pattern[str] = _CONDITION) -> bool:
    """Is the relation starting at `start` inside an "if ..." clause of its sentence (before any "then")?"""
    sentence = text[max(text.rfind(".", 0, start), text.rfind(";", 0, start)) + 1:start]
    m = words.search(sentence)
    return m is not None and _CONSEQUENCE.search(m.group("rest")) is None


_ASSUMING = re.compile(_CONDITION.pattern.replace("(if|", "(let|if|"), re.IGNORECASE)


def step_claims(text: str) -> StepClaims:
    """What the text claims (definitions such as "Let x = 3" included: a formal step must establish them)
    and what it assumes (conditions such as "if x = 3", "suppose n is even"); empty when nothing is readable."""
    found = extract(text)
    out = StepClaims(notes=list(found.notes))
    conditions = [a.relation for a in found.assumptions if a.relation is not None]
    cases = list(getattr(found, "cases", ()))  # "if x = 3": holds for this step only, a condition
    for rel in (*found.bindings, *found.claims, *conditions, *cases):
        if rel.op == "~=":
            out.notes.append(f"`{rel.text}` is approximate; a Coq theorem states exact facts, so it is not compared")
            continue
        try:
            atom = _atom(rel.op, evaluate(rel.lhs_tree), evaluate(rel.rhs_tree), rel.text)
        except ExpressionError as exc:
            out.notes.append(f"`{rel.text}` was not compared: {exc.message}")
            continue
        if rel in cases or _conditional(text, rel.span[0]):
            out.premises.append(atom)
        else:
            out.claims.append(atom)
            out.texts.append(rel.text)
    for assumption in found.assumptions:
        if assumption.name is None:
            continue
        v = sympy.Symbol(assumption.name)
        for prop in assumption.properties:
            if prop not in _PROPERTY_ATOMS:
                continue
            op, expr = _PROPERTY_ATOMS[prop](v)
            atom = Atom(op, expr, f"{assumption.name} is {prop}")
            if _conditional(text, assumption.span[0] + len(assumption.source), _ASSUMING):
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


_PROPERTY_ATOMS = {
    "even": lambda v: ("=", sympy.Mod(v, 2)),
    "odd": lambda v: ("=", sympy.Mod(v, 2) - 1),
    "positive": lambda v: ("<", -v),
    "negative": lambda v: ("<", v),
    "nonnegative": lambda v: ("<=", -v),
    "nonpositive": lambda v: ("<=", v),
}
