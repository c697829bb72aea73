"""The `propositional` checker at every level, with hypothesis properties on random formulas."""

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reasonforge.lang.logic import And, Atom, BoolConst, Iff, Implies, Not, Or, Xor, parse_formula, to_text
from reasonforge.registry import checkers
from reasonforge.types import ArtifactLanguage, CheckLimits, ProofLevel, StepStatus
from reasonforge.verify.logic.propositional import PropositionalChecker, check_propositional

LEVELS = list(ProofLevel)


@pytest.mark.parametrize("level", LEVELS)
def test_modus_ponens_and_affirming_the_consequent(level):
    good = check_propositional("rain → wet\nrain\n⊢ wet", level=level)
    assert good.status is StepStatus.VERIFIED, good.message
    bad = check_propositional("rain → wet\nwet\n⊢ rain", level=level)
    assert bad.status is StepStatus.FAILED
    assert bad.details["counterexample"] == {"assignment": {"rain": False, "wet": True}}
    if level is ProofLevel.FORMAL:
        assert set(good.details["solver"]) == {"z3", "cvc5"} and good.details["proof"]["produced"]


@pytest.mark.parametrize("level", LEVELS)
def test_vacuous(level):
    outcome = check_propositional("p\n¬p\nq\n⊢ r", level=level)
    assert outcome.status is StepStatus.FAILED and outcome.details["vacuous"] is True
    assert outcome.details["unsat_core_lines"] == [1, 2]


def test_registry_and_ascii():
    checker = checkers.get(ArtifactLanguage.PROPOSITIONAL)
    assert isinstance(checker, PropositionalChecker)
    outcome = checker.check("p | q\n~p\n|- q", level=ProofLevel.QUICK, limits=CheckLimits())
    assert outcome.status is StepStatus.VERIFIED
    assert outcome.details["checker"] == "reasonforge.propositional"


def test_fol_constructs_are_errors_with_positions():
    outcome = check_propositional("Man(socrates)\n⊢ Mortal(socrates)")
    assert outcome.status is StepStatus.ERROR
    assert outcome.message.startswith("line 1, column 4: propositional atoms take no arguments")
    quantified = check_propositional("p\n⊢ ∀x q")
    assert quantified.status is StepStatus.ERROR and "line 2, column 3" in quantified.message


def test_xor_is_exclusive():
    assert check_propositional("p ⊕ q\np\n⊢ ¬q").status is StepStatus.VERIFIED
    assert check_propositional("p ∨ q\np\n⊢ ¬q").status is StepStatus.FAILED


# --------------------------------------------------------------------------------------- properties

ATOMS = ["p", "q", "r"]


def formulas(depth=3):
    leaves = st.one_of(st.sampled_from(ATOMS).map(Atom), st.booleans().map(BoolConst))
    return st.recursive(
        leaves,
        lambda sub: st.one_of(
            sub.map(Not),
            st.lists(sub, min_size=2, max_size=3).map(lambda xs: And(tuple(xs))),
            st.lists(sub, min_size=2, max_size=3).map(lambda xs: Or(tuple(xs))),
            st.lists(sub, min_size=2, max_size=3).map(lambda xs: Xor(tuple(xs))),
            st.tuples(sub, sub).map(lambda ab: Implies(*ab)),
            st.tuples(sub, sub).map(lambda ab: Iff(*ab)),
        ),
        max_leaves=8,
    )


def evaluate(f, env):
    if isinstance(f, Atom):
        return env[f.pred]
    if isinstance(f, BoolConst):
        return f.value
    if isinstance(f, Not):
        return not evaluate(f.arg, env)
    if isinstance(f, And):
        return all(evaluate(a, env) for a in f.args)
    if isinstance(f, Or):
        return any(evaluate(a, env) for a in f.args)
    if isinstance(f, Xor):
        return sum(evaluate(a, env) for a in f.args) % 2 == 1
    if isinstance(f, Implies):
        return (not evaluate(f.left, env)) or evaluate(f.right, env)
    return evaluate(f.left, env) == evaluate(f.right, env)


def satisfiable(f):
    return any(evaluate(f, dict(zip(ATOMS, bits))) for bits in itertools.product([False, True], repeat=len(ATOMS)))


@settings(max_examples=200, deadline=None)
@given(formulas())
def test_parse_of_print_is_identity(f):
    assert parse_formula(to_text(f), propositional=True) == f
    assert parse_formula(to_text(f, ascii=True), propositional=True) == f


@settings(max_examples=60, deadline=None)
@given(formulas())
def test_f_entails_f_unless_f_is_contradictory(f):
    outcome = check_propositional(f"{to_text(f)}\n⊢ {to_text(f)}")
    if satisfiable(f):
        assert outcome.status is StepStatus.VERIFIED, outcome.message
    else:
        assert outcome.status is StepStatus.FAILED and outcome.details["vacuous"] is True


@settings(max_examples=60, deadline=None)
@given(formulas(), formulas())
def test_f_and_not_f_is_vacuous(f, g):
    outcome = check_propositional(f"{to_text(f)}\n{to_text(Not(f))}\n⊢ {to_text(g)}")
    assert outcome.status is StepStatus.FAILED and outcome.details["vacuous"] is True


@settings(max_examples=60, deadline=None)
@given(formulas(), formulas())
def test_verdict_matches_truth_tables(f, g):
    # premises {f} ⊢ g is verified iff f is satisfiable and every model of f satisfies g; a failed
    # step's counterexample must really be one.
    outcome = check_propositional(f"{to_text(f)}\n⊢ {to_text(g)}")
    rows = [dict(zip(ATOMS, bits)) for bits in itertools.product([False, True], repeat=len(ATOMS))]
    valid = all(evaluate(g, env) for env in rows if evaluate(f, env))
    if not satisfiable(f):
        assert outcome.details.get("vacuous") is True
    elif valid:
        assert outcome.status is StepStatus.VERIFIED
    else:
        assert outcome.status is StepStatus.FAILED
        env = {atom: False for atom in ATOMS} | outcome.details["counterexample"]["assignment"]
        assert evaluate(f, env) and not evaluate(g, env)
