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

from reasonforge.lang.logic import And, Atom, Const, Eq, Formula, Iff, Implies, Not, Or, Quant, Xor, to_text
from reasonforge.lang.logic.formulas import conj, constants, disj, nodes, rebuild, size, substitute


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


def propositional(formula: Formula, names: dict[str, tuple[str, tuple[str, ...]]]) -> Formula:
    """A ground formula with each atom `P(a, b)` made the 0-ary atom `P_a_b`; `names` detects clashes."""

    def rename(f: Formula) -> Formula:
        if isinstance(f, Atom):
            args = tuple(a.name for a in f.args)
            text = "_".join((f.pred, *args))
            if names.setdefault(text, (f.pred, args)) != (f.pred, args):
                raise NotGroundable(f"two atoms would both print as {text}")
            return Atom(text)
        if isinstance(f, Eq):
            raise NotGroundable("an equation has no propositional form")
        return rebuild(f, rename)

    return rename(formula)


def render_propositional(formula: Formula, names: dict[str, tuple[str, tuple[str, ...]]]) -> str:
    """Print a ground formula as a `propositional` artifact line (atoms as identifiers: `Mammal_moby`)."""
    return to_text(propositional(formula, names), explicit=True)


def _fresh_names(taken: set[str]) -> Iterator[str]:
    n = 0
    while True:
        n += 1
        if f"sk{n}" not in taken:
            yield f"sk{n}"


def _skolemize(f: Formula, positive: bool, under_universal: bool, fresh: Iterator[str]) -> Formula:
    """Replace effectively-existential quantifiers by fresh constants; `positive` is f's polarity."""
    if isinstance(f, Atom):
        return f
    if isinstance(f, Not):
        return Not(_skolemize(f.arg, not positive, under_universal, fresh))
    if isinstance(f, Implies):
        return Implies(
            _skolemize(f.left, not positive, under_universal, fresh),
            _skolemize(f.right, positive, under_universal, fresh),
        )
    if isinstance(f, (Iff, Xor)):
        if any(isinstance(n, Quant) for n in nodes(f)):
            raise NotGroundable("a quantifier under ↔ or ⊕ occurs with both polarities")
        return f
    if not isinstance(f, Quant):  # ∧, ∨ keep the polarity; atoms, equations and ⊤/⊥ are unchanged
        return rebuild(f, _skolemize, positive, under_universal, fresh)
    existential = (f.kind == "exists") == positive
    if existential:
        if under_universal:
            raise NotGroundable("an existential inside a universal needs a Skolem function")
        witness = Const(next(fresh))
        return _skolemize(substitute(f.body, f.var, witness), positive, under_universal, fresh)
    return Quant(f.kind, f.var, _skolemize(f.body, positive, True, fresh))


def _ground(f: Formula, universe: list[str], budget: list[int]) -> Formula:
    if isinstance(f, Atom):
        return f
    if isinstance(f, (And, Or)):
        build: Callable = conj if isinstance(f, And) else disj
        return build([_ground(p, universe, budget) for p in f.args])
    if not isinstance(f, Quant):
        return rebuild(f, _ground, universe, budget)
    instances = []
    for c in universe:
        instance = _ground(substitute(f.body, f.var, Const(c)), universe, budget)
        budget[0] -= size(instance)
        if budget[0] < 0:
            raise NotGroundable("the grounded formula would be too large")
        instances.append(instance)
    return conj(instances) if f.kind == "forall" else disj(instances)
