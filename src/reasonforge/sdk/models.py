"""Typed answers of the endpoints whose models live in the service, not in `reasonforge.types`.

They mirror the service's models field for field and keep any field a newer server adds
(`extra="allow"`), so an SDK older than its server still reads every answer.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class Certificate(BaseModel):
    """`GET /v1/certificates/{cert_id}`: the certificate as issued (every field kept, typed or not).

    `model_dump(mode="json")` gives the document back; `reasonforge cert verify` checks it offline.
    """

    model_config = ConfigDict(extra="allow", frozen=True)

    certificate_id: str
    task_hash: str
    domain: str
    proof_level: str
    total_steps: int
    verified_steps: int
    overall_verdict: str
    assurance: str = Field(description="What the verdict rests on; signed with the level and domain.")
    verdict_digest: str = Field(description="sha256 of everything the verdict proved; signed by the validators.")
    checkers_digest: str
    timestamp: int
    verdict_hash: str
    verify_url: str | None = None


class CertificateCheck(BaseModel):
    """`POST /v1/certificates/{cert_id}/verify`: valid is True only when reasons is empty."""

    model_config = ConfigDict(extra="allow", frozen=True)

    valid: bool
    reasons: list[str]


class Stats(BaseModel):
    """`GET /v1/stats`: totals over every job in the service's store."""

    model_config = ConfigDict(extra="allow", frozen=True)

    jobs: dict[str, int] = Field(description="Jobs by status.")
    verdicts: dict[str, int] = Field(description="Finished verdicts by overall result.")
    steps_total: int
    steps_verified: int
    certificates_issued: int
    mean_verification_time_ms: float | None = None
    queue: str
