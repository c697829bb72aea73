"""The SDK against the scaled-out service: PostgreSQL store, Celery worker on Redis, events across processes."""

from __future__ import annotations

import asyncio

import pytest

from reasonforge.sdk import AsyncReasonForge, ReasonForge
from reasonforge.types import JobStatus, Overall

from sdk_support import PENCILS, PYTHAGORAS, live_service
from servers import ServerUnavailable, running_postgres, running_redis

QUICK = {"proof_level": "quick", "generate_certificate": False, "timeout_s": 180}


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_stream_and_poll_waits_when_a_celery_worker_runs_the_jobs(tmp_path):
    try:
        with running_postgres() as postgres, running_redis() as redis:
            database_url, redis_url = postgres.create_database(), redis.url(1)
            with live_service(
                tmp_path, database_url=database_url, redis_url=redis_url
            ) as handle:
                assert handle.scaled and handle.workers
                with ReasonForge(handle.api_key, handle.base_url) as rf:
                    streamed = rf.verify(**PENCILS, **QUICK, wait_via="stream")
                    stats_before = rf.stats()

                async def polled():
                    async with AsyncReasonForge(handle.api_key, handle.base_url) as arf:
                        return await arf.verify(**PYTHAGORAS, **QUICK, wait_via="poll")

                done = asyncio.run(polled())
    except ServerUnavailable as exc:
        pytest.fail(str(exc), pytrace=False)
    assert streamed.status is JobStatus.COMPLETE and streamed.verdict is Overall.PARTIAL
    assert streamed.failure_points[0].cascade_impact == [4]
    assert done.verdict is Overall.VERIFIED
    assert stats_before.queue == "celery" and stats_before.jobs["complete"] == 1
