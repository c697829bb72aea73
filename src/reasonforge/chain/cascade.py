"""Invalidation cascade and the failure report: where the chain broke and what it takes down."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from reasonforge.chain.dag import StepGraph
from reasonforge.types import (
    Assurance,
    ErrorKind,
    EvidenceKind,
    FailureReport,
    Overall,
    StepAssumption,
    StepStatus,
    StepVerdict,
    Supplier,
    VerifyRequest,
)


def apply_cascade(graph: StepGraph, verdicts: Mapping[int, StepVerdict]) -> dict[int, StepVerdict]:
    """Mark transitive dependants of every `failed` step `invalidated`, keeping their own result."""
    culprits: dict[int, list[int]] = {}
    for sid in graph.order:
        if verdicts[sid].status is StepStatus.FAILED:
            for dependant in graph.dependants(sid):
                culprits.setdefault(dependant, []).append(sid)
    out: dict[int, StepVerdict] = {}
    for sid in graph.order:
        verdict = verdicts[sid]
        if sid in culprits and verdict.status is not StepStatus.FAILED:
            own = f" (its own check: {verdict.status.value})"
            verdict = verdict.model_copy(
                update={
                    "verified": False,
                    "status": StepStatus.INVALIDATED,
                    "error_message": f"depends on failed step {culprits[sid][0]}" + own,
                    "local_status": verdict.status,
                    "invalidated_by": culprits[sid],
                }
            )
        out[sid] = verdict
    return out


def _steps(verdicts: Mapping[int, StepVerdict] | Iterable[StepVerdict]) -> list[StepVerdict]:
    return list(verdicts.values() if isinstance(verdicts, Mapping) else verdicts)


def overall_of(verdicts: Mapping[int, StepVerdict] | Iterable[StepVerdict]) -> Overall:
    """VERIFIED iff every step is verified on full evidence (`Evidence.full`: its claim proven, or corroborated, or
    code checked against examples its author did not write), FAILED iff no step is verified, PARTIAL otherwise: a
    step verified only on the arithmetic inside its prose, only as an inference from premises nobody gave, or only
    against its author's own tests keeps its chain PARTIAL."""
    steps = _steps(verdicts)
    verified = sum(v.verified for v in steps)
    if steps and verified == len(steps) and all(v.evidence is not None and v.evidence.full for v in steps):
        return Overall.VERIFIED
    return Overall.FAILED if verified == 0 else Overall.PARTIAL


def arithmetic_only(verdict: StepVerdict) -> bool:
    """Was the step verified on the relations inside its text only, not on all it claims?"""
    return _evidence_kind(verdict) is EvidenceKind.RELATIONS


def _evidence_kind(verdict: StepVerdict) -> EvidenceKind | None:
    return verdict.evidence.kind if verdict.verified and verdict.evidence is not None else None


def _self_tested(verdict: StepVerdict) -> bool:
    evidence = verdict.evidence
    return verdict.verified and evidence is not None and (
        evidence.kind is EvidenceKind.AUTHOR_TESTS or evidence.supplied_by is Supplier.AUTHOR)


def _conditional(verdict: StepVerdict) -> bool:
    evidence = verdict.evidence
    return verdict.verified and evidence is not None and (
        evidence.kind is EvidenceKind.CONDITIONAL or bool(evidence.assumptions))


def assurance_of(verdicts: Mapping[int, StepVerdict] | Iterable[StepVerdict]) -> Assurance:
    """Refuted (a failed step), unproven (a step not verified), else the weakest evidence a step rests on:
    arithmetic, own tests, assumptions, corroboration, proof."""
    steps = _steps(verdicts)
    if any(v.status is StepStatus.FAILED for v in steps):
        return Assurance.REFUTED
    if not steps or not all(v.verified for v in steps):
        return Assurance.UNPROVEN
    if any(v.evidence is None for v in steps):
        return Assurance.UNPROVEN  # verified without evidence: nothing says what it rests on
    if any(arithmetic_only(v) for v in steps):
        return Assurance.ARITHMETIC
    if any(_self_tested(v) for v in steps):
        return Assurance.SELF_TESTED
    if any(_conditional(v) for v in steps):
        return Assurance.CONDITIONAL
    if any(_evidence_kind(v) is EvidenceKind.CORROBORATED for v in steps):
        return Assurance.CORROBORATED
    return Assurance.PROVEN


def assumptions_of(verdicts: Iterable[StepVerdict]) -> list[StepAssumption]:
    """Every premise a verified step was proven from that nothing gave, derived or contradicted, in step order."""
    return [StepAssumption(step_id=v.step_id, premise=premise) for v in verdicts
            if v.verified and v.evidence is not None for premise in v.evidence.assumptions]


# Recognised error kinds (from checker details) and what the author of the reasoning can do.
_FIXES: dict[ErrorKind, str] = {
    ErrorKind.VACUOUS: "The premises available to this step contradict each other, so it proves nothing; "
    "remove or correct the contradictory premise.",
    ErrorKind.CONTRADICTED_PREMISE: "A premise this step states contradicts the givens or the steps it builds on; "
    "correct or remove it.",
    ErrorKind.ASSUMED_CONCLUSION: "The step states a claim that nothing gives or derives (or restates one of its own "
    "premises as its conclusion): derive it from the givens or earlier steps, or give it in the question.",
    ErrorKind.AFFIRMING_THE_CONSEQUENT: "This affirms the consequent: from 'if P then Q' and Q, P does not follow. "
    "State P directly or use 'if Q then P' if that is what you mean.",
    ErrorKind.DENYING_THE_ANTECEDENT: "This denies the antecedent: from 'if P then Q' and not P, not Q does not "
    "follow.",
    ErrorKind.COUNTEREXAMPLE: "The conclusion does not follow from the givens and the steps it depends on "
    "(the counterexample satisfies them all and falsifies the conclusion); add the missing premise "
    "as an earlier step or weaken the conclusion.",
    ErrorKind.TIMEOUT: "The checker ran out of time; split the step into smaller steps or raise --timeout.",
    ErrorKind.SYNTAX: "The formal artifact does not parse; fix it at the line and column given.",
    ErrorKind.UNTRANSLATABLE: "Rephrase the step in simpler sentences (one claim per sentence) or supply a "
    "translation.",
    # error kinds of the sympy checker (verify/math/relations.py)
    ErrorKind.ARITHMETIC: "A relation in this step is false: recompute it; the message gives the value of each side "
    "(or the solutions of the earlier equations it contradicts).",
    ErrorKind.CONTRADICTION: "This relation can never hold for any value of its unknowns (e.g. x = x + 1); "
    "check the algebra that produced it.",
    # the gate (pipeline/gate.py, with the family's aligner): what ties an artifact to its step
    ErrorKind.UNREADABLE_CLAIM: "The step's claim could not be read, so no artifact can verify it; state it in "
    "simpler sentences (one claim per sentence) as the message suggests.",
    ErrorKind.UNALIGNED: "The artifact proves something other than what the step says; make its conclusion state "
    "exactly the step's claim.",
    ErrorKind.UNGROUNDED_PREMISE: "The artifact assumes a premise that is neither a given of the question nor a "
    "claim of an earlier step it depends on; prove that premise in an earlier step or remove it.",
    ErrorKind.UNGROUNDED_OPERAND: "A number this step computes with is not in the question, not an earlier step's "
    "result and not a unit constant; show where it comes from in an earlier step, or use the question's number.",
    ErrorKind.NO_EVIDENCE: "The checker proved the artifact but nothing ties it to the step's text; supply an "
    "artifact whose conclusion is the step's claim.",
    ErrorKind.ANSWER_MISMATCH: "The claimed answer is not what the chain derived; correct the answer or the last step.",
    ErrorKind.DISAGREEMENT: "Independent translations of the step disagree; state the step's claim more explicitly "
                            "(one relation or sentence, its quantities named) so they read it alike.",
    ErrorKind.TOO_FEW_AGREE: "Too few independent translations prove the step; state its claim more explicitly, or "
                             "supply a formal artifact.",
}


def suggested_fix(verdict: StepVerdict) -> str | None:
    """A fix for recognised error kinds, or None when the error is not one we recognise."""
    return _FIXES.get(verdict.error_kind) if verdict.error_kind is not None else None


def failure_report(
    request: VerifyRequest, graph: StepGraph, verdicts: Mapping[int, StepVerdict]
) -> FailureReport | None:
    """Report the first `failed` step in topological order (else the first error), or None if all verified."""
    broken = [sid for sid in graph.order if verdicts[sid].status is StepStatus.FAILED]
    if not broken:
        broken = [
            sid
            for sid in graph.order
            if verdicts[sid].status in (StepStatus.ERROR, StepStatus.UNSUPPORTED)
        ]
    if not broken:
        return None
    first = broken[0]
    verdict = verdicts[first]
    before = graph.order[: graph.order.index(first)]
    valid = [sid for sid in before if verdicts[sid].verified]
    cascade = [sid for sid in graph.dependants(first) if verdicts[sid].status is StepStatus.INVALIDATED]
    step = request.reasoning_chain[graph.position(first)]
    return FailureReport(
        failed_step_id=first,
        original_reasoning=step.content,
        formal_translation=verdict.formal_representation,
        verification_error=verdict.error_message or verdict.status.value,
        suggested_fix=suggested_fix(verdict),
        cascade_impact=cascade,
        last_valid_step=valid[-1] if valid else None,
        partial_correctness=sum(v.verified for v in verdicts.values()) / len(verdicts),
        assumptions=assumptions_of(verdicts[sid] for sid in graph.order),
    )
