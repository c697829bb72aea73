"""Performance and engagement bonus (plan Eq. 4): ranks, top-K streaks and PEB = α·(1/rank)·√streak."""

from __future__ import annotations

import math
from collections.abc import Mapping

from reasonforge.incentive._check import integer, score_map
from reasonforge.incentive.settings import DEFAULT_INCENTIVE, IncentiveSettings


def rank(scores: Mapping[int, float]) -> dict[int, int]:
    """Competition ranking of uid → score, 1 = best; equal scores share the better rank (1, 1, 3)."""
    checked = score_map("scores", scores)
    ordered = sorted(checked.values(), reverse=True)
    # The rank of a score is 1 + how many scores beat it; the first position of a value in the
    # descending list is exactly that count.
    first: dict[float, int] = {}
    for position, value in enumerate(ordered):
        first.setdefault(value, position + 1)
    return {uid: first[value] for uid, value in checked.items()}


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
