"""A stored job as the plan's `VerifyResponse`."""

from __future__ import annotations

from reasonforge.chain import suggested_fix
from reasonforge.service.jobs.tables import JobRow
from reasonforge.types import (
    FailureDetail,
    JobStatus,
    StepResult,
    StepStatus,
    VerificationVerdict,
    VerifyRequest,
    VerifyResponse,
)

JOB_LEVEL_STEP_ID = 0
"""`failure_points[].step_id` of a failure that belongs to the job as a whole (it ran out of attempts,
its certificate could not be issued, ...), not to one reasoning step."""

_REPORTED = (StepStatus.FAILED, StepStatus.ERROR, StepStatus.UNSUPPORTED)


def certificate_url(public_base_url: str, certificate_id: str) -> str:
    """Where a human can read (and re-check) a certificate."""
    return f"{public_base_url.rstrip('/')}/verify/{certificate_id}"


def failure_details(
    request: VerifyRequest, verdict: VerificationVerdict
) -> list[FailureDetail]:
    """One entry per step that failed, errored or was unsupported; invalidated steps appear in cascade_impact."""
    texts = {step.step_id: step.content for step in request.reasoning_chain}
    impact: dict[int, list[int]] = {}
    for sv in verdict.step_verdicts:
        if sv.status is StepStatus.INVALIDATED:
            for culprit in sv.invalidated_by:
                impact.setdefault(culprit, []).append(sv.step_id)
    return [
        FailureDetail(
            step_id=sv.step_id,
            original_content=texts.get(sv.step_id, ""),
            error=sv.error_message or sv.status.value,
            suggested_fix=suggested_fix(sv),
            cascade_impact=impact.get(sv.step_id, []),
        )
        for sv in verdict.step_verdicts
        if sv.status in _REPORTED
    ]


def to_response(row: JobRow, public_base_url: str) -> VerifyResponse:
    """The API's view of `row`: verdict fields once there is a verdict, the job's error once it failed."""
    status = JobStatus(row.status)
    response = VerifyResponse(
        task_id=row.task_id,
        status=status,
        steps_total=row.steps_total,
        cost_credits=row.cost_credits,
    )
    failures: list[FailureDetail] = []
    if row.verdict_json:
        verdict = VerificationVerdict.model_validate_json(row.verdict_json)
        request = VerifyRequest.model_validate_json(row.request_json)
        failures = failure_details(request, verdict)
        response.verdict = verdict.overall
        response.assurance = verdict.assurance
        response.steps_verified = verdict.verified_steps
        response.steps_total = verdict.total_steps
        response.steps = [StepResult.of(sv) for sv in verdict.step_verdicts]
        response.verdict_digest = verdict.verdict_digest or None
        response.answer_matches_reference = verdict.answer_matches_reference
        response.reference_check = verdict.reference_check
        response.verification_time_ms = row.verification_time_ms
    if status is JobStatus.FAILED and row.error:
        failures.append(
            FailureDetail(
                step_id=JOB_LEVEL_STEP_ID, original_content="", error=row.error
            )
        )
    if row.verdict_json or status is JobStatus.FAILED:
        response.failure_points = failures
    if row.certificate_id:
        response.certificate_id = row.certificate_id
        response.certificate_url = certificate_url(public_base_url, row.certificate_id)
    return response
