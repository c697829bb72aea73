"""Ledger assembly: dated developments in (day_zero, day_zero + window] from the market's news and a corpus.

Queries come from the market title (`queries.offline_queries`). Corpus hits are kept only when they are
published inside the window and mention one of the title's entity phrases or share at least two of its
keywords (BM25 alone returns anything sharing one common word). Developments are deduplicated by reference
and by text, sorted by date, and a ledger with fewer than `MIN_DEVELOPMENTS` is marked `thin_ledger`.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from typing import TYPE_CHECKING

from reasonforge.errors import InputError
from reasonforge.forecast.ledger.models import (
    MIN_DEVELOPMENTS,
    Development,
    Ledger,
    Market,
)
from reasonforge.forecast.ledger.queries import (
    entity_phrases,
    keywords,
    offline_queries,
)

if TYPE_CHECKING:  # tantivy loads only when a corpus is actually used
    from reasonforge.forecast.agentic.corpus import DatedCorpus

SEARCH_K = 1000
"""Hits per query: the corpus bounds only the upper date, so earlier items compete for the same slots."""
MIN_SHARED_KEYWORDS = 2


def window_end(day_zero: date, window_days: int) -> date:
    """The last day of the window (inclusive)."""
    return day_zero + timedelta(days=window_days)


def in_window(day: date, day_zero: date, window_days: int) -> bool:
    """True when `day` lies in (day_zero, day_zero + window_days]."""
    return day_zero < day <= window_end(day_zero, window_days)


def _relevant(text_terms: set[str], entity_terms: list[list[str]], keyword_terms: set[str]) -> bool:
    if any(terms and set(terms) <= text_terms for terms in entity_terms):
        return True
    return len(keyword_terms & text_terms) >= MIN_SHARED_KEYWORDS


def _from_corpus(corpus: DatedCorpus, market: Market, queries: list[str], window_days: int) -> list[Development]:
    from reasonforge.forecast.agentic.corpus import query_analyzer, query_terms

    analyzer = query_analyzer()
    entity_terms = [query_terms(phrase, analyzer) for phrase in entity_phrases(market.title)]
    # A word of an entity phrase counts only through the whole phrase: "European" alone (from "European
    # Parliament") plus one common word would otherwise admit any European company's news.
    keyword_terms = set(query_terms(" ".join(keywords(market.title)), analyzer)).difference(*entity_terms)
    as_of = datetime.combine(window_end(market.day_zero, window_days), time(23, 59, 59, tzinfo=UTC))
    found: dict[str, Development] = {}
    for query in queries:
        if not query_terms(query, analyzer):
            continue
        for hit in corpus.search(query, as_of, SEARCH_K):
            day = hit.published_at.astimezone(UTC).date()
            if hit.id in found or not in_window(day, market.day_zero, window_days):
                continue
            doc = corpus.read(hit.id, as_of)
            if not _relevant(set(query_terms(f"{doc.title} {doc.text}", analyzer)), entity_terms, keyword_terms):
                continue
            found[hit.id] = Development(date=day, text=doc.text or doc.title, source=doc.source or "corpus",
                                        ref=doc.id, url=doc.url)
    return list(found.values())


def _dedup(developments: list[Development]) -> list[Development]:
    """Distinct developments sorted by (date, text): one per reference and one per normalised text."""
    refs: set[str] = set()
    texts: set[str] = set()
    kept: list[Development] = []
    for dev in sorted(developments, key=lambda d: (d.date, d.text, d.ref)):
        text_key = " ".join(dev.text.lower().split())
        if (dev.ref and dev.ref in refs) or text_key in texts:
            continue
        refs.add(dev.ref)
        texts.add(text_key)
        kept.append(dev)
    return kept


def build_ledger(market: Market, *, corpus: DatedCorpus | None = None, window_days: int = 14,
                 model: str | None = None) -> Ledger:
    """The market's ledger: window-bounded developments from `market.news` and `corpus`, deduplicated, sorted."""
    if isinstance(window_days, bool) or not isinstance(window_days, int) or window_days < 1:
        raise InputError(f"window_days must be a positive whole number of days, got {window_days!r}",
                         field="window_days")
    if model is not None:
        raise InputError("model-backed query generation is not available yet; omit the model to use the "
                         "offline keyword and entity queries", field="model")
    queries = offline_queries(market.title, market.description)
    developments = [dev for dev in market.news if in_window(dev.date, market.day_zero, window_days)]
    if corpus is not None:
        developments += _from_corpus(corpus, market, queries, window_days)
    developments = _dedup(developments)
    return Ledger(market_id=market.market_id, title=market.title, day_zero=market.day_zero,
                  window_days=window_days, developments=developments, price_path=market.price_path,
                  queries=queries, excluded="thin_ledger" if len(developments) < MIN_DEVELOPMENTS else None)
