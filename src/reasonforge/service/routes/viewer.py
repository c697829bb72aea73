"""Pages for people: `GET /verdicts` (the key's verdicts), `GET /verdicts/{task_id}` (the verdict page), `GET /dashboard` (the service at a glance), and
`GET /v1/verify/{task_id}/report.pdf` (the compliance report).

A verdict and its report are shown to the submitting key and to admin keys; the dashboard only to an admin key. Pages are
for a browser, which cannot send a Bearer header by itself: they also take HTTP Basic with the API key as the
password (any user name), so the browser asks for it.

The page and the report trust one key: this service's own verdict key. A stored verdict it did not sign (one
recorded before verdicts were signed, or written into the store by anything else) is shown as unattested."""

from __future__ import annotations

import base64
import binascii
import re
import time
from html import escape
from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Request
from fastapi.responses import HTMLResponse, Response

from reasonforge.certificate import VerificationCertificate
from reasonforge.errors import ReasonForgeError, ToolUnavailableError
from reasonforge.report import (
    PAGE_CSP,
    Listed,
    ReportTemplate,
    VerdictView,
    build_view,
    compliance_report,
    listing_page,
    verdict_page,
)
from reasonforge.service.accounts import Principal, Scope
from reasonforge.service.dashboard import DASHBOARD_CSP, ForecastRow, dashboard_page, gather
from reasonforge.service.errors import (
    ConflictError,
    NotFoundError,
    ServiceError,
    UnauthorizedError,
    UnavailableError,
)
from reasonforge.service.jobs import store
from reasonforge.service.jobs.progress import read_progress
from reasonforge.service.jobs.tables import CertificateRow, JobRow
from reasonforge.service.pages import document, job_page
from reasonforge.service.routes.certificates import certificate_html
from reasonforge.service.routes.deps import Reader, State, resolve_principal
from reasonforge.service.routes.errors import ERROR_RESPONSES, ErrorBody
from reasonforge.service.routes.state import AppState
from reasonforge.types import JobStatus, VerificationVerdict, VerifyRequest

router = APIRouter()

PAGE_HEADERS = {"Content-Security-Policy": PAGE_CSP, "X-Content-Type-Options": "nosniff",
                "Referrer-Policy": "no-referrer", "Cache-Control": "private, no-store"}
_REALM = 'Basic realm="ReasonForge verdicts", charset="UTF-8"'
_UNFINISHED = {JobStatus.QUEUED.value, JobStatus.TRANSLATING.value, JobStatus.VERIFYING.value}

TaskId = Annotated[str, Path(min_length=1, max_length=64, description="The task id from POST /v1/verify.")]
_HTML: dict[str, Any] = {"content": {"text/html": {}}}
# what every page answers a caller it refuses
_REFUSED: dict[int | str, dict[str, Any]] = {
    403: {"description": "The key lacks the read scope.", **_HTML},
    429: {"description": "Rate limit exceeded; see Retry-After.", **_HTML},
}


def bearer_from_page_header(authorization: str | None) -> str | None:
    """`Basic base64(user:key)` as `Bearer key`; any other header unchanged (a bad Basic header stays invalid)."""
    if authorization is None:
        return None
    scheme, _, value = authorization.strip().partition(" ")
    if scheme.lower() != "basic":
        return authorization
    try:
        decoded = base64.b64decode(value.strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return "Bearer (unreadable Basic credentials)"
    return f"Bearer {decoded.partition(':')[2]}"


def _load(state: AppState, task_id: str, principal: Principal) -> tuple[JobRow, VerificationCertificate | None]:
    """The job and its certificate, for its owner or an admin key (an admin reads every key's verdicts, as the
    dashboard shows them all); anyone else is told there is no such task, never that it is someone else's."""
    admin = Scope.ADMIN.value in principal.scopes
    with state.jobs.sessionmaker() as session:
        row = session.get(JobRow, task_id)
        if row is None or (row.owner_key_id != principal.key_id and not admin):
            raise NotFoundError(f"no task {task_id} for this API key", field="task_id")
        session.expunge(row)
        certificate = None
        if row.certificate_id:
            stored = session.get(CertificateRow, row.certificate_id)
            if stored is not None:
                certificate = VerificationCertificate.model_validate_json(stored.certificate_json)
    return row, certificate


def _view(state: AppState, row: JobRow, certificate: VerificationCertificate | None) -> VerdictView:
    """The view of a finished job, attested only by this service's own signature (or a certificate it can check
    that such a key attested)."""
    vk: str | None = None
    if certificate is not None:
        from reasonforge.certificate.common import certificate_dir

        path = certificate_dir(state.settings.home) / "keys" / certificate.verification_key.circuit / \
            "verification_key.json"
        try:
            vk = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):  # no keys built here: the certificate cannot count, and says so
            vk = None
    return build_view(VerifyRequest.model_validate_json(row.request_json),
                      VerificationVerdict.model_validate_json(row.verdict_json or ""), certificate=certificate,
                      page_base_url=state.settings.public_base_url, trusted_keys=frozenset({state.verdict_key}),
                      verification_key=vk)


def _page(title: str, body: str, status: int, headers: dict[str, str] | None = None) -> HTMLResponse:
    return HTMLResponse(document(title, body), status_code=status, headers={**PAGE_HEADERS, **(headers or {})})


class _Refused(Exception):
    """A page request without the key it needs: the HTML answer to send instead."""

    def __init__(self, response: HTMLResponse) -> None:
        self.response = response


def _page_caller(request: Request, state: AppState, scope: Scope, what: str) -> Principal:
    try:
        return resolve_principal(state, bearer_from_page_header(request.headers.get("authorization")), scope.value)
    except ServiceError as exc:
        extra = {"WWW-Authenticate": _REALM} if isinstance(exc, UnauthorizedError) else {}
        raise _Refused(_page(f"{what} not shown", f"<h1>{escape(what)} not shown</h1><p>{escape(exc.message)}</p>",
                             exc.status_code, {**exc.headers, **extra})) from exc


MAX_LISTED = 500


@router.get(
    "/verdicts",
    response_class=HTMLResponse,
    summary="This key's verdicts (HTML)",
    tags=["pages"],
    responses={
        200: {"description": f"The key's latest {MAX_LISTED} finished verdicts, with counts and filters.", **_HTML},
        401: {"description": "No or a wrong API key: the browser is asked for it.", **_HTML},
        **_REFUSED,
    },
)
def verdicts_html(request: Request, state: State) -> HTMLResponse:
    """The caller's finished verdicts on one page (as `reasonforge view` lists a results file), each linking to
    its verdict page."""
    try:
        principal = _page_caller(request, state, Scope.READ, "Verdicts")
    except _Refused as refused:
        return refused.response
    with state.jobs.sessionmaker() as session:
        rows = store.list_jobs(session, principal.key_id, status=JobStatus.COMPLETE, limit=MAX_LISTED)
        listed = [Listed(label=row.task_id, verdict=VerificationVerdict.model_validate_json(row.verdict_json),
                         page=f"/verdicts/{row.task_id}") for row in rows if row.verdict_json]
    return HTMLResponse(listing_page(listed, f"the latest {len(listed)} verdicts of this API key"),
                        headers=PAGE_HEADERS)


@router.get(
    "/verdicts/{task_id}",
    response_class=HTMLResponse,
    summary="Verdict page (HTML)",
    tags=["pages"],
    responses={
        200: {"description": "The verdict step by step, or the job's status while it runs.", **_HTML},
        401: {"description": "No or a wrong API key: the browser is asked for it (HTTP Basic, the key as the "
                             "password).", **_HTML},
        404: {"description": "No such task for this key.", **_HTML},
        **_REFUSED,
    },
)
def verdict_html(task_id: TaskId, request: Request, state: State) -> HTMLResponse:
    """One verdict for a person: each step with its status, claim, artifact and checker, the step DAG, the failure
    and its cascade, the certificate."""
    try:
        principal = _page_caller(request, state, Scope.READ, "Verdict")
    except _Refused as refused:
        return refused.response
    try:
        row, certificate = _load(state, task_id, principal)
    except NotFoundError as exc:
        return _page("Verdict not shown", f"<h1>Verdict not shown</h1><p>{escape(exc.message)}</p>", 404)
    if row.status in _UNFINISHED or row.verdict_json is None:
        refresh = {"Refresh": "5"} if row.status in _UNFINISHED else {}
        running = time.time() - row.started_at if row.started_at is not None else None
        page = job_page(task_id, row.status, VerifyRequest.model_validate_json(row.request_json),
                        read_progress(row), error=row.error, running_for_s=running)
        return HTMLResponse(page, headers={**PAGE_HEADERS, **refresh})
    return HTMLResponse(verdict_page(_view(state, row, certificate)), headers=PAGE_HEADERS)


@router.get(
    "/v1/verify/{task_id}/report.pdf",
    response_class=Response,
    summary="Compliance report of a finished task (PDF)",
    tags=["verification"],
    responses={200: {"description": "The report.", "content": {"application/pdf": {}}},
               **{k: v for k, v in ERROR_RESPONSES.items() if k in (401, 403, 404, 409, 422, 429)},
               503: {"model": ErrorBody, "description": "The server lacks the fonts the report embeds (the "
                                                         "message says which)."}},
)
def report_pdf(
    task_id: TaskId,
    principal: Reader,
    state: State,
    template: Annotated[ReportTemplate, Query(description="plain, or framed for eu_ai_act, fda or sec.")] = (
        ReportTemplate.PLAIN),
) -> Response:
    """The query and chain, each step's verdict with its artifact and checker specification, the failure and its
    cascade, the certificate and its validators, the methodology and a chain of custody of hashes."""
    row, certificate = _load(state, task_id, principal)
    if row.verdict_json is None:
        raise ConflictError(f"task {task_id} has no verdict ({row.status}); ask again once it is complete",
                            field="task_id")
    try:
        view = _view(state, row, certificate)
    except ReasonForgeError as exc:  # a stored verdict that does not match its request: never for our own jobs
        raise ConflictError(exc.message, field="task_id") from exc
    try:
        pdf = compliance_report(view, template)
    except ToolUnavailableError as exc:  # the server's fonts: nothing the caller can fix
        raise UnavailableError(f"the report cannot be written on this server: {exc.message}") from exc
    return Response(pdf, media_type="application/pdf", headers={
        "Content-Disposition": f'attachment; filename="reasonforge-{task_id}-{template.value}.pdf"',
        "Cache-Control": "private, no-store"})


def _forecast_scores(state: AppState) -> tuple[list[ForecastRow], str]:
    """The score certificates on the service's ForecastRegistry, or a note saying why none are shown."""
    from reasonforge.certificate import forecast_registry as fr
    from reasonforge.certificate.common import certificate_dir

    settings = state.settings
    if not settings.forecast_rpc_url or not settings.forecast_registry:
        return [], ("No ForecastRegistry configured (set REASONFORGE_FORECAST_RPC_URL and "
                    "REASONFORGE_FORECAST_REGISTRY).")
    try:
        w3 = fr.connect(settings.forecast_rpc_url)
        compiled = fr.compile_forecast_registry(certificate_dir(settings.home) / "contracts" / "forecast")
        scores = fr.registered_scores(w3, compiled, settings.forecast_registry)
    except ReasonForgeError as exc:
        return [], f"The ForecastRegistry cannot be read now: {exc.message}"
    rows = [ForecastRow.from_ppm(cert_id, s.forecaster, s.scope, s.scored, s.brier_ppm, s.log_loss_ppm,
                                 s.market_skill_ppm) for cert_id, s in scores]
    return rows, "" if rows else "No score certificate is registered yet."


@router.get(
    "/dashboard",
    response_class=HTMLResponse,
    summary="Dashboard (HTML)",
    tags=["pages"],
    responses={
        200: {"description": "Volume and success rate by domain and level, first failing steps, checker latency, "
                             "the miner leaderboard.", **_HTML},
        401: {"description": "No or a wrong API key: the browser is asked for it.", **_HTML},
        403: {"description": "The key is not an admin key.", **_HTML},
        429: {"description": "Rate limit exceeded; see Retry-After.", **_HTML},
    },
)
def dashboard(request: Request, state: State) -> HTMLResponse:
    """The service at a glance for the team that runs it (an admin key)."""
    try:
        _page_caller(request, state, Scope.ADMIN, "Dashboard")
    except _Refused as refused:
        return refused.response
    board = gather(state.jobs.sessionmaker, validator_state=state.settings.validator_state,
                   forecasts=_forecast_scores(state))
    return HTMLResponse(dashboard_page(board), headers={**PAGE_HEADERS, "Content-Security-Policy": DASHBOARD_CSP})


@router.get(
    "/dashboard/certificate",
    summary="Certificate lookup (the certificate page)",
    tags=["pages"],
    response_class=HTMLResponse,
    responses={
        200: {"description": "The certificate page, re-checked now.", **_HTML},
        404: {"description": "No such certificate: an HTML page, or the JSON error body when only JSON is accepted.",
              "content": {"text/html": {}, "application/json": {"schema": {"$ref": "#/components/schemas/ErrorBody"}}}},
        422: {"description": "Not a certificate id (0x + 64 hex digits).", **_HTML},
    },
)
def certificate_lookup(
    request: Request,
    state: State,
    id: Annotated[str, Query(description="A certificate id: 0x + 64 hex digits.")] = "",
) -> Response:
    """The dashboard's lookup form: the certificate's public page (the same as /verify/{id})."""
    cert_id = id.strip().lower()
    if len(cert_id) != 66 or re.fullmatch(r"0x[0-9a-f]{64}", cert_id) is None:
        return _page("Not a certificate id", f"<h1>Not a certificate id</h1><p>'{escape(id[:80])}' is not 0x "
                     "followed by 64 hex digits.</p>", 422)
    return certificate_html(cert_id, request, state)
