"""Quaternary Poseidon Merkle tree of validator keys with stakes; its root is the validator commitment.

Arity 4 halves the levels of a binary tree of the same capacity, and one Poseidon(4) costs the
circuit 297 constraints against 2 x 240 for the two binary levels it replaces.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from reasonforge.certificate.babyjub import Point
from reasonforge.certificate.poseidon import poseidon

ARITY = 4


class ValidatorLeaf(BaseModel):
    """One tree member: a Baby Jubjub public key and its stake."""

    model_config = ConfigDict(frozen=True)

    ax: int
    ay: int
    stake: int

    def hash(self) -> int:
        """Leaf value Poseidon(Ax, Ay, stake), as the circuit computes it."""
        return poseidon([self.ax, self.ay, self.stake])


class MerkleProof(BaseModel):
    """For each level bottom-up, the four children of the parent (the node itself among them).

    The node's position among its siblings at level l is (index >> 2l) & 3, so the proof also
    spells the leaf index, which the circuit uses to keep validators distinct.
    """

    model_config = ConfigDict(frozen=True)

    index: int
    children: list[list[int]]


def leaf_for(pub: Point, stake: int) -> ValidatorLeaf:
    """Leaf for a public key and stake (stake must fit the circuit's 64-bit range check)."""
    if not 0 <= stake < 1 << 64:
        raise ValueError(f"stake {stake} does not fit in 64 bits")
    return ValidatorLeaf(ax=pub[0], ay=pub[1], stake=stake)


def build_levels(leaves: list[ValidatorLeaf], depth: int) -> list[list[int]]:
    """All tree levels, leaves first, for 2**depth leaf slots (depth even); empty slots hold 0.

    Refuses duplicate keys: a key must not occupy two leaves and so count twice.
    """
    if depth < 2 or depth % 2:
        raise ValueError(f"a quaternary tree needs an even depth of at least 2 index bits, got {depth}")
    if len(leaves) > 1 << depth:
        raise ValueError(f"{len(leaves)} validators do not fit a tree of {1 << depth} leaves")
    keys = [(leaf.ax, leaf.ay) for leaf in leaves]
    if len(set(keys)) != len(keys):
        raise ValueError("duplicate validator key in the validator set")
    level = [leaf.hash() for leaf in leaves] + [0] * ((1 << depth) - len(leaves))
    levels = [level]
    while len(level) > 1:
        level = [poseidon(level[i : i + ARITY]) for i in range(0, len(level), ARITY)]
        levels.append(level)
    return levels


def root(levels: list[list[int]]) -> int:
    """The root of built levels."""
    return levels[-1][0]


def prove(levels: list[list[int]], index: int) -> MerkleProof:
    """Membership proof for the leaf at index."""
    if not 0 <= index < len(levels[0]):
        raise ValueError(f"leaf index {index} is outside a tree of {len(levels[0])} leaves")
    children, i = [], index
    for level in levels[:-1]:
        first = i - i % ARITY
        children.append(level[first : first + ARITY])
        i //= ARITY
    return MerkleProof(index=index, children=children)


def verify(leaf: ValidatorLeaf, proof: MerkleProof, expected_root: int) -> bool:
    """Recompute the root from a leaf and its proof."""
    node, i = leaf.hash(), proof.index
    for children in proof.children:
        if len(children) != ARITY or children[i % ARITY] != node:
            return False
        node = poseidon(children)
        i //= ARITY
    return i == 0 and node == expected_root


def opening(levels: list[list[int]], open_bits: int) -> list[int]:
    """The 2**open_bits nodes open_bits index bits below the root (what the circuit hashes to the root)."""
    return levels[-1 - open_bits // 2]
