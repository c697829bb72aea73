"""Epoch score S_epoch (plan Eq. 3): a miner's difficulty-weighted mean CTS, cut by its trap penalty."""

from __future__ import annotations

from collections.abc import Sequence

from reasonforge.errors import InputError
from reasonforge.incentive._check import fraction, integer
from reasonforge.incentive.settings import (
    DEFAULT_INCENTIVE,
    MAX_DIFFICULTY,
    IncentiveSettings,
)


def difficulty_multiplier(difficulty: int, settings: IncentiveSettings = DEFAULT_INCENTIVE) -> float:
    """D(t) for a task of difficulty 1..10 (settings table; default 1.0 → 2.0 linearly)."""
    d = integer("difficulty", difficulty, 1, MAX_DIFFICULTY)
    return settings.difficulty_multipliers[d - 1]


def epoch_score(
    task_cts: Sequence[float],
    difficulties: Sequence[int],
    trap_penalty: float = 1.0,
    settings: IncentiveSettings = DEFAULT_INCENTIVE,
) -> float:
    """S_epoch = mean over tasks of CTS·D(t), times trap_penalty; 0.0 when the miner had no tasks.

    Lies in [0, max D] (2.0 by default): D is a reward for hard work, not a normalisation.
    """
    if len(task_cts) != len(difficulties):
        raise InputError(
            f"task_cts has {len(task_cts)} values but difficulties has {len(difficulties)}; "
            "pass one difficulty per scored task",
            field="difficulties",
        )
    penalty = fraction("trap_penalty", trap_penalty)
    if not task_cts:
        return 0.0
    total = sum(
        fraction(f"task_cts[{i}]", c) * difficulty_multiplier(d, settings)
        for i, (c, d) in enumerate(zip(task_cts, difficulties, strict=True))
    )
    return total / len(task_cts) * penalty
