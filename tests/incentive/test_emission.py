"""Weights and emissions R(m) = E·S(1+PEB)/Σ S(1+PEB) (plan Eq. 5)."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reasonforge.errors import InputError
from reasonforge.incentive import emissions, weights


def test_weights_and_emissions_hand_computed():
    scores = {1: 1.0, 2: 0.5, 3: 0.0}
    pebs = {1: 0.4, 2: 0.1}
    # S(1 + PEB): 1.4, 0.55, 0 → Σ 1.95
    w = weights(scores, pebs)
    assert w[1] == pytest.approx(1.4 / 1.95)
    assert w[2] == pytest.approx(0.55 / 1.95)
    assert w[3] == 0.0
    r = emissions(scores, pebs, total=10.0)
    assert r[1] == pytest.approx(7.179487179)
    assert r[2] == pytest.approx(2.820512820)
    assert r[3] == 0.0


def test_no_miners_gives_empty_mappings():
    assert weights({}, {}) == {}
    assert emissions({}, {}, 5.0) == {}


def test_all_zero_scores_give_all_zero_weights_not_nan():
    assert weights({1: 0.0, 2: 0.0}, {1: 0.8}) == {1: 0.0, 2: 0.0}
    assert emissions({1: 0.0, 2: 0.0}, {}, 5.0) == {1: 0.0, 2: 0.0}


def test_single_miner_takes_everything():
    assert weights({4: 0.3}, {}) == {4: 1.0}
    assert emissions({4: 0.3}, {4: 0.2}, 2.5) == {4: 2.5}


def test_bonus_for_unknown_uid_and_bad_values_are_refused():
    with pytest.raises(InputError, match=r"uids \[9\]"):
        weights({1: 0.5}, {9: 0.1})
    with pytest.raises(InputError, match=r"scores\[1\]"):
        weights({1: -0.5}, {})
    with pytest.raises(InputError, match="total"):
        emissions({1: 0.5}, {}, float("nan"))
    with pytest.raises(InputError, match="total"):
        emissions({1: 0.5}, {}, -1.0)


score_maps = st.dictionaries(st.integers(0, 255), st.floats(min_value=0, max_value=2), max_size=20)


@given(score_maps, st.floats(min_value=0, max_value=0.8), st.floats(min_value=0, max_value=1e6))
def test_weights_sum_to_one_or_zero_and_emissions_to_total_or_zero(scores, bonus, total):
    pebs = dict.fromkeys(list(scores)[:3], bonus)
    w = weights(scores, pebs)
    r = emissions(scores, pebs, total)
    assert set(w) == set(scores) == set(r)
    assert all(v >= 0 for v in w.values())
    if any(s > 0 for s in scores.values()):
        assert sum(w.values()) == pytest.approx(1.0)
        assert sum(r.values()) == pytest.approx(total)
    else:
        assert all(v == 0 for v in w.values())
        assert all(v == 0 for v in r.values())
