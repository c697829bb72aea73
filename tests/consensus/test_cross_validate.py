"""Per-step majority across translators and each miner's agreement with it, on hand-built verdicts."""

import pytest

from reasonforge.consensus import MinerAgreement, correctness, cross_validate, decided_majority
from reasonforge.errors import InputError
from reasonforge.types import (
    Domain,
    Evidence,
    EvidenceKind,
    Formaliser,
    Overall,
    ProofLevel,
    StepStatus,
    StepVerdict,
    VerificationVerdict,
)

PROVEN = Evidence(kind=EvidenceKind.CLAIM, aligned_claim="c", formaliser=Formaliser.OFFLINE_READER)


def verdict(flags: dict[int, bool], task_id: str = "t1", task_hash: str = "h1") -> VerificationVerdict:
    """A miner's verdict: step id → verified."""
    steps = [
        StepVerdict(step_id=sid, verified=ok, status=StepStatus.VERIFIED if ok else StepStatus.FAILED,
                    evidence=PROVEN if ok else None)
        for sid, ok in flags.items()
    ]
    verified = sum(flags.values())
    overall = Overall.VERIFIED if verified == len(steps) else Overall.PARTIAL if verified else Overall.FAILED
    return VerificationVerdict(
        task_id=task_id,
        overall=overall,
        step_verdicts=steps,
        total_steps=len(steps),
        verified_steps=verified,
        domain=Domain.LOGIC,
        proof_level=ProofLevel.FORMAL,
        task_hash=task_hash,
    )


def test_three_of_five_verifies_two_of_five_does_not():
    votes = {
        1: verdict({1: True, 2: True}),
        2: verdict({1: True, 2: False}),
        3: verdict({1: True, 2: False}),
        4: verdict({1: False, 2: True}),
        5: verdict({1: False, 2: False}),
    }
    result = cross_validate(votes)
    steps = {s.step_id: s for s in result.verdict.step_verdicts}
    assert steps[1].verified and steps[1].status is StepStatus.VERIFIED and steps[1].error_message is None
    assert not steps[2].verified and steps[2].status is StepStatus.FAILED
    assert steps[2].error_message == "Only 2/5 translations verified"
    assert result.step_counts == {1: (3, 5), 2: (2, 5)}
    assert result.verdict.overall is Overall.PARTIAL
    assert [s.step_id for s in result.verdict.failure_points] == [2]
    assert (result.verdict.total_steps, result.verdict.verified_steps) == (2, 1)
    # taken from the miners' verdicts when not given
    assert result.verdict.task_id == "t1"
    assert result.verdict.domain is Domain.LOGIC and result.verdict.proof_level is ProofLevel.FORMAL
    assert result.verdict.translator_uids == [1, 2, 3, 4, 5]
    assert result.verdict.task_hash == "h1"
    # Consensus: step 1 True, step 2 False. Miner 1: agrees on 1 only; miner 2: both; miner 4: neither.
    assert result.agreement[1] == MinerAgreement(uid=1, steps=2, agreed=1, verified=2)
    assert result.agreement[2] == MinerAgreement(uid=2, steps=2, agreed=2, verified=1)
    assert result.agreement[4] == MinerAgreement(uid=4, steps=2, agreed=0, verified=1)
    assert result.agreement[5] == MinerAgreement(uid=5, steps=2, agreed=1, verified=0)
    assert correctness(result.agreement[2]) == 1.0
    assert correctness(result.agreement[1]) == 0.5


def test_half_is_not_a_majority():
    votes = {1: verdict({1: True}), 2: verdict({1: True}), 3: verdict({1: False}), 4: verdict({1: False})}
    result = cross_validate(votes)
    assert not result.verdict.step_verdicts[0].verified
    assert result.verdict.step_verdicts[0].error_message == "Only 2/4 translations verified"
    assert result.verdict.overall is Overall.FAILED


def test_all_steps_verified_is_verified():
    result = cross_validate({1: verdict({1: True, 2: True}), 2: verdict({1: True, 2: True})})
    assert result.verdict.overall is Overall.VERIFIED
    assert result.verdict.failure_points == []


def test_no_answer_is_left_out_of_the_vote_and_agrees_on_nothing():
    votes = {1: verdict({1: True}), 2: verdict({1: True}), 3: verdict({1: False}), 8: None, 9: None}
    result = cross_validate(votes)
    # 2 of the 3 answering miners verified: 2 > 1.5
    assert result.verdict.step_verdicts[0].verified
    assert result.step_counts == {1: (2, 3)}
    assert result.agreement[8] == MinerAgreement(uid=8, steps=1, agreed=0, verified=0)
    assert result.verdict.translator_uids == [1, 2, 3]


def test_missing_step_counts_as_not_verified():
    votes = {
        1: verdict({1: True, 2: True, 3: True}),
        2: verdict({1: True, 3: True}),  # no step 2
        3: verdict({1: True, 2: True}),  # no step 3
    }
    result = cross_validate(votes)
    assert result.step_counts == {1: (3, 3), 2: (2, 3), 3: (2, 3)}
    assert result.verdict.overall is Overall.VERIFIED
    assert result.agreement[2] == MinerAgreement(uid=2, steps=3, agreed=2, verified=2)


def test_missing_step_can_sink_a_step():
    votes = {1: verdict({1: True, 2: True}), 2: verdict({1: True}), 3: verdict({1: True})}
    result = cross_validate(votes, step_ids=[1, 2])
    assert result.step_counts[2] == (1, 3)
    assert result.verdict.step_verdicts[1].error_message == "Only 1/3 translations verified"
    assert result.agreement[2].agreed == 2  # its silence on step 2 matches the consensus "not verified"


def test_all_none_is_failed_with_zero_steps_or_the_known_steps():
    empty = cross_validate({1: None, 2: None}, task_id="t9", domain=Domain.CODE)
    assert empty.verdict.overall is Overall.FAILED
    assert empty.verdict.total_steps == 0 and empty.verdict.step_verdicts == []
    assert empty.verdict.proof_level is ProofLevel.STANDARD
    assert empty.agreement[1] == MinerAgreement(uid=1, steps=0, agreed=0, verified=0)
    assert empty.agreement[1].rate == 0.0

    known = cross_validate({1: None}, task_id="t9", domain=Domain.CODE, step_ids=[1, 2, 3])
    assert known.verdict.overall is Overall.FAILED
    assert [s.step_id for s in known.verdict.failure_points] == [1, 2, 3]
    assert known.verdict.step_verdicts[0].error_message == "Only 0/0 translations verified"
    assert known.agreement[1] == MinerAgreement(uid=1, steps=3, agreed=0, verified=0)


def test_all_none_without_domain_asks_for_it():
    with pytest.raises(InputError, match="pass domain="):
        cross_validate({1: None})


def test_no_miners_at_all():
    result = cross_validate({}, domain=Domain.MATHEMATICS)
    assert result.verdict.overall is Overall.FAILED
    assert result.agreement == {} and result.step_counts == {}


def test_explicit_arguments_win_and_mixed_task_hashes_are_dropped():
    votes = {1: verdict({1: True}, task_hash="a"), 2: verdict({1: True}, task_hash="b")}
    result = cross_validate(votes, task_id="mine", domain=Domain.CODE, proof_level=ProofLevel.QUICK)
    assert result.verdict.task_id == "mine"
    assert result.verdict.domain is Domain.CODE and result.verdict.proof_level is ProofLevel.QUICK
    assert result.verdict.task_hash == ""


def test_duplicate_step_in_a_verdict_is_refused():
    bad = verdict({1: True})
    bad.step_verdicts.append(StepVerdict(step_id=1, verified=False, status=StepStatus.FAILED))
    with pytest.raises(InputError, match="step 1 twice"):
        cross_validate({4: bad})


def test_result_round_trips_through_json():
    result = cross_validate({1: verdict({1: True, 2: False}), 2: verdict({1: True, 2: True})})
    again = type(result).model_validate_json(result.model_dump_json())
    assert again == result


def test_the_consensus_rests_on_the_weakest_evidence_its_majority_reported():
    arithmetic = PROVEN.model_copy(update={"kind": EvidenceKind.RELATIONS})
    weak = verdict({1: True})
    weak = weak.model_copy(update={"step_verdicts": [weak.step_verdicts[0].model_copy(update={"evidence": arithmetic})]})
    result = cross_validate({1: verdict({1: True}), 2: weak, 3: verdict({1: True})})
    assert result.verdict.step_verdicts[0].verified
    assert result.verdict.step_verdicts[0].evidence == arithmetic
    assert result.verdict.overall is Overall.PARTIAL


def test_decided_majority_counts_only_the_miners_that_decided_each_step():
    V, F = StepStatus.VERIFIED, StepStatus.FAILED
    # miner 1 proved steps 1-3; miner 2 proved 1 and refuted 3; miners 3 and 4 decided nothing (a vacuous
    # artifact, no artifact): they abstain, where cross_validate counts them as "not verified"
    decided = {1: {1: V, 2: V, 3: V}, 2: {1: V, 3: F}, 3: {}, 4: {}}
    assert decided_majority(decided) == {1: V, 2: V, 3: None}
    flags = {1: {1: True, 2: True, 3: True}, 2: {1: True, 3: False}, 3: {}, 4: {}}
    by_vote = cross_validate({uid: verdict(f) for uid, f in flags.items()}, step_ids=[1, 2, 3])
    assert [s.verified for s in by_vote.verdict.step_verdicts] == [False, False, False]
    assert decided_majority({1: {2: F}, 2: {2: F}, 3: {2: V}}) == {2: F}
    assert decided_majority({}) == {}
    with pytest.raises(InputError, match="only verified and failed"):
        decided_majority({1: {1: StepStatus.UNSUPPORTED}})
