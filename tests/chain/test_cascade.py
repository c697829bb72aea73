"""Invalidation cascade and the failure report on a diamond-shaped DAG."""

import pytest

from reasonforge.chain import StepGraph, apply_cascade, failure_report, overall_of
from reasonforge.types import (
    Assurance,
    Domain,
    ErrorKind,
    Evidence,
    EvidenceKind,
    Formaliser,
    Overall,
    ReasoningStep,
    StepStatus,
    StepVerdict,
    Supplier,
    VerifyRequest,
)

PROVEN = Evidence(kind=EvidenceKind.CLAIM, aligned_claim="c", formaliser=Formaliser.OFFLINE_READER)

DIAMOND = [[], [1], [1], [2, 3], [4], []]  # 1 -> {2, 3} -> 4 -> 5 ; 6 independent


def build(statuses):
    chain = [
        ReasoningStep(step_id=i + 1, content=f"step {i + 1}", dependencies=d) for i, d in enumerate(DIAMOND)
    ]
    request = VerifyRequest(domain=Domain.LOGIC, reasoning_chain=chain)
    graph = StepGraph(chain)
    own = {
        sid: StepVerdict(
            step_id=sid,
            verified=status is StepStatus.VERIFIED,
            status=status,
            error_message=None if status is StepStatus.VERIFIED else f"{status.value} here",
            formal_representation=f"artifact {sid}",
            error_kind=ErrorKind.COUNTEREXAMPLE if status is StepStatus.FAILED else None,
            evidence=PROVEN if status is StepStatus.VERIFIED else None,
            details={"counterexample": {"x": 1}} if status is StepStatus.FAILED else {},
        )
        for sid, status in zip(graph.step_ids, statuses)
    }
    return request, graph, apply_cascade(graph, own)


V, F, E, U = StepStatus.VERIFIED, StepStatus.FAILED, StepStatus.ERROR, StepStatus.UNSUPPORTED


def test_failure_on_one_arm_invalidates_the_join_and_below_only():
    request, graph, out = build([V, F, V, V, V, V])
    assert [out[s].status for s in range(1, 7)] == [V, F, V, StepStatus.INVALIDATED, StepStatus.INVALIDATED, V]
    assert out[4].local_status == "verified"
    assert out[4].invalidated_by == [2]
    report = failure_report(request, graph, out)
    assert report.failed_step_id == 2
    assert report.cascade_impact == [4, 5]
    assert report.last_valid_step == 1
    assert report.partial_correctness == pytest.approx(3 / 6)
    assert report.suggested_fix and "counterexample" in report.suggested_fix
    assert overall_of(out) is Overall.PARTIAL


def test_both_arms_failing_names_the_first_in_topological_order():
    request, graph, out = build([V, F, F, V, E, V])
    assert out[4].invalidated_by == [2, 3]
    # Step 5's own error is kept under local_status.
    assert out[5].status is StepStatus.INVALIDATED and out[5].local_status == "error"
    assert failure_report(request, graph, out).failed_step_id == 2


def test_root_failure_takes_down_the_diamond():
    request, graph, out = build([F, V, V, V, V, V])
    report = failure_report(request, graph, out)
    assert report.cascade_impact == [2, 3, 4, 5] and report.last_valid_step is None
    assert out[6].status is V


def test_error_and_unsupported_do_not_invalidate():
    request, graph, out = build([V, E, U, V, V, V])
    assert out[4].status is V and out[5].status is V
    report = failure_report(request, graph, out)
    assert report.failed_step_id == 2 and report.cascade_impact == []


def test_all_verified_has_no_report_and_none_verified_is_failed():
    request, graph, out = build([V] * 6)
    assert failure_report(request, graph, out) is None and overall_of(out) is Overall.VERIFIED
    _, _, out = build([F, V, V, V, V, E])
    assert overall_of(out) is Overall.FAILED


def with_evidence(out, sid, **evidence):
    out = dict(out)
    out[sid] = out[sid].model_copy(update={"evidence": PROVEN.model_copy(update=evidence)})
    return out


def test_the_weakest_evidence_decides_the_assurance_and_only_full_evidence_makes_a_chain_verified():
    from reasonforge.chain import assumptions_of, assurance_of

    _, _, out = build([V] * 6)
    assert assurance_of(out) is Assurance.PROVEN and overall_of(out) is Overall.VERIFIED
    conditional = with_evidence(out, 2, kind=EvidenceKind.CONDITIONAL, assumptions=["All mammals are warm-blooded."])
    assert assurance_of(conditional) is Assurance.CONDITIONAL and overall_of(conditional) is Overall.PARTIAL
    assert [(a.step_id, a.premise) for a in assumptions_of(conditional.values())] == [
        (2, "All mammals are warm-blooded.")]
    authors = with_evidence(conditional, 3, kind=EvidenceKind.EXAMPLES, supplied_by=Supplier.AUTHOR)
    assert assurance_of(authors) is Assurance.SELF_TESTED and overall_of(authors) is Overall.PARTIAL
    arithmetic = with_evidence(authors, 4, kind=EvidenceKind.RELATIONS)
    assert assurance_of(arithmetic) is Assurance.ARITHMETIC
    corroborated = with_evidence(out, 5, kind=EvidenceKind.CORROBORATED, supplied_by=Supplier.INDEPENDENT)
    assert assurance_of(corroborated) is Assurance.CORROBORATED and overall_of(corroborated) is Overall.VERIFIED
    bare = dict(out)
    bare[1] = bare[1].model_copy(update={"evidence": None})
    assert overall_of(bare) is Overall.PARTIAL and assurance_of(bare) is Assurance.UNPROVEN
