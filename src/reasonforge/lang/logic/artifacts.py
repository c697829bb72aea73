"""The text of `fol` and `propositional` artifacts (premise lines, then `⊢ conclusion`) for given formulas, as the
offline translator writes them and the logic aligner rebuilds them."""

from __future__ import annotations

from collections.abc import Sequence

from reasonforge.lang.logic.grounding import NotGroundable, ground_entailment, render_propositional
from reasonforge.lang.logic.syntax import Formula, to_text

__all__ = ["MAX_GROUND_NODES", "entailment_text", "fol_text", "propositional_text"]

MAX_GROUND_NODES = 50_000
"""Largest grounded entailment (formula nodes) written as a propositional artifact; beyond it the fol one stays."""


def fol_text(premises: Sequence[Formula], conclusion: Formula) -> str:
    """A `fol` artifact: one premise per line, then `⊢ conclusion`."""
    return "\n".join([*(to_text(p, explicit=True) for p in premises), "⊢ " + to_text(conclusion, explicit=True)])


def propositional_text(premises: Sequence[Formula], conclusion: Formula, max_nodes: int) -> str:
    """The entailment Skolemised and grounded over its individuals, as a `propositional` artifact (raises
    `NotGroundable` past `max_nodes` formula nodes)."""
    ground_premises, ground_conclusion = ground_entailment(list(premises), conclusion, max_nodes=max_nodes)
    names: dict[str, tuple[str, tuple[str, ...]]] = {}
    lines = [render_propositional(p, names) for p in dict.fromkeys(ground_premises)]
    return "\n".join([*dict.fromkeys(lines), "⊢ " + render_propositional(ground_conclusion, names)])


def entailment_text(premises: Sequence[Formula], conclusion: Formula, *, ground: bool,
                    max_nodes: int = MAX_GROUND_NODES) -> tuple[bool, str, str | None]:
    """(propositional, text, why not grounded) of the artifact for premises ⊢ conclusion: grounded when `ground`
    and the grounding fits in `max_nodes`, else the `fol` text (with the reason when grounding was refused)."""
    if ground:
        try:
            return True, propositional_text(premises, conclusion, max_nodes), None
        except NotGroundable as exc:
            return False, fol_text(premises, conclusion), str(exc)
    return False, fol_text(premises, conclusion), None
