"""Strictly proper scoring rules on NumPy arrays (binary and multi-class).

Conventions shared by every function here:
- `p` is the forecast probability of outcome 1; NaN marks a reply that did not parse, and such an
  item scores 0.0 on every reward (the worst Brier reward), never the 0.75 of a hedge: otherwise
  declining hard items would raise a model's average.
- rewards are "higher is better" and lie in [0, 1]; losses (Brier, log loss) are "lower is better".
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

LOG_EPS = 1e-3
"""Probabilities are clipped to [LOG_EPS, 1 − LOG_EPS] before taking logs (so one confident miss
costs at most ln(1000) ≈ 6.91 nats instead of infinity); same clipping as the shared data's notes."""

_LOG_FLOOR = float(np.log(LOG_EPS))


def _as_arrays(p: ArrayLike, outcome: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    p_arr = np.asarray(p, dtype=np.float64)
    o_arr = np.asarray(outcome, dtype=np.float64)
    if p_arr.shape != o_arr.shape:
        raise ValueError(f"forecasts have shape {p_arr.shape} but outcomes have shape {o_arr.shape}")
    return p_arr, o_arr


def squared_error(p: ArrayLike, outcome: ArrayLike) -> NDArray[np.float64]:
    """Per-item Brier loss (p − o)²; an unparsed forecast (NaN) counts as the maximum loss 1."""
    p_arr, o_arr = _as_arrays(p, outcome)
    loss = (p_arr - o_arr) ** 2
    return np.where(np.isnan(p_arr), 1.0, loss)


def brier_reward(p: ArrayLike, outcome: ArrayLike) -> NDArray[np.float64]:
    """Per-item Brier reward 1 − (p − o)² in [0, 1]; NaN forecasts score 0.0."""
    return 1.0 - squared_error(p, outcome)


def log_loss(p: ArrayLike, outcome: ArrayLike, eps: float = LOG_EPS) -> NDArray[np.float64]:
    """Per-item log loss −ln q (q = probability given to what happened, clipped to [eps, 1 − eps])."""
    p_arr, o_arr = _as_arrays(p, outcome)
    q = np.where(o_arr == 1.0, p_arr, 1.0 - p_arr)
    q = np.clip(np.where(np.isnan(q), eps, q), eps, 1.0 - eps)
    return -np.log(q)


def log_reward(p: ArrayLike, outcome: ArrayLike, eps: float = LOG_EPS) -> NDArray[np.float64]:
    """Per-item log reward 1 − ln q / ln eps: 1 for certainty on the outcome, 0 at the clip floor.

    An affine map of the log score, so it stays strictly proper on [eps, 1 − eps]; a hedge at 0.5
    earns 1 − ln 0.5 / ln 0.001 ≈ 0.900, a 0.99 miss ≈ 0.333, and a NaN forecast 0.0.
    """
    p_arr, _ = _as_arrays(p, outcome)
    reward = 1.0 - log_loss(p, outcome, eps) / -np.log(eps)
    return np.where(np.isnan(p_arr), 0.0, np.clip(reward, 0.0, 1.0))


def multiclass_brier(probs: ArrayLike, outcome_index: ArrayLike) -> NDArray[np.float64]:
    """Per-item multi-class Brier loss Σ_k (p_k − 1[k = outcome])², in [0, 2]; NaN rows score 2."""
    p_arr = np.asarray(probs, dtype=np.float64)
    idx = np.asarray(outcome_index, dtype=np.int64)
    if p_arr.ndim != 2 or idx.shape != (p_arr.shape[0],):
        raise ValueError(f"expected probs (n, k) and outcome_index (n,), got {p_arr.shape} and {idx.shape}")
    if np.any((idx < 0) | (idx >= p_arr.shape[1])):
        raise ValueError(f"outcome_index must lie in [0, {p_arr.shape[1] - 1}]")
    target = np.zeros_like(p_arr)
    target[np.arange(len(idx)), idx] = 1.0
    loss = ((p_arr - target) ** 2).sum(axis=1)
    return np.where(np.isnan(p_arr).any(axis=1), 2.0, loss)


def multiclass_log_loss(probs: ArrayLike, outcome_index: ArrayLike, eps: float = LOG_EPS) -> NDArray[np.float64]:
    """Per-item multi-class log loss −ln p_outcome (clipped to [eps, 1]); NaN rows score −ln eps."""
    p_arr = np.asarray(probs, dtype=np.float64)
    idx = np.asarray(outcome_index, dtype=np.int64)
    if p_arr.ndim != 2 or idx.shape != (p_arr.shape[0],):
        raise ValueError(f"expected probs (n, k) and outcome_index (n,), got {p_arr.shape} and {idx.shape}")
    q = p_arr[np.arange(len(idx)), idx]
    q = np.where(np.isnan(p_arr).any(axis=1), eps, q)
    return -np.log(np.clip(q, eps, 1.0))


def confidence(p: ArrayLike) -> NDArray[np.float64]:
    """Per-item confidence |p − 0.5|·2 (NaN where the reply did not parse)."""
    return np.abs(np.asarray(p, dtype=np.float64) - 0.5) * 2.0
