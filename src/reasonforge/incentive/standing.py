"""One epoch's standings: ranks, streaks, PEB, weights and rewards from the epoch scores, in one place.

The validator and the simulator both go through `standings`, so what the simulator shows is what a
validator would set on chain.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from reasonforge.incentive._check import integer, score_map
from reasonforge.incentive.bonus import next_streak, peb, rank
from reasonforge.incentive.emission import emissions, weights
from reasonforge.incentive.settings import DEFAULT_INCENTIVE, IncentiveSettings


@dataclass(frozen=True)
class Standing:
    """A miner's place after an epoch."""

    rank: int | None  # None: scored nothing, so unranked (not "in the top K", however few miners)
    streak: int
    peb: float
    weight: float
    reward: float


def standings(
    scores: Mapping[int, float],
    streaks: Mapping[int, int],
    total: float,
    settings: IncentiveSettings = DEFAULT_INCENTIVE,
) -> dict[int, Standing]:
    """Rank the epoch scores (within `settings.rank_tolerance` they tie), advance each miner's streak, and
    split `total` by S·(1 + PEB)."""
    checked = score_map("scores", scores)
    previous = {uid: integer(f"streaks[{uid}]", streaks.get(uid, 0), 0) for uid in checked}
    ranks = rank({uid: s for uid, s in checked.items() if s > 0.0}, settings.rank_tolerance)
    streak_now = {uid: next_streak(previous[uid], ranks.get(uid), settings) for uid in checked}
    pebs = {uid: peb(ranks[uid], streak_now[uid], settings) if uid in ranks else 0.0 for uid in checked}
    shares = weights(checked, pebs)
    paid = emissions(checked, pebs, total)
    return {
        uid: Standing(rank=ranks.get(uid), streak=streak_now[uid], peb=pebs[uid], weight=shares[uid], reward=paid[uid])
        for uid in checked
    }
