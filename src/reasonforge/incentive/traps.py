"""Trap penalty (plan Eq. 9): miners that get known-answer trap tasks wrong lose part of their score."""

from __future__ import annotations

from collections.abc import Sequence

from reasonforge.incentive._check import fraction
from reasonforge.incentive.settings import DEFAULT_INCENTIVE, IncentiveSettings


def trap_penalty(trap_scores: Sequence[float], settings: IncentiveSettings = DEFAULT_INCENTIVE) -> float:
    """avg_trap_score/θ when the average is below θ, else 1.0; 1.0 when the miner met no trap.

    A trap score is the fraction of a trap task's steps on which the miner's verdict matches the
    known ground truth. No traps means no evidence either way, hence no penalty.
    """
    if not trap_scores:
        return 1.0
    avg = sum(fraction(f"trap_scores[{i}]", s) for i, s in enumerate(trap_scores)) / len(trap_scores)
    return avg / settings.theta if avg < settings.theta else 1.0
