"""The standard level's key lemmas, end to end with the real coqc: which steps Coq proves, what the evidence says,
and what a Coq proof may never do (refute, override SymPy, rest on the step's own premises or the question's goal).

Each chain's steps are independent (`dependencies: []`), so one Coq run proves all of a chain's lemmas."""

from __future__ import annotations

import functools

import pytest

from reasonforge import VerifyRequest, verify_chain
from reasonforge.pipeline.key_lemmas import KeyLemmaResult, StepLemmas, prove_key_lemmas
from reasonforge.translate.key_lemmas import KeyLemma
from reasonforge.translate.math_quick import MathTranslator
from reasonforge.types import (
    CheckLimits,
    CheckOutcome,
    Domain,
    ErrorKind,
    ProofLevel,
    ProvedBy,
    RelationProof,
    StepContext,
    StepStatus,
    VerificationVerdict,
)
from reasonforge.verify.coq import CoqChecker, unavailable_reason
from reasonforge.verify.math import ArithmeticChecker

REASON = unavailable_reason()
needs_coq = pytest.mark.skipif(REASON is not None, reason=f"key lemmas need coqc and the sandbox: {REASON}")

STEPS = {
    "identity": "$(a+b)^2 = a^2 + 2ab + b^2$",
    "arithmetic": "So 3 + 4 = 7.",
    "false identity": "$(x+1)^2 = x^2 + 2x + 2$",
    "beyond coq": "So x/(x^2+1) <= 1/2.",  # true, but beyond the lemmas' tactics (nra does not divide)
    "own premise": "Assume z > 10. Then z^2 > 100.",
    "undecided": "So x^2 + 1 >= 2x.",
}


def request(question: str, steps: list[str], level: ProofLevel = ProofLevel.STANDARD) -> VerifyRequest:
    return VerifyRequest(original_query=question, domain=Domain.MATHEMATICS, proof_level=level,
                         reasoning_chain=[{"step_id": i, "content": text, "dependencies": []}  # type: ignore[misc]
                                          for i, text in enumerate(steps, start=1)])


@functools.cache
def verdict() -> VerificationVerdict:
    return verify_chain(request("Simplify.", list(STEPS.values())))


def step(name: str):
    return verdict().step_verdicts[list(STEPS).index(name)]


def lemma_records(name: str) -> list[dict]:
    return step(name).details.get("key_lemmas", [])


@needs_coq
def test_an_identity_is_proved_by_coq_and_the_evidence_shows_the_lemma():
    identity = step("identity")
    assert identity.status is StepStatus.VERIFIED
    assert identity.evidence.proofs == [RelationProof(
        relation="(a + b)^2 = a^2 + 2*a*b + b^2", proved_by=ProvedBy.COQ, sympy="identity",
        lemma="Lemma key_1_1 : forall a b : R, (a + b) ^ 2 = a ^ 2 + 2 * a * b + b ^ 2.", tactic="ring")]
    assert "proved as Coq lemmas" in identity.evidence.note
    assert "key_lemmas" in identity.checker_spec.args  # a certificate of the verdict names the prover too


@needs_coq
def test_closed_arithmetic_stays_sympy_s():
    arithmetic = step("arithmetic")
    assert arithmetic.status is StepStatus.VERIFIED and "key_lemmas" not in arithmetic.details
    assert arithmetic.evidence.proofs == [RelationProof(relation="3 + 4 = 7", proved_by=ProvedBy.SYMPY, sympy="exact")]
    assert "key_lemmas" not in arithmetic.checker_spec.args


@needs_coq
def test_a_false_identity_is_refuted_by_sympy_and_never_sent_to_coq():
    false = step("false identity")
    assert false.status is StepStatus.FAILED and false.error_kind == ErrorKind.CONTRADICTION
    assert false.evidence is None and not lemma_records("false identity")


@needs_coq
def test_a_claim_sympy_left_undecided_is_verified_once_coq_proves_it():
    quick = verify_chain(request("Simplify.", [STEPS["undecided"]], ProofLevel.QUICK)).step_verdicts[0]
    assert quick.status is StepStatus.UNSUPPORTED
    undecided = step("undecided")
    assert undecided.status is StepStatus.VERIFIED
    (proof,) = undecided.evidence.proofs
    assert proof.proved_by is ProvedBy.COQ and proof.sympy is None  # Coq alone proved it
    assert proof.lemma == "Lemma key_6_1 : forall x : R, x ^ 2 + 1 >= 2 * x." and proof.tactic
    assert "SymPy left undecided" in undecided.evidence.note


@needs_coq
def test_a_lemma_coq_cannot_prove_leaves_the_step_as_sympy_left_it():
    beyond = step("beyond coq")
    assert beyond.status is StepStatus.UNSUPPORTED and beyond.error_kind == ErrorKind.UNDECIDED  # not failed
    (record,) = lemma_records("beyond coq")
    assert record["lemma"] == "Lemma key_4_1 : forall x : R, x / (x ^ 2 + 1) <= 1 / 2."
    assert not record["proved"] and record["message"].startswith("not proved in Coq")


@needs_coq
def test_a_premise_the_step_states_is_never_a_hypothesis_of_its_lemma():
    own = step("own premise")
    assert own.status is StepStatus.UNSUPPORTED and not lemma_records("own premise")
    # without `z > 10` the claim is false at z = 0, so it is no lemma at all
    (skipped,) = own.details["key_lemmas_skipped"]
    assert skipped.startswith("z^2 > 100: no lemma: it is false at z = 0, where every hypothesis holds")


@needs_coq
def test_neither_the_question_s_goal_nor_contradictory_givens_prove_anything():
    question = "Let x > 1 and x < 0. Show that y/(y^2+1) <= 1/2."
    goal, vacuous = verify_chain(request(question, ["So y/(y^2+1) <= 1/2.", "So x^3 >= x."])).step_verdicts
    assert goal.status is StepStatus.UNSUPPORTED  # the question asks for it: it is no hypothesis
    assert goal.details["key_lemmas"][0]["lemma"] == "Lemma key_1_1 : forall y : R, y / (y ^ 2 + 1) <= 1 / 2."
    assert vacuous.status is StepStatus.UNSUPPORTED
    (record,) = vacuous.details["key_lemmas"]
    assert record["hypotheses"] == ["x > 1 (the question)", "x < 0 (the question)"]
    assert not record["proved"] and "contradict" in record["message"]


def test_a_prover_that_cannot_run_proves_nothing_and_refutes_nothing():
    chain = request("Simplify.", [STEPS["undecided"]])
    (translation,) = MathTranslator().translate_chain(chain, {1: []})
    context = StepContext(step_id=1, content=STEPS["undecided"], original_query="Simplify.", domain=Domain.MATHEMATICS,
                          proof_level=ProofLevel.STANDARD)
    checker = ArithmeticChecker()
    artifact = translation.formal_representation
    outcome = checker.check(artifact, level=ProofLevel.STANDARD, limits=CheckLimits(), context=context)
    assert outcome.status is StepStatus.UNSUPPORTED
    after = prove_key_lemmas({1: (context, artifact, outcome)}, checker, CheckLimits(),
                             prover=CoqChecker(coqc="/nonexistent/coqc"))[1]
    assert after.outcome.status is StepStatus.UNSUPPORTED and not after.proved
    assert "coqc is not installed" in after.outcome.details["key_lemmas"][0]["message"]


def test_a_relation_stated_twice_is_proved_only_when_each_of_its_lemmas_is():
    first = KeyLemma(1, "x^3 >= x", "key_1_1", "R", "forall x : R, x ^ 3 >= x", (), "")
    again = KeyLemma(1, "x^3 >= x", "key_1_2", "R", "forall x : R, x ^ 3 >= x -> x ^ 3 >= x",
                     ("x^3 >= x (this step's claim before it)",), "")
    results = (KeyLemmaResult(first, False, message="No applicable tactic."), KeyLemmaResult(again, True, tactic="lra"))
    assert StepLemmas(CheckOutcome(status=StepStatus.UNSUPPORTED), results).proved == {}
