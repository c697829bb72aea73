"""Poseidon Merkle tree of validator keys with stakes; its root is the validator commitment."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from reasonforge.certificate.babyjub import Point
from reasonforge.certificate.poseidon import poseidon


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
    """Siblings bottom-up and path bits (1 = the node is a right child); bits spell the index."""

    model_config = ConfigDict(frozen=True)

    index: int
    siblings: list[int]
    path_bits: list[int]


def leaf_for(pub: Point, stake: int) -> ValidatorLeaf:
    """Leaf for a public key and stake (stake must fit the circuit's 64-bit range check)."""
    if not 0 <= stake < 1 << 64:
        raise ValueError(f"stake {stake} does not fit in 64 bits")
    return ValidatorLeaf(ax=pub[0], ay=pub[1], stake=stake)


def build_levels(leaves: list[ValidatorLeaf], depth: int) -> list[list[int]]:
    """All tree levels, leaves first; empty slots hold 0. Refuses duplicate keys."""
    if len(leaves) > 1 << depth:
        raise ValueError(f"{len(leaves)} validators do not fit a depth-{depth} tree")
    keys = [(leaf.ax, leaf.ay) for leaf in leaves]
    if len(set(keys)) != len(keys):
        raise ValueError("duplicate validator key in the validator set")
    level = [leaf.hash() for leaf in leaves] + [0] * ((1 << depth) - len(leaves))
    levels = [level]
    for _ in range(depth):
        level = [poseidon([level[i], level[i + 1]]) for i in range(0, len(level), 2)]
        levels.append(level)
    return levels


def root(levels: list[list[int]]) -> int:
    """The root of built levels."""
    return levels[-1][0]


def prove(levels: list[list[int]], index: int) -> MerkleProof:
    """Membership proof for the leaf at index."""
    siblings, bits, i = [], [], index
    for level in levels[:-1]:
        siblings.append(level[i ^ 1])
        bits.append(i & 1)
        i >>= 1
    return MerkleProof(index=index, siblings=siblings, path_bits=bits)


def verify(leaf: ValidatorLeaf, proof: MerkleProof, expected_root: int) -> bool:
    """Recompute the root from a leaf and its proof."""
    node = leaf.hash()
    for sibling, bit in zip(proof.siblings, proof.path_bits):
        node = poseidon([sibling, node]) if bit else poseidon([node, sibling])
    return node == expected_root
