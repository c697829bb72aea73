"""The settings model: frozen, documented defaults, inconsistent values refused."""

import pytest
from pydantic import ValidationError

from reasonforge.incentive import DEFAULT_INCENTIVE, IncentiveSettings


def test_defaults_match_the_plan():
    s = DEFAULT_INCENTIVE
    assert (s.w_compilation, s.w_correctness, s.w_completeness, s.w_efficiency) == (0.45, 0.30, 0.15, 0.10)
    assert (s.suspicious_ratio, s.suspicious_efficiency, s.efficiency_slope) == (0.02, 0.1, 0.4)
    assert s.miner_emission_share == pytest.approx((1 - 0.18) / 2)
    assert len(s.difficulty_multipliers) == 10
    for name, field in IncentiveSettings.model_fields.items():
        assert field.description, f"{name} has no documented reason"


def test_settings_are_frozen():
    with pytest.raises(ValidationError):
        DEFAULT_INCENTIVE.alpha = 1.0  # type: ignore[misc]


@pytest.mark.parametrize(
    "kwargs",
    [
        {"w_compilation": 0.5},  # weights no longer sum to 1
        {"theta": 0.0},
        {"theta": 1.5},
        {"gamma": -0.1},
        {"top_k": 0},
        {"difficulty_multipliers": (1.0, 2.0)},
        {"difficulty_multipliers": (1.0,) * 9 + (0.0,)},
        {"alpha": float("inf")},
        {"unknown": 1},
    ],
)
def test_inconsistent_settings_are_refused(kwargs):
    with pytest.raises(ValidationError):
        IncentiveSettings(**kwargs)
