"""Prometheus metrics of one API process: request latencies, and jobs by status read from the store.

Jobs are counted in the store at scrape time, so the figure is right however many API and worker
processes there are. Each app gets its own registry (no process-global collectors).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector
from sqlalchemy.orm import sessionmaker
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from reasonforge.service.jobs import store

log = logging.getLogger(__name__)

METRICS_CONTENT_TYPE = CONTENT_TYPE_LATEST
_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)


class _JobsCollector(Collector):
    """`reasonforge_jobs{status=...}` from a GROUP BY on the job table."""

    def __init__(self, sm: sessionmaker) -> None:
        self._sm = sm

    def collect(self) -> Iterator[GaugeMetricFamily]:
        family = GaugeMetricFamily(
            "reasonforge_jobs", "Jobs in the store by status.", labels=["status"]
        )
        try:
            with self._sm() as session:
                counts = store.status_counts(session)
        except Exception:  # a scrape must not fail because the database blinked
            log.warning("could not count jobs for /metrics", exc_info=True)
            return
        for status, count in counts.items():
            family.add_metric([status], count)
        yield family


class ServiceMetrics:
    """The app's registry and the request instruments."""

    def __init__(self, sm: sessionmaker) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self.latency = Histogram(
            "reasonforge_http_request_duration_seconds",
            "HTTP request latency by method, route template and status code.",
            ["method", "route", "status"],
            buckets=_BUCKETS,
            registry=self.registry,
        )
        self.websockets = Counter(
            "reasonforge_stream_connections",
            "WebSocket stream connections accepted.",
            registry=self.registry,
        )
        self.registry.register(_JobsCollector(sm))

    def render(self) -> bytes:
        """The Prometheus text exposition of every metric."""
        return generate_latest(self.registry)


class LatencyMiddleware:
    """Times every HTTP request; the route label is the matched template (bounded cardinality)."""

    def __init__(self, app: ASGIApp, metrics: ServiceMetrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500

        async def record_status(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, record_status)
        finally:
            route = scope.get("route")
            template = getattr(route, "path", None) or "unmatched"
            self.metrics.latency.labels(scope["method"], template, str(status)).observe(
                time.perf_counter() - started
            )
