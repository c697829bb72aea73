"""Yuma consensus for simulation: what the chain pays given every validator's weights and stake.

A NumPy model of Bittensor's epoch (the classic, pre-liquid-alpha form): stake-weighted median
consensus with majority κ, weights clipped to consensus, ranks, trust, incentive, EMA bonds and
dividends, then the emission split (18 % owner, the rest half to miners by incentive, half to
validators by dividends). It is a model to reason about incentives, not a bit-exact replica of
subtensor's fixed-point arithmetic.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from reasonforge.errors import InputError
from reasonforge.incentive._check import finite, non_negative

FloatArray = NDArray[np.float64]

_SUPPORT_EPS = 1e-12
"""Slack when comparing cumulative stake with κ, so exactly half the stake counts as half despite rounding."""


@dataclass(frozen=True)
class YumaResult:
    """One epoch's outcome: per-miner consensus, trust, incentive, emission; per-validator dividends, bonds."""

    consensus: FloatArray  # (miners,) stake-weighted κ-median of each miner's weights
    trust: FloatArray  # (miners,) share of a miner's raw stake-weighted rank that survives clipping
    validator_trust: FloatArray  # (validators,) sum of each validator's clipped weights
    rank: FloatArray  # (miners,) Sᵀ·W_clipped
    incentive: FloatArray  # (miners,) rank normalised to sum 1 (or all 0)
    bonds: FloatArray  # (validators, miners) EMA bonds, each miner's column normalised
    dividends: FloatArray  # (validators,) Σ_j B_ij·I_j normalised
    miner_emission: FloatArray  # (miners,)
    validator_emission: FloatArray  # (validators,)
    owner_emission: float


def _normalise(values: FloatArray, axis: int | None = None) -> FloatArray:
    # Sums of zero stay zero: a miner nobody supports, or an epoch nobody earned in, gets nothing.
    total = values.sum(axis=axis, keepdims=axis is not None)
    out: FloatArray = np.divide(values, total, out=np.zeros_like(values), where=total > 0)
    return out


def _matrix(name: str, value: object, shape: tuple[int, ...] | None = None) -> FloatArray:
    try:
        array = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(f"{name} must be an array of numbers", field=name) from None
    if shape is not None and array.shape != shape:
        raise InputError(f"{name} must have shape {shape}, got {array.shape}", field=name)
    if not np.all(np.isfinite(array)):
        raise InputError(f"{name} must contain only finite numbers", field=name)
    if np.any(array < 0):
        raise InputError(f"{name} must be non-negative", field=name)
    return array


def weighted_median(weights: FloatArray, stakes: FloatArray, kappa: float) -> FloatArray:
    """Per column j, the largest w such that validators with W_ij ≥ w hold at least κ of the stake."""
    order = np.argsort(-weights, axis=0, kind="stable")
    sorted_w = np.take_along_axis(weights, order, axis=0)
    support = np.cumsum(stakes[order], axis=0)
    reached = support >= kappa - _SUPPORT_EPS
    # Descending order: the first row where support reaches κ holds the largest such weight. A
    # column that never reaches κ (only possible when the stake does not sum to 1) gets 0.
    first = np.argmax(reached, axis=0)
    chosen = np.take_along_axis(sorted_w, first[None, :], axis=0)[0]
    return np.where(reached.any(axis=0), chosen, 0.0)


def yuma_epoch(
    weights: FloatArray,
    stakes: FloatArray,
    bonds: FloatArray | None,
    emission: float,
    kappa: float = 0.5,
    bond_alpha: float = 0.1,
    owner_cut: float = 0.18,
) -> YumaResult:
    """One Yuma epoch: `weights` is validators × miners (rows are normalised here), `stakes` per validator.

    `bonds` are the previous epoch's (None: no history). Miner emission is (1 − owner_cut)/2 · emission
    split by incentive, validator emission the same amount split by dividends; when nobody earns
    incentive (or dividends) that half is not paid out.
    """
    w = _matrix("weights", weights)
    if w.ndim != 2:
        raise InputError(f"weights must be a validators × miners matrix, got {w.ndim} dimensions", field="weights")
    n_validators, n_miners = w.shape
    s = _matrix("stakes", stakes, (n_validators,))
    if s.sum() <= 0:
        raise InputError("stakes sum to zero; at least one validator needs stake", field="stakes")
    prev = None if bonds is None else _matrix("bonds", bonds, (n_validators, n_miners))
    emission = non_negative("emission", emission)
    kappa = finite("kappa", kappa)
    bond_alpha = finite("bond_alpha", bond_alpha)
    owner_cut = finite("owner_cut", owner_cut)
    if not 0.0 < kappa <= 1.0:
        raise InputError(f"kappa must be in (0, 1], got {kappa}", field="kappa")
    if not 0.0 < bond_alpha <= 1.0:
        raise InputError(f"bond_alpha must be in (0, 1], got {bond_alpha}", field="bond_alpha")
    if not 0.0 <= owner_cut <= 1.0:
        raise InputError(f"owner_cut must be in [0, 1], got {owner_cut}", field="owner_cut")

    s = _normalise(s)
    w = _normalise(w, axis=1)
    consensus = weighted_median(w, s, kappa)
    clipped = np.minimum(w, consensus[None, :])
    pre_rank = s @ w
    rank = s @ clipped
    trust = np.divide(rank, pre_rank, out=np.zeros_like(rank), where=pre_rank > 0)
    incentive = _normalise(rank)
    # Bonds: each validator's stake in what it (validly) supported, normalised per miner, then an EMA
    # so a validator earns dividends for having backed a miner early and consistently.
    delta = _normalise(s[:, None] * clipped, axis=0)
    ema = delta if prev is None else bond_alpha * delta + (1.0 - bond_alpha) * prev
    new_bonds = _normalise(ema, axis=0)
    dividends = _normalise(new_bonds @ incentive)
    half = emission * (1.0 - owner_cut) / 2.0
    return YumaResult(
        consensus=consensus,
        trust=trust,
        validator_trust=clipped.sum(axis=1),
        rank=rank,
        incentive=incentive,
        bonds=new_bonds,
        dividends=dividends,
        miner_emission=half * incentive,
        validator_emission=half * dividends,
        owner_emission=emission * owner_cut,
    )
