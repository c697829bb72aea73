"""Search / Read / Compute tools: date bound, argument validation, truncation, budgets, the real sandbox."""

import json
from datetime import UTC, datetime

import pytest
import tantivy

from reasonforge.forecast.agentic.corpus import DatedCorpus, Document, LeakError
from reasonforge.forecast.agentic.tools import (
    COMPUTE_MAX_CHARS,
    READ_MAX_CHARS,
    SEARCH_MAX_K,
    Toolbox,
    ToolBudget,
)
from reasonforge.verify.sandbox.runner import unavailable_reason

from agentic_support import cep_corpus, end_of_day, news_rows

ROWS = news_rows()
PUBLISHED = {row["id"]: end_of_day(row["date"]) for row in ROWS}
AS_OF = end_of_day("2015-09-08")
needs_sandbox = pytest.mark.skipif(unavailable_reason() is not None, reason=f"no sandbox: {unavailable_reason()}")


@pytest.fixture(scope="module")
def news(tmp_path_factory):
    return cep_corpus(tmp_path_factory.mktemp("tools"))


def test_schemas_are_openai_function_tools():
    corpus_free = Toolbox(None, AS_OF)  # type: ignore[arg-type]  # schemas() never touches the corpus
    tools = corpus_free.schemas()
    assert [t["function"]["name"] for t in tools] == ["search", "read", "compute"]
    for tool in tools:
        assert tool["type"] == "function"
        params = tool["function"]["parameters"]
        assert params["type"] == "object" and params["additionalProperties"] is False
        assert set(params["required"]) <= set(params["properties"]) and tool["function"]["description"]
    assert tools[0]["function"]["parameters"]["properties"]["k"]["maximum"] == SEARCH_MAX_K
    json.dumps(tools)  # serialisable as a request body
    no_compute = Toolbox(None, AS_OF, compute=False)  # type: ignore[arg-type]
    assert [t["function"]["name"] for t in no_compute.schemas()] == ["search", "read"]


def test_search_shows_only_items_published_by_as_of_and_records_evidence(news):
    box = Toolbox(news, AS_OF)
    later = [row for row in ROWS if PUBLISHED[row["id"]] > AS_OF]
    shown: set[str] = set()
    for row in later[:25]:  # words of later items: what a leak would surface
        result = box.call("search", {"query": " ".join(row["description"].split()[:6]), "k": 10})
        assert result.ok, result.content
        assert len(result.doc_ids) <= 10
        for doc_id in result.doc_ids:
            assert PUBLISHED[doc_id] <= AS_OF, f"LEAK: {doc_id}"
            assert f"id={doc_id} |" in result.content
        shown.update(result.doc_ids)
    assert shown and set(box.evidence) == shown
    assert all(box.evidence_published[i] == PUBLISHED[i] for i in shown)
    assert box.calls == box.rounds == 25


def test_read_returns_text_and_refuses_later_documents_like_unknown_ones(news):
    box = Toolbox(news, AS_OF)
    early = next(r for r in ROWS if PUBLISHED[r["id"]] <= AS_OF)
    late = next(r for r in ROWS if PUBLISHED[r["id"]] > AS_OF)
    ok = box.call("read", json.dumps({"doc_id": early["id"]}))
    assert ok.ok and ok.doc_ids == [early["id"]] and not ok.truncated
    assert " ".join(early["description"].split()).rstrip(" ,") in ok.content
    assert f"published: {AS_OF:%Y}" in ok.content
    refused = box.call("read", {"doc_id": late["id"]})
    unknown = box.call("read", {"doc_id": "no-such-id"})
    assert not refused.ok and not unknown.ok and refused.doc_ids == []
    assert late["description"][:30] not in refused.content
    assert refused.content.replace(late["id"], "X") == unknown.content.replace("no-such-id", "X")
    assert box.evidence == [early["id"]] and list(box.documents) == [early["id"]]


def test_read_truncates_long_documents_with_a_marker(tmp_path):
    corpus = DatedCorpus.open(tmp_path / "long")
    corpus.ingest([Document(id="long", title="Long", text="word " * 3000, published_at="2015-09-01")])
    result = Toolbox(corpus, AS_OF).call("read", {"doc_id": "long"})
    assert result.ok and result.truncated
    body = result.content.split("\n\n", 1)[1]
    assert body.startswith("word word") and f"showing {READ_MAX_CHARS} of 15000 characters" in body
    assert len(body) < READ_MAX_CHARS + 100


@pytest.mark.parametrize(("name", "arguments", "message"), [
    ("search", "{not json", "not valid JSON"),
    pytest.param("search", '{"query": ' + "[" * 100_000, "nested more than 8 levels deep", id="deep"),
    ("search", '{"query": "a", "query": "b"}', "repeats the key"),  # which query? neither
    ("search", "[1, 2]", "must be a JSON object"),
    ("search", {}, "missing required argument(s) ['query']"),
    ("search", {"query": 3}, "'query' must be a string"),
    ("search", {"query": "refugees", "k": "5"}, "'k' must be an integer"),
    ("search", {"query": "refugees", "k": True}, "'k' must be an integer"),
    ("search", {"query": "refugees", "k": 0}, "between 1 and 10"),
    ("search", {"query": "refugees", "k": 11}, "between 1 and 10"),
    ("search", {"query": "refugees", "as_of": "2030-01-01"}, "unknown argument(s) ['as_of']"),
    ("search", {"query": "   "}, "'query' is empty"),
    ("search", {"query": "x" * 501}, "the limit is 500"),
    ("search", {"query": "?!"}, "no words"),
    ("read", {"doc_id": ""}, "1 to 200 characters"),
    ("read", {"doc_id": 56657}, "'doc_id' must be a string"),
    ("compute", {"code": ""}, "'code' is empty"),
    ("compute", {"code": "x" * 20_001}, "the limit is 20000"),
    ("browse", {"url": "http://example.com"}, "unknown tool 'browse'"),
])
def test_bad_calls_come_back_as_errors_not_exceptions(news, name, arguments, message):
    box = Toolbox(news, AS_OF)
    result = box.call(name, arguments)
    assert not result.ok and result.content.startswith("error:") and message in result.content, result.content
    assert box.calls == 1 and box.evidence == []  # a bad call still spends budget


def test_budget_refuses_calls_past_the_limits_without_running_them(news):
    box = Toolbox(news, AS_OF, ToolBudget(max_rounds=2, max_calls=3))
    first = box.call_batch([("search", {"query": "Hungary"}), ("search", {"query": "Syria"})])
    assert all(r.ok for r in first) and box.rounds == 1 and box.calls == 2 and not box.exhausted
    second = box.call_batch([("search", {"query": "Yemen"}), ("search", {"query": "Turkey"})])
    assert second[0].ok and not second[1].ok and "budget for this date is spent (3 tool calls)" in second[1].content
    assert box.exhausted and box.calls == 3 and box.refused == 1
    before = box.evidence
    third = box.call("search", {"query": "Japan"})
    assert not third.ok and "(2 tool rounds)" in third.content and box.evidence == before
    assert box.rounds == 2 and box.calls == 3


def test_default_budget_is_80_rounds_and_200_calls(news):
    box = Toolbox(news, AS_OF, compute=False)
    assert (box.budget.max_rounds, box.budget.max_calls) == (80, 200)
    for _ in range(80):
        assert box.call("read", {"doc_id": "nope"}).content.startswith("error: document")
    assert box.exhausted and "refused" in box.call("read", {"doc_id": "nope"}).content
    calls = Toolbox(news, AS_OF, compute=False)
    for _ in range(40):
        calls.call_batch([("read", {"doc_id": "nope"})] * 5)
    assert calls.calls == 200 and calls.exhausted and calls.rounds == 40


def test_a_leaking_index_raises_through_the_toolbox(tmp_path):
    corpus = DatedCorpus.open(tmp_path / "ix")
    corpus.ingest([Document(id="ok", title="Harmless", text="quiet news", published_at="2015-09-01")])
    raw = tantivy.Index.open(str(tmp_path / "ix"))
    writer = raw.writer(15_000_000, 1)
    bad = tantivy.Document()
    bad.add_text("id", "bad")
    bad.add_text("title", "Secret result")
    bad.add_text("text", "the election result announced later")
    bad.add_date("published_at", datetime(2015, 9, 20, 23, 59, 59, tzinfo=UTC))
    bad.add_date("published_at", datetime(2015, 9, 1, tzinfo=UTC))
    writer.add_document(bad)
    writer.commit()
    writer.wait_merging_threads()
    box = Toolbox(DatedCorpus.open(tmp_path / "ix"), AS_OF)
    assert box.call("search", {"query": "quiet"}).doc_ids == ["ok"]
    with pytest.raises(LeakError):
        box.call("search", {"query": "election result"})
    with pytest.raises(LeakError):
        box.call("read", {"doc_id": "bad"})


@needs_sandbox
def test_compute_runs_python_in_the_sandbox(news):
    box = Toolbox(news, AS_OF)
    result = box.call("compute", {"code": "import math\nprint(math.comb(10, 3))"})
    assert result.ok and result.content.startswith("exit code 0\nstdout:\n120\n")
    failing = box.call("compute", {"code": "raise SystemExit('boom')"})
    assert not failing.ok and "exit code 1" in failing.content and "boom" in failing.content
    chatty = box.call("compute", {"code": "print('x' * 5000)"})
    assert chatty.truncated and f"showing {COMPUTE_MAX_CHARS} of 5001 characters" in chatty.content
    assert len(chatty.content) < COMPUTE_MAX_CHARS + 200


@needs_sandbox
def test_compute_has_no_network_and_bounded_memory_and_cpu(news):
    box = Toolbox(news, AS_OF, compute_cpu_s=1)
    net = box.call("compute", {"code": (
        "import socket\ns = socket.socket()\ns.settimeout(2)\n"
        "try:\n    s.connect(('1.1.1.1', 53))\n    print('CONNECTED')\n"
        "except OSError as e:\n    print('no network:', e)")})
    assert "no network" in net.content and "CONNECTED" not in net.content
    memory = box.call("compute", {"code": "x = bytearray(6 * 1024 ** 3)\nprint('ALLOCATED')"})
    assert not memory.ok and "ALLOCATED" not in memory.content and "MemoryError" in memory.content
    spin = box.call("compute", {"code": "while True:\n    pass"})
    assert not spin.ok and "CPU time limit" in spin.content  # the 1 s CPU limit ended it, not a wall clock
    assert Toolbox(news, AS_OF).compute_cpu_s == 10


def test_compute_disabled(news):
    result = Toolbox(news, AS_OF, compute=False).call("compute", {"code": "print(1)"})
    assert not result.ok and "unknown tool 'compute'" in result.content
