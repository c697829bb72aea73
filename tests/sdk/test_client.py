"""The sync client against a live `reasonforge serve`: verify, submit/get/wait, idempotency, stats."""

from __future__ import annotations

import time

import httpx
import pytest

from reasonforge import ReasonForge as TopLevelReasonForge
from reasonforge.errors import InputError
from reasonforge.sdk import (
    ClientClosedError,
    ConflictError,
    InvalidRequestError,
    JobStatus,
    NotFoundError,
    ReasonForge,
    Stats,
    VerificationTimeoutError,
    protocol,
)
from reasonforge.types import Overall, ReasoningStep

from sdk_support import PENCILS, PYTHAGORAS


def test_top_level_import_is_the_sdk_client():
    assert TopLevelReasonForge is ReasonForge


@pytest.mark.parametrize("via", ["stream", "poll"])
def test_verify_returns_the_verdict(rf, via):
    result = rf.verify(
        **PYTHAGORAS,
        proof_level="quick",
        generate_certificate=False,
        wait_via=via,
        timeout_s=120,
    )
    assert result.status is JobStatus.COMPLETE
    assert result.verdict is Overall.VERIFIED
    assert (result.steps_verified, result.steps_total) == (4, 4)
    assert result.failure_points == []
    assert result.certificate_id is None and result.certificate_url is None
    assert result.cost_credits == pytest.approx(
        0.10 + 4 * 0.02
    )  # the plan's quick price, no certificate


def test_a_false_step_is_reported_with_its_cascade(rf):
    result = rf.verify(
        **PENCILS, proof_level="quick", generate_certificate=False, timeout_s=120
    )
    assert result.verdict is Overall.PARTIAL
    assert (result.steps_verified, result.steps_total) == (2, 4)
    [failure] = result.failure_points
    assert failure.step_id == 3 and failure.cascade_impact == [4]
    assert "51" in failure.error and failure.suggested_fix
    assert [s.status.value for s in result.steps][2:] == ["failed", "invalidated"]
    assert "51" in result.steps[2].message and result.steps[2].checker.startswith("sympy-relations ")


def test_submit_then_get_then_wait(rf):
    queued = rf.verify(
        **PENCILS, proof_level="quick", generate_certificate=False, wait=False
    )
    assert queued.status in (
        JobStatus.QUEUED,
        JobStatus.TRANSLATING,
        JobStatus.VERIFYING,
        JobStatus.COMPLETE,
    )
    seen = rf.get(queued.task_id)
    assert seen.task_id == queued.task_id
    done = rf.wait(queued.task_id, timeout_s=120, via="poll")
    assert done.status is JobStatus.COMPLETE and done.verdict is Overall.PARTIAL
    assert rf.get(queued.task_id) == done


def test_idempotency_key_returns_the_same_job_and_refuses_a_different_body(rf):
    first = rf.submit(
        **PYTHAGORAS,
        proof_level="quick",
        generate_certificate=False,
        idempotency_key="sdk-idem-1",
    )
    again = rf.submit(
        **PYTHAGORAS,
        proof_level="quick",
        generate_certificate=False,
        idempotency_key="sdk-idem-1",
    )
    assert again.task_id == first.task_id
    with pytest.raises(ConflictError) as caught:
        rf.submit(
            **PENCILS,
            proof_level="quick",
            generate_certificate=False,
            idempotency_key="sdk-idem-1",
        )
    assert caught.value.status == 409
    other = rf.submit(**PYTHAGORAS, proof_level="quick", generate_certificate=False)
    assert other.task_id != first.task_id  # no key given: a fresh job every call
    for job in (first, other):  # let them finish so the shared service is idle for the next test
        rf.wait(job.task_id, timeout_s=120)


def test_polling_waits_on_the_server_instead_of_asking_in_a_loop(service):
    gets: list[str] = []

    def count(request: httpx.Request) -> None:
        if request.method == "GET":
            gets.append(str(request.url))

    with httpx.Client(timeout=60, event_hooks={"request": [count]}) as http, ReasonForge(
        api_key=service.api_key, base_url=service.base_url, http_client=http
    ) as client:
        # A formal proof takes seconds: a client polling on its own would ask a dozen times meanwhile.
        job = client.submit(**PYTHAGORAS, proof_level="formal", generate_certificate=False)
        started = time.monotonic()
        done = client.wait(job.task_id, timeout_s=240, via="poll")
        took = time.monotonic() - started
    assert done.status is JobStatus.COMPLETE
    assert gets and all("?wait=" in url for url in gets)
    # One request per long-poll (at most LONG_POLL_S each), not one per short pause.
    assert len(gets) <= 1 + took // protocol.LONG_POLL_S + 1


def test_unknown_task_is_not_found(rf):
    with pytest.raises(NotFoundError) as caught:
        rf.get("0123456789abcdef0123456789abcdef")
    assert caught.value.status == 404 and caught.value.code == "not_found"


def test_wait_times_out_with_the_task_id(rf):
    # A formal proof takes seconds; a 50 ms budget cannot see it finish.
    job = rf.submit(**PYTHAGORAS, proof_level="formal", generate_certificate=False)
    with pytest.raises(VerificationTimeoutError) as caught:
        rf.wait(job.task_id, timeout_s=0.05, via="poll")
    assert caught.value.task_id == job.task_id
    assert "get(" in caught.value.message
    rf.wait(
        job.task_id, timeout_s=240
    )  # let it finish so the shared service is idle for the next test


def test_stats_is_typed(rf):
    stats = rf.stats()
    assert isinstance(stats, Stats)


def test_parse_reasoning_chain_feeds_verify(rf):
    completion = {
        "object": "chat.completion",
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "reasoning_content": "Let x = 3 and y = 4.\n\nSo x + y = 7.",
                    "content": "x + y = 7",
                },
            }
        ],
    }
    steps = rf.parse_reasoning_chain(completion)  # the reasoning's two paragraphs, then the visible answer
    assert all(isinstance(s, ReasoningStep) for s in steps) and [
        s.step_id for s in steps
    ] == [1, 2, 3]
    result = rf.verify(
        reasoning_chain=steps,
        domain="mathematics",
        original_query="x = 3, y = 4: what is x + y?",
        claimed_answer="x + y = 7",
        proof_level="quick",
        generate_certificate=False,
        timeout_s=120,
    )
    assert result.status is JobStatus.COMPLETE and result.steps_total == 3


R1_COMPLETION = {
    "object": "chat.completion",
    "choices": [{"index": 0, "message": {
        "role": "assistant",
        "reasoning_content": "Let x = 3 and y = 4.\n\nSo x + y = 7.",
        "content": "The answer is 7.",
    }}],
}


def test_verify_response_sends_the_raw_payload_and_the_server_splits_it(rf):
    result = rf.verify_response(R1_COMPLETION, "mathematics", "x = 3, y = 4: what is x + y?", proof_level="quick",
                                generate_certificate=False, timeout_s=120)
    assert result.status is JobStatus.COMPLETE and result.verdict is Overall.VERIFIED
    assert (result.steps_verified, result.steps_total) == (2, 2)
    wrong = rf.verify_response(R1_COMPLETION, "mathematics", "x = 3, y = 4: what is x + y?", claimed_answer="8",
                               proof_level="quick", generate_certificate=False, timeout_s=120)
    assert wrong.verdict is not Overall.VERIFIED  # the claimed answer is compared with what the chain derived


def test_verify_text_takes_plain_reasoning_and_refuses_other_types(rf):
    result = rf.verify_text("Step 1: Let x = 3 and y = 4.\nStep 2: So x + y = 7.\n#### 7", "mathematics",
                            "x = 3, y = 4: what is x + y?", proof_level="quick", generate_certificate=False,
                            timeout_s=120)
    assert result.verdict is Overall.VERIFIED and result.steps_total == 2
    with pytest.raises(InputError, match="verify_response"):
        rf.verify_text(R1_COMPLETION, "mathematics")
    with pytest.raises(InputError, match="verify_text"):
        rf.verify_response("Let x = 3.", "mathematics")
    with pytest.raises(InputError, match="domain"):
        rf.verify_text("Let x = 3.", "chemistry")
    with pytest.raises(InvalidRequestError, match="no choices"):
        rf.verify_response({"object": "chat.completion", "choices": []}, "mathematics")


def test_a_closed_client_says_so(service):
    with ReasonForge(service.api_key, service.base_url) as rf:
        assert isinstance(rf.stats(), Stats)
    with pytest.raises(ClientClosedError) as caught:
        rf.stats()
    assert "closed" in caught.value.message


def _quick(chain: dict, **fields) -> dict:
    return {**chain, "proof_level": "quick", "generate_certificate": False, **fields}


def test_verify_many_queues_a_batch_and_returns_each_verdict_in_order(rf):
    results = rf.verify_many([_quick(PYTHAGORAS), _quick(PENCILS), _quick(PYTHAGORAS, reference_answer="z = 6")],
                             timeout_s=120)
    assert [r.verdict for r in results] == [Overall.VERIFIED, Overall.PARTIAL, Overall.VERIFIED]
    assert results[2].answer_matches_reference is False
    assert len({r.task_id for r in results}) == 3
    page = rf.list_tasks(limit=2)
    assert len(page.tasks) == 2 and page.next_cursor is not None
    rest = rf.list_tasks(limit=100, cursor=page.next_cursor)
    seen = [t.task_id for t in page.tasks + rest.tasks]
    assert len(seen) == len(set(seen)) and {r.task_id for r in results} <= set(seen)
    assert all(t.status is JobStatus.COMPLETE for t in rf.list_tasks(status="complete", limit=100).tasks)


def test_a_bad_request_in_a_batch_is_refused_before_anything_is_sent(rf):
    with pytest.raises(InputError, match=r"requests\[1\]"):
        rf.submit_many([_quick(PYTHAGORAS), {"domain": "mathematics"}])
    with pytest.raises(InputError, match="at least one"):
        rf.submit_many([])
    with pytest.raises(InputError, match="limit"):
        rf.list_tasks(limit=0)
