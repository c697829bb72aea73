"""An smtlib artifact read back as formulas of the reader's logic, or refused naming what has no counterpart."""

import pytest

from reasonforge.lang.logic import Atom, BoolConst, Const, Eq, Iff, Implies, Not, Quant, Var, parse_formula
from reasonforge.verify.logic.script import parse_smtlib_artifact
from reasonforge.verify.logic.smt import fol_status
from reasonforge.verify.logic.smt_to_fol import NotFol, smtlib_formulas

HEAD = "(declare-sort Thing 0)\n(declare-fun P (Thing) Bool)\n(declare-fun R (Thing Thing) Bool)\n(declare-const a Thing)\n"


def read(text: str):
    return smtlib_formulas(parse_smtlib_artifact(text))


def test_premises_conclusion_lines_and_sort():
    out = read(HEAD + "(assert (P a))\n(assert (forall ((x Thing) (y Thing)) (=> (R x y) (P y))))\n(assert (not (P a)))")
    assert out.sort == "Thing" and out.premise_lines == [5, 6] and out.conclusion_line == 7
    assert out.premises[0] == Atom("P", (Const("a"),))
    # de Bruijn indices become the right variables: x is bound outside y
    rule = Implies(Atom("R", (Var("v0"), Var("v1"))), Atom("P", (Var("v1"),)))
    assert out.premises[1] == Quant("forall", "v0", Quant("forall", "v1", rule))
    assert out.conclusion == Atom("P", (Const("a"),))


def test_connectives_equality_and_booleans():
    out = read(HEAD + "(declare-const q Bool)\n(declare-const b Thing)\n(assert (= q (P a)))\n(assert (distinct a b))\n"
               "(assert (not (ite q (P a) (not (= a b)))))")
    assert out.premises[0] == Iff(Atom("q"), Atom("P", (Const("a"),)))
    assert out.premises[1] == Not(Eq(Const("a"), Const("b")))
    assert fol_status([*out.premises, Not(out.conclusion)], timeout_s=5, memory_mb=500) == "unsat"


def test_let_is_unfolded_as_z3_reads_it():
    out = read(HEAD + "(assert (let ((h (P a))) (and h h)))\n(assert (not (P a)))")
    assert fol_status([out.premises[0], Not(out.conclusion)], timeout_s=5, memory_mb=500) == "unsat"


@pytest.mark.parametrize(("extra", "words"), [
    ("(declare-const n Int)\n(assert (> n 0))", "theory symbol"),
    ("(declare-const n Int)\n(assert (= n n))", "sort Int"),
    ("(declare-sort Other 0)\n(declare-const o Other)\n(assert (= o o))", "second sort"),
    ("(declare-fun f (Thing) Thing)\n(assert (P (f a)))", "compound term"),
    ("(assert (forall ((b Bool)) (or b (not b))))", "sort Bool"),
    ("(declare-fun B (Bool) Bool)\n(assert (B true))", "sort Bool"),
    ("(declare-const s String)\n(assert (= s s))", "sort String"),
])
def test_what_the_reading_cannot_say_is_refused(extra, words):
    with pytest.raises(NotFol, match=words):
        read(HEAD + extra + "\n(assert (not (P a)))")


def test_deep_nesting_is_refused_not_a_crash():
    deep = "(not " * 400 + "(P a)" + ")" * 400
    with pytest.raises(NotFol, match="nested more than"):
        read(HEAD + f"(assert {deep})\n(assert (not (P a)))")


def test_a_shared_let_that_would_unfold_exponentially_is_refused():
    lets = "(P a)"
    for i in range(40):
        lets = f"(let ((h{i} {lets})) (and h{i} h{i}))"
    with pytest.raises(NotFol, match="unfolds into more than"):
        read(HEAD + f"(assert {lets})\n(assert (not (P a)))")


def test_fol_status_answers_sat_unsat_and_unknown():
    p = parse_formula("P(a)")
    assert fol_status([p], timeout_s=5, memory_mb=500) == "sat"
    assert fol_status([p, Not(p)], timeout_s=5, memory_mb=500) == "unsat"
    assert fol_status([BoolConst(True)], timeout_s=5, memory_mb=500) == "sat"
    with pytest.raises(ValueError):
        fol_status([parse_formula("P(a)"), parse_formula("P(a, a)")], timeout_s=5, memory_mb=500)
