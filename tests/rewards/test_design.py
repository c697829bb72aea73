"""The one reward design: what each verdict earns, first match wins, and per-step process rewards."""

from reasonforge.rewards import RewardDesign, RewardOutcome, reward_of
from reasonforge.types import (
    AnswerComparer,
    Assurance,
    Domain,
    Overall,
    ProofLevel,
    ReferenceCheck,
    StepStatus,
    StepVerdict,
    VerificationVerdict,
)


def verdict(*statuses: StepStatus, overall: Overall = Overall.PARTIAL, matches: bool | None | str = "none"):
    steps = [StepVerdict(step_id=i + 1, verified=s is StepStatus.VERIFIED, status=s,
                         error_message="2 + 2 = 5 is false" if s is StepStatus.FAILED else None)
             for i, s in enumerate(statuses)]
    check = None if matches == "none" else ReferenceCheck(reference="4", matches=matches,
                                                           compared_by=AnswerComparer.READER, message="4 against 4")
    return VerificationVerdict(task_id="t", overall=overall, step_verdicts=steps, total_steps=len(steps),
                               verified_steps=sum(v.verified for v in steps), domain=Domain.MATHEMATICS,
                               proof_level=ProofLevel.QUICK, assurance=Assurance.ARITHMETIC, reference_check=check,
                               answer_matches_reference=None if check is None else check.matches)


V, F, U, I = StepStatus.VERIFIED, StepStatus.FAILED, StepStatus.UNSUPPORTED, StepStatus.INVALIDATED


def test_each_outcome_earns_its_documented_reward_first_match_winning():
    cases = [
        (verdict(V, F, I, matches=True), RewardOutcome.REFUTED, 0.0),  # a refuted step outranks a right answer
        (verdict(V, V, matches=False), RewardOutcome.WRONG_ANSWER, 0.0),
        (verdict(V, V, matches=None), RewardOutcome.UNREAD_ANSWER, 0.0),
        (verdict(V, U, matches=True), RewardOutcome.UNPROVEN, 0.5),
        (verdict(V, U), RewardOutcome.UNPROVEN, 0.5),  # no reference: the answer term is unused
        (verdict(V, V, matches=True), RewardOutcome.ARITHMETIC, 0.75),
        (verdict(V, V, overall=Overall.VERIFIED, matches=True), RewardOutcome.PROVEN, 1.0),
    ]
    for given, outcome, reward in cases:
        got = reward_of(given)
        assert (got.outcome, got.reward) == (outcome, reward), given


def test_process_rewards_are_one_per_step_in_chain_order():
    got = reward_of(verdict(V, F, I, U))
    assert got.step_rewards == [1.0, -1.0, 0.0, 0.0]
    assert got.first_refuted_step == 2 and "2 + 2 = 5 is false" in got.message and got.steps == 4


def test_the_numbers_are_the_design_s_fields():
    design = RewardDesign(refuted=-1.0, unproven=0.25, step_refuted=-2.0)
    assert reward_of(verdict(V, F), design).reward == -1.0
    assert reward_of(verdict(V, F), design).step_rewards == [1.0, -2.0]
    assert reward_of(verdict(V, U), design).reward == 0.25
