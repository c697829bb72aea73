"""Generic operations on the `lang.logic` formula tree, shared by the translator and the checker."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

from reasonforge.lang.logic.syntax import (
    And,
    Atom,
    BoolConst,
    Const,
    Eq,
    Formula,
    Iff,
    Implies,
    Not,
    Or,
    Quant,
    Term,
    Var,
    Xor,
)

_LEAVES = (Atom, Eq, BoolConst)


def forall(var: str, body: Formula) -> Quant:
    """`∀var body`."""
    return Quant("forall", var, body)


def exists(var: str, body: Formula) -> Quant:
    """`∃var body`."""
    return Quant("exists", var, body)


def conj(parts: Sequence[Formula]) -> Formula:
    """Conjunction of `parts`, flattened; a single part is returned as is."""
    return _flat(And, parts, "empty conjunction")


def disj(parts: Sequence[Formula]) -> Formula:
    """Disjunction of `parts`, flattened; a single part is returned as is."""
    return _flat(Or, parts, "empty disjunction")


def _flat(kind: type[And | Or], parts: Sequence[Formula], empty: str) -> Formula:
    flat: list[Formula] = []
    for part in parts:
        flat.extend(part.args if isinstance(part, kind) else (part,))
    if not flat:
        raise ValueError(empty)
    return flat[0] if len(flat) == 1 else kind(tuple(flat))


def negate(formula: Formula) -> Formula:
    """`¬formula`, cancelling a double negation."""
    return formula.arg if isinstance(formula, Not) else Not(formula)


def children(formula: Formula) -> tuple[Formula, ...]:
    """Immediate subformulas (none for an atom, an equation or ⊤/⊥)."""
    if isinstance(formula, _LEAVES):  # first: leaves are most of any tree, and these walks are hot
        return ()
    if isinstance(formula, Not):
        return (formula.arg,)
    if isinstance(formula, (And, Or, Xor)):
        return formula.args
    if isinstance(formula, (Implies, Iff)):
        return (formula.left, formula.right)
    assert isinstance(formula, Quant)
    return (formula.body,)


def rebuild(formula: Formula, change: Callable[..., Formula], *extra: object) -> Formula:
    """`formula` with each immediate subformula `c` replaced by `change(c, *extra)`, left to right."""
    # `extra` rather than a closure: recursive walks call this once per node, and lambdas cost.
    if isinstance(formula, (Implies, Iff)):
        return type(formula)(change(formula.left, *extra), change(formula.right, *extra))
    if isinstance(formula, Not):
        return Not(change(formula.arg, *extra))
    if isinstance(formula, (And, Or, Xor)):
        return type(formula)(tuple([change(a, *extra) for a in formula.args]))
    if isinstance(formula, Quant):
        return Quant(formula.kind, formula.var, change(formula.body, *extra))
    return formula  # an atom, an equation or ⊤/⊥


def terms(formula: Formula) -> tuple[Term, ...]:
    """The terms of an atom or equation itself (not of its subformulas)."""
    if isinstance(formula, Atom):
        return formula.args
    if isinstance(formula, Eq):
        return (formula.left, formula.right)
    return ()


def substitute(formula: Formula, var: str, term: Term) -> Formula:
    """Replace the free occurrences of variable `var` by `term`."""

    def swap(t: Term) -> Term:
        return term if isinstance(t, Var) and t.name == var else t

    if isinstance(formula, Atom):
        return Atom(formula.pred, tuple(swap(a) for a in formula.args))
    if isinstance(formula, Eq):
        return Eq(swap(formula.left), swap(formula.right))
    if isinstance(formula, Quant) and formula.var == var:  # shadowed: nothing free below
        return formula
    return rebuild(formula, substitute, var, term)


def nodes(formula: Formula) -> Iterator[Formula]:
    """Every subformula, `formula` first, in left-to-right preorder."""
    stack = [formula]
    while stack:
        f = stack.pop()
        yield f
        stack.extend(reversed(children(f)))


def atoms(formula: Formula) -> list[Atom]:
    """Every atom occurrence, left to right."""
    return [f for f in nodes(formula) if isinstance(f, Atom)]


def constants(formula: Formula) -> list[str]:
    """Constant names in order of first occurrence."""
    seen: dict[str, None] = {}
    stack = [formula]
    while stack:
        f = stack.pop()
        if isinstance(f, _LEAVES):
            for t in terms(f):
                if isinstance(t, Const):
                    seen[t.name] = None  # a repeated key keeps its first position
        else:
            stack.extend(reversed(children(f)))
    return list(seen)


def free_vars(formula: Formula) -> set[str]:
    """Variables occurring free."""
    if isinstance(formula, _LEAVES):
        return {t.name for t in terms(formula) if isinstance(t, Var)}
    found = set().union(*map(free_vars, children(formula)))
    if isinstance(formula, Quant):
        found.discard(formula.var)
    return found


def size(formula: Formula) -> int:
    """Number of nodes (a guard against grounding blow-up)."""
    return 1 + sum(map(size, children(formula)))
