"""Cross-validation (plan §"cross_validate"): a step is verified when most translators' artifacts verify it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pydantic import BaseModel, Field

from reasonforge.chain import build_verdict
from reasonforge.errors import InputError
from reasonforge.types import (
    Domain,
    Evidence,
    ProofLevel,
    StepStatus,
    StepVerdict,
    VerificationVerdict,
)


class MinerAgreement(BaseModel):
    """How often one miner's per-step verdicts matched the consensus (feeds CTS Correctness)."""

    uid: int
    steps: int = Field(ge=0, description="Consensus steps the miner was judged on.")
    agreed: int = Field(ge=0, description="Steps where the miner's verified flag equals the consensus flag.")
    verified: int = Field(ge=0, description="Steps the miner's own artifacts verified.")

    @property
    def rate(self) -> float:
        """agreed / steps; 0.0 when there were no steps."""
        return self.agreed / self.steps if self.steps else 0.0


class ConsensusResult(BaseModel):
    """The consensus verdict, each miner's agreement with it, and the vote behind every step."""

    verdict: VerificationVerdict
    agreement: dict[int, MinerAgreement]
    step_counts: dict[int, tuple[int, int]] = Field(
        description="step_id → (miners whose artifact verified it, miners judged)."
    )


def correctness(agreement: MinerAgreement) -> float:
    """CTS Correctness of a miner on one task: its agreement rate with consensus."""
    return agreement.rate


def _flags(uid: int, verdict: VerificationVerdict) -> dict[int, bool]:
    flags: dict[int, bool] = {}
    for sv in verdict.step_verdicts:
        if sv.step_id in flags:
            raise InputError(
                f"miner {uid}'s verdict lists step {sv.step_id} twice; give one verdict per step",
                field="miner_verdicts",
                step_id=sv.step_id,
            )
        flags[sv.step_id] = sv.verified
    return flags


def _consensus_step(step_id: int, verified_by: int, judged: int, evidence: Sequence[Evidence | None]) -> StepVerdict:
    """The majority's verdict on one step, resting on the weakest evidence a verifying miner reported (none when
    one reported none), so the consensus is never VERIFIED on more than its miners proved."""
    # Strictly more than half: a tie is not a majority, so 2 of 4 does not verify a step.
    verified = judged > 0 and verified_by > judged / 2
    weakest = next((e for e in evidence if e is None or not e.full), evidence[0] if evidence else None)
    return StepVerdict(
        step_id=step_id,
        verified=verified,
        status=StepStatus.VERIFIED if verified else StepStatus.FAILED,
        error_message=None if verified else f"Only {verified_by}/{judged} translations verified",
        evidence=weakest if verified else None,
        details={"verified_by": verified_by, "judged": judged},
    )


def cross_validate(
    miner_verdicts: Mapping[int, VerificationVerdict | None],
    task_id: str = "",
    domain: Domain | None = None,
    proof_level: ProofLevel | None = None,
    step_ids: Sequence[int] | None = None,
) -> ConsensusResult:
    """Majority vote per step over the miners that answered (verdict not None).

    Steps are `step_ids` (the task's steps) plus any step a miner reported. Every answering miner is
    judged on every step; a step missing from its verdict counts as not verified. A miner whose
    verdict is None is left out of the vote and agrees on nothing. `task_id`, `domain` and
    `proof_level` default to the first answering miner's; `domain` must be given when none answered.
    """
    valid = {uid: v for uid, v in miner_verdicts.items() if v is not None}
    first = next(iter(valid.values()), None)
    if domain is None:
        if first is None:
            raise InputError(
                "no miner answered, so the task's domain is unknown; pass domain= to cross_validate",
                field="domain",
            )
        domain = first.domain
    if proof_level is None:
        proof_level = first.proof_level if first is not None else ProofLevel.STANDARD
    if not task_id and first is not None:
        task_id = first.task_id

    flags = {uid: _flags(uid, v) for uid, v in valid.items()}
    ids = set(step_ids or ())
    for miner_flags in flags.values():
        ids.update(miner_flags)
    judged = len(valid)
    step_counts: dict[int, tuple[int, int]] = {}
    steps: list[StepVerdict] = []
    for sid in sorted(ids):
        verified_by = sum(1 for miner_flags in flags.values() if miner_flags.get(sid, False))
        step_counts[sid] = (verified_by, judged)
        evidence = [sv.evidence for v in valid.values() for sv in v.step_verdicts if sv.step_id == sid and sv.verified]
        steps.append(_consensus_step(sid, verified_by, judged, evidence))

    hashes = {v.task_hash for v in valid.values()}
    # Only carried over when every answering miner verified the same task.
    verdict = build_verdict(steps, domain=domain, proof_level=proof_level, task_id=task_id,
                            translator_uids=valid, task_hash=hashes.pop() if len(hashes) == 1 else "")

    agreement: dict[int, MinerAgreement] = {}
    for uid in miner_verdicts:
        own = flags.get(uid)
        if own is None:
            agreement[uid] = MinerAgreement(uid=uid, steps=len(steps), agreed=0, verified=0)
            continue
        agreed = sum(1 for s in steps if own.get(s.step_id, False) == s.verified)
        verified = sum(1 for s in steps if own.get(s.step_id, False))
        agreement[uid] = MinerAgreement(uid=uid, steps=len(steps), agreed=agreed, verified=verified)
    return ConsensusResult(verdict=verdict, agreement=agreement, step_counts=step_counts)


def decided_majority(decisions: Mapping[int, Mapping[int, StepStatus]]) -> dict[int, StepStatus | None]:
    """Per step, the majority among the miners whose own artifact decided it: uid → step_id → VERIFIED or FAILED.

    VERIFIED when more than half of the miners that decided the step verified it, FAILED when more than half
    refuted it, None on a tie. A miner that decided nothing about a step (no artifact, an artifact that proves
    nothing, a cascade's `invalidated`) abstains: in `cross_validate` it votes "not verified", so a miner that
    contributes nothing could outvote one that proved the step.
    """
    votes: dict[int, list[int]] = {}
    for uid, steps in decisions.items():
        for sid, status in steps.items():
            if status not in (StepStatus.VERIFIED, StepStatus.FAILED):
                raise InputError(f"miner {uid}'s decision on step {sid} is {status.value}; only verified and failed "
                                 "are decisions (leave an undecided step out)", field="decisions", step_id=sid)
            tally = votes.setdefault(sid, [0, 0])
            tally[status is StepStatus.FAILED] += 1
    out: dict[int, StepStatus | None] = {}
    for sid, (verified, failed) in sorted(votes.items()):
        out[sid] = (StepStatus.VERIFIED if verified > failed else StepStatus.FAILED if failed > verified else None)
    return out
