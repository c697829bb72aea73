"""Ledger assembly: dated developments in (day_zero, day_zero + window] from the market's news and a corpus.

Queries come from the market title (`queries.offline_queries`). Corpus hits are kept only when they are
published inside the window and mention one of the title's entity phrases or share at least two of its
keywords (BM25 alone returns anything sharing one common word). Developments are kept as the grading rules
count them (`models.counted_developments`: in the window, one per reference and per text), sorted by date,
and a ledger with fewer than `MIN_DEVELOPMENTS` is marked `thin_ledger` (grading re-checks both).
"""

from __future__ import annotations

from datetime import UTC, datetime, time
from typing import TYPE_CHECKING

from reasonforge.errors import InputError
from reasonforge.forecast.ledger.models import (
    MIN_DEVELOPMENTS,
    Development,
    Ledger,
    Market,
    counted_developments,
    in_window,
    window_end,
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
    draft = Ledger(market_id=market.market_id, title=market.title, day_zero=market.day_zero,
                   window_days=window_days, developments=developments, price_path=market.price_path, queries=queries)
    # One definition of what counts, shared with grading, so a built ledger and its grade always agree.
    kept = counted_developments(draft)
    return draft.model_copy(update={"developments": kept,
                                    "excluded": "thin_ledger" if len(kept) < MIN_DEVELOPMENTS else None})
