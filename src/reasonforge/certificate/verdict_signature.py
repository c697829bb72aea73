"""Ed25519 signatures on verdicts by the service that computed them, and the key file it signs with.

A `verdict_digest` authenticates nothing: its recipe is public, so whoever edits a verdict recomputes it. A
signature can only be made with the signer's private key, so a reader who trusts that key knows the verdict is
the one its holder computed. The signature covers the whole verdict, not only what the digest hashes: the
messages, counterexamples and failure report a page shows beside the statuses are covered too.

    signed bytes = CONTEXT ‖ sha256(canonical JSON of the verdict's JSON, every field but `signature`)

The key file holds the 32-byte seed in hex, owner-only (0600); its contents never leave it (errors name the path).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
from collections.abc import Iterable
from enum import StrEnum
from pathlib import Path

from nacl.exceptions import BadSignatureError
from nacl.signing import SigningKey, VerifyKey

from reasonforge.certificate.common import CertificateError
from reasonforge.chain.hashing import canonical_json
from reasonforge.errors import InputError
from reasonforge.types import VerdictSignature, VerificationVerdict

__all__ = ["CONTEXT", "SignatureState", "parse_public_keys", "public_key_of", "read_key",
           "read_or_create_key", "sign_verdict", "signature_state", "signed_bytes"]

CONTEXT = b"reasonforge/verdict-signature/v1:"
"""Prefixed to what is signed, so a verdict signature can never be replayed as any other signature of the key."""

_PUBLIC_KEY = re.compile(r"[0-9a-f]{64}")
_SEED = re.compile(r"[0-9a-f]{64}")


class SignatureState(StrEnum):
    """What a verdict's signature says, before asking whether its key is trusted."""

    ABSENT = "absent"  # the verdict carries none
    INVALID = "invalid"  # it does not sign this verdict: edited after signing, or made up
    VALID = "valid"  # made with the private key of `signature.public_key` over exactly this verdict


def signed_bytes(verdict: VerificationVerdict) -> bytes:
    """What a signature of `verdict` signs: the context and the sha256 of its canonical JSON, signature aside.

    Read back from the verdict's own JSON, so a verdict parsed from its file gives the bytes it was signed with."""
    body = json.loads(verdict.model_dump_json(exclude={"signature"}))
    return CONTEXT + hashlib.sha256(canonical_json(body)).digest()


def public_key_of(seed: bytes) -> str:
    """The hex Ed25519 public key of a 32-byte seed (what a reader trusts; safe to publish)."""
    return SigningKey(seed).verify_key.encode().hex()


def sign_verdict(verdict: VerificationVerdict, seed: bytes) -> VerificationVerdict:
    """`verdict` carrying its signature by the key of `seed` (any signature it carried is replaced)."""
    unsigned = verdict.model_copy(update={"signature": None})
    key = SigningKey(seed)
    signed = key.sign(signed_bytes(unsigned))
    return unsigned.model_copy(update={"signature": VerdictSignature(
        public_key=key.verify_key.encode().hex(), signature=signed.signature.hex())})


def signature_state(verdict: VerificationVerdict) -> SignatureState:
    """ABSENT, INVALID or VALID: whether `verdict.signature` signs exactly this verdict."""
    signature = verdict.signature
    if signature is None:
        return SignatureState.ABSENT
    try:
        VerifyKey(bytes.fromhex(signature.public_key)).verify(signed_bytes(verdict),
                                                              bytes.fromhex(signature.signature))
    except (BadSignatureError, ValueError):
        return SignatureState.INVALID
    return SignatureState.VALID


def parse_public_keys(values: Iterable[str], *, field: str) -> frozenset[str]:
    """Hex Ed25519 public keys, one or more per value (separated by commas or spaces), lower-cased; InputError
    naming `field` and the value for anything else."""
    keys: set[str] = set()
    for value in values:
        for word in re.split(r"[\s,]+", value.strip()):
            if not word:
                continue
            key = word.lower().removeprefix("0x")
            if _PUBLIC_KEY.fullmatch(key) is None:
                raise InputError(f"{field}: '{word[:80]}' is not an Ed25519 public key (64 hex digits, as "
                                 "`reasonforge verdict-key` or GET /v1/verdict-key prints it)", field=field)
            keys.add(key)
    return frozenset(keys)


def read_key(path: Path) -> bytes:
    """The seed in the key file at `path`; CertificateError naming the path (never the contents) when unusable."""
    try:
        text = path.read_text(encoding="ascii").strip()
    except FileNotFoundError:
        raise CertificateError(f"no verdict signing key at {path}: start the service once (it creates one) or "
                               "point REASONFORGE_VERDICT_SIGNING_KEY at the key file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise CertificateError(f"cannot read the verdict signing key {path} ({type(exc).__name__})") from None
    if _SEED.fullmatch(text) is None:
        raise CertificateError(f"the verdict signing key file {path} does not hold a 32-byte hex seed; restore it, "
                               "or delete it to make a new key (verdicts signed by the old one then need the old "
                               "public key to be trusted)")
    return bytes.fromhex(text)


def read_or_create_key(path: Path) -> bytes:
    """The seed at `path`, created (random, owner-only) when there is no file yet."""
    if not path.exists():
        _create(path)
    return read_key(path)


def _create(path: Path) -> None:
    # Written to a private temporary file and hard-linked into place: no reader sees half a key, and when two
    # processes start together the first link wins and both then read the same key.
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError as exc:
        raise CertificateError(f"cannot create the verdict signing key {path} ({exc.strerror or exc})") from None
    try:
        with os.fdopen(fd, "w", encoding="ascii") as handle:
            handle.write(secrets.token_bytes(32).hex() + "\n")
        try:
            os.link(tmp, path)
        except FileExistsError:
            pass
        except OSError as exc:
            raise CertificateError(f"cannot create the verdict signing key {path} ({exc.strerror or exc})") from None
    finally:
        tmp.unlink(missing_ok=True)
