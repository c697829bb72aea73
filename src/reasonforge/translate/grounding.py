"""Reduce a function-free first-order entailment to propositional logic by Skolemising and grounding.

Why this is exact: to decide `P ⊨ C` the checker tests `P ∧ ¬C` for satisfiability. Existentials of
`P ∧ ¬C` that sit under no universal become fresh constants (Skolem constants: satisfiability is
preserved). What is left is universal and function-free, so its Herbrand universe is the finite set of
its constants (one fresh constant if there are none), and by Herbrand's theorem it is satisfiable iff
its grounding over that set is. So the grounded artifact is verified iff the first-order one is. This
covers every theory the rule-based translator produces from PrOntoQA and ProofWriter (universal rules,
named individuals, a conclusion whose negation has at most top-level witnesses), and more: the
Bernays–Schönfinkel class. An existential under a universal (which would need a Skolem function) or a
quantifier under ↔/⊕ (both polarities) is refused, and the caller keeps the `fol` artifact.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from reasonforge.translate.formula import (
    And,
    Atom,
    Const,
    Exists,
    ForAll,
    Formula,
    Iff,
    Implies,
    Not,
    Or,
    Xor,
    conj,
    constants,
    disj,
    render,
    size,
    substitute,
)


class NotGroundable(Exception):
    """The entailment is outside the class that grounding decides exactly (message says why)."""


def ground_entailment(
    premises: list[Formula], conclusion: Formula, *, max_nodes: int = 50_000
) -> tuple[list[Formula], Formula]:
    """Quantifier-free premises and conclusion whose entailment holds iff the first-order one does."""
    taken = {c for f in [*premises, conclusion] for c in constants(f)}
    fresh = _fresh_names(taken)
    sk_premises = [_skolemize(p, True, False, fresh) for p in premises]
    sk_conclusion = _skolemize(conclusion, False, False, fresh)  # polarity of the negated conclusion
    universe: list[str] = []
    for f in [*sk_premises, sk_conclusion]:
        universe.extend(c for c in constants(f) if c not in universe)
    if not universe:
        universe.append(next(fresh))  # domains are non-empty
    budget = [max_nodes]
    grounded = [_ground(p, universe, budget) for p in sk_premises]
    return grounded, _ground(sk_conclusion, universe, budget)


def render_propositional(formula: Formula, names: dict[str, tuple[str, tuple[str, ...]]]) -> str:
    """Print a ground formula with atoms as identifiers (`Mammal_moby`); `names` detects clashes."""

    def atom_text(atom: Atom) -> str:
        parts = (atom.pred, *(a.name for a in atom.args))
        text = "_".join(parts)
        owner = names.setdefault(text, (atom.pred, parts[1:]))
        if owner != (atom.pred, parts[1:]):
            raise NotGroundable(f"two atoms would both print as {text}")
        return text

    return render(formula, atom_text)


def _fresh_names(taken: set[str]) -> Iterator[str]:
    n = 0
    while True:
        n += 1
        if f"sk{n}" not in taken:
            yield f"sk{n}"


def _has_quantifier(f: Formula) -> bool:
    if isinstance(f, (ForAll, Exists)):
        return True
    if isinstance(f, Atom):
        return False
    if isinstance(f, Not):
        return _has_quantifier(f.body)
    if isinstance(f, (And, Or)):
        return any(_has_quantifier(p) for p in f.parts)
    return _has_quantifier(f.left) or _has_quantifier(f.right)


def _skolemize(f: Formula, positive: bool, under_universal: bool, fresh: Iterator[str]) -> Formula:
    """Replace effectively-existential quantifiers by fresh constants; `positive` is f's polarity."""
    if isinstance(f, Atom):
        return f
    if isinstance(f, Not):
        return Not(_skolemize(f.body, not positive, under_universal, fresh))
    if isinstance(f, (And, Or)):
        return type(f)(tuple(_skolemize(p, positive, under_universal, fresh) for p in f.parts))
    if isinstance(f, Implies):
        return Implies(
            _skolemize(f.left, not positive, under_universal, fresh),
            _skolemize(f.right, positive, under_universal, fresh),
        )
    if isinstance(f, (Iff, Xor)):
        if _has_quantifier(f):
            raise NotGroundable("a quantifier under ↔ or ⊕ occurs with both polarities")
        return f
    existential = isinstance(f, Exists) == positive
    if existential:
        if under_universal:
            raise NotGroundable("an existential inside a universal needs a Skolem function")
        witness = Const(next(fresh))
        return _skolemize(substitute(f.body, f.var, witness), positive, under_universal, fresh)
    return type(f)(f.var, _skolemize(f.body, positive, True, fresh))


def _ground(f: Formula, universe: list[str], budget: list[int]) -> Formula:
    if isinstance(f, Atom):
        return f
    if isinstance(f, Not):
        return Not(_ground(f.body, universe, budget))
    if isinstance(f, (And, Or)):
        build: Callable = conj if isinstance(f, And) else disj
        return build([_ground(p, universe, budget) for p in f.parts])
    if isinstance(f, (Xor, Implies, Iff)):
        return type(f)(_ground(f.left, universe, budget), _ground(f.right, universe, budget))
    instances = []
    for c in universe:
        instance = _ground(substitute(f.body, f.var, Const(c)), universe, budget)
        budget[0] -= size(instance)
        if budget[0] < 0:
            raise NotGroundable("the grounded formula would be too large")
        instances.append(instance)
    return conj(instances) if isinstance(f, ForAll) else disj(instances)
