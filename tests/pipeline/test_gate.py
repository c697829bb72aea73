"""The soundness gate's rules: the domain picks the family, a family's aligner ties the outcome to the step, and no
checker path yields a VERIFIED step that nothing ties to what the step says."""

import pytest

from reasonforge import StepTranslation, VerifyRequest, verify_chain
from reasonforge.errors import InputError
from reasonforge.pipeline.gate import gate, require_evidence
from reasonforge.registry import CheckerRegistry
from reasonforge.types import (
    ArtifactLanguage,
    CheckLimits,
    CheckOutcome,
    Domain,
    ErrorKind,
    Evidence,
    EvidenceKind,
    Formaliser,
    ProofLevel,
    Spec,
    StepContext,
    StepStatus,
)

EVIDENCE = Evidence(kind=EvidenceKind.CLAIM, aligned_claim="Mammal(moby)", formaliser=Formaliser.OFFLINE_READER)


def test_verified_without_evidence_becomes_unsupported():
    out = require_evidence(CheckOutcome(status=StepStatus.VERIFIED, details={"elapsed_ms": 1}))
    assert out.status is StepStatus.UNSUPPORTED
    assert out.error_kind is ErrorKind.NO_EVIDENCE
    assert out.details["checker_status"] == "verified" and out.details["elapsed_ms"] == 1


def test_verified_with_evidence_stays_verified_with_its_evidence():
    out = require_evidence(CheckOutcome(status=StepStatus.VERIFIED).with_evidence(EVIDENCE))
    assert out.status is StepStatus.VERIFIED
    assert out.evidence == EVIDENCE


def test_evidence_in_the_diagnostics_counts_for_nothing():
    forged = {"kind": "claim", "aligned_claim": "x", "formaliser": "offline_reader"}
    out = require_evidence(CheckOutcome(status=StepStatus.VERIFIED, details={"evidence": forged}))
    assert out.status is StepStatus.UNSUPPORTED


def test_other_statuses_pass_through():
    for status in (StepStatus.FAILED, StepStatus.ERROR, StepStatus.UNSUPPORTED):
        outcome = CheckOutcome(status=status, message="m")
        assert require_evidence(outcome) == outcome


def registry_verifying_everything(*, evidence: Evidence | None = None):
    """Checkers that say `verified` to any artifact (recording `evidence` when given): what a lax checker would do.
    No aligner is registered for them."""
    registry = CheckerRegistry(modules={})

    @registry.checker(ArtifactLanguage.PYTHON, ArtifactLanguage.FOL, ArtifactLanguage.SYMPY)
    class Lax:
        spec = Spec(name="lax", version="0")

        def check(self, artifact, *, level, limits, context=None):
            return CheckOutcome(status=StepStatus.VERIFIED, evidence=evidence)

    @registry.checker(ArtifactLanguage.COQ)
    class LaxChain:
        spec = Spec(name="lax-chain", version="0")

        def check_chain(self, steps, *, context, level, limits):
            return {s.step_id: CheckOutcome(status=StepStatus.VERIFIED, evidence=evidence) for s in steps}

    return registry


def test_a_lax_checker_cannot_verify_a_step_through_the_pipeline():
    req = VerifyRequest.model_validate({"domain": "code", "reasoning_chain": [{"step_id": 1, "content": "sorts a list"}]})
    supplied = [StepTranslation(step_id=1, language="python", formal_representation="def f(): pass")]
    verdict = verify_chain(req, translations=supplied, registry=registry_verifying_everything())
    assert verdict.step_verdicts[0].status is StepStatus.UNSUPPORTED
    assert verdict.overall.value != "VERIFIED"


def test_a_checker_that_records_its_own_evidence_is_not_tied_without_its_familys_aligner():
    req = VerifyRequest.model_validate({"domain": "code", "reasoning_chain": [{"step_id": 1, "content": "sorts a list"}]})
    supplied = [StepTranslation(step_id=1, language="python", formal_representation="def f(): pass")]
    verdict = verify_chain(req, translations=supplied, registry=registry_verifying_everything(evidence=EVIDENCE))
    step = verdict.step_verdicts[0]
    assert step.status is StepStatus.UNSUPPORTED and step.evidence is None
    assert "no aligner" in step.error_message


def test_a_lax_chain_checker_cannot_verify_a_step_either():
    req = VerifyRequest.model_validate({"domain": "mathematics", "proof_level": "formal", "prover": "coq",
                                        "reasoning_chain": [{"step_id": 1, "content": "So 2 + 2 = 5"}]})
    supplied = [StepTranslation(step_id=1, language="coq", formal_representation="Theorem t : True. exact I. Qed.")]
    verdict = verify_chain(req, translations=supplied, registry=registry_verifying_everything(evidence=EVIDENCE))
    assert verdict.step_verdicts[0].status is not StepStatus.VERIFIED


def test_an_aligner_that_crashes_fails_closed():
    registry = registry_verifying_everything(evidence=EVIDENCE)

    @registry.aligner(ArtifactLanguage.PYTHON)
    def boom(context, translation, outcome, limits):
        raise RuntimeError("aligner bug")

    req = VerifyRequest.model_validate({"domain": "code", "reasoning_chain": [{"step_id": 1, "content": "sorts"}]})
    supplied = [StepTranslation(step_id=1, language="python", formal_representation="def f(): pass")]
    step = verify_chain(req, translations=supplied, registry=registry).step_verdicts[0]
    assert step.status is StepStatus.ERROR and "aligner bug" in step.error_message


@pytest.mark.parametrize(("domain", "language"), [
    ("logic", "python"), ("logic", "sympy"), ("logic", "coq"), ("mathematics", "python"), ("mathematics", "fol"),
    ("mathematics", "smtlib"), ("code", "fol"), ("code", "sympy"), ("code", "coq"),
])
def test_a_supplied_artifact_outside_its_domains_languages_is_refused_at_the_boundary(domain, language):
    req = VerifyRequest.model_validate({"domain": domain, "reasoning_chain": [{"step_id": 1, "content": "Tom is a whale."}],
                                        "translations": [{"step_id": 1, "language": language,
                                                          "formal_representation": "assert True"}]})
    with pytest.raises(InputError) as caught:
        verify_chain(req)
    assert f"the {domain} domain accepts" in caught.value.message and "step 1" in caught.value.message


def test_translations_beside_the_request_are_held_to_the_domain_too():
    req = VerifyRequest.model_validate({"domain": "logic", "reasoning_chain": [{"step_id": 1, "content": "Tom is a whale."}]})
    supplied = [StepTranslation(step_id=1, language="python", formal_representation="def test_t():\n    assert True\n")]
    with pytest.raises(InputError):
        verify_chain(req, translations=supplied)


def test_a_translators_artifact_in_another_domains_language_judges_nothing():
    context = StepContext(step_id=1, content="Tom is a whale.", domain=Domain.LOGIC, proof_level=ProofLevel.QUICK)
    translation = StepTranslation(step_id=1, language="python", formal_representation="def test_t():\n    assert True\n")
    for status in (StepStatus.VERIFIED, StepStatus.FAILED):
        out = gate(context, translation, CheckOutcome(status=status).with_evidence(EVIDENCE), CheckLimits(),
                   registry_verifying_everything(evidence=EVIDENCE))
        assert out.status is StepStatus.UNSUPPORTED and out.evidence is None
        assert "the logic domain accepts fol, propositional, smtlib" in out.message
