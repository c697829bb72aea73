"""The dated question set: schedule, mechanical resolution (re-derived here from the raw news file), the
leakage guard (no public word first seen after the earliest forecast date) and the sibling check."""

import importlib.util
import json
from collections import Counter
from datetime import date, timedelta

import pytest

from reasonforge.errors import InputError
from reasonforge.forecast.agentic.questions import (
    NONE_OF_THESE,
    BuildConfig,
    build_questions,
    leak_problems,
    load_news_items,
    resolve,
    sibling_problems,
)
from reasonforge.forecast.agentic.records import load_questions

from agentic_support import NEWS_SAMPLE, REPO, end_of_day, news_rows

QUESTIONS_FILE = REPO / "data" / "agentic" / "questions.jsonl"
ROWS = news_rows()
ITEMS = load_news_items(NEWS_SAMPLE)
QUESTIONS = load_questions(QUESTIONS_FILE)


def kind_of(q):
    return q.tags[1]


def group_of(q):
    return q.tags[2]


def window(q):
    return q.forecast_dates[-1].date() + timedelta(days=1), q.resolution_date.date()


def in_group(row, group):
    key, _, value = group.partition(":")
    if key == "story":
        return (row.get("belongsToStory") or {}).get("id") == value
    if key == "category":
        return row["category"]["name"] == value
    if key == "portal":
        return True
    return value in [e["name"] for e in row.get("entity") or []]


def expected_outcome(q) -> str:
    """The resolved outcome, re-derived from the raw JSON rows by a separate reading of the criteria."""
    first, last = window(q)
    rows = sorted((r for r in ROWS if first <= date.fromisoformat(r["date"]) <= last and in_group(r, group_of(q))),
                  key=lambda r: (r["date"], int(r["id"])))
    kind = kind_of(q)
    if kind in ("story-continues", "entity-mention"):
        return "Yes" if rows else "No"
    if kind == "category-count":
        n = len(rows)
        for label in q.outcomes:
            words = label.split()
            if label.endswith("or more") and n >= int(words[0]):
                return label
            if " to " in label and int(words[0]) <= n <= int(words[2]):
                return label
            if label.isdigit() and n == int(label):
                return label
        raise AssertionError(f"{q.id}: count {n} in no bin")
    names = [o for o in q.outcomes if o != NONE_OF_THESE]
    if kind == "story-entity":
        if not rows:
            return NONE_OF_THESE
        linked = [e["name"] for e in rows[0].get("entity") or [] if e["name"] in names]
        return linked[0] if linked else NONE_OF_THESE
    counts = {n: sum(n in [e["name"] for e in r.get("entity") or []] for r in rows) for n in names}
    best = max(counts.values())
    return NONE_OF_THESE if best == 0 else next(n for n in names if counts[n] == best)


def test_the_file_has_enough_resolved_questions_with_three_dates_each():
    assert len(QUESTIONS) >= 24 and len({q.id for q in QUESTIONS}) == len(QUESTIONS)
    kinds = Counter(kind_of(q) for q in QUESTIONS)
    assert set(kinds) == {"story-entity", "entity-most", "story-continues", "category-count", "entity-mention"}
    assert sum(len(q.outcomes) > 2 for q in QUESTIONS) >= 24  # mostly multi-class
    for q in QUESTIONS:
        assert q.outcome_index is not None
        horizons = [(q.resolution_date - d).total_seconds() / 86400 for d in q.forecast_dates]
        assert horizons == [7, 4, 2], q.id
        assert all(d.time() == end_of_day("2015-09-01").time() for d in q.forecast_dates)
    # Not a degenerate set: several outcome positions are realised.
    assert len(Counter(q.outcome_index for q in QUESTIONS if len(q.outcomes) > 2)) >= 3


def test_outcomes_match_an_independent_resolution_from_the_raw_file():
    for q in QUESTIONS:
        assert q.outcomes[q.outcome_index] == expected_outcome(q), q.id
        assert resolve(q, ITEMS) == q.outcome_index


def test_no_forecast_date_can_see_its_resolution_items():
    for q in QUESTIONS:
        first, last = window(q)
        for row in ROWS:
            if first <= date.fromisoformat(row["date"]) <= last:
                assert end_of_day(row["date"]) > q.forecast_dates[-1]


def test_public_views_pass_the_leakage_guard_and_sibling_check():
    problems = [p for q in QUESTIONS for p in leak_problems(q, ITEMS)]
    assert problems == []
    assert sibling_problems(QUESTIONS, ITEMS) == []
    groups = Counter(group_of(q) for q in QUESTIONS)
    assert max(groups.values()) >= 2  # the sibling check has siblings to compare


def test_public_view_hides_outcome_and_resolution_date():
    for q in QUESTIONS:
        view = json.dumps(q.public_view(q.forecast_dates[0]))
        assert "outcome_index" not in view and q.resolution_date.isoformat() not in view


def test_leakage_guard_flags_a_word_first_seen_after_the_earliest_date():
    q = next(q for q in QUESTIONS if kind_of(q) == "story-entity")
    first_date = q.forecast_dates[0].date()
    later_entity = next(e["name"] for r in ROWS if date.fromisoformat(r["date"]) > first_date + timedelta(days=3)
                        for e in r.get("entity") or []
                        if all(e["name"] not in [x["name"] for x in s.get("entity") or []]
                               for s in ROWS if date.fromisoformat(s["date"]) <= first_date)
                        and len(e["name"]) > 6)
    tampered = q.model_copy(update={"outcomes": [later_entity, *q.outcomes[1:]]})
    assert any(later_entity in p for p in leak_problems(tampered, ITEMS))
    late_text = next(r["description"] for r in ROWS if date.fromisoformat(r["date"]) == date(2015, 9, 19))
    hinted = q.model_copy(update={"background": q.background + " " + late_text})
    assert leak_problems(hinted, ITEMS)


def test_sibling_check_flags_a_sibling_answer_in_a_public_view():
    by_group: dict[str, list] = {}
    for q in QUESTIONS:
        by_group.setdefault(group_of(q), []).append(q)
    a, b = next(v for k, v in by_group.items() if k.startswith("story:") and len(v) >= 2
                and any(in_group(r, k) and window(v[0])[0] <= date.fromisoformat(r["date"]) <= window(v[0])[1]
                        for r in ROWS))[:2]
    answer = next(r for r in ROWS if in_group(r, group_of(a))
                  and window(a)[0] <= date.fromisoformat(r["date"]) <= window(a)[1])
    leaky = b.model_copy(update={"background": b.background + " Meanwhile: " + answer["description"]})
    problems = sibling_problems([a, leaky], ITEMS)
    assert any(f"resolution item {answer['id']}" in p for p in problems)


def test_building_is_deterministic_and_the_file_is_current(tmp_path):
    spec = importlib.util.spec_from_file_location("build_agentic_questions",
                                                  REPO / "scripts" / "build_agentic_questions.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    out = tmp_path / "q.jsonl"
    assert script.main(["--events", str(NEWS_SAMPLE), "--out", str(out)]) == 0
    assert out.read_bytes() == QUESTIONS_FILE.read_bytes()
    assert "sha256" in (tmp_path / "SOURCE.md").read_text(encoding="utf-8")


def test_sibling_safe_scheduling_drops_overlapping_siblings():
    dense = build_questions(ITEMS, BuildConfig(resolution_days=[date(2015, 9, d) for d in range(13, 20)]))
    assert sibling_problems(dense, ITEMS) == []
    for group in {group_of(q) for q in dense}:
        members = [q for q in dense if group_of(q) == group]
        for a in members:
            for b in members:
                if a.id != b.id:
                    assert b.forecast_dates[0].date() < window(a)[0], (a.id, b.id)
    assert len({q.resolution_date for q in dense}) >= 3  # scheduling kept questions on several days


def test_loading_a_file_that_is_not_the_news_sample_is_an_input_error(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "1", "title": "t"}\n', encoding="utf-8")
    with pytest.raises(InputError, match="bad.jsonl:1: not a portal item"):
        load_news_items(bad)
