"""API keys: `rf_<id>_<secret>`, stored as a SHA-256 hash, scoped, tiered and revocable."""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import string
from collections.abc import Iterable
from datetime import datetime

from pydantic import BaseModel
from sqlalchemy import select
from sqlalchemy.orm import Session

from reasonforge.errors import InputError
from reasonforge.service.accounts.scopes import Scope
from reasonforge.service.accounts.tables import ApiKeyRow, as_utc, utcnow
from reasonforge.service.accounts.tiers import Tier
from reasonforge.service.errors import ForbiddenError, NotFoundError, UnauthorizedError

KEY_PREFIX = "rf_"
_ID_ALPHABET = string.ascii_lowercase + string.digits
_ID_LENGTH = 12
_SECRET_BYTES = 32  # token_urlsafe(32) -> 43 characters, 256 bits
_KEY_RE = re.compile(r"rf_([a-z0-9]{12})_([A-Za-z0-9_-]{43})")
_ID_RE = re.compile(r"(?:rf_)?([a-z0-9]{12})(?:_.*)?", re.DOTALL)
_CREATE_HINT = "create one with `reasonforge keys create --name NAME`"
_AUTH_HEADERS = {"WWW-Authenticate": 'Bearer realm="reasonforge"'}
# Compared against when the key id is unknown, so a miss costs the same as a wrong secret.
_DUMMY_HASH = hashlib.sha256(b"reasonforge-no-such-key").hexdigest()


class Principal(BaseModel):
    """The authenticated caller of an API request."""

    key_id: str
    name: str
    scopes: list[str]
    tier: Tier


class ApiKeyRecord(BaseModel):
    """A stored key as listed to its owner: everything except the secret."""

    key_id: str
    prefix: str
    name: str
    scopes: list[str]
    tier: Tier
    created_at: datetime
    revoked_at: datetime | None = None

    @property
    def revoked(self) -> bool:
        """Whether the key was revoked."""
        return self.revoked_at is not None


def hash_key(plaintext: str) -> str:
    """SHA-256 hex of a full key; enough for 256-bit random secrets (no dictionary to attack)."""
    return hashlib.sha256(plaintext.encode("utf-8")).hexdigest()


def create_key(
    session: Session,
    name: str,
    *,
    scopes: Iterable[str] = (Scope.VERIFY.value, Scope.READ.value),
    tier: Tier | str = Tier.FREE,
) -> tuple[str, ApiKeyRecord]:
    """Create and commit a key; returns the plaintext (shown once, never stored) and its record."""
    clean_name = _check_name(name)
    scope_list = _check_scopes(scopes)
    tier_value = _check_tier(tier)
    key_id = "".join(secrets.choice(_ID_ALPHABET) for _ in range(_ID_LENGTH))
    plaintext = f"{KEY_PREFIX}{key_id}_{secrets.token_urlsafe(_SECRET_BYTES)}"
    row = ApiKeyRow(
        key_id=key_id,
        name=clean_name,
        key_hash=hash_key(plaintext),
        scopes=",".join(scope_list),
        tier=tier_value.value,
        created_at=utcnow(),
        charge_seq=0,
    )
    session.add(row)
    session.commit()
    return plaintext, to_record(row)


def list_keys(session: Session) -> list[ApiKeyRecord]:
    """Every key, oldest first, revoked ones included."""
    rows = session.scalars(
        select(ApiKeyRow).order_by(ApiKeyRow.created_at, ApiKeyRow.key_id)
    )
    return [to_record(row) for row in rows]


def get_key(session: Session, key_id_or_prefix: str) -> ApiKeyRow:
    """The row for a key id, its `rf_` prefix, or a full key; NotFoundError when there is none."""
    match = (
        _ID_RE.fullmatch(key_id_or_prefix.strip())
        if isinstance(key_id_or_prefix, str)
        else None
    )
    row = session.get(ApiKeyRow, match.group(1)) if match else None
    if row is None:
        raise NotFoundError(
            f"no API key with id {key_id_or_prefix!r}; `reasonforge keys list` shows the ids",
            field="key_id",
        )
    return row


def revoke_key(session: Session, key_id_or_prefix: str) -> ApiKeyRecord:
    """Revoke and commit (idempotent: a revoked key keeps its first revocation time)."""
    row = get_key(session, key_id_or_prefix)
    if row.revoked_at is None:
        row.revoked_at = utcnow()
        session.commit()
    return to_record(row)


def authenticate(session: Session, authorization: str | None) -> Principal:
    """The principal behind an `Authorization: Bearer rf_…` header; UnauthorizedError otherwise."""
    if authorization is None or not authorization.strip():
        raise _unauthorized(
            f"missing API key: send the header 'Authorization: Bearer rf_…' ({_CREATE_HINT})"
        )
    scheme, _, token = authorization.strip().partition(" ")
    if scheme.lower() != "bearer":
        raise _unauthorized(
            f"the Authorization header must use the Bearer scheme ('Authorization: Bearer rf_…'), not {scheme[:20]!r}"
        )
    match = _KEY_RE.fullmatch(token.strip())
    if match is None:
        # The token itself is never echoed: it may be some other service's secret.
        raise _unauthorized(
            f"invalid API key: not a ReasonForge key (they look like 'rf_<id>_<secret>'); {_CREATE_HINT}"
        )
    row = session.get(ApiKeyRow, match.group(1))
    expected = row.key_hash if row is not None else _DUMMY_HASH
    if not hmac.compare_digest(expected, hash_key(match.group(0))) or row is None:
        raise _unauthorized(
            f"invalid API key: no such key or wrong secret; {_CREATE_HINT}"
        )
    if row.revoked_at is not None:
        revoked = as_utc(row.revoked_at).strftime("%Y-%m-%d %H:%M UTC")
        raise _unauthorized(
            f"API key {KEY_PREFIX}{row.key_id} was revoked on {revoked}; {_CREATE_HINT}"
        )
    return Principal(
        key_id=row.key_id,
        name=row.name,
        scopes=_split_scopes(row.scopes),
        tier=Tier(row.tier),
    )


def require_scope(principal: Principal, scope: str) -> None:
    """Raise ForbiddenError unless the principal holds `scope` (or `admin`)."""
    if scope in principal.scopes or Scope.ADMIN.value in principal.scopes:
        return
    held = ", ".join(principal.scopes) or "none"
    raise ForbiddenError(
        f"API key {KEY_PREFIX}{principal.key_id} lacks the {scope!r} scope (it has: {held}); "
        f"create a key with `reasonforge keys create --name NAME --scope {scope}`",
        field="scope",
    )


def to_record(row: ApiKeyRow) -> ApiKeyRecord:
    """The listable view of a key row."""
    return ApiKeyRecord(
        key_id=row.key_id,
        prefix=f"{KEY_PREFIX}{row.key_id}",
        name=row.name,
        scopes=_split_scopes(row.scopes),
        tier=Tier(row.tier),
        created_at=as_utc(row.created_at),
        revoked_at=as_utc(row.revoked_at) if row.revoked_at else None,
    )


def _unauthorized(message: str) -> UnauthorizedError:
    return UnauthorizedError(
        message, field="authorization", headers=dict(_AUTH_HEADERS)
    )


def _split_scopes(text: str) -> list[str]:
    return [part for part in text.split(",") if part]


def _check_name(name: str) -> str:
    clean = name.strip() if isinstance(name, str) else ""
    if not clean or len(clean) > 100 or not clean.isprintable():
        raise InputError("key name must be 1-100 printable characters", field="name")
    return clean


def _check_scopes(scopes: Iterable[str]) -> list[str]:
    if isinstance(scopes, str):
        scopes = [scopes]
    allowed = [scope.value for scope in Scope]
    chosen: list[str] = []
    for scope in scopes:
        value = scope.value if isinstance(scope, Scope) else str(scope).strip().lower()
        if value not in allowed:
            raise InputError(
                f"unknown scope {scope!r}; use any of {', '.join(allowed)}",
                field="scopes",
            )
        if value not in chosen:
            chosen.append(value)
    if not chosen:
        raise InputError(
            f"a key needs at least one scope ({', '.join(allowed)})", field="scopes"
        )
    return chosen


def _check_tier(tier: Tier | str) -> Tier:
    try:
        return Tier(tier)
    except ValueError as exc:
        allowed = ", ".join(t.value for t in Tier)
        raise InputError(
            f"unknown tier {tier!r}; use one of {allowed}", field="tier"
        ) from exc
