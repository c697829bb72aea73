"""Environment shape, baselines and the OpenAI-compatible runner against a loopback server."""

import asyncio

import pytest

from reasonforge.errors import InputError
from reasonforge.forecast.env import SYSTEM_PROMPT, load_environment
from reasonforge.forecast.predictions import read_predictions_file
from reasonforge.forecast.runner import (
    EndpointError,
    RunConfig,
    RunSummary,
    baseline_forecasts,
    format_probability,
    read_done,
    resolve_model,
    run_model,
)

from openai_server import FakeOpenAI


def test_environment_shape_and_rubric_weights():
    env = load_environment("calibrated-forecasting", exclude_near_certain=0.05, max_items=10)
    assert len(env.items) == 10 and len(env.dataset) == 10
    row = env.dataset[0]
    assert row["prompt"][0] == {"role": "system", "content": SYSTEM_PROMPT}
    assert "As of: " in row["prompt"][1]["content"]
    assert str(env.items[0].market_price) not in row["prompt"][1]["content"].split("As of:")[0][-10:]
    assert row["answer"] in ("0", "1") and row["info"]["id"] == env.items[0].id
    weights = dict(zip(env.rubric.names, env.rubric.weights))
    assert weights == {"brier_reward": 1.0, "log_reward": 0.0, "market_skill": 0.0, "format_ok": 0.0, "confidence": 0.0}
    scores = env.score(["PROBABILITY: 0.5"] * 10)
    assert all(s["reward"] == s["brier_reward"] == 0.75 for s in scores)
    assert env.score(["no idea"] * 10)[0]["reward"] == 0.0
    with pytest.raises(ValueError, match="unknown environment"):
        load_environment("other")


def test_prompt_never_depends_on_the_market_price_or_outcome():
    env = load_environment(max_items=30)
    for item in env.items:
        other = item.model_copy(update={"market_price": 0.123456, "outcome": 1 - item.outcome})
        assert env.messages(other) == env.messages(item)


def test_format_probability_is_parser_safe():
    from reasonforge.forecast.parse import parse_probability
    for p in (0.0, 1e-7, 0.00001, 0.0005, 0.5, 0.999999999, 1.0):
        assert parse_probability(f"PROBABILITY: {format_probability(p)}") == pytest.approx(p, abs=1e-8)


def test_base_rate_uses_no_look_ahead():
    env = load_environment(max_items=60)
    rates = baseline_forecasts("base-rate", env.items)
    first = env.items[0]
    assert rates[0] == pytest.approx(0.5) or any(i.resolved_at < first.cutoff for i in env.items)
    for item, rate in zip(env.items, rates):
        earlier = [i.outcome for i in env.items if i.resolved_at < item.cutoff]
        assert rate == pytest.approx((sum(earlier) + 1) / (len(earlier) + 2))


def test_runner_queries_the_endpoint_retries_and_resumes(tmp_path):
    env = load_environment(max_items=12)
    env.items[3] = env.items[3].model_copy(update={"question": env.items[3].question + " NO-ANSWER"})
    out = tmp_path / "run.jsonl"
    with FakeOpenAI(fail_first=2) as server:
        spec = resolve_model(server.url, api_key="test-key")
        config = RunConfig(concurrency=4, backoff_s=0.0)
        summary = asyncio.run(run_model(env, spec, out, config))
        assert summary == RunSummary(written=12, resumed=0) and len(server.requests) == 14  # two 429s retried
        assert server.requests[-1]["model"] == "fake-forecaster"  # discovered from /v1/models
        again = asyncio.run(run_model(env, spec, out, config))
        assert again == RunSummary(written=0, resumed=12) and len(server.requests) == 14  # nothing re-asked
    rows = read_done(out)
    assert len(rows) == 12 and all(row.model == "fake-forecaster" and row.created_at for row in rows.values())
    assert rows[env.items[0].id].value() == pytest.approx(0.3)
    assert rows[env.items[3].id].value() is None  # unparsable reply is recorded, then scored as 0
    assert read_predictions_file(out).rows == list(rows.values())  # the file is a predictions file


def test_a_failing_endpoint_stops_the_run_and_keeps_what_was_answered(tmp_path):
    env = load_environment(max_items=3)
    out = tmp_path / "run.jsonl"
    with FakeOpenAI(fail_first=100, status=500) as server:
        spec = resolve_model("some-model", base_url=server.url, api_key="")
        with pytest.raises(EndpointError, match=r"answered HTTP 500.*gave up after 2 tries.*0 of 3 predictions"):
            asyncio.run(run_model(env, spec, out, RunConfig(max_retries=1, backoff_s=0.0)))
    assert read_done(out) == {}  # a failed request leaves no row to be mistaken for a forecast
    with FakeOpenAI() as server:
        spec = resolve_model("some-model", base_url=server.url, api_key="")
        assert asyncio.run(run_model(env, spec, out, RunConfig())).written == 3
    assert len(read_done(out)) == 3


def test_a_torn_last_line_is_redone_and_another_models_file_is_refused(tmp_path):
    env = load_environment(max_items=4)
    out = tmp_path / "run.jsonl"
    asyncio.run(run_model(env, resolve_model("market"), out, RunConfig()))
    text = out.read_text()
    out.write_text(text[: text.rindex("\n", 0, len(text) - 1) + 1] + text.splitlines()[-1][:20])  # killed mid-write
    summary = asyncio.run(run_model(env, resolve_model("market"), out, RunConfig()))
    assert summary == RunSummary(written=1, resumed=3)
    assert [(r.id, r.reply) for r in read_done(out).values()] == [(i.id, f"PROBABILITY: {format_probability(i.market_price)}")
                                                                  for i in env.items]
    with pytest.raises(InputError, match="already holds predictions by model 'market', not 'always-0.5'"):
        asyncio.run(run_model(env, resolve_model("always-0.5"), out, RunConfig()))
