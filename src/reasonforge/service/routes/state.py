"""Everything one API process holds while it runs (on `app.state.rf`)."""

from __future__ import annotations

from dataclasses import dataclass

from reasonforge.service.accounts import RateLimiter
from reasonforge.service.jobs import JobContext, JobQueue
from reasonforge.service.jobs.certify import KeyBuilder
from reasonforge.service.metrics import ServiceMetrics
from reasonforge.service.settings import ServiceSettings
from reasonforge.service.stream import StreamHub


@dataclass
class AppState:
    """The API's handles: store, queue, limiter, metrics, stream hub, certificate capability, and the public key
    its verdicts are signed with (the one its own pages trust)."""

    settings: ServiceSettings
    jobs: JobContext
    queue: JobQueue
    limiter: RateLimiter
    metrics: ServiceMetrics
    hub: StreamHub
    certificates_unavailable: str | None
    keys: KeyBuilder
    verdict_key: str
