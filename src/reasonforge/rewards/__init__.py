"""Rewards for RL trainers and scores for eval harnesses: the verdict on a completion as a number, by one
documented design (`design`), behind the doors TRL, veRL, OpenRLHF, verifiers and inspect_ai call.

The design and the scorer import eagerly; the verifiers taskset and the inspect_ai scorer load on first use
(their packages are optional extras).
"""

from reasonforge.lazy import lazy_exports
from reasonforge.rewards.adapters import (
    openrlhf_reward_func,
    text_of,
    trl_reward,
    trl_reward_async,
    verl_compute_score,
    verl_compute_score_batch,
)
from reasonforge.rewards.design import Reward, RewardDesign, RewardOutcome, reward_of
from reasonforge.rewards.score import DEFAULT_BUDGET_S, RewardInput, Scorer, gold_answer, score, score_many

__all__ = [
    "DEFAULT_BUDGET_S", "Reward", "RewardDesign", "RewardInput", "RewardOutcome", "Scorer", "gold_answer",
    "inspect_scorer", "load_math_environment", "openrlhf_reward_func", "reward_of", "score", "score_many", "text_of",
    "trl_reward", "trl_reward_async", "verl_compute_score", "verl_compute_score_batch",
]

__getattr__ = lazy_exports(__name__, {"inspect_scorer": "inspect_ai_scorer",
                                      "load_math_environment": "verifiers_env"})
