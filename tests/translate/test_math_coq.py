"""The offline maths → Coq translator: what it writes, and (with coqc) that the checker agrees."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reasonforge import VerifyRequest, verify_chain
from reasonforge.chain import validate_request
from reasonforge.translate import default_translator
from reasonforge.translate.math_coq import CoqMathTranslator
from reasonforge.types import CONTEXT_STEP_ID, ArtifactLanguage, Domain, Overall, ProofLevel, Prover, StepStatus
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
    for line in ("Definition x : Z := 3.", "Definition y : Z := 4.", "Parameter z : Z.", "Axiom z_nonneg : 0 <= z.",
                 "Axiom cited_2 : x ^ 2 + y ^ 2 = z ^ 2."):
        assert line in context
    assert "Theorem step1 : (x = 3) /\\ (y = 4)." in out[1].formal_representation
    assert "Theorem step3 : (z ^ 2 = 9 + 16) /\\ (9 + 16 = 25)." in out[3].formal_representation
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


@needs_coq
@pytest.mark.parametrize("name", ["pythagoras-formal.json"])
def test_examples_verify_end_to_end(name):
    verdict = verify_chain(VerifyRequest.model_validate_json((EXAMPLES / name).read_text()))
    assert verdict.overall is Overall.VERIFIED, [(v.step_id, v.error_message) for v in verdict.step_verdicts]


@needs_coq
def test_parity_and_rational_chains_verify_end_to_end():
    parity = request("Prove that if n is an even integer, then n² is divisible by 4.",
                     ["Since n is even, we can write n = 2k for some integer k.", "Then n² = (2k)² = 4k².",
                      "So n² is divisible by 4."])
    clips = request("Natalia sold 48 clips in April and half as many in May.",
                    ["In May she sold 48 / 2 = 24 clips.", "Altogether she sold 48 + 24 = 72 clips."])
    for req in (parity, clips):
        verdict = verify_chain(req)
        assert verdict.overall is Overall.VERIFIED, [(v.step_id, v.error_message) for v in verdict.step_verdicts]


@needs_coq
def test_an_arithmetic_slip_fails_at_its_step_with_coqs_reason_and_invalidates_the_rest():
    data = json.loads((EXAMPLES / "pythagoras-formal.json").read_text())
    data["reasoning_chain"][2]["content"] = "So z² = 9 + 16 = 26"
    verdict = verify_chain(VerifyRequest.model_validate(data))
    statuses = [v.status for v in verdict.step_verdicts]
    assert statuses == [StepStatus.VERIFIED, StepStatus.VERIFIED, StepStatus.FAILED, StepStatus.INVALIDATED]
    assert 'Unable to unify "26" with "9 + 16"' in verdict.step_verdicts[2].error_message
