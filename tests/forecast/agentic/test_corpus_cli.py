"""`reasonforge corpus ingest|search|stats`: output contracts, date bound, exit codes and error messages."""

import json
import subprocess
import sys
from datetime import datetime

import pytest
from typer.testing import CliRunner

from reasonforge.cli import app

from agentic_support import NEWS_ITEMS, NEWS_SAMPLE, end_of_day, news_rows

PUBLISHED = {row["id"]: end_of_day(row["date"]) for row in news_rows()}


def corpus(*args):
    result = CliRunner().invoke(app, ["corpus", *map(str, args)])
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    path = tmp_path_factory.mktemp("cli") / "index"
    code, out, err = corpus("ingest", NEWS_SAMPLE, "--index", path)
    assert code == 0, err
    assert out.strip() == f"added {NEWS_ITEMS}, duplicates 0, skipped 0"
    return path


def test_end_to_end_in_a_subprocess(index):
    """The documented contract, through the real entry point: JSON list of {id, title, published_at, score, snippet}."""
    out = subprocess.run([sys.executable, "-m", "reasonforge.cli", "corpus", "search", "Tajikistan clashes",
                          "--index", str(index), "--as-of", "2015-09-05T23:59:59Z", "--k", "3", "--json"],
                         check=False, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    hits = json.loads(out.stdout)
    assert [h["id"] for h in hits[:2]] == ["56717", "56702"]
    for hit in hits:
        assert set(hit) == {"id", "title", "published_at", "score", "snippet"}
        assert datetime.fromisoformat(hit["published_at"]) <= end_of_day("2015-09-05")


def test_reingest_adds_nothing(index):
    code, out, _ = corpus("ingest", NEWS_SAMPLE, "--index", index, "--json")
    assert code == 0
    assert json.loads(out) == {"added": 0, "duplicates": NEWS_ITEMS, "skipped": 0, "errors": []}


def test_search_json_respects_as_of_even_for_hostile_queries(index):
    as_of = "2015-09-04T23:59:59Z"
    for query in ("Tajikistan", "published_at:[* TO *] Tajikistan", "id:56717 OR Tajikistan"):
        code, out, err = corpus("search", query, "--index", index, "--as-of", as_of, "--k", "50", "--json")
        assert code == 0, err
        ids = [hit["id"] for hit in json.loads(out)]
        assert "56702" in ids and "56717" not in ids  # 56717 (Sept 5) is the later death-toll update
        assert all(PUBLISHED[i] <= end_of_day("2015-09-04") for i in ids)


def test_search_table_and_empty_result(index):
    code, out, _ = corpus("search", "Tajikistan", "--index", index, "--as-of", "2015-09-05T23:59:59Z")
    assert code == 0 and "56717" in out and "hit(s) published by" in out
    code, out, _ = corpus("search", "Tajikistan", "--index", index, "--as-of", "2015-09-01")
    assert code == 0 and "no documents published by 2015-09-01" in out


def test_stats(index):
    code, out, _ = corpus("stats", "--index", index, "--json")
    stats = json.loads(out)
    assert code == 0 and stats["documents"] == NEWS_ITEMS
    assert stats["first"] == "2015-09-01T23:59:59Z" and stats["last"] == "2015-09-19T23:59:59Z"
    code, out, _ = corpus("stats", "--index", index)
    assert code == 0 and f"documents: {NEWS_ITEMS}" in out and "Reuters" in out


def test_errors_are_messages_with_exit_code_2(index, tmp_path):
    cases = [
        (("search", "x", "--index", tmp_path / "missing", "--as-of", "2015-09-05"), "no corpus index at"),
        (("stats", "--index", tmp_path / "missing"), "no corpus index at"),
        (("search", "x", "--index", index, "--as-of", "5 Sept"), "not an ISO date or datetime"),
        (("search", "?!", "--index", index, "--as-of", "2015-09-05"), "no words to search for"),
        (("search", "x", "--index", index, "--as-of", "2015-09-05", "--k", "0"), "k must be an integer"),
        (("ingest", tmp_path / "none.jsonl", "--index", tmp_path / "new"), "does not exist"),
    ]
    for args, message in cases:
        code, out, err = corpus(*args)
        assert code == 2, (args, out)
        assert message in err and "Traceback" not in err + out, (args, err)
    assert not (tmp_path / "missing").exists()


def test_bad_rows_lenient_and_strict(tmp_path):
    data = tmp_path / "mixed.jsonl"
    data.write_text('{"id": "a", "title": "A", "text": "alpha", "published_at": "2015-09-05"}\n'
                    '{"id": "b", "title": "B", "text": "beta"}\n')
    code, out, err = corpus("ingest", data, "--index", tmp_path / "lenient")
    assert code == 0 and out.strip() == "added 1, duplicates 0, skipped 1"
    assert "mixed.jsonl line 2: missing field 'published_at'" in err
    code, _, err = corpus("ingest", data, "--index", tmp_path / "strict", "--strict")
    assert code == 2 and "line 2" in err
    code, out, _ = corpus("stats", "--index", tmp_path / "strict", "--json")
    assert json.loads(out)["documents"] == 0  # strict: nothing committed
    garbage = tmp_path / "garbage.csv"
    garbage.write_text("a,b\n1,2\n")
    code, _, err = corpus("ingest", garbage, "--index", tmp_path / "g")
    assert code == 2 and "no usable rows" in err


def test_adapter_option(tmp_path):
    code, _, err = corpus("ingest", NEWS_SAMPLE, "--index", tmp_path / "p", "--adapter", "plain")
    assert code == 2 and "use --adapter cep" in err
    code, out, _ = corpus("ingest", NEWS_SAMPLE, "--index", tmp_path / "c", "--adapter", "cep", "--json")
    assert code == 0 and json.loads(out)["added"] == NEWS_ITEMS
