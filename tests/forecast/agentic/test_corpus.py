"""The dated corpus on a real tantivy index: loading, adapters, dedup, incremental ingest, search, stats."""

import json
import subprocess
import sys
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from reasonforge.errors import InputError
from reasonforge.forecast.agentic.corpus import (
    MANIFEST_NAME,
    DatedCorpus,
    Document,
    DocumentNotAvailable,
    content_hash,
    load_articles,
    normalise_url,
    parse_as_of,
    query_terms,
)
from reasonforge.forecast.agentic.corpus_io import first_sentence

from agentic_support import (
    NEWS_ITEMS,
    NEWS_SAMPLE,
    REPO,
    cep_corpus,
    end_of_day,
    news_rows,
)

LATE = datetime(2030, 1, 1, tzinfo=UTC)


def doc(id_, text, day="2015-09-05", **extra):
    return Document(id=id_, title=extra.pop("title", text.split(".")[0]), text=text, published_at=day, **extra)


@pytest.fixture(scope="module")
def news(tmp_path_factory):
    return cep_corpus(tmp_path_factory.mktemp("news"))


# --- loading and adapters -------------------------------------------------------------------------------

def test_cep_adapter_maps_the_news_sample():
    docs = list(load_articles(NEWS_SAMPLE))  # auto → cep
    rows = news_rows()
    assert len(docs) == len(rows) == NEWS_ITEMS
    by_id = {d.id: d for d in docs}
    first = by_id["56657"]
    assert first.published_at == end_of_day("2015-09-01")
    assert first.source == "BBC" and first.url == "http://www.bbc.com/news/world-middle-east-34111092"
    assert first.text.startswith("The United Nations confirms") and first.text.endswith("mostly intact.")
    assert first.title.endswith("…") and len(first.title) <= 120 and first.text.startswith(first.title[:-1])
    shabaab = by_id["56658"]
    assert shabaab.text.endswith("Mogadishu.")  # the export's trailing " , " is dropped
    for row in rows:
        d = by_id[row["id"]]
        assert d.published_at == end_of_day(row["date"])
        assert len(d.title) <= 120 and d.title
        assert d.source == ((row.get("source") or [{}])[0].get("sourceName") or "")


def test_first_sentence_respects_abbreviations_and_length():
    assert first_sentence("U.S. President Obama meets Mr. Abe in Washington. Talks follow.") == \
        "U.S. President Obama meets Mr. Abe in Washington."
    assert first_sentence("Short one! Then more.") == "Short one!"
    long = "word " * 60
    title = first_sentence(long)
    assert len(title) <= 120 and title.endswith("…") and " " not in title[-2:]


def test_plain_rows_from_jsonl_json_and_csv(tmp_path):
    rows = [
        {"id": "a", "title": "Alpha", "text": "Alpha text.", "published_at": "2015-09-05"},
        {"id": 7, "text": "No title here. Second sentence.", "published_at": "2015-09-05T10:00:00"},
        {"id": "c", "title": "C", "text": "Gamma.", "published_at": "2015-09-05T10:00:00.250+02:00",
         "source": "Wire", "url": "https://example.org/c"},
    ]
    jsonl = tmp_path / "a.jsonl"
    jsonl.write_text("\n".join(json.dumps(r) for r in rows) + "\n\n")
    array = tmp_path / "a.json"
    array.write_text(json.dumps(rows))
    csv_file = tmp_path / "a.csv"
    csv_file.write_text("id,title,text,published_at,source,url\n"
                        + "\n".join(f"{r['id']},{r.get('title', '')},\"{r['text']}\",{r['published_at']},"
                                    f"{r.get('source', '')},{r.get('url', '')}" for r in rows) + "\n")
    for path in (jsonl, array, csv_file):
        docs = list(load_articles(path, "plain"))
        assert [d.id for d in docs] == ["a", "7", "c"], path
        assert docs[0].published_at == end_of_day("2015-09-05")
        assert docs[1].published_at == datetime(2015, 9, 5, 10, tzinfo=UTC)  # no offset → UTC
        assert docs[1].title == "No title here."  # missing title → first sentence
        # +02:00 converted to UTC, sub-second rounded up (never earlier than published)
        assert docs[2].published_at == datetime(2015, 9, 5, 8, 0, 1, tzinfo=UTC)
        assert docs[2].source == "Wire" and docs[2].url == "https://example.org/c"


def test_bad_rows_raise_with_location_or_are_collected(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"id": "a", "title": "A", "text": "x", "published_at": "2015-09-05"}\n'
                    '{"id": "b", "text": "y"}\n'
                    'not json\n'
                    '{"id": "d", "title": "D", "text": "z", "published_at": "yesterday"}\n'
                    '[1, 2]\n')
    with pytest.raises(InputError, match=r"bad.jsonl line 2: missing field 'published_at'"):
        list(load_articles(path, "plain"))
    errors: list[str] = []
    docs = list(load_articles(path, "plain", errors=errors))
    assert [d.id for d in docs] == ["a"]
    assert [e.split(":")[0] for e in errors] == ["bad.jsonl line 2", "bad.jsonl line 3", "bad.jsonl line 4",
                                                  "bad.jsonl line 5"]
    assert "not an ISO date" in errors[2] and "not valid JSON" in errors[1]


def test_plain_adapter_on_the_news_sample_points_to_cep():
    with pytest.raises(InputError, match="use --adapter cep"):
        next(load_articles(NEWS_SAMPLE, "plain"))


def test_load_articles_rejects_missing_and_unknown_files(tmp_path):
    with pytest.raises(InputError, match="does not exist"):
        load_articles(tmp_path / "nope.jsonl")
    odd = tmp_path / "x.xml"
    odd.write_text("<rss/>")
    with pytest.raises(InputError, match="unknown format"):
        load_articles(odd)
    binary = tmp_path / "x.jsonl"
    binary.write_bytes(b"\xff\xfe\x00bad")
    with pytest.raises(InputError, match="not UTF-8"):
        load_articles(binary)
    with pytest.raises(InputError, match="unknown adapter"):
        load_articles(NEWS_SAMPLE, "rss")


def test_document_rejects_naive_datetimes_and_empty_content():
    with pytest.raises(ValueError, match="no UTC offset"):
        Document(id="a", title="t", text="x", published_at=datetime(2015, 9, 5))
    with pytest.raises(ValueError, match="both empty"):
        Document(id="a", title=" ", text="", published_at="2015-09-05")
    with pytest.raises(ValueError):
        Document(id="  ", title="t", text="x", published_at="2015-09-05")
    plus5 = timezone(timedelta(hours=5))
    aware = Document(id="a", title="t", text="x", published_at=datetime(2015, 9, 5, 3, tzinfo=plus5))
    assert aware.published_at == datetime(2015, 9, 4, 22, tzinfo=UTC)


def test_parse_as_of():
    assert parse_as_of("2015-09-05") == datetime(2015, 9, 5, tzinfo=UTC)  # a bare date is 00:00 UTC
    assert parse_as_of("2015-09-05T23:59:59Z") == end_of_day("2015-09-05")
    assert parse_as_of("2015-09-06T01:59:59+02:00") == end_of_day("2015-09-05")
    assert parse_as_of("2015-09-05T12:00") == datetime(2015, 9, 5, 12, tzinfo=UTC)
    for bad in ("", "soon", "2015-13-01", "05/09/2015"):
        with pytest.raises(InputError, match="not an ISO date"):
            parse_as_of(bad)
    with pytest.raises(InputError, match="no UTC offset"):
        parse_as_of(datetime(2015, 9, 5))


# --- dedup and incremental ingest -------------------------------------------------------------------------

def test_news_sample_ingests_all_items_and_reingest_adds_nothing(news):
    assert news.stats().documents == NEWS_ITEMS
    again = news.ingest(load_articles(NEWS_SAMPLE))
    assert (again.added, again.duplicates, again.skipped, again.errors) == (0, NEWS_ITEMS, 0, [])
    # the sample cites one BBC article from two events on different days: both are kept
    assert news.read("56702", LATE).url == news.read("56717", LATE).url


def test_dedup_by_content_hash_and_url(tmp_path):
    corpus = DatedCorpus.open(tmp_path / "ix")
    base = doc("a", "Greece votes in a snap election.", url="https://www.example.com/news/greece/?utm_source=x#top")
    assert corpus.ingest([base]).added == 1
    same_text = doc("b", "  greece VOTES in a snap   election. ", title="Greece votes in a snap election")
    same_url_same_day = doc("c", "Different text, same page.", url="http://example.com/news/greece")
    same_url_next_day = doc("d", "Updated page text.", day="2015-09-06", url="example.com/news/greece/")
    new = doc("e", "Another story entirely.", url="https://example.com/news/other")
    report = corpus.ingest([same_text, same_url_same_day, same_url_next_day, new])
    assert (report.added, report.duplicates, report.skipped) == (2, 2, 0)
    assert {h.id for h in corpus.search("greece page story updated", LATE, k=10)} == {"a", "d", "e"}


def test_existing_id_with_new_content_is_an_error_not_an_overwrite(tmp_path):
    corpus = DatedCorpus.open(tmp_path / "ix")
    corpus.ingest([doc("a", "Original text.")])
    report = corpus.ingest([doc("a", "Original text."), doc("a", "Replacement text."), doc("b", "Fresh."),
                            doc("b", "Other fresh.")])
    assert (report.added, report.duplicates, report.skipped) == (1, 1, 2)
    assert all("already holds a different document" in e for e in report.errors)
    assert corpus.read("a", LATE).text == "Original text."
    assert corpus.read("b", LATE).text == "Fresh."


def test_ingest_accepts_dicts_and_reports_invalid_ones(tmp_path):
    corpus = DatedCorpus.open(tmp_path / "ix")
    report = corpus.ingest([{"id": "a", "title": "t", "text": "x", "published_at": "2015-09-05"},
                            {"id": "b", "title": "t", "text": "y"}])
    assert (report.added, report.skipped) == (1, 1) and "'b'" in report.errors[0]


def test_ingest_is_incremental_across_opens_and_atomic(tmp_path):
    index = tmp_path / "ix"
    DatedCorpus.open(index).ingest([doc("a", "First.")])
    reopened = DatedCorpus.open(index, create=False)
    assert reopened.ingest([doc("a", "First."), doc("b", "Second.")]).added == 1

    def failing():
        yield doc("c", "Third.")
        raise InputError("row 2 is broken")

    with pytest.raises(InputError, match="row 2"):
        reopened.ingest(failing())
    assert DatedCorpus.open(index).stats().documents == 2  # nothing of the failed call was committed
    with pytest.raises(DocumentNotAvailable):
        reopened.read("c", LATE)


def test_a_second_writer_is_refused_while_one_ingests(tmp_path):
    index = tmp_path / "ix"
    first, second = DatedCorpus.open(index), None
    outcome = {}

    def docs():
        yield doc("a", "First.")
        nonlocal second
        second = DatedCorpus.open(index)
        try:
            second.ingest([doc("b", "Second.")])
        except InputError as exc:
            outcome["error"] = exc.message

    assert first.ingest(docs()).added == 1
    assert "another ingest running" in outcome["error"]
    assert second.ingest([doc("b", "Second.")]).added == 1  # the lock is released after the first ingest


# --- opening ------------------------------------------------------------------------------------------

def test_open_errors(tmp_path):
    with pytest.raises(InputError, match="no corpus index"):
        DatedCorpus.open(tmp_path / "missing", create=False)
    assert not (tmp_path / "missing").exists()
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "notes.txt").write_text("hi")
    with pytest.raises(InputError, match="not a corpus index"):
        DatedCorpus.open(busy)
    index = tmp_path / "ix"
    DatedCorpus.open(index)
    manifest = json.loads((index / MANIFEST_NAME).read_text())
    (index / MANIFEST_NAME).write_text(json.dumps({**manifest, "schema_version": 99}))
    with pytest.raises(InputError, match="schema version 99"):
        DatedCorpus.open(index)
    for damaged in ("{oops", "[" * 100_000, json.dumps(manifest)[:-1] + ', "format": "x"}'):
        (index / MANIFEST_NAME).write_text(damaged)
        with pytest.raises(InputError, match="unreadable"):
            DatedCorpus.open(index)


# --- search, read, stats ------------------------------------------------------------------------------

def test_search_ranks_the_matching_item_first_with_a_snippet_from_its_text(news):
    hits = news.search("Tajikistan clashes death toll", end_of_day("2015-09-05"), k=3)
    assert [h.id for h in hits][:2] == ["56717", "56702"]
    assert hits[0].score > hits[1].score > 0
    top = news.read("56717", end_of_day("2015-09-05"))
    assert hits[0].snippet == top.text and hits[0].title == top.title
    long_hit = news.search("Nazarzoda", LATE, k=1)[0]
    text = news.read(long_hit.id, LATE).text
    assert long_hit.id == "56702" and long_hit.snippet.endswith("…") and len(long_hit.snippet) <= 242
    assert long_hit.snippet.strip("…") in text and "Nazarzoda" in long_hit.snippet


def test_search_stems_and_ignores_case(news):
    assert news.search("REFUGEE", LATE, k=50) == news.search("refugees", LATE, k=50)
    assert query_terms("Elections, ELECTION; elected!") == ["elect"]


def test_search_input_errors(news):
    for query in ("", "   ", "?!* :[]"):
        with pytest.raises(InputError, match="no words"):
            news.search(query, LATE)
    for k in (0, -1, 1001, True, 2.5):
        with pytest.raises(InputError, match="k must be"):
            news.search("refugees", LATE, k=k)
    with pytest.raises(InputError, match="no UTC offset"):
        news.search("refugees", datetime(2015, 9, 5))
    with pytest.raises(InputError, match="parse strings with parse_as_of"):
        news.search("refugees", "2015-09-05")


def test_stats(news, tmp_path):
    stats = news.stats()
    assert stats.first == end_of_day("2015-09-01") and stats.last == end_of_day("2015-09-19")
    rows = news_rows()
    assert stats.sources["Reuters"] == sum(1 for r in rows if r["source"] and r["source"][0]["sourceName"] == "Reuters")
    assert list(stats.sources.values()) == sorted(stats.sources.values(), reverse=True)
    empty = DatedCorpus.open(tmp_path / "empty").stats()
    assert (empty.documents, empty.first, empty.last, empty.sources) == (0, None, None, {})


def test_normalise_url_and_content_hash():
    assert normalise_url("HTTPS://WWW.Example.com:443/a/b/?utm_medium=x&b=2&a=1#frag") == "example.com/a/b?a=1&b=2"
    assert normalise_url("example.com/a/b") == "example.com/a/b"
    assert normalise_url("http://example.com:8080/A") == "example.com:8080/A"  # paths keep their case
    assert normalise_url("") == ""
    assert content_hash("Title", "Some  text") == content_hash(" title ", "some text")
    assert content_hash("Title", "Some text") != content_hash("Title", "Some text.")


def test_index_survives_on_disk(tmp_path):
    cep_corpus(tmp_path)
    reopened = DatedCorpus.open(Path(tmp_path) / "cep-index", create=False)
    assert reopened.stats().documents == NEWS_ITEMS
    assert reopened.read("56657", end_of_day("2015-09-01")).source == "BBC"


def test_package_exports_load_lazily():
    code = ("import sys, reasonforge.forecast.agentic as a; assert 'tantivy' not in sys.modules; "
            "a.DatedCorpus; assert 'tantivy' in sys.modules; print(sorted(a.__all__) == sorted(a._EXPORTS))")
    out = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and out.stdout.strip() == "True", out.stderr
    from reasonforge.forecast import agentic

    package = Path(agentic.__file__).parent
    for name in agentic.__all__:
        modules = agentic._EXPORTS[name]
        if any((package / f"{module}.py").exists() for module in modules):  # modules still being written are skipped
            assert getattr(agentic, name) is not None, name
    with pytest.raises(AttributeError):
        agentic.no_such_name  # noqa: B018


def test_search_benchmark_runs_small():
    pytest.importorskip("rank_bm25")
    import importlib.util

    spec = importlib.util.spec_from_file_location("corpus_search_bench", REPO / "benchmarks" / "corpus_search.py")
    bench = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = bench  # pydantic resolves the report's annotations through sys.modules
    spec.loader.exec_module(bench)
    report = bench.run(n_docs=600, n_queries=12, n_bm25=6, k=5, seed=1, vocab_size=2000, repeats=1)
    assert report.docs == 600 and report.tantivy_bounded.queries == 12 and report.rank_bm25_filtered.queries == 6
    assert 0 < report.tantivy_unfiltered.p50_ms and 0 < report.corpus_search.p50_ms
    assert 0.2 < report.mean_visible_fraction < 0.9
    assert report.topk_overlap_bounded > 0.2  # both rankers see the same documents and the same bound
    assert "date-bounded / unfiltered" in bench.render(report)
    assert bench.main(["--docs", "10"]) == 2
