"""The `fol` and `smtlib` checkers with the real solvers (Z3 in process, cvc5 in its worker process)."""

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from reasonforge.lang.logic import parse_formula
from reasonforge.lang.logic.formulas import negate
from reasonforge.registry import checkers
from reasonforge.types import ArtifactLanguage, CheckLimits, ProofLevel, StepStatus
from reasonforge.verify.logic.smt import FolChecker, SmtLibChecker, check_fol, check_smtlib, classify, entails

# The plan's example, verbatim (the sort has no arity, as written there).
WHALE_SMTLIB = """(declare-sort Animal)
(declare-fun Mammal (Animal) Bool)
(declare-fun WarmBlooded (Animal) Bool)
(declare-fun IsWhale (Animal) Bool)
; Premise 1: All mammals are warm-blooded
(assert (forall ((x Animal)) (=> (Mammal x) (WarmBlooded x))))
; Premise 2: Whales are mammals
(assert (forall ((x Animal)) (=> (IsWhale x) (Mammal x))))
; Negation of conclusion (to prove by contradiction)
(declare-const w Animal)
(assert (IsWhale w))
(assert (not (WarmBlooded w)))
(check-sat) ; Expected: UNSAT (meaning conclusion is valid)
"""
WHALE_FOL = "∀x (Whale(x) → Mammal(x))\nWhale(moby)\n⊢ Mammal(moby)"
AFFIRMING_THE_CONSEQUENT = "∀x (Whale(x) → Mammal(x))\nMammal(moby)\n⊢ Whale(moby)"
FAST = CheckLimits(timeout_s=1.0)
FOLIO = Path(__file__).resolve().parents[3] / "data" / "folio" / "folio-validation.shared.jsonl"


def test_registry_serves_both_languages():
    assert isinstance(checkers.get(ArtifactLanguage.FOL), FolChecker)
    assert isinstance(checkers.get(ArtifactLanguage.SMTLIB), SmtLibChecker)


@pytest.mark.parametrize("level", [ProofLevel.STANDARD, ProofLevel.FORMAL])
def test_whale_verifies_in_both_languages(level):
    for outcome in (check_smtlib(WHALE_SMTLIB, level=level), check_fol(WHALE_FOL, level=level)):
        assert outcome.status is StepStatus.VERIFIED, outcome.message
        details = outcome.details
        assert details["solver"]["z3"] == {**details["solver"]["z3"], "negated_conclusion": "unsat", "premises": "sat"}
        assert details["checker"] and details["checker_version"] and "spec" not in details  # the spec is the step's typed field
        assert details["elapsed_ms"] > 0
        json.dumps(details)  # details travel in verdicts: they must serialise


def test_formal_level_has_cvc5_agreement_and_a_z3_proof():
    outcome = check_smtlib(WHALE_SMTLIB, level=ProofLevel.FORMAL)
    assert outcome.details["solver"]["cvc5"]["negated_conclusion"] == "unsat"
    assert outcome.details["solver"]["cvc5"]["premises"] == "sat"
    assert "agree" in outcome.message
    proof = outcome.details["proof"]
    assert proof["produced"] and proof["steps"] > 1 and proof["rule"]
    assert outcome.details["logic"] == "UF"


def test_affirming_the_consequent_fails_with_a_counterexample():
    outcome = check_fol(AFFIRMING_THE_CONSEQUENT)
    assert outcome.status is StepStatus.FAILED
    cex = outcome.details["counterexample"]
    assert cex["constants"] == {"moby": "e0"}
    assert "Mammal(e0)" in cex["true"] and "Whale(e0)" in cex["false"]
    json.dumps(cex)


def test_vacuous_premises_fail_and_name_the_contradiction():
    outcome = check_fol("Human(socrates)\n∀x (Human(x) → Mortal(x))\n¬Mortal(socrates)\nGreek(plato)\n⊢ Greek(zeus)")
    assert outcome.status is StepStatus.FAILED
    assert outcome.details["vacuous"] is True
    assert outcome.details["unsat_core_lines"] == [1, 2, 3]
    assert "contradictory" in outcome.message and "proves nothing" in outcome.message


def test_smtlib_affirming_the_consequent_and_vacuity():
    base = "(declare-sort A 0)(declare-fun W (A) Bool)(declare-fun M (A) Bool)(declare-const m A)\n"
    rule = "(assert (forall ((x A)) (=> (W x) (M x))))\n"
    failed = check_smtlib(base + rule + "(assert (M m))\n(assert (not (W m)))")
    assert failed.status is StepStatus.FAILED and failed.details["counterexample"]["model"]
    vacuous = check_smtlib(base + rule + "(assert (W m))\n(assert (not (M m)))\n(assert (not (W m)))")
    assert vacuous.status is StepStatus.FAILED and vacuous.details["vacuous"] is True
    assert vacuous.details["unsat_core_lines"] == [2, 3, 4]


def test_quick_level_fol_and_smtlib_are_unsupported():
    for outcome in (check_fol(WHALE_FOL, level=ProofLevel.QUICK), check_smtlib(WHALE_SMTLIB, level=ProofLevel.QUICK)):
        assert outcome.status is StepStatus.UNSUPPORTED
        assert "standard or formal" in outcome.message


def test_fol_timeout_is_error_not_failed():
    # Premises with only infinite models: Z3's model search cannot finish.
    artifact = "∀x ¬R(x, x)\n∀x ∀y ∀z (R(x, y) ∧ R(y, z) → R(x, z))\n∀x ∃y R(x, y)\n⊢ Q(a)"
    outcome = check_fol(artifact, limits=FAST)  # the timeout ends the solve; pytest-timeout guards hangs
    assert outcome.status is StepStatus.ERROR
    assert outcome.message == "z3 timed out after 1.0 s"


def test_smtlib_timeout_is_error_and_cvc5_is_not_waited_for():
    # x³ + y³ = z³ has no positive solution (Fermat, n = 3): no solver can show it in a second.
    artifact = ("(declare-const x Int)(declare-const y Int)(declare-const z Int)"
                "(assert (> x 0))(assert (> y 0))(assert (> z 0))"
                "(assert (not (not (= (+ (* x x x) (* y y y)) (* z z z)))))")
    for level in (ProofLevel.STANDARD, ProofLevel.FORMAL):
        outcome = check_smtlib(artifact, level=level, limits=FAST)  # cvc5 is not waited for past the limit
        assert outcome.status is StepStatus.ERROR
        assert "timed out after 1.0 s" in outcome.message


def test_cvc5_failure_is_error_even_when_z3_answers():
    # 40 MB of address space is too little for the cvc5 process to even load its library.
    outcome = check_fol(WHALE_FOL, level=ProofLevel.FORMAL, limits=CheckLimits(memory_mb=40))
    assert outcome.status is StepStatus.ERROR
    assert "cvc5" in outcome.message and "Z3 said entailed" in outcome.message


def test_unparsable_and_empty_artifacts_are_errors_with_positions():
    bad = check_fol("∀x (Whale(x) → Mammal(x)\nWhale(moby)\n⊢ Mammal(moby)")
    assert bad.status is StepStatus.ERROR
    assert (bad.details["line"], bad.details["column"]) == (1, 4)
    assert bad.message.startswith("line 1, column 4: unbalanced parenthesis")
    empty = check_fol("")
    assert empty.status is StepStatus.ERROR and "⊢" in empty.message
    no_conclusion = check_fol("Whale(moby)")
    assert no_conclusion.status is StepStatus.ERROR and "no conclusion line" in no_conclusion.message


def test_entails_api_and_both_directions():
    premises = ["∀x (Whale(x) → Mammal(x))", "Whale(moby)"]
    assert entails(premises, "Mammal(moby)").status == "entailed"
    assert entails("∀x (Whale(x) → Mammal(x))\nWhale(moby)", "Mammal(moby)").status == "entailed"
    assert entails(premises, negate(parse_formula("Mammal(moby)"))).status == "not_entailed"
    assert entails(premises, "¬Mammal(moby)", counterexample=False).counterexample is None
    assert entails(["P(a)", "¬P(a)"], "Q(a)").status == "vacuous"
    crossed = entails(premises, "Mammal(moby)", cross_check=True, proof=True)
    assert [run.solver for run in crossed.runs] == ["z3", "cvc5"] and crossed.status == "entailed"
    assert classify(premises, "Mammal(moby)").label == "True"
    assert classify(premises, "¬Mammal(moby)").label == "False"
    assert classify(premises, "Fish(moby)").label == "Uncertain"
    assert classify(["P(a)", "¬P(a)"], "Q(a)").label == "vacuous"


def folio_artifact(row):
    return "\n".join([*row["premises-FOL"], "⊢ " + row["conclusion-FOL"]])


def test_formal_level_agrees_with_cvc5_on_folio_rows():
    rows = [json.loads(line) for line in FOLIO.read_text(encoding="utf-8").splitlines()]
    expected = {"True": StepStatus.VERIFIED, "Uncertain": StepStatus.FAILED, "False": StepStatus.FAILED}
    for index in (0, 1, 3, 10, 40):
        outcome = check_fol(folio_artifact(rows[index]), level=ProofLevel.FORMAL)
        assert outcome.status is expected[rows[index]["label"]], (index, outcome.message)
        assert set(outcome.details["solver"]) == {"z3", "cvc5"}


def test_checks_are_thread_safe():
    # Each check owns a fresh Z3 context, so concurrent checks must give the sequential answers.
    rows = [json.loads(line) for line in FOLIO.read_text(encoding="utf-8").splitlines()][:30]
    artifacts = [folio_artifact(row) for row in rows]
    sequential = [check_fol(a).status for a in artifacts]
    with ThreadPoolExecutor(4) as pool:
        assert list(pool.map(lambda a: check_fol(a).status, artifacts * 2)) == sequential * 2
