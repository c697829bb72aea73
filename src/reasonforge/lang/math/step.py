"""What one step of natural-language maths asserts: the relations and assumptions `lang.math.text.extract`
reads out of it, as plain data over the expression AST (`lang.math.expr`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import sympy

from reasonforge.lang.math.expr import Name, Node, names_in, to_sympy, to_text

__all__ = ["Assumption", "Origin", "Relation", "StepMath"]

Origin = Literal["annotation", "latex", "text"]
"""Where a relation was read: a calculator annotation, delimited LaTeX, or plain text."""


@dataclass(frozen=True)
class Relation:
    """`lhs op rhs` as written in the step: op is one of = < > <= >= != ~= (≈)."""

    op: str
    lhs_tree: Node
    rhs_tree: Node
    span: tuple[int, int]
    source: str
    origin: Origin
    unit: str | None = None  # the unit its quantities are stated in (`3x = 60 minutes` → minute), when written

    @property
    def text(self) -> str:
        """Canonical text in the artifact expression language, e.g. `48/2 = 24`."""
        return f"{to_text(self.lhs_tree)} {self.op} {to_text(self.rhs_tree)}"

    @property
    def lhs(self) -> sympy.Expr:
        """The left side as an unevaluated SymPy tree."""
        return to_sympy(self.lhs_tree)

    @property
    def rhs(self) -> sympy.Expr:
        """The right side as an unevaluated SymPy tree."""
        return to_sympy(self.rhs_tree)

    @property
    def names(self) -> frozenset[str]:
        """Symbol names used on either side."""
        return names_in(self.lhs_tree) | names_in(self.rhs_tree)

    @property
    def bound_name(self) -> str | None:
        """The symbol on the left of an `=` whose left side is a lone symbol (a binding's name)."""
        if self.op == "=" and isinstance(self.lhs_tree, Name) and self.lhs_tree.name != "pi":
            return self.lhs_tree.name
        return None

    def sympy(self) -> sympy.Basic:
        """The relation as an unevaluated SymPy relational (`~=` becomes Eq: it is checked with a tolerance)."""
        build = {"=": sympy.Eq, "~=": sympy.Eq, "<": sympy.Lt, ">": sympy.Gt, "<=": sympy.Le, ">=": sympy.Ge,
                 "!=": sympy.Ne}[self.op]
        return build(self.lhs, self.rhs, evaluate=False)


@dataclass(frozen=True)
class Assumption:
    """A domain statement: a relation (`z > 0`) or properties of a name (`k` integer)."""

    span: tuple[int, int]
    source: str
    relation: Relation | None = None
    name: str | None = None
    properties: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        """Artifact form: `z > 0` or `k is positive integer`."""
        if self.relation is not None:
            return self.relation.text
        return f"{self.name} is {' '.join(self.properties)}"


@dataclass(frozen=True)
class StepMath:
    """What a step asserts (claims), introduces (bindings: "Let x = 3"; cases: "if x = 3", which hold for
    this step only), assumes, and what could not be read."""

    claims: tuple[Relation, ...] = ()
    bindings: tuple[Relation, ...] = ()
    assumptions: tuple[Assumption, ...] = ()
    notes: tuple[str, ...] = ()
    cases: tuple[Relation, ...] = ()

    @property
    def relations(self) -> tuple[Relation, ...]:
        """Bindings, cases and claims in text order."""
        return tuple(sorted((*self.bindings, *self.cases, *self.claims), key=lambda r: r.span))

    @property
    def empty(self) -> bool:
        """Whether nothing checkable was found (no claim, binding or case)."""
        return not self.claims and not self.bindings and not self.cases
