"""What a miner's translations of one task contributed: the steps its artifacts decided and those that held.

The CTS the validator and the simulator pay (`incentive.gated_cts`) counts only translations whose verdict
holds. A translated step is

- *decided* when the miner's artifact itself settled it: the step is `verified` or `failed` (refuted), and
  an artifact that proves nothing (`miner.vacuous_artifact`, in the same language: the null verdict) does
  not reach the same status. The pipeline's own reader refutes some steps whatever artifact it is given (a
  logic step's English reading); such a refutation is the pipeline's, not the miner's. `invalidated`,
  `unsupported` and `error` decide nothing: they are the cascade's, or no verdict at all;
- *held* when it is decided and agrees with the reference: a verified step the reference holds, a refuted
  step the reference fails.

The reference is the majority of the miners that decided the step (`consensus.decided_majority`: a miner
that decided nothing abstains rather than voting "not verified"), or on a trap its ground truth, where only
the steps the truth refutes can be held by a refutation.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import Enum

from reasonforge.consensus import decided_majority
from reasonforge.types import StepStatus, VerificationVerdict

__all__ = ["Credit", "Reference", "consensus_reference", "credit", "decisions", "truth_reference"]

_DECISIVE = (StepStatus.VERIFIED, StepStatus.FAILED)


class Reference(str, Enum):
    """What the reference says of one step, i.e. which of a miner's verdicts agrees with it."""

    HOLDS = "holds"  # a verified verdict agrees
    FAILS = "fails"  # a refutation agrees
    OPEN = "open"  # no verdict agrees (a tie among the deciders; a trap step its truth neither verifies nor refutes)


@dataclass(frozen=True)
class Credit:
    """Counts over one task's steps; compiled_held ≤ held ≤ decided ≤ translated."""

    translated: int
    decided: int
    held: int
    compiled_held: int


def decisions(verdict: VerificationVerdict, null: VerificationVerdict | None,
              translated: Iterable[int]) -> dict[int, StepStatus]:
    """step_id → VERIFIED or FAILED for the translated steps the miner's artifact decided.

    `verdict`: the verification of its artifacts; `null`: of artifacts that prove nothing in the same
    languages (None: such artifacts decide nothing); `translated`: the task's step ids it sent an artifact for.
    """
    steps = set(translated)
    baseline = {sv.step_id: sv.status for sv in null.step_verdicts} if null is not None else {}
    return {sv.step_id: sv.status for sv in verdict.step_verdicts
            if sv.step_id in steps and sv.status in _DECISIVE and baseline.get(sv.step_id) is not sv.status}


def consensus_reference(decided: Iterable[Mapping[int, StepStatus]]) -> dict[int, Reference]:
    """The miners' decisions (one mapping per miner) as a reference: the majority of those that decided."""
    majority = decided_majority(dict(enumerate(decided)))
    return {sid: Reference.HOLDS if status is StepStatus.VERIFIED else Reference.FAILS if status is StepStatus.FAILED
            else Reference.OPEN for sid, status in majority.items()}


def truth_reference(step_verified: Mapping[int, bool], step_refuted: Iterable[int]) -> dict[int, Reference]:
    """A ground truth (a trap's) as a reference: verified steps hold, refuted ones fail, the rest are open."""
    refuted = set(step_refuted)
    return {sid: Reference.HOLDS if ok else Reference.FAILS if sid in refuted else Reference.OPEN
            for sid, ok in step_verified.items()}


def credit(decided: Mapping[int, StepStatus], translated: int, compiled: Mapping[int, bool],
           reference: Mapping[int, Reference]) -> Credit:
    """The miner's counts on one task from its `decisions`, how many steps it `translated`, which artifacts
    `compiled` (step id → the checker accepted it) and the `reference`."""
    held = [sid for sid, status in decided.items()
            if reference.get(sid) is (Reference.HOLDS if status is StepStatus.VERIFIED else Reference.FAILS)]
    return Credit(translated=translated, decided=len(decided), held=len(held),
                  compiled_held=sum(1 for sid in held if compiled.get(sid, False)))
