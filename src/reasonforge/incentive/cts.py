"""Composite Translation Score (plan Eq. 2): how well one miner translated one task."""

from __future__ import annotations

from reasonforge.errors import InputError
from reasonforge.incentive._check import finite, fraction, non_negative
from reasonforge.incentive.settings import DEFAULT_INCENTIVE, IncentiveSettings


def efficiency(time_ms: float, timeout_ms: float, settings: IncentiveSettings = DEFAULT_INCENTIVE) -> float:
    """Time score: 0.1 under 2 % of the timeout (cached?), 0 past it, else 1 − 0.4·time/timeout.

    Both boundaries belong to the linear part: exactly 2 % scores 1 − 0.4·0.02 = 0.992 and exactly
    the timeout scores 1 − 0.4 = 0.6 (the plan tests `ratio < 0.02` and `ratio > 1.0`).
    """
    time_ms = non_negative("time_ms", time_ms)
    timeout_ms = finite("timeout_ms", timeout_ms)
    if timeout_ms <= 0.0:
        raise InputError(f"timeout_ms must be > 0, got {timeout_ms!r}", field="timeout_ms")
    ratio = time_ms / timeout_ms
    if ratio < settings.suspicious_ratio:
        return settings.suspicious_efficiency
    if ratio > 1.0:
        return 0.0
    return 1.0 - settings.efficiency_slope * ratio


def cts(
    compilation: float,
    correctness: float,
    completeness: float,
    time_ms: float,
    timeout_ms: float,
    settings: IncentiveSettings = DEFAULT_INCENTIVE,
) -> float:
    """CTS = 0.45·Compilation + 0.30·Correctness + 0.15·Completeness + 0.10·Efficiency, in [0, 1].

    `compilation`: fraction of the miner's artifacts that compiled; `correctness`: fraction of steps
    on which its verdict agrees with consensus; `completeness`: fraction of the task's steps it translated.
    """
    parts = (
        settings.w_compilation * fraction("compilation", compilation),
        settings.w_correctness * fraction("correctness", correctness),
        settings.w_completeness * fraction("completeness", completeness),
        settings.w_efficiency * efficiency(time_ms, timeout_ms, settings),
    )
    # The weights sum to 1 (checked by the settings), so only float rounding could leave [0, 1].
    return min(1.0, max(0.0, sum(parts)))
