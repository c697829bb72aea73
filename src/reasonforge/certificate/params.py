"""Circuit parameters and the packing of small public integers: the one place that names them."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, model_validator

# BN254 scalar field: every circuit signal and Poseidon input lives here.
FIELD_MODULUS = 21888242871839275222246405745257275088548364400416034343698204186575808495617

# Bit widths of the integers packed into the fourth public input, least significant first.
# Mirrors the `packed === ...` constraint in circuits/verdict_lib.circom.
PACK_LAYOUT: tuple[tuple[str, int], ...] = (
    ("verified_steps", 8),
    ("total_steps", 8),
    ("validator_count", 8),
    ("threshold", 8),
    ("timestamp", 64),
    ("stake_threshold", 64),
)


class CircuitParams(BaseModel):
    """Sizes of one instance of the VerdictCertificate template.

    The validator tree is a quaternary Poseidon tree: `merkle_depth` counts index bits (capacity
    2**merkle_depth validators, the plan's MERKLE_DEPTH), so it has merkle_depth / 2 levels. The
    circuit takes the 2**open_bits nodes `open_bits` index bits below the root as one shared
    opening (hashed once to the root), so each validator slot proves only the levels under it.
    """

    model_config = ConfigDict(frozen=True)

    max_steps: int = Field(ge=1, le=200)
    max_validators: int = Field(ge=1, le=255)
    merkle_depth: int = Field(ge=2, le=32)
    open_bits: int = Field(ge=2, le=8)

    @model_validator(mode="after")
    def _quaternary(self) -> CircuitParams:
        """Both bit counts are whole quaternary levels, and the opening fits in the tree."""
        if self.merkle_depth % 2 or self.open_bits % 2:
            raise ValueError("merkle_depth and open_bits must be even (a quaternary level is 2 index bits)")
        if self.open_bits >= self.merkle_depth:
            raise ValueError(f"open_bits {self.open_bits} must be below merkle_depth {self.merkle_depth}")
        return self

    @property
    def path_levels(self) -> int:
        """Quaternary levels each slot proves between its leaf and the shared opening."""
        return (self.merkle_depth - self.open_bits) // 2

    @property
    def name(self) -> str:
        """Stable name of this instance, used for build and key cache folders."""
        return f"verdict4_s{self.max_steps}_v{self.max_validators}_d{self.merkle_depth}_o{self.open_bits}"


# The plan's sizes (proof-layer plan: MAX_REASONING_STEPS, MAX_VALIDATORS, MERKLE_DEPTH = 1024 validators).
FULL = CircuitParams(max_steps=32, max_validators=16, merkle_depth=10, open_bits=4)
# A reduced instance of the same template for fast tests (same constraints per slot, both tree parts).
SMALL = CircuitParams(max_steps=8, max_validators=3, merkle_depth=4, open_bits=2)


def pack_public(values: dict[str, int]) -> int:
    """Pack the small public integers into one field element (layout PACK_LAYOUT)."""
    packed, shift = 0, 0
    for name, bits in PACK_LAYOUT:
        value = values[name]
        if not 0 <= value < (1 << bits):
            raise ValueError(f"{name}={value} does not fit in {bits} bits")
        packed |= value << shift
        shift += bits
    return packed


def unpack_public(packed: int) -> dict[str, int]:
    """Inverse of pack_public."""
    out, shift = {}, 0
    for name, bits in PACK_LAYOUT:
        out[name] = (packed >> shift) & ((1 << bits) - 1)
        shift += bits
    if packed >> shift:
        raise ValueError("packed public input has bits beyond the layout")
    return out
