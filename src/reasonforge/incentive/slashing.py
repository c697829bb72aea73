"""Validator slashing (plan Eq. 10): stake lost for disagreeing with the validator consensus."""

from __future__ import annotations

from reasonforge.incentive._check import fraction, non_negative
from reasonforge.incentive.settings import DEFAULT_INCENTIVE, IncentiveSettings


def slash(stake: float, vas: float, settings: IncentiveSettings = DEFAULT_INCENTIVE) -> float:
    """γ·stake·(θ − VAS)² when the validator agreement score VAS is below θ, else 0.0.

    Quadratic, so small disagreements (honest noise) cost almost nothing while systematic
    deviation costs up to γ·θ² of the stake (32 % with the defaults), never more than the stake.
    """
    stake = non_negative("stake", stake)
    vas = fraction("vas", vas)
    if vas >= settings.theta:
        return 0.0
    return settings.gamma * stake * (settings.theta - vas) ** 2
