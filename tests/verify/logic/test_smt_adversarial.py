"""SMT-LIB artifacts written to game the checker: each must get exactly the right status."""


import pytest

from reasonforge.types import CheckLimits, ProofLevel, StepStatus
from reasonforge.verify.logic.smt import check_smtlib

V, F, E = StepStatus.VERIFIED, StepStatus.FAILED, StepStatus.ERROR
DECL = "(declare-const p Bool)\n(declare-const q Bool)\n"
MODUS_PONENS = DECL + "(assert (=> p q))\n(assert p)\n"  # premises; the conclusion q follows

CASES = {
    # Vacuity: a contradictory premise proves anything, so it must prove nothing.
    "assert-false-premise": (DECL + "(assert false)\n(assert (not q))", F),
    "contradictory-premises": (DECL + "(assert p)\n(assert (not p))\n(assert (not q))", F),
    # Printed text never decides: echo, exit and get-* are ignored.
    "echo-unsat-on-invalid": (MODUS_PONENS + '(echo "unsat")\n(assert (not (not q)))', F),
    "echo-in-set-info": (DECL + "(set-info :status unsat)\n(assert p)\n(assert (not q))", F),
    "exit-before-conclusion": (MODUS_PONENS + "(exit)\n(assert (not q))", V),
    "exit-hides-nothing": (DECL + "(assert q)\n(exit)\n(assert (not p))", F),
    "get-model-and-values": (MODUS_PONENS + "(get-model)\n(get-value (p q))\n(get-info :reason-unknown)\n(assert (not q))", V),
    "check-sat-spam": (MODUS_PONENS + "(check-sat)\n" * 500 + "(assert (not q))", V),
    "check-sat-assuming": (DECL + "(check-sat-assuming (false))\n(assert p)\n(assert (not q))", F),
    "set-option-no-models": ("(set-option :produce-models false)\n" + DECL + "(assert (=> p q))\n(assert (not q))", F),
    # Declarations: one per symbol, never a built-in.
    "redeclare-symbol": (DECL + "(declare-fun p () Bool)\n(assert (not q))", E),
    "redefine-true": ("(define-fun true () Bool false)\n(assert (not true))", E),
    "redefine-quoted-not": ("(declare-fun |not| (Bool) Bool)\n(declare-const p Bool)\n(assert (not p))", E),
    # The assertion stack a solver would hold at the end is what gets checked.
    "push-false-pop": (MODUS_PONENS + "(push 1)\n(assert false)\n(check-sat)\n(pop 1)\n(assert (not q))", V),
    "pop-removes-conclusion": (MODUS_PONENS + "(push 1)\n(assert (not q))\n(pop 1)", E),
    "push-then-invalid": (DECL + "(push 1)\n(assert p)\n(assert (not q))", F),
    "pop-below-zero": (DECL + "(pop 1)\n(assert (not q))", E),
    "reset-forgets-contradiction": ("(declare-const r Bool)\n(assert false)\n(reset)\n" + MODUS_PONENS + "(assert (not q))", V),
    "reset-forgets-declarations": (DECL + "(reset)\n(assert (not q))", E),
    "reset-assertions-drops-premises": (MODUS_PONENS + "(reset-assertions)\n" + DECL + "(assert (not q))", F),
    # The shape of the conclusion.
    "last-assert-not-negated": (MODUS_PONENS + "(assert q)", E),
    "negated-conclusion-named": (MODUS_PONENS + "(assert (! (not q) :named goal))", E),
    "no-assertions": (DECL + "(check-sat)", E),
    "conclusion-not-true": (MODUS_PONENS + "(assert (not true))", V),  # `true` follows from consistent premises
    "conclusion-not-false": (MODUS_PONENS + "(assert (not false))", F),  # `false` follows from none
    "conclusion-not-not-false": (MODUS_PONENS + "(assert (not (not false)))", V),
    # Definitions are assumptions the solver would take on trust: refused (write them as premises).
    "define-fun-trivial-conclusion": ("(declare-const p Bool)\n(define-fun C () Bool (or p (not p)))\n(assert p)\n(assert (not C))", E),
    "define-fun-false-conclusion": ("(declare-const p Bool)\n(define-fun C () Bool (and p (not p)))\n(assert p)\n(assert (not C))", E),
    "define-fun-true-as-premise": ("(declare-const p Bool)\n(define-fun T () Bool (not p))\n(assert p)\n(assert T)\n(assert (not p))", E),
    "define-fun-predicate-true": ("(declare-sort U 0)\n(declare-const rex U)\n(define-fun Dog ((x U)) Bool true)\n(assert (not (Dog rex)))", E),
    "define-const": ("(declare-const p Bool)\n(define-const q Bool p)\n(assert p)\n(assert (not q))", E),
    "define-sort": ("(define-sort A () Bool)\n(declare-const p A)\n(assert p)\n(assert (not p))", E),
    "named-premise": ("(declare-const p Bool)\n(assert (! p :named h))\n(assert (not p))", E),
    "named-inside-a-term": ("(declare-const p Bool)\n(assert (and p (! p :named h)))\n(assert (not p))", E),
    # A declared name a reader could take for another.
    "cyrillic-a-in-a-symbol": ("(declare-const |Cаt| Bool)\n(declare-const Cat Bool)\n(assert Cat)\n(assert (not |Cаt|))", E),
    "fullwidth-symbol": ("(declare-const |Ｃat| Bool)\n(declare-const Cat Bool)\n(assert Cat)\n(assert (not |Ｃat|))", E),
    # Unicode and quoted symbols are ordinary names.
    "unicode-quoted-symbols": (("(declare-const |ünï cödé| Bool)\n(declare-const |a b| Bool)\n"
                               "(assert (=> |ünï cödé| |a b|))\n(assert |ünï cödé|)\n(assert (not |a b|))"), V),
    "quoted-equals-plain": ("(declare-const |p| Bool)\n(assert p)\n(assert (not |p|))", V),
    # Unsupported on purpose.
    "define-fun-rec": ("(define-fun-rec f ((x Int)) Int (f x))\n(assert (not (= (f 0) 0)))", E),
    "define-funs-rec": ("(define-funs-rec ((f ((x Int)) Int)) ((f x)))\n(assert (not (= (f 0) 0)))", E),
    "unknown-command": (DECL + "(simplify p)\n(assert (not q))", E),
    "undeclared-symbol": ("(declare-const p Bool)\n(assert p)\n(assert (not r))", E),
    "declared-after-conclusion": ("(declare-const p Bool)\n(assert p)\n(assert (not q))\n(declare-const q Bool)", E),
    "string-literal-with-parens": ('(declare-const s String)\n(assert (= s ")(assert false)"))\n(assert (not (= (str.len s) 15)))', V),
}


@pytest.mark.parametrize(("artifact", "expected"), CASES.values(), ids=list(CASES))
def test_adversarial_standard(artifact, expected):
    outcome = check_smtlib(artifact, level=ProofLevel.STANDARD)
    assert outcome.status is expected, outcome.message
    if expected is StepStatus.ERROR:
        assert outcome.message.startswith("line ")


FORMAL = ["assert-false-premise", "echo-unsat-on-invalid", "exit-before-conclusion", "push-false-pop",
          "conclusion-not-true", "unicode-quoted-symbols", "string-literal-with-parens"]


@pytest.mark.parametrize("name", FORMAL)
def test_adversarial_formal_cvc5_agrees(name):
    artifact, expected = CASES[name]
    outcome = check_smtlib(artifact, level=ProofLevel.FORMAL)
    assert outcome.status is expected, outcome.message
    assert outcome.details["solver"]["cvc5"]["negated_conclusion"] in ("sat", "unsat")


def test_vacuous_cases_say_so():
    outcome = check_smtlib(CASES["assert-false-premise"][0])
    assert outcome.details["vacuous"] is True and outcome.details["unsat_core_lines"] == [3]


def test_ignored_commands_are_reported():
    outcome = check_smtlib(CASES["check-sat-spam"][0])
    assert outcome.details["ignored_commands"] == {"check-sat": 500}


def test_redefinition_error_points_at_it():
    outcome = check_smtlib(CASES["redeclare-symbol"][0])
    assert (outcome.details["line"], outcome.details["column"]) == (3, 1)
    assert "'p' is already declared" in outcome.message


@pytest.mark.parametrize("level", [ProofLevel.STANDARD, ProofLevel.FORMAL])
def test_ten_thousand_nested_nots_and_ands(level):
    depth = 10_000
    nots = "(declare-const p Bool)\n(assert p)\n(assert (not " + "(not " * (2 * depth) + "p" + ")" * (2 * depth) + "))"
    ands = DECL + "(assert p)\n(assert q)\n(assert (not " + "(and q " * depth + "p" + ")" * depth + "))"
    for artifact in (nots, ands):
        outcome = check_smtlib(artifact, level=level)
        assert outcome.status is StepStatus.VERIFIED, outcome.message


def test_deep_unbalanced_script_is_a_syntax_error():
    outcome = check_smtlib("(assert " + "(not " * 10_000 + "p")
    assert outcome.status is StepStatus.ERROR and "never closed" in outcome.message


def test_one_megabyte_formula_within_limits():
    n = 20_000  # an implication chain x0 → x1 → ... → x_n, about 1 MB of SMT-LIB
    parts = ["(declare-const x0 Bool)"]
    parts += [f"(declare-const x{i} Bool)\n(assert (=> x{i - 1} x{i}))" for i in range(1, n)]
    padding = "; " + "pad " * 40 + "\n"
    artifact = padding.join(parts) + f"\n(assert x0)\n(assert (not x{n - 1}))"
    assert len(artifact) > 1_000_000
    outcome = check_smtlib(artifact, limits=CheckLimits(timeout_s=10))
    assert outcome.status is StepStatus.VERIFIED, outcome.message  # within the limit: it did not time out
    broken = artifact.replace(f"(assert (=> x{n // 2} x{n // 2 + 1}))", "")
    assert check_smtlib(broken, limits=CheckLimits(timeout_s=10)).status is StepStatus.FAILED


def test_solver_timeout_is_error():
    artifact = ("(declare-const x Int)(declare-const y Int)(declare-const z Int)"
                "(assert (> x 0))(assert (> y 0))(assert (> z 0))"
                "(assert (not (not (= (+ (* x x x) (* y y y)) (* z z z)))))")
    outcome = check_smtlib(artifact, limits=CheckLimits(timeout_s=1))
    assert outcome.status is StepStatus.ERROR and outcome.message == "z3 timed out after 1.0 s"


@pytest.mark.parametrize(("name", "words"), [
    ("define-fun-predicate-true", "a definition is an assumption"),
    ("named-premise", ":named annotation defines a new symbol"),
    ("cyrillic-a-in-a-symbol", "mixes scripts"),
    ("fullwidth-symbol", "not in NFKC form"),
])
def test_refusals_say_why(name, words):
    outcome = check_smtlib(CASES[name][0])
    assert words in outcome.message
