"""Polymarket HTTP access (gamma `/markets`, CLOB `/prices-history`) with rate-limit handling.

Only what the harvester needs: a paged market listing and a price history over an explicit
[startTs, endTs] window. 429 answers are retried after their Retry-After; 5xx and transport
errors back off exponentially; CLOB's "interval too long" 400 becomes `IntervalTooLong` so the
caller can split the window instead of failing.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any, Self

import httpx
from pydantic import BaseModel, ConfigDict, Field

from reasonforge.boundary.jsontext import JsonLimits, load_json
from reasonforge.errors import InputError, ReasonForgeError

GAMMA_URL = "https://gamma-api.polymarket.com"
CLOB_URL = "https://clob.polymarket.com"
_FIELD_JSON = JsonLimits(max_depth=4)  # a JSON-string field holds a flat list
_BODY_JSON = JsonLimits(max_depth=32, max_integer_digits=40, max_number_chars=80)  # markets, events, price histories
MAX_RETRY_AFTER_S = 120.0  # never sleep longer than this on one Retry-After, whatever the server says


class PolymarketError(ReasonForgeError):
    """A Polymarket request failed after its retries (or was refused outright)."""

    code = "polymarket_error"


class IntervalTooLong(PolymarketError):
    """CLOB refused a prices-history window as too long; split it and ask again."""

    code = "interval_too_long"


class GammaTag(BaseModel):
    """A category tag as gamma returns it (only the label is used)."""

    model_config = ConfigDict(extra="ignore")

    label: str = ""


class GammaEvent(BaseModel):
    """The parent event of a market (carries tags when the market itself does not)."""

    model_config = ConfigDict(extra="ignore")

    tags: list[GammaTag] | None = None


class GammaMarket(BaseModel):
    """The gamma `/markets` fields the harvester reads (real wire names; arrays arrive as JSON strings)."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    id: str
    question: str = ""
    description: str | None = None
    slug: str | None = None
    condition_id: str | None = Field(default=None, alias="conditionId")
    outcomes: str | list[str] | None = None
    outcome_prices: str | list[str] | None = Field(default=None, alias="outcomePrices")
    clob_token_ids: str | list[str] | None = Field(default=None, alias="clobTokenIds")
    created_at: str | None = Field(default=None, alias="createdAt")
    start_date: str | None = Field(default=None, alias="startDate")
    end_date: str | None = Field(default=None, alias="endDate")
    closed_time: str | None = Field(default=None, alias="closedTime")
    closed: bool = False
    volume_num: float | None = Field(default=None, alias="volumeNum")
    volume: str | float | None = None
    tags: list[GammaTag] | None = None
    events: list[GammaEvent] | None = None

    def string_list(self, field: str) -> list[str] | None:
        """A JSON-string array field (`outcomes`, `outcome_prices`, `clob_token_ids`) as a list, or None."""
        raw = getattr(self, field)
        if raw is None:
            return None
        if isinstance(raw, list):
            return [str(x) for x in raw]
        try:
            value = load_json(raw, what=field, limits=_FIELD_JSON)  # the API's text: bounded before decoding
        except InputError:
            return None
        return [str(x) for x in value] if isinstance(value, list) else None

    def volume_usd(self) -> float | None:
        """Traded volume in USD (`volumeNum`, else the decimal string `volume`)."""
        if self.volume_num is not None:
            return self.volume_num
        try:
            return float(self.volume) if self.volume is not None else None
        except ValueError:
            return None

    def tag_labels(self) -> list[str]:
        """Polymarket's own category labels, from the market or else its events (deduplicated)."""
        tags = list(self.tags or [])
        if not tags:
            for event in self.events or []:
                tags.extend(event.tags or [])
        seen: dict[str, str] = {}
        for tag in tags:
            if tag.label:
                seen.setdefault(tag.label.casefold(), tag.label)
        return list(seen.values())


def parse_timestamp(value: str | None) -> datetime | None:
    """Gamma timestamps: ISO-8601 (`2025-02-08T07:12:19.343859Z`) or Postgres style (`2025-02-09 02:50:05+00`)."""
    if not value:
        return None
    text = value.strip().replace(" ", "T", 1).replace("Z", "+00:00")
    if len(text) >= 3 and text[-3] in "+-" and text[-2:].isdigit():
        text += ":00"  # bare `+00` offset
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return None
    return (parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)).astimezone(UTC)


def _retry_after_s(response: httpx.Response, fallback: float) -> float:
    header = response.headers.get("Retry-After")
    if header is None:
        return fallback
    try:
        return min(max(float(header), 0.0), MAX_RETRY_AFTER_S)
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(header)
    except (TypeError, ValueError):
        return fallback
    return min(max((when - datetime.now(UTC)).total_seconds(), 0.0), MAX_RETRY_AFTER_S)


class PolymarketClient:
    """Synchronous gamma + CLOB client with pacing, retries and Retry-After support."""

    def __init__(self, gamma_url: str = GAMMA_URL, clob_url: str = CLOB_URL, *, timeout_s: float = 30.0,
                 max_retries: int = 5, min_interval_s: float = 0.12, backoff_s: float = 1.0,
                 sleep: Callable[[float], None] = time.sleep, http: httpx.Client | None = None) -> None:
        self.gamma_url = gamma_url.rstrip("/")
        self.clob_url = clob_url.rstrip("/")
        self.max_retries = max_retries
        # ~8 requests/s by default: well under gamma's and CLOB's published per-10-second limits.
        self.min_interval_s = min_interval_s
        self.backoff_s = backoff_s
        self.sleep = sleep
        self.http = http or httpx.Client(timeout=timeout_s, headers={"User-Agent": "reasonforge-harvest/1"})
        self._last_request = 0.0
        self.requests = 0
        self.rate_limited = 0
        self.answered = 0  # responses of any status: has the source ever been reached?

    def close(self) -> None:
        """Close the underlying HTTP connection pool."""
        self.http.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def get_json(self, url: str, params: dict[str, Any]) -> Any:
        """GET with pacing and retries; the decoded JSON body."""
        for attempt in range(self.max_retries + 1):
            wait = self.min_interval_s - (time.monotonic() - self._last_request)
            if wait > 0:
                self.sleep(wait)
            self._last_request = time.monotonic()
            self.requests += 1
            backoff = self.backoff_s * 2**attempt
            try:
                response = self.http.get(url, params=params)
            except httpx.TransportError as exc:
                # a source never reached and refusing connections is down or the URL is wrong: one retry,
                # not a minute of backoff, before saying so
                never_reached = self.answered == 0 and isinstance(exc, httpx.ConnectError)
                if attempt == self.max_retries or (never_reached and attempt >= 1):
                    raise PolymarketError(f"GET {url} failed after {attempt + 1} tries: {exc}") from None
                self.sleep(backoff)
                continue
            self.answered += 1
            if response.status_code == 429:
                self.rate_limited += 1
                if attempt == self.max_retries:
                    break
                self.sleep(_retry_after_s(response, backoff))
                continue
            if response.status_code >= 500:
                if attempt == self.max_retries:
                    break
                self.sleep(backoff)
                continue
            if response.status_code >= 400:
                text = response.text[:300]
                if "interval" in text.lower() and "too long" in text.lower():
                    raise IntervalTooLong(f"GET {url}: {text}")
                raise PolymarketError(f"GET {url} answered {response.status_code}: {text}")
            try:
                return load_json(response.content, what=f"GET {url}", limits=_BODY_JSON)
            except InputError as exc:
                raise PolymarketError(f"GET {url} answered what is not JSON this reader takes ({exc.message}): "
                                      f"{response.text[:200]!r}") from None
        raise PolymarketError(f"GET {url} still failing (HTTP {response.status_code}) after {self.max_retries + 1} "
                              "tries; wait and rerun (the harvest resumes where it stopped)")

    def markets(self, **params: Any) -> list[GammaMarket]:
        """One page of gamma `/markets` (parameters passed through, booleans as `true`/`false`)."""
        query = {k: (str(v).lower() if isinstance(v, bool) else v) for k, v in params.items() if v is not None}
        body = self.get_json(f"{self.gamma_url}/markets", query)
        if not isinstance(body, list):
            raise PolymarketError(f"gamma /markets returned {type(body).__name__}, expected a list")
        return [GammaMarket.model_validate(row) for row in body if isinstance(row, dict) and "id" in row]

    def prices_history(self, token_id: str, start_ts: int, end_ts: int, fidelity: int = 1) -> list[tuple[int, float]]:
        """CLOB `/prices-history` points (unix seconds, price) in [start_ts, end_ts]; [] when none are kept."""
        body = self.get_json(f"{self.clob_url}/prices-history",
                             {"market": token_id, "startTs": start_ts, "endTs": end_ts, "fidelity": fidelity})
        history = body.get("history") if isinstance(body, dict) else None
        if not isinstance(history, list):
            raise PolymarketError(f"CLOB /prices-history for token {token_id} has no 'history' list")
        points = []
        for point in history:
            try:
                points.append((int(point["t"]), float(point["p"])))
            except (KeyError, TypeError, ValueError):
                continue
        return points
