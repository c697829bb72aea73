"""The offline maths → Coq translator: what it writes, and (with coqc) that the checker agrees."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reasonforge import VerifyRequest, verify_chain
from reasonforge.chain import validate_request
from reasonforge.translate import default_translator
from reasonforge.translate.math_coq import CoqMathTranslator
from reasonforge.types import (
    CONTEXT_STEP_ID,
    ArtifactLanguage,
    Assurance,
    Domain,
    Overall,
    ProofLevel,
    Prover,
    StepStatus,
)
from reasonforge.verify import coq as coq_checker

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
REASON = coq_checker.unavailable_reason()
needs_coq = pytest.mark.skipif(REASON is not None, reason=f"Coq checks need coqc and the sandbox: {REASON}")


def request(query, steps, **extra):
    chain = [{"step_id": i + 1, "content": text} for i, text in enumerate(steps)]
    return VerifyRequest.model_validate({"original_query": query, "domain": "mathematics", "proof_level": "formal",
                                         "prover": "coq", "reasoning_chain": chain, **extra})


def translate(req):
    graph = validate_request(req)
    return {t.step_id: t for t in CoqMathTranslator().translate_chain(req, {s: graph.ancestors(s) for s in graph.order})}


def pythagoras(level="formal"):
    data = json.loads((EXAMPLES / "pythagoras-formal.json").read_text())
    data["proof_level"] = level
    return VerifyRequest.model_validate(data)


def test_default_translator_for_formal_coq_is_this_one():
    translator = default_translator(Domain.MATHEMATICS, level=ProofLevel.FORMAL, prover=Prover.COQ)
    assert translator.spec.name == "math-coq-rules"


def test_pythagoras_context_holds_the_bindings_the_cited_theorem_and_the_length():
    out = translate(pythagoras())
    context = out[CONTEXT_STEP_ID].formal_representation
    assert out[CONTEXT_STEP_ID].language is ArtifactLanguage.COQ
    for line in ("Definition x : R := 3.", "Definition y : R := 4.", "Parameter z : R.", "Axiom z_nonneg : 0 <= z.",
                 "Axiom cited_2 : x ^ 2 + y ^ 2 = z ^ 2."):
        assert line in context
    assert "Theorem step1 : (x = 3) /\\ (y = 4)." in out[1].formal_representation
    assert "Theorem step3 : (z ^ 2 = 9 + 16) /\\ ((9 + 16 = 25)%Z)." in out[3].formal_representation
    assert "Theorem step4 : z = 5." in out[4].formal_representation
    assert "cited" in out[2].notes


def test_parity_uses_an_existential_then_a_quantified_k_and_a_computed_witness():
    out = translate(request("Prove that if n is an even integer, then n² is divisible by 4.",
                            ["Since n is even, we can write n = 2k for some integer k.", "Then n² = (2k)² = 4k².",
                             "So n² is divisible by 4."]))
    assert "Axiom n_even : Z.Even n." in out[CONTEXT_STEP_ID].formal_representation
    assert "Theorem step1 : exists k : Z, n = 2 * k." in out[1].formal_representation
    assert "Theorem step2 : forall k : Z, n = 2 * k -> " in out[2].formal_representation
    assert "Theorem step3 : (4 | n ^ 2)." in out[3].formal_representation
    assert "exists (k ^ 2)" in out[3].formal_representation


def test_rationals_switch_the_whole_chain_to_q():
    out = translate(request("Natalia sold 48 clips in April and half as many in May.",
                            ["In May she sold 48 / 2 = 24 clips.", "Altogether she sold 48 + 24 = 72 clips."]))
    assert "Open Scope Q_scope." in out[CONTEXT_STEP_ID].formal_representation
    assert "Theorem step1 : 48 / 2 == 24." in out[1].formal_representation


@pytest.mark.parametrize("text", ["We now think about the problem.", "So x ≈ 3.14", "Hence y = sqrt(2)"])
def test_what_it_cannot_translate_is_an_empty_artifact_with_notes(text):
    out = translate(request("Find y.", [text]))
    assert out[1].formal_representation == "" and out[1].translation_confidence == 0.0
    assert out[1].notes.startswith("not translated to Coq")


def test_translation_is_deterministic():
    assert translate(pythagoras()) == translate(pythagoras())


def test_what_the_question_asks_is_never_a_given():
    out = translate(request("Prove that n is even.", ["So n is even."]))
    assert "Axiom" not in out[CONTEXT_STEP_ID].formal_representation
    out = translate(request("Show that x + 1 = 4 given x = 3.", ["So x + 1 = 4."]))
    context = out[CONTEXT_STEP_ID].formal_representation
    assert "Definition x : Z := 3." in context and "x + 1 = 4" not in context


@needs_coq
def test_the_pythagoras_example_verifies_on_the_theorem_for_the_questions_triangle():
    # "a right triangle with legs 3 and 4" gives the Pythagorean relation for its legs and a fresh name of its
    # hypotenuse, and that name a length (≥ 0): the cited relation and z ≥ 0 are givens, nothing else is.
    verdict = verify_chain(VerifyRequest.model_validate_json((EXAMPLES / "pythagoras-formal.json").read_text()))
    assert verdict.overall is Overall.VERIFIED, [(v.step_id, v.error_message) for v in verdict.step_verdicts]
    assert all(v.evidence.kind == "theorem" for v in verdict.step_verdicts)
    # Other legs than the question's are no given, and the steps resting on them say which declaration it is.
    other = VerifyRequest.model_validate_json((EXAMPLES / "pythagoras-formal.json").read_text().replace(
        "legs 3 and 4", "legs 3 and 5"))
    verdict = verify_chain(other)
    assert [v.status for v in verdict.step_verdicts] == [*[StepStatus.UNSUPPORTED] * 3, StepStatus.FAILED]
    # "Let y = 4" binds a number the question does not state (its legs are 3 and 5): ungrounded, at formal too
    assert verdict.step_verdicts[0].error_kind == "ungrounded_operand", verdict.step_verdicts[0].error_message
    for v in verdict.step_verdicts[1:3]:
        assert v.error_kind == "ungrounded_premise", v.error_message
    assert "cited_2" in verdict.step_verdicts[1].error_message
    # and the claimed answer z = 5 is not the hypotenuse of those legs, which the question determines: refuted
    last = verdict.step_verdicts[3]
    assert last.error_kind == "answer_mismatch" and "legs 3 and 5 is sqrt(34)" in last.error_message
    # The hypotenuse is an unknown the question does not call an integer: it is declared over R, not Z.
    context = translate(pythagoras())[CONTEXT_STEP_ID].formal_representation
    assert "Parameter z : R." in context and "Open Scope R_scope." in context


@needs_coq
def test_parity_and_rational_chains_verify_end_to_end():
    parity = request("Prove that if n is an even integer, then n² is divisible by 4.",
                     ["Since n is even, we can write n = 2k for some integer k.", "Then n² = (2k)² = 4k².",
                      "So n² is divisible by 4."])
    rational = request("Let q = 1/2.", ["So q + 1/4 = 3/4.", "Then 2 * (3/4) = 1.5."])
    for req in (parity, rational):
        verdict = verify_chain(req)
        assert verdict.overall is Overall.VERIFIED, [(v.step_id, v.error_message) for v in verdict.step_verdicts]
        assert all(v.evidence.kind == "theorem" for v in verdict.step_verdicts)
    # a word problem's theorems prove its arithmetic, not what its numbers count: relations, as at quick
    clips = request("Natalia sold 48 clips in April and half as many in May.",
                    ["In May she sold 48 / 2 = 24 clips.", "Altogether she sold 48 + 24 = 72 clips."])
    verdict = verify_chain(clips)
    assert verdict.overall is Overall.PARTIAL and verdict.assurance is Assurance.ARITHMETIC
    assert all(v.verified and v.evidence.kind == "relations" for v in verdict.step_verdicts)
    assert "word problem" in verdict.step_verdicts[0].evidence.note


@needs_coq
def test_an_arithmetic_slip_fails_at_its_step_with_coqs_reason_and_invalidates_the_rest():
    data = json.loads((EXAMPLES / "pythagoras-formal.json").read_text())
    data["reasoning_chain"][2]["content"] = "So z² = 9 + 16 = 26"
    verdict = verify_chain(VerifyRequest.model_validate(data))
    statuses = [v.status for v in verdict.step_verdicts]
    assert statuses == [StepStatus.VERIFIED, StepStatus.VERIFIED, StepStatus.FAILED, StepStatus.INVALIDATED]
    assert 'Unable to unify "26%Z" with "(9 + 16)%Z"' in verdict.step_verdicts[2].error_message


def test_an_unknown_the_question_does_not_call_an_integer_is_real():
    out = translate(request("Given x > 1, is x at least 2?", ["So x ≥ 2."]))
    assert "Parameter x : R." in out[CONTEXT_STEP_ID].formal_representation
    integer = translate(request("x is an integer with x > 1. Is x at least 2?", ["So x ≥ 2."]))
    assert "Parameter x : Z." in integer[CONTEXT_STEP_ID].formal_representation


@needs_coq
def test_algebra_over_the_reals_verifies_and_an_integer_only_step_does_not():
    solve = request("If 2x + 3 = 11, what is x?", ["So 2x = 8.", "So x = 4."])
    verdict = verify_chain(solve)
    assert verdict.overall is Overall.VERIFIED, [(v.step_id, v.error_message) for v in verdict.step_verdicts]
    # Over Z, x > 1 gives x >= 2; over the reals it does not, and the question never said x is an integer.
    # (a proof that does not go through shows that it proves nothing, not that the step is false: unsupported)
    verdict = verify_chain(request("Given x > 1, is x at least 2?", ["So x ≥ 2."]))
    assert verdict.step_verdicts[0].status is StepStatus.UNSUPPORTED
    verdict = verify_chain(request("x is an integer with x > 1. Is x at least 2?", ["So x ≥ 2."]))
    assert verdict.step_verdicts[0].status is StepStatus.VERIFIED, verdict.step_verdicts[0].error_message
