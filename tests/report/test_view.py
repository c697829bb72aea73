"""A view belongs to one request and one verdict (and the certificate of that verdict), and says so."""

from __future__ import annotations

from hashlib import sha256

import pytest

from reasonforge.chain import overall_of
from reasonforge.errors import InputError
from reasonforge.report import build_view
from reasonforge.types import Overall, StepStatus


def test_a_verdict_shown_with_another_request_is_refused(verdicts) -> None:
    request, _ = verdicts["VERIFIED"]
    _, other = verdicts["PARTIAL"]
    with pytest.raises(InputError, match="give the request the verdict was computed from"):
        build_view(request, other)
    # the same chain with one word changed is another task
    edited = request.model_copy(update={"original_query": request.original_query + " (edited)"})
    with pytest.raises(InputError, match="hashes to"):
        build_view(edited, verdicts["VERIFIED"][1])


def test_custody_lists_the_whole_artifacts_digests_and_the_cascade_is_marked(verdicts) -> None:
    request, verdict = verdicts["PARTIAL"]
    view = build_view(request, verdict)
    custody = dict(view.custody)
    assert custody["task hash"] == verdict.task_hash and custody["verdict digest"] == verdict.verdict_digest
    for sv in verdict.step_verdicts:
        if not sv.formal_representation:  # step 4 was never checked: its artifact is empty
            assert f"step {sv.step_id} artifact sha256" not in custody
            continue
        assert custody[f"step {sv.step_id} artifact sha256"] == sha256(sv.formal_representation.encode()).hexdigest()
    assert [s.status for s in view.steps] == [StepStatus.VERIFIED, StepStatus.VERIFIED, StepStatus.FAILED,
                                              StepStatus.INVALIDATED]
    assert view.layout.cascade == {(3, 4)} and view.layout.columns == 4 and view.layout.rows == 1
    assert view.step(3).counterexample.endswith("is false") and view.step(4).invalidated_by == (3,)


def test_failing_tests_are_read_from_the_checker_details(verdicts) -> None:
    request, verdict = verdicts["FAILED"]
    step = build_view(request, verdict).step(1)
    assert step.failing_tests and "count_frequencies([1, 2, 2, 3])" in step.failing_tests[0].message
    assert step.checker.startswith("python") or "pytest" in step.checker


def test_a_verdict_edited_after_verification_is_refused(verdicts) -> None:
    """The forgery: a refuted chain's verdict edited to VERIFIED, keeping the digest a certificate signed for the
    real one. A page or report of it would show a verified chain with the genuine digest beside it."""
    request, verdict = verdicts["PARTIAL"]
    forged_steps = [sv.model_copy(update={"status": StepStatus.VERIFIED, "verified": True, "error_message": None})
                    for sv in verdict.step_verdicts]
    summary_only = verdict.model_copy(update={"overall": Overall.VERIFIED})
    with pytest.raises(InputError, match="its steps give PARTIAL"):
        build_view(request, summary_only)
    # the same edit with its summary made to agree with the edited steps: the digest still gives it away
    consistent = overall_of({sv.step_id: sv for sv in forged_steps})
    forged = verdict.model_copy(update={"overall": consistent, "step_verdicts": forged_steps,
                                        "verified_steps": len(forged_steps), "failure_report": None})
    with pytest.raises(InputError, match="verdict_digest does not match its content"):
        build_view(request, forged)
    artifact = verdict.model_copy(update={"step_verdicts": [
        verdict.step_verdicts[0].model_copy(update={"formal_representation": "claim 1 = 1"}),
        *verdict.step_verdicts[1:]]})
    with pytest.raises(InputError, match="verdict_digest does not match its content"):
        build_view(request, artifact)
