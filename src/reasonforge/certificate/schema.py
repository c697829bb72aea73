"""The certificate a holder keeps: public claims, Groth16 proof(s), key reference, registration."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from reasonforge.certificate import binding
from reasonforge.certificate.attest import Attestation
from reasonforge.certificate.params import FIELD_MODULUS, CircuitParams
from reasonforge.types import Spec

HEX32 = r"^0x[0-9a-f]{64}$"
SHA256_HEX = r"^[0-9a-f]{64}$"
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
    sha256: str = Field(pattern=SHA256_HEX, description="sha256 hex of the verification key JSON")
    insecure_development_key: bool = True


class VerificationCertificate(BaseModel):
    """The plan's certificate plus what was proven (digest, checkers, assurance) and what a holder needs to replay
    the check. Segment 0's proof is for the task input `binding.bound_task_input` derives from the task hash,
    verdict digest, checkers digest, domain, proof level, verdict and assurance, so none of them can change after
    the validators signed; `certificate_id` is `binding.certificate_id` of the fields the registry stores."""

    certificate_id: str = ""
    version: int = binding.CERTIFICATE_VERSION
    task_hash: str = Field(pattern=SHA256_HEX, description="sha256 hex of the task (DESIGN 3.2)")
    domain: Literal["mathematics", "code", "logic"]
    proof_level: Literal["quick", "standard", "formal"]
    total_steps: int = Field(ge=1, lt=1 << 16)
    verified_steps: int = Field(ge=0, lt=1 << 16)
    overall_verdict: Literal["VERIFIED", "PARTIAL", "FAILED"]
    assurance: Literal["proven", "corroborated", "conditional", "arithmetic", "self_tested", "unproven", "refuted"] = Field(
        description="What the verdict rests on (see the verdict's `assurance`); bound like the level.")
    verdict_digest: str = Field(pattern=SHA256_HEX, description=(
        "sha256 of everything the verdict proved (chain.verdict_digest): recompute it from the verdict JSON"))
    checkers_digest: str = Field(pattern=SHA256_HEX, description="binding.checkers_digest of checker_specs")
    timestamp: int = Field(ge=0, lt=1 << 64)
    validator_count: int = Field(ge=0, lt=256)
    validator_threshold: int = Field(ge=1, lt=256)
    stake_threshold: int = Field(ge=0, lt=1 << 64)
    validator_commitment: str = Field(
        pattern=HEX32, description="hex Poseidon Merkle root of validator keys with stakes"
    )
    verdict_commitment: str = Field(pattern=HEX32, description="hex commitment of the last segment (the accumulator)")
    verdict_hash: str = Field(description="the plan's sha256 verdict hash, for reference (it names no level)")
    zk_proof: list[ProofSegment] = Field(min_length=1, max_length=255)
    verification_key: VerificationKeyRef
    checker_specs: list[Spec] = Field(default_factory=list)
    attestations: list[Attestation] = Field(default_factory=list)
    chain_id: int | None = None
    registry_address: str | None = None
    tx_hash: str | None = None
    block_number: int | None = None
    verify_url: str | None = None

    @field_validator("version")
    @classmethod
    def _current(cls, value: int) -> int:
        """Only the version that binds what was proven is accepted."""
        if value != binding.CERTIFICATE_VERSION:
            raise ValueError(
                f"version {value} certificates do not bind the proof level, domain or checkers (this is version "
                f"{binding.CERTIFICATE_VERSION}); issue a new one with `reasonforge cert issue VERDICT.json`"
            )
        return value

    def bound_task_input(self) -> int:
        """The task input segment 0's proof must be for, derived from this certificate's fields."""
        return binding.bound_task_input(
            task_hash=self.task_hash, verdict_digest=self.verdict_digest, checkers=self.checkers_digest,
            domain=self.domain, proof_level=self.proof_level, overall=self.overall_verdict, assurance=self.assurance,
        )

    def content_hash(self) -> str:
        """binding.certificate_id of the fields the registry stores (the id the contract recomputes)."""
        return binding.certificate_id(
            verification_key_sha256=self.verification_key.sha256, task_hash=self.task_hash,
            verdict_digest=self.verdict_digest, checkers=self.checkers_digest,
            verdict_commitment=self.verdict_commitment, validator_root=self.validator_commitment,
            domain=self.domain, proof_level=self.proof_level, overall=self.overall_verdict, assurance=self.assurance,
            total_steps=self.total_steps, verified_steps=self.verified_steps, validator_count=self.validator_count,
            validator_threshold=self.validator_threshold, timestamp=self.timestamp,
            stake_threshold=self.stake_threshold, segments=len(self.zk_proof),
        )


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
