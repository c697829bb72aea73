"""`POST /v1/verify`, `POST /v1/verify/reasoning`, `GET /v1/verify/{task_id}`, `GET /v1/verify/{task_id}/verdict`,
`DELETE /v1/verify/{task_id}`."""

from __future__ import annotations

import asyncio
import math
from typing import Annotated

from fastapi import APIRouter, Header, Path, Query, Response
from fastapi.concurrency import run_in_threadpool
from sqlalchemy.exc import IntegrityError

from reasonforge.errors import ReasonForgeError
from reasonforge.service.accounts import (
    Principal,
    quote_credits,
    reserve_credits,
)
from reasonforge.service.errors import (
    ConflictError,
    NotFoundError,
    ValidationFailedError,
)
from reasonforge.service.jobs import lane_of, store, to_response
from reasonforge.service.jobs.tables import JobRow
from reasonforge.service.routes.bodies import BatchRoute, JsonBodyRoute, VerifyRequestRoute
from reasonforge.service.routes.deps import Reader, State, Submitter
from reasonforge.service.routes.errors import ERROR_RESPONSES
from reasonforge.service.routes.state import AppState
from reasonforge.types import (
    BatchSubmission,
    JobStatus,
    ReasoningSubmission,
    TaskPage,
    VerificationVerdict,
    VerifyRequest,
    VerifyResponse,
)

TERMINAL = (JobStatus.COMPLETE, JobStatus.FAILED, JobStatus.CANCELLED)
TERMINAL_VALUES = frozenset(status.value for status in TERMINAL)

# The body is parsed by `chain.parse_request` first: the API refuses what the CLI refuses (routes/bodies.py).
router = APIRouter(tags=["verification"], route_class=VerifyRequestRoute)
# Reasoning as a model wrote it: a JSON body checked like any other, then split into a VerifyRequest.
reasoning_router = APIRouter(tags=["verification"], route_class=JsonBodyRoute)
BatchIdempotencyKey = Annotated[
    str | None,
    Header(alias="Idempotency-Key", min_length=1, max_length=240, description=(
        "Retry-safe batch: request i is queued under KEY#i, so the same key and body return the same tasks.")),
]
# Several requests at once, each parsed as POST /v1/verify parses one.
batch_router = APIRouter(tags=["verification"], route_class=BatchRoute)

TaskId = Annotated[
    str,
    Path(min_length=1, max_length=64, description="The task id from POST /v1/verify."),
]
IdempotencyKey = Annotated[
    str | None,
    Header(
        alias="Idempotency-Key",
        min_length=1,
        max_length=255,
        description="Retry-safe submission: the same key with the same body returns the same task; "
        "with a different body, 409.",
    ),
]


def validate_submission(request: VerifyRequest, state: AppState) -> None:
    """Everything that can be known wrong before queueing: 422 now rather than a failed job later."""
    from reasonforge.chain import validate_request
    from reasonforge.service.webhooks import validate_callback_url
    from reasonforge.translate.select import translator_for

    if request.task_id is not None:
        raise ValidationFailedError(
            "task_id is assigned by the service; omit it (send an Idempotency-Key header to make retries safe)",
            field="task_id",
        )
    try:
        validate_request(request)
        if request.translations is None:  # no offline translator, or no model endpoint for the mode asked
            translator_for(request, request.translator or state.settings.translator)
    except ReasonForgeError as exc:
        raise ValidationFailedError(exc.message, field=exc.field) from exc
    if request.callback_url is not None:
        validate_callback_url(
            request.callback_url, allow_private=state.settings.webhook_allow_private
        )
    if request.generate_certificate and state.certificates_unavailable:
        raise ValidationFailedError(
            f"this server cannot issue certificates ({state.certificates_unavailable}); "
            "resubmit with generate_certificate=false",
            field="generate_certificate",
        )


def _view(row: JobRow, state: AppState) -> VerifyResponse:
    """The job as the API shows it, saying so when a certificate job waits for the keys being built."""
    from reasonforge.service.jobs.certify import KEYS_PENDING_DETAIL, KeyState

    out = to_response(row, state.settings.public_base_url)
    waiting = out.status not in TERMINAL and state.keys.state() is KeyState.BUILDING
    if waiting and VerifyRequest.model_validate_json(row.request_json).generate_certificate:
        out.status_detail = KEYS_PENDING_DETAIL
    return out


def _replay(existing: JobRow, digest: str, key: str, state: AppState) -> VerifyResponse:
    if existing.request_hash != digest:
        raise ConflictError(
            f"Idempotency-Key {key!r} was used for a different request body (task {existing.task_id}); "
            "use a new key for a new request",
            field="Idempotency-Key",
        )
    return _view(existing, state)


def _charge(
    session, principal: Principal, task_id: str, request: VerifyRequest, state: AppState
) -> float:
    steps = len(request.reasoning_chain)
    if not state.settings.require_auth:
        return quote_credits(request.proof_level, steps, request.generate_certificate)
    return reserve_credits(
        session,
        principal,
        task_id=task_id,
        proof_level=request.proof_level,
        steps_total=steps,
        certificate=request.generate_certificate,
        commit=False,
    )


@router.post(
    "/v1/verify",
    status_code=202,
    response_model=VerifyResponse,
    responses=ERROR_RESPONSES,
    summary="Submit a reasoning chain for verification",
)
def submit(
    body: VerifyRequest,
    response: Response,
    principal: Submitter,
    state: State,
    idempotency_key: IdempotencyKey = None,
) -> VerifyResponse:
    """Queue a verification; poll `GET /v1/verify/{task_id}`, watch `WS /v1/stream`, or pass callback_url."""
    return _enqueue(body, response, principal, state, idempotency_key)


@reasoning_router.post(
    "/v1/verify/reasoning",
    status_code=202,
    response_model=VerifyResponse,
    responses=ERROR_RESPONSES,
    summary="Submit reasoning as a model wrote it (text or a provider's response)",
)
def submit_reasoning(
    body: ReasoningSubmission,
    response: Response,
    principal: Submitter,
    state: State,
    idempotency_key: IdempotencyKey = None,
) -> VerifyResponse:
    """Split plain reasoning text or a provider's raw response (OpenAI, Anthropic, DeepSeek, `<think>`) into steps
    and queue it like `POST /v1/verify`; the task's request shows the steps it was split into."""
    from reasonforge.chain import request_from_reasoning

    try:
        request = request_from_reasoning(body)
    except ReasonForgeError as exc:
        raise ValidationFailedError(exc.message, field="reasoning") from exc
    return _enqueue(request, response, principal, state, idempotency_key)


@batch_router.post(
    "/v1/verify/batch",
    status_code=202,
    response_model=TaskPage,
    responses=ERROR_RESPONSES,
    summary="Submit several reasoning chains at once",
)
def submit_batch(body: BatchSubmission, response: Response, principal: Submitter, state: State,
                 idempotency_key: BatchIdempotencyKey = None) -> TaskPage:
    """Queue each request as `POST /v1/verify` would (each charged, each its own task), in order; every request is
    checked before any is queued, so a bad one refuses the batch and queues nothing. With an Idempotency-Key,
    request i is queued under `KEY#i`: a retried batch returns the same tasks."""
    for index, request in enumerate(body.requests):
        try:
            validate_submission(request, state)
        except ValidationFailedError as exc:
            raise ValidationFailedError(f"requests[{index}]: {exc.message}", field=f"requests[{index}]") from None
    tasks = []
    for index, request in enumerate(body.requests):
        each = Response()
        tasks.append(_enqueue(request, each, principal, state,
                              f"{idempotency_key}#{index}" if idempotency_key is not None else None))
        if "Idempotent-Replayed" in each.headers:
            response.headers["Idempotent-Replayed"] = "true"
    return TaskPage(tasks=tasks)


PageLimit = Annotated[int, Query(ge=1, le=100, description="Tasks per page (newest first).")]
StatusFilter = Annotated[JobStatus | None, Query(description="Only tasks in this status.")]
Cursor = Annotated[str | None, Query(max_length=200, description="`next_cursor` of the page before.")]


@router.get(
    "/v1/verify",
    response_model=TaskPage,
    responses=ERROR_RESPONSES,
    summary="List this key's tasks",
)
def list_tasks(principal: Reader, state: State, status: StatusFilter = None, limit: PageLimit = 20,
               cursor: Cursor = None) -> TaskPage:
    """The caller's tasks, newest first, `limit` per page, optionally only those in one `status`."""
    after = _cursor(cursor)
    with state.jobs.sessionmaker() as session:
        rows = store.list_jobs(session, principal.key_id, status=status, before=after, limit=limit + 1)
        page = [_view(row, state) for row in rows[:limit]]
    more = len(rows) > limit
    last = rows[limit - 1] if more else None
    return TaskPage(tasks=page, next_cursor=f"{last.created_at!r}:{last.task_id}" if last is not None else None)


def _cursor(cursor: str | None) -> tuple[float, str] | None:
    if cursor is None:
        return None
    created, _, task_id = cursor.partition(":")
    try:
        value = float(created)
    except ValueError:
        value = math.nan
    if not task_id or not math.isfinite(value):
        raise ValidationFailedError("cursor is not a next_cursor this API returned", field="cursor")
    return value, task_id


def _enqueue(body: VerifyRequest, response: Response, principal: Principal, state: AppState,
             idempotency_key: str | None) -> VerifyResponse:
    from reasonforge.translate.select import resolve_mode

    validate_submission(body, state)
    digest = store.request_hash(body)
    sm = state.jobs.sessionmaker
    if idempotency_key is not None:
        with sm() as session:
            existing = store.find_by_idempotency_key(
                session, principal.key_id, idempotency_key
            )
            if existing is not None:
                response.headers["Idempotent-Replayed"] = "true"
                return _replay(existing, digest, idempotency_key, state)
    # A fresh session whose first statement is the charge's write (SQLite: no stale read snapshot).
    with sm() as session:
        task_id = store.new_task_id()
        cost = _charge(session, principal, task_id, body, state)
        try:
            row = store.insert_job(
                session,
                task_id=task_id,
                owner_key_id=principal.key_id,
                request=body,
                idempotency_key=idempotency_key,
                cost_credits=cost,
                digest=digest,
                lane=lane_of(body, resolve_mode(body.translator or state.settings.translator)),
            )
            session.commit()
        except IntegrityError:
            # A concurrent request with the same Idempotency-Key won the insert (its charge stands, ours rolls back).
            session.rollback()
            existing = store.find_by_idempotency_key(
                session, principal.key_id, idempotency_key or ""
            )
            if existing is None:
                raise
            response.headers["Idempotent-Replayed"] = "true"
            return _replay(existing, digest, idempotency_key or "", state)
        out = _view(row, state)
    state.queue.enqueue(task_id)
    response.headers["Location"] = f"/v1/verify/{task_id}"
    return out


MAX_WAIT_S = 60.0

WaitS = Annotated[
    float,
    Query(ge=0, le=MAX_WAIT_S, description=(
        "Long-poll: hold the request up to this many seconds until the task ends (answered as soon as it does); "
        "0 answers at once. One request per verdict instead of a polling loop.")),
]


@router.get(
    "/v1/verify/{task_id}",
    response_model=VerifyResponse,
    responses=ERROR_RESPONSES,
    summary="Poll a task (or long-poll it with ?wait=)",
)
async def get_task(
    task_id: TaskId,
    principal: Reader,
    state: State,
    wait: WaitS = 0.0,
) -> VerifyResponse:
    """The task's status and, once complete, its verdict (only the submitting key sees it)."""

    def read() -> VerifyResponse:
        with state.jobs.sessionmaker() as session:
            row = session.get(JobRow, task_id)
            if row is None or row.owner_key_id != principal.key_id:
                raise NotFoundError(f"no task {task_id} for this API key", field="task_id")
            return _view(row, state)

    if wait <= 0:
        return await run_in_threadpool(read)
    # Watched before the read: an end between the two is not missed.
    ended = await state.hub.watch(task_id)
    try:
        out = await run_in_threadpool(read)
        if out.status not in TERMINAL:
            try:
                event = await asyncio.wait_for(ended, wait)
            except TimeoutError:
                return out
            # The hub read the finished job for its stream clients already (None: the server is stopping).
            response = event.get("response") if event else None
            out = VerifyResponse.model_validate(response) if response else await run_in_threadpool(read)
    finally:
        state.hub.unwatch(task_id, ended)
    return out


@router.get(
    "/v1/verify/{task_id}/verdict",
    response_model=VerificationVerdict,
    responses={k: v for k, v in ERROR_RESPONSES.items() if k in (401, 403, 404, 409, 422, 429)},
    summary="The signed verdict of a finished task (JSON)",
)
def get_verdict(task_id: TaskId, principal: Reader, state: State) -> Response:
    """The whole verdict as computed, with this service's signature (`signature`; key: GET /v1/verdict-key):
    give it to `reasonforge report --trust KEY` for a report that vouches for it."""
    with state.jobs.sessionmaker() as session:
        row = session.get(JobRow, task_id)
        if row is None or row.owner_key_id != principal.key_id:
            raise NotFoundError(f"no task {task_id} for this API key", field="task_id")
        if row.verdict_json is None:
            raise ConflictError(f"task {task_id} has no verdict ({row.status}); ask again once it is complete",
                                field="task_id")
        return Response(row.verdict_json, media_type="application/json", headers={"Cache-Control": "private, no-store"})


@router.delete(
    "/v1/verify/{task_id}",
    response_model=VerifyResponse,
    responses=ERROR_RESPONSES,
    summary="Cancel a task",
)
def cancel_task(
    task_id: TaskId,
    principal: Submitter,
    state: State,
) -> VerifyResponse:
    """Cancel a queued or running task (a running attempt's result is discarded); 409 once it finished."""
    sm = state.jobs.sessionmaker
    if not store.cancel(sm, task_id, principal.key_id):
        with sm() as session:
            row = session.get(JobRow, task_id)
            if row is None or row.owner_key_id != principal.key_id:
                raise NotFoundError(
                    f"no task {task_id} for this API key", field="task_id"
                )
            raise ConflictError(
                f"task {task_id} already ended ({row.status}); nothing to cancel",
                field="task_id",
            )
    with sm() as session:
        return to_response(session.get(JobRow, task_id), state.settings.public_base_url)
