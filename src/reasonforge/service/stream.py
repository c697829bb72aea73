"""`WS /v1/stream`: live status events for the caller's tasks.

Protocol (JSON text frames):
- Authenticate with the `Authorization: Bearer rf_…` header on the upgrade request, or, where a
  client cannot set headers, send `{"type": "auth", "authorization": "Bearer rf_…"}` as the first
  frame within 10 seconds. The server answers `{"type": "ready", "key_id": …}`; a refused key gets
  `{"type": "error", "error": {code, message, field}}` and close code 4401 (4403 scope, 4429 rate).
- By default every status change of the caller's tasks is sent. `{"type": "subscribe", "task_ids":
  [...]}` narrows the stream to those tasks and first sends each one's current state, so a client
  never misses a completion that happened before it subscribed.
- Events: `{"type": "status", "task_id", "status", "attempt", "at", "message", "response"}`;
  `response` (the task's `VerifyResponse`) is present in snapshots and on terminal statuses.

Every API process runs one hub that polls the store's event table (so events written by Celery
workers on other machines arrive too) and fans them out to its connections.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable

from sqlalchemy import func, select
from sqlalchemy.orm import sessionmaker
from starlette.websockets import WebSocket, WebSocketDisconnect

from reasonforge.chain import load_json
from reasonforge.errors import InputError
from reasonforge.service.errors import ServiceError, ValidationFailedError
from reasonforge.service.jobs import store, to_response
from reasonforge.service.jobs.tables import JobEventRow, JobRow
from reasonforge.types import JobStatus

log = logging.getLogger(__name__)

POLL_S = 0.2
GAP_WAIT_S = 5.0
"""An event id below the newest one seen that has not appeared may belong to a transaction still
committing (ids are allocated before commit); it is waited for this long, then given up (a rollback)."""
START_WINDOW = 256
"""A hub that starts (or restarts after idling) also waits for ids this far below the newest committed one:
an event whose id was allocated before that one may commit after it (PostgreSQL sequences), and a long-poll
that read its task just before that commit must still be woken by it. Wider than the transactions that can
be in flight at once."""
AUTH_TIMEOUT_S = 10.0
MAX_SUBSCRIBE = 1000
_TERMINAL = {
    s.value for s in (JobStatus.COMPLETE, JobStatus.FAILED, JobStatus.CANCELLED)
}
_CLOSE_CODES = {401: 4401, 403: 4403, 429: 4429}


class _Cursor:
    """Which event ids were delivered, tolerating ids that commit out of order."""

    def __init__(self, start: int, present: set[int] | None = None) -> None:
        self.low = start  # every id <= low is done
        self.seen: set[int] = set(present or ())  # ids above low already committed when the cursor started
        self.gaps: dict[int, float] = {}

    def accept(self, event_id: int) -> bool:
        """True the first time an id above the low-water mark is offered."""
        if event_id <= self.low or event_id in self.seen:
            return False
        self.seen.add(event_id)
        return True

    def advance(self, now: float) -> None:
        """Move the low-water mark over delivered ids and over gaps that waited long enough."""
        top = max(self.seen, default=self.low)
        for missing in range(self.low + 1, top):
            if missing not in self.seen:
                self.gaps.setdefault(missing, now)
        while self.low < top:
            nxt = self.low + 1
            if nxt in self.seen:
                self.seen.discard(nxt)
            elif now - self.gaps.get(nxt, now) < GAP_WAIT_S:
                break
            self.gaps.pop(nxt, None)
            self.low = nxt


class StreamHub:
    """Polls new job events and hands each to the queues subscribed to its owner."""

    def __init__(self, sm: sessionmaker, public_base_url: str) -> None:
        self._sm = sm
        self._base = public_base_url
        self._subscribers: dict[str, set[asyncio.Queue]] = {}
        # Long-polls wait for one task's end, not for all of its owner's events: a waiter per task.
        self._watchers: dict[str, set[asyncio.Future]] = {}
        self._closing = False
        self._cursor: _Cursor | None = None
        self._task: asyncio.Task | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._poke: asyncio.Event | None = None

    def start(self) -> None:
        """Start polling on the running event loop."""
        self._loop = asyncio.get_running_loop()
        self._poke = poke = asyncio.Event()
        self._task = self._loop.create_task(self._run(poke), name="reasonforge-stream-hub")

    def wake(self, _task_id: str = "") -> None:
        """Poll now rather than at the next interval (a job of this process ended); callable from any thread."""
        loop, poke = self._loop, self._poke
        if loop is None or poke is None:
            return
        with contextlib.suppress(RuntimeError):  # the loop closed while the server stops
            loop.call_soon_threadsafe(poke.set)

    async def stop(self) -> None:
        """Stop polling."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def _ensure_cursor(self) -> None:
        if self._cursor is None:
            # Start after the newest event: a new subscriber gets the present, not the history. The ids just below
            # it that have not committed yet are still to come (gaps, waited for like any other).
            self._cursor = _Cursor(*await asyncio.to_thread(self._start))

    async def watch(self, task_id: str) -> asyncio.Future:
        """A future set to the terminal event of `task_id` (with its `response`) when one arrives from now on, or
        to None when the server starts shutting down (a long-poll then answers with the task as it stands)."""
        await self._ensure_cursor()
        future = asyncio.get_running_loop().create_future()
        if self._closing:
            future.set_result(None)
        else:
            self._watchers.setdefault(task_id, set()).add(future)
        return future

    def closing(self) -> None:
        """The server is stopping: release every long-poll now; callable from any thread."""
        loop = self._loop
        if loop is not None:
            with contextlib.suppress(RuntimeError):  # the loop closed already
                loop.call_soon_threadsafe(self._release_watchers)

    def _release_watchers(self) -> None:
        self._closing = True
        watchers, self._watchers = self._watchers, {}
        for futures in watchers.values():
            for future in futures:
                if not future.done():
                    future.set_result(None)

    def unwatch(self, task_id: str, future: asyncio.Future) -> None:
        """Stop watching (and drop the future)."""
        futures = self._watchers.get(task_id)
        if futures is not None:
            futures.discard(future)
            if not futures:
                self._watchers.pop(task_id, None)
        future.cancel()

    async def subscribe(self, owner_key_id: str) -> asyncio.Queue:
        """A queue receiving every event of `owner_key_id`'s tasks from now on."""
        await self._ensure_cursor()
        queue: asyncio.Queue = asyncio.Queue(maxsize=10_000)
        self._subscribers.setdefault(owner_key_id, set()).add(queue)
        return queue

    def unsubscribe(self, owner_key_id: str, queue: asyncio.Queue) -> None:
        """Stop delivering to `queue`."""
        queues = self._subscribers.get(owner_key_id)
        if queues is not None:
            queues.discard(queue)
            if not queues:
                self._subscribers.pop(owner_key_id, None)

    async def _run(self, poke: asyncio.Event) -> None:
        while True:
            try:
                if self._subscribers or self._watchers:
                    await self._poll()
                else:
                    self._cursor = (
                        None  # idle: the next subscriber starts from the newest event
                    )
            except Exception:  # keep streaming through a database blip
                log.warning("stream poll failed", exc_info=True)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(poke.wait(), POLL_S)
            poke.clear()

    async def _poll(self) -> None:
        cursor = self._cursor
        if cursor is None:
            return
        events = await asyncio.to_thread(self._fetch, cursor, cursor.low)
        for event in events:
            if event["status"] in _TERMINAL:
                for future in self._watchers.pop(event["task_id"], ()):
                    if not future.done():
                        future.set_result(event)
            for queue in list(self._subscribers.get(event["owner"], ())):
                with contextlib.suppress(
                    asyncio.QueueFull
                ):  # a stalled client loses events, not the hub
                    queue.put_nowait(event)
        cursor.advance(time.monotonic())

    def _start(self) -> tuple[int, set[int]]:
        """The low-water mark of a new cursor and the ids above it that have committed already."""
        with self._sm() as session:
            newest = session.scalar(select(func.max(JobEventRow.id))) or 0
            low = max(0, newest - START_WINDOW)
            return low, set(session.scalars(select(JobEventRow.id).where(JobEventRow.id > low)))

    def _fetch(self, cursor: _Cursor, low: int) -> list[dict]:
        out: list[dict] = []
        with self._sm() as session:
            rows = store.events_after(session, low)
            fresh = [row for row in rows if cursor.accept(row.id)]
            for row in fresh:
                # Who listens is read now, after the query, not before it: a long-poll that started watching while
                # the query ran read its task before this event committed, and is woken by it. (Membership tests
                # of the loop's dicts from this thread are atomic; the loop only adds and removes keys.)
                if row.owner_key_id not in self._subscribers and row.task_id not in self._watchers:
                    continue
                event = event_body(
                    row.task_id, row.status, row.attempt, row.at, row.message
                )
                if row.status in _TERMINAL:
                    job = session.get(JobRow, row.task_id)
                    if job is not None:
                        event["response"] = to_response(job, self._base).model_dump(
                            mode="json"
                        )
                out.append({"owner": row.owner_key_id, **event})
        return out


def event_body(
    task_id: str, status: str, attempt: int, at: float, message: str | None
) -> dict:
    """The `status` event frame (without `response`)."""
    return {
        "type": "status",
        "task_id": task_id,
        "status": status,
        "attempt": attempt,
        "at": at,
        "message": message,
    }


async def _send_error(ws: WebSocket, error: ServiceError, *, close: bool) -> None:
    await ws.send_json({"type": "error", "error": error.to_dict()})
    if close:
        await ws.close(
            code=_CLOSE_CODES.get(error.status_code, 4400), reason=error.message[:120]
        )


async def _next_text(ws: WebSocket) -> str:
    """The next frame as text (binary frames decoded as UTF-8); WebSocketDisconnect when the client left."""
    message = await ws.receive()
    if message["type"] == "websocket.disconnect":
        raise WebSocketDisconnect(message.get("code", 1000))
    if message.get("text") is not None:
        return message["text"]
    return (message.get("bytes") or b"").decode("utf-8", errors="replace")


async def _authorization(ws: WebSocket) -> str | None:
    header = ws.headers.get("authorization")
    if header:
        return header
    try:
        first = await asyncio.wait_for(_next_text(ws), AUTH_TIMEOUT_S)
        frame = load_json(first, what="frame")  # bounded: a frame of 100 000 '[' must not recurse
    except (TimeoutError, ValueError, InputError):
        return None
    if (
        isinstance(frame, dict)
        and frame.get("type") == "auth"
        and isinstance(frame.get("authorization"), str)
    ):
        return frame["authorization"]
    return None


async def serve_stream(
    ws: WebSocket,
    hub: StreamHub,
    sm: sessionmaker,
    public_base_url: str,
    authenticate: Callable[[str | None], str],
) -> None:
    """Run one stream connection; `authenticate(header)` returns the owner key id or raises ServiceError."""
    await ws.accept()
    try:
        owner = await asyncio.to_thread(authenticate, await _authorization(ws))
    except ServiceError as exc:
        await _send_error(ws, exc, close=True)
        return
    except WebSocketDisconnect:
        return
    queue = await hub.subscribe(owner)
    only: set[str] | None = None
    await ws.send_json({"type": "ready", "key_id": owner})
    reader = asyncio.create_task(_next_text(ws))
    getter = asyncio.create_task(queue.get())
    try:
        while True:
            done, _ = await asyncio.wait(
                {reader, getter}, return_when=asyncio.FIRST_COMPLETED
            )
            if getter in done:
                event = getter.result()
                getter = asyncio.create_task(queue.get())
                if only is None or event["task_id"] in only:
                    await ws.send_json({k: v for k, v in event.items() if k != "owner"})
            if reader in done:
                text = reader.result()
                reader = asyncio.create_task(_next_text(ws))
                try:
                    wanted = _parse_subscribe(text)
                except ValidationFailedError as exc:
                    await _send_error(ws, exc, close=False)
                    continue
                only = (only or set()) | set(wanted)
                for frame in await asyncio.to_thread(
                    _snapshots, sm, owner, wanted, public_base_url
                ):
                    await ws.send_json(frame)
    except WebSocketDisconnect:
        pass
    finally:
        hub.unsubscribe(owner, queue)
        for task in (reader, getter):
            task.cancel()
            with contextlib.suppress(
                asyncio.CancelledError, WebSocketDisconnect, Exception
            ):
                await task


def _parse_subscribe(text: str) -> list[str]:
    try:
        frame = load_json(text, what="frame")
    except InputError as exc:
        raise ValidationFailedError(
            "frames must be JSON objects", field="frame"
        ) from exc
    if not isinstance(frame, dict) or frame.get("type") != "subscribe":
        raise ValidationFailedError(
            'expected {"type": "subscribe", "task_ids": [...]}', field="type"
        )
    ids = frame.get("task_ids")
    if (
        not isinstance(ids, list)
        or not ids
        or not all(isinstance(i, str) and 0 < len(i) <= 64 for i in ids)
    ):
        raise ValidationFailedError(
            "task_ids must be a non-empty list of task id strings", field="task_ids"
        )
    if len(ids) > MAX_SUBSCRIBE:
        raise ValidationFailedError(
            f"subscribe to at most {MAX_SUBSCRIBE} tasks per frame", field="task_ids"
        )
    return ids


def _snapshots(
    sm: sessionmaker, owner: str, task_ids: list[str], public_base_url: str
) -> list[dict]:
    frames = []
    with sm() as session:
        for task_id in task_ids:
            job = session.get(JobRow, task_id)
            if job is None or job.owner_key_id != owner:
                frames.append(
                    {
                        "type": "error",
                        "error": {
                            "code": "not_found",
                            "message": f"no task {task_id} for this API key",
                            "field": "task_ids",
                        },
                    }
                )
                continue
            frame = event_body(task_id, job.status, job.attempts, job.updated_at, None)
            frame["response"] = to_response(job, public_base_url).model_dump(
                mode="json"
            )
            frames.append(frame)
    return frames
