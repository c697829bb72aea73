"""Epoch standings: ranks, streaks, PEB, weights and rewards computed together."""

from __future__ import annotations

import math

import pytest

from reasonforge.errors import InputError
from reasonforge.incentive import DEFAULT_INCENTIVE, standings


def test_standings_by_hand() -> None:
    # scores 0.8, 0.4, 0.0; streaks before: 3, 0, 5; α = 0.2, top_k = 10
    placed = standings({1: 0.8, 2: 0.4, 3: 0.0}, {1: 3, 3: 5}, total=10.0)
    assert (placed[1].rank, placed[2].rank, placed[3].rank) == (1, 2, None)
    assert (placed[1].streak, placed[2].streak, placed[3].streak) == (4, 1, 0)  # scoring nothing ends a streak
    assert placed[1].peb == pytest.approx(0.2 / 1 * math.sqrt(4))  # 0.4
    assert placed[2].peb == pytest.approx(0.2 / 2 * math.sqrt(1))  # 0.1
    # boosted: 0.8·1.4 = 1.12, 0.4·1.1 = 0.44, 0 → weights 1.12/1.56, 0.44/1.56, 0
    assert placed[1].weight == pytest.approx(1.12 / 1.56)
    assert placed[2].weight == pytest.approx(0.44 / 1.56)
    assert placed[3].weight == 0.0 and placed[3].reward == 0.0
    assert placed[1].reward == pytest.approx(10.0 * 1.12 / 1.56)


def test_ties_share_rank_and_bonus() -> None:
    placed = standings({1: 0.5, 2: 0.5}, {}, total=1.0)
    assert placed[1].rank == placed[2].rank == 1
    assert placed[1].weight == pytest.approx(0.5)


def test_no_miners_and_all_zero() -> None:
    assert standings({}, {}, total=1.0) == {}
    zero = standings({1: 0.0, 2: 0.0}, {1: 2}, total=1.0)
    assert all(s.weight == 0.0 and s.reward == 0.0 and s.rank is None for s in zero.values())


def test_outside_top_k_gets_no_bonus_but_keeps_weight() -> None:
    k = DEFAULT_INCENTIVE.top_k
    scores = {uid: 1.0 - uid / 100 for uid in range(k + 1)}
    placed = standings(scores, dict.fromkeys(scores, 2), total=1.0)
    last = placed[k]
    assert last.rank == k + 1 and last.streak == 0 and last.peb == 0.0 and last.weight > 0.0


def test_negative_streak_is_refused() -> None:
    with pytest.raises(InputError, match="streaks"):
        standings({1: 0.5}, {1: -1}, total=1.0)


def test_scores_that_differ_by_timing_noise_share_a_rank_and_get_weights_within_one_percent() -> None:
    # The localnet's honest miners: the same artifacts, answer times a few milliseconds apart, so S_epoch
    # differs in the fifth decimal. The seed's exact ranking gave them ranks 1..4 and, through
    # PEB = α·(1/rank)·√streak after four epochs, weights 20 % apart.
    scores = {1: 1.2468684, 2: 1.2468681, 3: 1.2468963, 4: 1.2467153, 5: 0.8572388}
    placed = standings(scores, dict.fromkeys(scores, 3), total=1.0)
    honest = [placed[uid] for uid in (1, 2, 3, 4)]
    assert {s.rank for s in honest} == {1} and placed[5].rank == 5
    assert {s.peb for s in honest} == {honest[0].peb}
    weights = [s.weight for s in honest]
    assert max(weights) / min(weights) < 1.01
    # the exact ranking the seed prescribes is still there with no tolerance
    exact = standings(scores, dict.fromkeys(scores, 3), total=1.0,
                      settings=DEFAULT_INCENTIVE.model_copy(update={"rank_tolerance": 0.0}))
    assert max(s.weight for s in exact.values()) / min(exact[uid].weight for uid in (1, 2, 3, 4)) > 1.15
