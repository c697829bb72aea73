"""secp256k1 signatures a contract checks with ecrecover: validators' keys for score certificates.

A validator's secp256k1 key is derived from its Baby Jubjub seed with a domain-separated sha256, so the
local validator set (validators.json) needs no new secret; the derived key signs only 32-byte digests
(no EIP-191 prefix: the digest already carries a domain tag, the chain id and the registry address).
"""

from __future__ import annotations

import hashlib

from eth_keys import keys
from eth_keys.exceptions import BadSignature, ValidationError

from reasonforge.certificate.validators import ValidatorKey

SECP256K1_N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
_CONTEXT = b"reasonforge/score-signing/secp256k1/v1:"


def signing_key(validator: ValidatorKey) -> bytes:
    """The validator's secp256k1 private key (32 bytes), derived from its Baby Jubjub seed."""
    value = int.from_bytes(hashlib.sha256(_CONTEXT + bytes.fromhex(validator.babyjub_seed)).digest(), "big")
    return (value % (SECP256K1_N - 1) + 1).to_bytes(32, "big")  # in [1, n-1]


def address_of(private_key: bytes) -> str:
    """The checksummed Ethereum address of a private key."""
    return keys.PrivateKey(private_key).public_key.to_checksum_address()


def sign_digest(private_key: bytes, digest: bytes) -> str:
    """A 65-byte r ‖ s ‖ v signature (v = 27/28, low s) over a 32-byte digest, as 0x hex."""
    sig = keys.PrivateKey(private_key).sign_msg_hash(digest)
    return "0x" + (sig.r.to_bytes(32, "big") + sig.s.to_bytes(32, "big") + bytes([sig.v + 27])).hex()


def recover(digest: bytes, signature_hex: str) -> str | None:
    """The checksummed signer of a 65-byte signature over digest; None when it is not a valid one."""
    try:
        raw = bytes.fromhex(signature_hex.removeprefix("0x"))
    except ValueError:
        return None
    if len(raw) != 65 or raw[64] not in (27, 28):
        return None
    if int.from_bytes(raw[32:64], "big") > SECP256K1_N // 2:  # high s: the contract refuses it too
        return None
    try:
        sig = keys.Signature(raw[:64] + bytes([raw[64] - 27]))
        return sig.recover_public_key_from_msg_hash(digest).to_checksum_address()
    except (BadSignature, ValidationError, ValueError):
        return None
