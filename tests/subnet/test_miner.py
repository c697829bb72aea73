"""The translator miner: real translation and local checks, the three profiles, and serving over signed HTTP."""

from __future__ import annotations

import asyncio
import base64
import json
from pathlib import Path

import pytest

from reasonforge.pipeline.run import verify_chain
from reasonforge.subnet.chain import Endpoint, InMemoryChain
from reasonforge.subnet.keys import Identity
from reasonforge.subnet.miner import (
    TranslatorMiner,
    _PermitCache,
    compilation_status,
    compiled_steps,
    vacuous_artifact,
)
from reasonforge.subnet.miner_server import create_miner_app
from reasonforge.subnet.protocol import TranslationTask, VerificationResult
from reasonforge.subnet.validator_client import ValidatorClient
from reasonforge.types import (
    ArtifactLanguage,
    ErrorKind,
    ProofLevel,
    StepStatus,
    StepTranslation,
    VerifyRequest,
)

from subnet_support import endpoint_of, running_miner

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
MINER = Identity.from_seed("//test-miner")
VALIDATOR = Identity.from_seed("//test-miner-validator")


def _task(example: str, level: ProofLevel = ProofLevel.STANDARD, task_id: str = "0" * 32) -> TranslationTask:
    request = VerifyRequest.model_validate_json((EXAMPLES / example).read_bytes())
    return TranslationTask(task_id=task_id, original_query=request.original_query,
                           reasoning_chain=request.reasoning_chain, domain=request.domain, difficulty=5,
                           proof_level=level, timeout_seconds=60, claimed_answer=request.claimed_answer)


def test_honest_miner_fills_every_field_from_a_real_translation() -> None:
    task = _task("six-step-chain.json")
    filled = asyncio.run(TranslatorMiner(MINER).handle_task(task.for_miner()))
    assert filled.task_hash() == task.task_hash()
    assert filled.has_valid_submission_hash()
    assert [t.step_id for t in filled.translations] == [1, 2, 3, 4, 5, 6]
    assert all(t.language is ArtifactLanguage.FOL and t.formal_representation for t in filled.translations)
    assert all(t.compilation_check for t in filled.translations)
    assert filled.compilation_status == "COMPILED"
    assert filled.translation_time_ms is not None and filled.translation_time_ms >= 0
    bundle = base64.b64decode(filled.full_proof_artifact).decode("utf-8")
    assert all(t.formal_representation.strip() in bundle for t in filled.translations)
    # The artifacts say what the chain says: the validator's check finds step 3's unsupported leap, invalidates
    # what rests on it, and verifies the rest (with the reader's claim as evidence, past the soundness gate).
    verdict = verify_chain(filled.to_verify_request())
    assert [sv.status.value for sv in verdict.step_verdicts] == [
        "verified", "verified", "failed", "invalidated", "invalidated", "verified"]
    assert verdict.verified_steps == 3
    assert verdict.step_verdicts[5].evidence.aligned_claim == "(∀x (Feline(x) → Carnivore(x))) ∧ Carnivore(tom)"


def test_lazy_miner_drops_half_the_steps_and_says_partial() -> None:
    filled = asyncio.run(TranslatorMiner(MINER, profile="lazy").handle_task(_task("six-step-chain.json")))
    assert [t.step_id for t in filled.translations] == [1, 2, 3]
    assert filled.compilation_status == "PARTIAL"
    assert filled.has_valid_submission_hash()


def test_vacuous_miner_submits_artifacts_that_pass_the_checker_but_verify_nothing() -> None:
    task = _task("six-step-chain.json")
    filled = asyncio.run(TranslatorMiner(MINER, profile="vacuous").handle_task(task))
    assert {t.formal_representation for t in filled.translations} == {vacuous_artifact(ArtifactLanguage.FOL, 1)}
    verdict = verify_chain(filled.to_verify_request())
    # The checker alone is fooled (each tautology is proven), the soundness gate is not: nothing ties the artifact
    # to what its step says, so no step is verified (consensus and traps expose it too: validator tests).
    assert verdict.verified_steps == 0
    statuses = [sv.status for sv in verdict.step_verdicts]
    assert all(sv.details["checker_status"] == "verified" for sv in verdict.step_verdicts)
    # Step 3 ("Tom is a whale.") is refuted whatever the artifact: a logic step's refutation is the English
    # reader's (it used to stay unsupported under a vacuous artifact), and steps 4 and 5 rest on it.
    assert statuses == [StepStatus.UNSUPPORTED, StepStatus.UNSUPPORTED, StepStatus.FAILED, StepStatus.INVALIDATED,
                        StepStatus.INVALIDATED, StepStatus.UNSUPPORTED]
    assert verdict.step_verdicts[2].error_kind is ErrorKind.COUNTEREXAMPLE
    assert all(sv.error_kind is ErrorKind.UNALIGNED for sv in verdict.step_verdicts if sv.step_id != 3)
    assert filled.compilation_status == "COMPILED"


def test_unchecked_submission_reports_the_engine_claims_and_a_syntax_error_never_compiles() -> None:
    task = _task("whale.json")
    filled = asyncio.run(TranslatorMiner(MINER, local_check=False).handle_task(task))
    assert filled.compilation_status == "COMPILED" and filled.has_valid_submission_hash()
    broken = [
        StepTranslation(step_id=1, language=ArtifactLanguage.FOL, formal_representation="∀x (P(x) →\n⊢ Q(a)")
    ]
    request = task.to_verify_request().model_copy(update={"translations": broken})
    compiled = compiled_steps(verify_chain(request), broken)
    assert compiled == {1: False}
    assert compilation_status(compiled) == "FAILED"
    assert compilation_status({1: True, 2: False}) == "PARTIAL"


def test_miner_serves_tasks_and_records_results_over_signed_http() -> None:
    miner = TranslatorMiner(MINER)
    app = create_miner_app(MINER, miner.handle_task, miner.handle_result)
    task = _task("affirming-the-consequent.json", ProofLevel.QUICK)
    result = VerificationResult(epoch_id=1, miner_uid=4, tasks_translated=1, steps_compiled=2, steps_total=2,
                                compilation_rate=1.0, epoch_score=0.9, rank=1, tao_earned=0.41)

    async def exchange(endpoint: Endpoint):
        async with ValidatorClient(VALIDATOR) as client:
            outcome = await client.query(4, endpoint, MINER.hotkey, task)
            delivered = await client.notify(endpoint, MINER.hotkey, result)
        return outcome, delivered

    with running_miner(app) as url:
        outcome, delivered = asyncio.run(exchange(endpoint_of(url)))
    assert outcome.ok, outcome.error
    assert outcome.task.compilation_status == "COMPILED"
    assert [t.step_id for t in outcome.task.translations] == [1, 2]
    assert delivered and list(miner.results) == [result]
    assert miner.tasks_handled == 1


def test_permit_hook_admits_validators_only_and_orders_by_stake(tmp_path: Path) -> None:
    chain = InMemoryChain(path=tmp_path / "chain.json")
    chain.register(VALIDATOR.hotkey, 500.0, validator_permit=True)
    chain.register("5plain-neuron", 900.0)
    permits = _PermitCache(InMemoryChain(path=tmp_path / "chain.json"), ttl_s=0.0)  # what a miner process reads
    assert permits.allow(VALIDATOR.hotkey)
    assert not permits.allow("5plain-neuron") and not permits.allow("5unknown")
    assert permits.priority(VALIDATOR.hotkey) == 500.0 and permits.priority("5unknown") == 0.0


def test_unknown_profile_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown miner profile"):
        TranslatorMiner(MINER, profile="greedy")  # type: ignore[arg-type]


def test_vacuous_artifacts_exist_for_every_language() -> None:
    for language in ArtifactLanguage:
        assert vacuous_artifact(language, 2).strip()
    assert json.dumps(vacuous_artifact(ArtifactLanguage.COQ, 2)).count("step2") == 1
