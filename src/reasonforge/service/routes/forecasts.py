"""`POST /v1/forecasts/score`: proper scores of a batch of forecasts against supplied outcomes."""

from __future__ import annotations

import math

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field, model_validator

from reasonforge.service.routes.bodies import JsonBodyRoute
from reasonforge.service.routes.deps import Submitter
from reasonforge.service.routes.errors import ERROR_RESPONSES

router = APIRouter(tags=["forecasts"], route_class=JsonBodyRoute)

MAX_FORECASTS = 100_000


class ForecastToScore(BaseModel):
    """One forecast: a probability of outcome 1, or a model reply ending in a `PROBABILITY:` line."""

    # exactly one of probability / reply, in the schema as the validator below enforces it
    # strict: `false` is not a price of 0, nor `true` an outcome of 1
    model_config = ConfigDict(extra="forbid", strict=True, json_schema_extra={"oneOf": [
        {"required": ["probability"], "not": {"required": ["reply"]},
         "properties": {"probability": {"type": "number"}}},
        {"required": ["reply"], "not": {"required": ["probability"]}, "properties": {"reply": {"type": "string"}}},
    ]})

    id: str | None = Field(default=None, max_length=200)
    probability: float | None = Field(default=None, ge=0.0, le=1.0)
    reply: str | None = Field(
        default=None,
        max_length=100_000,
        description="Parsed strictly; an unparseable reply scores as a miss.",
    )
    outcome: int = Field(ge=0, le=1, strict=True, description="1 if the event happened, else 0.")
    market_price: float | None = Field(
        default=None, ge=0.0, le=1.0, description="Market probability at the cutoff."
    )
    question_id: str | None = Field(
        default=None,
        max_length=200,
        description="Rows of one question are resampled together.",
    )

    @model_validator(mode="after")
    def _one_source(self) -> ForecastToScore:
        if (self.probability is None) == (self.reply is None):
            raise ValueError("give exactly one of probability or reply")
        return self


class ScoreRequest(BaseModel):
    """A batch to score; `resamples` > 0 adds question-clustered bootstrap intervals."""

    model_config = ConfigDict(extra="forbid")

    forecasts: list[ForecastToScore] = Field(min_length=1, max_length=MAX_FORECASTS)
    resamples: int = Field(default=1000, ge=0, le=10_000, strict=True)  # strict: `true` is not 1
    seed: int = Field(default=0, strict=True)


class ScoredForecast(BaseModel):
    """Per-forecast scores (rewards higher-better in [0, 1]; losses lower-better)."""

    id: str | None
    probability: float | None = Field(description="null when the reply did not parse.")
    brier: float
    brier_reward: float
    log_loss: float
    log_reward: float


class ScoreResponse(BaseModel):
    """Per-item scores, their means, and the full metric report when every item has a market price."""

    n_items: int
    n_parsed: int
    mean: dict[str, float]
    items: list[ScoredForecast]
    report: dict | None = Field(
        default=None,
        description="reasonforge.forecast.metrics.ScoreReport (market skill, CIs) when prices are given.",
    )


def score_batch(request: ScoreRequest) -> ScoreResponse:
    """Score with the forecast room's rules and metrics (the same code as `reasonforge forecast score`)."""
    import numpy as np

    from reasonforge.forecast.metrics import score
    from reasonforge.forecast.parse import parse_probability
    from reasonforge.forecast.rules import (
        brier_reward,
        log_loss,
        log_reward,
        squared_error,
    )

    probs = [
        f.probability if f.reply is None else parse_probability(f.reply)
        for f in request.forecasts
    ]
    p = np.array([math.nan if v is None else v for v in probs], dtype=np.float64)
    o = np.array([f.outcome for f in request.forecasts], dtype=np.float64)
    columns = {
        "brier": squared_error(p, o),
        "brier_reward": brier_reward(p, o),
        "log_loss": log_loss(p, o),
        "log_reward": log_reward(p, o),
    }
    items = [
        ScoredForecast(
            id=f.id,
            probability=probs[i],
            **{name: float(col[i]) for name, col in columns.items()},
        )
        for i, f in enumerate(request.forecasts)
    ]
    report = None
    if all(f.market_price is not None for f in request.forecasts):
        market = np.array([f.market_price for f in request.forecasts], dtype=np.float64)
        groups = [
            f.question_id if f.question_id is not None else f"row-{i}"
            for i, f in enumerate(request.forecasts)
        ]
        report = score(
            p, o, market, groups, resamples=request.resamples, seed=request.seed
        ).model_dump(mode="json")
    return ScoreResponse(
        n_items=len(items),
        n_parsed=int(np.count_nonzero(~np.isnan(p))),
        mean={name: float(col.mean()) for name, col in columns.items()},
        items=items,
        report=report,
    )


@router.post(
    "/v1/forecasts/score",
    response_model=ScoreResponse,
    responses=ERROR_RESPONSES,
    summary="Score forecasts",
)
def score_forecasts(
    body: ScoreRequest,
    _principal: Submitter,
) -> ScoreResponse:
    """Brier and log scores per forecast and on average; market skill and bootstrap CIs with market prices."""
    return score_batch(body)
