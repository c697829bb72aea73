"""SQL tables for API keys and the credits ledger."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import Boolean, DateTime, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from reasonforge.service.db import Base


def utcnow() -> datetime:
    """The current time, timezone-aware UTC."""
    return datetime.now(UTC)


def as_utc(value: datetime) -> datetime:
    """A stored timestamp as aware UTC (SQLite hands them back naive)."""
    return value if value.tzinfo else value.replace(tzinfo=UTC)


class ApiKeyRow(Base):
    """One API key: public id, SHA-256 of the full key (never the key itself), scopes and tier."""

    __tablename__ = "api_keys"

    key_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    name: Mapped[str] = mapped_column(String(100))
    key_hash: Mapped[str] = mapped_column(String(64))
    scopes: Mapped[str] = mapped_column(String(200))
    tier: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), default=utcnow
    )
    revoked_at: Mapped[datetime | None] = mapped_column(
        DateTime(timezone=True), nullable=True
    )
    # Bumped by every charge: the UPDATE takes the row lock (PostgreSQL) or the write lock (SQLite)
    # so quota checks for one key are serialised.
    charge_seq: Mapped[int] = mapped_column(Integer, default=0)


class CreditEntryRow(Base):
    """One ledger line: a grant (+amount) or a verification charge (quoted price, -amount debited)."""

    __tablename__ = "credit_ledger"
    __table_args__ = (Index("ix_credit_ledger_key_month", "key_id", "month"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    key_id: Mapped[str] = mapped_column(ForeignKey("api_keys.key_id"))
    kind: Mapped[str] = mapped_column(String(16))  # "grant" | "charge"
    # Unique so a retried submission can never be charged twice; grants leave it NULL.
    task_id: Mapped[str | None] = mapped_column(String(64), unique=True, nullable=True)
    month: Mapped[str] = mapped_column(String(7))  # "YYYY-MM", UTC
    proof_level: Mapped[str | None] = mapped_column(String(16), nullable=True)
    steps_total: Mapped[int | None] = mapped_column(Integer, nullable=True)
    certificate: Mapped[bool | None] = mapped_column(Boolean, nullable=True)
    included: Mapped[bool] = mapped_column(Boolean, default=False)
    quoted_cents: Mapped[int] = mapped_column(Integer, default=0)
    amount_cents: Mapped[int] = mapped_column(Integer)  # signed change of the balance
    note: Mapped[str | None] = mapped_column(Text, nullable=True)
    created_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), default=utcnow
    )
