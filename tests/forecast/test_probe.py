"""Contamination probe on a constructed recall pattern."""

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from reasonforge.errors import InputError
from reasonforge.forecast.dataset import ForecastItem
from reasonforge.forecast.probe import contamination_probe


def make_items(n=400, seed=0):
    rng = np.random.default_rng(seed)
    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    items = []
    for i in range(n):
        q = rng.uniform(0.2, 0.8)
        resolved = t0 + timedelta(days=int(i * 60 / n))
        items.append(ForecastItem(id=f"i{i}", question="q?", cutoff=resolved - timedelta(days=3), resolved_at=resolved,
                                  outcome=int(rng.uniform() < q), market_price=q, source="test"))
    return items


def test_a_recalling_model_shows_a_negative_signal_and_comparable_market_halves():
    items = make_items()
    cutoff = "2026-01-31T00:00:00Z"
    before = np.array([i.resolved_at < datetime(2026, 1, 31, tzinfo=UTC) for i in items])
    outcome = np.array([i.outcome for i in items], dtype=float)
    market = np.array([i.market_price for i in items])
    # Remembers outcomes before its cutoff, copies the market after it.
    p = np.where(before, 0.9 * outcome + 0.05, market)
    report = contamination_probe(cutoff, items, p, resamples=300)
    assert report.before.n_items + report.after.n_items == len(items)
    assert report.before.model_brier.value < report.before.market_brier.value
    assert report.after.gap.value == pytest.approx(0.0)
    assert report.recall_signal.ci_high < 0
    # The market itself is of similar difficulty on both halves (the CIs overlap).
    assert report.before.market_brier.ci_low < report.after.market_brier.ci_high
    assert report.after.market_brier.ci_low < report.before.market_brier.ci_high


def test_default_model_is_the_market_and_bad_cutoff_is_an_input_error():
    report = contamination_probe("2026-01-31T00:00:00+00:00", make_items(100), resamples=50)
    assert report.model == "market" and report.recall_signal.value == 0.0
    with pytest.raises(InputError, match="ISO-8601"):
        contamination_probe("last week", make_items(10))
    with pytest.raises(InputError, match="UTC offset"):
        contamination_probe("2026-01-31T00:00:00", make_items(10))
