"""Poseidon over BN254 (circomlib constants) via light-poseidon, on plain ints."""

from __future__ import annotations

import light_poseidon_python as _lp

from reasonforge.certificate.params import FIELD_MODULUS


def poseidon(inputs: list[int]) -> int:
    """Poseidon hash of 1..12 field elements, equal to circomlib's Poseidon(n)."""
    if not 1 <= len(inputs) <= 12:
        raise ValueError(f"Poseidon takes 1..12 inputs, got {len(inputs)}")
    for x in inputs:
        if not 0 <= x < FIELD_MODULUS:
            raise ValueError(f"Poseidon input {x} is not a BN254 field element")
    digest = _lp.Hasher(len(inputs)).hash_bytes_be([x.to_bytes(32, "big") for x in inputs])
    return int(digest, 16)
