"""Canonical JSON and the hashes a certificate holder can recompute."""

from __future__ import annotations

import hashlib
from typing import Any

from reasonforge.certificate.params import FIELD_MODULUS
from reasonforge.chain.hashing import canonical_json

__all__ = ["canonical_json", "hex_to_field", "sha256_hex"]


def sha256_hex(value: Any) -> str:
    """sha256 hex of canonical_json(value)."""
    return hashlib.sha256(canonical_json(value)).hexdigest()


def hex_to_field(digest_hex: str) -> int:
    """A sha256 digest as a field element: its top 248 bits (always below the BN254 modulus)."""
    digest = bytes.fromhex(digest_hex.removeprefix("0x"))
    if len(digest) != 32:
        raise ValueError(f"expected a 32-byte hex digest, got {len(digest)} bytes")
    value = int.from_bytes(digest, "big") >> 8
    assert value < FIELD_MODULUS
    return value
