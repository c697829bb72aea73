"""AsyncReasonForge against a live service: concurrent verifications, stream and poll waits, errors."""

from __future__ import annotations

import asyncio

import pytest

from reasonforge import AsyncReasonForge
from reasonforge.sdk import AuthenticationError, JobStatus, NotFoundError, Stats
from reasonforge.types import Overall

from sdk_support import PENCILS, PYTHAGORAS

QUICK = {"proof_level": "quick", "generate_certificate": False, "timeout_s": 120}


def test_concurrent_verifications(service):
    async def main():
        async with AsyncReasonForge(
            api_key=service.api_key, base_url=service.base_url
        ) as rf:
            return await asyncio.gather(
                rf.verify(**PYTHAGORAS, **QUICK, wait_via="stream"),
                rf.verify(**PENCILS, **QUICK, wait_via="stream"),
                rf.verify(**PYTHAGORAS, **QUICK, wait_via="poll"),
                rf.verify(**PENCILS, **QUICK, wait_via="poll"),
            )

    results = asyncio.run(main())
    assert [r.verdict for r in results] == [
        Overall.VERIFIED,
        Overall.PARTIAL,
        Overall.VERIFIED,
        Overall.PARTIAL,
    ], [r.failure_points for r in results]
    assert all(r.status is JobStatus.COMPLETE for r in results)
    assert len({r.task_id for r in results}) == 4


def test_submit_get_stats_and_errors(service):
    async def main():
        async with AsyncReasonForge(
            api_key=service.api_key, base_url=service.base_url
        ) as rf:
            job = await rf.submit(
                **PENCILS, proof_level="quick", generate_certificate=False
            )
            done = await rf.wait(job.task_id, timeout_s=120)
            assert (
                done.verdict is Overall.PARTIAL and done.failure_points[0].step_id == 3
            )
            assert (await rf.get(job.task_id)) == done
            assert isinstance(await rf.stats(), Stats)
            with pytest.raises(NotFoundError):
                await rf.get("ffffffffffffffffffffffffffffffff")
        async with AsyncReasonForge(
            api_key="rf_revoked_or_never_issued", base_url=service.base_url
        ) as bad:
            with pytest.raises(AuthenticationError):
                await bad.stats()

    asyncio.run(main())


def test_verify_text_and_verify_response(service):
    completion = {"object": "chat.completion", "choices": [{"index": 0, "message": {
        "role": "assistant", "content": "<think>Let x = 3 and y = 4.\n\nSo x + y = 7.</think>The answer is 7."}}]}

    async def main():
        async with AsyncReasonForge(api_key=service.api_key, base_url=service.base_url) as rf:
            return await asyncio.gather(
                rf.verify_text("1. Let x = 3 and y = 4.\n2. So x + y = 8.", "mathematics", "x = 3, y = 4: x + y?",
                               **QUICK),
                rf.verify_response(completion, "mathematics", "x = 3, y = 4: what is x + y?", **QUICK),
            )

    text, response = asyncio.run(main())
    assert text.verdict is not Overall.VERIFIED and text.failure_points[0].step_id == 2
    assert response.verdict is Overall.VERIFIED and response.steps_total == 2


def test_verify_many_and_list_tasks(service):
    async def main():
        async with AsyncReasonForge(api_key=service.api_key, base_url=service.base_url) as rf:
            results = await rf.verify_many([{**PYTHAGORAS, **{k: v for k, v in QUICK.items() if k != "timeout_s"}},
                                            {**PENCILS, "proof_level": "quick", "generate_certificate": False}],
                                           timeout_s=120)
            page = await rf.list_tasks(limit=100)
            return results, page

    results, page = asyncio.run(main())
    assert [r.verdict for r in results] == [Overall.VERIFIED, Overall.PARTIAL]
    assert {r.task_id for r in results} <= {t.task_id for t in page.tasks}
