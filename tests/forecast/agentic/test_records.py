"""Questions, notebooks, episode records: validation, the public view, JSONL loading with line numbers."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
from pydantic import ValidationError

from reasonforge.errors import InputError
from reasonforge.forecast.agentic.records import (
    NOTEBOOK_MAX_CHARS,
    NOTEBOOK_MAX_ITEMS,
    PUBLIC_FIELDS,
    DateForecast,
    EpisodeRecord,
    Notebook,
    Question,
    append_jsonl,
    horizon_days,
    load_questions,
    load_records,
    parse_published,
    save_jsonl,
)


def _question(**overrides: object) -> dict:
    row = {
        "id": "q-merkel",
        "question": "Who will be named Time Person of the Year?",
        "outcomes": ["Angela Merkel", "Pope Francis", "Someone else"],
        "resolution_criteria": "Time magazine's announcement.",
        "forecast_dates": ["2015-09-03T23:59:59Z", "2015-09-07T23:59:59Z", "2015-09-10T23:59:59Z"],
        "resolution_date": "2015-09-14T23:59:59Z",
        "outcome_index": 0,
        "market_prices": {"2015-09-03": [0.3, 0.3, 0.4], "2015-09-12": [0.98, 0.01, 0.01]},
        "background": "Announced each December.",
        "tags": ["people"],
    }
    row.update(overrides)
    return row


def test_valid_question_is_utc_and_resolved() -> None:
    q = Question.model_validate(_question(resolution_date="2015-09-15T01:00:00+02:00"))
    assert q.resolution_date == datetime(2015, 9, 14, 23, 0, tzinfo=UTC)
    assert all(d.tzinfo == UTC for d in q.forecast_dates)
    assert q.resolved
    assert not Question.model_validate(_question(outcome_index=None)).resolved


@pytest.mark.parametrize(("override", "message"), [
    ({"outcomes": ["Yes"]}, "at least 2"),
    ({"outcomes": ["Yes", "yes "]}, "unique"),
    ({"outcomes": ["Yes", " "]}, "non-empty"),
    ({"forecast_dates": []}, "at least 1"),
    ({"forecast_dates": ["2015-09-07T23:59:59Z", "2015-09-03T23:59:59Z"]}, "ascending"),
    ({"forecast_dates": ["2015-09-03T23:59:59Z", "2015-09-03T23:59:59Z"]}, "ascending"),
    ({"forecast_dates": ["2015-09-14T23:59:59Z"]}, "not before resolution_date"),
    ({"forecast_dates": ["2015-09-03T23:59:59"]}, "UTC offset"),
    ({"resolution_date": "2015-09-14T23:59:59"}, "UTC offset"),
    ({"outcome_index": 3}, "outside outcomes"),
    ({"outcome_index": -1}, "outside outcomes"),
    ({"market_prices": {"2015-09-03": [0.3, 0.3, 0.3]}}, "sums to 0.9"),
    ({"market_prices": {"2015-09-03": [0.5, 0.5]}}, "2 entries"),
    ({"market_prices": {"2015-09-03": [1.2, -0.1, -0.1]}}, "finite probabilities"),
    ({"market_prices": {"next week": [0.3, 0.3, 0.4]}}, "not an ISO date"),
    ({"secret": 1}, "Extra inputs"),
])
def test_invalid_questions_are_rejected(override: dict, message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        Question.model_validate(_question(**override))


def test_public_view_is_a_whitelist() -> None:
    q = Question.model_validate(_question())
    view = q.public_view()
    assert tuple(view) == PUBLIC_FIELDS
    text = json.dumps(view)
    assert "2015-09-14" not in text and "outcome_index" not in text and "0.98" not in text


def test_public_view_is_independent_of_resolution_data() -> None:
    """Questions differing only in outcome, resolution date and later prices look identical to an agent."""
    as_of = datetime(2015, 9, 7, 23, 59, 59, tzinfo=UTC)
    a = Question.model_validate(_question())
    b = Question.model_validate(_question(outcome_index=2, resolution_date="2015-09-30T00:00:00Z",
                                          market_prices={"2015-09-03": [0.3, 0.3, 0.4],
                                                         "2015-09-08": [0.01, 0.01, 0.98]}))
    c = Question.model_validate(_question(outcome_index=None))
    assert a.public_view(as_of) == b.public_view(as_of) == c.public_view(as_of)
    assert a.public_view() == b.public_view() == c.public_view()


def test_market_price_visibility_follows_end_of_day_rule() -> None:
    q = Question.model_validate(_question(market_prices={"2015-09-03": [0.3, 0.3, 0.4],
                                                         "2015-09-05T12:00:00Z": [0.5, 0.2, 0.3]}))
    assert q.market_price_at(datetime(2015, 9, 3, 12, tzinfo=UTC)) is None  # dated 09-03 → public 23:59:59
    assert q.market_price_at(datetime(2015, 9, 3, 23, 59, 59, tzinfo=UTC)) == [0.3, 0.3, 0.4]
    assert q.market_price_at(datetime(2015, 9, 5, 11, 59, tzinfo=UTC)) == [0.3, 0.3, 0.4]
    assert q.market_price_at(datetime(2015, 9, 5, 12, tzinfo=UTC)) == [0.5, 0.2, 0.3]
    assert q.public_view(datetime(2015, 9, 5, 12, tzinfo=UTC))["market_price"] == [0.5, 0.2, 0.3]
    assert "market_price" not in q.public_view(datetime(2015, 9, 1, tzinfo=UTC))
    with pytest.raises(ValueError, match="UTC offset"):
        q.public_view(datetime(2015, 9, 5))


def test_parse_published_and_horizon() -> None:
    assert parse_published("2015-09-05") == datetime(2015, 9, 5, 23, 59, 59, tzinfo=UTC)
    assert parse_published("2015-09-05T12:00:00+02:00") == datetime(2015, 9, 5, 10, tzinfo=UTC)
    start = datetime(2015, 9, 1, tzinfo=UTC)
    assert horizon_days(start, start + timedelta(days=3, hours=12)) == 3.5


def _notebook(**overrides: object) -> dict:
    row = {"beliefs": [0.5, 0.3, 0.2], "key_evidence": ["doc 12 says X"], "open_questions": [],
           "updated_at": "2015-09-03T23:59:59Z"}
    row.update(overrides)
    return row


@pytest.mark.parametrize(("override", "message"), [
    ({"beliefs": []}, "at least 1"),
    ({"beliefs": [0.5, float("nan"), 0.5]}, "finite"),
    ({"beliefs": [1.5, -0.5, 0.0]}, "finite probabilities"),
    ({"key_evidence": ["x"] * (NOTEBOOK_MAX_ITEMS + 1)}, "at most 20"),
    ({"open_questions": ["x" * (NOTEBOOK_MAX_CHARS + 1)]}, "limited to 500"),
    ({"key_evidence": [3]}, "valid string"),
    ({"updated_at": "2015-09-03T23:59:59"}, "UTC offset"),
    ({"mood": "sure"}, "Extra inputs"),
])
def test_notebook_validation(override: dict, message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        Notebook.model_validate(_notebook(**override))


def _forecast(qid: str = "q-merkel", probs: list[float] | None = None) -> DateForecast:
    return DateForecast(question_id=qid, date=datetime(2015, 9, 3, 23, 59, 59, tzinfo=UTC), horizon_days=11.0,
                        raw='{"probabilities": [0.5, 0.3, 0.2]}', probs=[0.5, 0.3, 0.2] if probs is None else probs,
                        format_ok=True, format_errors=[], brier=0.38, log=-0.693, reward=0.91, tool_calls=3,
                        tool_rounds=2, evidence=["d1"], notebook=Notebook.model_validate(_notebook()))


def test_episode_record_checks_and_roundtrip(tmp_path) -> None:
    rec = EpisodeRecord(question_id="q-merkel", agent="heuristic", memory=True,
                        outcomes=["Angela Merkel", "Pope Francis", "Someone else"], outcome_index=0,
                        forecasts=[_forecast()])
    path = tmp_path / "run" / "episodes.jsonl"
    assert save_jsonl(path, [rec]) == 1
    append_jsonl(path, rec)
    assert load_records(path) == [rec, rec]
    with pytest.raises(ValidationError, match="3 outcomes"):
        EpisodeRecord(question_id="q-merkel", agent="a", memory=False, outcomes=["A", "B", "C"], outcome_index=0,
                      forecasts=[_forecast(probs=[0.5, 0.5])])
    with pytest.raises(ValidationError, match="inside the episode"):
        EpisodeRecord(question_id="other", agent="a", memory=False, outcomes=["A", "B", "C"], outcome_index=0,
                      forecasts=[_forecast()])
    with pytest.raises(ValidationError, match="outside outcomes"):
        EpisodeRecord(question_id="q-merkel", agent="a", memory=False, outcomes=["A", "B"], outcome_index=2,
                      forecasts=[])


def test_load_questions_reports_file_and_line(tmp_path) -> None:
    path = tmp_path / "questions.jsonl"
    good = json.dumps(_question())
    path.write_text(good + "\n\n" + json.dumps(_question(id="q2")) + "\n", encoding="utf-8")
    assert [q.id for q in load_questions(path)] == ["q-merkel", "q2"]

    path.write_text(good + "\n\n" + json.dumps(_question(id="q2", outcome_index=7)) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"questions\.jsonl:3: invalid Question: outcome_index 7"):
        load_questions(path)

    path.write_text(good + "\n{not json\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"questions\.jsonl:2: not valid JSON"):
        load_questions(path)

    path.write_text(good + "\n" + good + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"'q-merkel' appears twice \(rows 1 and 2\)"):
        load_questions(path)

    with pytest.raises(InputError, match="cannot read"):
        load_questions(tmp_path / "missing.jsonl")
