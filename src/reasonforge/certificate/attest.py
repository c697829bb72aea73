"""Ed25519 transport attestations (PyNaCl): a validator vouches for a certificate id."""

from __future__ import annotations

from nacl.exceptions import BadSignatureError
from nacl.signing import SigningKey, VerifyKey
from pydantic import BaseModel, ConfigDict

_CONTEXT = b"reasonforge/certificate/v1:"


class Attestation(BaseModel):
    """An Ed25519 signature by `public_key` over the certificate id."""

    model_config = ConfigDict(frozen=True)

    public_key: str  # hex, 32 bytes
    signature: str  # hex, 64 bytes


def attest(seed: bytes, certificate_id: str) -> Attestation:
    """Sign a certificate id with an Ed25519 seed."""
    key = SigningKey(seed)
    signed = key.sign(_CONTEXT + certificate_id.encode("ascii"))
    return Attestation(public_key=key.verify_key.encode().hex(), signature=signed.signature.hex())


def check_attestation(attestation: Attestation, certificate_id: str) -> bool:
    """True when the attestation signs exactly this certificate id."""
    try:
        VerifyKey(bytes.fromhex(attestation.public_key)).verify(
            _CONTEXT + certificate_id.encode("ascii"), bytes.fromhex(attestation.signature)
        )
    except (BadSignatureError, ValueError):
        return False
    return True
