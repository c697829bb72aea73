"""Ledger data types: markets, dated developments, the stored (content-hashed) ledger and forecasts.

A ledger is the shared record of what happened in a market's window after day zero; every forecaster
addressing that market and window is graded against the same ledger, so it is stored as JSON with a
sha256 of its canonical content and reloaded only if it carries that hash and the content still matches
it. A hand-written or edited ledger is accepted only through `rehash_ledger` (`reasoning rehash`), an
explicit act that records the new hash. The hash is not a signature (anyone can recompute it): it makes
edits deliberate, while the scoring rules themselves are re-applied to the content at grading time.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
import unicodedata
from datetime import date, timedelta
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError, field_validator, model_validator

from reasonforge.boundary.files import DOCUMENT_JSON, read_limited
from reasonforge.boundary.jsontext import scan_json
from reasonforge.errors import InputError

MIN_DEVELOPMENTS = 3
"""A ledger with fewer developments (beyond the price move itself) is discarded as `thin_ledger`."""

HASH_FIELD = "content_hash"


class PricePoint(BaseModel):
    """The market price (probability of YES, 0..1) on one day."""

    date: date
    price: float = Field(ge=0.0, le=1.0)


class Development(BaseModel):
    """One dated development: what happened, who reported it and a reference (document id) to it."""

    date: date
    text: str = Field(min_length=1)
    source: str = ""
    ref: str = ""
    url: str = ""

    @field_validator("text")
    @classmethod
    def _text(cls, value: str) -> str:
        value = " ".join(value.split())
        if not value:
            raise ValueError("text is empty")
        return value


def _check_path(points: list[PricePoint], what: str) -> list[PricePoint]:
    for before, after in itertools.pairwise(points):
        if after.date <= before.date:
            raise ValueError(f"{what} must be in strictly ascending date order: {after.date} follows {before.date}")
    return points


class Market(BaseModel):
    """A forecast market: title, day zero and its daily price path (ascending, from day zero or earlier)."""

    market_id: str = Field(min_length=1)
    title: str = Field(min_length=1)
    description: str = ""
    day_zero: date
    price_path: list[PricePoint] = Field(min_length=1)
    news: list[Development] = []

    @model_validator(mode="after")
    def _path(self) -> Market:
        _check_path(self.price_path, "price_path")
        if self.price_path[0].date > self.day_zero:
            raise ValueError(f"price_path starts on {self.price_path[0].date}, after day_zero {self.day_zero}; "
                             "include the price on day zero")
        return self


def window_end(day_zero: date, window_days: int) -> date:
    """The last day of the window (inclusive)."""
    return day_zero + timedelta(days=window_days)


def in_window(day: date, day_zero: date, window_days: int) -> bool:
    """True when `day` lies in (day_zero, day_zero + window_days]."""
    return day_zero < day <= window_end(day_zero, window_days)


def development_key(dev: Development) -> str:
    """The development's text reduced to its words (NFKC, case-folded): what two copies of one event share."""
    return " ".join(re.findall(r"\w+", unicodedata.normalize("NFKC", dev.text).casefold()))


class Ledger(BaseModel):
    """The market's record of later developments in (day_zero, day_zero + window_days], plus its prices."""

    market_id: str = Field(min_length=1)
    title: str
    day_zero: date
    window_days: int = Field(default=14, ge=1)
    developments: list[Development]
    price_path: list[PricePoint]
    queries: list[str] = []
    excluded: Literal["thin_ledger"] | None = None

    @model_validator(mode="after")
    def _path(self) -> Ledger:
        _check_path(self.price_path, "price_path")
        return self

    def canonical_json(self) -> str:
        """Sorted-key compact JSON of the ledger's content (the text that is hashed)."""
        return json.dumps(self.model_dump(mode="json"), sort_keys=True, separators=(",", ":"), ensure_ascii=False)

    def content_hash(self) -> str:
        """sha256 (hex) of the canonical JSON of everything but the hash itself."""
        return hashlib.sha256(self.canonical_json().encode("utf-8")).hexdigest()


def counted_developments(ledger: Ledger) -> list[Development]:
    """The developments the rules count: inside the window, with some word, one per text and per reference.

    Copies of one event (same words up to case, spacing and punctuation, or the same document reference)
    count once, so a ledger cannot pass the thin-ledger rule, or dilute the key events, by repetition;
    developments outside (day_zero, day_zero + window] are not part of this window's record.
    """
    refs: set[str] = set()
    keys: set[str] = set()
    kept: list[Development] = []
    for dev in sorted(ledger.developments, key=lambda d: (d.date, d.text, d.source, d.ref)):
        key = development_key(dev)
        if not key or not in_window(dev.date, ledger.day_zero, ledger.window_days):
            continue
        if key in keys or (dev.ref and dev.ref in refs):
            continue
        keys.add(key)
        if dev.ref:
            refs.add(dev.ref)
        kept.append(dev)
    return kept


def is_thin(ledger: Ledger) -> bool:
    """Whether the ledger's content has fewer than `MIN_DEVELOPMENTS` counted developments."""
    return len(counted_developments(ledger)) < MIN_DEVELOPMENTS


def exclusion(ledger: Ledger) -> Literal["thin_ledger"] | None:
    """Why the ledger gets no grades: `thin_ledger` when its content is thin or its builder marked it so."""
    # The stored flag is honoured as well: excluding a market awards no one a score.
    return "thin_ledger" if ledger.excluded is not None or is_thin(ledger) else None


def _errors(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors()[:5]:
        where = ".".join(str(p) for p in err["loc"]) or "(top level)"
        parts.append(f"{where}: {err['msg']}")
    return "; ".join(parts)


def save_ledger(ledger: Ledger, path: Path | str) -> Path:
    """Write the ledger as indented JSON with its `content_hash`; returns the path."""
    path = Path(path)
    body: dict[str, Any] = ledger.model_dump(mode="json")
    body[HASH_FIELD] = ledger.content_hash()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(body, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def _read_json(path: Path, what: str) -> Any:
    if not path.exists():
        raise InputError(f"{what} file {path} does not exist; check the path", field=what)
    try:
        text = read_limited(path, what=what, field=what).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"cannot read {what} file {path}: {exc}", field=what) from None
    scan_json(text, f"{what} file {path}", DOCUMENT_JSON)  # depth, repeated keys, NaN: refused before decoding
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{what} file {path} is not valid JSON (line {exc.lineno}, column {exc.colno}: "
                         f"{exc.msg})", field=what) from None


def _rehash_hint(path: Path) -> str:
    return f"`reasonforge forecast reasoning rehash {path}`"


def _parse_ledger(path: Path) -> tuple[Ledger, Any]:
    """The ledger in `path` and its stored hash (None when absent), without checking the hash."""
    raw = _read_json(path, "ledger")
    if not isinstance(raw, dict):
        raise InputError(f"ledger file {path} must hold a JSON object with market_id, title, day_zero, "
                         "developments and price_path", field="ledger")
    stored = raw.pop(HASH_FIELD, None)
    try:
        return Ledger.model_validate(raw), stored
    except ValidationError as exc:
        raise InputError(f"ledger file {path} is not a valid ledger: {_errors(exc)}", field="ledger") from None


def load_ledger(path: Path | str) -> Ledger:
    """Read a ledger JSON file; it must carry a `content_hash` that its content still matches."""
    path = Path(path)
    ledger, stored = _parse_ledger(path)
    if stored is None:
        raise InputError(f"ledger file {path} has no content_hash, so nothing records that its content is the "
                         f"ledger that was built; rebuild it with `reasonforge forecast reasoning build-ledger`, "
                         f"or check it and run {_rehash_hint(path)} to accept it deliberately", field="ledger")
    if stored != ledger.content_hash():
        raise InputError(f"ledger file {path} was changed after it was saved: its content hashes to "
                         f"{ledger.content_hash()[:12]}…, not the stored {str(stored)[:12]}…; rebuild it with "
                         "`reasonforge forecast reasoning build-ledger`, or check the edit and run "
                         f"{_rehash_hint(path)} to accept it deliberately", field="ledger")
    return ledger


class Rehash(BaseModel):
    """What `rehash_ledger` did: the new hash, the one it replaced (None: there was none) and the exclusion."""

    path: str
    content_hash: str
    previous_hash: str | None
    changed: bool
    developments: int
    """Counted developments (in the window, distinct)."""
    excluded: Literal["thin_ledger"] | None


def rehash_ledger(path: Path | str) -> Rehash:
    """Accept a hand-written or edited ledger: recompute its `excluded` flag and hash from content, rewrite it."""
    path = Path(path)
    ledger, stored = _parse_ledger(path)
    # The flag is derived from content, so it is re-derived too: an edit cannot keep a stale verdict.
    ledger = ledger.model_copy(update={"excluded": "thin_ledger" if is_thin(ledger) else None})
    fresh = ledger.content_hash()
    changed = stored != fresh
    if changed:
        try:
            save_ledger(ledger, path)
        except OSError as exc:
            raise InputError(f"cannot rewrite ledger file {path}: {exc.strerror}; make it writable",
                             field="ledger") from None
    return Rehash(path=str(path), content_hash=fresh, previous_hash=None if stored is None else str(stored),
                  changed=changed, developments=len(counted_developments(ledger)), excluded=ledger.excluded)


def load_market(path: Path | str) -> Market:
    """Read a market JSON file (market_id, title, day_zero, price_path, optional description and news)."""
    path = Path(path)
    raw = _read_json(path, "market")
    try:
        return Market.model_validate(raw)
    except ValidationError as exc:
        raise InputError(f"market file {path} is not a valid market: {_errors(exc)}", field="market") from None


class Forecast(BaseModel):
    """One forecaster's original explanation for a market (one F.jsonl row); reasoning may be missing."""

    forecaster: str = Field(min_length=1)
    reasoning: str | None = None

    @field_validator("forecaster")
    @classmethod
    def _name(cls, value: str) -> str:
        value = value.strip()
        if not value:
            raise ValueError("forecaster is empty")
        return value


def load_forecasts(path: Path | str) -> list[Forecast]:
    """Read F.jsonl (one `{"forecaster", "reasoning"}` object per line); errors name the line."""
    path = Path(path)
    if not path.exists():
        raise InputError(f"forecasts file {path} does not exist; check the path", field="forecasts")
    try:
        lines = read_limited(path, what="forecasts", field="forecasts").decode("utf-8").split("\n")
    except UnicodeDecodeError as exc:
        raise InputError(f"cannot read forecasts file {path}: {exc}", field="forecasts") from None
    forecasts: list[Forecast] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"forecasts file {path}, line {number}"
        scan_json(line, where, DOCUMENT_JSON)
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"{where}: not valid JSON ({exc.msg}); write one JSON object per line",
                             field="forecasts") from None
        if not isinstance(row, dict):
            raise InputError(f"{where}: expected an object like {{\"forecaster\": ..., \"reasoning\": ...}}",
                             field="forecasts")
        try:
            forecast = Forecast.model_validate(row)
        except ValidationError as exc:
            raise InputError(f"{where}: {_errors(exc)}", field="forecasts") from None
        if forecast.forecaster in seen:
            raise InputError(f"{where}: forecaster {forecast.forecaster!r} already appears on line "
                             f"{seen[forecast.forecaster]}; give each forecaster one row", field="forecasts")
        seen[forecast.forecaster] = number
        forecasts.append(forecast)
    if not forecasts:
        raise InputError(f"forecasts file {path} holds no forecasts; add one JSON object per line",
                         field="forecasts")
    return forecasts
