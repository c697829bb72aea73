"""Grounding to propositional logic agrees with first-order checking (Herbrand)."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reasonforge.lang.logic import Atom, Const, Implies, Not, Var, to_text
from reasonforge.lang.logic.formulas import conj, exists, forall
from reasonforge.lang.logic.grounding import NotGroundable, ground_entailment, render_propositional
from reasonforge.registry import checkers
from reasonforge.types import ArtifactLanguage, CheckLimits, ProofLevel, StepStatus

x = Var("x")


def P(name, term=x):
    return Atom(name, (term,))


def status(premises, conclusion, *, ground):
    if ground:
        gp, gc = ground_entailment(premises, conclusion)
        names = {}
        lines = [render_propositional(p, names) for p in gp] + ["⊢ " + render_propositional(gc, names)]
        language = ArtifactLanguage.PROPOSITIONAL
    else:
        lines = [to_text(p, explicit=True) for p in premises] + ["⊢ " + to_text(conclusion, explicit=True)]
        language = ArtifactLanguage.FOL
    outcome = checkers.get(language).check("\n".join(lines), level=ProofLevel.STANDARD, limits=CheckLimits())
    return outcome.status


def test_universal_conclusion_gets_one_fresh_witness():
    premises = [forall("x", Implies(P("Whale"), P("Mammal"))), forall("x", Implies(P("Mammal"), P("WarmBlooded")))]
    gp, gc = ground_entailment(premises, forall("x", Implies(P("Whale"), P("WarmBlooded"))))
    assert to_text(gc) == "Whale(sk1) → WarmBlooded(sk1)"
    assert [to_text(p) for p in gp] == ["Whale(sk1) → Mammal(sk1)", "Mammal(sk1) → WarmBlooded(sk1)"]


def test_existential_under_universal_is_refused():
    from reasonforge.lang.logic import Atom as A

    premise = forall("x", exists("y", A("Loves", (Var("x"), Var("y")))))
    with pytest.raises(NotGroundable):
        ground_entailment([premise], P("Red", Const("bob")))


PREDICATES = ["A", "B", "C"]
CONSTANTS = ["bob", "sue"]
literal = st.builds(lambda p, neg: (Not if neg else (lambda f: f))(P(p)), st.sampled_from(PREDICATES), st.booleans())
rule = st.builds(lambda a, b: forall("x", Implies(P(a), b)), st.sampled_from(PREDICATES), literal)
some = st.builds(lambda a, b: exists("x", conj([P(a), P(b)])), st.sampled_from(PREDICATES), st.sampled_from(PREDICATES))
fact = st.builds(
    lambda p, c, neg: (Not(P(p, Const(c))) if neg else P(p, Const(c))),
    st.sampled_from(PREDICATES), st.sampled_from(CONSTANTS), st.booleans(),
)
conclusion = st.one_of(fact, rule, some)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.one_of(rule, fact, some), min_size=1, max_size=5), conclusion)
def test_grounded_check_agrees_with_first_order_check(premises, goal):
    assert status(premises, goal, ground=True) == status(premises, goal, ground=False)


def test_grounded_statuses_are_real_verdicts():
    premises = [forall("x", Implies(P("Man"), P("Mortal"))), P("Man", Const("socrates"))]
    assert status(premises, P("Mortal", Const("socrates")), ground=True) is StepStatus.VERIFIED
    assert status(premises[:1], P("Mortal", Const("socrates")), ground=True) is StepStatus.FAILED
