"""GRPO group-relative advantages for dated forecasting groups.

A group is the G rollouts of one (question, forecast date): same question, same date, same resolved
outcome. The default advantage is mean-centred, A_i = r_i − mean(r), without dividing by the group's
standard deviation. Why (AlphaBet §3.3, §A.4–A.5): at a fixed context, mean-centring keeps the expected
score-only update a positive multiple (1 − 1/G) of the proper-score gradient, so the reported
probabilities still target the true outcome distribution. Dividing by σ weights each group by
1/σ_y, and σ_y — the spread of scores across reports when outcome y happens — differs between outcomes
(for the Brier score near a report p it is proportional to the slope 2·|1[y] − p|), so outcomes
with small σ_y get their gradient amplified and the elicited target is tilted away from the truth.
`tests/forecast/agentic/test_agentic_grpo.py` shows both effects on a simulated policy.
The std variant (σ + 1e-6, population σ) is kept for comparison with standard GRPO.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Hashable, Sequence

from reasonforge.errors import InputError
from reasonforge.forecast.agentic.records import EpisodeRecord

STD_EPS = 1e-6
"""Added to σ in the std variant so that a group of equal rewards gets zero advantages, not 0/0."""


def group_advantages(rewards: list[float], std_normalize: bool = False) -> list[float]:
    """Advantages of one group: r_i − mean(r), or (r_i − mean(r))/(σ + 1e-6) with population σ.

    An empty or single-member group has nothing to compare against: all advantages are 0.
    NaN or infinite rewards raise InputError (they would poison every advantage of the group).
    """
    values = [float(r) for r in rewards]
    bad = [i for i, r in enumerate(values) if not math.isfinite(r)]
    if bad:
        raise InputError(f"rewards at positions {bad} are not finite ({values[bad[0]]}); "
                         "score unusable answers with the worst finite reward instead", field="rewards")
    if len(values) < 2:
        return [0.0] * len(values)
    mean = math.fsum(values) / len(values)
    centred = [r - mean for r in values]
    if not std_normalize:
        return centred
    sigma = math.sqrt(math.fsum(c * c for c in centred) / len(values))
    return [c / (sigma + STD_EPS) for c in centred]


def grouped_advantages(keys: Sequence[Hashable], rewards: Sequence[float],
                       std_normalize: bool = False) -> list[float]:
    """Advantages of items grouped by key (items with equal keys form one group), in input order."""
    if len(keys) != len(rewards):
        raise InputError(f"{len(keys)} keys but {len(rewards)} rewards; give one key per reward", field="keys")
    members: dict[Hashable, list[int]] = defaultdict(list)
    for i, key in enumerate(keys):
        members[key].append(i)
    out = [0.0] * len(rewards)
    for idx in members.values():
        for i, a in zip(idx, group_advantages([rewards[i] for i in idx], std_normalize), strict=True):
            out[i] = a
    return out


def dated_group_advantages(records: Sequence[EpisodeRecord], std_normalize: bool = False) -> list[list[float]]:
    """Per-date advantages of episode rollouts, grouped by (question_id, forecast date).

    Returns one list per record, aligned with `record.forecasts`. Each date is its own group and gets
    its own reward only (no credit from later dates flows back to earlier notebook writes, as in AlphaBet).
    """
    keys = [(r.question_id, f.date) for r in records for f in r.forecasts]
    flat = grouped_advantages(keys, [f.reward for r in records for f in r.forecasts], std_normalize)
    out: list[list[float]] = []
    start = 0
    for r in records:
        out.append(flat[start:start + len(r.forecasts)])
        start += len(r.forecasts)
    return out
