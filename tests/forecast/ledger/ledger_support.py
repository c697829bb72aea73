"""Helpers for the ledger tests: hand-built price paths, developments, markets and ledgers."""

from __future__ import annotations

import json
import zlib
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from reasonforge.forecast.agentic.corpus import DatedCorpus, load_articles
from reasonforge.forecast.ledger.models import Development, Ledger, Market, PricePoint

DAY_ZERO = date(2015, 9, 5)


def day(offset: int, start: date = DAY_ZERO) -> date:
    """The date `offset` days after `start` (negative: before)."""
    return start + timedelta(days=offset)


def price_path(prices: list[float], start: date = DAY_ZERO) -> list[PricePoint]:
    """Daily prices from `start` (the first price is day zero's)."""
    return [PricePoint(date=day(i, start), price=p) for i, p in enumerate(prices)]


def dev(offset: int, text: str, *, source: str = "test", ref: str = "") -> Development:
    """A development dated `offset` days after day zero."""
    ref = ref or f"d{offset}-{zlib.crc32(text.encode()):08x}"
    return Development(date=day(offset), text=text, source=source, ref=ref)


def market(title: str = "Will Hungary close its border?", prices: list[float] | None = None,
           news: list[Development] | None = None, market_id: str = "m1") -> Market:
    """A market with day zero 2015-09-05 and a flat 0.5 path unless `prices` are given."""
    return Market(market_id=market_id, title=title, day_zero=DAY_ZERO,
                  price_path=price_path(prices or [0.5] * 15), news=news or [])


def ledger(developments: list[Development], prices: list[float] | None = None, market_id: str = "m1",
           title: str = "Will Hungary close its border?") -> Ledger:
    """A ledger with day zero 2015-09-05 over the given developments and prices (flat 0.5 by default)."""
    return Ledger(market_id=market_id, title=title, day_zero=DAY_ZERO, developments=developments,
                  price_path=price_path(prices or [0.5] * 15))


REPO = Path(__file__).resolve().parents[3]
NEWS_SAMPLE = REPO / "data" / "wikipedia_cep_2015_09" / "events.jsonl"


def news_rows() -> list[dict[str, Any]]:
    """The news sample's raw rows, read straight from the file (independent of the corpus code)."""
    return [json.loads(line) for line in NEWS_SAMPLE.read_text(encoding="utf-8").splitlines() if line.strip()]


def news_corpus(tmp_dir: Path) -> DatedCorpus:
    """A dated corpus in `tmp_dir/cep-index` holding every item of the news sample."""
    corpus = DatedCorpus.open(Path(tmp_dir) / "cep-index")
    report = corpus.ingest(load_articles(NEWS_SAMPLE, "cep"))
    if report.errors or report.added + report.duplicates != len(news_rows()):
        raise AssertionError(f"news sample did not ingest cleanly: {report}")
    return corpus
