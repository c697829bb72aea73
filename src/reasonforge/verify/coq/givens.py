"""What the question gives: the relations, values and number domains a Context may state as hypotheses.

A Context (step 0) is where an artifact's author puts the givens, and nothing else may be assumed (DESIGN
§3.1). So the checker reads the question itself with the shared extractor (`lang.math.text.extract`): its
relations (`x + 2 = 5`, `y > 1`), bindings (`Let k = 2`), and the properties of its names (`n is an even
integer` gives `n` even and the domain integer). What the question *asks* is not given: a relation in a
sentence that asks for something (`prove`, `show`, `find`, `what`, ..., or ending with `?`) is a goal unless
it sits in a condition of that sentence ("Prove that if n is even, then ..." gives `n is even` only). A
sentence with alternatives or a denial ("x = 2 or x = 3", "x is not 3") gives nothing: its relations are not
each true, and a Context hypothesis read from them would assume more than the question says.

One named theorem is read as well: a question that gives "a right triangle with legs 3 and 4" (the maths reader's
`lang.math.problem.right_triangles`, with whole-number or decimal legs: "4√3" and "4/3" are not 4) gives the
Pythagorean relation between those legs and a fresh name of its hypotenuse, and that the name is a length
(`grounding` accepts exactly those two Context hypotheses; nothing else a triangle implies).
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

import sympy

from reasonforge.lang.math.expr import ExpressionError, evaluate
from reasonforge.lang.math.problem import right_triangles
from reasonforge.lang.math.text import extract
from reasonforge.verify.coq.claims import (
    ASSUMING,
    PROPERTY_ATOMS,
    Clauses,
    domain_of,
    mentioned_names,
    relation_atom,
)
from reasonforge.verify.coq.terms import Atom, truth

__all__ = ["Givens", "read_givens"]

_GOAL = re.compile(r"\b(prove|show|verify|check|find|determine|compute|calculate|evaluate|solve|what|which|how|whether|"
                   r"explain|justify|demonstrate|deduce|conclude|establish|confirm|derive|express|simplify|is\s+it|"
                   r"does|do|can|could|should|must)\b", re.IGNORECASE)
_SENTENCE_END = re.compile(r"[.?!;](?=\s|$)")


@dataclass
class Givens:
    """The question's givens as atoms (with their texts), its numeric bindings, the domains it gives its names,
    every name it mentions (given or asked for), and the relations it asks about (never givens)."""

    atoms: list[Atom] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    bindings: dict[str, sympy.Expr] = field(default_factory=dict)
    domains: dict[str, str] = field(default_factory=dict)
    names: set[str] = field(default_factory=set)
    goals: list[str] = field(default_factory=list)
    right_triangles: list[tuple[sympy.Expr, sympy.Expr]] = field(default_factory=list)  # the legs of each one
    contradiction: str | None = None  # why the givens cannot all hold, when exact arithmetic shows it

    def facts(self) -> list[tuple[Atom, str]]:
        """The givens as facts a step may rely on; none when they contradict each other (anything would follow)."""
        return [] if self.contradiction else [(a, "a given of the question") for a in self.atoms]


class _Sentences:
    """The question's sentence ends and "if ..." clauses, found once: asking about each of its relations then
    costs a logarithm, not a scan (a question of thousands of relations was quadratic)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._ends = [m.end() for m in _SENTENCE_END.finditer(text)]
        self._assuming = Clauses(text, ASSUMING)

    def around(self, start: int) -> tuple[int, int]:
        """The span of the sentence holding `start`."""
        at = bisect.bisect_right(self._ends, start)
        return (self._ends[at - 1] if at else 0), (self._ends[at] if at < len(self._ends) else len(self.text))

    def asserted(self, start: int) -> bool:
        """Does the sentence holding `start` state its relations plainly (no alternative, no negation)?"""
        lo, hi = self.around(start)
        return _NOT_ASSERTED.search(self.text, lo, hi) is None

    def is_goal(self, start: int, end: int) -> bool:
        """Does the question ask about the span (a goal), rather than state it (a given)?"""
        lo, hi = self.around(start)
        asks = self.text[lo:hi].rstrip().endswith("?") or _GOAL.search(self.text, lo, start) is not None
        return asks and not self._assuming.conditional(start) and not self._assuming.conditional(end)


# Words that make a sentence's relations alternatives or denials, not givens ("x = 2 or x = 3").
_NOT_ASSERTED = re.compile(r"\b(?:or|either|unless|otherwise|not|no|never|neither|nor|false|suppose\s+instead)\b|"
                           r"n['’]t\b", re.IGNORECASE)


def read_givens(question: str) -> Givens:
    """The givens of `question` (see the module docstring); empty for an empty question."""
    out = Givens()
    if not question.strip():
        return out
    found = extract(question)
    sentences = _Sentences(question)
    out.names = mentioned_names(question)
    relations = [(r, r.span) for r in (*found.bindings, *found.claims, *found.cases)]
    relations += [(a.relation, a.span) for a in found.assumptions if a.relation is not None]
    for rel, (start, end) in relations:
        if sentences.is_goal(start, end):
            out.goals.append(rel.text)
            continue
        if rel.op == "~=" or not sentences.asserted(start):
            continue
        try:
            lhs, rhs = evaluate(rel.lhs_tree), evaluate(rel.rhs_tree)
        except ExpressionError:
            continue
        out.atoms.append(relation_atom(rel.op, lhs, rhs, rel.text))
        out.texts.append(rel.text)
        if rel.bound_name is not None and not rhs.free_symbols:
            out.bindings.setdefault(rel.bound_name, rhs)
    for assumption in found.assumptions:
        if assumption.name is None:
            continue
        start, end = assumption.span
        if sentences.is_goal(start, end):
            out.goals.append(assumption.text)
            continue
        if not sentences.asserted(start):
            continue
        domain = domain_of(assumption.properties)
        if domain is not None:
            out.domains[assumption.name] = domain
        v = sympy.Symbol(assumption.name)
        for prop in assumption.properties:
            if prop in PROPERTY_ATOMS:
                op, expr = PROPERTY_ATOMS[prop](v)
                out.atoms.append(Atom(op, expr, f"{assumption.name} is {prop}"))
                out.texts.append(f"{assumption.name} is {prop}")
    for triangle in right_triangles(question):  # the maths reader's: "legs 3 and 4√3" is not legs 3 and 4
        a, b = triangle.legs
        if a.is_Rational and b.is_Rational and sentences.asserted(triangle.span[0]):
            out.right_triangles.append((a, b))
    out.contradiction = _contradiction(out.atoms)
    return out


_MAX_UNKNOWNS = 6


def _contradiction(atoms: list[Atom]) -> str | None:
    """A given that is false arithmetic, or equations with no common solution; None when none is found."""
    for atom in atoms:
        if truth(atom) is False:
            return f"the given {atom} is false"
    equations = [a.expr for a in atoms if a.op == "=" and a.expr is not None and a.expr.is_polynomial()]
    unknowns = set().union(*(e.free_symbols for e in equations)) if equations else set()
    if not equations or len(unknowns) > _MAX_UNKNOWNS:
        return None
    try:
        solutions = sympy.solve(equations, sorted(unknowns, key=str), dict=True)
    except (NotImplementedError, ValueError, TypeError):
        return None
    return None if solutions else "the given equations have no common solution"
