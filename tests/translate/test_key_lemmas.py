"""The key lemmas a step's symbolic claims become (no Coq here: what each lemma states and rests on)."""

from __future__ import annotations

from reasonforge.translate.key_lemmas import key_lemmas, lemma_file
from reasonforge.types import Domain, ProofLevel, ReasoningStep, StepContext


def lemmas(question: str, *steps: str):
    """The key lemmas of the last of `steps`, each step depending on the one before."""
    *before, last = steps
    context = StepContext(step_id=len(steps), content=last, original_query=question, domain=Domain.MATHEMATICS,
                          proof_level=ProofLevel.STANDARD,
                          ancestors=[ReasoningStep(step_id=i, content=text) for i, text in enumerate(before, start=1)])
    return key_lemmas(context)


def statements(question: str, *steps: str) -> list[str]:
    return [lemma.statement for lemma in lemmas(question, *steps).lemmas]


def test_an_identity_and_an_inequality_are_lemmas_for_all_values():
    assert statements("Expand $(a+b)^2$.", "$(a+b)^2 = a^2 + 2ab + b^2$") == [
        "forall a b : R, (a + b) ^ 2 = a ^ 2 + 2 * a * b + b ^ 2"]
    assert statements("Simplify.", "So $x^4 + 1 \\geq 2x^2$.") == ["forall x : R, x ^ 4 + 1 >= 2 * (x ^ 2)"]


def test_closed_arithmetic_is_left_to_sympy():
    assert statements("What is 3 + 4?", "3 + 4 = 7") == []
    assert statements("Let x = 3.", "So x^2 + 1 = 10.") == []  # x has a value: arithmetic


def test_the_question_s_givens_and_the_ancestors_claims_are_the_only_hypotheses():
    found = lemmas("Let x > 0. Show that x + 1/x >= 2.", "x + 1/x - 2 = (x-1)^2/x", "So x + 1/x >= 2").lemmas
    assert [lemma.statement for lemma in found] == [
        "forall x : R, x > 0 -> x + 1 / x - 2 = (x - 1) ^ 2 / x -> x + 1 / x >= 2"]  # never the goal it asks to show
    assert found[0].hypotheses == ("x > 0 (the question)", "x + 1/x - 2 = (x - 1)^2/x (an earlier step)")
    # what the step's author assumes is no hypothesis, and neither is what an ancestor assumes
    assert statements("Simplify.", "Assume z > 10. Then z/(z^2+1) <= 1/2.") == ["forall z : R, z / (z ^ 2 + 1) <= 1 / 2"]
    assert statements("Simplify.", "Assume z > 10.", "Then z/(z^2+1) <= 1/2.") == [
        "forall z : R, z / (z ^ 2 + 1) <= 1 / 2"]


def test_a_claim_false_where_its_hypotheses_hold_is_no_lemma():
    found = lemmas("Let y > 0.", "So y^3 >= y.")
    assert found.lemmas == () and "false at y = 1/2" in found.skipped[0]
    assert statements("Let y > 1.", "So y^3 >= y.") == ["forall y : R, y > 1 -> y ^ 3 >= y"]


def test_integers_the_question_gives_make_a_lemma_over_z():
    assert statements("Let n be an integer with n > 3. Prove that n^2 > 9.", "So n^2 > 9.") == [
        "forall n : Z, n > 3 -> n ^ 2 > 9"]


def test_a_case_analysis_gets_no_lemma():
    found = lemmas("Simplify.", "If x = 1, then x^2 + y = 1 + y. If x = 2, then x^2 + y = 4 + y.")
    assert found.lemmas == () and found.skipped


def test_a_file_of_lemmas_says_which_lines_each_takes():
    found = lemmas("Simplify.", "So $(x+1)^2 = x^2 + 2x + 1$ and $x^2 + 1 \\geq 2x$.").lemmas
    file = lemma_file(found)
    lines = file.text.splitlines()
    for lemma in found:
        first, last = file.lines[lemma.name]
        assert lemma.declaration in lines[first - 1:last] and lines[last - 1] == "Qed."
        assert file.lemma_at(last) == lemma.name
