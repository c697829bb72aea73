"""The local validator set: keys, stakes and the Merkle commitment over them."""

from __future__ import annotations

import os
import secrets
from functools import cached_property
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from reasonforge.boundary.files import json_model
from reasonforge.certificate import babyjub, merkle
from reasonforge.certificate.params import CircuitParams
from reasonforge.errors import InputError

MAX_VALIDATORS_BYTES = 16 * 1024 * 1024
"""Size limit of a validator set file (a full set of keys is a few kilobytes)."""


class ValidatorKey(BaseModel):
    """One validator's secrets (Baby Jubjub for the circuit, Ed25519 for transport) and stake."""

    model_config = ConfigDict(frozen=True)

    babyjub_seed: str  # hex, 32 bytes
    ed25519_seed: str  # hex, 32 bytes
    stake: int = Field(ge=0, lt=1 << 64)

    @cached_property
    def public_key(self) -> babyjub.Point:
        """The Baby Jubjub public key."""
        return babyjub.public_key(bytes.fromhex(self.babyjub_seed))

    def leaf(self) -> merkle.ValidatorLeaf:
        """This validator's Merkle leaf."""
        return merkle.leaf_for(self.public_key, self.stake)


class ValidatorSet(BaseModel):
    """Validators in tree order, the signing threshold and the stake threshold."""

    validators: list[ValidatorKey]
    threshold: int = Field(ge=1, le=255)
    stake_threshold: int = Field(ge=0, lt=1 << 64)

    def levels(self, depth: int) -> list[list[int]]:
        """Merkle levels over the validators' leaves."""
        return merkle.build_levels([v.leaf() for v in self.validators], depth)


def generate(count: int, threshold: int, stake: int = 100) -> ValidatorSet:
    """Fresh random validators, each with the same stake; stake threshold = threshold × stake."""
    keys = [
        ValidatorKey(babyjub_seed=secrets.token_hex(32), ed25519_seed=secrets.token_hex(32), stake=stake)
        for _ in range(count)
    ]
    return ValidatorSet(validators=keys, threshold=threshold, stake_threshold=threshold * stake)


def read(path: Path) -> ValidatorSet:
    """The validator set saved at `path`, bounded in size and depth; an InputError naming the file and the field
    when it is damaged."""
    try:
        return json_model(path, ValidatorSet, what="validator set", field="validators", max_bytes=MAX_VALIDATORS_BYTES)
    except InputError as exc:
        raise InputError(f"{exc.message}; restore it from a backup, or move it aside to create a new set "
                         "(certificates made with the old set no longer verify against the new one)",
                         field="validators") from None


def load_or_create(path: Path, params: CircuitParams) -> tuple[ValidatorSet, bool]:
    """Read the local validator set, creating one (all slots, threshold 2/3) when missing."""
    if path.exists():
        return read(path), False
    count = params.max_validators
    vset = generate(count, threshold=max(1, (2 * count + 2) // 3))
    path.parent.mkdir(parents=True, exist_ok=True)
    # Secrets: owner-only from the moment the file exists; written aside, then linked into place
    # atomically, so a concurrent first run (two test workers) reads a whole file, never half.
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as fh:
        fh.write(vset.model_dump_json(indent=2))
    try:
        os.link(tmp, path)
    except FileExistsError:
        return read(path), False
    finally:
        tmp.unlink()
    return vset, True
