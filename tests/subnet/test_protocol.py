"""Wire models: bounds, canonical hashes, and translations carried into verification."""

from __future__ import annotations

import hashlib
import json

import pytest
from pydantic import ValidationError

from reasonforge.pipeline.run import verify_chain
from reasonforge.subnet.protocol import LIMITS, TranslationTask, VerificationResult
from reasonforge.types import Domain, ErrorKind, Overall, ProofLevel, StepStatus

from subnet_support import arithmetic_task, sympy_translations


def test_task_hash_is_sha256_of_canonical_required_fields_and_chain() -> None:
    task = arithmetic_task()
    expected_body = {
        "task_id": "task-1",
        "original_query": "Let x be 3. What is x + 2?",
        "domain": "mathematics",
        "difficulty": 2,
        "proof_level": "quick",
        "reasoning_chain": [
            {"step_id": 1, "content": "Let x = 3", "claimed_conclusion": None, "dependencies": None},
            {"step_id": 2, "content": "So x + 2 = 5", "claimed_conclusion": None, "dependencies": None},
        ],
    }
    canonical = json.dumps(expected_body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert task.task_hash() == hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def test_task_hash_covers_each_required_field_but_not_timeout_or_miner_fields() -> None:
    task = arithmetic_task()
    base = task.task_hash()
    for change in ({"task_id": "t2"}, {"original_query": "?"}, {"domain": Domain.LOGIC}, {"difficulty": 3},
                   {"proof_level": ProofLevel.FORMAL}):
        assert task.model_copy(update=change).task_hash() != base, change
    other_chain = arithmetic_task(x=4)
    assert other_chain.model_copy(update={"original_query": task.original_query}).task_hash() != base
    assert task.model_copy(update={"timeout_seconds": 99}).task_hash() == base
    assert task.with_submission(sympy_translations(), "COMPILED", 5).task_hash() == base


def test_submission_hash_binds_task_and_every_miner_field() -> None:
    filled = arithmetic_task().with_submission(sympy_translations(), "COMPILED", 12, full_proof_artifact="QUJD")
    assert filled.has_valid_submission_hash()
    tampered = [
        {"translations": sympy_translations(claimed_sum=6)},
        {"compilation_status": "PARTIAL"},
        {"translation_time_ms": 13},
        {"full_proof_artifact": "QUJE"},
        {"task_id": "task-2"},
    ]
    for change in tampered:
        assert not filled.model_copy(update=change).has_valid_submission_hash(), change
    assert not arithmetic_task().has_valid_submission_hash()  # never filled


def test_for_miner_clears_every_miner_field_and_keeps_the_task() -> None:
    filled = arithmetic_task().with_submission(sympy_translations(), "PARTIAL", 7, full_proof_artifact="x")
    cleared = filled.for_miner()
    assert cleared.translations is None and cleared.compilation_status is None
    assert cleared.full_proof_artifact is None and cleared.translation_time_ms is None
    assert cleared.submission_hash is None
    assert cleared.task_hash() == filled.task_hash()
    assert cleared.reasoning_chain == filled.reasoning_chain


def test_round_trip_through_json_keeps_hashes() -> None:
    filled = arithmetic_task().with_submission(sympy_translations(), "COMPILED", 3)
    again = TranslationTask.model_validate_json(filled.model_dump_json())
    assert again == filled
    assert again.has_valid_submission_hash()


def test_to_verify_request_checks_the_miners_translations() -> None:
    task = arithmetic_task()
    right = verify_chain(task.with_submission(sympy_translations(), "COMPILED", 1).to_verify_request())
    assert right.overall == Overall.VERIFIED
    assert right.task_id == "task-1"
    assert [v.formal_representation for v in right.step_verdicts] == [
        t.formal_representation for t in sympy_translations()
    ]
    # A wrong artifact does not state the step's claim: the step is unsupported (the chain is right, so it is
    # not failed either); the miner's work is what is judged.
    wrong = verify_chain(task.with_submission(sympy_translations(claimed_sum=6), "COMPILED", 1).to_verify_request())
    assert wrong.step_verdicts[1].status == StepStatus.UNSUPPORTED
    assert wrong.step_verdicts[1].error_kind is ErrorKind.UNALIGNED
    assert wrong.overall != Overall.VERIFIED


def test_to_verify_request_without_translations_never_falls_back_to_our_translator() -> None:
    request = arithmetic_task().to_verify_request()
    assert request.translations == []
    verdict = verify_chain(request)
    assert verdict.verified_steps == 0
    assert {v.status for v in verdict.step_verdicts} == {StepStatus.UNSUPPORTED}


@pytest.mark.parametrize(
    ("change", "where"),
    [
        ({"difficulty": 0}, "difficulty"),
        ({"difficulty": 11}, "difficulty"),
        ({"timeout_seconds": 0}, "timeout_seconds"),
        ({"timeout_seconds": 3601}, "timeout_seconds"),
        ({"task_id": ""}, "task_id"),
        ({"domain": "astrology"}, "domain"),
        ({"reasoning_chain": []}, "reasoning_chain"),
        ({"compilation_status": "MAYBE"}, "compilation_status"),
        ({"submission_hash": "not-a-hash"}, "submission_hash"),
        ({"translation_time_ms": -1}, "translation_time_ms"),
        ({"surprise": 1}, "surprise"),
    ],
)
def test_task_rejects_bad_fields_naming_them(change: dict, where: str) -> None:
    data = {**arithmetic_task().model_dump(mode="json"), **change}
    with pytest.raises(ValidationError) as info:
        TranslationTask.model_validate(data)
    assert where in {str(part) for error in info.value.errors() for part in error["loc"]}


def test_task_size_bounds() -> None:
    data = arithmetic_task().model_dump(mode="json")
    too_many = [{"step_id": i, "content": f"Let x{i} = {i}"} for i in range(1, LIMITS.max_steps + 2)]
    with pytest.raises(ValidationError, match="at most 64"):
        TranslationTask.model_validate({**data, "reasoning_chain": too_many})
    huge_step = [{"step_id": 1, "content": "x" * (LIMITS.max_step_bytes + 1)}]
    with pytest.raises(ValidationError, match="step 1 content is longer than 65536 bytes"):
        TranslationTask.model_validate({**data, "reasoning_chain": huge_step})
    # Limits count UTF-8 bytes, not characters: 40,000 "é" are 80,000 bytes.
    with pytest.raises(ValidationError, match="original_query is longer"):
        TranslationTask.model_validate({**data, "original_query": "é" * 40_000})
    artifact = [{**sympy_translations()[0].model_dump(mode="json"), "formal_representation": "y" * 70_000}]
    with pytest.raises(ValidationError, match="translation of step 1 formal_representation"):
        TranslationTask.model_validate({**data, "translations": artifact})
    assert TranslationTask.model_validate({**data, "reasoning_chain": too_many[:LIMITS.max_steps]})


def test_verification_result_bounds() -> None:
    good = {
        "epoch_id": 3, "miner_uid": 2, "tasks_translated": 4, "steps_compiled": 9, "steps_total": 12,
        "compilation_rate": 0.75, "epoch_score": 0.61, "rank": 1, "tao_earned": 0.02,
    }
    assert VerificationResult.model_validate(good).compilation_rate == 0.75
    assert VerificationResult.required_hash_fields == ("epoch_id", "miner_uid")
    for change in ({"compilation_rate": 1.5}, {"epoch_score": float("nan")}, {"miner_uid": -1},
                   {"steps_compiled": 13}, {"tao_earned": float("inf")}, {"extra": 1}):
        with pytest.raises(ValidationError):
            VerificationResult.model_validate({**good, **change})
