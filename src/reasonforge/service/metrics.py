"""Prometheus metrics of one API process: request latencies, jobs by status, and the work the jobs did.

Jobs are counted in the store at scrape time, so the figure is right however many API and worker
processes there are. The work metrics (verifications by domain, level and verdict; checker latency per
checker; sandbox kills by reason; where chains first fail) are folded in from the verdicts of jobs that
finished since this process started, read from the store at each scrape: a job run by a Celery worker on
another machine counts like one run here. Several API processes each report the whole store's work since
they started, so aggregate them with max(), not sum(). Each app gets its own registry (no process-global
collectors)."""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Iterator

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
)
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily
from prometheus_client.registry import Collector
from sqlalchemy import select
from sqlalchemy.orm import sessionmaker
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from reasonforge.service.jobs import store
from reasonforge.service.jobs.tables import CertificateTimingRow, JobRow
from reasonforge.service.work import FINISHED, KILL_REASONS, work_facts
from reasonforge.types import JobStatus

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


CHECKER_BUCKETS = (0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)
PROVE_BUCKETS = (0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 30.0, 60.0, 120.0, 300.0)
SCRAPE_BATCH = 2000
"""Finished jobs folded in per scrape at most; a backlog is taken over the next scrapes."""

WORK_METRICS = {
    "reasonforge_verifications_total": "Finished verifications by domain, proof level and overall verdict.",
    "reasonforge_checker_duration_seconds": "Time one checker took on one step, by checker.",
    "reasonforge_sandbox_kills_total": "Steps whose check was stopped by a limit, by reason.",
    "reasonforge_first_failure_step_total": "Refuted chains by the position (1-based) of their first failing step.",
    "reasonforge_jobs_failed_total": "Jobs that ended failed (the service could not verify them).",
    "reasonforge_certificate_prove_seconds": "Time to prove and sign one certificate (Groth16 and attestations).",
}


class _WorkCollector(Collector):
    """Cumulative work metrics folded in from verdicts of jobs that finish after this process started."""

    def __init__(self, sm: sessionmaker) -> None:
        self._sm = sm
        self._lock = threading.Lock()
        self._cursor: tuple[float, str] = (time.time(), "")
        self._verifications: dict[tuple[str, str, str], int] = {}
        self._checker: dict[str, list[float]] = {}  # checker -> per-bucket counts (+Inf last), then the sum
        self._prove: list[float] = [0.0] * (len(PROVE_BUCKETS) + 2)
        self._cert_cursor: tuple[float, str] = self._cursor
        self._kills: dict[str, int] = {}
        self._first_failure: dict[str, int] = {}
        self._failed_jobs = 0

    def _fold(self) -> None:
        after, last_id = self._cursor
        with self._sm() as session:
            rows = session.execute(
                select(JobRow.finished_at, JobRow.task_id, JobRow.status, JobRow.verdict_json)
                .where((JobRow.finished_at > after) | ((JobRow.finished_at == after) & (JobRow.task_id > last_id)))
                .where(JobRow.status.in_(FINISHED))
                .order_by(JobRow.finished_at, JobRow.task_id)
                .limit(SCRAPE_BATCH)
            ).all()
            timings = session.execute(
                select(CertificateTimingRow.created_at, CertificateTimingRow.certificate_id,
                       CertificateTimingRow.prove_seconds)
                .where((CertificateTimingRow.created_at > self._cert_cursor[0])
                       | ((CertificateTimingRow.created_at == self._cert_cursor[0])
                          & (CertificateTimingRow.certificate_id > self._cert_cursor[1])))
                .order_by(CertificateTimingRow.created_at, CertificateTimingRow.certificate_id)
                .limit(SCRAPE_BATCH)
            ).all()
        for created_at, certificate_id, seconds in timings:
            self._cert_cursor = (created_at, certificate_id)
            _add(self._prove, PROVE_BUCKETS, seconds)
        for finished_at, task_id, status, verdict_json in rows:
            self._cursor = (finished_at, task_id)
            if status == JobStatus.FAILED.value:
                self._failed_jobs += 1
            if verdict_json:
                self._count(json.loads(verdict_json))

    def _count(self, verdict: dict) -> None:
        facts = work_facts(verdict)
        key = (facts.domain, facts.level, facts.overall)
        self._verifications[key] = self._verifications.get(key, 0) + 1
        for checker, seconds in facts.checker_seconds:
            self._observe(checker, seconds)
        for reason in facts.kills:
            self._kills[reason] = self._kills.get(reason, 0) + 1
        if facts.first_failure is not None:
            label = str(facts.first_failure)
            self._first_failure[label] = self._first_failure.get(label, 0) + 1

    def _observe(self, checker: str, seconds: float) -> None:
        _add(self._checker.setdefault(checker, [0.0] * (len(CHECKER_BUCKETS) + 2)), CHECKER_BUCKETS, seconds)

    def describe(self) -> Iterator:
        """Nothing to describe ahead of a scrape (the families are built from the store when scraped)."""
        return iter(())

    def collect(self) -> Iterator:
        with self._lock:
            try:
                self._fold()
            except Exception:  # a scrape must not fail because the database blinked: report what is known
                log.warning("could not read finished jobs for /metrics", exc_info=True)
            verifications = CounterMetricFamily("reasonforge_verifications", WORK_METRICS[
                "reasonforge_verifications_total"], labels=["domain", "level", "verdict"])
            for labels, count in sorted(self._verifications.items()):
                verifications.add_metric(list(labels), count)
            checker = HistogramMetricFamily("reasonforge_checker_duration_seconds", WORK_METRICS[
                "reasonforge_checker_duration_seconds"], labels=["checker"])
            for name, counts in sorted(self._checker.items()):
                checker.add_metric([name], _buckets(CHECKER_BUCKETS, counts), sum_value=counts[-1])
            prove = HistogramMetricFamily("reasonforge_certificate_prove_seconds", WORK_METRICS[
                "reasonforge_certificate_prove_seconds"])
            prove.add_metric([], _buckets(PROVE_BUCKETS, self._prove), sum_value=self._prove[-1])
            kills = CounterMetricFamily("reasonforge_sandbox_kills", WORK_METRICS["reasonforge_sandbox_kills_total"],
                                        labels=["reason"])
            for reason in KILL_REASONS:
                kills.add_metric([reason], self._kills.get(reason, 0))
            first = CounterMetricFamily("reasonforge_first_failure_step", WORK_METRICS[
                "reasonforge_first_failure_step_total"], labels=["step"])
            for step, count in sorted(self._first_failure.items()):
                first.add_metric([step], count)
            failed = CounterMetricFamily("reasonforge_jobs_failed", WORK_METRICS["reasonforge_jobs_failed_total"])
            failed.add_metric([], self._failed_jobs)
        yield from (verifications, checker, prove, kills, first, failed)


def _add(counts: list[float], bounds: tuple[float, ...], seconds: float) -> None:
    """One observation into cumulative bucket counts (+Inf after the bounds), the sum last."""
    for i, bound in enumerate(bounds):
        if seconds <= bound:
            counts[i] += 1
    counts[len(bounds)] += 1
    counts[-1] += seconds


def _buckets(bounds: tuple[float, ...], counts: list[float]) -> list[tuple[str, float]]:
    return list(zip([*(str(b) for b in bounds), "+Inf"], counts[:-1], strict=True))


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
        self.gas = Counter(
            "reasonforge_registry_gas",
            "Gas used by the transactions this API process sent to on-chain registries, by operation.",
            ["operation"],
            registry=self.registry,
        )
        self.gas.labels("forecast_commit")  # exported at 0 from the start, so a dashboard's query has a series
        self.registry.register(_JobsCollector(sm))
        self.registry.register(_WorkCollector(sm))

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
