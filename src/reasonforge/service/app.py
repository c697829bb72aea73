"""`create_app(settings)`: the verification API (FastAPI; OpenAPI at /docs and /openapi.json)."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator

from fastapi import FastAPI

from reasonforge.service.accounts import make_rate_limiter
from reasonforge.service.jobs import make_context, make_queue
from reasonforge.service.jobs.certify import KeyBuilder, certificates_unavailable
from reasonforge.service.metrics import LatencyMiddleware, ServiceMetrics
from reasonforge.service.routes import certificates, forecast_commits, forecasts, system, verify, viewer
from reasonforge.service.routes.errors import install_error_handlers
from reasonforge.service.routes.middleware import BodyLimitMiddleware
from reasonforge.service.routes.state import AppState
from reasonforge.service.settings import ServiceSettings
from reasonforge.service.stream import StreamHub
from reasonforge.service.verdict_key import ensure_verdict_key

log = logging.getLogger(__name__)

DESCRIPTION = """Machine-checked verification of AI reasoning chains.

Submit a chain with `POST /v1/verify` (202, status `queued`), then poll `GET /v1/verify/{task_id}`,
watch `WS /v1/stream`, or pass `callback_url` for a signed webhook. Authenticate with
`Authorization: Bearer rf_...` (`reasonforge keys create --name NAME`). Every verdict is signed with the
service's key (its public key: `GET /v1/verdict-key`); `GET /v1/verify/{task_id}/verdict` gives the signed
verdict JSON, which `reasonforge report --trust KEY` vouches for. Every error has the body
`{"error": {"code", "message", "field"}}`. A failure of the job as a whole (not of one step) is
reported in `failure_points` with `step_id` 0.
"""


def create_app(settings: ServiceSettings | None = None) -> FastAPI:
    """The API with its store, queue (in-process workers or Celery), limiter, metrics and stream hub."""
    settings = settings or ServiceSettings()
    verdict_key = ensure_verdict_key(settings)  # first start: create it now, so the workers that sign find it
    jobs = make_context(settings)
    metrics = ServiceMetrics(jobs.sessionmaker)
    unavailable = certificates_unavailable(settings)
    hub = StreamHub(jobs.sessionmaker, settings.public_base_url)
    state = AppState(
        settings=settings,
        jobs=jobs,
        queue=make_queue(jobs, on_finished=hub.wake),
        limiter=make_rate_limiter(settings),
        metrics=metrics,
        hub=hub,
        certificates_unavailable=unavailable,
        keys=KeyBuilder(settings, unavailable),
        verdict_key=verdict_key,
    )
    if state.certificates_unavailable:
        log.warning(
            "certificates are disabled on this server: %s",
            state.certificates_unavailable,
        )

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        import anyio.to_thread

        # Request handlers are short database work: more threads than this only take turns at the interpreter
        # lock (and the SQLite write gate) while holding a transaction open; extra requests wait on the loop.
        anyio.to_thread.current_default_thread_limiter().total_tokens = settings.request_threads
        state.keys.start()  # first, so the keys build while the job processes warm up
        state.queue.start()
        state.hub.start()
        try:
            yield
        finally:
            await state.hub.stop()
            state.queue.stop()
            close = getattr(state.limiter, "close", None)
            if close is not None:
                close()
            jobs.close()

    app = FastAPI(
        title="ReasonForge verification API",
        version="1",
        description=DESCRIPTION,
        lifespan=lifespan,
    )
    app.state.rf = state
    install_error_handlers(app)
    for module in (verify, certificates, forecasts, forecast_commits, system, viewer):
        app.include_router(module.router)
    app.include_router(verify.reasoning_router)
    app.include_router(verify.batch_router)
    # Outermost first: time everything (413s included), then cap the body before anything parses it.
    app.add_middleware(BodyLimitMiddleware, limit=settings.max_body_bytes)
    app.add_middleware(LatencyMiddleware, metrics=metrics)
    return app
