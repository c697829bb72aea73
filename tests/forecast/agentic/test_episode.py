"""Episodes: per-date toolboxes, rewards, memory on/off notebooks, the evidence leak assertion, resumable runs
and GRPO advantages across agents."""

import json
from datetime import timedelta

import pytest

from reasonforge.errors import InputError
from reasonforge.forecast.agentic.agents import (
    AgentReply,
    RetrievalHeuristicAgent,
    UniformAgent,
)
from reasonforge.forecast.agentic.corpus import LeakError
from reasonforge.forecast.agentic.episode import (
    ADVANTAGES,
    RECORDS,
    advantages,
    check_evidence,
    read_records,
    run_episode,
    run_many,
)
from reasonforge.forecast.agentic.records import load_questions
from reasonforge.forecast.agentic.rewards import date_reward

from agentic_support import REPO, cep_corpus, end_of_day, news_rows

PUBLISHED = {row["id"]: end_of_day(row["date"]) for row in news_rows()}
QUESTIONS = load_questions(REPO / "data" / "agentic" / "questions.jsonl")


@pytest.fixture(scope="module")
def news(tmp_path_factory):
    return cep_corpus(tmp_path_factory.mktemp("episode"))


class Probe:
    """A test agent: records what it is given and answers from a script (one reply per date)."""

    name = "probe"

    def __init__(self, replies):
        self.replies = list(replies)
        self.seen = []

    def forecast(self, question_view, as_of, toolbox, notebook):
        self.seen.append({"view": question_view, "as_of": as_of, "notebook": notebook, "toolbox": toolbox})
        toolbox.call("search", {"query": "Hungary refugees"})
        return AgentReply(raw=self.replies.pop(0))


def notebook(beliefs, when):
    return {"beliefs": beliefs, "key_evidence": ["x"], "open_questions": [], "updated_at": when.isoformat()}


def test_run_episode_scores_every_date_with_a_fresh_toolbox_and_in_bound_evidence(news):
    q = QUESTIONS[0]
    record = run_episode(q, RetrievalHeuristicAgent(), news, memory=False)
    assert record.question_id == q.id and record.agent == "retrieval" and not record.memory
    assert [f.date for f in record.forecasts] == q.forecast_dates
    assert [f.horizon_days for f in record.forecasts] == [7.0, 4.0, 2.0]
    for f in record.forecasts:
        expected = date_reward(f.raw, len(q.outcomes), q.outcome_index)
        assert (f.brier, f.log, f.reward, f.probs) == (expected.brier, expected.log, expected.reward, expected.probs)
        assert f.format_ok and f.tool_calls > 0 and f.tool_rounds == f.tool_calls and f.evidence
        assert all(PUBLISHED[i] <= f.date for i in f.evidence)
    # later dates see more of the news
    assert max(PUBLISHED[i] for i in record.forecasts[-1].evidence) > max(PUBLISHED[i]
                                                                           for i in record.forecasts[0].evidence)


def test_agents_see_only_the_public_view_and_a_toolbox_bound_to_the_date(news):
    q = QUESTIONS[0]
    probe = Probe([json.dumps({"probabilities": [1 / len(q.outcomes)] * len(q.outcomes)})] * 3)
    run_episode(q, probe, news, memory=False)
    assert [s["as_of"] for s in probe.seen] == q.forecast_dates
    assert len({id(s["toolbox"]) for s in probe.seen}) == 3
    for s in probe.seen:
        assert s["toolbox"].as_of == s["as_of"] and s["notebook"] is None
        assert set(s["view"]) == {"id", "question", "outcomes", "resolution_criteria", "background", "tags",
                                  "as_of", "memory"}
        assert q.resolution_date.isoformat() not in json.dumps(s["view"])


def test_memory_on_passes_a_valid_notebook_and_drops_an_invalid_one(news):
    q = next(q for q in QUESTIONS if len(q.outcomes) == 4)
    d1, d2, d3 = q.forecast_dates
    replies = [
        json.dumps({"probabilities": [0.1, 0.2, 0.3, 0.4], "notebook": notebook([0.1, 0.2, 0.3, 0.4], d1)}),
        json.dumps({"probabilities": [0.25] * 4, "notebook": notebook([0.5, 0.5], d2)}),  # wrong length
        json.dumps({"probabilities": [0.25] * 4, "notebook": notebook([0.25] * 4, d3 + timedelta(days=1))}),
    ]
    probe = Probe(replies)
    record = run_episode(q, probe, news, memory=True)
    passed = [s["notebook"] for s in probe.seen]
    assert passed[0] is None and passed[1].beliefs == pytest.approx([0.1, 0.2, 0.3, 0.4]) and passed[2] is None
    f1, f2, f3 = record.forecasts
    assert f1.format_ok and f1.notebook is not None
    assert not f2.format_ok and f2.probs == [0.25] * 4 and any("notebook.beliefs has 2 entries" in e
                                                               for e in f2.format_errors)
    assert not f3.format_ok and any("after the forecast date" in e for e in f3.format_errors)
    assert f2.reward == pytest.approx(1 - f2.brier / 2)  # scored, but no format reward
    assert all(s["view"]["memory"] is True for s in probe.seen)


def test_memory_off_never_passes_a_notebook(news):
    q = next(q for q in QUESTIONS if len(q.outcomes) == 4)
    reply = json.dumps({"probabilities": [0.25] * 4, "notebook": notebook([0.25] * 4, q.forecast_dates[0])})
    probe = Probe([reply] * 3)
    run_episode(q, probe, news, memory=False)
    assert [s["notebook"] for s in probe.seen] == [None, None, None]


def test_check_evidence_raises_on_later_or_unknown_ids(news):
    as_of = end_of_day("2015-09-08")
    early = next(i for i, p in PUBLISHED.items() if p <= as_of)
    late = next(i for i, p in PUBLISHED.items() if p > as_of)
    check_evidence(news, [early], as_of)
    with pytest.raises(LeakError, match=f"evidence '{late}' published 2015-09"):
        check_evidence(news, [early, late], as_of)
    with pytest.raises(LeakError, match="not a document of the corpus"):
        check_evidence(news, ["forged"], as_of)


def test_unresolved_questions_are_refused(news, tmp_path):
    q = QUESTIONS[0].model_copy(update={"outcome_index": None})
    with pytest.raises(InputError, match="not resolved"):
        run_episode(q, UniformAgent(), news, memory=False)
    with pytest.raises(InputError, match="not resolved"):
        run_many([q], UniformAgent(), news, tmp_path, memory=False)


def test_run_many_resumes_and_computes_group_advantages_across_agents(news, tmp_path):
    qs = QUESTIONS[:4]
    first = run_many(qs, RetrievalHeuristicAgent(), news, tmp_path, memory=False)
    assert (first.episodes_written, first.episodes_skipped) == (4, 0)
    path = tmp_path / RECORDS
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(lines[:2]) + lines[2][:57], encoding="utf-8")  # interrupted mid-write
    again = run_many(qs, RetrievalHeuristicAgent(), news, tmp_path, memory=False)
    assert (again.episodes_written, again.episodes_skipped) == (2, 2)
    assert [r.question_id for r in read_records(path)] == [q.id for q in qs]
    both = run_many(qs, UniformAgent(), news, tmp_path, memory=False)
    assert both.records_total == 8 and both.advantage_rows == 24
    rows = [json.loads(line) for line in (tmp_path / ADVANTAGES).read_text(encoding="utf-8").splitlines()]
    groups = {}
    for row in rows:
        groups.setdefault((row["question_id"], row["date"]), []).append(row)
    assert len(groups) == 12 and all(len(g) == 2 for g in groups.values())
    for g in groups.values():
        mean = sum(r["reward"] for r in g) / 2
        assert all(r["advantage"] == pytest.approx(r["reward"] - mean) for r in g)
        assert sum(r["advantage"] for r in g) == pytest.approx(0, abs=1e-12)
    assert any(abs(r["advantage"]) > 0.01 for r in rows)
    std_groups: dict = {}
    for r in advantages(read_records(path), std_normalize=True):
        std_groups.setdefault((r.question_id, r.date), []).append(r)
    for g in std_groups.values():
        # Population σ of a pair is half its gap: (r − mean)/(σ + 1e-6) is ±1 only when σ ≫ 1e-6.
        mean = sum(r.reward for r in g) / len(g)
        sigma = (sum((r.reward - mean) ** 2 for r in g) / len(g)) ** 0.5
        assert all(r.advantage == pytest.approx((r.reward - mean) / (sigma + 1e-6), abs=1e-9) for r in g)


def test_samples_of_a_deterministic_agent_have_zero_advantage(news, tmp_path):
    summary = run_many(QUESTIONS[:2], UniformAgent(), news, tmp_path, memory=False, samples=3)
    assert summary.episodes_written == 6 and summary.advantage_rows == 18
    assert all(r.advantage == 0 and r.group_size == 3 for r in advantages(read_records(tmp_path / RECORDS)))
    assert run_many(QUESTIONS[:2], UniformAgent(), news, tmp_path, memory=False, samples=3).episodes_written == 0
