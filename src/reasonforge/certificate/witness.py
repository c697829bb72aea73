"""Circuit inputs for one proof segment: the statement, the validators' signatures, the padding."""

from __future__ import annotations

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


def segment_task_input(task_field: int, previous_commitment: int | None, index: int) -> int:
    """Segment 0 proves the task hash itself; segment i > 0 proves Poseidon(task, accumulator_{i-1}, i)."""
    if index == 0:
        return task_field
    if previous_commitment is None:
        raise ValueError("segment after the first needs the previous commitment")
    return poseidon([task_field, previous_commitment, index])


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


def circuit_inputs(params: CircuitParams, statement: Statement, slots: list[SignedSlot]) -> dict[str, object]:
    """The full input JSON for the witness calculator; unused slots are disabled identity points."""
    if len(statement.step_bits) > params.max_steps:
        raise ValueError(f"{len(statement.step_bits)} steps exceed the circuit's {params.max_steps}")
    if len(slots) > params.max_validators:
        raise ValueError(f"{len(slots)} signatures exceed the circuit's {params.max_validators} slots")
    task, commitment, root, packed = public_inputs(statement, len(slots))
    pad_v = params.max_validators - len(slots)
    depth = params.merkle_depth
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
        "siblings": [list(s.proof.siblings) for s in slots] + [[0] * depth] * pad_v,
        "pathBits": [list(s.proof.path_bits) for s in slots] + [[0] * depth] * pad_v,
    }
