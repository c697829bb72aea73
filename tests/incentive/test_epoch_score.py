"""S_epoch, D(t) and the trap penalty against hand-computed values (plan Eq. 3 and 9)."""

import pytest

from reasonforge.errors import InputError
from reasonforge.incentive import (
    IncentiveSettings,
    difficulty_multiplier,
    epoch_score,
    trap_penalty,
)


def test_difficulty_multiplier_is_linear_from_one_to_two():
    assert difficulty_multiplier(1) == 1.0
    assert difficulty_multiplier(10) == 2.0
    # 1 + (4 − 1)/9 = 1.3333…
    assert difficulty_multiplier(4) == pytest.approx(4 / 3)


@pytest.mark.parametrize("bad", [0, 11, -1, 2.5, True, "3"])
def test_difficulty_out_of_range_or_not_an_integer(bad):
    with pytest.raises(InputError, match="difficulty"):
        difficulty_multiplier(bad)


def test_difficulty_table_from_settings():
    table = IncentiveSettings(difficulty_multipliers=(1, 1, 1, 1, 1, 3, 3, 3, 3, 3))
    assert difficulty_multiplier(6, table) == 3.0


def test_epoch_score_hand_computed():
    # (0.9·D(1) + 0.6·D(10)) / 2 = (0.9 + 1.2) / 2 = 1.05
    assert epoch_score([0.9, 0.6], [1, 10]) == pytest.approx(1.05)
    # the same times a trap penalty of 0.5 → 0.525
    assert epoch_score([0.9, 0.6], [1, 10], trap_penalty=0.5) == pytest.approx(0.525)


def test_epoch_score_without_tasks_is_zero():
    assert epoch_score([], []) == 0.0


def test_epoch_score_rejects_mismatched_lengths_and_bad_values():
    with pytest.raises(InputError, match="one difficulty per scored task"):
        epoch_score([0.5, 0.5], [3])
    with pytest.raises(InputError, match=r"task_cts\[1\]"):
        epoch_score([0.5, 1.2], [3, 3])
    with pytest.raises(InputError, match="trap_penalty"):
        epoch_score([0.5], [3], trap_penalty=1.5)


def test_trap_penalty_hand_computed():
    # no traps: no evidence, no penalty
    assert trap_penalty([]) == 1.0
    # average exactly θ = 0.8 is not below θ → 1
    assert trap_penalty([0.8, 0.8]) == 1.0
    assert trap_penalty([1.0, 0.9]) == 1.0
    # average 0.5 → 0.5 / 0.8 = 0.625
    assert trap_penalty([0.6, 0.4]) == pytest.approx(0.625)
    assert trap_penalty([0.0]) == 0.0


def test_trap_penalty_uses_theta_from_settings():
    # θ = 0.5: average 0.25 → 0.5
    assert trap_penalty([0.25], IncentiveSettings(theta=0.5)) == pytest.approx(0.5)


def test_trap_penalty_rejects_scores_outside_unit_interval():
    with pytest.raises(InputError, match=r"trap_scores\[1\]"):
        trap_penalty([0.5, 1.2])
