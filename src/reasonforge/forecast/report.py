"""Reports over a dataset: the degenerate-strategies table and the scoring of a predictions file."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray
from pydantic import BaseModel, Field

from reasonforge.errors import InputError
from reasonforge.forecast.dataset import ForecastItem, item_arrays
from reasonforge.forecast.metrics import BAND, ScoreReport, point_metrics, score
from reasonforge.forecast.predictions import PredictionRow

STRATEGIES = ("always_0.95", "always_0.05", "always_0.5", "market", "oracle")


class StrategyScore(BaseModel):
    """Mean scores of one fixed strategy."""

    brier: float | None
    brier_reward: float | None
    log_reward: float | None


class StrategyTable(BaseModel):
    """Every degenerate strategy on one set of items."""

    n_items: int
    strategies: dict[str, StrategyScore]


class BaselinesReport(StrategyTable):
    """`forecast baselines --json`: all items at the top level, the market band under `band`."""

    band: StrategyTable = Field(description=f"items with {BAND[0]} <= market price <= {BAND[1]}")


def strategy_forecasts(name: str, outcome: NDArray[np.float64], market: NDArray[np.float64]) -> NDArray[np.float64]:
    """The forecasts a fixed strategy makes: a constant, the market price, or the outcome itself."""
    if name.startswith("always_"):
        return np.full_like(outcome, float(name.removeprefix("always_")))
    if name == "market":
        return market.copy()
    if name == "oracle":
        return outcome.copy()
    raise ValueError(f"unknown strategy {name!r}; choose one of {', '.join(STRATEGIES)}")


def _none_if_nan(x: float) -> float | None:
    return None if math.isnan(x) else x


def _table(outcome: NDArray[np.float64], market: NDArray[np.float64]) -> StrategyTable:
    rows = {}
    for name in STRATEGIES:
        m = point_metrics(strategy_forecasts(name, outcome, market), outcome, market)
        rows[name] = StrategyScore(brier=_none_if_nan(m["brier"]), brier_reward=_none_if_nan(m["brier_reward"]),
                                   log_reward=_none_if_nan(m["log_reward"]))
    return StrategyTable(n_items=int(outcome.size), strategies=rows)


def baselines(items: Sequence[ForecastItem]) -> BaselinesReport:
    """Degenerate strategies on all items and on the 0.05–0.95 market band."""
    arrays = item_arrays(items)
    band = (arrays.market >= BAND[0]) & (arrays.market <= BAND[1])
    everything = _table(arrays.outcome, arrays.market)
    return BaselinesReport(n_items=everything.n_items, strategies=everything.strategies,
                           band=_table(arrays.outcome[band], arrays.market[band]))


Prediction = PredictionRow
"""One row of a predictions file (the schema lives in `forecast.predictions`)."""


class AlignedPredictions(BaseModel):
    """Forecast probabilities aligned with the items (None: no usable forecast)."""

    p: list[float | None]
    n_missing: int = Field(description="items with no prediction row (scored as unparsable)")
    n_unparsed: int = Field(description="rows whose reply is not a valid probability")
    n_extra: int = Field(description="prediction rows for ids not in the evaluated items (ignored)")


def align(items: Sequence[ForecastItem], predictions: Sequence[Prediction]) -> AlignedPredictions:
    """Probabilities per item: replies parsed strictly, a direct `probability` only inside [0, 1]."""
    by_id: dict[str, Prediction] = {}
    for row in predictions:
        if row.id in by_id:
            raise InputError(f"prediction id '{row.id}' appears twice; keep one row per item", field="predictions")
        by_id[row.id] = row
    wanted = {item.id for item in items}
    probs: list[float | None] = []
    missing = unparsed = 0
    for item in items:
        found = by_id.get(item.id)
        if found is None:
            missing += 1
            probs.append(None)
            continue
        value = found.value()
        if value is None:
            unparsed += 1
        probs.append(value)
    return AlignedPredictions(p=probs, n_missing=missing, n_unparsed=unparsed,
                              n_extra=sum(1 for key in by_id if key not in wanted))


class PredictionScore(BaseModel):
    """`forecast score --json`: the metrics with CIs plus how the predictions lined up."""

    predictions: str
    n_missing: int
    n_unparsed: int
    n_extra: int
    report: ScoreReport


def score_predictions(items: Sequence[ForecastItem], predictions: Sequence[Prediction], *, resamples: int = 1000,
                      seed: int = 0, source: str = "") -> PredictionScore:
    """Score aligned predictions: all metrics with question-clustered bootstrap CIs."""
    aligned = align(items, predictions)
    arrays = item_arrays(items)
    p = np.array([np.nan if v is None else v for v in aligned.p], dtype=np.float64)
    groups = np.array([item.question_id for item in items], dtype=object)
    report = score(p, arrays.outcome, arrays.market, groups if len(items) else None, resamples=resamples, seed=seed)
    return PredictionScore(predictions=source, n_missing=aligned.n_missing, n_unparsed=aligned.n_unparsed,
                           n_extra=aligned.n_extra, report=report)


def probabilities(items: Sequence[ForecastItem], predictions: Sequence[Prediction]) -> NDArray[np.float64]:
    """Aligned probabilities as an array, NaN where no valid forecast exists."""
    return np.array([np.nan if v is None else v for v in align(items, predictions).p], dtype=np.float64)
