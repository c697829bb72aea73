"""A small first-order formula tree and its printer in FOLIO notation (the `fol` artifact syntax)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Union


@dataclass(frozen=True)
class Var:
    """A variable bound by a quantifier."""

    name: str


@dataclass(frozen=True)
class Const:
    """A named individual (`fae`, `bald_eagle`, `n127`)."""

    name: str


Term = Union[Var, Const]


@dataclass(frozen=True)
class Atom:
    """`Pred(t1, ..., tn)`."""

    pred: str
    args: tuple[Term, ...]


@dataclass(frozen=True)
class Not:
    """`¬body`."""

    body: Formula


@dataclass(frozen=True)
class And:
    """`p1 ∧ ... ∧ pn` (n ≥ 2)."""

    parts: tuple[Formula, ...]


@dataclass(frozen=True)
class Or:
    """`p1 ∨ ... ∨ pn` (n ≥ 2)."""

    parts: tuple[Formula, ...]


@dataclass(frozen=True)
class Xor:
    """`left ⊕ right` (exclusive or)."""

    left: Formula
    right: Formula


@dataclass(frozen=True)
class Implies:
    """`left → right`."""

    left: Formula
    right: Formula


@dataclass(frozen=True)
class Iff:
    """`left ↔ right`."""

    left: Formula
    right: Formula


@dataclass(frozen=True)
class ForAll:
    """`∀var (body)`."""

    var: str
    body: Formula


@dataclass(frozen=True)
class Exists:
    """`∃var (body)`."""

    var: str
    body: Formula


Formula = Union[Atom, Not, And, Or, Xor, Implies, Iff, ForAll, Exists]


def conj(parts: list[Formula] | tuple[Formula, ...]) -> Formula:
    """Conjunction of `parts`, flattened; a single part is returned as is."""
    flat: list[Formula] = []
    for part in parts:
        flat.extend(part.parts if isinstance(part, And) else (part,))
    if not flat:
        raise ValueError("empty conjunction")
    return flat[0] if len(flat) == 1 else And(tuple(flat))


def disj(parts: list[Formula] | tuple[Formula, ...]) -> Formula:
    """Disjunction of `parts`, flattened; a single part is returned as is."""
    flat: list[Formula] = []
    for part in parts:
        flat.extend(part.parts if isinstance(part, Or) else (part,))
    if not flat:
        raise ValueError("empty disjunction")
    return flat[0] if len(flat) == 1 else Or(tuple(flat))


def negate(formula: Formula) -> Formula:
    """`¬formula`, cancelling a double negation."""
    return formula.body if isinstance(formula, Not) else Not(formula)


def substitute(formula: Formula, var: str, term: Term) -> Formula:
    """Replace the free occurrences of variable `var` by `term`."""
    if isinstance(formula, Atom):
        args = tuple(term if isinstance(a, Var) and a.name == var else a for a in formula.args)
        return Atom(formula.pred, args)
    if isinstance(formula, Not):
        return Not(substitute(formula.body, var, term))
    if isinstance(formula, (And, Or)):
        return type(formula)(tuple(substitute(p, var, term) for p in formula.parts))
    if isinstance(formula, (Xor, Implies, Iff)):
        return type(formula)(substitute(formula.left, var, term), substitute(formula.right, var, term))
    if formula.var == var:  # shadowed: nothing free below
        return formula
    return type(formula)(formula.var, substitute(formula.body, var, term))


def children(formula: Formula) -> tuple[Formula, ...]:
    """Immediate subformulas."""
    if isinstance(formula, Atom):
        return ()
    if isinstance(formula, (Not, ForAll, Exists)):
        return (formula.body,)
    if isinstance(formula, (And, Or)):
        return formula.parts
    return (formula.left, formula.right)


def atoms(formula: Formula) -> list[Atom]:
    """Every atom occurrence, left to right."""
    if isinstance(formula, Atom):
        return [formula]
    return [a for child in children(formula) for a in atoms(child)]


def constants(formula: Formula) -> list[str]:
    """Constant names in order of first occurrence."""
    seen: dict[str, None] = {}
    for atom in atoms(formula):
        for arg in atom.args:
            if isinstance(arg, Const):
                seen.setdefault(arg.name)
    return list(seen)


def free_vars(formula: Formula) -> set[str]:
    """Variables occurring free."""
    if isinstance(formula, Atom):
        return {a.name for a in formula.args if isinstance(a, Var)}
    if isinstance(formula, (ForAll, Exists)):
        return free_vars(formula.body) - {formula.var}
    return set().union(*(free_vars(c) for c in children(formula)))


def size(formula: Formula) -> int:
    """Number of nodes (a guard against grounding blow-up)."""
    return 1 + sum(size(c) for c in children(formula))


_BINARY = {Xor: "⊕", Implies: "→", Iff: "↔"}


def render(formula: Formula, atom_text: Callable[[Atom], str] | None = None) -> str:
    """Print in FOLIO notation; every non-atomic operand is parenthesised so no precedence is assumed.

    `atom_text` overrides how atoms print (the propositional artifact prints `Mammal_moby`).
    """
    show = atom_text or _atom_fol

    def operand(f: Formula) -> str:
        text = go(f)
        return text if isinstance(f, Atom) or (isinstance(f, Not) and isinstance(f.body, Atom)) else f"({text})"

    def go(f: Formula) -> str:
        if isinstance(f, Atom):
            return show(f)
        if isinstance(f, Not):
            return "¬" + operand(f.body)
        if isinstance(f, And):
            return " ∧ ".join(operand(p) for p in f.parts)
        if isinstance(f, Or):
            return " ∨ ".join(operand(p) for p in f.parts)
        if isinstance(f, (ForAll, Exists)):
            return ("∀" if isinstance(f, ForAll) else "∃") + f"{f.var} ({go(f.body)})"
        return f"{operand(f.left)} {_BINARY[type(f)]} {operand(f.right)}"

    return go(formula)


def _atom_fol(atom: Atom) -> str:
    return f"{atom.pred}({', '.join(a.name for a in atom.args)})"
