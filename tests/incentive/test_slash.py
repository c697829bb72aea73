"""Validator slashing γ·stake·(θ − VAS)² (plan Eq. 10)."""

import pytest

from reasonforge.errors import InputError
from reasonforge.incentive import IncentiveSettings, slash


def test_slash_hand_computed():
    # 0.5·100·(0.8 − 0.5)² = 50·0.09 = 4.5
    assert slash(100.0, 0.5) == pytest.approx(4.5)
    # VAS 0: 0.5·100·0.64 = 32
    assert slash(100.0, 0.0) == pytest.approx(32.0)
    # γ = 1, θ = 0.9, VAS 0.4: 1·10·0.25 = 2.5
    assert slash(10.0, 0.4, IncentiveSettings(gamma=1.0, theta=0.9)) == pytest.approx(2.5)


def test_no_slash_at_or_above_theta_or_without_stake():
    assert slash(100.0, 0.8) == 0.0
    assert slash(100.0, 0.95) == 0.0
    assert slash(0.0, 0.1) == 0.0


def test_slash_never_exceeds_stake():
    for vas in (0.0, 0.2, 0.5, 0.79):
        assert slash(7.0, vas, IncentiveSettings(gamma=1.0, theta=1.0)) <= 7.0


def test_slash_rejects_bad_inputs():
    with pytest.raises(InputError, match="stake"):
        slash(-1.0, 0.5)
    with pytest.raises(InputError, match="vas"):
        slash(1.0, 1.5)
