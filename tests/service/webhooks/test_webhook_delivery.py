"""Delivery against a real loopback receiver: signed, retried with backoff, recorded, dead-lettered."""

from __future__ import annotations

import json
import socket

import pytest
from sqlalchemy import select

from reasonforge.service.settings import ServiceSettings
from reasonforge.service.webhooks import (
    DELIVERY_HEADER,
    SIGNATURE_HEADER,
    TIMESTAMP_HEADER,
    WebhookAttemptRow,
    WebhookDeadLetterRow,
    WebhookDeliveryRow,
    deliver_webhook,
    key_webhook_secret,
    verify_signature,
)

PAYLOAD = {
    "task_id": "task-1",
    "status": "complete",
    "verdict": "VERIFIED",
    "steps_verified": 4,
    "steps_total": 4,
}


def _settings(tmp_path, **overrides) -> ServiceSettings:
    values = {
        "home": tmp_path,
        "webhook_secret": "master-secret-for-tests",
        "webhook_allow_private": True,  # the receiver is on loopback
        "webhook_backoff_s": 0.05,
        "webhook_max_attempts": 4,
        "webhook_timeout_s": 5.0,
    }
    return ServiceSettings(**{**values, **overrides})


def _attempts(sessions, delivery_id):
    with sessions() as s:
        return s.scalars(
            select(WebhookAttemptRow)
            .where(WebhookAttemptRow.delivery_id == delivery_id)
            .order_by(WebhookAttemptRow.number)
        ).all()


def test_retries_with_backoff_until_the_receiver_recovers(sessions, receiver, tmp_path):
    settings = _settings(tmp_path)
    receiver.script = [(503, {}), (502, {})]  # fails twice, then answers 200
    outcome = deliver_webhook(
        sessions,
        task_id="task-1",
        url=receiver.url(),
        payload=PAYLOAD,
        settings=settings,
        key_id="abcdefghijkl",
    )
    assert (
        outcome.delivered
        and outcome.attempts == 3
        and outcome.status_code == 200
        and not outcome.dead_lettered
    )
    assert len(receiver.requests) == 3
    gaps = [b.at - a.at for a, b in zip(receiver.requests, receiver.requests[1:])]
    assert gaps[0] >= 0.05 and gaps[1] >= 0.10  # 0.05 s, then doubled
    # Every attempt is signed with the key's own secret and verifiable by the receiver.
    secret = key_webhook_secret(settings, "abcdefghijkl")
    for req in receiver.requests:
        assert req.path == "/hook" and req.headers["Content-Type"] == "application/json"
        assert verify_signature(
            secret,
            req.body,
            signature=req.headers[SIGNATURE_HEADER],
            timestamp=req.headers[TIMESTAMP_HEADER],
        )
        assert req.headers[DELIVERY_HEADER] == outcome.delivery_id
        assert json.loads(req.body) == PAYLOAD
    assert not verify_signature(
        b"master-secret-for-tests",
        receiver.requests[0].body,
        signature=receiver.requests[0].headers[SIGNATURE_HEADER],
        timestamp=receiver.requests[0].headers[TIMESTAMP_HEADER],
    )
    rows = _attempts(sessions, outcome.delivery_id)
    assert [(r.number, r.status_code, r.outcome) for r in rows] == [
        (1, 503, "retry"),
        (2, 502, "retry"),
        (3, 200, "delivered"),
    ]
    with sessions() as s:
        delivery = s.get(WebhookDeliveryRow, outcome.delivery_id)
        assert (
            delivery.status == "delivered"
            and delivery.attempts == 3
            and delivery.finished_at is not None
        )
        assert s.scalars(select(WebhookDeadLetterRow)).all() == []


def test_a_delivered_task_is_not_sent_again(sessions, receiver, tmp_path):
    settings = _settings(tmp_path)
    first = deliver_webhook(
        sessions,
        task_id="task-1",
        url=receiver.url(),
        payload=PAYLOAD,
        settings=settings,
    )
    again = deliver_webhook(
        sessions,
        task_id="task-1",
        url=receiver.url(),
        payload=PAYLOAD,
        settings=settings,
    )
    assert first.delivered and again.delivered and again.already_delivered
    assert again.delivery_id == first.delivery_id and len(receiver.requests) == 1


def test_dead_letter_after_exhausting_attempts(sessions, receiver, tmp_path):
    settings = _settings(tmp_path, webhook_max_attempts=3)
    receiver.script = [(500, {})] * 3
    outcome = deliver_webhook(
        sessions,
        task_id="task-9",
        url=receiver.url(),
        payload=PAYLOAD,
        settings=settings,
    )
    assert not outcome.delivered and outcome.dead_lettered and outcome.attempts == 3
    assert outcome.status_code == 500 and "HTTP 500" in outcome.error
    assert len(receiver.requests) == 3
    assert [r.outcome for r in _attempts(sessions, outcome.delivery_id)] == [
        "retry",
        "retry",
        "failed",
    ]
    with sessions() as s:
        [dead] = s.scalars(select(WebhookDeadLetterRow)).all()
        delivery = s.get(WebhookDeliveryRow, outcome.delivery_id)
    assert (
        dead.task_id == "task-9" and dead.attempts == 3 and dead.url == receiver.url()
    )
    assert json.loads(dead.body) == PAYLOAD and "HTTP 500" in dead.last_error
    assert delivery.status == "dead"


def test_client_errors_and_redirects_are_not_retried(sessions, receiver, tmp_path):
    settings = _settings(tmp_path)
    receiver.script = [
        (400, {}),
        (302, {"Location": "http://169.254.169.254/latest/meta-data/"}),
    ]
    bad = deliver_webhook(
        sessions,
        task_id="t-400",
        url=receiver.url(),
        payload=PAYLOAD,
        settings=settings,
    )
    moved = deliver_webhook(
        sessions,
        task_id="t-302",
        url=receiver.url(),
        payload=PAYLOAD,
        settings=settings,
    )
    assert bad.attempts == 1 and bad.dead_lettered and "HTTP 400" in bad.error
    assert moved.attempts == 1 and moved.dead_lettered and "not followed" in moved.error
    assert [r.path for r in receiver.requests] == [
        "/hook",
        "/hook",
    ]  # the redirect target was never requested


def test_429_is_retried_after_the_receivers_retry_after(sessions, receiver, tmp_path):
    # Scheduled waits 0.6 s then 1.2 s; Retry-After stretches a wait up to twice its length.
    settings = _settings(tmp_path, webhook_backoff_s=0.6)
    receiver.script = [(429, {"Retry-After": "1"}), (503, {"Retry-After": "3600"})]
    outcome = deliver_webhook(
        sessions,
        task_id="t-429",
        url=receiver.url(),
        payload=PAYLOAD,
        settings=settings,
    )
    assert outcome.delivered and outcome.attempts == 3
    first, second = (
        b.at - a.at for a, b in zip(receiver.requests, receiver.requests[1:])
    )
    assert first >= 1.0  # the receiver's 1 s, not our 0.6 s
    assert second >= 2.4  # twice 1.2 s; a wait of the hour asked for would outlast the test's timeout


def test_network_errors_are_retried_then_dead_lettered(sessions, tmp_path):
    settings = _settings(tmp_path, webhook_max_attempts=2)
    with socket.socket() as sock:  # bound, never listening: refused, and held so no other test takes the port
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        outcome = deliver_webhook(
            sessions,
            task_id="t-down",
            url=f"http://127.0.0.1:{port}/hook",
            payload=PAYLOAD,
            settings=settings,
        )
    assert (
        outcome.dead_lettered
        and outcome.attempts == 2
        and "ConnectError" in outcome.error
    )
    assert [r.outcome for r in _attempts(sessions, outcome.delivery_id)] == [
        "retry",
        "failed",
    ]


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
def test_private_target_is_refused_at_send_time(sessions, receiver, tmp_path, host):
    # The address is re-checked before sending (a name can resolve differently than at submission).
    settings = _settings(tmp_path, webhook_allow_private=False)
    url = f"http://{host}:{receiver.port}/hook"
    outcome = deliver_webhook(
        sessions, task_id="t-ssrf", url=url, payload=PAYLOAD, settings=settings
    )
    assert (
        outcome.dead_lettered and outcome.attempts == 1 and "loopback" in outcome.error
    )
    assert receiver.requests == []  # nothing ever reached the private address


def test_connection_is_pinned_to_the_checked_address_and_keeps_the_host_header(
    sessions, receiver, tmp_path
):
    url = f"http://localhost:{receiver.port}/hook?tenant=7"
    outcome = deliver_webhook(
        sessions,
        task_id="t-host",
        url=url,
        payload=PAYLOAD,
        settings=_settings(tmp_path),
    )
    assert outcome.delivered
    [req] = receiver.requests
    assert (
        req.headers["Host"] == f"localhost:{receiver.port}"
        and req.path == "/hook?tenant=7"
    )
