"""API keys: stored only as a hash, 401 for missing/wrong/revoked keys, 403 for a missing scope."""

from __future__ import annotations

import hashlib
import re

import pytest
from sqlalchemy import select, text

from reasonforge.errors import InputError
from reasonforge.service.accounts import (
    ApiKeyRow,
    Tier,
    authenticate,
    create_key,
    list_keys,
    require_scope,
    revoke_key,
)
from reasonforge.service.errors import ForbiddenError, NotFoundError, UnauthorizedError

KEY_SHAPE = re.compile(r"rf_[a-z0-9]{12}_[A-Za-z0-9_-]{43}")


def test_key_is_shown_once_and_only_its_hash_is_stored(
    sessions, database_url, tmp_path
):
    with sessions() as s:
        plaintext, record = create_key(s, "ci", tier=Tier.PRO)
    assert KEY_SHAPE.fullmatch(plaintext)
    assert record.prefix == f"rf_{record.key_id}" and plaintext.startswith(
        record.prefix + "_"
    )
    secret = plaintext.split("_", 2)[2]
    with sessions() as s:
        row = s.scalar(select(ApiKeyRow))
        stored = [str(v) for v in s.execute(text("SELECT * FROM api_keys")).one()]
    assert row.key_hash == hashlib.sha256(plaintext.encode()).hexdigest()
    assert not any(secret in value for value in stored)
    if database_url.startswith("sqlite"):
        # Not in the database file either (no plaintext left behind in pages or the WAL).
        for path in tmp_path.glob("service.db*"):
            assert secret.encode() not in path.read_bytes()


def test_keys_are_unique_and_listed_without_secrets(sessions):
    with sessions() as s:
        keys = [create_key(s, f"k{i}")[0] for i in range(5)]
        records = list_keys(s)
    assert len(set(keys)) == 5
    assert [r.name for r in records] == [f"k{i}" for i in range(5)]
    dumped = " ".join(r.model_dump_json() for r in records)
    assert not any(k.split("_", 2)[2] in dumped for k in keys)


def test_authenticate_returns_the_principal(sessions):
    with sessions() as s:
        plaintext, record = create_key(s, "app", scopes=["verify"], tier="enterprise")
        principal = authenticate(s, f"Bearer {plaintext}")
        # The scheme is case-insensitive and surrounding blanks are tolerated.
        assert authenticate(s, f"  bearer   {plaintext} ") == principal
    assert principal.key_id == record.key_id
    assert principal.scopes == ["verify"] and principal.tier is Tier.ENTERPRISE


@pytest.mark.parametrize(
    ("header", "expect"),
    [
        (None, "missing API key"),
        ("", "missing API key"),
        ("Basic dXNlcjpwYXNz", "Bearer scheme"),
        ("Bearer sk-not-ours-0123456789", "not a ReasonForge key"),
        ("Bearer rf_short", "not a ReasonForge key"),
    ],
)
def test_missing_or_malformed_keys_are_401(sessions, header, expect):
    with sessions() as s, pytest.raises(UnauthorizedError) as info:
        authenticate(s, header)
    err = info.value
    assert err.status_code == 401 and expect in err.message
    assert err.headers["WWW-Authenticate"].startswith("Bearer")
    assert err.body()["error"]["code"] == "unauthorized"
    if header and " " in header:
        assert header.split(" ", 1)[1] not in err.message  # the token is never echoed


def test_wrong_secret_and_unknown_id_are_401(sessions):
    with sessions() as s:
        plaintext, _ = create_key(s, "app")
        key_id, secret = plaintext[3:15], plaintext[16:]
        flipped = secret[:-1] + ("A" if secret[-1] != "A" else "B")
        for bad in (f"rf_{key_id}_{flipped}", f"rf_{'z' * 12}_{secret}"):
            with pytest.raises(UnauthorizedError, match="no such key or wrong secret"):
                authenticate(s, f"Bearer {bad}")


def test_revoked_key_is_401_and_revocation_is_idempotent(sessions):
    with sessions() as s:
        plaintext, record = create_key(s, "app")
        authenticate(s, f"Bearer {plaintext}")
        first = revoke_key(s, record.prefix)
        again = revoke_key(s, record.key_id)
        with pytest.raises(UnauthorizedError, match="was revoked"):
            authenticate(s, f"Bearer {plaintext}")
    assert first.revoked and again.revoked_at == first.revoked_at


def test_revoking_an_unknown_key_names_it(sessions):
    with sessions() as s, pytest.raises(NotFoundError, match="keys list"):
        revoke_key(s, "rf_doesnotexist")


def test_scopes_are_enforced_and_admin_implies_all(sessions):
    with sessions() as s:
        reader, _ = create_key(s, "reader", scopes=["read"])
        admin, _ = create_key(s, "admin", scopes=["admin"])
        reader_p = authenticate(s, f"Bearer {reader}")
        admin_p = authenticate(s, f"Bearer {admin}")
    require_scope(reader_p, "read")
    with pytest.raises(ForbiddenError) as info:
        require_scope(reader_p, "verify")
    assert (
        info.value.status_code == 403
        and "lacks the 'verify' scope" in info.value.message
    )
    for scope in ("verify", "read", "admin"):
        require_scope(admin_p, scope)


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"name": "  "}, "name"),
        ({"name": "x" * 101}, "name"),
        ({"name": "ok", "scopes": ["root"]}, "scopes"),
        ({"name": "ok", "scopes": []}, "scopes"),
        ({"name": "ok", "tier": "gold"}, "tier"),
    ],
)
def test_bad_key_parameters_are_input_errors(sessions, kwargs, field):
    kwargs = dict(kwargs)
    name = kwargs.pop("name")
    with sessions() as s, pytest.raises(InputError) as info:
        create_key(s, name, **kwargs)
    assert info.value.field == field
