"""Naming classic invalid inferences from the FOL of a failed step."""

import pytest

from reasonforge.lang.logic import parse_formula
from reasonforge.verify.logic.fallacies import name_fallacy


def named(premises, conclusion):
    return name_fallacy([parse_formula(p) for p in premises], parse_formula(conclusion))


@pytest.mark.parametrize(
    ("premises", "conclusion", "kind"),
    [
        (["Man(socrates) → Mortal(socrates)", "Mortal(socrates)"], "Man(socrates)", "affirming_the_consequent"),
        (["∀x (Man(x) → Mortal(x))", "Mortal(socrates)"], "Man(socrates)", "affirming_the_consequent"),
        (["rain → wet", "wet"], "rain", "affirming_the_consequent"),
        (["∀x (Man(x) → Mortal(x))", "¬Man(zeus)"], "¬Mortal(zeus)", "denying_the_antecedent"),
        (["∀x (Cat(x) → Animal(x))"], "∀y (Animal(y) → Cat(y))", "illicit_conversion"),
        (["∀x (Cat(x) → Animal(x))", "∀x (Dog(x) → Animal(x))"], "∀x (Cat(x) → Dog(x))", "undistributed_middle"),
    ],
)
def test_recognised(premises, conclusion, kind):
    assert named(premises, conclusion) == kind


def test_unrecognised_failure_is_none():
    assert named(["∀x (Cat(x) → Animal(x))"], "Dog(rex)") is None
