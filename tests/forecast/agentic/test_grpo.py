"""GRPO advantages: exact values, grouping by (question, date), and the reporting-target experiment."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from reasonforge.errors import InputError
from reasonforge.forecast.agentic.grpo import (
    STD_EPS,
    dated_group_advantages,
    group_advantages,
    grouped_advantages,
)
from reasonforge.forecast.agentic.records import DateForecast, EpisodeRecord


def test_exact_values() -> None:
    assert group_advantages([1.0, 2.0, 3.0, 4.0]) == pytest.approx([-1.5, -0.5, 0.5, 1.5])
    sigma = math.sqrt(1.25)  # population σ of 1, 2, 3, 4
    assert group_advantages([1.0, 2.0, 3.0, 4.0], std_normalize=True) == pytest.approx(
        [a / (sigma + STD_EPS) for a in (-1.5, -0.5, 0.5, 1.5)], rel=1e-12)
    assert group_advantages([0.91, 0.1]) == pytest.approx([0.405, -0.405])


def test_degenerate_groups() -> None:
    assert group_advantages([]) == []
    assert group_advantages([0.7]) == [0.0]
    assert group_advantages([0.7], std_normalize=True) == [0.0]
    assert group_advantages([0.3, 0.3, 0.3], std_normalize=True) == [0.0, 0.0, 0.0]  # σ = 0: ε avoids 0/0


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf")])
def test_non_finite_rewards_raise(bad: float) -> None:
    with pytest.raises(InputError, match="not finite"):
        group_advantages([0.5, bad, 0.1])


def test_invariances() -> None:
    r = [0.2, 0.9, 0.4, 0.4]
    # Mean-centring ignores a common shift; the std variant also ignores a common positive scale.
    assert group_advantages([x + 3.0 for x in r]) == pytest.approx(group_advantages(r))
    assert group_advantages([5 * x for x in r], True) == pytest.approx(group_advantages(r, True), rel=1e-5)
    assert group_advantages([5 * x for x in r]) == pytest.approx([5 * a for a in group_advantages(r)])


def test_grouped_by_key() -> None:
    out = grouped_advantages(["a", "b", "a", "b", "c"], [1.0, 10.0, 3.0, 20.0, 7.0])
    assert out == pytest.approx([-1.0, -5.0, 1.0, 5.0, 0.0])
    with pytest.raises(InputError, match="one key per reward"):
        grouped_advantages(["a"], [1.0, 2.0])


def _record(qid: str, rewards: list[float]) -> EpisodeRecord:
    start = datetime(2015, 9, 3, 23, 59, 59, tzinfo=UTC)
    forecasts = [DateForecast(question_id=qid, date=start + timedelta(days=2 * i), horizon_days=8.0 - 2 * i, raw="",
                              probs=None, format_ok=False, format_errors=[], brier=2.0, log=math.log(1e-3),
                              reward=r, tool_calls=0, tool_rounds=0, evidence=[])
                 for i, r in enumerate(rewards)]
    return EpisodeRecord(question_id=qid, agent="a", memory=False, outcomes=["Yes", "No"], outcome_index=0,
                         forecasts=forecasts)


def test_dated_groups_never_mix_dates_or_questions() -> None:
    records = [_record("q1", [0.2, 0.9]), _record("q1", [0.6, 0.5]), _record("q2", [0.4, 0.1])]
    adv = dated_group_advantages(records)
    assert adv[0] == pytest.approx([-0.2, 0.2])   # date 1: rewards 0.2, 0.6; date 2: 0.9, 0.5
    assert adv[1] == pytest.approx([0.2, -0.2])
    assert adv[2] == [0.0, 0.0]                    # q2 has one rollout per date: nothing to compare
    std = dated_group_advantages(records, std_normalize=True)
    assert std[0] == pytest.approx([-1.0, 1.0], rel=1e-4)


# --- The reporting-target experiment (AlphaBet §3.3, §A.4–A.5) -------------------------------------------
# A fixed context per question kind; the policy is a softmax over a grid of reported probabilities for a
# binary event that happens with probability q. Each update draws G reports per group, scores them with
# the Brier reward against the group's outcome, and follows the REINFORCE gradient Σ A_i ∇log π(report_i).
# The update averages over the outcome exactly (weights q and 1 − q), which removes outcome noise but not
# report-sampling noise, so the experiment is short and its result does not hinge on the seed.
#   kind "even":   q = 0.5, rewards as is  — the two outcomes' score spreads σ_y are equal by symmetry.
#   kind "skewed": q = 0.2, rewards × 5    — near p = 0.2 the Brier score moves 4× faster in p when the
#                  event happens than when it does not (slope ∝ |1[y] − p|), so σ_1 ≈ 4 σ_0.
# Mean-centring must report q for both kinds (the ×5 only speeds it up); dividing by σ_y weights the
# outcome with the small spread more heavily, and the skewed kind's report is driven towards 0.

GRID = np.linspace(0.0, 1.0, 11)


def _brier_reward(p: np.ndarray, y: float) -> np.ndarray:
    return 1.0 - ((p - y) ** 2 + ((1.0 - p) - (1.0 - y)) ** 2) / 2.0


def _train(q: float, scale: float, std_normalize: bool, *, seed: int, steps: int = 500, groups: int = 16,
           size: int = 8, lr: float = 1.0) -> float:
    """Mean reported probability of the trained policy."""
    rng = np.random.default_rng(seed)
    theta = np.zeros(GRID.size)
    for _ in range(steps):
        pi = np.exp(theta - theta.max())
        pi /= pi.sum()
        picks = rng.choice(GRID.size, size=(groups, size), p=pi)
        grad = np.zeros(GRID.size)
        for y, weight in ((1.0, q), (0.0, 1.0 - q)):
            rewards = scale * _brier_reward(GRID[picks], y)
            adv = np.array([group_advantages(row.tolist(), std_normalize) for row in rewards])
            # ∇_θ log π(k) = e_k − π, summed over every sampled report
            grad += weight * (np.bincount(picks.ravel(), weights=adv.ravel(), minlength=GRID.size) - adv.sum() * pi)
        theta += lr * grad / picks.size
    pi = np.exp(theta - theta.max())
    return float((pi / pi.sum()) @ GRID)


def test_mean_centring_keeps_the_reporting_target_and_std_normalisation_shifts_it() -> None:
    kinds = {"even": (0.5, 1.0), "skewed": (0.2, 5.0)}
    results = {(name, std): _train(q, scale, std, seed=seed)
               for seed, (name, (q, scale)) in enumerate(kinds.items()) for std in (False, True)}
    for name, (q, _) in kinds.items():
        assert abs(results[(name, False)] - q) < 0.01, (name, results)        # mean-centred: target preserved
    assert abs(results[("even", True)] - 0.5) < 0.01, results                 # equal σ_y: std harmless
    shift = abs(results[("skewed", True)] - 0.2)
    assert shift > 0.1, results                                                # unequal σ_y: target moved
    assert results[("skewed", True)] < 0.2                                      # towards the likelier outcome
