"""Ranks, streaks and PEB = α·(1/rank)·√streak (plan Eq. 4)."""

import pytest

from reasonforge.errors import InputError
from reasonforge.incentive import IncentiveSettings, next_streak, peb, rank


def test_rank_competition_ties_share_the_better_rank():
    assert rank({1: 0.5, 2: 0.9, 3: 0.5, 4: 0.1}) == {2: 1, 1: 2, 3: 2, 4: 4}
    assert rank({7: 0.3, 8: 0.3, 9: 0.1}) == {7: 1, 8: 1, 9: 3}


def test_rank_edge_cases():
    assert rank({}) == {}
    assert rank({5: 0.0}) == {5: 1}
    assert rank({1: 0.0, 2: 0.0}) == {1: 1, 2: 1}


def test_rank_rejects_negative_or_nan_scores():
    with pytest.raises(InputError, match=r"scores\[3\]"):
        rank({3: -0.1})
    with pytest.raises(InputError, match="finite"):
        rank({3: float("nan")})


def test_next_streak():
    assert next_streak(0, 1) == 1
    assert next_streak(5, 10) == 6  # rank 10 is still top-10
    assert next_streak(5, 11) == 0
    assert next_streak(5, None) == 0
    # the count is a true record; peb applies the cap
    assert next_streak(20, 1) == 21
    assert next_streak(2, 3, IncentiveSettings(top_k=2)) == 0


def test_next_streak_rejects_bad_values():
    with pytest.raises(InputError, match="streak"):
        next_streak(-1, 1)
    with pytest.raises(InputError, match="rank"):
        next_streak(0, 0)


def test_peb_hand_computed():
    # 0.2·(1/1)·√4 = 0.4
    assert peb(1, 4) == pytest.approx(0.4)
    # 0.2·(1/2)·√9 = 0.3
    assert peb(2, 9) == pytest.approx(0.3)
    # streak capped at 16: 0.2·1·√16 = 0.8
    assert peb(1, 100) == pytest.approx(0.8)
    # rank 10 is the last one in the top K: 0.2/10·√1 = 0.02
    assert peb(10, 1) == pytest.approx(0.02)
    assert peb(11, 5) == 0.0
    assert peb(1, 0) == 0.0


def test_peb_rejects_rank_zero():
    with pytest.raises(InputError, match="rank"):
        peb(0, 3)


def test_rank_with_a_tolerance_ties_scores_closer_than_it_through_their_neighbours():
    scores = {1: 1.0, 2: 0.9995, 3: 0.9990, 4: 0.5, 5: 0.4995, 6: 0.3}
    assert rank(scores, tolerance=0.001) == {1: 1, 2: 1, 3: 1, 4: 4, 5: 4, 6: 6}
    # strictly closer: a gap of exactly the tolerance separates
    assert rank({1: 1.0, 2: 0.75}, tolerance=0.25) == {1: 1, 2: 2}
    # no tolerance: the seed's exact ranking
    assert rank(scores) == {1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 6: 6}
    with pytest.raises(InputError, match="tolerance"):
        rank(scores, tolerance=-0.1)
