"""Generic operations on the `lang.logic` formula tree, shared by the translator and the checker."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Literal

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


def canonical(formula: Formula) -> Formula:
    """`formula` with bound variables renamed in binding order and nested ∧/∨ flattened (alpha-equivalence)."""
    return _canon(formula, {}, [0])


def _canon(f: Formula, names: dict[str, str], counter: list[int]) -> Formula:
    if isinstance(f, Atom):
        return Atom(f.pred, tuple(_rename(t, names) for t in f.args))
    if isinstance(f, Eq):
        return Eq(_rename(f.left, names), _rename(f.right, names))
    if isinstance(f, Quant):
        new = f"_{counter[0]}"
        counter[0] += 1
        return Quant(f.kind, new, _canon(f.body, {**names, f.var: new}, counter))
    if isinstance(f, (And, Or)):
        parts = [_canon(a, names, counter) for a in f.args]
        return conj(parts) if isinstance(f, And) else disj(parts)
    return rebuild(f, _canon, names, counter)


def _rename(t: Term, names: dict[str, str]) -> Term:
    return Var(names[t.name]) if isinstance(t, Var) and t.name in names else t


def conjuncts(f: Formula) -> list[Formula]:
    """The conjuncts of `f` (itself when it is no conjunction)."""
    return list(f.args) if isinstance(f, And) else [f]


def universal_prefix(f: Formula) -> tuple[tuple[str, ...], Formula]:
    """The variables of `f`'s leading ∀s (canonically renamed) and the body under them."""
    bound: list[str] = []
    f = canonical(f)
    while isinstance(f, Quant) and f.kind == "forall":
        bound.append(f.var)
        f = f.body
    return tuple(bound), f


def is_instance(ground: Formula, pattern: Formula, bound: set[str], binding: dict[str, str]) -> bool:
    """Whether `ground` is `pattern` with its `bound` variables replaced by constants (extends `binding`)."""
    if type(ground) is not type(pattern):
        return False
    if isinstance(pattern, Atom):
        assert isinstance(ground, Atom)
        if pattern.pred != ground.pred or len(pattern.args) != len(ground.args):
            return False
        return _bind(zip(pattern.args, ground.args), bound, binding)
    if isinstance(pattern, Eq):
        assert isinstance(ground, Eq)
        return _bind(((pattern.left, ground.left), (pattern.right, ground.right)), bound, binding)
    if isinstance(pattern, Quant):
        return False  # a quantifier inside the rule: left to the solver
    mine, theirs = children(pattern), children(ground)
    if not mine:
        return pattern == ground  # ⊤ / ⊥
    return len(mine) == len(theirs) and all(is_instance(g, p, bound, binding) for g, p in zip(theirs, mine))


def _bind(pairs: Iterable[tuple[Term, Term]], bound: set[str], binding: dict[str, str]) -> bool:
    for p, g in pairs:
        if isinstance(p, Var) and p.name in bound:
            if not isinstance(g, Const) or binding.setdefault(p.name, g.name) != g.name:
                return False
        elif p != g:
            return False
    return True


def close(kind: Literal["forall", "exists"], body: Formula, names: Iterable[str]) -> Formula:
    """Bind the constants `names` in `body` with `kind` quantifiers (variables no formula can already use)."""
    names = list(names)
    if not names:
        return body
    mapping = {name: f"{name}!{i}" for i, name in enumerate(names)}
    body = _abstract(body, mapping)
    for name in reversed(names):
        body = Quant(kind, mapping[name], body)
    return body


def _abstract(f: Formula, mapping: dict[str, str]) -> Formula:
    def swap(t: Term) -> Term:
        return Var(mapping[t.name]) if isinstance(t, Const) and t.name in mapping else t

    if isinstance(f, Atom):
        return Atom(f.pred, tuple(swap(t) for t in f.args))
    if isinstance(f, Eq):
        return Eq(swap(f.left), swap(f.right))
    return rebuild(f, _abstract, mapping)


def domain_closure(universe: Sequence[str]) -> Formula | None:
    """∀d (d = c₁ ∨ … ∨ d = cₙ): nothing exists but the individuals of `universe`; None for an empty one."""
    if not universe:
        return None
    return Quant("forall", "d!", disj([Eq(Var("d!"), Const(c)) for c in universe]))
