"""Yuma consensus simulation on small hand-computed cases (2 validators × 3 miners)."""

import numpy as np
import pytest

from reasonforge.errors import InputError
from reasonforge.incentive import weighted_median, yuma_epoch

# Validator 0 (stake 3 → 0.6) backs miners 0 and 1 equally; validator 1 (stake 2 → 0.4) also gives
# half its weight to miner 2, which only it supports. Rows are not normalised on purpose.
W = np.array([[1.0, 1.0, 0.0], [1.0, 1.0, 2.0]])
STAKES = np.array([3.0, 2.0])


def test_two_validators_three_miners_hand_computed():
    r = yuma_epoch(W, STAKES, None, emission=1.0)
    # Rows normalised: v0 = [.5, .5, 0], v1 = [.25, .25, .5]; S = [.6, .4].
    # Consensus (κ = .5): miners 0, 1: weight .5 is backed by .6 of the stake → .5;
    # miner 2: .5 is backed by .4 only, 0 by everyone → 0.
    np.testing.assert_allclose(r.consensus, [0.5, 0.5, 0.0])
    # Clipped: v0 = [.5, .5, 0], v1 = [.25, .25, 0]; rank = Sᵀ·W̄ = [.3 + .1, .3 + .1, 0] = [.4, .4, 0]
    np.testing.assert_allclose(r.rank, [0.4, 0.4, 0.0])
    np.testing.assert_allclose(r.incentive, [0.5, 0.5, 0.0])
    # Trust = rank / pre-rank; pre-rank = Sᵀ·W = [.4, .4, .2] → [1, 1, 0]
    np.testing.assert_allclose(r.trust, [1.0, 1.0, 0.0])
    # Validator trust = row sums of W̄: [1, .5]
    np.testing.assert_allclose(r.validator_trust, [1.0, 0.5])
    # ΔB = S_i·W̄_ij = v0 [.3, .3, 0], v1 [.1, .1, 0]; per miner normalised → v0 .75, v1 .25
    np.testing.assert_allclose(r.bonds, [[0.75, 0.75, 0.0], [0.25, 0.25, 0.0]])
    # Dividends: v0 = .75·.5 + .75·.5 = .75; v1 = .25
    np.testing.assert_allclose(r.dividends, [0.75, 0.25])
    # Emission 1: owner .18; miners .41·I; validators .41·D
    assert r.owner_emission == pytest.approx(0.18)
    np.testing.assert_allclose(r.miner_emission, [0.205, 0.205, 0.0])
    np.testing.assert_allclose(r.validator_emission, [0.3075, 0.1025])


def test_bond_ema_with_history_hand_computed():
    prev = np.full((2, 3), 0.5)
    r = yuma_epoch(W, STAKES, prev, emission=1.0)
    # EMA = .1·ΔB + .9·prev: v0 = [.075 + .45, .525, .45], v1 = [.025 + .45, .475, .45]
    # per-miner normalised: miners 0, 1 already sum to 1; miner 2 → [.5, .5]
    np.testing.assert_allclose(r.bonds, [[0.525, 0.525, 0.5], [0.475, 0.475, 0.5]])
    # Dividends: v0 = .525·.5·2 = .525, v1 = .475 (miner 2 has no incentive)
    np.testing.assert_allclose(r.dividends, [0.525, 0.475])


def test_minority_supported_miner_is_clipped_to_zero():
    r = yuma_epoch(W, STAKES, None, emission=10.0)
    assert r.consensus[2] == 0.0
    assert r.incentive[2] == 0.0
    assert r.miner_emission[2] == 0.0


def test_validator_deviating_from_consensus_loses_dividends():
    agreeing = yuma_epoch(np.array([[1.0, 1.0, 0.0], [1.0, 1.0, 0.0]]), STAKES, None, emission=1.0)
    deviating = yuma_epoch(W, STAKES, None, emission=1.0)
    # In agreement, dividends follow stake (.6/.4); deviating, validator 1 falls to .25.
    np.testing.assert_allclose(agreeing.dividends, [0.6, 0.4])
    assert deviating.dividends[1] < agreeing.dividends[1]
    assert deviating.validator_emission[1] < agreeing.validator_emission[1]


def test_weighted_median_respects_kappa():
    column = np.array([[0.1], [0.4], [0.3]])
    stakes = np.array([0.2, 0.3, 0.5])
    # sorted: .4 (.3), .3 (cum .8) → .3 at κ = .5; κ = .3 → .4; κ = 1 → .1
    assert weighted_median(column, stakes, 0.5)[0] == pytest.approx(0.3)
    assert weighted_median(column, stakes, 0.3)[0] == pytest.approx(0.4)
    assert weighted_median(column, stakes, 1.0)[0] == pytest.approx(0.1)
    # κ = .7 in the two-validator case: miner 0's .5 has .6 support < .7 → .25
    assert yuma_epoch(W, STAKES, None, 1.0, kappa=0.7).consensus[0] == pytest.approx(0.25)


def test_exactly_half_the_stake_is_enough_at_kappa_half():
    r = yuma_epoch(np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([1.0, 1.0]), None, 1.0)
    np.testing.assert_allclose(r.consensus, [1.0, 1.0])
    np.testing.assert_allclose(r.incentive, [0.5, 0.5])


def test_no_weights_pays_no_miner_and_no_validator():
    r = yuma_epoch(np.zeros((2, 3)), STAKES, None, emission=1.0)
    assert not r.incentive.any() and not r.dividends.any()
    assert not np.isnan(r.bonds).any()
    assert r.owner_emission == pytest.approx(0.18)


def test_emission_sums_to_total_when_someone_earns():
    rng = np.random.default_rng(7)
    r = yuma_epoch(rng.random((4, 6)), rng.random(4) + 0.1, rng.random((4, 6)), emission=3.0)
    total = r.miner_emission.sum() + r.validator_emission.sum() + r.owner_emission
    assert total == pytest.approx(3.0)
    np.testing.assert_allclose(r.bonds.sum(axis=0), 1.0)


@pytest.mark.parametrize(
    ("args", "match"),
    [
        ((np.ones(3), STAKES, None, 1.0), "validators × miners"),
        ((W, np.array([1.0, 2.0, 3.0]), None, 1.0), "stakes must have shape"),
        ((W, np.zeros(2), None, 1.0), "stakes sum to zero"),
        ((-W, STAKES, None, 1.0), "non-negative"),
        ((W, STAKES, np.ones((3, 2)), 1.0), "bonds must have shape"),
        ((W * np.nan, STAKES, None, 1.0), "finite"),
        ((W, STAKES, None, -1.0), "emission"),
    ],
)
def test_yuma_rejects_bad_inputs(args, match):
    with pytest.raises(InputError, match=match):
        yuma_epoch(*args)


def test_yuma_rejects_bad_parameters():
    with pytest.raises(InputError, match="kappa"):
        yuma_epoch(W, STAKES, None, 1.0, kappa=0.0)
    with pytest.raises(InputError, match="bond_alpha"):
        yuma_epoch(W, STAKES, None, 1.0, bond_alpha=1.5)
    with pytest.raises(InputError, match="owner_cut"):
        yuma_epoch(W, STAKES, None, 1.0, owner_cut=1.2)
