"""The one reward design every trainer adapter shares: what a verdict earns.

A completion is verified as maths reasoning (quick level, the rules' translation): each step read, each relation
checked, the answer it states compared with its final value, and, when the trainer holds one, the final value
compared with the reference answer. Then, first match wins:

| outcome          | when                                                                         | reward |
|------------------|------------------------------------------------------------------------------|--------|
| `invalid`        | nothing to verify (an empty completion, nothing that splits into steps)       | 0.0    |
| `timeout`        | the check did not finish in its budget (the worker is killed)                 | 0.0    |
| `refuted`        | a step is refuted: a relation it states is false, or its answer is not its    | 0.0    |
|                  | own final value                                                               |        |
| `wrong_answer`   | the final value is not the reference answer                                   | 0.0    |
| `unread_answer`  | a reference is given, but the final value could not be compared with it       | 0.0    |
| `unproven`       | nothing refuted, the answer right (or no reference), some step not verified   | 0.5    |
| `arithmetic`     | every step verified, some only on the arithmetic in its prose                 | 0.75   |
| `proven`         | VERIFIED: every claim proven or corroborated                                  | 1.0    |

A wrong answer earns what a refuted step earns: both say the completion is wrong. An unproven but right one
earns half: the answer is right and nothing in it is false, but nothing vouches for how it got there, so a
policy is not taught to prefer prose the checker cannot read to reasoning it can. The numbers are fields of
`RewardDesign`; change them, not the order.

Process rewards, for trainers that take one per step (`Reward.step_rewards`, in chain order): a verified step
earns `step_verified` (1.0), a refuted one `step_refuted` (-1.0), every other step (unread, invalidated by a
refuted ancestor, errored) `step_other` (0.0).
"""

from __future__ import annotations

from enum import Enum

from pydantic import BaseModel, ConfigDict, Field

from reasonforge.types import Assurance, Overall, StepStatus, VerificationVerdict

__all__ = ["Reward", "RewardDesign", "RewardOutcome", "reward_of"]


class RewardOutcome(str, Enum):
    """Which row of the design decided a reward (module docstring)."""

    INVALID = "invalid"
    TIMEOUT = "timeout"
    REFUTED = "refuted"
    WRONG_ANSWER = "wrong_answer"
    UNREAD_ANSWER = "unread_answer"
    UNPROVEN = "unproven"
    ARITHMETIC = "arithmetic"
    PROVEN = "proven"


class RewardDesign(BaseModel):
    """What each outcome earns (module docstring); the defaults are the documented design."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    invalid: float = 0.0
    timeout: float = 0.0
    refuted: float = 0.0
    wrong_answer: float = 0.0
    unread_answer: float = 0.0
    unproven: float = 0.5
    arithmetic: float = 0.75
    proven: float = 1.0
    step_verified: float = 1.0
    step_refuted: float = -1.0
    step_other: float = 0.0

    def earned(self, outcome: RewardOutcome) -> float:
        """The reward of `outcome`."""
        value: float = getattr(self, outcome.value)
        return value


class Reward(BaseModel):
    """One completion's reward, the outcome that decided it and what the verdict said."""

    reward: float
    outcome: RewardOutcome
    step_rewards: list[float] = Field(default_factory=list, description="One per step, in chain order.")
    answer_matches_reference: bool | None = None
    overall: Overall | None = None
    assurance: Assurance | None = None
    first_refuted_step: int | None = Field(default=None, description="Its step id (1-based), when one is refuted.")
    steps: int = 0
    message: str = Field(default="", description="Why: the refuting relation, the answers compared, or the error.")
    cached: bool = Field(default=False, description="Answered from the verdict cache, not verified again.")


def reward_of(verdict: VerificationVerdict, design: RewardDesign | None = None) -> Reward:
    """The reward `verdict` earns under `design` (default: the documented one)."""
    design = design or RewardDesign()
    steps = verdict.step_verdicts
    step_rewards = [design.step_verified if v.verified else design.step_refuted if v.status is StepStatus.FAILED
                    else design.step_other for v in steps]
    refuted = next((v for v in steps if v.status is StepStatus.FAILED), None)
    check = verdict.reference_check
    if refuted is not None:
        outcome, message = RewardOutcome.REFUTED, f"step {refuted.step_id}: {refuted.error_message or 'refuted'}"
    elif check is not None and check.matches is False:
        outcome, message = RewardOutcome.WRONG_ANSWER, check.message
    elif check is not None and check.matches is None:
        outcome, message = RewardOutcome.UNREAD_ANSWER, check.message
    elif verdict.overall is Overall.VERIFIED:
        outcome, message = RewardOutcome.PROVEN, "every claim proven or corroborated"
    elif all(v.verified for v in steps):
        outcome, message = RewardOutcome.ARITHMETIC, "every step verified, some only on the arithmetic in its prose"
    else:
        unread = next((v for v in steps if not v.verified), None)
        outcome = RewardOutcome.UNPROVEN
        message = f"step {unread.step_id} is not verified: {unread.error_message or unread.status.value}" \
            if unread is not None else "not every step is verified"
    if check is not None and outcome in (RewardOutcome.PROVEN, RewardOutcome.ARITHMETIC, RewardOutcome.UNPROVEN):
        message = f"{message}; {check.message}"
    return Reward(reward=design.earned(outcome), outcome=outcome, step_rewards=step_rewards,
                  answer_matches_reference=verdict.answer_matches_reference, overall=verdict.overall,
                  assurance=verdict.assurance, first_refuted_step=refuted.step_id if refuted is not None else None,
                  steps=len(steps), message=message)
