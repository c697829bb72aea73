"""Deliver a signed completion webhook with retries; every attempt and any dead letter is recorded."""

from __future__ import annotations

import json
import time
import uuid
from datetime import datetime

import httpx
from pydantic import BaseModel
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from reasonforge.service.accounts.tables import utcnow
from reasonforge.service.errors import ValidationFailedError
from reasonforge.service.settings import ServiceSettings
from reasonforge.service.webhooks.signing import (
    DELIVERY_HEADER,
    signature_headers,
    signing_secret,
)
from reasonforge.service.webhooks.tables import (
    WebhookAttemptRow,
    WebhookDeadLetterRow,
    WebhookDeliveryRow,
)
from reasonforge.service.webhooks.urls import (
    CallbackTarget,
    CallbackUnresolvableError,
    check_callback,
)

PENDING, DELIVERED, DEAD = "pending", "delivered", "dead"
_SNIPPET_BYTES = 512
_USER_AGENT = "ReasonForge-Webhooks/1"


class DeliveryOutcome(BaseModel):
    """What became of one webhook delivery."""

    delivery_id: str
    task_id: str
    delivered: bool
    attempts: int
    status_code: int | None = None
    error: str | None = None
    dead_lettered: bool = False
    already_delivered: bool = False


class _Attempt(BaseModel):
    """The result of one POST."""

    status_code: int | None = None
    error: str | None = None
    retryable: bool = False
    retry_after_s: float | None = None

    @property
    def delivered(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300


def deliver_webhook(
    sessionmaker: sessionmaker[Session],
    *,
    task_id: str,
    url: str,
    payload: dict,
    settings: ServiceSettings,
    key_id: str | None = None,
) -> DeliveryOutcome:
    """POST `payload` as signed JSON to `url`, retrying network errors, 5xx and 429 with backoff.

    Signed with the key's own webhook secret when `key_id` is given. The address is re-resolved
    and re-checked before every attempt (DNS rebinding) and the connection is pinned to it;
    redirects are never followed. A task already delivered to `url` is not sent again.
    """
    body = json.dumps(payload, sort_keys=True, separators=(",", ":")).encode("utf-8")
    secret = signing_secret(
        settings, key_id
    )  # before any row: an unusable secret records nothing
    with sessionmaker() as session:
        done = session.scalar(
            select(WebhookDeliveryRow).where(
                WebhookDeliveryRow.task_id == task_id,
                WebhookDeliveryRow.url == url,
                WebhookDeliveryRow.status == DELIVERED,
            )
        )
        if done is not None:
            return DeliveryOutcome(
                delivery_id=done.id,
                task_id=task_id,
                delivered=True,
                attempts=done.attempts,
                status_code=done.last_status_code,
                already_delivered=True,
            )
        delivery = WebhookDeliveryRow(
            id=uuid.uuid4().hex,
            task_id=task_id,
            url=url,
            key_id=key_id,
            status=PENDING,
            attempts=0,
            created_at=utcnow(),
        )
        session.add(delivery)
        session.commit()
        delivery_id = delivery.id
    timeout = httpx.Timeout(settings.webhook_timeout_s)
    attempt = _Attempt()
    number = 0
    with httpx.Client(
        follow_redirects=False, trust_env=False, timeout=timeout
    ) as client:
        for number in range(1, settings.webhook_max_attempts + 1):
            started, clock = utcnow(), time.monotonic()
            attempt = _post(
                client,
                url,
                body,
                secret,
                delivery_id,
                allow_private=settings.webhook_allow_private,
            )
            elapsed_ms = int((time.monotonic() - clock) * 1000)
            last = (
                attempt.delivered
                or not attempt.retryable
                or number == settings.webhook_max_attempts
            )
            outcome = (
                DELIVERED if attempt.delivered else ("failed" if last else "retry")
            )
            _record_attempt(
                sessionmaker, delivery_id, number, started, elapsed_ms, attempt, outcome
            )
            if last:
                break
            delay = settings.webhook_backoff_s * 2 ** (number - 1)
            if attempt.retry_after_s is not None:
                # Honoured up to twice our own delay, so a delivery's total time stays bounded
                # (the job store leases a delivery for about the length of the backoff schedule).
                delay = max(delay, min(attempt.retry_after_s, 2 * delay))
            time.sleep(delay)
    if attempt.delivered:
        _finish(sessionmaker, delivery_id, DELIVERED)
        return DeliveryOutcome(
            delivery_id=delivery_id,
            task_id=task_id,
            delivered=True,
            attempts=number,
            status_code=attempt.status_code,
        )
    _dead_letter(
        sessionmaker,
        delivery_id,
        task_id,
        url,
        body,
        number,
        attempt.error or "unknown error",
    )
    return DeliveryOutcome(
        delivery_id=delivery_id,
        task_id=task_id,
        delivered=False,
        attempts=number,
        status_code=attempt.status_code,
        error=attempt.error,
        dead_lettered=True,
    )


def _post(
    client: httpx.Client,
    url: str,
    body: bytes,
    secret: bytes,
    delivery_id: str,
    *,
    allow_private: bool,
) -> _Attempt:
    """One signed POST to a freshly resolved and checked address."""
    try:
        target = check_callback(url, allow_private=allow_private)
    except CallbackUnresolvableError as exc:
        return _Attempt(error=exc.message, retryable=True)
    except ValidationFailedError as exc:
        return _Attempt(error=exc.message, retryable=False)
    pinned, headers, extensions = pin_target(target)
    headers.update(signature_headers(secret, body))
    headers.update(
        {
            DELIVERY_HEADER: delivery_id,
            "Content-Type": "application/json",
            "User-Agent": _USER_AGENT,
            "Accept-Encoding": "identity",  # the snippet is read raw; no decompression of untrusted data
        }
    )
    try:
        with client.stream(
            "POST", pinned, content=body, headers=headers, extensions=extensions
        ) as response:
            status = response.status_code
            snippet = _read_snippet(response)
            location = response.headers.get("location", "")
            retry_after = _retry_after(response.headers.get("retry-after"))
    except httpx.HTTPError as exc:
        return _Attempt(error=f"{exc.__class__.__name__}: {exc}"[:500], retryable=True)
    if 200 <= status < 300:
        return _Attempt(status_code=status)
    if 300 <= status < 400:
        return _Attempt(
            status_code=status,
            error=f"HTTP {status} redirect to {location[:200]!r} not followed; point callback_url at the final endpoint",
        )
    retryable = status >= 500 or status == 429
    return _Attempt(
        status_code=status,
        error=f"HTTP {status}: {snippet}",
        retryable=retryable,
        retry_after_s=retry_after,
    )


def pin_target(
    target: CallbackTarget,
) -> tuple[httpx.URL, dict[str, str], dict[str, str]]:
    """Connect to the checked address while keeping the URL's Host header and TLS server name."""
    original = httpx.URL(target.url)
    pinned = original.copy_with(host=target.addresses[0])
    headers = {"Host": original.netloc.decode("ascii")}
    extensions = {"sni_hostname": target.host} if target.scheme == "https" else {}
    return pinned, headers, extensions


def _read_snippet(response: httpx.Response) -> str:
    # Only a little of the body is read: a receiver must not be able to make us download gigabytes.
    chunks: list[bytes] = []
    size = 0
    for chunk in response.iter_raw():
        chunks.append(chunk)
        size += len(chunk)
        if size >= _SNIPPET_BYTES:
            break
    return b"".join(chunks)[:_SNIPPET_BYTES].decode("utf-8", "replace").strip()


def _retry_after(value: str | None) -> float | None:
    if value is None:
        return None
    try:
        seconds = float(value.strip())
    except ValueError:
        return None  # HTTP-date form: fall back to our own backoff
    return seconds if seconds >= 0 else None


def _record_attempt(
    sessionmaker: sessionmaker[Session],
    delivery_id: str,
    number: int,
    started: datetime,
    elapsed_ms: int,
    attempt: _Attempt,
    outcome: str,
) -> None:
    with sessionmaker() as session:
        session.add(
            WebhookAttemptRow(
                delivery_id=delivery_id,
                number=number,
                started_at=started,
                elapsed_ms=elapsed_ms,
                status_code=attempt.status_code,
                error=attempt.error,
                outcome=outcome,
            )
        )
        delivery = session.get_one(WebhookDeliveryRow, delivery_id)
        delivery.attempts = number
        delivery.last_status_code = attempt.status_code
        delivery.last_error = attempt.error
        session.commit()


def _finish(sessionmaker: sessionmaker[Session], delivery_id: str, status: str) -> None:
    with sessionmaker() as session:
        delivery = session.get_one(WebhookDeliveryRow, delivery_id)
        delivery.status = status
        delivery.finished_at = utcnow()
        session.commit()


def _dead_letter(
    sessionmaker: sessionmaker[Session],
    delivery_id: str,
    task_id: str,
    url: str,
    body: bytes,
    attempts: int,
    error: str,
) -> None:
    with sessionmaker() as session:
        session.add(
            WebhookDeadLetterRow(
                delivery_id=delivery_id,
                task_id=task_id,
                url=url,
                body=body.decode("utf-8"),
                attempts=attempts,
                last_error=error,
                created_at=utcnow(),
            )
        )
        delivery = session.get_one(WebhookDeliveryRow, delivery_id)
        delivery.status = DEAD
        delivery.finished_at = utcnow()
        session.commit()
