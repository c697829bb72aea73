"""The soundness gate's one rule: no checker path yields a VERIFIED step that nothing ties to what the step says."""

from reasonforge import StepTranslation, VerifyRequest, verify_chain
from reasonforge.pipeline.soundness import require_evidence
from reasonforge.pipeline.soundness.common import with_evidence
from reasonforge.registry import CheckerRegistry
from reasonforge.types import (
    ArtifactLanguage,
    CheckOutcome,
    ErrorKind,
    Evidence,
    EvidenceKind,
    Formaliser,
    Spec,
    StepStatus,
)

EVIDENCE = Evidence(kind=EvidenceKind.CLAIM, aligned_claim="Mammal(moby)", formaliser=Formaliser.OFFLINE_READER)


def test_verified_without_evidence_becomes_unsupported():
    out = require_evidence(CheckOutcome(status=StepStatus.VERIFIED, details={"elapsed_ms": 1}))
    assert out.status is StepStatus.UNSUPPORTED
    assert out.error_kind is ErrorKind.NO_EVIDENCE
    assert out.details["checker_status"] == "verified" and out.details["elapsed_ms"] == 1


def test_verified_with_evidence_stays_verified_and_records_the_aligned_claim():
    out = require_evidence(with_evidence(CheckOutcome(status=StepStatus.VERIFIED), EVIDENCE))
    assert out.status is StepStatus.VERIFIED
    assert out.details["aligned_claim"] == "Mammal(moby)"
    assert out.details["evidence"]["kind"] == "claim"


def test_malformed_evidence_counts_as_none():
    for bad in ({"kind": "vibes", "aligned_claim": "x", "formaliser": "artifact"}, {"kind": "claim"}, "yes", 1):
        out = require_evidence(CheckOutcome(status=StepStatus.VERIFIED, details={"evidence": bad}))
        assert out.status is StepStatus.UNSUPPORTED, bad


def test_other_statuses_pass_through():
    for status in (StepStatus.FAILED, StepStatus.ERROR, StepStatus.UNSUPPORTED):
        outcome = CheckOutcome(status=status, message="m")
        assert require_evidence(outcome) == outcome


def registry_verifying_everything():
    """Checkers that say `verified` to any artifact, recording no evidence: what a lax checker would do."""
    registry = CheckerRegistry(modules={})

    @registry.checker(ArtifactLanguage.PYTHON)
    class Lax:
        spec = Spec(name="lax", version="0")

        def check(self, artifact, *, level, limits, context=None):
            return CheckOutcome(status=StepStatus.VERIFIED)

    @registry.checker(ArtifactLanguage.COQ)
    class LaxChain:
        spec = Spec(name="lax-chain", version="0")

        def check_chain(self, steps, *, context, level, limits):
            return {s.step_id: CheckOutcome(status=StepStatus.VERIFIED) for s in steps}

    return registry


def test_a_lax_checker_cannot_verify_a_step_through_the_pipeline():
    req = VerifyRequest.model_validate({"domain": "code", "reasoning_chain": [{"step_id": 1, "content": "sorts a list"}]})
    supplied = [StepTranslation(step_id=1, language="python", formal_representation="def f(): pass")]
    verdict = verify_chain(req, translations=supplied, registry=registry_verifying_everything())
    assert verdict.step_verdicts[0].status is StepStatus.UNSUPPORTED
    assert verdict.step_verdicts[0].error_kind is ErrorKind.NO_EVIDENCE
    assert verdict.overall.value != "VERIFIED"


def test_a_lax_chain_checker_cannot_verify_a_step_either():
    req = VerifyRequest.model_validate({"domain": "mathematics", "proof_level": "formal", "prover": "coq",
                                        "reasoning_chain": [{"step_id": 1, "content": "So 2 + 2 = 5"}]})
    supplied = [StepTranslation(step_id=1, language="coq", formal_representation="Theorem t : True. exact I. Qed.")]
    verdict = verify_chain(req, translations=supplied, registry=registry_verifying_everything())
    assert verdict.step_verdicts[0].status is not StepStatus.VERIFIED


def test_an_aligner_that_crashes_fails_closed(monkeypatch):
    from reasonforge.pipeline import soundness

    def boom(context, translation, outcome, limits):
        raise RuntimeError("aligner bug")

    monkeypatch.setitem(soundness.ALIGNERS, ArtifactLanguage.PYTHON, boom)
    req = VerifyRequest.model_validate({"domain": "code", "reasoning_chain": [{"step_id": 1, "content": "sorts"}]})
    supplied = [StepTranslation(step_id=1, language="python", formal_representation="def f(): pass")]
    step = verify_chain(req, translations=supplied, registry=registry_verifying_everything()).step_verdicts[0]
    assert step.status is StepStatus.ERROR and "aligner bug" in step.error_message
