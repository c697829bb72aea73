"""Composite Translation Score (plan Eq. 2): how well one miner translated one task.

`cts` is the seed's formula on given fractions; `gated_cts` is the one the validator and the simulator pay
by: the same weights, each component counting only translations whose verdict holds.
"""

from __future__ import annotations

from reasonforge.errors import InputError
from reasonforge.incentive._check import finite, fraction, integer, non_negative
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


def gated_cts(steps: int, translated: int, decided: int, held: int, compiled_held: int, time_ms: float,
              timeout_ms: float, settings: IncentiveSettings = DEFAULT_INCENTIVE) -> float:
    """CTS with every component gated on the translations whose verdict holds (a departure from the seed).

    Counts over one task: `steps` of the task, `translated` (steps with an artifact), `decided` (translated
    steps whose artifact itself decided a verdict: verified or refuted, where an artifact that proves
    nothing would not have), `held` (decided steps whose verdict agrees with the reference: consensus, or
    a trap's ground truth) and `compiled_held` (held steps whose artifact compiled). Then

        Compilation  = compiled_held / steps            (the seed: compiled / translated)
        Correctness  = held / decided                   (the seed: agreement over every step)
        Completeness = held / steps                     (the seed: translated / steps)
        Efficiency   = efficiency(time) · held / steps  (the seed: efficiency(time))

    so a miner that translated every step, each holding, scores exactly the seed's CTS, and one none of
    whose translations holds scores 0: artifacts that compile and prove nothing, or a fast answer, earn nothing
    by themselves, and agreeing that a step is "not verified" with an artifact that could not verify
    anything is no agreement. Compilation is over the task's steps, not the translated ones: over the
    translated ones, leaving out the steps a refuted step invalidates (which hold nothing) would raise it.
    """
    steps = integer("steps", steps, 1)
    translated = integer("translated", translated, 0, steps)
    decided = integer("decided", decided, 0, translated)
    held = integer("held", held, 0, decided)
    compiled_held = integer("compiled_held", compiled_held, 0, held)
    speed = efficiency(time_ms, timeout_ms, settings)
    if held == 0:
        return 0.0
    share = held / steps
    parts = (
        settings.w_compilation * compiled_held / steps,
        settings.w_correctness * held / decided,
        settings.w_completeness * share,
        settings.w_efficiency * speed * share,
    )
    return min(1.0, max(0.0, sum(parts)))
