"""Verdict signatures: they survive the verdict's JSON, break on any edit, and the key file stays private."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from reasonforge.certificate import CertificateError
from reasonforge.certificate.verdict_signature import (
    SignatureState,
    parse_public_keys,
    public_key_of,
    read_key,
    read_or_create_key,
    sign_verdict,
    signature_state,
)
from reasonforge.chain import parse_request
from reasonforge.errors import InputError
from reasonforge.pipeline.run import verify_chain
from reasonforge.types import VerificationVerdict

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "whale.json"
SEED = bytes(range(32))


@pytest.fixture(scope="module")
def verdict() -> VerificationVerdict:
    return verify_chain(parse_request(EXAMPLE.read_bytes()))


def test_a_signature_survives_the_json_and_breaks_on_any_edit(verdict) -> None:
    assert signature_state(verdict) is SignatureState.ABSENT
    signed = sign_verdict(verdict, SEED)
    assert signed.signature is not None and signed.signature.public_key == public_key_of(SEED)
    assert signature_state(signed) is SignatureState.VALID
    read_back = VerificationVerdict.model_validate_json(signed.model_dump_json(indent=2))
    assert signature_state(read_back) is SignatureState.VALID
    edits = [
        {"verification_time_ms": signed.verification_time_ms + 1},
        {"task_id": "another"},
        {"step_verdicts": [signed.step_verdicts[0].model_copy(update={"details": {"note": "added"}}),
                           *signed.step_verdicts[1:]]},
    ]
    for edit in edits:
        assert signature_state(read_back.model_copy(update=edit)) is SignatureState.INVALID, edit
    # another key's signature with this key's name on it does not pass
    other = sign_verdict(verdict, bytes(32))
    assert other.signature is not None
    swapped = other.model_copy(update={"signature": other.signature.model_copy(
        update={"public_key": signed.signature.public_key})})
    assert signature_state(swapped) is SignatureState.INVALID
    # signing again replaces the signature
    assert sign_verdict(other, SEED) == signed


def test_the_key_file_is_created_once_private_and_never_quoted(tmp_path) -> None:
    path = tmp_path / "keys" / "verdict_signing_key"
    seed = read_or_create_key(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert read_or_create_key(path) == seed == read_key(path)
    path.write_text("this is not a key, but it is secret\n")
    with pytest.raises(CertificateError, match="does not hold a 32-byte hex seed") as bad:
        read_key(path)
    assert "secret" not in bad.value.message
    with pytest.raises(CertificateError, match="no verdict signing key at"):
        read_key(tmp_path / "missing")


def test_public_keys_are_read_strictly() -> None:
    a, b = public_key_of(SEED), public_key_of(bytes(32))
    assert parse_public_keys([f" {a.upper()}, 0x{b}", "", a], field="--trust") == {a, b}
    for bad in ("xyz", a[:-2], a + "00", SEED.hex() + "g"):
        with pytest.raises(InputError, match="--trust: .* is not an Ed25519 public key"):
            parse_public_keys([bad], field="--trust")
