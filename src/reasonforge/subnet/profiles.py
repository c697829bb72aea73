"""Simulated miner behaviours for the incentive simulator: honest skill levels and known attacks.

Each behaviour turns a task into a `Submission`: which steps it translated, which artifacts compiled,
which the validator's mechanical verification then verified and which it refuted, how long it took, and
a content fingerprint (equal fingerprints = byte-identical artifacts, which the validator deduplicates).
Verification is modelled from the step's ground truth: a faithful translation of a valid step
verifies and of an invalid step is refuted; a mistranslation does the opposite; an artifact that does
not compile decides nothing, and neither does one that compiles but asserts nothing (vacuous).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

BoolArray = NDArray[np.bool_]


@dataclass(frozen=True)
class SimTask:
    """One task of an epoch: its difficulty, timeout and the true validity of each step."""

    index: int
    difficulty: int
    timeout_ms: float
    truth: BoolArray
    trap: bool


@dataclass(frozen=True)
class Submission:
    """What a miner sent for one task, already run through the validator's mechanical verification."""

    content: Hashable
    time_ms: float
    translated: BoolArray
    compiled: BoolArray
    verified: BoolArray
    refuted: BoolArray


@dataclass(frozen=True)
class Skill:
    """An honest translator's ability: per-step probabilities and answer time as a fraction of the timeout."""

    translate: float
    compile: float
    faithful: float
    time: tuple[float, float]


ELITE = Skill(translate=1.0, compile=0.97, faithful=0.97, time=(0.10, 0.30))
HONEST = Skill(translate=1.0, compile=0.85, faithful=0.90, time=(0.20, 0.50))
LAZY = Skill(translate=0.5, compile=0.85, faithful=0.90, time=(0.55, 0.95))
LOW_EFFORT = Skill(translate=1.0, compile=0.60, faithful=0.60, time=(0.03, 0.12))

# Answer (task, rng, submissions made so far for this task by miner label, own label) → Submission.
Behaviour = Callable[[SimTask, np.random.Generator, Mapping[str, Submission], str], Submission]


def work(skill: Skill, task: SimTask, rng: np.random.Generator, content: Hashable) -> Submission:
    """An honest attempt at `skill`: independent per-step translation, compilation and fidelity draws."""
    n = len(task.truth)
    translated = rng.random(n) < skill.translate
    compiled = translated & (rng.random(n) < skill.compile)
    faithful = rng.random(n) < skill.faithful
    verified = compiled & np.where(faithful, task.truth, ~task.truth)
    time_ms = float(rng.uniform(*skill.time)) * task.timeout_ms
    return Submission(content, time_ms, translated, compiled, verified, compiled & ~verified)


def honest_behaviour(skill: Skill) -> Behaviour:
    """A miner that does its own work at `skill` (elite, honest, lazy and the crowd)."""

    def answer(task: SimTask, rng: np.random.Generator, _seen: Mapping[str, Submission], label: str) -> Submission:
        return work(skill, task, rng, (label, task.index))

    return answer


def copycat(source: str, copy_rate: float = 1.0) -> Behaviour:
    """Resubmits `source`'s artifacts after seeing them (so later). With `copy_rate` below 1 it does lazy
    work of its own on the other tasks, and is then paid for that work as a lazy miner is; the `copycat`
    profile copies every answer, so it contributes nothing and must earn nothing."""

    def answer(task: SimTask, rng: np.random.Generator, seen: Mapping[str, Submission], label: str) -> Submission:
        original = seen.get(source)
        if original is not None and rng.random() < copy_rate:
            delay = float(rng.uniform(0.02, 0.10)) * task.timeout_ms
            return Submission(original.content, original.time_ms + delay, original.translated, original.compiled,
                              original.verified, original.refuted)
        return work(LAZY, task, rng, (label, task.index))

    return answer


def vacuous(task: SimTask, rng: np.random.Generator, _seen: Mapping[str, Submission], label: str) -> Submission:
    """Artifacts that compile but assert nothing (vacuous tests): they neither verify nor refute any step."""
    n = len(task.truth)
    everything = np.ones(n, dtype=bool)
    nothing = np.zeros(n, dtype=bool)
    time_ms = float(rng.uniform(0.05, 0.20)) * task.timeout_ms
    return Submission((label, task.index), time_ms, everything, everything, nothing, nothing)


def timeout_gamer(task: SimTask, rng: np.random.Generator, _seen: Mapping[str, Submission], label: str) -> Submission:
    """Half the time replays cached output within 2 % of the timeout; otherwise answers after it."""
    n = len(task.truth)
    everything = np.ones(n, dtype=bool)
    if rng.random() < 0.5:
        # Cached artifacts compile but were written for some other chain: their verdicts are noise.
        verified = rng.random(n) < 0.5
        time_ms = float(rng.uniform(0.002, 0.019)) * task.timeout_ms
        return Submission((label, task.index), time_ms, everything, everything, verified, ~verified)
    late = work(HONEST, task, rng, (label, task.index))
    return Submission(late.content, float(rng.uniform(1.05, 1.5)) * task.timeout_ms,
                      late.translated, late.compiled, late.verified, late.refuted)


def sybil(partner: str | None) -> Behaviour:
    """One of a pair under one operator: the first does low-effort work, the second sends the same bytes."""

    def answer(task: SimTask, rng: np.random.Generator, seen: Mapping[str, Submission], label: str) -> Submission:
        if partner is None or partner not in seen:
            return work(LOW_EFFORT, task, rng, ("sybil", task.index))
        twin = seen[partner]
        # Sent at about the same moment, so either twin may arrive first.
        time_ms = twin.time_ms * float(rng.uniform(0.9, 1.1))
        return Submission(twin.content, time_ms, twin.translated, twin.compiled, twin.verified, twin.refuted)

    return answer


PROFILES: tuple[tuple[str, tuple[tuple[str, Behaviour], ...]], ...] = (
    ("elite", (("elite", honest_behaviour(ELITE)),)),
    ("honest", (("honest", honest_behaviour(HONEST)),)),
    ("lazy", (("lazy", honest_behaviour(LAZY)),)),
    ("copycat", (("copycat", copycat("honest")),)),
    ("vacuous", (("vacuous", vacuous),)),
    ("timeout_gamer", (("timeout_gamer", timeout_gamer),)),
    ("sybil", (("sybil/a", sybil(None)), ("sybil/b", sybil("sybil/a")))),
)
"""Reported profiles in answering order (a copier after its source): name → (miner label, behaviour) pairs."""

CROWD = honest_behaviour(HONEST)
"""The unreported background miners: the honest majority a real subnet's consensus rests on."""
