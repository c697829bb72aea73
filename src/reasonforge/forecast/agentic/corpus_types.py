"""The dated corpus's data types, errors and time rules (no tantivy here, so they import cheaply).

Time rules, in one place:
- Everything is a timezone-aware UTC datetime. Naive `datetime` objects are rejected: they would be read
  in the host's zone and could shift a document across an `as_of` bound.
- A document dated by day only (`2015-09-05`) counts as published at 23:59:59 UTC that day, so it is
  visible only to `as_of >= 2015-09-05T23:59:59Z` (conservative: never show what might not be out yet).
- Publication times are kept to whole seconds, rounded *up* (the index stores seconds; rounding up never
  makes a document visible earlier than it was published).
- `as_of` given as a bare date means 00:00:00 UTC that day (plain ISO): that day's items are not visible
  yet. Pass `2015-09-05T23:59:59Z` or `2015-09-06` to include them.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, time, timedelta

from pydantic import BaseModel, Field, field_validator, model_validator

from reasonforge.errors import InputError, ReasonForgeError

END_OF_DAY = time(23, 59, 59, tzinfo=UTC)
_DATE_ONLY = re.compile(r"^\d{4}-\d{2}-\d{2}$")


class LeakError(ReasonForgeError):
    """A document published after `as_of` reached a caller: always a bug in the corpus, never user error."""

    code = "leak_error"


class DocumentNotAvailable(InputError):
    """Unknown id, or published after `as_of`: one message for both, so reads are not a date oracle."""

    code = "document_not_available"


def _to_utc(value: datetime, what: str) -> datetime:
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValueError(f"{what} {value.isoformat()} has no UTC offset; give an aware datetime "
                         "(e.g. 2015-09-05T23:59:59+00:00)")
    return value.astimezone(UTC)


def ceil_to_second(value: datetime) -> datetime:
    """`value` rounded up to a whole second (the index's precision), never earlier than `value`."""
    if value.microsecond == 0:
        return value
    return value.replace(microsecond=0) + timedelta(seconds=1)


def parse_published_at(value: str | date | datetime) -> datetime:
    """A publication time: ISO date D → D 23:59:59 UTC; ISO datetime without offset → UTC; aware → UTC."""
    if isinstance(value, datetime):
        return ceil_to_second(_to_utc(value, "published_at"))
    if isinstance(value, date):
        return datetime.combine(value, END_OF_DAY)
    if not isinstance(value, str):
        raise TypeError(f"published_at must be an ISO date or datetime string, got {type(value).__name__}")
    text = value.strip()
    try:
        if _DATE_ONLY.match(text):
            return datetime.combine(date.fromisoformat(text), END_OF_DAY)
        parsed = datetime.fromisoformat(text)
    except ValueError:
        raise ValueError(f"published_at {value!r} is not an ISO date or datetime "
                         "(e.g. 2015-09-05 or 2015-09-05T14:30:00Z)") from None
    if parsed.tzinfo is None:  # data files rarely carry offsets; UTC is the documented reading
        parsed = parsed.replace(tzinfo=UTC)
    return ceil_to_second(parsed.astimezone(UTC))


def parse_as_of(value: str | datetime) -> datetime:
    """ISO date (→ 00:00:00 UTC) or datetime (no offset → UTC) → aware UTC datetime; InputError otherwise."""
    if isinstance(value, datetime):
        try:
            return _to_utc(value, "as_of")
        except ValueError as exc:
            raise InputError(str(exc), field="as_of") from None
    text = value.strip() if isinstance(value, str) else ""
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        raise InputError(f"as_of {value!r} is not an ISO date or datetime; use e.g. 2015-09-05 (00:00 UTC) "
                         "or 2015-09-05T23:59:59Z", field="as_of") from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.astimezone(UTC)


def check_as_of(as_of: datetime) -> datetime:
    """`as_of` as aware UTC; a naive or non-datetime value is an InputError (it would be ambiguous)."""
    if not isinstance(as_of, datetime):
        raise InputError(f"as_of must be a datetime, got {type(as_of).__name__}; parse strings with parse_as_of",
                         field="as_of")
    return parse_as_of(as_of)


class Document(BaseModel):
    """One dated article: `published_at` is aware UTC, whole seconds (rounded up)."""

    id: str = Field(min_length=1, max_length=512)
    title: str
    text: str
    source: str = ""
    url: str = ""
    published_at: datetime

    @field_validator("id")
    @classmethod
    def _clean_id(cls, value: str) -> str:
        value = value.strip()
        if not value or any(ord(ch) < 32 for ch in value):
            raise ValueError("id must be non-empty printable text")
        return value

    @field_validator("source", "url")
    @classmethod
    def _strip(cls, value: str) -> str:
        return value.strip()

    @field_validator("published_at", mode="before")
    @classmethod
    def _published_utc(cls, value: object) -> datetime:
        if isinstance(value, str | date):
            return parse_published_at(value)
        return value  # type: ignore[return-value]  # pydantic reports the type error

    @field_validator("published_at")
    @classmethod
    def _published_aware(cls, value: datetime) -> datetime:
        return ceil_to_second(_to_utc(value, "published_at"))

    @model_validator(mode="after")
    def _has_content(self) -> Document:
        if not self.title.strip() and not self.text.strip():
            raise ValueError("title and text are both empty")
        return self


class SearchHit(BaseModel):
    """One search result: the document's identity, date, BM25 score and a snippet of its own text."""

    id: str
    title: str
    published_at: datetime
    score: float
    snippet: str


class IngestReport(BaseModel):
    """What one ingest did: documents added, duplicates dropped, rows skipped (with reasons)."""

    added: int = 0
    duplicates: int = 0
    skipped: int = 0
    errors: list[str] = Field(default_factory=list)


class CorpusStats(BaseModel):
    """Size, date span and documents per source of a corpus (documents without a source are not counted)."""

    documents: int
    first: datetime | None
    last: datetime | None
    sources: dict[str, int]
