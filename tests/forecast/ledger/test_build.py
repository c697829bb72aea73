"""Ledger building: offline queries, window bounds, dedup, thin-ledger exclusion, the news-sample corpus."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from reasonforge.errors import InputError
from reasonforge.forecast.agentic.corpus import DatedCorpus
from reasonforge.forecast.ledger.build import build_ledger
from reasonforge.forecast.ledger.models import (
    MIN_DEVELOPMENTS,
    load_ledger,
    save_ledger,
)
from reasonforge.forecast.ledger.queries import (
    entity_phrases,
    keywords,
    offline_queries,
)

from ledger_support import DAY_ZERO, dev, market, news_corpus, news_rows

HUNGARY = "European migrant crisis: will Hungary close its border?"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> DatedCorpus:
    return news_corpus(tmp_path_factory.mktemp("ledger-corpus"))


def test_offline_queries_are_keywords_then_entities() -> None:
    assert offline_queries(HUNGARY) == ["european migrant crisis hungary close border", "European", "Hungary"]
    assert entity_phrases("Will the Islamic State of Iraq and the Levant destroy the Temple of Bel?") == [
        "Islamic State of Iraq and the Levant", "Temple of Bel"]
    assert entity_phrases("Will the Bank of England's rate rise?") == ["Bank of England"]
    assert keywords("Will the rates crisis end by 2016?") == ["rates", "crisis"]


def test_thin_ledger_is_excluded() -> None:
    news = [dev(1, "Hungary builds a fence."), dev(2, "Hungary closes a crossing.")]
    thin = build_ledger(market(news=news))
    assert len(thin.developments) == MIN_DEVELOPMENTS - 1 and thin.excluded == "thin_ledger"
    enough = build_ledger(market(news=[*news, dev(3, "Hungary declares an emergency.")]))
    assert len(enough.developments) == MIN_DEVELOPMENTS and enough.excluded is None


def test_market_news_is_bounded_to_the_window_sorted_and_deduplicated() -> None:
    news = [dev(14, "Last day of the window."), dev(0, "Day zero itself."), dev(-3, "Before day zero."),
            dev(15, "One day after the window."), dev(2, "Hungary closes a crossing.", ref="a"),
            dev(2, "Hungary  closes a crossing.", ref="b"), dev(5, "Same ref, other words.", ref="a"),
            dev(1, "First later development.")]
    built = build_ledger(market(news=news))
    assert [(d.date - DAY_ZERO).days for d in built.developments] == [1, 2, 14]
    assert built.developments[1].text == "Hungary closes a crossing."
    short = build_ledger(market(news=news), window_days=2)
    assert [(d.date - DAY_ZERO).days for d in short.developments] == [1, 2]
    assert short.window_days == 2 and short.excluded == "thin_ledger"


def test_bad_arguments_are_input_errors() -> None:
    with pytest.raises(InputError, match="window_days"):
        build_ledger(market(), window_days=0)
    with pytest.raises(InputError, match="offline"):
        build_ledger(market(), model="gpt-x")


def test_news_sample_ledger_stays_inside_the_window(corpus: DatedCorpus, tmp_path: Path) -> None:
    built = build_ledger(market(title=HUNGARY), corpus=corpus)
    end = DAY_ZERO + timedelta(days=14)
    dates = [d.date for d in built.developments]
    assert built.excluded is None and len(dates) >= 8
    assert all(DAY_ZERO < d <= end for d in dates)
    assert dates == sorted(dates)
    assert len({d.ref for d in built.developments}) == len(dates)
    assert len({d.text for d in built.developments}) == len(dates)
    # every development is a real news-sample item, carried with its source and the item's own date
    rows = {row["id"]: row for row in news_rows()}
    for item in built.developments:
        assert rows[item.ref]["date"] == item.date.isoformat() and item.source
    texts = " ".join(d.text for d in built.developments)
    assert "state of emergency" in texts and "Horgos" in texts  # the story's key later events
    # items in the story dated on or before day zero, and after the window, never appear
    story_days = {row["date"] for row in rows.values() if "Hungary" in row["description"]}
    assert any(d <= DAY_ZERO.isoformat() for d in story_days)
    assert set(rows) - {d.ref for d in built.developments}  # not simply everything
    # and the stored ledger reloads to the same record
    assert load_ledger(save_ledger(built, tmp_path / "L.json")) == built


def test_short_window_on_the_corpus(corpus: DatedCorpus) -> None:
    built = build_ledger(market(title=HUNGARY), corpus=corpus, window_days=3)
    assert built.developments and all(DAY_ZERO < d.date <= DAY_ZERO + timedelta(days=3)
                                      for d in built.developments)


def test_unrelated_title_gets_a_thin_ledger(corpus: DatedCorpus) -> None:
    built = build_ledger(market(title="Will Zanzibar adopt quarterly zebra censuses?"), corpus=corpus)
    assert built.developments == [] and built.excluded == "thin_ledger"


def test_a_word_of_an_entity_phrase_alone_does_not_admit_news(corpus: DatedCorpus) -> None:
    # Item 56910 (Altice buys Cablevision) says "European" and "plans" but is not about the Parliament vote.
    title = "Will the European Parliament approve the plan to relocate 120,000 asylum seekers across the EU?"
    refs = {d.ref for d in build_ledger(market(title=title), corpus=corpus).developments}
    assert "56897" in refs  # the vote itself
    assert "56910" not in refs
