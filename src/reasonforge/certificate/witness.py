"""Circuit inputs for one proof segment: the statement, the validators' signatures, the padding."""

from __future__ import annotations

import hashlib

from pydantic import BaseModel, ConfigDict

from reasonforge.certificate import babyjub, merkle
from reasonforge.certificate.params import CircuitParams, pack_public
from reasonforge.certificate.poseidon import poseidon
from reasonforge.certificate.validators import ValidatorSet


class Statement(BaseModel):
    """What one segment proves: step bits under a task input, signed by enough validators."""

    model_config = ConfigDict(frozen=True)

    task_input: int
    step_bits: tuple[bool, ...]
    salt: int
    timestamp: int
    threshold: int
    stake_threshold: int
    validator_root: int

    @property
    def commitment(self) -> int:
        """Poseidon(stepsPacked, totalSteps, taskInput, salt): the value validators sign."""
        packed_bits = sum(int(b) << i for i, b in enumerate(self.step_bits))
        return poseidon([packed_bits, len(self.step_bits), self.task_input, self.salt])


class SignedSlot(BaseModel):
    """One counted validator: leaf, membership proof and signature on the commitment."""

    model_config = ConfigDict(frozen=True)

    leaf: merkle.ValidatorLeaf
    proof: merkle.MerkleProof
    signature: babyjub.EddsaSignature


def segment_task_input(task_hash: str, previous_commitment: int | None, index: int, bound: int) -> int:
    """The task input segment `index` proves: `bound` (binding.bound_task_input: the task hash with what was
    proven) for segment 0, else the top 248 bits of sha256(taskHash || commitment_{i-1} || i), each 32 bytes
    big-endian.

    sha256 rather than Poseidon so the registry contract can recompute the links for a few hundred
    gas; the circuit treats the task input as opaque, so nothing in it changes.
    """
    if index == 0:
        return bound
    if previous_commitment is None:
        raise ValueError("segment after the first needs the previous commitment")
    link = (
        bytes.fromhex(task_hash.removeprefix("0x"))
        + previous_commitment.to_bytes(32, "big")
        + index.to_bytes(32, "big")
    )
    return int.from_bytes(hashlib.sha256(link).digest(), "big") >> 8


def sign_statement(vset: ValidatorSet, statement: Statement, depth: int, signers: list[int]) -> list[SignedSlot]:
    """Each chosen validator (by tree index) signs the commitment; slots come out in tree order."""
    levels = vset.levels(depth)
    slots = []
    for index in sorted(signers):
        key = vset.validators[index]
        signature = babyjub.sign(bytes.fromhex(key.babyjub_seed), statement.commitment)
        slots.append(SignedSlot(leaf=key.leaf(), proof=merkle.prove(levels, index), signature=signature))
    return slots


def public_inputs(statement: Statement, validator_count: int) -> list[int]:
    """The four public inputs in circuit order."""
    packed = pack_public(
        {
            "verified_steps": sum(statement.step_bits),
            "total_steps": len(statement.step_bits),
            "validator_count": validator_count,
            "threshold": statement.threshold,
            "timestamp": statement.timestamp,
            "stake_threshold": statement.stake_threshold,
        }
    )
    return [statement.task_input, statement.commitment, statement.validator_root, packed]


def padding_path(levels: int) -> list[list[int]]:
    """A disabled slot's path: its identity-key leaf at position 0 of every level (the per-level
    position check is not gated by `enabled`, so the padding must still be a consistent path)."""
    node = merkle.ValidatorLeaf(ax=0, ay=1, stake=0).hash()
    path = []
    for _ in range(levels):
        children = [node, 0, 0, 0]
        path.append(children)
        node = poseidon(children)
    return path


def tree_opening(vset: ValidatorSet, params: CircuitParams) -> list[int]:
    """The shared opening of the validator tree the circuit hashes to the root."""
    return merkle.opening(vset.levels(params.merkle_depth), params.open_bits)


def circuit_inputs(
    params: CircuitParams, statement: Statement, slots: list[SignedSlot], opening: list[int]
) -> dict[str, object]:
    """The full input JSON for the witness calculator; unused slots are disabled identity points."""
    if len(statement.step_bits) > params.max_steps:
        raise ValueError(f"{len(statement.step_bits)} steps exceed the circuit's {params.max_steps}")
    if len(slots) > params.max_validators:
        raise ValueError(f"{len(slots)} signatures exceed the circuit's {params.max_validators} slots")
    task, commitment, root, packed = public_inputs(statement, len(slots))
    pad_v = params.max_validators - len(slots)
    if len(opening) != 1 << params.open_bits:
        raise ValueError(f"the tree opening has {len(opening)} nodes, the circuit takes {1 << params.open_bits}")
    depth, levels = params.merkle_depth, params.path_levels
    if any(len(s.proof.children) != depth // 2 for s in slots):
        raise ValueError(f"a membership proof does not have the circuit's {depth // 2} levels")
    bits = [int(b) for b in statement.step_bits] + [0] * (params.max_steps - len(statement.step_bits))
    return {
        "taskHash": task,
        "commitment": commitment,
        "validatorRoot": root,
        "packed": packed,
        "stepBits": bits,
        "salt": statement.salt,
        "verifiedSteps": sum(bits),
        "totalSteps": len(statement.step_bits),
        "validatorCount": len(slots),
        "threshold": statement.threshold,
        "timestamp": statement.timestamp,
        "stakeThreshold": statement.stake_threshold,
        "enabled": [1] * len(slots) + [0] * pad_v,
        "Ax": [s.leaf.ax for s in slots] + [0] * pad_v,
        "Ay": [s.leaf.ay for s in slots] + [1] * pad_v,
        "stake": [s.leaf.stake for s in slots] + [0] * pad_v,
        "S": [s.signature.s for s in slots] + [0] * pad_v,
        "R8x": [s.signature.r8x for s in slots] + [0] * pad_v,
        "R8y": [s.signature.r8y for s in slots] + [1] * pad_v,
        "children": [s.proof.children[:levels] for s in slots] + [padding_path(levels)] * pad_v,
        "indexBits": [[(s.proof.index >> b) & 1 for b in range(depth)] for s in slots] + [[0] * depth] * pad_v,
        "opening": opening,
    }
