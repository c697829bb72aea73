"""Poseidon over BN254 (circomlib constants) via light-poseidon, on plain ints. light-poseidon (the certificate
extra) is imported on the first hash, so what only reads certificates imports without it."""

from __future__ import annotations

from reasonforge.certificate.params import FIELD_MODULUS


def poseidon(inputs: list[int]) -> int:
    """Poseidon hash of 1..12 field elements, equal to circomlib's Poseidon(n)."""
    if not 1 <= len(inputs) <= 12:
        raise ValueError(f"Poseidon takes 1..12 inputs, got {len(inputs)}")
    for x in inputs:
        if not 0 <= x < FIELD_MODULUS:
            raise ValueError(f"Poseidon input {x} is not a BN254 field element")
    import light_poseidon_python as _lp

    digest = _lp.Hasher(len(inputs)).hash_bytes_be([x.to_bytes(32, "big") for x in inputs])
    return int(digest, 16)
