"""Waiting for a job on `WS /v1/stream`, with a GET as the safety net.

The server's protocol: the upgrade request carries `Authorization: Bearer rf_...`; a
`{"type": "subscribe", "task_ids": [id]}` frame narrows the stream to our task and is answered
with its current state first (so a job that finished before we subscribed is not missed); then
`{"type": "status", "task_id", "status", ..., "response"}` frames follow, with `response` (the
full VerifyResponse) on terminal statuses. A refused key gets `{"type": "error", "error": {...}}`
and a 44xx close code. A socket that cannot open or drops mid-wait falls back to polling; a quiet
socket gets a GET every RECHECK_S, in case an event was lost.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import TYPE_CHECKING

from reasonforge.boundary.files import DOCUMENT_JSON
from reasonforge.boundary.jsontext import load_json
from reasonforge.errors import InputError
from reasonforge.sdk import protocol
from reasonforge.sdk.errors import error_from_body
from reasonforge.types import JobStatus, VerifyResponse

if TYPE_CHECKING:
    from reasonforge.sdk.async_client import AsyncReasonForge
    from reasonforge.sdk.client import ReasonForge

RECHECK_S = 15.0
OPEN_TIMEOUT_S = 10.0
MAX_FRAME_BYTES = 1 << 20
# The service's error codes on the stream, as the HTTP statuses they stand for.
_STATUS_OF_CODE = {
    "unauthorized": 401,
    "forbidden": 403,
    "not_found": 404,
    "rate_limited": 429,
}

Update = tuple[JobStatus, VerifyResponse | None]


def subscribe_frame(task_id: str) -> str:
    """The frame asking for one task's events (and its current state first)."""
    return json.dumps({"type": "subscribe", "task_ids": [task_id]})


def read_frame(message: str | bytes, task_id: str) -> Update | None:
    """What a frame says about `task_id`: its status and, when sent, its full response.

    None for frames about anything else (other tasks, `ready`, unreadable text); an error frame
    raises the matching ReasonForgeAPIError (a refused key, a task this key does not own).
    """
    try:
        frame = load_json(message, what="the frame", limits=DOCUMENT_JSON)
    except InputError:  # not JSON, or nested deeper than any frame (bounded before decoding)
        return None
    if not isinstance(frame, dict):
        return None
    if frame.get("type") == "error":
        raw_error = frame.get("error")
        error = raw_error if isinstance(raw_error, dict) else {}
        raise error_from_body(_STATUS_OF_CODE.get(str(error.get("code")), 400), {"error": error}, {})
    if frame.get("type") != "status" or frame.get("task_id") != task_id:
        return None
    try:
        status = JobStatus(frame.get("status"))
    except ValueError:
        return None
    response = None
    if isinstance(frame.get("response"), dict):
        try:
            response = VerifyResponse.model_validate(frame["response"])
        except ValueError:
            response = None  # an odd snapshot is not a result: a GET re-reads it
        if response is not None and response.task_id != task_id:
            response = None
    return status, response


def _connect_args(client: ReasonForge | AsyncReasonForge, deadline: float) -> dict:
    headers = protocol.default_headers(client._api_key)
    headers.pop("Accept", None)
    return {
        "uri": protocol.stream_url(client.base_url),
        "additional_headers": headers,
        "open_timeout": max(0.1, min(OPEN_TIMEOUT_S, deadline - time.monotonic())),
        "max_size": MAX_FRAME_BYTES,
        # No client pings: a server busy proving can miss their deadline and the socket would be
        # dropped for nothing; a quiet socket is covered by the RECHECK_S GET instead.
        "ping_interval": None,
        "user_agent_header": None,
    }


def wait_sync(client: ReasonForge, task_id: str, deadline: float) -> VerifyResponse:
    """Block on the stream until `task_id` is complete, failed or cancelled."""
    from websockets.exceptions import ConnectionClosed, WebSocketException
    from websockets.sync.client import connect

    task_id = protocol.check_path_id(task_id, "task_id")
    try:
        socket = connect(**_connect_args(client, deadline))
    except (OSError, WebSocketException, TimeoutError):
        return client._poll(
            task_id, deadline
        )  # no stream here (proxy, old server): poll instead
    last: JobStatus | None = None
    with socket:
        try:
            socket.send(subscribe_frame(task_id))
        except (OSError, ConnectionClosed):
            return client._poll(task_id, deadline)
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise protocol.timeout_error(task_id, last)
            try:
                message = socket.recv(timeout=min(RECHECK_S, remaining))
            except TimeoutError:
                job = client.get(task_id)
                if job.status in protocol.TERMINAL_STATUSES:
                    return job
                last = job.status
                continue
            except (OSError, ConnectionClosed):
                return client._poll(task_id, deadline)
            update = read_frame(message, task_id)
            if update is None:
                continue
            last, response = update
            if last in protocol.TERMINAL_STATUSES:
                return (
                    response
                    if response is not None and response.status is last
                    else client.get(task_id)
                )


async def wait_async(
    client: AsyncReasonForge, task_id: str, deadline: float
) -> VerifyResponse:
    """Await the stream until `task_id` is complete, failed or cancelled."""
    from websockets.asyncio.client import connect
    from websockets.exceptions import ConnectionClosed, WebSocketException

    task_id = protocol.check_path_id(task_id, "task_id")
    try:
        socket = await connect(**_connect_args(client, deadline))
    except (OSError, WebSocketException, TimeoutError):
        return await client._poll(task_id, deadline)
    last: JobStatus | None = None
    async with socket:
        try:
            await socket.send(subscribe_frame(task_id))
        except (OSError, ConnectionClosed):
            return await client._poll(task_id, deadline)
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise protocol.timeout_error(task_id, last)
            try:
                # Cancelling recv() on timeout loses nothing (websockets >= 13 guarantees it).
                message = await asyncio.wait_for(
                    socket.recv(), timeout=min(RECHECK_S, remaining)
                )
            except TimeoutError:
                job = await client.get(task_id)
                if job.status in protocol.TERMINAL_STATUSES:
                    return job
                last = job.status
                continue
            except (OSError, ConnectionClosed):
                return await client._poll(task_id, deadline)
            update = read_frame(message, task_id)
            if update is None:
                continue
            last, response = update
            if last in protocol.TERMINAL_STATUSES:
                if response is not None and response.status is last:
                    return response
                return await client.get(task_id)
