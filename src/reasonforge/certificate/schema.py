"""The certificate a holder keeps: public claims, Groth16 proof(s), key reference, registration."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from reasonforge.certificate.attest import Attestation
from reasonforge.certificate.canonical import sha256_hex
from reasonforge.certificate.params import FIELD_MODULUS, CircuitParams
from reasonforge.types import Spec

# Filled in after issuance (registration, transport signatures): not part of the certificate id.
UNHASHED_FIELDS = frozenset(
    {"certificate_id", "attestations", "chain_id", "registry_address", "tx_hash", "block_number", "verify_url"}
)


HEX32 = r"^0x[0-9a-f]{64}$"
DecimalStr = Annotated[str, Field(pattern=r"^[0-9]{1,78}$")]


class ProofSegment(BaseModel):
    """One Groth16 proof over up to max_steps steps and its four public inputs (decimal strings)."""

    model_config = ConfigDict(frozen=True)

    proof: str = Field(
        pattern=r"^[0-9a-f]{512}$", description="hex of the 256-byte proof (a, b, c as 32-byte big-endian words)"
    )
    public_inputs: list[DecimalStr] = Field(min_length=4, max_length=4)
    first_step: int = Field(ge=0, description="index of this segment's first step in the chain")
    total_steps: int = Field(ge=0)
    verified_steps: int = Field(ge=0)

    @field_validator("public_inputs")
    @classmethod
    def _in_field(cls, values: list[str]) -> list[str]:
        """Public inputs are BN254 scalars."""
        if any(int(v) >= FIELD_MODULUS for v in values):
            raise ValueError("a public input is not below the BN254 scalar field modulus")
        return values

    def public_ints(self) -> list[int]:
        """Public inputs as ints, in circuit order (taskHash, commitment, validatorRoot, packed)."""
        return [int(x) for x in self.public_inputs]


class VerificationKeyRef(BaseModel):
    """Which circuit and key the proof is for: name, sizes and sha256 of the verification key JSON."""

    model_config = ConfigDict(frozen=True)

    circuit: str = Field(pattern=r"^[A-Za-z0-9_-]{1,64}$", description="names the key folder: no path characters")
    params: CircuitParams
    sha256: str
    insecure_development_key: bool = True


class VerificationCertificate(BaseModel):
    """The plan's certificate plus what a holder needs to replay the check."""

    certificate_id: str = ""
    version: int = 1
    task_hash: str = Field(pattern=r"^[0-9a-f]{64}$", description="sha256 hex of the task (DESIGN 3.2)")
    domain: Literal["mathematics", "code", "logic"]
    proof_level: Literal["quick", "standard", "formal"]
    total_steps: int = Field(ge=1)
    verified_steps: int = Field(ge=0)
    overall_verdict: Literal["VERIFIED", "PARTIAL", "FAILED"]
    timestamp: int = Field(ge=0, lt=1 << 64)
    validator_count: int = Field(ge=0)
    validator_threshold: int = Field(ge=1)
    stake_threshold: int = Field(ge=0, lt=1 << 64)
    validator_commitment: str = Field(
        pattern=HEX32, description="hex Poseidon Merkle root of validator keys with stakes"
    )
    verdict_commitment: str = Field(pattern=HEX32, description="hex commitment of the last segment (the accumulator)")
    verdict_hash: str = Field(description="the plan's sha256 verdict hash, for reference")
    zk_proof: list[ProofSegment] = Field(min_length=1)
    verification_key: VerificationKeyRef
    checker_specs: list[Spec] = Field(default_factory=list)
    attestations: list[Attestation] = Field(default_factory=list)
    chain_id: int | None = None
    registry_address: str | None = None
    tx_hash: str | None = None
    block_number: int | None = None
    verify_url: str | None = None

    def content_hash(self) -> str:
        """0x-prefixed sha256 of the canonical JSON of the hashed fields."""
        body = self.model_dump(mode="json", exclude=set(UNHASHED_FIELDS))
        return "0x" + sha256_hex(body)


class CommitmentOpening(BaseModel):
    """Private: the step bits and salts behind each segment's commitment (kept by the issuer)."""

    certificate_id: str
    step_bits: list[bool]
    salts: list[DecimalStr]

    @field_validator("salts")
    @classmethod
    def _salts_in_field(cls, values: list[str]) -> list[str]:
        """Salts are BN254 scalars (Poseidon inputs)."""
        if any(int(v) >= FIELD_MODULUS for v in values):
            raise ValueError("a salt is not below the BN254 scalar field modulus")
        return values
