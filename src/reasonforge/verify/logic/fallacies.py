"""Name the classic invalid inference a failed logic step commits, so the report can suggest a fix.

Purely syntactic and only consulted after the solver has already found a counterexample: it
explains a failure, it never decides one.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from reasonforge.lang.logic import Const, Formula, Implies, Not, Quant, Term
from reasonforge.lang.logic.formulas import constants, substitute
from reasonforge.types import ErrorKind

_PROBE = Const("⋆")  # a name no parsed constant can have, standing for "an arbitrary individual"


def _conditionals(premises: Iterable[Formula], names: list[Term]) -> list[tuple[Formula, Formula]]:
    """Every instance (antecedent, consequent) of a premise `A → B` or `∀x (A → B)`."""
    out: list[tuple[Formula, Formula]] = []
    for p in premises:
        if isinstance(p, Implies):
            out.append((p.left, p.right))
        elif isinstance(p, Quant) and p.kind == "forall" and isinstance(p.body, Implies):
            for name in [*names, _PROBE]:
                inst = substitute(p.body, p.var, name)
                assert isinstance(inst, Implies)
                out.append((inst.left, inst.right))
    return out


def _universal_rule(f: Formula) -> tuple[Formula, Formula] | None:
    if isinstance(f, Quant) and f.kind == "forall" and isinstance(f.body, Implies):
        inst = substitute(f.body, f.var, _PROBE)
        assert isinstance(inst, Implies)
        return inst.left, inst.right
    return None


def name_fallacy(premises: Sequence[Formula], conclusion: Formula) -> ErrorKind | None:
    """Return `affirming_the_consequent`, `denying_the_antecedent`, `illicit_conversion`,
    `undistributed_middle`, or None when the failed inference matches none of them."""
    facts = set(premises)
    names: list[Term] = [Const(c) for c in constants(conclusion)]
    for antecedent, consequent in _conditionals(premises, names):
        if conclusion == antecedent and consequent in facts:
            return ErrorKind.AFFIRMING_THE_CONSEQUENT
        if conclusion == Not(consequent) and Not(antecedent) in facts:
            return ErrorKind.DENYING_THE_ANTECEDENT
    claim = _universal_rule(conclusion)
    if claim is not None:
        rules = [r for r in map(_universal_rule, premises) if r is not None]
        subject, predicate = claim
        if (predicate, subject) in rules:
            return ErrorKind.ILLICIT_CONVERSION
        # All S are M, all P are M, therefore all S are P: the middle term M is never distributed.
        middles_of_s = {m for s, m in rules if s == subject}
        if any(s == predicate and m in middles_of_s for s, m in rules):
            return ErrorKind.UNDISTRIBUTED_MIDDLE
    return None
