"""Webhook signatures: hex HMAC-SHA256 over `"{timestamp}." + body`, sent with the timestamp."""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import time
from pathlib import Path

from reasonforge.errors import ReasonForgeError
from reasonforge.service.settings import ServiceSettings

SIGNATURE_HEADER = "X-ReasonForge-Signature"
TIMESTAMP_HEADER = "X-ReasonForge-Timestamp"
DELIVERY_HEADER = "X-ReasonForge-Delivery"
SECRET_FILE = "webhook_secret"
DEFAULT_TOLERANCE_S = 300
_MIN_FILE_SECRET = 32


class WebhookSecretError(ReasonForgeError):
    """The webhook secret file is unusable."""

    code = "webhook_secret_error"


def sign_payload(secret: bytes | str, timestamp: int | str, body: bytes) -> str:
    """Hex HMAC-SHA256 of `f"{timestamp}.".encode() + body` under `secret`."""
    key = secret.encode("utf-8") if isinstance(secret, str) else secret
    return hmac.new(
        key, f"{timestamp}.".encode("ascii") + body, hashlib.sha256
    ).hexdigest()


def signature_headers(
    secret: bytes | str, body: bytes, *, timestamp: int | None = None
) -> dict[str, str]:
    """The signature and timestamp headers for one delivery attempt."""
    stamp = int(time.time()) if timestamp is None else int(timestamp)
    return {
        SIGNATURE_HEADER: f"sha256={sign_payload(secret, stamp, body)}",
        TIMESTAMP_HEADER: str(stamp),
    }


def verify_signature(
    secret: bytes | str,
    body: bytes,
    *,
    signature: str | None,
    timestamp: str | int | None,
    tolerance_s: int = DEFAULT_TOLERANCE_S,
    now: float | None = None,
) -> bool:
    """True iff `signature` (`sha256=<hex>`) signs `timestamp` + raw `body` and the timestamp is fresh."""
    if not signature or timestamp is None:
        return False
    try:
        stamp = int(str(timestamp).strip())
    except ValueError:
        return False
    current = time.time() if now is None else now
    if abs(current - stamp) > tolerance_s:
        return False  # stale or future-dated: a replay of an old delivery
    scheme, _, given = signature.strip().partition("=")
    if scheme.strip().lower() != "sha256":
        return False
    expected = sign_payload(secret, stamp, body)
    return hmac.compare_digest(
        expected.encode("ascii"), given.strip().lower().encode("ascii", "replace")
    )


def webhook_secret(settings: ServiceSettings) -> bytes:
    """The master webhook key: REASONFORGE_WEBHOOK_SECRET, else a random one kept in `home`."""
    if settings.webhook_secret:
        return settings.webhook_secret.encode("utf-8")
    return _file_secret(Path(settings.home) / SECRET_FILE)


def key_webhook_secret(settings: ServiceSettings, key_id: str) -> bytes:
    """The signing secret of one API key's webhooks, derived from the master key.

    Each customer verifies with their own secret, so no customer can forge another's webhooks.
    """
    derived = hmac.new(
        webhook_secret(settings),
        f"reasonforge-webhook:{key_id}".encode(),
        hashlib.sha256,
    )
    return f"whsec_{derived.hexdigest()}".encode("ascii")


def signing_secret(settings: ServiceSettings, key_id: str | None) -> bytes:
    """The secret a delivery is signed with: the key's own when known, the master secret otherwise."""
    return key_webhook_secret(settings, key_id) if key_id else webhook_secret(settings)


def _file_secret(path: Path) -> bytes:
    if not path.exists():
        _create_secret_file(path)
    try:
        text = path.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise WebhookSecretError(
            f"cannot read the webhook secret {path}: {exc}"
        ) from exc
    if len(text) < _MIN_FILE_SECRET:
        raise WebhookSecretError(
            f"the webhook secret file {path} holds fewer than {_MIN_FILE_SECRET} characters; "
            "delete it to generate a new one or set REASONFORGE_WEBHOOK_SECRET"
        )
    return text.encode("utf-8")


def _create_secret_file(path: Path) -> None:
    # Written to a private temporary file and hard-linked into place: readers never see a partial
    # secret, and when two processes race the first link wins and both then read the same key.
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(secrets.token_urlsafe(32) + "\n")
        try:
            os.link(tmp, path)
        except FileExistsError:
            pass
    finally:
        tmp.unlink(missing_ok=True)
