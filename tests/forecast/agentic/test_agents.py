"""Agents: offline baselines, the retrieval heuristic, and the OpenAI-compatible tool-calling agent against a
loopback server speaking the real chat-completions protocol with tool calls."""

import json
import re
import socket

import pytest

from reasonforge.errors import InputError
from reasonforge.forecast.agentic.agents import (
    MarketAgent,
    RetrievalHeuristicAgent,
    ToolCallingAgent,
    UniformAgent,
    public_question,
    search_queries,
)
from reasonforge.forecast.agentic.episode import run_episode
from reasonforge.forecast.agentic.readers import BaseRateReader
from reasonforge.forecast.agentic.records import Question, load_questions
from reasonforge.forecast.agentic.rewards import parse_forecast
from reasonforge.forecast.agentic.tools import Toolbox, ToolBudget
from reasonforge.forecast.runner import EndpointError
from reasonforge.verify.sandbox.runner import unavailable_reason

from agentic_support import REPO, cep_corpus, end_of_day, news_rows
from tool_chat_server import (
    Researcher,
    ToolChatServer,
    error_reply,
    text_reply,
    tool_calls_reply,
)

ROWS = news_rows()
PUBLISHED = {row["id"]: end_of_day(row["date"]) for row in ROWS}
TEXT = {row["id"]: " ".join(row["description"].split()).rstrip(" ,") for row in ROWS}
QUESTIONS = load_questions(REPO / "data" / "agentic" / "questions.jsonl")
MIGRANTS = next(q for q in QUESTIONS if q.id.startswith("cep-story-entity-1903"))


@pytest.fixture(scope="module")
def news(tmp_path_factory):
    return cep_corpus(tmp_path_factory.mktemp("agents"))


def view(q: Question, when, memory=False):
    return {**q.public_view(when), "memory": memory}


def test_uniform_and_market_baselines(news):
    when = MIGRANTS.forecast_dates[0]
    n = len(MIGRANTS.outcomes)
    reply = UniformAgent().forecast(view(MIGRANTS, when), when, Toolbox(news, when), None)
    parsed = parse_forecast(reply.raw, n)
    assert parsed.format_ok and parsed.probs == pytest.approx([1 / n] * n, abs=1e-6)
    priced = MIGRANTS.model_copy(update={"market_prices": {"2015-09-08": [0.4, 0.3, 0.2, 0.1],
                                                            "2015-09-12": [0.1, 0.2, 0.3, 0.4]}})
    box = Toolbox(news, when)
    market = parse_forecast(MarketAgent().forecast(view(priced, when), when, box, None).raw, n)
    assert market.format_ok and market.probs == pytest.approx([0.4, 0.3, 0.2, 0.1]) and box.calls == 0
    early = end_of_day("2015-09-07")  # no price published yet: uniform
    assert parse_forecast(MarketAgent().forecast(view(priced, early), early, box, None).raw, n).probs == \
        pytest.approx([1 / n] * n, abs=1e-6)
    with_memory = json.loads(UniformAgent().forecast(view(MIGRANTS, when, memory=True), when, box, None).raw)
    assert with_memory["notebook"]["beliefs"] == with_memory["probabilities"]


def test_search_queries_use_quoted_names_keywords_and_outcomes():
    queries = search_queries(MIGRANTS.public_view())
    assert queries[0] == "European migrant crisis"
    assert any(q.endswith("Hungary") for q in queries) and not any(q.endswith(NONE) for q in queries
                                                                  for NONE in ("None of these",))


def test_retrieval_agent_researches_within_the_date_and_reports_a_valid_vector(news):
    for when in MIGRANTS.forecast_dates:
        box = Toolbox(news, when)
        reply = RetrievalHeuristicAgent().forecast(view(MIGRANTS, when), when, box, None)
        parsed = parse_forecast(reply.raw, len(MIGRANTS.outcomes))
        assert parsed.format_ok and reply.errors == []
        assert box.calls > len(MIGRANTS.outcomes) and box.documents and box.evidence
        assert all(PUBLISHED[i] <= when for i in box.evidence)
        # the forecast is the default reader's on exactly the documents read, and it is not uniform
        expected = BaseRateReader().forecast(public_question(view(MIGRANTS, when), when), when,
                                             list(box.documents.values()))
        assert parsed.probs == pytest.approx(expected, abs=1e-5)
        assert parsed.probs != pytest.approx([1 / len(MIGRANTS.outcomes)] * len(MIGRANTS.outcomes), abs=1e-4)


def test_retrieval_agent_memory_averages_with_the_notebook(news):
    when = MIGRANTS.forecast_dates[1]
    fresh = json.loads(RetrievalHeuristicAgent().forecast(view(MIGRANTS, when, True), when, Toolbox(news, when),
                                                          None).raw)
    from reasonforge.forecast.agentic.records import Notebook
    prior = Notebook(beliefs=[0.0, 0.0, 0.0, 1.0], updated_at=MIGRANTS.forecast_dates[0])
    mixed = json.loads(RetrievalHeuristicAgent().forecast(view(MIGRANTS, when, True), when, Toolbox(news, when),
                                                          prior).raw)
    assert mixed["probabilities"] == pytest.approx([p / 2 for p in fresh["probabilities"][:3]]
                                                   + [fresh["probabilities"][3] / 2 + 0.5], abs=1e-5)
    assert mixed["notebook"]["beliefs"] == mixed["probabilities"]
    assert mixed["notebook"]["updated_at"].startswith(when.date().isoformat())


def later_than(when):
    return [i for i, p in PUBLISHED.items() if p > when]


def leaked(texts: list[str], when) -> list[str]:
    """Ids or text of items published after `when` found in the environment's messages."""
    joined = "\n".join(texts)
    found = []
    for doc_id in later_than(when):
        if re.search(rf"(?:id[=:] ?){doc_id}\b", joined) or TEXT[doc_id][:80] in joined:
            found.append(doc_id)
    return found


def test_tool_calling_agent_runs_the_tool_loop_and_never_sends_later_news_or_the_outcome(news):
    q = MIGRANTS
    resolution = [r for r in ROWS if (r.get("belongsToStory") or {}).get("id") == "1903"
                  and PUBLISHED[r["id"]] > q.forecast_dates[-1] and PUBLISHED[r["id"]] <= q.resolution_date]
    assert resolution  # the story continues in the window: its items must stay invisible
    with ToolChatServer(Researcher(["European migrant crisis", "Hungary border", "Germany refugees"],
                                   extra_reads=[r["id"] for r in resolution])) as server:
        agent = ToolCallingAgent(server.url, api_key_env="RF_TEST_NO_SUCH_KEY")
        record = run_episode(q, agent, news, memory=False)
    assert [f.format_ok for f in record.forecasts] == [True, True, True]
    assert all(f.tool_rounds == 3 and f.tool_calls > 5 for f in record.forecasts)
    bodies = server.requests
    assert all(b["model"] == "scripted-researcher" for b in bodies)  # discovered from /v1/models
    assert all(not h.get("Authorization") for h in server.headers)
    first = bodies[:4]  # one date: search, read, compute, answer
    assert [t["function"]["name"] for t in first[0]["tools"]] == ["search", "read", "compute"]
    tool_msgs = [m for m in first[-1]["messages"] if m["role"] == "tool"]
    call_ids = [c["id"] for m in first[-1]["messages"] if m["role"] == "assistant" for c in m.get("tool_calls") or []]
    assert [m["tool_call_id"] for m in tool_msgs] == call_ids
    assert any("exit code 0\nstdout:\n42" in m["content"] for m in tool_msgs)
    # The resolution items were requested by id and refused: nothing of them comes back.
    assert sum("not available as of" in m["content"] for m in tool_msgs) >= len(resolution)
    for when, f in zip(q.forecast_dates, record.forecasts, strict=True):
        assert all(PUBLISHED[i] <= when for i in f.evidence)
    env_text = server.sent_messages()
    assert not any("outcome_index" in t or q.resolution_date.isoformat() in t for t in env_text)
    for r in resolution:
        assert TEXT[r["id"]][:60] not in "\n".join(env_text)
    per_date = [bodies[i * 4:(i + 1) * 4] for i in range(3)]
    for when, group in zip(q.forecast_dates, per_date, strict=True):
        texts = [m.get("content") or "" for b in group for m in b["messages"]
                 if m["role"] in ("system", "user", "tool")]
        assert leaked(texts, when) == [], when


def test_the_leak_scan_catches_a_toolbox_bound_too_late(news):
    # Control: the same scripted research with a toolbox bound to the resolution date does surface
    # later items, so the scan in the test above is able to fail.
    q = MIGRANTS
    with ToolChatServer(Researcher(["European migrant crisis", "Hungary border"], code=None)) as server:
        agent = ToolCallingAgent(server.url, "m", "RF_TEST_NO_SUCH_KEY")
        agent.forecast(view(q, q.forecast_dates[0]), q.forecast_dates[0], Toolbox(news, q.resolution_date), None)
    assert leaked(server.sent_messages(), q.forecast_dates[0])


def test_budget_spent_asks_once_for_the_final_answer_without_tools(news):
    def always_search(body):
        if not body.get("tools"):
            return text_reply(json.dumps({"probabilities": [0.7, 0.1, 0.1, 0.1]}))
        return tool_calls_reply([("search", {"query": "Hungary"}), ("search", "{broken json")])

    when = MIGRANTS.forecast_dates[0]
    box = Toolbox(news, when, ToolBudget(max_rounds=3, max_calls=100))
    with ToolChatServer(always_search) as server:
        reply = ToolCallingAgent(server.url, "m", "RF_TEST_NO_SUCH_KEY").forecast(view(MIGRANTS, when), when, box, None)
    assert json.loads(reply.raw)["probabilities"] == [0.7, 0.1, 0.1, 0.1] and reply.turns == 4
    assert box.rounds == 3 and box.calls == 6
    assert [("tools" in b) for b in server.requests] == [True, True, True, False]
    last = server.requests[-1]["messages"]
    assert last[-1]["role"] == "user" and "budget for this date is spent" in last[-1]["content"]
    assert any("not valid JSON" in m["content"] for m in last if m["role"] == "tool")


def test_retries_rate_limits_and_records_hard_errors(news, monkeypatch):
    monkeypatch.setenv("RF_TEST_KEY", "sk-test-123")
    when = MIGRANTS.forecast_dates[0]
    answers = iter([error_reply(429), error_reply(429), text_reply('{"probabilities": [0.25, 0.25, 0.25, 0.25]}')])
    with ToolChatServer(lambda body: next(answers)) as server:
        agent = ToolCallingAgent(server.url, "m", "RF_TEST_KEY", backoff_s=0.0)
        reply = agent.forecast(view(MIGRANTS, when), when, Toolbox(news, when), None)
    assert parse_forecast(reply.raw, 4).format_ok and len(server.requests) == 3
    assert server.headers[0]["Authorization"] == "Bearer sk-test-123"
    with ToolChatServer(lambda body: error_reply(400)) as server:
        record = run_episode(MIGRANTS, ToolCallingAgent(server.url, "m", "RF_TEST_KEY"), news, memory=False)
    assert all(f.probs is None and f.brier == 2.0 and not f.format_ok for f in record.forecasts)
    assert all("HTTP 400" in f.format_errors[0] for f in record.forecasts)


def test_memory_on_passes_the_notebook_forward_in_the_prompt(news):
    with ToolChatServer(Researcher(["European migrant crisis"], code=None, probs=[0.1, 0.2, 0.3, 0.4])) as server:
        record = run_episode(MIGRANTS, ToolCallingAgent(server.url, "m", "RF_TEST_NO_SUCH_KEY"), news, memory=True)
    assert all(f.format_ok and f.notebook is not None for f in record.forecasts)
    users = [b["messages"][1]["content"] for b in server.requests if len(b["messages"]) == 2]
    assert len(users) == 3 and "Notebook: (empty" in users[0]
    assert '"beliefs":[0.1,0.2,0.3,0.4]' in users[1] and '"updated_at":"2015-09-08T23:59:59Z"' in users[1]
    assert '"notebook"' in server.requests[0]["messages"][0]["content"]


def test_format_retries_send_the_parser_errors_back_once(news):
    when = MIGRANTS.forecast_dates[0]
    for retries, expected_ok in ((0, False), (1, True)):
        answers = iter([text_reply("I think Hungary, about 60%."),
                        text_reply('{"probabilities": [0.1, 0.6, 0.2, 0.1]}')])
        with ToolChatServer(lambda body, a=answers: next(a)) as server:
            agent = ToolCallingAgent(server.url, "m", "RF_TEST_NO_SUCH_KEY", format_retries=retries)
            reply = agent.forecast(view(MIGRANTS, when), when, Toolbox(news, when), None)
        assert parse_forecast(reply.raw, 4).format_ok is expected_ok and reply.turns == 1 + retries
    retry = server.requests[-1]["messages"][-1]["content"]
    assert retry.startswith("Your answer could not be used (reply is not strict JSON")


def test_endpoint_resolution_errors_are_clear_errors():
    with pytest.raises(InputError, match="not a model endpoint"):
        ToolCallingAgent("market")
    with socket.socket() as sock:  # bound, never listening: refused, and held so no other test takes the port
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        with pytest.raises(EndpointError, match=f"cannot reach http://127.0.0.1:{port}/v1/models"):
            ToolCallingAgent(f"http://127.0.0.1:{port}/v1", timeout_s=2)


@pytest.mark.skipif(unavailable_reason() is not None, reason="no sandbox")
def test_compute_output_reaches_the_model_through_a_tool_message(news):
    when = MIGRANTS.forecast_dates[0]
    with ToolChatServer(Researcher([], code="print(sum(range(5)))")) as server:
        ToolCallingAgent(server.url, "m", "RF_TEST_NO_SUCH_KEY").forecast(view(MIGRANTS, when), when,
                                                                           Toolbox(news, when), None)
    tool_texts = [m["content"] for m in server.requests[-1]["messages"] if m["role"] == "tool"]
    assert any("stdout:\n10" in t for t in tool_texts)
