"""Signatures verifiable by the documented recipe; secrets generated once, private, per key."""

from __future__ import annotations

import hashlib
import hmac
import re
import stat
import threading
import time
from pathlib import Path

import pytest

from reasonforge.service import webhooks
from reasonforge.service.settings import ServiceSettings
from reasonforge.service.webhooks import (
    SIGNATURE_HEADER,
    TIMESTAMP_HEADER,
    key_webhook_secret,
    sign_payload,
    signature_headers,
    verify_signature,
    webhook_secret,
)
from reasonforge.service.webhooks.signing import WebhookSecretError

README = Path(webhooks.__file__).with_name("README.md")
BODY = b'{"status":"complete","task_id":"t1","verdict":"VERIFIED"}'


def _readme_verifier():
    """The receiver code from the README, executed as a user would paste it."""
    [code] = re.findall(r"```python\n(.*?)```", README.read_text(), re.DOTALL)
    namespace: dict = {}
    exec(compile(code, str(README), "exec"), namespace)
    return namespace["verify_reasonforge_webhook"]


def test_signature_is_hmac_sha256_over_timestamp_dot_body():
    expected = hmac.new(b"s3cret", b"1700000000." + BODY, hashlib.sha256).hexdigest()
    assert sign_payload(b"s3cret", 1700000000, BODY) == expected
    assert sign_payload("s3cret", "1700000000", BODY) == expected
    headers = signature_headers("s3cret", BODY, timestamp=1700000000)
    assert headers == {
        SIGNATURE_HEADER: f"sha256={expected}",
        TIMESTAMP_HEADER: "1700000000",
    }


def test_the_documented_recipe_verifies_our_headers():
    verify = _readme_verifier()
    secret = "whsec_" + "ab" * 32
    headers = signature_headers(secret, BODY)
    assert verify(secret, BODY, headers)
    assert not verify(secret, BODY + b" ", headers)  # body changed in transit
    assert not verify("whsec_other", BODY, headers)
    stale = signature_headers(secret, BODY, timestamp=int(time.time()) - 3600)
    assert not verify(secret, BODY, stale)


def test_verify_signature_checks_body_secret_scheme_and_window():
    now = 1_800_000_000
    headers = signature_headers(b"k", BODY, timestamp=now)
    sig, ts = headers[SIGNATURE_HEADER], headers[TIMESTAMP_HEADER]
    assert verify_signature(b"k", BODY, signature=sig, timestamp=ts, now=now + 299)
    assert verify_signature(
        "k",
        BODY,
        signature=sig.upper().replace("SHA256", "sha256"),
        timestamp=ts,
        now=now,
    )
    assert not verify_signature(
        b"k", BODY, signature=sig, timestamp=ts, now=now + 301
    )  # replayed later
    assert not verify_signature(
        b"k", BODY, signature=sig, timestamp=ts, now=now - 301
    )  # future-dated
    assert not verify_signature(b"k", BODY[:-1], signature=sig, timestamp=ts, now=now)
    assert not verify_signature(b"K", BODY, signature=sig, timestamp=ts, now=now)
    assert not verify_signature(
        b"k", BODY, signature=sig, timestamp=str(now + 1), now=now
    )  # timestamp swapped
    assert not verify_signature(
        b"k", BODY, signature=sig.replace("sha256=", "sha1="), timestamp=ts, now=now
    )
    for bad_sig, bad_ts in (
        (None, ts),
        ("", ts),
        (sig, None),
        (sig, "yesterday"),
        ("sha256=zz\u00e9", ts),
    ):
        assert not verify_signature(
            b"k", BODY, signature=bad_sig, timestamp=bad_ts, now=now
        )
    assert verify_signature(
        b"k", BODY, signature=sig, timestamp=ts, now=now + 3000, tolerance_s=3600
    )


def test_generated_secret_is_private_stable_and_shared_by_racing_processes(tmp_path):
    settings = ServiceSettings(home=tmp_path / "home", webhook_secret=None)
    results: list[bytes] = []
    threads = [
        threading.Thread(target=lambda: results.append(webhook_secret(settings)))
        for _ in range(8)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(results)) == 1 and len(results[0]) >= 40
    path = tmp_path / "home" / "webhook_secret"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert webhook_secret(settings) == results[0]
    assert [p.name for p in path.parent.iterdir()] == [
        "webhook_secret"
    ]  # no temp files left


def test_configured_secret_wins_and_a_damaged_file_is_a_clear_error(tmp_path):
    assert (
        webhook_secret(ServiceSettings(home=tmp_path, webhook_secret="from-env"))
        == b"from-env"
    )
    (tmp_path / "webhook_secret").write_text("short\n")
    with pytest.raises(WebhookSecretError, match="delete it to generate a new one"):
        webhook_secret(ServiceSettings(home=tmp_path, webhook_secret=None))


def test_each_key_has_its_own_signing_secret(tmp_path):
    settings = ServiceSettings(home=tmp_path, webhook_secret="master-secret")
    a, b = (
        key_webhook_secret(settings, "aaaaaaaaaaaa"),
        key_webhook_secret(settings, "bbbbbbbbbbbb"),
    )
    assert a != b and a.startswith(b"whsec_")
    assert key_webhook_secret(settings, "aaaaaaaaaaaa") == a
    rotated = ServiceSettings(home=tmp_path, webhook_secret="rotated-master")
    assert key_webhook_secret(rotated, "aaaaaaaaaaaa") != a
