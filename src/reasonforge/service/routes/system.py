"""`GET /v1/stats`, `GET /v1/verdict-key`, `GET /healthz`, `GET /metrics` and the `WS /v1/stream` endpoint."""

from __future__ import annotations

from fastapi import APIRouter, Response, WebSocket
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, Field
from sqlalchemy import func, select, text

from reasonforge.service.errors import ServiceError
from reasonforge.service.jobs import store
from reasonforge.service.jobs.certify import KeyState
from reasonforge.service.jobs.tables import CertificateRow, JobRow
from reasonforge.service.metrics import METRICS_CONTENT_TYPE
from reasonforge.service.pages import PAGE_HEADERS, landing_page
from reasonforge.service.routes.deps import Reader, State, stream_owner
from reasonforge.service.routes.errors import ERROR_RESPONSES, ErrorBody
from reasonforge.service.routes.state import AppState
from reasonforge.service.stream import serve_stream
from reasonforge.types import JobStatus, Overall

router = APIRouter(tags=["service"])


class ServiceStats(BaseModel):
    """Totals over every job in this service's store."""

    jobs: dict[str, int] = Field(description="Jobs by status.")
    verdicts: dict[str, int] = Field(description="Finished verdicts by overall result.")
    steps_total: int = Field(description="Steps in chains that reached a verdict.")
    steps_verified: int
    certificates_issued: int
    mean_verification_time_ms: float | None = Field(
        description="Over completed jobs; null when none."
    )
    queue: str = Field(description="inprocess or celery.")


class Health(BaseModel):
    """Liveness, the store's reachability and whether certificates can be issued right away."""

    status: str
    database: str
    queue: str
    certificate_keys: KeyState = Field(description=(
        "ready; `building keys` (a fresh server builds them at start, about a minute: certificate jobs wait); "
        "`not built` (REASONFORGE_BUILD_KEYS_AT_START is off: the first certificate job builds them); failed "
        "(certificate jobs will fail, see the log); unavailable (certificates are refused)."))


class VerdictKey(BaseModel):
    """The public key this service signs every verdict with."""

    algorithm: str = Field(description="Always ed25519.")
    public_key: str = Field(description=(
        "Hex Ed25519 public key: trust it with `reasonforge report --trust KEY` (or REASONFORGE_TRUSTED_VERDICT_KEYS) "
        "and the reports of this service's verdicts are attested."))


class StoreUnavailable(ServiceError):
    """The job store does not answer."""

    code = "store_unavailable"
    status_code = 503


@router.get(
    "/v1/stats",
    response_model=ServiceStats,
    responses=ERROR_RESPONSES,
    summary="Service statistics",
)
def stats(
    _principal: Reader,
    state: State,
) -> ServiceStats:
    """Jobs by status, verdicts by result, steps and certificates, mean verification time."""
    with state.jobs.sessionmaker() as session:
        verdicts = {o.value: 0 for o in Overall}
        for overall, count in session.execute(
            select(JobRow.overall, func.count())
            .where(JobRow.overall.is_not(None))
            .group_by(JobRow.overall)
        ):
            verdicts[overall] = count
        steps_total, steps_verified = session.execute(
            select(
                func.coalesce(func.sum(JobRow.steps_total), 0),
                func.coalesce(func.sum(JobRow.steps_verified), 0),
            ).where(JobRow.overall.is_not(None))
        ).one()
        mean_ms = session.scalar(
            select(func.avg(JobRow.verification_time_ms)).where(
                JobRow.status == JobStatus.COMPLETE.value
            )
        )
        return ServiceStats(
            jobs=store.status_counts(session),
            verdicts=verdicts,
            steps_total=int(steps_total),
            steps_verified=int(steps_verified),
            certificates_issued=session.scalar(
                select(func.count()).select_from(CertificateRow)
            )
            or 0,
            mean_verification_time_ms=float(mean_ms) if mean_ms is not None else None,
            queue=state.settings.queue.value,
        )


@router.get("/v1/verdict-key", response_model=VerdictKey, summary="The key verdicts are signed with")
def verdict_key(state: State) -> VerdictKey:
    """The public key of the signature every verdict of this service carries (no API key needed: it is public).
    Get it from a source you trust, not only from the server whose verdicts it vouches for."""
    return VerdictKey(algorithm="ed25519", public_key=state.verdict_key)


@router.get(
    "/healthz",
    response_model=Health,
    responses={
        503: {"model": ErrorBody, "description": "The job store does not answer."}
    },
)
def healthz(state: State) -> Health:
    """200 when the process is up and the store answers; 503 otherwise."""
    try:
        with state.jobs.sessionmaker() as session:
            session.execute(text("SELECT 1"))
    except Exception as exc:
        raise StoreUnavailable(
            f"the job store does not answer: {type(exc).__name__}"
        ) from exc
    return Health(status="ok", database="ok", queue=state.settings.queue.value, certificate_keys=state.keys.state())


@router.get("/", response_class=HTMLResponse, summary="Landing page (HTML)", tags=["pages"])
def landing(state: State) -> HTMLResponse:
    """What this server is, with links to its documentation, health and metrics."""
    page = landing_page(queue=state.settings.queue.value, certificate_keys=state.keys.state().value)
    return HTMLResponse(page, headers=PAGE_HEADERS)


@router.get("/metrics", response_class=Response, summary="Prometheus metrics")
def metrics(state: State) -> Response:
    """Prometheus text format: request latencies by route, jobs by status."""
    return Response(state.metrics.render(), media_type=METRICS_CONTENT_TYPE)


@router.websocket("/v1/stream")
async def stream(ws: WebSocket) -> None:
    """Live status events of the caller's tasks (protocol in `reasonforge.service.stream`)."""
    state: AppState = ws.app.state.rf
    state.metrics.websockets.inc()
    await serve_stream(
        ws,
        state.hub,
        state.jobs.sessionmaker,
        state.settings.public_base_url,
        stream_owner(state),
    )
