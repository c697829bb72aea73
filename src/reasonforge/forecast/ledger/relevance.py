"""Whether a development is about a market: the named actors and places of its title, read as index terms.

A market's title names entities (capitalised phrases: "Russia", "Syria", "Tropical Storm Etau") and
content keywords ("begin", "military", "flooding"). A development is *about* the market when it names at
least two of the entities (all of them when there is one), or one entity together with one of the other
keywords. Naming one place is not enough: a Lebanese sandstorm or a British drone strike mentions Syria
but is not a development of "Will Russia begin military operations in Syria?". A title without entities
falls back to sharing `MIN_SHARED_KEYWORDS` keywords.

Words are compared as the corpus index stems them, and a name also matches its adjective form
("Russia" / "Russian", "Iraq" / "Iraqi", "Hungary" / "Hungarian"): a term matches when it starts with the
entity's stem less its last letter (stems of at least five letters; shorter ones must start with the whole
stem). Forms that change more ("Turkey" / "Turkish") are not recognised.
"""

from __future__ import annotations

from dataclasses import dataclass

from reasonforge.forecast.ledger.queries import entity_phrases, keywords

MIN_SHARED_KEYWORDS = 2
"""Keywords a development must share with an entity-less title (one common word admits anything)."""
MIN_STEM_FOR_FORMS = 5
_CALENDAR = frozenset({"januari", "februari", "march", "april", "may", "june", "juli", "august", "septemb", "octob",
                       "novemb", "decemb", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday",
                       "sunday"})
"""Stems of month and day names: "before 20 September" capitalises a date, not an actor or a place."""


@dataclass(frozen=True)
class MarketTerms:
    """A title's entity phrases and other keywords as index terms."""

    entities: tuple[tuple[str, ...], ...]
    keywords: frozenset[str]


def market_terms(title: str) -> MarketTerms:
    """The title's entity phrases (each as its terms) and its keywords outside them, as the index stems them."""
    from reasonforge.forecast.agentic.corpus import query_analyzer, query_terms

    analyzer = query_analyzer()
    entities = tuple(tuple(terms) for phrase in entity_phrases(title)
                     if (terms := query_terms(phrase, analyzer)) and not set(terms) <= _CALENDAR)
    # A word of an entity phrase counts only through the whole phrase: "European" alone (from "European
    # Parliament") plus one common word would otherwise admit any European company's news.
    words = set(query_terms(" ".join(keywords(title)), analyzer)).difference(*entities)
    return MarketTerms(entities=entities, keywords=frozenset(words))


def text_terms(text: str) -> set[str]:
    """The index terms of `text`."""
    from reasonforge.forecast.agentic.corpus import query_analyzer

    return set(query_analyzer().analyze(text))


def _matches(term: str, stem: str) -> bool:
    if len(stem) < MIN_STEM_FOR_FORMS:
        return term.startswith(stem) if len(stem) >= MIN_STEM_FOR_FORMS - 1 else term == stem
    return term.startswith(stem[:-1])


def mentions(terms: set[str], entity: tuple[str, ...]) -> bool:
    """Whether every word of `entity` occurs among `terms` (a name also in its adjective form)."""
    return all(any(_matches(term, stem) for term in terms) for stem in entity)


def entity_hits(terms: set[str], market: MarketTerms) -> int:
    """How many of the market's entities `terms` name."""
    return sum(1 for entity in market.entities if mentions(terms, entity))


def about_market(terms: set[str], market: MarketTerms) -> bool:
    """Whether a text with these index terms is about the market (see the module docstring)."""
    shared = len(market.keywords & terms)
    if not market.entities:
        return shared >= MIN_SHARED_KEYWORDS
    hits = entity_hits(terms, market)
    return hits >= min(2, len(market.entities)) or (hits >= 1 and shared >= 1)
