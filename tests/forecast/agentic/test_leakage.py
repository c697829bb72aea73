"""Leakage: nothing published after `as_of` may leave the corpus through search, snippets or read.

Publication dates are taken from the raw news file, not from the corpus, so a corpus that mislabelled
dates would fail here too. Every test also checks that the bound actually excluded something (a test
whose `as_of` lets everything through could not fail).
"""

import random
from datetime import UTC, datetime, timedelta, timezone

import pytest
import tantivy

from reasonforge.errors import InputError
from reasonforge.forecast.agentic.corpus import (
    DatedCorpus,
    Document,
    DocumentNotAvailable,
    LeakError,
    SearchHit,
    recheck_visible,
)

from agentic_support import cep_corpus, end_of_day, news_rows

ROWS = news_rows()
PUBLISHED = {row["id"]: end_of_day(row["date"]) for row in ROWS}
TEXT = {row["id"]: " ".join(row["description"].split()) for row in ROWS}
DAYS = sorted({row["date"] for row in ROWS})
HOSTILE = [
    "published_at:[* TO *]", "published_at:>2015-09-10", "published_at:[2015-09-19T00:00:00Z TO *] refugees",
    "*", "title:*", "id:56717", "text:[a TO z]", "NOT refugees", "refugees OR published_at:*", "((((", "\\",
    '"unterminated phrase', "refugees^1000", "death~2", "/.*/", "+published_at:[2015-09-18 TO 2015-09-20]",
    "Tajikistan AND (published_at:2015-09-05 OR published_at:2015-09-19)", "'; DROP TABLE docs; --",
    "Ελλάδα 難民 🚂 refugees", "refugees " * 200,
]


@pytest.fixture(scope="module")
def news(tmp_path_factory):
    return cep_corpus(tmp_path_factory.mktemp("leak"))


def as_of_dates(rng: random.Random, n: int) -> list[datetime]:
    """Random instants over the sample plus every day's exact boundary (23:59:58 / 23:59:59 / next 00:00)."""
    start = datetime(2015, 8, 31, tzinfo=UTC)
    dates = [start + timedelta(seconds=rng.randrange(21 * 86400)) for _ in range(n)]
    for day in DAYS[::3]:
        edge = end_of_day(day)
        dates += [edge - timedelta(seconds=1), edge, edge + timedelta(seconds=1), edge + timedelta(microseconds=1)]
    return dates


def later_queries(as_of: datetime, rng: random.Random) -> list[str]:
    """Entity names, story names and title words of items published after `as_of` (what a leak would show)."""
    later = [row for row in ROWS if PUBLISHED[row["id"]] > as_of]
    picks = rng.sample(later, min(6, len(later)))
    queries = []
    for row in picks:
        queries += [entity["name"] for entity in row.get("entity", [])[:2]]
        queries.append(" ".join(row["description"].split()[:8]))
        if row.get("belongsToStory"):
            queries.append(row["belongsToStory"]["name"])
    return queries


def search(corpus: DatedCorpus, query: str, as_of: datetime, k: int) -> list[SearchHit]:
    """Search; a query without words may be refused ("no words"), any other error fails the test."""
    try:
        return corpus.search(query, as_of, k=k)
    except InputError as exc:
        assert "no words" in exc.message, (query, exc)
        return []


def check_hits(hits: list[SearchHit], as_of: datetime) -> None:
    for hit in hits:
        assert hit.id in PUBLISHED, f"unknown id {hit.id}"
        assert PUBLISHED[hit.id] <= as_of, f"LEAK: {hit.id} published {PUBLISHED[hit.id]} returned for {as_of}"
        assert hit.published_at == PUBLISHED[hit.id] and hit.published_at <= as_of
        assert hit.snippet.strip("…").strip(" .") in TEXT[hit.id], "snippet not cut from the hit's own text"


def test_no_search_hit_or_snippet_is_published_after_as_of(news):
    rng = random.Random(20150901)
    searches = hits_seen = bound_mattered = 0
    for as_of in as_of_dates(rng, 40):
        queries = later_queries(as_of, rng) + rng.sample(HOSTILE, 6)
        for query in queries:
            hits = search(news, query, as_of, k=20)
            check_hits(hits, as_of)
            searches += 1
            hits_seen += len(hits)
            unbounded = search(news, query, datetime(2030, 1, 1, tzinfo=UTC), k=20)
            bound_mattered += any(PUBLISHED[h.id] > as_of for h in unbounded)
    assert searches > 1000 and hits_seen > 5000
    assert bound_mattered > 500  # the same queries without the bound do find later items


def test_every_hostile_query_respects_every_day_boundary(news):
    for day in DAYS:
        before = end_of_day(day) - timedelta(seconds=1)
        for query in HOSTILE:
            hits = search(news, query, before, k=1000)
            check_hits(hits, before)
            assert all(h.published_at < end_of_day(day) for h in hits)


def test_full_visible_set_is_exactly_the_items_published_by_as_of(news):
    # "the" and "in" occur in nearly every item; k=1000 returns everything that matches
    for day in DAYS:
        for as_of in (end_of_day(day) - timedelta(seconds=1), end_of_day(day)):
            hits = news.search("the in of a to", as_of, k=1000)
            check_hits(hits, as_of)
            visible = {i for i, published in PUBLISHED.items() if published <= as_of}
            found = {h.id for h in hits}
            assert found <= visible and len(found) >= 0.9 * len(visible)


def test_boundary_instants_and_offsets(news):
    edge = end_of_day("2015-09-05")
    day_ids = {row["id"] for row in ROWS if row["date"] == "2015-09-05"}

    def ids(as_of):
        return {h.id for h in news.search("the in of a to", as_of, k=1000)}

    assert not ids(edge - timedelta(seconds=1)) & day_ids
    assert not ids(datetime(2015, 9, 6, 1, 59, 58, tzinfo=timezone(timedelta(hours=2)))) & day_ids
    assert not ids(datetime(2015, 9, 5, tzinfo=UTC)) & day_ids  # a bare date means 00:00 UTC
    assert ids(edge) >= day_ids and ids(edge + timedelta(microseconds=999_999)) >= day_ids
    assert ids(datetime(2015, 9, 5, 19, 59, 59, tzinfo=timezone(timedelta(hours=-4)))) >= day_ids


def test_read_of_a_later_item_looks_exactly_like_an_unknown_id(news):
    for row in ROWS:
        doc_id, published = row["id"], PUBLISHED[row["id"]]
        assert news.read(doc_id, published).text == " ".join(row["description"].split()).rstrip(" ,")
        with pytest.raises(DocumentNotAvailable) as later:
            news.read(doc_id, published - timedelta(seconds=1))
        with pytest.raises(DocumentNotAvailable) as unknown:
            news.read(doc_id + "x", published - timedelta(seconds=1))
        assert later.value.message.replace(repr(doc_id), "ID") == unknown.value.message.replace(repr(doc_id + "x"),
                                                                                                 "ID")
        assert later.value.code == unknown.value.code == "document_not_available"
    for junk in ("", "   ", "*", "id:*", "56657 OR *"):
        with pytest.raises(DocumentNotAvailable):
            news.read(junk, datetime(2030, 1, 1, tzinfo=UTC))


def test_recheck_raises_on_a_crafted_later_hit():
    as_of = end_of_day("2015-09-05")
    ok = SearchHit(id="x", title="t", published_at=as_of, score=1.0, snippet="s")
    recheck_visible(ok, as_of)
    late = ok.model_copy(update={"published_at": as_of + timedelta(seconds=1)})
    with pytest.raises(LeakError, match="published 2015-09-06T00:00:00"):
        recheck_visible(late, as_of)
    naive = ok.model_copy(update={"published_at": datetime(2015, 9, 1)})
    with pytest.raises(LeakError):
        recheck_visible(naive, as_of)
    doc = Document(id="y", title="t", text="x", published_at="2015-09-06")
    with pytest.raises(LeakError):
        recheck_visible(doc, as_of)


def test_a_corrupted_index_entry_raises_instead_of_leaking(tmp_path):
    # A document whose indexed date (matched by the range query) is early but whose stored date is late:
    # the index query lets it through and only the re-check can stop it. Written with plain tantivy.
    corpus = DatedCorpus.open(tmp_path / "ix")
    corpus.ingest([Document(id="ok", title="Harmless", text="quiet news", published_at="2015-09-01")])
    raw = tantivy.Index.open(str(tmp_path / "ix"))
    writer = raw.writer(15_000_000, 1)
    bad = tantivy.Document()
    bad.add_text("id", "bad")
    bad.add_text("title", "Secret result")
    bad.add_text("text", "the election result announced later")
    bad.add_date("published_at", datetime(2015, 9, 20, 23, 59, 59, tzinfo=UTC))  # stored first, read back
    bad.add_date("published_at", datetime(2015, 9, 1, tzinfo=UTC))  # second value satisfies the range
    writer.add_document(bad)
    writer.commit()
    writer.wait_merging_threads()
    corpus = DatedCorpus.open(tmp_path / "ix")
    as_of = end_of_day("2015-09-02")
    assert [h.id for h in corpus.search("quiet", as_of)] == ["ok"]
    with pytest.raises(LeakError, match="'bad' published 2015-09-20"):
        corpus.search("election result", as_of)
    with pytest.raises(LeakError):
        corpus.read("bad", as_of)
