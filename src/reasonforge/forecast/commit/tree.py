"""Forecast leaves and the quaternary Poseidon Merkle tree over a batch.

Leaf (5 inputs, so a leaf can never pass for an internal node, which hashes 4):

    leaf = Poseidon(LEAF_TAG, H(item id), probability in parts per million, H(reasoning), salt)

H(text) is sha256 of the UTF-8 text, top 248 bits (certificate.canonical.hex_to_field); the probability is
the integer round(p × 10^6) in [0, 10^6]; salt is 248 fresh random bits per forecast (so equal forecasts
have unrelated leaves and a root reveals nothing before the opening). Each field is fixed-width and
below the BN254 modulus, so the encoding is injective up to sha256 collisions.

Tree: arity 4 (as the validator tree: one Poseidon(4) per level, half the levels of a binary tree), leaves
in batch order padded with 0 to 4^depth (a slot holding 0 has no opening: no known preimage).
"""

from __future__ import annotations

import hashlib
import secrets

from pydantic import BaseModel, ConfigDict, Field

from reasonforge.certificate.canonical import hex_to_field
from reasonforge.certificate.poseidon import poseidon

ARITY = 4
PPM = 1_000_000
LEAF_TAG = hex_to_field(hashlib.sha256(b"reasonforge/forecast-leaf/v1").hexdigest())
SALT_BITS = 248


class ForecastFields(BaseModel):
    """What a leaf commits to."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    item_id: str = Field(min_length=1)
    probability_ppm: int = Field(ge=0, le=PPM, strict=True)
    reasoning: str = ""
    salt: str = Field(pattern=r"^0x[0-9a-f]{62}$", description="248 random bits, 0x + 62 hex digits")


def text_field(text: str) -> int:
    """sha256 of UTF-8 text as a field element (top 248 bits)."""
    return hex_to_field(hashlib.sha256(text.encode("utf-8")).hexdigest())


def fresh_salt() -> str:
    """A fresh 248-bit salt as 0x hex."""
    return "0x" + secrets.token_bytes(SALT_BITS // 8).hex()


def to_ppm(probability: float) -> int:
    """A probability as parts per million (rounded half to even)."""
    if not 0.0 <= probability <= 1.0:
        raise ValueError(f"probability {probability} is outside [0, 1]")
    return round(probability * PPM)


def leaf_hash(fields: ForecastFields) -> int:
    """The leaf commitment of one forecast."""
    return poseidon([LEAF_TAG, text_field(fields.item_id), fields.probability_ppm, text_field(fields.reasoning),
                     int(fields.salt, 16)])


def depth_for(count: int) -> int:
    """Levels of a quaternary tree holding count leaves (at least 1)."""
    depth = 1
    while ARITY**depth < count:
        depth += 1
    return depth


def build_levels(leaves: list[int]) -> list[list[int]]:
    """All levels, leaves first, padded with 0 to 4^depth."""
    if not leaves:
        raise ValueError("a batch needs at least one forecast")
    level = leaves + [0] * (ARITY ** depth_for(len(leaves)) - len(leaves))
    levels = [level]
    while len(level) > 1:
        level = [poseidon(level[i : i + ARITY]) for i in range(0, len(level), ARITY)]
        levels.append(level)
    return levels


def path(levels: list[list[int]], index: int) -> list[list[int]]:
    """For each level bottom-up, the four children of the node's parent (the node among them)."""
    children, i = [], index
    for level in levels[:-1]:
        first = i - i % ARITY
        children.append(level[first : first + ARITY])
        i //= ARITY
    return children


def root_from_path(leaf: int, index: int, children: list[list[int]],
                   memo: dict[tuple[int, ...], int] | None = None) -> int | None:
    """The root a leaf and its path lead to; None when the path does not contain the leaf where index says.

    memo caches Poseidon of children groups (a pure function) across the openings of one batch, which
    share their upper levels: verifying a whole batch then costs about one leaf hash per opening.
    """
    node, i = leaf, index
    for group in children:
        if len(group) != ARITY or group[i % ARITY] != node:
            return None
        key = tuple(group)
        if memo is None:
            node = poseidon(group)
        elif (node := memo.get(key, -1)) < 0:
            node = memo[key] = poseidon(group)
        i //= ARITY
    return node if i == 0 else None


def field_hex(value: int) -> str:
    """A field element as 0x + 64 hex digits (bytes32)."""
    return "0x" + value.to_bytes(32, "big").hex()
