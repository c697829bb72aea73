"""The one way a `VerificationVerdict` is made: from its step verdicts, with the overall, assurance, assumptions,
failure report and hashes derived by one rule (`cascade.overall_of`, `assurance_of`), whoever judged the steps
(the pipeline, the subnet's consensus, the simulator)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from reasonforge.chain.cascade import assumptions_of, assurance_of, failure_report, overall_of
from reasonforge.chain.dag import StepGraph
from reasonforge.chain.hashing import task_hash as request_hash
from reasonforge.chain.hashing import verdict_digest, verdict_hash
from reasonforge.types import Domain, ProofLevel, ReferenceCheck, StepVerdict, VerificationVerdict, VerifyRequest

__all__ = ["build_verdict"]


def build_verdict(
    step_verdicts: Sequence[StepVerdict],
    *,
    domain: Domain,
    proof_level: ProofLevel,
    task_id: str = "",
    request: VerifyRequest | None = None,
    graph: StepGraph | None = None,
    verification_time_ms: int = 0,
    translator_uids: Iterable[int] = (),
    task_hash: str = "",
    reference: ReferenceCheck | None = None,
) -> VerificationVerdict:
    """The verdict of `step_verdicts` (in chain order). With the `request` (and its validated `graph`) it also
    carries the task hash, the claimed answer, the failure report and the verdict digest; `task_id` defaults to
    the task hash's first 32 hex digits. `reference`: the final value against the request's reference answer,
    reported beside the verdict (it changes no status and is not in the digest)."""
    steps = list(step_verdicts)
    overall, assurance = overall_of(steps), assurance_of(steps)
    claimed_answer = ""
    report = None
    digest = ""
    if request is not None:
        task_hash = request_hash(request)
        task_id = task_id or request.task_id or task_hash[:32]
        claimed_answer = request.claimed_answer
        if graph is not None:
            report = failure_report(request, graph, {v.step_id: v for v in steps})
        digest = verdict_digest(task_hash=task_hash, claimed_answer=claimed_answer, domain=domain,
                                proof_level=proof_level, overall=overall, assurance=assurance, step_verdicts=steps)
    return VerificationVerdict(
        task_id=task_id,
        overall=overall,
        step_verdicts=steps,
        total_steps=len(steps),
        verified_steps=sum(v.verified for v in steps),
        failure_points=[v for v in steps if not v.verified],
        failure_report=report,
        assurance=assurance,
        assumptions=assumptions_of(steps),
        domain=domain,
        proof_level=proof_level,
        verification_time_ms=verification_time_ms,
        translator_uids=sorted(translator_uids),
        task_hash=task_hash,
        verdict_hash=verdict_hash(task_id, overall.value, steps),
        claimed_answer=claimed_answer,
        verdict_digest=digest,
        answer_matches_reference=reference.matches if reference is not None else None,
        reference_check=reference,
    )


def digest_of(verdict: VerificationVerdict) -> str:
    """The verdict digest recomputed from the verdict's own steps (never the digest it carries)."""
    steps = {sv.step_id: sv for sv in verdict.step_verdicts}
    return verdict_digest(
        task_hash=verdict.task_hash, claimed_answer=verdict.claimed_answer, domain=verdict.domain,
        proof_level=verdict.proof_level, overall=verdict.overall,
        assurance=verdict.assurance or assurance_of(steps), step_verdicts=verdict.step_verdicts,
    )
