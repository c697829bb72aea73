"""Whether a word problem's step rests on what the question states: the grounding rule of
`lang.math.quantities.Grounds` applied to a chain's readings (the question's bindings, the ancestors' claims and
bindings, in order, then the step's relations), for every maths aligner (sympy, Coq) to apply alike.

It applies to a question whose operands are the quantities of a story: one that states quantities of something
(money, a percent, "16 eggs") or asks for a quantity in words ("the hypotenuse of a right triangle with legs 3 and
4"), and states no relation beyond bindings of names to numbers ("lay e = 16 eggs"), whatever it names its
unknown ("Let x be the dollars she makes. Find x."). A question in algebra ("If 2x + 3 = 11, find x", "Let x = 3.
Find x + 1.") is not one: its steps derive numbers its text never writes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from reasonforge.lang.math.expr import Num, Postfix, Unary
from reasonforge.lang.math.quantities import (
    Grounds,
    Quantity,
    Ungrounded,
    fraction_parts,
    stated_forms,
    stated_quantities,
    unit_constants,
)
from reasonforge.lang.math.reading import Question, read_question
from reasonforge.lang.math.step import StepMath

__all__ = ["StepGrounding", "grounds_by_value", "step_grounding"]


@dataclass(frozen=True)
class StepGrounding:
    """The operands of a step that nothing grounds (in order), and what the question states."""

    missing: tuple[Ungrounded, ...]
    stated: tuple[Quantity, ...]

    def message(self) -> str:
        """One line naming the first ungrounded operand and what the question states."""
        first = self.missing[0]
        listed = ", ".join(q.describe() for q in self.stated[:8]) or "none"
        return (f"{first.operand} in {first.relation.text} is not a quantity the question states, a result computed "
                f"from those, or a named constant of its units (the question states: {listed})")


def grounds_by_value(question: Question) -> bool:
    """A question whose operands are the quantities of a story (the module docstring)."""
    givens = question.givens
    if givens.cases or any(a.relation is not None for a in givens.assumptions):
        return False
    return all(rel in givens.bindings and _literal(rel.rhs_tree) for rel in givens.relations)


def _story(quantity: Quantity) -> bool:
    """A quantity of a story: money, a percent, or a number of something ("16 eggs"; not the 2 of `2x`)."""
    counted = quantity.counts.split(" ")[0] if quantity.counts else ""
    return quantity.percent or quantity.text[:1] in "$€£¥₹" or len(counted) >= 2


def _literal(node: object) -> bool:
    while isinstance(node, Unary | Postfix):
        node = node.arg
    return isinstance(node, Num)


def step_grounding(query: str, ancestors: Sequence[StepMath], own: StepMath) -> StepGrounding | None:
    """The step's ungrounded operands (`missing` empty when all are grounded), or None when the rule does not
    apply (the question is no story, or states no quantity)."""
    stated = stated_quantities(query)
    question = read_question(query)
    if not stated or not grounds_by_value(question):
        return None
    if not any(_story(q) for q in stated) and not question.asked_words - {"answer"}:
        return None  # numbers of no story, nor a quantity asked for in words ("Let x = 3. Find x + 1.")
    grounds = Grounds(values={*stated_forms(stated), *unit_constants([query])}, parts=fraction_parts(stated))
    for rel in question.givens.relations:
        grounds.walk(rel)
    for math in ancestors:
        for rel in math.relations:
            if rel in math.claims or rel in math.bindings:
                grounds.walk(rel)
    # the step's hypotheses ("if 200 + 200x = 228, then x = .14") constrain its names like its relations do
    walked = sorted((*own.relations, *(a.relation for a in own.assumptions if a.relation is not None)),
                    key=lambda r: r.span)
    missing = tuple(m for rel in walked for m in grounds.walk(rel))
    return StepGrounding(missing, stated)
