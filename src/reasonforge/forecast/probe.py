"""Contamination probe: does a model do better on events that resolved before its training cutoff?

Items are split by resolution date at the model's cutoff. Each half reports the model's Brier, the
market's Brier on the same items and their gap, all with question-clustered bootstrap CIs. The
market's Brier shows whether the halves are of comparable difficulty; the recall signal is the
model-minus-market gap before the cutoff minus the same gap after it (negative: the model gains
on events it may remember).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

import numpy as np
from numpy.typing import ArrayLike, NDArray
from pydantic import BaseModel, Field

from reasonforge.errors import InputError
from reasonforge.forecast.dataset import ForecastItem, item_arrays
from reasonforge.forecast.metrics import MSE, SE, MetricCI, N, bootstrap_sums, components, group_sums


class ProbeHalf(BaseModel):
    """One side of the split."""

    n_items: int
    n_questions: int
    model_brier: MetricCI
    market_brier: MetricCI
    gap: MetricCI = Field(description="model Brier − market Brier (negative: model beat the market)")


class ProbeReport(BaseModel):
    """Both halves and the difference of their gaps."""

    cutoff: datetime
    model: str
    before: ProbeHalf = Field(description="resolved strictly before the cutoff (may be remembered)")
    after: ProbeHalf = Field(description="resolved at or after the cutoff (must be forecast)")
    recall_signal: MetricCI = Field(description="gap before − gap after; clearly negative suggests recall")
    n_missing: int = Field(default=0, ge=0, description="items with no prediction, left out of both halves")


def parse_cutoff(cutoff_iso: str) -> datetime:
    """An ISO-8601 instant (UTC offset required, `Z` accepted) as an aware datetime."""
    try:
        value = datetime.fromisoformat(cutoff_iso.strip())
    except ValueError:
        raise InputError(f"cutoff '{cutoff_iso}' is not ISO-8601; use e.g. 2026-08-25T00:00:00Z", field="cutoff") from None
    if value.tzinfo is None:
        raise InputError(f"cutoff '{cutoff_iso}' has no UTC offset; append Z", field="cutoff")
    return value.astimezone(UTC)


def _half(p: NDArray[np.float64], outcome: NDArray[np.float64], market: NDArray[np.float64],
          group: NDArray[np.int64], resamples: int, seed: int) -> tuple[ProbeHalf, NDArray[np.float64]]:
    _, dense = np.unique(group, return_inverse=True)
    n_groups = int(dense.max()) + 1 if dense.size else 0
    per_group = group_sums(components(p, outcome, market)[:, [N, SE, MSE]], dense.astype(np.int64), n_groups)
    totals = per_group.sum(axis=0)
    boot = bootstrap_sums(per_group, resamples, seed) if resamples and n_groups else np.zeros((0, 3))

    def stat(sums: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
        with np.errstate(divide="ignore", invalid="ignore"):
            model, market_b = sums[..., 1] / sums[..., 0], sums[..., 2] / sums[..., 0]
        return model, market_b, model - market_b

    point = stat(totals)
    draws = stat(boot)
    cis = [_ci(float(v), d) for v, d in zip(point, draws)]
    half = ProbeHalf(n_items=int(p.size), n_questions=n_groups, model_brier=cis[0], market_brier=cis[1], gap=cis[2])
    return half, draws[2]


def _ci(value: float, draws: NDArray[np.float64]) -> MetricCI:
    finite = draws[np.isfinite(draws)]
    low, high = (np.percentile(finite, [2.5, 97.5]) if finite.size else (None, None))
    return MetricCI(value=value if np.isfinite(value) else None,
                    ci_low=None if low is None else float(low), ci_high=None if high is None else float(high))


def contamination_probe(cutoff_iso: str, items: Sequence[ForecastItem], p: ArrayLike | None = None, *,
                        model: str = "", resamples: int = 1000, seed: int = 0, n_missing: int = 0) -> ProbeReport:
    """Split by resolution date at `cutoff_iso`; report model and market Brier on both halves with CIs."""
    cutoff = parse_cutoff(cutoff_iso)
    arrays = item_arrays(items)
    forecasts = arrays.market.copy() if p is None else np.asarray(p, dtype=np.float64)
    if forecasts.shape != arrays.outcome.shape:
        raise InputError(f"got {forecasts.size} forecasts for {arrays.outcome.size} items", field="predictions")
    before = np.array([item.resolved_at < cutoff for item in items], dtype=bool)
    halves = []
    for offset, mask in enumerate((before, ~before)):
        halves.append(_half(forecasts[mask], arrays.outcome[mask], arrays.market[mask], arrays.group[mask],
                            resamples, seed + offset))
    (h_before, d_before), (h_after, d_after) = halves
    n = min(d_before.size, d_after.size)
    # The halves hold disjoint questions, so independent resamples of each give the difference's CI.
    signal = _ci((h_before.gap.value if h_before.gap.value is not None else np.nan)
                 - (h_after.gap.value if h_after.gap.value is not None else np.nan), d_before[:n] - d_after[:n])
    return ProbeReport(cutoff=cutoff, model=model or ("market" if p is None else "predictions"),
                       before=h_before, after=h_after, recall_signal=signal, n_missing=n_missing)
