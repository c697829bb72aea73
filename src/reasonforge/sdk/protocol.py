"""What the sync and async clients share: configuration, retry and polling schedules, response parsing."""

from __future__ import annotations

import os
from collections.abc import Iterator
from importlib.metadata import PackageNotFoundError, version
from typing import TypeVar
from urllib.parse import urlsplit

import httpx
from pydantic import BaseModel, ValidationError

from reasonforge.boundary.files import DOCUMENT_JSON
from reasonforge.boundary.jsontext import load_json
from reasonforge.errors import InputError
from reasonforge.sdk.errors import (
    APIConnectionError,
    ClientClosedError,
    InvalidResponseError,
    VerificationTimeoutError,
    error_from_response,
)
from reasonforge.types import JobStatus

DEFAULT_BASE_URL = "http://127.0.0.1:8000"
API_KEY_ENV = "REASONFORGE_API_KEY"
BASE_URL_ENV = "REASONFORGE_BASE_URL"
TERMINAL_STATUSES = frozenset(
    {JobStatus.COMPLETE, JobStatus.FAILED, JobStatus.CANCELLED}
)
# Worth another try: the server is busy or restarting, or the key is throttled for a moment.
RETRYABLE_STATUSES = frozenset({429, 502, 503, 504})
MAX_RETRY_WAIT_S = 30.0

Model = TypeVar("Model", bound=BaseModel)


def user_agent() -> str:
    """`reasonforge-python/<version>`, so server logs can tell SDK traffic apart."""
    try:
        return f"reasonforge-python/{version('reasonforge')}"
    except PackageNotFoundError:
        return "reasonforge-python"


def resolve_base_url(base_url: str | None) -> str:
    """The argument, else $REASONFORGE_BASE_URL, else the local default; must be http(s) with a host."""
    url = (
        (base_url or os.environ.get(BASE_URL_ENV) or DEFAULT_BASE_URL)
        .strip()
        .rstrip("/")
    )
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InputError(
            f"base_url {url!r} is not an http(s) URL with a host; use e.g. {DEFAULT_BASE_URL!r}",
            field="base_url",
        )
    if parts.query or parts.fragment:
        raise InputError(
            f"base_url {url!r} must not carry a query or fragment", field="base_url"
        )
    return url


def resolve_api_key(api_key: str | None) -> str | None:
    """The argument, else $REASONFORGE_API_KEY; None means no Authorization header (auth-free servers)."""
    key = api_key if api_key is not None else os.environ.get(API_KEY_ENV)
    if key is None:
        return None
    key = key.strip()
    if not key or any(c.isspace() or not c.isprintable() for c in key):
        raise InputError(
            "api_key is empty or contains whitespace; pass the key `reasonforge keys create` printed (rf_...)",
            field="api_key",
        )
    return key


def default_headers(api_key: str | None) -> dict[str, str]:
    """Headers every request carries."""
    headers = {"Accept": "application/json", "User-Agent": user_agent()}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    return headers


def stream_url(base_url: str) -> str:
    """The WebSocket URL of `/v1/stream` for an http(s) base URL."""
    scheme, rest = base_url.split("://", 1)
    return f"{'wss' if scheme == 'https' else 'ws'}://{rest}/v1/stream"


def retry_delay(attempt: int, retry_after: float | None) -> float:
    """Seconds before retry number `attempt` (0-based): the server's Retry-After, else exponential."""
    if retry_after is not None:
        return min(retry_after, MAX_RETRY_WAIT_S)
    return min(0.25 * 2**attempt, MAX_RETRY_WAIT_S)


def check_open(closed: bool, method: str, path: str) -> None:
    """Refuse a call on a closed client with a message that says how to go on."""
    if closed:
        raise ClientClosedError(
            f"{method} {path}: this client is closed (its `with` block ended or close() "
            "was called); make a new one"
        )


def retry_or_return(
    what: str, attempt: int, max_retries: int, outcome: httpx.Response | httpx.TransportError
) -> httpx.Response | float:
    """After try number `attempt` of `what`: the response when it succeeded, else the seconds to wait
    before trying again; raises the error when it is not worth retrying or the retries are spent."""
    if isinstance(outcome, httpx.TransportError):
        if attempt < max_retries:
            return retry_delay(attempt, None)
        raise APIConnectionError(f"{what}: {type(outcome).__name__}: {str(outcome) or 'no response'}")
    if outcome.status_code < 400:
        return outcome
    error = error_from_response(outcome.status_code, outcome.headers, outcome.content)
    if attempt < max_retries and outcome.status_code in RETRYABLE_STATUSES:
        return retry_delay(attempt, error.retry_after)
    raise error


LONG_POLL_S = 25.0
"""The most a poll asks the server to hold it (`GET /v1/verify/{id}?wait=`); the server allows 60."""


def long_poll_s(remaining_s: float, request_timeout_s: float) -> float:
    """How long one poll may ask the server to hold: within the deadline, the cap, and the HTTP timeout's margin."""
    return max(0.0, min(LONG_POLL_S, remaining_s, request_timeout_s - 5.0))


def answered_early(asked_s: float, took_s: float) -> bool:
    """A long-poll answered well before its wait without an end (a stopping or older server): back off first."""
    return asked_s <= 0 or took_s < asked_s / 2


def poll_delays(
    first: float = 0.1, factor: float = 1.5, ceiling: float = 2.0
) -> Iterator[float]:
    """Waits between status polls: quick at first (quick checks take milliseconds), then every `ceiling` s."""
    delay = first
    while True:
        yield delay
        delay = min(delay * factor, ceiling)


def parse_body(model: type[Model], body: bytes, what: str) -> Model:
    """A 2xx body as `model`; a server that answers something else gets a clear InvalidResponseError."""
    try:
        return model.model_validate(load_json(body, what="the body", limits=DOCUMENT_JSON))
    except (InputError, ValidationError) as exc:  # bounded before decoding: a deep body must not crash the caller
        reason = (
            str(exc).splitlines()[0]
            if not isinstance(exc, ValidationError)
            else _first_error(exc)
        )
        raise InvalidResponseError(
            f"{what}: the server's answer is not a valid {model.__name__} ({reason}); "
            "check that base_url points at a ReasonForge API"
        ) from None


def _first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    return f"{'.'.join(str(p) for p in err['loc']) or 'body'}: {err['msg']}"


def check_path_id(value: str, name: str) -> str:
    """A task or certificate id that is safe to put in a URL path segment."""
    if (
        not isinstance(value, str)
        or not value
        or len(value) > 200
        or not all(c.isalnum() or c in "-_.:" for c in value)
    ):
        raise InputError(
            f"{name} {value!r} is not a valid id (letters, digits, '-', '_', '.', ':')",
            field=name,
        )
    if value in (".", ".."):
        raise InputError(f"{name} {value!r} is not a valid id", field=name)
    return value


def timeout_error(task_id: str, status: JobStatus | None) -> VerificationTimeoutError:
    """The error for a wait that ran out of time, naming the last status seen."""
    seen = status.value if status is not None else None
    return VerificationTimeoutError(
        f"task {task_id} is still {seen or 'running'} after the timeout; "
        f"raise timeout_s or call get({task_id!r}) later",
        task_id=task_id,
        last_status=seen,
    )


def check_wait_via(via: str) -> str:
    """`stream` or `poll`; anything else is a caller's typo, not a reason to pick one silently."""
    if via not in ("stream", "poll"):
        raise InputError(
            f"wait_via must be 'stream' or 'poll', not {via!r}", field="wait_via"
        )
    return via
