"""The stream hub wakes a long-poll at its task's end, whatever the timing of the hub's own reads."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path

from sqlalchemy import event, insert

from reasonforge.service.jobs import make_context, store
from reasonforge.service.jobs.tables import JobEventRow
from reasonforge.service.settings import ServiceSettings
from reasonforge.service.stream import StreamHub
from reasonforge.types import VerifyRequest

REQUEST = VerifyRequest(domain="mathematics", reasoning_chain=[{"step_id": 1, "content": "2 + 2 = 4"}])
HANG_GUARD_S = 20.0  # a woken long-poll answers within a poll interval; this only stops a missed wake-up hanging


def _context(home: Path):
    context = make_context(ServiceSettings(home=home, build_keys_at_start=False))
    with context.sessionmaker.begin() as session:
        store.insert_job(session, task_id="t1", owner_key_id="k1", request=REQUEST, idempotency_key=None,
                         cost_credits=None)
    return context


def test_a_long_poll_that_starts_while_the_hub_reads_is_woken_by_the_end_that_read_sees(tmp_path: Path) -> None:
    """The hub's read of new events is held until the task has ended: it was asked before the long-poll began
    watching, and returns the end. Who listens must be decided after that read, or the end is skipped for good."""
    context = _context(tmp_path)
    armed, entered, release = threading.Event(), threading.Event(), threading.Event()

    @event.listens_for(context.engine, "before_cursor_execute")
    def hold(conn, cursor, statement, parameters, ctx, executemany) -> None:
        if armed.is_set() and "FROM service_job_events" in statement and "ORDER BY" in statement:
            armed.clear()
            entered.set()
            release.wait(HANG_GUARD_S)

    async def scenario() -> dict | None:
        hub = StreamHub(context.sessionmaker, "http://127.0.0.1")
        hub.start()
        await hub.subscribe("someone-else")  # the hub reads events while anyone listens
        armed.set()
        assert await asyncio.to_thread(entered.wait, HANG_GUARD_S), "the hub never read events"
        ended = await hub.watch("t1")  # the long-poll's own read of t1 comes next, and sees it running
        assert store.cancel(context.sessionmaker, "t1", "k1")
        release.set()
        try:
            return await asyncio.wait_for(ended, HANG_GUARD_S)
        finally:
            await hub.stop()

    woken = asyncio.run(scenario())
    assert woken is not None and woken["task_id"] == "t1" and woken["status"] == "cancelled"
    assert woken["response"]["status"] == "cancelled"


def test_an_end_committed_after_a_newer_event_still_wakes_the_long_poll(tmp_path: Path) -> None:
    """Event ids are allocated before commit: an end whose id is below the newest committed event when the hub
    starts (it was still committing) must not fall under the hub's starting point."""
    context = _context(tmp_path)
    with context.sessionmaker.begin() as session:
        first = session.query(JobEventRow.id).scalar()
        # id first + 1 is allocated to t1's end, which has not committed yet; a later event of another job has
        session.execute(insert(JobEventRow), {"id": first + 2, "task_id": "t2", "owner_key_id": "k2",
                                              "status": "queued", "attempt": 0, "at": time.time()})

    async def scenario() -> dict | None:
        hub = StreamHub(context.sessionmaker, "http://127.0.0.1")
        hub.start()
        ended = await hub.watch("t1")
        with context.sessionmaker.begin() as session:  # t1's end commits now, under its earlier id
            session.execute(insert(JobEventRow), {"id": first + 1, "task_id": "t1", "owner_key_id": "k1",
                                                  "status": "cancelled", "attempt": 0, "at": time.time()})
        try:
            return await asyncio.wait_for(ended, HANG_GUARD_S)
        finally:
            await hub.stop()

    woken = asyncio.run(scenario())
    assert woken is not None and woken["task_id"] == "t1" and woken["status"] == "cancelled"
