"""Service settings from environment variables prefixed `REASONFORGE_` (e.g. `REASONFORGE_DATABASE_URL`)."""

from __future__ import annotations

import os
from enum import Enum
from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from reasonforge.types import TranslatorMode


def default_home() -> Path:
    """$REASONFORGE_HOME, default ~/.reasonforge (shared with the CLI's certificate keys)."""
    return Path(os.environ.get("REASONFORGE_HOME") or Path.home() / ".reasonforge")


class QueueKind(str, Enum):
    """Where jobs run: a worker pool inside the API process, or Celery workers on Redis."""

    INPROCESS = "inprocess"
    CELERY = "celery"


class ServiceSettings(BaseSettings):
    """Everything `reasonforge serve` and `reasonforge worker` read; defaults need no other server."""

    model_config = SettingsConfigDict(env_prefix="REASONFORGE_", extra="ignore")

    home: Path = Field(default_factory=default_home, description="Data dir: SQLite store, keys, certificates.")
    database_url: str | None = Field(default=None, description="SQLAlchemy URL; default sqlite:///$HOME/service.db.")
    queue: QueueKind = QueueKind.INPROCESS
    redis_url: str = "redis://127.0.0.1:6379/0"
    workers: int = Field(default=2, ge=1, description="Job processes of the embedded queue (each fed by its own threads).")
    quick_workers: int = Field(default=1, ge=0, description=(
        "Job processes of the embedded queue's quick lane, beside `workers`: they take only quick jobs (maths and "
        "logic by the rules, below formal), so those never wait behind code, formal or model jobs; 0: none."))
    request_threads: int = Field(default=8, ge=1, le=256,
                                 description="Threads running the API's blocking handlers (database work).")
    lease_seconds: float = Field(default=300.0, gt=0, description="A claimed job not finished by then is retried.")
    stop_grace_s: float = Field(default=20.0, ge=0, le=3600, description=(
        "On shutdown, running jobs get this long to finish; the rest are handed back to the queue at once."))
    max_attempts: int = Field(default=3, ge=1, description="Claims of one job before it is marked failed.")
    max_body_bytes: int = Field(default=1024 * 1024, gt=0, description="Larger request bodies get 413.")
    public_base_url: str = Field(default="http://127.0.0.1:8000", description="Prefix of certificate_url.")
    rate_limit_per_minute: int = Field(default=120, ge=1, description="Requests per key per minute.")
    webhook_secret: str | None = Field(default=None, description="HMAC key for webhooks; default: generated in home.")
    verdict_signing_key: Path | None = Field(default=None, description=(
        "File holding the Ed25519 seed this service signs every verdict it computes with; default "
        "$home/verdict_signing_key, created on first start. Its public key: GET /v1/verdict-key, or "
        "`reasonforge verdict-key`."))
    webhook_allow_private: bool = Field(default=False, description="Allow callbacks to private/loopback addresses.")
    validator_state: Path | None = Field(default=None, description=(
        "A validator's state file (`reasonforge subnet`), read by the dashboard's miner leaderboard."))
    forecast_rpc_url: str | None = Field(default=None, description="JSON-RPC URL of the ForecastRegistry's node (commit-reveal endpoints).")
    forecast_registry: str | None = Field(default=None, description="ForecastRegistry address; unset: the commit-reveal endpoints answer 404.")
    webhook_max_attempts: int = Field(default=5, ge=1)
    webhook_backoff_s: float = Field(default=1.0, gt=0, description="First retry delay; doubles each attempt.")
    webhook_timeout_s: float = Field(default=10.0, gt=0, description="Per-attempt timeout of a webhook POST.")
    require_auth: bool = Field(default=True, description="Off only for trusted local use.")
    translator: TranslatorMode | None = Field(default=None, description=(
        "Translator for requests that name none: rules, model or ensemble; default: ensemble when a model endpoint "
        "(REASONFORGE_MODEL_BASE_URL / REASONFORGE_MODEL) is configured, else rules."))
    certificate_circuit: str = Field(
        default="full", pattern="^(full|small)$", description="Certificate circuit: full, or small (reduced; tests)."
    )
    build_keys_at_start: bool = Field(default=True, description=(
        "Build the certificate circuit keys when the server starts (a one-off, about a minute), so the first "
        "certificate does not wait for them; off: the first certificate job builds them."))
    job_retention_days: float = Field(
        default=30.0, gt=0, description="Finished and cancelled jobs older than this are deleted (certificates stay)."
    )
    sweep_interval_s: float = Field(
        default=1.0, gt=0, description="How often expired leases are reclaimed and lost messages re-sent."
    )
    resend_after_s: float = Field(
        default=120.0, gt=0, description="A queued job unclaimed this long is published again (a lost message)."
    )

    def resolved_verdict_signing_key(self) -> Path:
        """The configured key file, or the one under `home`."""
        return self.verdict_signing_key or Path(self.home) / "verdict_signing_key"

    def resolved_database_url(self) -> str:
        """The configured URL, or the SQLite file under `home`."""
        return self.database_url or f"sqlite:///{self.home / 'service.db'}"
