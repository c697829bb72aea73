"""Commit–reveal forecasts: `POST /v1/forecasts/commitments` registers a batch root on the service's
ForecastRegistry; `POST /v1/forecasts/reveals` scores only the reveals that match registered roots."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from reasonforge.certificate.forecast_records import BatchRecord
from reasonforge.forecast.commit.batch import HEX32, Opening
from reasonforge.forecast.commit.certificate import Scores
from reasonforge.forecast.commit.match import Counted, Excluded
from reasonforge.forecast.dataset import ForecastItem
from reasonforge.service.errors import ConflictError, NotFoundError, ServiceError
from reasonforge.service.routes.bodies import JsonBodyRoute
from reasonforge.service.routes.deps import State, Submitter
from reasonforge.service.routes.errors import ERROR_RESPONSES, ErrorBody
from reasonforge.service.routes.state import AppState

router = APIRouter(tags=["forecasts"], route_class=JsonBodyRoute)

# The caps are below what the default 1 MiB body (REASONFORGE_MAX_BODY_BYTES) holds of the smallest valid entries, so
# a list one over a cap reaches the model and is refused as a 422 naming the list, as the schema's maxItems says; a
# cap above that (20,000 was) made the body limit's 413 answer first, and the declared maxItems was never what bit.
MAX_ITEMS = 5_000
MAX_REVEALS = 2_000
ADDRESS = r"^0x[0-9a-fA-F]{40}$"
# RFC 3339 date-time, offset required (what the schema's `format: date-time` means), as JSON Schema checkers read it
RFC3339 = re.compile(r"\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})")
RESPONSES = {**ERROR_RESPONSES,
             503: {"model": ErrorBody, "description": "The ForecastRegistry's node does not answer."}}


class RegistryUnavailable(ServiceError):
    """The service has no ForecastRegistry configured, or its node does not answer."""

    code = "forecast_registry_unavailable"
    status_code = 503


class CommitmentRequest(BaseModel):
    """The public part of a batch (from `reasonforge forecast commit`)."""

    model_config = ConfigDict(extra="forbid")

    root: str = Field(pattern=HEX32)
    count: int = Field(ge=1, lt=1 << 32, strict=True)
    scope: str = Field(pattern=HEX32, description="question-set digest")
    sender: str | None = Field(default=None, pattern=ADDRESS, description="node account committing (default: its first)")


class CommitmentResponse(BaseModel):
    """The registry's record (timestamp = block time) and the transaction."""

    batch: BatchRecord
    tx_hash: str
    block_number: int
    gas_used: int


def _rfc3339(value: Any) -> Any:
    # pydantic's lax datetime also takes 0, 1.5, "1700000000" (Unix time), "2000-01-01" and offsets without a
    # colon; the schema says a date-time string, so only that (or an aware datetime, from Python) goes through
    if isinstance(value, datetime) and value.tzinfo is not None:
        return value
    if isinstance(value, str) and RFC3339.fullmatch(value):
        return value
    raise ValueError("must be an RFC 3339 date-time string with a UTC offset (e.g. 2026-08-25T00:00:00Z)")


Cutoff = Annotated[datetime, BeforeValidator(_rfc3339)]


class RevealItem(BaseModel):
    """A question of the set: its cutoff, settled outcome and market price at the cutoff."""

    model_config = ConfigDict(extra="forbid", strict=True)

    id: str = Field(min_length=1, max_length=200)
    cutoff: Cutoff = Field(strict=False, description="UTC instant (RFC 3339 with offset); a forecast counts only if committed before it")
    outcome: int = Field(ge=0, le=1)
    market_price: float = Field(ge=0.0, le=1.0)

    def item(self) -> ForecastItem:
        """As a ForecastItem (resolved at the cutoff: only the cutoff matters here)."""
        return ForecastItem(id=self.id, question=self.id, cutoff=self.cutoff, resolved_at=self.cutoff,
                            outcome=1 if self.outcome else 0, market_price=self.market_price, source="api")


class RevealsRequest(BaseModel):
    """Openings to score against the question set (ids, cutoffs, outcomes, market prices)."""

    model_config = ConfigDict(extra="forbid")

    reveals: list[Opening] = Field(min_length=1, max_length=MAX_REVEALS)
    items: list[RevealItem] = Field(min_length=1, max_length=MAX_ITEMS)
    forecaster: str | None = Field(default=None, pattern=ADDRESS)


class RevealsResponse(BaseModel):
    """Scores over matched reveals and every exclusion with its reason."""

    forecaster: str
    roots: list[str]
    scores: Scores
    excluded: list[Excluded]
    complete: bool


def _chain(state: AppState):
    from reasonforge.certificate import forecast_registry as fr
    from reasonforge.certificate.common import certificate_dir

    settings = state.settings
    if not settings.forecast_rpc_url or not settings.forecast_registry:
        # 404: the resource (a registry) does not exist here; 503 is kept for a configured node that is down
        raise NotFoundError("this service has no ForecastRegistry configured (set forecast_rpc_url and "
                                  "forecast_registry)", field="registry")
    try:
        w3 = fr.connect(settings.forecast_rpc_url)
    except fr.RegistryError as exc:
        raise RegistryUnavailable(exc.message, field="registry") from None
    compiled = fr.compile_forecast_registry(certificate_dir(settings.home) / "contracts" / "forecast")
    return w3, compiled, settings.forecast_registry


@router.post("/v1/forecasts/commitments", response_model=CommitmentResponse, status_code=201,
             responses=RESPONSES, summary="Register a forecast batch root")
def register_commitment(body: CommitmentRequest, state: State, _principal: Submitter) -> CommitmentResponse:
    """commit(root, count, scope) on the registry; 409 when the root is already registered."""
    from reasonforge.certificate import forecast_registry as fr

    w3, compiled, address = _chain(state)
    try:
        receipt = fr.commit(w3, compiled, address, body.root, body.count, body.scope, body.sender)
    except fr.RegistryError as exc:
        if "RootAlreadyCommitted" in exc.message:
            raise ConflictError(f"root {body.root} is already registered", field="root") from None
        raise RegistryUnavailable(exc.message, field="registry") from None
    state.metrics.gas.labels("forecast_commit").inc(receipt.gas_used)
    return CommitmentResponse(**receipt.model_dump())


def _keep(state: AppState, forecaster: str, scope: str, scored: list[Counted], outcomes: dict[str, int]) -> None:
    """Store the scored forecasts (for the dashboard's reliability diagram)."""
    import time

    from reasonforge.service.jobs.tables import ForecastRevealRow

    now = time.time()
    with state.jobs.sessionmaker.begin() as session:
        for counted in scored:
            session.merge(ForecastRevealRow(forecaster=forecaster.lower(), scope=scope, item_id=counted.item_id,
                                            probability_ppm=counted.probability_ppm,
                                            outcome=outcomes[counted.item_id], created_at=now))


@router.post("/v1/forecasts/reveals", response_model=RevealsResponse, responses=RESPONSES,
             summary="Score revealed forecasts")
def score_reveals(body: RevealsRequest, state: State, _principal: Submitter) -> RevealsResponse:
    """Only reveals whose leaf opens a registered root, committed before the cutoff, one per item, are scored."""
    from reasonforge.errors import InputError
    from reasonforge.forecast.commit.batch import question_set_digest
    from reasonforge.forecast.commit.certificate import compute_scores
    from reasonforge.forecast.commit.onchain import match_on_chain

    if len({i.id for i in body.items}) != len(body.items):
        raise InputError("items: ids must be unique", field="items")
    try:
        items = [i.item() for i in body.items]
    except ValueError as exc:  # a naive cutoff
        raise InputError(f"items: {exc.errors()[0]['msg'] if hasattr(exc, 'errors') else exc}", field="items") from None
    w3, compiled, address = _chain(state)
    match, batches = match_on_chain(w3, compiled, address, body.reveals, items, question_set_digest(items),
                                    body.forecaster)
    _keep(state, match.forecaster, match.scope, match.scored, {i.id: i.outcome for i in items})
    return RevealsResponse(forecaster=match.forecaster, roots=[b.root for b in batches],
                           scores=compute_scores(match.scored, items), excluded=match.excluded,
                           complete=match.complete)
