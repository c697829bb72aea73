"""The chain-checker contract: workspace checkers (Coq, Lean 4) see every step of their language at once."""

import pytest

from reasonforge import StepTranslation, VerifyRequest, verify_chain
from reasonforge.errors import InputError
from reasonforge.registry import CheckerRegistry, Spec
from reasonforge.types import (
    ArtifactLanguage,
    CheckOutcome,
    ErrorKind,
    Evidence,
    EvidenceKind,
    Formaliser,
    Overall,
    StepStatus,
)


def request(n, deps=None, prover="auto"):
    deps = deps or [None] * n
    return VerifyRequest.model_validate({
        "domain": "mathematics", "proof_level": "formal", "prover": prover,
        "reasoning_chain": [{"step_id": i + 1, "content": f"step {i + 1}", "dependencies": d}
                            for i, d in enumerate(deps)],
    })


def coq(step_id, text):
    return StepTranslation(step_id=step_id, language="coq", formal_representation=text)


def recording_registry(decide):
    """A registry whose coq checker records its calls and marks each step by `decide(step)`."""
    registry = CheckerRegistry(modules={})
    calls = []
    # these tests are about running a chain checker, not alignment: the recorder's verdict is the step's
    registry.aligner(ArtifactLanguage.COQ)(lambda context, translation, outcome, limits: outcome)

    @registry.checker(ArtifactLanguage.COQ)
    class Recorder:
        spec = Spec(name="recorder", version="0")

        def check_chain(self, steps, *, context, level, limits):
            calls.append({"steps": list(steps), "context": context, "level": level})
            return {s.step_id: outcome for s in steps if (outcome := decide(s)) is not None}

    return registry, calls


# What the real Coq checker records on a step it verified; without it the soundness gate unverifies the step.
ALIGNED = Evidence(kind=EvidenceKind.THEOREM, aligned_claim="T", formaliser=Formaliser.ARTIFACT)


def ok(step):
    if "False" in step.artifact:  # a refutation (a failed proof alone refutes nothing: `gate`)
        return CheckOutcome(status=StepStatus.FAILED, error_kind=ErrorKind.ARITHMETIC)
    return CheckOutcome(status=StepStatus.VERIFIED, evidence=ALIGNED, details={"alignment": {"status": "aligned"}})


def test_one_call_per_chain_with_context_ancestors_and_text():
    registry, calls = recording_registry(ok)
    req = request(3, deps=[[], [1], [1, 2]])
    translations = [coq(0, "Variable n : nat."), coq(1, "A"), coq(2, "B"), coq(3, "C")]
    verdict = verify_chain(req, translations=translations, registry=registry)
    assert verdict.overall is Overall.VERIFIED
    [call] = calls
    assert call["context"] == "Variable n : nat."
    assert [(s.step_id, s.content, s.artifact, s.dependencies, s.ancestors) for s in call["steps"]] == [
        (1, "step 1", "A", [], []), (2, "step 2", "B", [1], [1]), (3, "step 3", "C", [1, 2], [1, 2])]
    assert verdict.step_verdicts[0].checker_spec.name == "recorder"


def test_failed_step_invalidates_dependants_through_the_cascade():
    registry, _ = recording_registry(ok)
    verdict = verify_chain(request(3), translations=[coq(1, "A"), coq(2, "False"), coq(3, "C")], registry=registry)
    assert [v.status for v in verdict.step_verdicts] == [StepStatus.VERIFIED, StepStatus.FAILED,
                                                         StepStatus.INVALIDATED]
    assert verdict.failure_report.failed_step_id == 2


def test_missing_outcome_and_crash_are_errors_on_the_steps():
    registry, _ = recording_registry(lambda s: None if s.step_id == 2 else ok(s))
    verdict = verify_chain(request(2), translations=[coq(1, "A"), coq(2, "B")], registry=registry)
    assert verdict.step_verdicts[1].status is StepStatus.ERROR
    assert "no result" in verdict.step_verdicts[1].error_message

    def crash(step):
        raise RuntimeError("boom")

    registry, _ = recording_registry(crash)
    verdict = verify_chain(request(2), translations=[coq(1, "A"), coq(2, "B")], registry=registry)
    assert {v.status for v in verdict.step_verdicts} == {StepStatus.ERROR}
    assert "boom" in verdict.step_verdicts[0].error_message


def test_empty_artifact_is_unsupported_without_calling_the_checker():
    registry, calls = recording_registry(ok)
    verdict = verify_chain(request(2), translations=[coq(1, "A"), coq(2, "")], registry=registry)
    assert [v.status for v in verdict.step_verdicts] == [StepStatus.VERIFIED, StepStatus.UNSUPPORTED]
    assert [s.step_id for s in calls[0]["steps"]] == [1]


def test_context_step_only_for_workspace_languages():
    registry, _ = recording_registry(ok)
    with pytest.raises(InputError, match="unknown step 0"):
        verify_chain(request(1), translations=[
            StepTranslation(step_id=0, language="propositional", formal_representation="p\n⊢ p"),
            coq(1, "A")], registry=registry)
    with pytest.raises(InputError, match="more than one Context"):
        verify_chain(request(1), translations=[coq(0, "X"), coq(0, "Y"), coq(1, "A")], registry=registry)


def test_prover_must_match_the_translations():
    registry, _ = recording_registry(ok)
    with pytest.raises(InputError, match="prover 'lean4'") as info:
        verify_chain(request(1, prover="lean4"), translations=[coq(1, "A")], registry=registry)
    assert info.value.field == "translations[0].language"
