"""Weights and emissions (plan Eq. 5): each miner's share is S·(1 + PEB) over the sum of all of them."""

from __future__ import annotations

from collections.abc import Mapping

from reasonforge.errors import InputError
from reasonforge.incentive._check import non_negative, score_map


def _boosted(scores: Mapping[int, float], pebs: Mapping[int, float]) -> dict[int, float]:
    checked = score_map("scores", scores)
    bonus = score_map("pebs", pebs)
    stray = sorted(set(bonus) - set(checked))
    if stray:
        raise InputError(
            f"pebs has uids {stray} that have no score; pass a score for every miner with a bonus",
            field="pebs",
        )
    # A miner without a bonus entry simply has PEB 0 (outside the top K).
    return {uid: s * (1.0 + bonus.get(uid, 0.0)) for uid, s in checked.items()}


def weights(scores: Mapping[int, float], pebs: Mapping[int, float]) -> dict[int, float]:
    """Normalised S·(1 + PEB) per uid: sums to 1, or every weight is 0 when no miner scored."""
    boosted = _boosted(scores, pebs)
    total = sum(boosted.values())
    if total <= 0.0:
        return dict.fromkeys(boosted, 0.0)
    return {uid: v / total for uid, v in boosted.items()}


def emissions(scores: Mapping[int, float], pebs: Mapping[int, float], total: float) -> dict[int, float]:
    """R(m) = E_miner·S(1 + PEB)/Σ S(1 + PEB): `total` split by `weights`; all 0 when no miner scored."""
    pool = non_negative("total", total)
    return {uid: pool * w for uid, w in weights(scores, pebs).items()}
