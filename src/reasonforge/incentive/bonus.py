"""Performance and engagement bonus (plan Eq. 4): ranks, top-K streaks and PEB = α·(1/rank)·√streak."""

from __future__ import annotations

import math
from collections.abc import Mapping

from reasonforge.incentive._check import integer, non_negative, score_map
from reasonforge.incentive.settings import DEFAULT_INCENTIVE, IncentiveSettings


def rank(scores: Mapping[int, float], tolerance: float = 0.0) -> dict[int, int]:
    """Competition ranking of uid → score, 1 = best; tied scores share the better rank (1, 1, 3).

    Scores tie when equal or, with a `tolerance`, when they differ by less than it, directly or through a
    chain of such neighbours in score order: any two scores closer than the tolerance always share a rank,
    so a difference below it (timing noise) never changes a rank.
    """
    checked = score_map("scores", scores)
    gap = non_negative("tolerance", tolerance)
    ordered = sorted(checked.values(), reverse=True)
    # The rank of a score is 1 + how many scores beat it: the position where its tie group starts.
    start: dict[float, int] = {}
    group_start = 1
    for position, value in enumerate(ordered):
        if position and not ordered[position - 1] - value < gap and ordered[position - 1] != value:
            group_start = position + 1
        start.setdefault(value, group_start)
    return {uid: start[value] for uid, value in checked.items()}


def next_streak(streak: int, rank: int | None, settings: IncentiveSettings = DEFAULT_INCENTIVE) -> int:
    """Consecutive epochs in the top K: +1 when this epoch's rank is ≤ top_k, else back to 0.

    `rank` None means the miner was not ranked this epoch (absent, or scored nothing). The count
    itself is not capped, so it stays a true record; `peb` applies the cap.
    """
    streak = integer("streak", streak, 0)
    if rank is None:
        return 0
    return streak + 1 if integer("rank", rank, 1) <= settings.top_k else 0


def peb(rank: int, streak: int, settings: IncentiveSettings = DEFAULT_INCENTIVE) -> float:
    """α·(1/rank)·√min(streak, cap) for ranks within the top K, 0.0 outside it."""
    rank = integer("rank", rank, 1)
    streak = integer("streak", streak, 0)
    if rank > settings.top_k:
        return 0.0
    return settings.alpha / rank * math.sqrt(min(streak, settings.streak_cap))
