"""The strict PROBABILITY parser: examples, boundaries and properties."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reasonforge.forecast import parse_probability
from reasonforge.forecast.dataset import ForecastItem
from reasonforge.forecast.env import brier_reward


@pytest.mark.parametrize(("reply", "expected"), [
    ("PROBABILITY: 0.62", 0.62),
    ("reasoning...\nPROBABILITY: 0", 0.0),
    ("PROBABILITY: 1", 1.0),             # exactly 1 is certainty, not 1 %
    ("PROBABILITY: 1.0", 1.0),
    ("PROBABILITY: 2", 0.02),            # exactly 2 is the first percent
    ("PROBABILITY: 62", 0.62),
    ("PROBABILITY: 62.5", 0.625),
    ("PROBABILITY: 100", 1.0),           # exactly 100 is the last percent
    ("PROBABILITY: 62%", 0.62),
    ("PROBABILITY: 0.5%", 0.005),
    ("PROBABILITY: 100%", 1.0),
    ("PROBABILITY: .3", 0.3),
    ("  probability:   0.4  ", 0.4),
    ("PROBABILITY: 0.1\nmore thought\nPROBABILITY: 0.9", 0.9),   # the last line wins
    ("PROBABILITY: 0.9\r\n", 0.9),
])
def test_accepted(reply, expected):
    assert parse_probability(reply) == pytest.approx(expected)


@pytest.mark.parametrize("reply", [
    "PROBABILITY: 1.7",       # the historic bug: once read as 0.017
    "PROBABILITY: 1.0001",
    "PROBABILITY: 1.99",
    "PROBABILITY: 100.5",
    "PROBABILITY: 101",
    "PROBABILITY: 150%",
    "PROBABILITY: -0.2",
    "PROBABILITY: +0.2",
    "PROBABILITY: nan",
    "PROBABILITY: inf",
    "PROBABILITY: 0,62",
    "PROBABILITY: 6.2e-1",
    "PROBABILITY: likely",
    "PROBABILITY: 0.6 or so",
    "PROBABILITY: 0.62.",
    "PROBABILITY:",
    "PROBABILITY: 0.7\nPROBABILITY: high",   # a malformed last line is not rescued by an earlier one
    "The probability is 0.62",
    "My PROBABILITY: 0.5",                   # must start the line
    "",
    None,
])
def test_rejected(reply):
    assert parse_probability(reply) is None


def _item(outcome):
    return ForecastItem(id="x", question="q?", cutoff="2026-01-01T00:00:00Z", resolved_at="2026-01-02T00:00:00Z",
                        outcome=outcome, market_price=0.5, source="test")


def test_unparsable_reply_scores_zero_not_half():
    for outcome in (0, 1):
        assert brier_reward("I decline to answer.", _item(outcome)) == 0.0
        assert brier_reward("PROBABILITY: 1.7", _item(outcome)) == 0.0
    assert brier_reward("PROBABILITY: 0.5", _item(1)) == 0.75


@given(st.floats(min_value=0, max_value=1, allow_nan=False))
def test_unit_interval_is_a_probability(x):
    text = f"{x:.6f}"
    assert parse_probability(f"PROBABILITY: {text}") == pytest.approx(float(text))


@given(st.floats(min_value=1, max_value=2, exclude_min=True, exclude_max=True))
def test_open_interval_one_to_two_is_rejected(x):
    text = f"{x:.6f}"
    if float(text) in (1.0, 2.0):  # rounding may land on a boundary
        return
    assert parse_probability(f"PROBABILITY: {text}") is None


@given(st.floats(min_value=2, max_value=100))
def test_two_to_hundred_is_a_percent(x):
    text = f"{x:.4f}"
    assert parse_probability(f"PROBABILITY: {text}") == pytest.approx(float(text) / 100)
    assert parse_probability(f"PROBABILITY: {text}%") == pytest.approx(float(text) / 100)


@given(st.floats(min_value=100, max_value=1e9, exclude_min=True))
def test_above_hundred_is_rejected(x):
    text = f"{x:.4f}"
    if float(text) <= 100:
        return
    assert parse_probability(f"PROBABILITY: {text}") is None
    assert parse_probability(f"PROBABILITY: {text}%") is None


@given(st.floats(max_value=0, exclude_max=True) | st.sampled_from([math.nan, math.inf, -math.inf]))
def test_negative_and_non_finite_rejected(x):
    assert parse_probability(f"PROBABILITY: {x}") is None


@given(st.text(max_size=200))
def test_never_raises_and_stays_in_unit_interval(text):
    for reply in (text, f"PROBABILITY: {text}", f"{text}\nPROBABILITY: {text}"):
        value = parse_probability(reply)
        assert value is None or 0.0 <= value <= 1.0
