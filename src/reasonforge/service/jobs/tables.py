"""Job, job-event and certificate tables (all on the shared `Base`); times are Unix seconds."""

from __future__ import annotations

from sqlalchemy import Boolean, Float, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from reasonforge.service.db import Base


class JobRow(Base):
    """One verification job: the request, where it is, who holds it and what it produced."""

    __tablename__ = "service_jobs"
    __table_args__ = (
        UniqueConstraint(
            "owner_key_id", "idempotency_key", name="uq_service_jobs_idempotency"
        ),
        Index("ix_service_jobs_status_lease", "status", "lease_expires_at"),
        Index("ix_service_jobs_status_created", "status", "created_at"),
        Index("ix_service_jobs_status_lane_created", "status", "lane", "created_at"),
    )

    task_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    owner_key_id: Mapped[str] = mapped_column(String(64), index=True)
    request_json: Mapped[str] = mapped_column(Text)
    request_hash: Mapped[str] = mapped_column(String(64))
    idempotency_key: Mapped[str | None] = mapped_column(String(255), nullable=True)
    proof_level: Mapped[str] = mapped_column(String(16))
    steps_total: Mapped[int] = mapped_column(Integer)
    callback_url: Mapped[str | None] = mapped_column(Text, nullable=True)
    status: Mapped[str] = mapped_column(String(16))
    # lanes.Lane: quick jobs have workers of their own (rows from before lanes read as heavy)
    lane: Mapped[str] = mapped_column(String(8), default="heavy", server_default="heavy")
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    # A fresh token per claim: completion is conditional on it, so a worker whose lease was
    # reclaimed cannot overwrite the result of the worker that took over.
    lease_token: Mapped[str | None] = mapped_column(String(64), nullable=True)
    lease_owner: Mapped[str | None] = mapped_column(
        String(200), nullable=True, doc="host:pid:nonce of the holder"
    )
    lease_expires_at: Mapped[float | None] = mapped_column(Float, nullable=True)
    enqueued_at: Mapped[float] = mapped_column(Float)
    verdict_json: Mapped[str | None] = mapped_column(Text, nullable=True)
    # Copied out of the verdict so statistics need no JSON parsing.
    overall: Mapped[str | None] = mapped_column(String(16), nullable=True)
    steps_verified: Mapped[int | None] = mapped_column(Integer, nullable=True)
    certificate_id: Mapped[str | None] = mapped_column(String(80), nullable=True)
    error: Mapped[str | None] = mapped_column(Text, nullable=True)
    cost_credits: Mapped[float | None] = mapped_column(Float, nullable=True)
    verification_time_ms: Mapped[int | None] = mapped_column(Integer, nullable=True)
    # progress.JobProgress JSON: the step whose check started last, while the job runs
    progress_json: Mapped[str | None] = mapped_column(Text, nullable=True)
    webhook_pending: Mapped[bool] = mapped_column(Boolean, default=False)
    webhook_lease_expires_at: Mapped[float | None] = mapped_column(Float, nullable=True)
    created_at: Mapped[float] = mapped_column(Float)
    updated_at: Mapped[float] = mapped_column(Float)
    started_at: Mapped[float | None] = mapped_column(Float, nullable=True)
    finished_at: Mapped[float | None] = mapped_column(Float, nullable=True)


class JobEventRow(Base):
    """One persisted status transition; the live stream and the audit read these in id order."""

    __tablename__ = "service_job_events"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    task_id: Mapped[str] = mapped_column(String(64), index=True)
    owner_key_id: Mapped[str] = mapped_column(String(64), index=True)
    status: Mapped[str] = mapped_column(String(16))
    attempt: Mapped[int] = mapped_column(Integer)
    message: Mapped[str | None] = mapped_column(Text, nullable=True)
    worker_id: Mapped[str | None] = mapped_column(
        String(200), nullable=True, doc="the lease holder that wrote it"
    )
    at: Mapped[float] = mapped_column(Float, index=True)


class CertificateRow(Base):
    """An issued certificate (public) and its opening (private to the issuer)."""

    __tablename__ = "service_certificates"

    certificate_id: Mapped[str] = mapped_column(String(80), primary_key=True)
    task_id: Mapped[str] = mapped_column(String(64), index=True)
    owner_key_id: Mapped[str] = mapped_column(String(64))
    certificate_json: Mapped[str] = mapped_column(Text)
    opening_json: Mapped[str] = mapped_column(Text)
    created_at: Mapped[float] = mapped_column(Float)


class CertificateTimingRow(Base):
    """How long a certificate took to prove and sign, wherever it was issued (read by /metrics)."""

    __tablename__ = "service_certificate_timings"

    certificate_id: Mapped[str] = mapped_column(String(80), primary_key=True)
    prove_seconds: Mapped[float] = mapped_column(Float)
    created_at: Mapped[float] = mapped_column(Float, index=True)


class ForecastRevealRow(Base):
    """A revealed forecast the API scored (it opened a root committed before its cutoff), with the outcome it was
    scored against: what the dashboard's reliability diagram is drawn from. One row per forecaster, question set
    and item (a later scoring of the same forecast replaces it)."""

    __tablename__ = "service_forecast_reveals"

    forecaster: Mapped[str] = mapped_column(String(42), primary_key=True)
    scope: Mapped[str] = mapped_column(String(66), primary_key=True)
    item_id: Mapped[str] = mapped_column(String(200), primary_key=True)
    probability_ppm: Mapped[int] = mapped_column(Integer)
    outcome: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[float] = mapped_column(Float, index=True)
