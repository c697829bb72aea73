"""Rules and dataset metrics against plain-Python computations; bootstrap behaviour; calibration."""

import math

import numpy as np
import pytest

from reasonforge.forecast.calibration import calibration_report, expected_calibration_error, murphy_decomposition
from reasonforge.forecast.metrics import bootstrap_sums, market_skill_from, point_metrics, score
from reasonforge.forecast.rules import (
    brier_reward,
    log_loss,
    log_reward,
    multiclass_brier,
    multiclass_log_loss,
)


def synthetic(n=500, seed=3):
    rng = np.random.default_rng(seed)
    q = rng.uniform(size=n)
    o = (rng.uniform(size=n) < q).astype(float)
    m = np.clip(q + rng.normal(0, 0.05, n), 0, 1)
    p = np.clip(q + rng.normal(0, 0.1, n), 0, 1)
    p[::17] = np.nan  # some unparsed replies
    return p, o, m


def test_rules_values():
    assert list(brier_reward([0.62, 0.62, np.nan], [1, 0, 1])) == pytest.approx([1 - 0.38**2, 1 - 0.62**2, 0.0])
    assert log_reward([0.5], [1])[0] == pytest.approx(1 - math.log(0.5) / math.log(1e-3))
    assert log_loss([0.9], [0])[0] == pytest.approx(-math.log(0.1))
    assert multiclass_brier([[0.7, 0.2, 0.1]], [0])[0] == pytest.approx(0.09 + 0.04 + 0.01)
    assert multiclass_log_loss([[0.7, 0.2, 0.1]], [1])[0] == pytest.approx(-math.log(0.2))
    assert multiclass_brier([[np.nan, 0.5]], [0])[0] == 2.0
    with pytest.raises(ValueError):
        multiclass_brier([[0.5, 0.5]], [2])


def test_point_metrics_match_a_plain_loop():
    p, o, m = synthetic()
    got = point_metrics(p, o, m)
    parsed = [(pi, oi, mi) for pi, oi, mi in zip(p, o, m) if not math.isnan(pi)]
    se = [(pi - oi) ** 2 if not math.isnan(pi) else 1.0 for pi, oi in zip(p, o)]
    mse = [(mi - oi) ** 2 for mi, oi in zip(m, o)]
    assert got["brier"] == pytest.approx(sum(se) / len(p))
    assert got["brier_reward"] == pytest.approx(1 - sum(se) / len(p))
    assert got["market_brier"] == pytest.approx(sum(mse) / len(p))
    assert got["market_skill"] == pytest.approx(1 - sum(se) / sum(mse))
    assert got["brier_reward_vs_market"] == pytest.approx((sum(mse) - sum(se)) / len(p))
    assert got["format_ok"] == pytest.approx(len(parsed) / len(p))
    assert got["confidence"] == pytest.approx(sum(abs(pi - 0.5) * 2 for pi, _, _ in parsed) / len(parsed))
    assert got["market_correlation"] == pytest.approx(np.corrcoef([x[0] for x in parsed], [x[2] for x in parsed])[0, 1])


def test_market_skill_zero_denominator_is_defined():
    assert market_skill_from(np.array([0.0]), np.array([0.0]))[0] == 0.0
    assert market_skill_from(np.array([0.1]), np.array([0.0]))[0] == -np.inf
    report = score([1.0, 0.0], [1, 0], [1.0, 0.0], resamples=10)
    assert report.all.metrics["market_skill"].value == 0.0
    report = score([0.5, 0.5], [1, 0], [1.0, 0.0], resamples=10)
    assert report.all.metrics["market_skill"].value is None  # −inf is not JSON; the docstring defines it


def test_bootstrap_is_deterministic_and_brackets_the_estimate():
    p, o, m = synthetic()
    a = score(p, o, m, resamples=300, seed=7)
    b = score(p, o, m, resamples=300, seed=7)
    assert a == b
    ci = a.all.metrics["brier"]
    assert ci.ci_low < ci.value < ci.ci_high


def test_resampling_by_question_widens_intervals_for_repeated_questions():
    # 100 questions asked in 5 rounds each, with identical rows: rows are not independent evidence.
    p, o, m = synthetic(100)
    p5, o5, m5 = (np.repeat(x, 5) for x in (p, o, m))
    groups = np.repeat(np.arange(100), 5)
    by_question = score(p5, o5, m5, groups, resamples=400).all.metrics["brier"]
    by_row = score(p5, o5, m5, None, resamples=400).all.metrics["brier"]
    assert (by_question.ci_high - by_question.ci_low) > 1.8 * (by_row.ci_high - by_row.ci_low)


def test_multinomial_and_poisson_bootstraps_agree():
    p, o, m = synthetic(2000)
    from reasonforge.forecast.metrics import components, group_sums
    per = group_sums(components(p, o, m), np.arange(2000), 2000)
    for method in ("multinomial", "poisson"):
        sums = bootstrap_sums(per, 400, seed=1, method=method)
        brier = sums[:, 3] / sums[:, 0]
        assert brier.std() == pytest.approx(np.sqrt(np.var(per[:, 3]) / 2000), rel=0.2)


def test_band_subset_and_counts():
    p, o, m = synthetic()
    report = score(p, o, m, resamples=50)
    in_band = (m >= 0.05) & (m <= 0.95)
    assert report.market_band.n_items == int(in_band.sum())
    assert report.market_band.metrics["brier"].value == pytest.approx(point_metrics(p[in_band], o[in_band], m[in_band])["brier"])


def test_murphy_decomposition_sums_back_to_brier():
    p, o, m = synthetic(3000)
    for forecasts in (m, np.round(m, 1), p):
        d = murphy_decomposition(forecasts, o)
        assert d.recomposed == pytest.approx(d.brier, abs=1e-12)
        assert d.reliability >= 0 and d.resolution >= 0


def test_ece_and_reliability():
    o = np.array([1, 0] * 50, dtype=float)
    assert expected_calibration_error(np.full(100, 0.5), o) == pytest.approx(0.0)
    assert expected_calibration_error(np.full(100, 0.9), o) == pytest.approx(0.4)
    report = calibration_report(np.array([0.05, 0.15, 0.95, 1.0, np.nan]), np.array([0, 0, 1, 1, 1.0]))
    assert report.n == 4 and report.n_unparsed == 1
    assert report.bins[9].n == 2  # p = 1 belongs to the last bin


def test_reliability_plot_is_written(tmp_path):
    from reasonforge.forecast.calibration import plot_reliability
    p, o, m = synthetic()
    path = plot_reliability(calibration_report(p, o), tmp_path / "r.png", reference=calibration_report(m, o))
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    bare = plot_reliability(calibration_report(p, o), tmp_path / "diagram")  # the returned path is the file written
    assert bare == tmp_path / "diagram" and bare.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def _tiny_band():
    """Six items, four in the market band and strongly anti-correlated with the market there (the rows of the
    case that printed market_correlation -0.8595 [-1.0000, 1.1184]: resamples of one distinct band item)."""
    m = np.array([0.01, 0.30, 0.45, 0.60, 0.80, 0.99])
    p = np.array([0.97, 0.72, 0.50, 0.41, 0.22, 0.02])
    o = np.array([0.0, 1.0, 0.0, 1.0, 0.0, 1.0])
    return p, o, m


@pytest.mark.parametrize("seed", range(8))
def test_market_correlation_and_its_interval_stay_within_minus_one_and_one(seed):
    p, o, m = _tiny_band()
    for subset in (score(p, o, m, resamples=500, seed=seed).all, score(p[1:5], o[1:5], m[1:5], resamples=500,
                                                                            seed=seed).all):
        ci = subset.metrics["market_correlation"]
        assert -1.0 <= ci.ci_low <= ci.value <= ci.ci_high <= 1.0, ci
    # perfectly (anti-)correlated forecasts: ±1 up to rounding, interval included, never beyond
    for sign in (1.0, -1.0):
        q = 0.5 + sign * (m - 0.5)
        ci = score(q, o, m, resamples=300, seed=seed).all.metrics["market_correlation"]
        for value in (ci.value, ci.ci_low, ci.ci_high):
            assert value == pytest.approx(sign, abs=1e-12) and -1.0 <= value <= 1.0


def test_market_correlation_of_a_constant_is_undefined_not_noise():
    p, o, m = _tiny_band()
    report = score(np.full(6, 0.3), o, m, resamples=200)
    ci = report.all.metrics["market_correlation"]
    assert ci.value is None and ci.ci_low is None and ci.ci_high is None
    assert point_metrics(np.full(6, 0.3), o, m)["market_correlation"] != point_metrics(p, o, m)["market_correlation"]
    assert math.isnan(point_metrics(np.full(6, 0.3), o, m)["market_correlation"])


def test_market_correlation_interval_is_reproducible_by_seed():
    p, o, m = synthetic(300)
    first = score(p, o, m, resamples=400, seed=11).all.metrics["market_correlation"]
    assert score(p, o, m, resamples=400, seed=11).all.metrics["market_correlation"] == first
    other = score(p, o, m, resamples=400, seed=12).all.metrics["market_correlation"]
    assert (other.ci_low, other.ci_high) != (first.ci_low, first.ci_high)
    assert other.value == first.value


def test_market_correlation_interval_matches_the_fisher_interval_of_a_known_normal_case():
    # Bivariate normal with ρ = 0.5, n = 2000: the sampling distribution of r is known (Fisher's z), so the
    # bootstrap's 95 % interval must be close to tanh(atanh(r) ± 1.96/√(n − 3)).
    rng = np.random.default_rng(5)
    n, rho = 2000, 0.5
    z = rng.standard_normal((2, n))
    x = 0.5 + 0.1 * z[0]
    y = 0.5 + 0.1 * (rho * z[0] + math.sqrt(1 - rho**2) * z[1])
    ci = score(x, np.zeros(n), y, resamples=2000, seed=0).all.metrics["market_correlation"]
    r = np.corrcoef(x, y)[0, 1]
    assert ci.value == pytest.approx(r, abs=1e-12)
    half = 1.96 / math.sqrt(n - 3)
    assert ci.ci_low == pytest.approx(math.tanh(math.atanh(r) - half), abs=0.01)
    assert ci.ci_high == pytest.approx(math.tanh(math.atanh(r) + half), abs=0.01)


def test_correlation_under_resampling_weights_is_the_correlation_of_the_repeated_rows():
    from reasonforge.forecast.metrics import correlation
    x = np.array([0.1, 0.4, 0.35, 0.8, 0.6])
    y = np.array([0.2, 0.3, 0.5, 0.7, 0.1])
    weights = np.array([[2, 0, 1, 1, 1], [0, 0, 5, 0, 0], [1, 1, 1, 1, 1], [0, 3, 0, 2, 0]])
    got = correlation(x, y, weights)
    for row, value in zip(weights, got):
        rows = np.repeat(np.arange(5), row)
        if np.unique(x[rows]).size < 2:
            assert math.isnan(value)
        else:
            assert value == pytest.approx(np.corrcoef(x[rows], y[rows])[0, 1], abs=1e-12)
