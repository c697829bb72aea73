"""Generic tree operations over the checker's formula AST (shared by the translator and fallacy naming)."""

import pytest

from reasonforge.lang.logic import And, Atom, Const, Eq, Not, Var, parse_formula, to_text
from reasonforge.lang.logic.formulas import (
    atoms,
    children,
    conj,
    constants,
    disj,
    forall,
    free_vars,
    negate,
    size,
    substitute,
)
from reasonforge.lang.logic.grounding import NotGroundable, propositional


def f(text):
    return parse_formula(text)


def test_conj_and_disj_flatten_and_unwrap():
    p, q, r = Atom("P"), Atom("Q"), Atom("R")
    assert conj([And((p, q)), r]) == And((p, q, r))
    assert conj([p]) == p
    assert to_text(disj([f("P ∨ Q"), f("R ∧ P")])) == "P ∨ Q ∨ R ∧ P"
    with pytest.raises(ValueError):
        conj([])


def test_negate_cancels_a_double_negation():
    assert negate(f("¬P")) == Atom("P")
    assert negate(Atom("P")) == Not(Atom("P"))


def test_substitute_replaces_free_occurrences_only():
    x = Var("x")
    formula = conj([Atom("R", (x, Const("a"))), Eq(x, Const("b")), forall("x", Atom("P", (x,)))])
    assert to_text(substitute(formula, "x", Const("c"))) == "R(c, a) ∧ c = b ∧ (∀x P(x))"


def test_walks():
    formula = f("∀x (R(x, b) → ∃y (R(y, a) ∧ y = c)) ∧ R(b, d)")
    assert constants(formula) == ["b", "a", "c", "d"]
    assert [a.pred for a in atoms(formula)] == ["R", "R", "R"]
    assert free_vars(forall("x", Atom("R", (Var("x"), Var("y"))))) == {"y"}
    assert free_vars(formula) == set()
    assert size(formula) == 9
    assert children(f("P → Q")) == (Atom("P"), Atom("Q"))
    assert children(Eq(Var("x"), Const("a"))) == ()


def test_propositional_names_ground_atoms_and_detects_clashes():
    names = {}
    assert to_text(propositional(f("Mammal(moby) → ¬Big(moby)"), names)) == "Mammal_moby → ¬Big_moby"
    with pytest.raises(NotGroundable, match="Mammal_moby"):
        propositional(f("Mammal_moby ∧ P"), names)
