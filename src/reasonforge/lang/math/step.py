"""What one step of natural-language maths asserts: the relations and assumptions `lang.math.text.extract`
reads out of it, as plain data over the expression AST (`lang.math.expr`)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Literal

import sympy

from reasonforge.lang.math.expr import Name, Node, names_in, to_sympy, to_text

__all__ = ["Assumption", "Origin", "Relation", "StepMath", "Unread", "UnreadReason"]

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


class UnreadReason(StrEnum):
    """Why a relation the text asserts was not read: the step cannot rest on its other relations alone."""

    UNPARSED = "unparsed"  # a side is not an expression of the artifact language
    INCOMPLETE = "incomplete"  # prose cuts a side (`7 gallons + Cynthia's 8 = 15`, `= about 7`)
    WORD_OPERATOR = "word_operator"  # a word changes a side's value (`three times`, `5 more than`, `3 dozen`)
    UNIT = "unit"  # quantities in different units or dimensions, or a letter that may be a unit or an unknown
    NEGATION = "negation"  # prose negation whose scope over the relation cannot be read exactly
    AMBIGUOUS = "ambiguous"  # the prose allows two readings that disagree (a range `3-4`, `1,5`, "of")
    SYMBOL = "symbol"  # a symbol or digit outside the reader's alphabet (`≡`, `৪`, fullwidth `１`)
    SCRIPT = "script"  # its sentence holds words of a script the reader does not read (`Неверно, что 3 + 3 = 6`)
    # the sentence does not assert it: a question, a hypothesis ("If 2 + 2 = 5, …", "Suppose … that 2 + 2 = 5"),
    # a counterfactual ("… would be absurd"), a report or a quoted mistake ("A common mistake is to write …")
    NOT_ASSERTED = "not_asserted"


@dataclass(frozen=True)
class Unread:
    """A relation the step's text asserts that the reader could not read exactly (never verified by others)."""

    span: tuple[int, int]
    source: str
    reason: UnreadReason
    detail: str = ""

    @property
    def message(self) -> str:
        """One line for a note: what was not read and why."""
        quoted = " ".join(self.source.split())
        quoted = quoted if len(quoted) <= 80 else quoted[:79] + "…"
        return f"did not read \"{quoted}\" ({self.reason.value}{': ' + self.detail if self.detail else ''})"


@dataclass(frozen=True)
class StepMath:
    """What a step asserts (claims), introduces (bindings: "Let x = 3"; cases: "if x = 3", which hold for
    this step only), assumes, and what could not be read: `unread` lists every relation the text asserts that
    was not read exactly (a step with any is at best unsupported: its other relations are not all it says)."""

    claims: tuple[Relation, ...] = ()
    bindings: tuple[Relation, ...] = ()
    assumptions: tuple[Assumption, ...] = ()
    notes: tuple[str, ...] = ()
    cases: tuple[Relation, ...] = ()
    unread: tuple[Unread, ...] = ()

    @property
    def exact(self) -> bool:
        """Whether every relation the text asserts was read (nothing in `unread`)."""
        return not self.unread

    @property
    def relations(self) -> tuple[Relation, ...]:
        """Bindings, cases and claims in text order."""
        return tuple(sorted((*self.bindings, *self.cases, *self.claims), key=lambda r: r.span))

    @property
    def empty(self) -> bool:
        """Whether nothing checkable was found (no claim, binding or case)."""
        return not self.claims and not self.bindings and not self.cases
