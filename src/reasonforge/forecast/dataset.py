"""Forecast items (DESIGN §3.5): the schema, loaders for ForecastBench and harvested rows, filters.

A loader reads a JSONL file whose rows are either ForecastBench market-resolved rows
(`{forecast_due_date, question_set, question: {...}, resolution: {...}}`) or `ForecastItem` rows
(what `reasonforge forecast harvest` writes). Strict loading stops at the first invalid row with
`file:line`; lenient loading skips such rows and returns them as `RowIssue`s.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, time
from importlib import resources
from pathlib import Path
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from reasonforge.boundary.files import DOCUMENT_JSON
from reasonforge.boundary.jsontext import scan_json
from reasonforge.errors import InputError, not_utf8

DEFAULT_DATA_RESOURCE = ("data", "forecastbench", "questions.slice.jsonl")
"""The items used when `--data` is omitted: package data of `reasonforge.forecast` (pyproject's package-data),
not a repository path, so a wheel install has it too (the same file as the repo's data/forecastbench slice;
see its SOURCE.md)."""

DEFAULT_DATA = Path(__file__).resolve().parent.joinpath(*DEFAULT_DATA_RESOURCE)
"""The packaged default file on disk (any unzipped install); `default_data()` also serves a zipped one."""

NA = "N/A"  # ForecastBench writes this for an absent text field


class ForecastItem(BaseModel):
    """One question with its cutoff, settled outcome and the market's price at the cutoff."""

    model_config = ConfigDict(extra="ignore")

    id: str = Field(min_length=1, description="unique per row (a question may repeat across rounds)")
    question: str = Field(min_length=1)
    background: str | None = None
    resolution_criteria: str | None = None
    cutoff: datetime = Field(description="the 'as of' instant (UTC); nothing after it may be used")
    resolved_at: datetime
    outcome: Literal[0, 1]
    market_price: float = Field(ge=0.0, le=1.0, description="market probability of 1 at the cutoff")
    horizon_hours: float | None = Field(default=None, gt=0)
    volume: float | None = Field(default=None, ge=0)
    tags: list[str] = Field(default_factory=list)
    source: str = Field(min_length=1)
    url: str | None = None
    question_id: str = Field(default="", description="groups rows of one question (bootstrap unit); defaults to id")
    outcomes: list[str] | None = Field(default=None, description="multi-class items only")
    outcome_index: int | None = None

    @field_validator("cutoff", "resolved_at")
    @classmethod
    def _utc(cls, value: datetime) -> datetime:
        # Naive timestamps would silently shift by the machine's zone; cutoffs are UTC by contract.
        if value.tzinfo is None:
            raise ValueError("timestamp needs a UTC offset (e.g. 2026-08-25T00:00:00Z)")
        return value.astimezone(UTC)

    @model_validator(mode="after")
    def _consistent(self) -> ForecastItem:
        if not self.question_id:
            self.question_id = self.id
        if self.resolved_at < self.cutoff:
            raise ValueError(f"resolved_at {self.resolved_at.isoformat()} is before cutoff {self.cutoff.isoformat()}")
        if (self.outcomes is None) != (self.outcome_index is None):
            raise ValueError("multi-class items need both 'outcomes' and 'outcome_index'")
        if self.outcomes is not None and not 0 <= self.outcome_index < len(self.outcomes):  # type: ignore[operator]
            raise ValueError(f"outcome_index {self.outcome_index} is outside outcomes (0..{len(self.outcomes) - 1})")
        return self


class RowIssue(BaseModel):
    """An invalid row skipped by lenient loading."""

    file: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.message}"


class LoadedItems(BaseModel):
    """Items read from one file, plus the rows skipped (lenient loading only)."""

    items: list[ForecastItem]
    issues: list[RowIssue] = Field(default_factory=list)


class ForecastFilters(BaseModel):
    """Dataset filters (semantics as in the calibrated-forecasting reference)."""

    model_config = ConfigDict(extra="forbid")

    horizons: list[float] | None = Field(default=None, description="keep only these horizons, in hours")
    min_volume: float = Field(default=0.0, ge=0.0, description="drop markets thinner than this (USD)")
    exclude_near_certain: float = Field(
        default=0.0, ge=0.0, lt=0.5, description="drop items whose market price is within this of 0 or 1"
    )
    include_tags: list[str] | None = Field(default=None, description="keep items with one of these tags")
    exclude_tags: list[str] | None = Field(default=None, description="drop items with any of these tags")
    max_items: int | None = Field(default=None, ge=1, description="keep the earliest N by cutoff")


def load_items(path: str | Path, *, lenient: bool = False) -> LoadedItems:
    """Read a ForecastBench or ForecastItem JSONL file (format detected per row)."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"data file '{path}' does not exist; pass --data with a JSONL file", field="data")
    items: list[ForecastItem] = []
    issues: list[RowIssue] = []
    try:
        with path.open(encoding="utf-8") as handle:
            for line_no, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                try:
                    scan_json(line, "the row", DOCUMENT_JSON)  # depth, repeated keys, NaN: refused before decoding
                    items.append(parse_row(json.loads(line)))
                except (InputError, json.JSONDecodeError, ValueError, ValidationError, TypeError, KeyError) as exc:
                    issue = RowIssue(file=str(path), line=line_no, message=_why(exc))
                    if not lenient:
                        raise InputError(f"{issue}; fix the row or load leniently (--lenient) to skip it",
                                         field="data") from None
                    issues.append(issue)
    except UnicodeDecodeError:
        # raised by the line iterator, outside the per-row handler
        raise not_utf8(path, field="data") from None
    _check_unique_ids(items, path)
    return LoadedItems(items=items, issues=issues)


def _why(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "row"
        return f"{where}: {first['msg']}"
    if isinstance(exc, KeyError):
        return f"missing field {exc}"
    if isinstance(exc, json.JSONDecodeError):
        return f"invalid JSON ({exc.msg} at column {exc.colno})"
    return str(exc)


def _check_unique_ids(items: Sequence[ForecastItem], path: Path) -> None:
    seen: set[str] = set()
    for item in items:
        if item.id in seen:
            raise InputError(f"{path}: item id '{item.id}' appears twice; ids must be unique per file", field="data")
        seen.add(item.id)


def parse_row(row: Any) -> ForecastItem:
    """One JSON row (ForecastBench or ForecastItem shape) as a ForecastItem."""
    if not isinstance(row, dict):
        raise ValueError("row is not a JSON object")  # noqa: TRY004 - readers report every bad row as ValueError
    if "resolution" in row and isinstance(row.get("question"), dict):
        return from_forecastbench(row)
    return ForecastItem.model_validate(row)


def from_forecastbench(row: dict[str, Any]) -> ForecastItem:
    """A ForecastBench market-resolved row: freeze value = market price, resolved_to = outcome."""
    q, res = row["question"], row["resolution"]
    if res.get("resolved") is not True:
        raise ValueError("resolution.resolved is not true")
    resolved_to = res.get("resolved_to")
    if resolved_to not in (0, 1, 0.0, 1.0) or isinstance(resolved_to, bool):
        raise ValueError(f"resolution.resolved_to must be 0 or 1, got {resolved_to!r}")
    try:
        price = float(q["freeze_datetime_value"])
    except (TypeError, ValueError):
        raise ValueError(f"question.freeze_datetime_value is not a number: {q.get('freeze_datetime_value')!r}") from None
    source = str(q["source"])
    question_set = str(row.get("question_set", "")).removesuffix(".json")
    return ForecastItem(
        id=f"{question_set}/{source}/{q['id']}",
        question_id=f"{source}/{q['id']}",
        question=q["question"],
        background=_text(q.get("background")),
        resolution_criteria=_text(q.get("resolution_criteria")),
        cutoff=_utc_datetime(q["freeze_datetime"], "question.freeze_datetime"),
        resolved_at=_utc_datetime(res["resolution_date"], "resolution.resolution_date"),
        outcome=int(resolved_to),  # type: ignore[arg-type]
        market_price=price,
        source=f"forecastbench/{source}",
        url=_text(q.get("url")),
    )


def _text(value: Any) -> str | None:
    if value is None:
        return None
    text = str(value).strip()
    return None if not text or text == NA else text


def _utc_datetime(value: Any, field: str) -> datetime:
    """ISO date or datetime → aware UTC datetime (a bare date means midnight UTC)."""
    text = str(value).strip()
    try:
        if len(text) == 10:
            return datetime.combine(datetime.fromisoformat(text).date(), time(0), tzinfo=UTC)
        parsed = datetime.fromisoformat(text)
    except ValueError:
        raise ValueError(f"{field} is not an ISO-8601 date: {text!r}") from None
    if parsed.tzinfo is None:
        raise ValueError(f"{field} has no UTC offset: {text!r}")
    return parsed.astimezone(UTC)


def apply_filters(items: Iterable[ForecastItem], filters: ForecastFilters | None = None) -> list[ForecastItem]:
    """Items passing every filter, in chronological order of cutoff (ties by id)."""
    f = filters or ForecastFilters()
    kept = sorted(items, key=lambda item: (item.cutoff, item.id))
    if f.horizons is not None:
        wanted = {float(h) for h in f.horizons}
        # Items without a horizon (ForecastBench rows) cannot match a horizon filter.
        kept = [i for i in kept if i.horizon_hours is not None and float(i.horizon_hours) in wanted]
    if f.min_volume > 0:
        # Unknown volume cannot be shown to meet the floor, so it is dropped with the thin markets.
        kept = [i for i in kept if i.volume is not None and i.volume >= f.min_volume]
    if f.exclude_near_certain > 0:
        x = f.exclude_near_certain
        # Inclusive bounds, exact comparison: x = 0.05 keeps 0.05 and 0.95 (the 0.05–0.95 band) but drops
        # a stored 0.9500000000000001, as the shared data's own band figure does.
        kept = [i for i in kept if x <= i.market_price <= 1.0 - x]
    if f.include_tags:
        include = {t.casefold() for t in f.include_tags}
        kept = [i for i in kept if any(t.casefold() in include for t in i.tags)]
    if f.exclude_tags:
        exclude = {t.casefold() for t in f.exclude_tags}
        kept = [i for i in kept if not any(t.casefold() in exclude for t in i.tags)]
    if f.max_items is not None:
        kept = kept[: f.max_items]
    return kept


@contextmanager
def default_data() -> Iterator[Path]:
    """The packaged default data file (the ForecastBench slice) as a filesystem path while the block runs."""
    resource = resources.files("reasonforge.forecast").joinpath(*DEFAULT_DATA_RESOURCE)
    with resources.as_file(resource) as path:
        yield path


def load_dataset(path: str | Path | None = None, filters: ForecastFilters | None = None, *,
                 lenient: bool = False) -> LoadedItems:
    """Load a file (default: the packaged slice) and apply the filters."""
    if not path:
        with default_data() as default:
            loaded = load_items(default, lenient=lenient)
    else:
        loaded = load_items(path, lenient=lenient)
    return LoadedItems(items=apply_filters(loaded.items, filters), issues=loaded.issues)


@dataclass(frozen=True)
class ItemArrays:
    """Column view of binary items for the vectorised scorers (`group`: question index per row)."""

    outcome: NDArray[np.float64]
    market: NDArray[np.float64]
    group: NDArray[np.int64]
    n_questions: int


def item_arrays(items: Sequence[ForecastItem]) -> ItemArrays:
    """Outcomes, market prices and question groups as NumPy arrays (binary items only)."""
    if any(item.outcomes is not None for item in items):
        raise InputError("binary scoring got multi-class items; score them with the multi-class rules", field="data")
    index: dict[str, int] = {}
    group = np.fromiter((index.setdefault(item.question_id, len(index)) for item in items), dtype=np.int64,
                        count=len(items))
    return ItemArrays(
        outcome=np.fromiter((item.outcome for item in items), dtype=np.float64, count=len(items)),
        market=np.fromiter((item.market_price for item in items), dtype=np.float64, count=len(items)),
        group=group,
        n_questions=len(index),
    )
