"""Incentive maths (pure functions, NumPy only): CTS, epoch scores, PEB, emissions, traps, slashing, Yuma."""

from reasonforge.incentive.bonus import next_streak, peb, rank
from reasonforge.incentive.cts import cts, efficiency, gated_cts
from reasonforge.incentive.emission import emissions, weights
from reasonforge.incentive.epoch import difficulty_multiplier, epoch_score
from reasonforge.incentive.settings import (
    DEFAULT_INCENTIVE,
    MAX_DIFFICULTY,
    IncentiveSettings,
)
from reasonforge.incentive.slashing import slash
from reasonforge.incentive.standing import Standing, standings
from reasonforge.incentive.traps import trap_penalty
from reasonforge.incentive.yuma import YumaResult, weighted_median, yuma_epoch

__all__ = [
    "DEFAULT_INCENTIVE",
    "MAX_DIFFICULTY",
    "IncentiveSettings",
    "Standing",
    "YumaResult",
    "cts",
    "difficulty_multiplier",
    "efficiency",
    "emissions",
    "epoch_score",
    "gated_cts",
    "next_streak",
    "peb",
    "rank",
    "slash",
    "standings",
    "trap_penalty",
    "weighted_median",
    "weights",
    "yuma_epoch",
]
