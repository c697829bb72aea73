"""Input checks shared by the incentive functions: each failure names the argument and the fix."""

from __future__ import annotations

import math
import operator
from collections.abc import Mapping

from reasonforge.errors import InputError


def finite(name: str, value: float) -> float:
    """`value` as a float, refusing NaN, infinities and non-numbers."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise InputError(f"{name} must be a number, got {value!r}", field=name) from None
    if not math.isfinite(number):
        raise InputError(f"{name} must be a finite number, got {value!r}", field=name)
    return number


def fraction(name: str, value: float) -> float:
    """A fraction in [0, 1] (compiled share, agreement rate, trap accuracy, ...)."""
    number = finite(name, value)
    if not 0.0 <= number <= 1.0:
        raise InputError(f"{name} must be a fraction in [0, 1], got {value!r}", field=name)
    return number


def non_negative(name: str, value: float) -> float:
    """A finite number ≥ 0 (times, stakes, scores, emission totals)."""
    number = finite(name, value)
    if number < 0.0:
        raise InputError(f"{name} must be ≥ 0, got {value!r}", field=name)
    return number


def integer(name: str, value: int, low: int, high: int | None = None) -> int:
    """An integer in [low, high] (high None: unbounded); bools and floats are refused."""
    if isinstance(value, bool):
        raise InputError(f"{name} must be an integer, got {value!r}", field=name)
    try:
        number = operator.index(value)
    except TypeError:
        raise InputError(f"{name} must be an integer, got {value!r}", field=name) from None
    if number < low or (high is not None and number > high):
        bound = f"in {low}..{high}" if high is not None else f"≥ {low}"
        raise InputError(f"{name} must be {bound}, got {number}", field=name)
    return number


def score_map(name: str, scores: Mapping[int, float]) -> dict[int, float]:
    """A uid → non-negative finite score mapping, copied into a plain dict."""
    if not isinstance(scores, Mapping):
        raise InputError(f"{name} must be a mapping uid → score, got {type(scores).__name__}", field=name)
    return {integer(f"{name} uid", uid, 0): non_negative(f"{name}[{uid}]", s) for uid, s in scores.items()}
