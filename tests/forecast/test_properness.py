"""Strict properness, checked numerically: expected reward peaks only where the report equals the belief."""

import numpy as np
import pytest

from reasonforge.forecast.rules import LOG_EPS, brier_reward, log_reward

GRID = np.round(np.arange(0.0, 1.0 + 1e-9, 0.001), 3)           # candidate reports p
BELIEFS = np.round(np.arange(0.01, 0.991, 0.01), 2)              # true beliefs q (inside the log clip range)


def expected(rule, q):
    return q * rule(GRID, np.ones_like(GRID)) + (1 - q) * rule(GRID, np.zeros_like(GRID))


@pytest.mark.parametrize("rule", [brier_reward, log_reward])
def test_expected_reward_is_maximised_only_at_the_belief(rule):
    for q in BELIEFS:
        values = expected(rule, q)
        best = GRID[np.argmax(values)]
        assert best == pytest.approx(q, abs=1e-9), f"{rule.__name__}: belief {q} best report {best}"
        at_truth = values[np.isclose(GRID, q)][0]
        others = values[~np.isclose(GRID, q)]
        assert np.all(others < at_truth), f"{rule.__name__}: a misreport ties the truthful report at q={q}"


@pytest.mark.parametrize("rule", [brier_reward, log_reward])
def test_misreporting_costs_more_the_further_it_goes(rule):
    # Inside the clip range [eps, 1 − eps]; outside it the clipped log rule is flat by construction.
    inside = (GRID >= LOG_EPS) & (GRID <= 1 - LOG_EPS)
    for q in (0.1, 0.3, 0.5, 0.8):
        values = expected(rule, q)[inside]
        i = int(np.argmax(values))
        assert np.all(np.diff(values[: i + 1]) > 0) and np.all(np.diff(values[i:]) < 0)


def test_hedging_and_extremes_are_beaten_by_the_truth():
    # A forecaster who believes 0.7 loses expected reward by hedging at 0.5 or by claiming certainty.
    for rule in (brier_reward, log_reward):
        e = expected(rule, 0.7)
        truth = e[np.isclose(GRID, 0.7)][0]
        assert truth > e[np.isclose(GRID, 0.5)][0] and truth > e[np.isclose(GRID, 1.0)][0]


def test_log_rule_is_clipped_not_infinite():
    assert log_reward([0.0], [1])[0] == 0.0 and log_reward([1.0], [0])[0] == 0.0
    assert log_reward([1.0], [1])[0] == pytest.approx(1 - np.log(1 - LOG_EPS) / np.log(LOG_EPS))
