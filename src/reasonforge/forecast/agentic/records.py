"""Records of longitudinal agentic forecasting: questions, belief notebooks, per-date forecasts, episodes.

A `Question` holds everything the environment knows, including the resolved outcome; what an agent may
see is only `Question.public_view(as_of)`, a whitelist of fields that never contains the outcome, the
resolution date, or market prices not yet published at `as_of` (late prices converge to the outcome).

Timestamps are timezone-aware and stored in UTC. Day-level keys (market prices dated `2015-09-05`)
follow the corpus convention: a value dated D counts as published at D 23:59:59 UTC.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator, Sequence
from datetime import UTC, date, datetime, time
from itertools import pairwise
from pathlib import Path
from typing import Any, TypeVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictFloat,
    ValidationError,
    field_validator,
    model_validator,
)

from reasonforge.boundary.files import DOCUMENT_JSON
from reasonforge.boundary.jsontext import scan_json
from reasonforge.errors import InputError, not_utf8

MASS_TOLERANCE = 0.01
"""A probability vector (market price, notebook belief) must sum to 1 within this tolerance."""

NOTEBOOK_MAX_ITEMS = 20
"""At most this many entries in each notebook list: the notebook is a summary, not a transcript."""

NOTEBOOK_MAX_CHARS = 500
"""At most this many characters per notebook entry (keeps the context carried forward bounded)."""

PUBLIC_FIELDS = ("id", "question", "outcomes", "resolution_criteria", "background", "tags")
"""The only `Question` fields an agent sees; everything else (outcome, resolution date, raw market
price history, forecast schedule) is withheld. `tags` must not encode the outcome (authors' duty)."""

END_OF_DAY = time(23, 59, 59, tzinfo=UTC)


def as_utc(value: datetime, what: str = "timestamp") -> datetime:
    """An aware datetime converted to UTC; naive datetimes are rejected (they would shift by the host's zone)."""
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValueError(f"{what} {value.isoformat()} needs a UTC offset (e.g. 2015-09-05T23:59:59Z)")
    return value.astimezone(UTC)


def parse_published(key: str) -> datetime:
    """When a dated value became public: an ISO date D → D 23:59:59 UTC; an ISO datetime → itself (aware)."""
    text = key.strip()
    if len(text) == 10:
        try:
            return datetime.combine(date.fromisoformat(text), END_OF_DAY)
        except ValueError:
            pass
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError as exc:
        raise ValueError(f"{key!r} is not an ISO date or datetime (e.g. 2015-09-05 or 2015-09-05T12:00:00Z)") from exc
    return as_utc(parsed, f"date key {key!r}")


def horizon_days(date_: datetime, resolution_date: datetime) -> float:
    """Days from a forecast date to resolution (positive before resolution)."""
    return (resolution_date - date_).total_seconds() / 86400.0


def config_label(agent: str, memory: bool) -> str:
    """An agent configuration's label: `agent`, or `agent+memory` when a notebook is carried between dates."""
    return f"{agent}+memory" if memory else agent


def forecast_id(question_id: str, date_: datetime) -> str:
    """The predictions-file id of one dated forecast: `question_id@date` (ISO-8601 in UTC)."""
    return f"{question_id}@{as_utc(date_, 'forecast date').isoformat()}"


def check_probability_vector(values: Sequence[float], n: int, what: str, tolerance: float = MASS_TOLERANCE) -> None:
    """Raise ValueError unless `values` is n finite numbers in [0, 1] summing to 1 ± tolerance."""
    if len(values) != n:
        raise ValueError(f"{what} has {len(values)} entries but the question has {n} outcomes")
    if not all(math.isfinite(v) and 0.0 <= v <= 1.0 for v in values):
        raise ValueError(f"{what} entries must be finite probabilities in [0, 1], got {list(values)}")
    total = math.fsum(values)
    if abs(total - 1.0) > tolerance:
        raise ValueError(f"{what} sums to {total:.6g}, not 1 (tolerance {tolerance})")


class Question(BaseModel):
    """A question with mutually exclusive outcomes, a forecast schedule and (once resolved) its outcome."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1)
    question: str = Field(min_length=1)
    outcomes: list[str] = Field(min_length=2, description="mutually exclusive, exhaustive, unique")
    resolution_criteria: str = ""
    forecast_dates: list[datetime] = Field(min_length=1, description="strictly ascending, before resolution_date")
    resolution_date: datetime
    outcome_index: int | None = Field(default=None, description="None until resolved; never shown to agents")
    market_prices: dict[str, list[float]] = Field(default_factory=dict,
                                                  description="ISO date or datetime → probability vector")
    background: str = ""
    tags: list[str] = Field(default_factory=list)

    @field_validator("forecast_dates")
    @classmethod
    def _dates_utc(cls, values: list[datetime]) -> list[datetime]:
        return [as_utc(v, "forecast date") for v in values]

    @field_validator("resolution_date")
    @classmethod
    def _resolution_utc(cls, value: datetime) -> datetime:
        return as_utc(value, "resolution_date")

    @field_validator("outcomes")
    @classmethod
    def _unique_outcomes(cls, values: list[str]) -> list[str]:
        # Case and surrounding spaces do not make outcomes distinct: "Yes" and "yes " would split mass.
        keys = [v.strip().casefold() for v in values]
        if any(not k for k in keys):
            raise ValueError("outcomes must be non-empty strings")
        if len(set(keys)) != len(keys):
            dupes = sorted({v for v, k in zip(values, keys, strict=True) if keys.count(k) > 1})
            raise ValueError(f"outcomes must be unique (ignoring case and spaces); repeated: {dupes}")
        return values

    @model_validator(mode="after")
    def _consistent(self) -> Question:
        dates = self.forecast_dates
        for earlier, later in pairwise(dates):
            if later <= earlier:
                raise ValueError(f"forecast_dates must be strictly ascending: {later.isoformat()} "
                                 f"follows {earlier.isoformat()}")
        if dates[-1] >= self.resolution_date:
            raise ValueError(f"forecast date {dates[-1].isoformat()} is not before resolution_date "
                             f"{self.resolution_date.isoformat()}")
        n = len(self.outcomes)
        if self.outcome_index is not None and not 0 <= self.outcome_index < n:
            raise ValueError(f"outcome_index {self.outcome_index} is outside outcomes (0..{n - 1})")
        for key, vector in self.market_prices.items():
            parse_published(key)
            check_probability_vector(vector, n, f"market price vector at {key!r}")
        return self

    @property
    def resolved(self) -> bool:
        """Whether the outcome is known."""
        return self.outcome_index is not None

    def market_price_at(self, as_of: datetime) -> list[float] | None:
        """The latest market price vector published at or before `as_of`, or None."""
        as_of = as_utc(as_of, "as_of")
        visible = [(parse_published(k), v) for k, v in self.market_prices.items() if parse_published(k) <= as_of]
        return list(max(visible, key=lambda kv: kv[0])[1]) if visible else None

    def public_view(self, as_of: datetime | None = None) -> dict[str, Any]:
        """What an agent may see: the PUBLIC_FIELDS whitelist, plus (with `as_of`) the date and the latest
        market price published by then. Never the outcome, resolution date or later prices."""
        view: dict[str, Any] = {name: json.loads(json.dumps(getattr(self, name))) for name in PUBLIC_FIELDS}
        if as_of is not None:
            view["as_of"] = as_utc(as_of, "as_of").isoformat()
            price = self.market_price_at(as_of)
            if price is not None:
                view["market_price"] = price
        return view


class Notebook(BaseModel):
    """The belief notebook carried from one forecast date to the next (memory-on episodes)."""

    model_config = ConfigDict(extra="forbid")

    # Strict numbers: "0.6" or true are format errors here as in a forecast, not values to coerce.
    beliefs: list[StrictFloat] = Field(min_length=1, description="a probability vector over the outcomes")
    key_evidence: list[str] = Field(default_factory=list, max_length=NOTEBOOK_MAX_ITEMS)
    open_questions: list[str] = Field(default_factory=list, max_length=NOTEBOOK_MAX_ITEMS)
    updated_at: datetime

    @field_validator("beliefs")
    @classmethod
    def _finite(cls, values: list[float]) -> list[float]:
        if not all(math.isfinite(v) and 0.0 <= v <= 1.0 for v in values):
            raise ValueError(f"beliefs must be finite probabilities in [0, 1], got {values}")
        return values

    @field_validator("key_evidence", "open_questions")
    @classmethod
    def _short(cls, values: list[str]) -> list[str]:
        for text in values:
            if len(text) > NOTEBOOK_MAX_CHARS:
                raise ValueError(f"notebook entries are limited to {NOTEBOOK_MAX_CHARS} characters "
                                 f"(got {len(text)}: {text[:40]!r}…)")
        return values

    @field_validator("updated_at")
    @classmethod
    def _updated_utc(cls, value: datetime) -> datetime:
        return as_utc(value, "updated_at")


class DateForecast(BaseModel):
    """One forecast date of an episode: the agent's raw reply, its parsed vector, scores and tool usage."""

    question_id: str
    date: datetime
    horizon_days: float
    raw: str
    probs: list[float] | None
    format_ok: bool
    format_errors: list[str] = Field(default_factory=list)
    brier: float
    log: float
    reward: float
    tool_calls: int = Field(default=0, ge=0)
    tool_rounds: int = Field(default=0, ge=0)
    evidence: list[str] = Field(default_factory=list, description="doc ids the agent searched or read")
    notebook: Notebook | None = None

    @field_validator("date")
    @classmethod
    def _date_utc(cls, value: datetime) -> datetime:
        return as_utc(value, "forecast date")


class EpisodeRecord(BaseModel):
    """One agent's forecasts on one question across its schedule, with the resolved outcome for scoring."""

    question_id: str
    agent: str
    memory: bool
    outcomes: list[str] = Field(min_length=2)
    outcome_index: int
    forecasts: list[DateForecast]

    @model_validator(mode="after")
    def _consistent(self) -> EpisodeRecord:
        n = len(self.outcomes)
        if not 0 <= self.outcome_index < n:
            raise ValueError(f"outcome_index {self.outcome_index} is outside outcomes (0..{n - 1})")
        for f in self.forecasts:
            if f.question_id != self.question_id:
                raise ValueError(f"forecast for {f.question_id!r} inside the episode of {self.question_id!r}")
            if f.probs is not None and len(f.probs) != n:
                raise ValueError(f"forecast at {f.date.isoformat()} has {len(f.probs)} probabilities for {n} outcomes")
        return self


M = TypeVar("M", bound=BaseModel)


def first_error(exc: ValidationError, prefix: str = "") -> str:
    """The first validation error as 'field.path: message' (optionally under `prefix`)."""
    err = exc.errors()[0]
    where = ".".join(str(p) for p in (prefix, *err["loc"]) if p != "")
    msg = str(err["msg"]).removeprefix("Value error, ")  # pydantic's prefix says nothing to a user
    return f"{where}: {msg}" if where else msg


def iter_jsonl(path: Path, model: type[M]) -> Iterator[tuple[int, M]]:
    """(line number, row) of a JSONL file validated as `model`; blank lines skipped; a bad row raises with file:line."""
    path = Path(path)
    try:
        handle = path.open(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror}; check the path", field="path") from exc
    try:
        with handle:
            for lineno, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                scan_json(line, f"{path}:{lineno}", DOCUMENT_JSON)  # depth, repeated keys, NaN: refused first
                try:
                    row = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise InputError(f"{path}:{lineno}: not valid JSON ({exc.msg}); each line must be one JSON "
                                     "object", field="path") from exc
                try:
                    yield lineno, model.model_validate(row)
                except ValidationError as exc:
                    raise InputError(f"{path}:{lineno}: invalid {model.__name__}: {first_error(exc)}",
                                     field="path") from exc
    except UnicodeDecodeError:
        raise not_utf8(path, field="path") from None


def load_questions(path: Path) -> list[Question]:
    """Questions from a JSONL file; an invalid row or a repeated id raises InputError naming file:line."""
    questions: list[Question] = []
    seen: dict[str, int] = {}
    for lineno, q in iter_jsonl(path, Question):
        if q.id in seen:
            raise InputError(f"{path}: question id {q.id!r} appears twice (rows {seen[q.id]} and {lineno}); "
                             "ids must be unique", field="id")
        seen[q.id] = lineno
        questions.append(q)
    return questions


def load_records(path: Path) -> list[EpisodeRecord]:
    """Episode records from a JSONL file (one EpisodeRecord per line)."""
    return [record for _, record in iter_jsonl(path, EpisodeRecord)]


def save_jsonl(path: Path, rows: Iterable[BaseModel]) -> int:
    """Write models as JSONL (overwriting); returns the number of rows written."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    count = 0
    with path.open("w", encoding="utf-8") as out:
        for row in rows:
            out.write(row.model_dump_json() + "\n")
            count += 1
    return count


def append_jsonl(path: Path, row: BaseModel) -> None:
    """Append one model as a JSONL line (resumable run output)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as out:
        out.write(row.model_dump_json() + "\n")
