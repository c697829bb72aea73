"""Polymarket harvester: resolved binary markets → ForecastItems with the market price at each cutoff.

Rules (each one a reason a market or a (market, horizon) pair is rejected, counted in the summary):
- clean binary settlement only: outcomes exactly ["Yes", "No"] and outcomePrices exactly {"0", "1"};
- the settlement instant is `closedTime`; `endDate` is never used for it, because placeholder
  far-future end dates exist and a market can settle long before its scheduled end;
- cutoff = closedTime − horizon, and the market must have existed at its own cutoff
  (createdAt and startDate both at or before it);
- the price is the last trade at or before the cutoff, never interpolated forward, and a cutoff
  whose last trade is older than `max_stale_min` is rejected.
Output is cumulative JSONL, one row per (market, horizon) written once; a state file beside it
remembers finished backfill days and permanent rejections so a rerun resumes.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, ValidationError

from reasonforge.boundary.files import json_document
from reasonforge.boundary.jsontext import JsonLimits, load_json
from reasonforge.errors import InputError, not_utf8
from reasonforge.forecast.dataset import ForecastItem
from reasonforge.forecast.polymarket import (
    GammaMarket,
    IntervalTooLong,
    PolymarketClient,
    PolymarketError,
    parse_timestamp,
)

DEFAULT_HORIZONS = (24, 72, 168)
MIN_WINDOW_S = 60  # below one minute a window cannot be split further
MAX_STATE_BYTES = 16 * 1024 * 1024  # a state is a cursor and a few counts
MAX_LINE_BYTES = 4 * 1024 * 1024  # one harvested pair with its question text; the longest written is a few KB
LINE_JSON = JsonLimits(max_depth=16, max_integer_digits=30, max_number_chars=60)


class HarvestConfig(BaseModel):
    """What to scan and what to keep."""

    out: Path
    mode: Literal["recent", "backfill"] = "recent"
    horizons: list[int] = Field(default_factory=lambda: list(DEFAULT_HORIZONS))
    min_volume: float = Field(default=0.0, ge=0)
    max_stale_min: float = Field(default=60.0, gt=0)
    pages: int = Field(default=30, ge=1, description="pages per scan (recent) or per day window (backfill)")
    page_size: int = Field(default=100, ge=1, le=500)
    back_days: int = Field(default=30, ge=1)
    now: datetime | None = Field(default=None, description="the harvest's 'now' (default: the clock)")


class HarvestRow(ForecastItem):
    """A harvested item: a ForecastItem plus where its price came from."""

    market_id: str
    token_id: str
    price_at: datetime = Field(description="time of the last trade at or before the cutoff")


class HarvestSummary(BaseModel):
    """Counts of one harvest run."""

    scanned: int = 0
    written: int = 0
    already_present: int = 0
    rejected: dict[str, int] = Field(default_factory=dict)
    requests: int = 0
    rate_limited: int = 0
    stopped_early: str | None = None


class HarvestState(BaseModel):
    """What survives between runs besides the output rows."""

    backfill_done: list[str] = Field(default_factory=list)
    rejected: dict[str, str] = Field(default_factory=dict, description="'market/horizon' → permanent reason")


class Rejection(Exception):
    """A market or (market, horizon) pair that is not kept; `permanent` ones are remembered."""

    def __init__(self, reason: str, *, permanent: bool = True) -> None:
        super().__init__(reason)
        self.reason = reason
        self.permanent = permanent


def clean_binary(market: GammaMarket) -> tuple[int, str]:
    """(outcome, Yes token id) of a clean Yes/No settlement; raises Rejection otherwise."""
    outcomes = market.string_list("outcomes")
    prices = market.string_list("outcome_prices")
    tokens = market.string_list("clob_token_ids")
    if not market.closed:
        raise Rejection("not closed")
    if outcomes != ["Yes", "No"]:
        raise Rejection("not a Yes/No market")
    if prices is None or sorted(prices) != ["0", "1"]:
        raise Rejection("not a clean 0/1 settlement")
    if tokens is None or len(tokens) != 2 or not tokens[0]:
        raise Rejection("no CLOB token ids")
    return (1 if prices[0] == "1" else 0), tokens[0]


def settlement_time(market: GammaMarket, now: datetime) -> datetime:
    """When the market settled (`closedTime`); raises Rejection when unknown or in the future."""
    closed = parse_timestamp(market.closed_time)
    if closed is None:
        raise Rejection("no closedTime")
    if closed > now:
        raise Rejection("closedTime in the future")
    return closed


def existed_at(market: GammaMarket) -> datetime | None:
    """The later of createdAt and startDate: before it there was nothing to forecast on."""
    stamps = [t for t in (parse_timestamp(market.created_at), parse_timestamp(market.start_date)) if t]
    return max(stamps) if stamps else None


def last_trade(client: PolymarketClient, token: str, start: int, end: int) -> tuple[int, float] | None:
    """Latest (t, p) with start ≤ t ≤ end; splits the window when CLOB calls it too long."""
    try:
        points = client.prices_history(token, start, end)
    except IntervalTooLong:
        if end - start <= MIN_WINDOW_S:
            raise
        middle = (start + end) // 2
        # Later half first: the latest trade is all we need, the earlier half only if it is empty.
        return last_trade(client, token, middle + 1, end) or last_trade(client, token, start, middle)
    kept = [(t, p) for t, p in points if start <= t <= end]  # never trust the server to clip
    return max(kept) if kept else None


def price_at_cutoff(client: PolymarketClient, token: str, cutoff: datetime, max_stale_min: float) -> tuple[float, datetime]:
    """Last traded price at or before the cutoff, no older than max_stale_min; raises Rejection."""
    end = int(cutoff.timestamp())
    start = end - int(max_stale_min * 60)
    found = last_trade(client, token, start, end)
    if found is None:
        # Permanent: history before the cutoff does not change later (and old history only disappears).
        raise Rejection(f"no trade in the {max_stale_min:g} min before the cutoff")
    t, p = found
    if not 0.0 <= p <= 1.0:
        raise Rejection(f"price {p} outside [0, 1]")
    return p, datetime.fromtimestamp(t, tz=UTC)


def item_for(client: PolymarketClient, market: GammaMarket, horizon: int, outcome: int, token: str,
             settled: datetime, config: HarvestConfig) -> HarvestRow:
    """One (market, horizon) row, or a Rejection."""
    cutoff = settled - timedelta(hours=horizon)
    born = existed_at(market)
    if born is None or born > cutoff:
        raise Rejection("market did not exist at its cutoff")
    price, price_time = price_at_cutoff(client, token, cutoff, config.max_stale_min)
    return HarvestRow(
        id=f"polymarket/{market.id}/{horizon}h", question_id=f"polymarket/{market.id}", question=market.question,
        background=market.description or None, cutoff=cutoff, resolved_at=settled, outcome=outcome,  # type: ignore[arg-type]
        market_price=price, horizon_hours=horizon, volume=market.volume_usd(), tags=market.tag_labels(),
        source="polymarket", url=f"https://polymarket.com/market/{market.slug}" if market.slug else None,
        market_id=market.id, token_id=token, price_at=price_time,
    )


class Harvester:
    """Scans gamma, keeps clean settlements, writes each (market, horizon) once."""

    def __init__(self, client: PolymarketClient, config: HarvestConfig,
                 progress: Callable[[int], None] | None = None) -> None:
        self.client = client
        self.config = config
        self.now = (config.now or datetime.now(UTC)).astimezone(UTC)
        self.progress = progress or (lambda n: None)
        self.state_path = config.out.with_name(config.out.name + ".state.json")
        self.state = self._load_state()
        self.present = self._present_ids()
        self.summary = HarvestSummary(already_present=0)
        self._rejected: Counter[str] = Counter()

    def _load_state(self) -> HarvestState:
        if self.state_path.is_file():
            text = json_document(self.state_path, what="harvest state", field="out", max_bytes=MAX_STATE_BYTES)
            try:
                return HarvestState.model_validate_json(text)
            except ValidationError as exc:
                raise InputError(f"{self.state_path}: not a harvest state ({exc.errors()[0]['msg']}); delete it to "
                                 "rescan from the start", field="out") from None
        return HarvestState()

    def _save_state(self) -> None:
        tmp = self.state_path.with_name(self.state_path.name + ".tmp")
        tmp.write_text(self.state.model_dump_json(indent=1), encoding="utf-8")
        os.replace(tmp, self.state_path)  # atomic: an interrupted run never leaves half a state file

    def _present_ids(self) -> set[str]:
        ids: set[str] = set()
        if not self.config.out.is_file():
            return ids
        # Read line by line with a bounded line length: the file grows with every run, and a line this reader did
        # not write (too long, too deep, not an object with a string id) is skipped like a torn last line.
        with self.config.out.open("rb") as handle:
            number = 0
            while line := handle.readline(MAX_LINE_BYTES + 1):
                number += 1
                if len(line) > MAX_LINE_BYTES:
                    while line and not line.endswith(b"\n"):
                        line = handle.readline(MAX_LINE_BYTES + 1)
                    continue
                try:
                    text = line.decode("utf-8")
                except UnicodeDecodeError:
                    raise not_utf8(self.config.out, field="out") from None
                if not text.strip():
                    continue
                try:
                    row = load_json(text, what=f"{self.config.out}:{number}", limits=LINE_JSON)
                except InputError:
                    continue  # a torn last line from an interrupted run: that pair is fetched again
                if isinstance(row, dict) and isinstance(row.get("id"), str):
                    ids.add(row["id"])
        return ids

    def run(self) -> HarvestSummary:
        """Scan in the configured mode; returns the counts (also on an early stop)."""
        self.config.out.parent.mkdir(parents=True, exist_ok=True)
        with self.config.out.open("a", encoding="utf-8") as out:
            try:
                pages = self._recent_pages() if self.config.mode == "recent" else self._backfill_pages()
                for page in pages:
                    for market in page:
                        self._process(market, out)
                        self.progress(1)
                    out.flush()
                    self._save_state()
            except PolymarketError as exc:
                self.summary.stopped_early = exc.message
            finally:
                self._save_state()
        self.summary.rejected = dict(self._rejected.most_common())
        self.summary.requests = self.client.requests
        self.summary.rate_limited = self.client.rate_limited
        return self.summary

    def _recent_pages(self) -> Iterator[list[GammaMarket]]:
        for page in range(self.config.pages):
            markets = self.client.markets(closed=True, order="closedTime", ascending=False, include_tag=True,
                                          limit=self.config.page_size, offset=page * self.config.page_size)
            if not markets:
                return
            yield markets

    def _backfill_pages(self) -> Iterator[list[GammaMarket]]:
        today = self.now.replace(hour=0, minute=0, second=0, microsecond=0)
        for back in range(1, self.config.back_days + 1):
            day = today - timedelta(days=back)
            key = day.date().isoformat()
            if key in self.state.backfill_done:
                continue
            exhausted = False
            for page in range(self.config.pages):
                markets = self.client.markets(
                    closed=True, include_tag=True, limit=self.config.page_size, offset=page * self.config.page_size,
                    end_date_min=day.strftime("%Y-%m-%dT%H:%M:%SZ"),
                    end_date_max=(day + timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%SZ"))
                if markets:
                    yield markets
                if len(markets) < self.config.page_size:
                    exhausted = True
                    break
            if exhausted:  # a day cut short by --pages is scanned again next time
                self.state.backfill_done.append(key)

    def _reject(self, key: str, rejection: Rejection) -> None:
        self._rejected[rejection.reason] += 1
        if rejection.permanent:
            self.state.rejected[key] = rejection.reason

    def _process(self, market: GammaMarket, out) -> None:
        self.summary.scanned += 1
        volume = market.volume_usd()
        try:
            outcome, token = clean_binary(market)
            settled = settlement_time(market, self.now)
            if self.config.min_volume > 0 and (volume is None or volume < self.config.min_volume):
                raise Rejection("volume below --min-volume", permanent=False)
        except Rejection as rejection:
            self._rejected[rejection.reason] += 1
            return
        for horizon in self.config.horizons:
            key = f"polymarket/{market.id}/{horizon}h"
            if key in self.present:
                self.summary.already_present += 1
                continue
            if key in self.state.rejected:
                self._rejected[self.state.rejected[key]] += 1
                continue
            try:
                row = item_for(self.client, market, horizon, outcome, token, settled, self.config)
            except Rejection as rejection:
                self._reject(key, rejection)
                continue
            out.write(row.model_dump_json() + "\n")
            self.present.add(key)
            self.summary.written += 1
