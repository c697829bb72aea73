"""The frames of `WS /v1/stream`, on which the clients wait for a job (`core`), with a GET as the safety net.

The server's protocol: the upgrade request carries `Authorization: Bearer rf_...`; a
`{"type": "subscribe", "task_ids": [id]}` frame narrows the stream to our task and is answered
with its current state first (so a job that finished before we subscribed is not missed); then
`{"type": "status", "task_id", "status", ..., "response"}` frames follow, with `response` (the
full VerifyResponse) on terminal statuses. A refused key gets `{"type": "error", "error": {...}}`
and a 44xx close code. A socket that cannot open or drops mid-wait falls back to polling; a quiet
socket gets a GET every RECHECK_S, in case an event was lost.
"""

from __future__ import annotations

import json

from reasonforge.boundary.files import DOCUMENT_JSON
from reasonforge.boundary.jsontext import load_json
from reasonforge.errors import InputError
from reasonforge.sdk.errors import error_from_body
from reasonforge.types import JobStatus, VerifyResponse

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
        status = JobStatus(str(frame.get("status")))
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
