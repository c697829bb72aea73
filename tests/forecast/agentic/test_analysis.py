"""Analysis: horizon buckets, question-bootstrap CIs, reliability, the evidence–reader swap."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import pytest

from reasonforge.errors import InputError
from reasonforge.forecast.agentic.analysis import (
    BUCKETS,
    evidence_sets,
    horizon_bucket,
    horizon_table,
    reader_swap,
    reliability_summary,
    tie_split_accuracy,
)
from reasonforge.forecast.agentic.corpus import DatedCorpus
from reasonforge.forecast.agentic.corpus_types import Document, LeakError
from reasonforge.forecast.agentic.readers import EvidenceReader, UniformReader
from reasonforge.forecast.agentic.records import DateForecast, EpisodeRecord, Question
from reasonforge.forecast.agentic.rewards import multiclass_brier_loss

RESOLVES = datetime(2015, 9, 30, 23, 59, 59, tzinfo=UTC)
LN_FLOOR = math.log(1e-3)


@pytest.mark.parametrize(("days", "bucket"), [
    (0.0, "<3"), (2.999, "<3"), (3.0, "3-7"), (6.999, "3-7"), (7.0, "7-14"), (14.0, "7-14"),
    (14.001, ">14"), (40.0, ">14"),
])
def test_bucket_edges(days: float, bucket: str) -> None:
    assert horizon_bucket(days) == bucket


def test_bucket_rejects_nan() -> None:
    with pytest.raises(InputError, match="finite"):
        horizon_bucket(float("nan"))


def test_tie_split_accuracy() -> None:
    assert tie_split_accuracy([0.5, 0.5, 0.0], 0) == 0.5
    assert tie_split_accuracy([1 / 3] * 3, 2) == pytest.approx(1 / 3)
    assert tie_split_accuracy([0.2, 0.8], 0) == 0.0
    assert tie_split_accuracy(None, 0) == 0.0


def _f(qid: str, horizon: float, probs: list[float] | None) -> DateForecast:
    return DateForecast(question_id=qid, date=RESOLVES - timedelta(days=horizon), horizon_days=horizon, raw="",
                        probs=probs, format_ok=probs is not None, format_errors=[], brier=0.0, log=0.0, reward=0.0,
                        tool_calls=0, tool_rounds=0, evidence=[])


def _rec(qid: str, forecasts: list[tuple[float, list[float] | None]], outcome: int = 0, agent: str = "heuristic",
         memory: bool = False) -> EpisodeRecord:
    return EpisodeRecord(question_id=qid, agent=agent, memory=memory, outcomes=["A", "B", "C"], outcome_index=outcome,
                         forecasts=[_f(qid, h, p) for h, p in forecasts])


def _row(table, bucket: str, agent: str = "heuristic", memory: bool = False):
    return next(r for r in table.rows if (r.agent, r.memory, r.bucket) == (agent, memory, bucket))


def test_horizon_table_point_values_by_hand() -> None:
    records = [
        _rec("q1", [(10.0, [0.5, 0.3, 0.2]), (5.0, [0.5, 0.5, 0.0]), (1.0, [1.0, 0.0, 0.0])]),
        _rec("q2", [(10.0, [0.2, 0.3, 0.5]), (5.0, None), (20.0, [1 / 3] * 3)], outcome=2),
    ]
    table = horizon_table(records, resamples=200, seed=1)
    assert [r.bucket for r in table.rows] == [*BUCKETS, "all"]
    b714 = _row(table, "7-14")
    assert (b714.n, b714.n_questions) == (2, 2)
    assert b714.brier.value == pytest.approx((0.38 + 0.38) / 2)
    assert b714.log.value == pytest.approx(math.log(0.5))
    assert b714.accuracy.value == pytest.approx(1.0)
    b37 = _row(table, "3-7")  # q1: tie between A and B (0.5 credit); q2: unusable (Brier 2, log floor, 0)
    assert b37.brier.value == pytest.approx((0.5 + 2.0) / 2)
    assert b37.log.value == pytest.approx((math.log(0.5) + LN_FLOOR) / 2)
    assert b37.accuracy.value == pytest.approx(0.25)
    assert _row(table, "<3").brier.value == 0.0 and _row(table, "<3").n_questions == 1
    assert _row(table, ">14").accuracy.value == pytest.approx(1 / 3)
    everything = _row(table, "all")
    assert everything.n == 6 and everything.n_questions == 2
    expected = [multiclass_brier_loss(p, o) if p else 2.0
                for o, ps in ((0, [[0.5, 0.3, 0.2], [0.5, 0.5, 0.0], [1.0, 0.0, 0.0]]),
                              (2, [[0.2, 0.3, 0.5], None, [1 / 3] * 3])) for p in ps]
    assert everything.brier.value == pytest.approx(sum(expected) / 6)
    assert everything.brier.ci_low <= everything.brier.value <= everything.brier.ci_high
    md = table.to_markdown()
    assert "| heuristic | off | 7-14 | 2 | 2 |" in md and "Brier ↓" in md


def test_bootstrap_resamples_questions_not_forecasts() -> None:
    # One question, many different forecasts: resampling questions can only redraw that one question,
    # so the interval has zero width; resampling forecasts would not.
    one = [_rec("q1", [(h, [p, 1 - p, 0.0]) for h, p in ((1.0, 0.1), (2.0, 0.9), (2.5, 0.5))])]
    row = _row(horizon_table(one, resamples=300), "<3")
    assert row.brier.ci_low == pytest.approx(row.brier.value) and row.brier.ci_high == pytest.approx(row.brier.value)


def test_bootstrap_is_reproducible_with_a_seed() -> None:
    records = [_rec(f"q{i}", [(2.0, [0.05 * (i % 9), 0.5, 0.5 - 0.05 * (i % 9)]), (9.0, [1 / 3] * 3)],
                    outcome=i % 2) for i in range(12)]
    a = horizon_table(records, resamples=400, seed=7)
    b = horizon_table(records, resamples=400, seed=7)
    c = horizon_table(records, resamples=400, seed=8)
    assert a == b
    assert _row(a, "all").brier != _row(c, "all").brier
    assert _row(a, "all").brier.value == _row(c, "all").brier.value
    no_ci = horizon_table(records, resamples=0)
    assert _row(no_ci, "all").brier.ci_low is None


def test_configurations_are_separate_rows() -> None:
    records = [_rec("q1", [(2.0, [1.0, 0.0, 0.0])], agent="uniform"),
               _rec("q1", [(2.0, [0.0, 1.0, 0.0])], agent="heuristic", memory=True)]
    table = horizon_table(records, resamples=50)
    assert _row(table, "<3", "uniform").brier.value == 0.0
    assert _row(table, "<3", "heuristic", True).brier.value == pytest.approx(2.0)


def test_reliability_summary() -> None:
    records = [_rec("q1", [(2.0, [0.7, 0.2, 0.1]), (5.0, None)]), _rec("q2", [(2.0, [0.7, 0.2, 0.1])], outcome=1)]
    summary = reliability_summary(records, bins=5)
    entry = summary.entries[0]
    assert entry.classwise.n == 6 and entry.classwise.n_unparsed == 3
    m = entry.classwise.murphy
    assert m is not None and m.recomposed == pytest.approx(m.brier)
    # Classwise one-vs-rest Brier is the multi-class Brier divided by the number of outcomes.
    assert m.brier == pytest.approx((multiclass_brier_loss([0.7, 0.2, 0.1], 0)
                                     + multiclass_brier_loss([0.7, 0.2, 0.1], 1)) / 2 / 3)
    top = entry.top_label
    assert top.n == 2 and top.murphy is not None and top.murphy.brier == pytest.approx((0.3**2 + 0.7**2) / 2)
    assert "classwise" in summary.to_markdown()


# --- evidence–reader swap --------------------------------------------------------------------------------

CANDIDATES = [("Jeremy Corbyn", "Andy Burnham", "Yvette Cooper"), ("Lamar Odom", "Kevin Durant", "Tim Duncan"),
              ("Angela Merkel", "Francois Hollande", "David Cameron"), ("Tsipras", "Meimarakis", "Varoufakis")]


def _swap_case() -> tuple[list[Question], dict, dict]:
    """Evidence A names each question's answer once on the forecast date; B holds only unrelated news."""
    questions, ev_a, ev_b = [], {}, {}
    as_of = datetime(2015, 9, 10, 23, 59, 59, tzinfo=UTC)
    for i, outcomes in enumerate(CANDIDATES):
        answer = i % 3
        q = Question(id=f"q{i}", question="Who will it be?", outcomes=list(outcomes), forecast_dates=[as_of],
                     resolution_date=as_of + timedelta(days=5), outcome_index=answer)
        questions.append(q)
        name = outcomes[answer].split()[-1]  # the surname only: one keyword hit
        ev_a[(q.id, as_of)] = [Document(id=f"a{i}", title="", text=f"Reports say {name} is ahead.", published_at=as_of)]
        ev_b[(q.id, as_of)] = [Document(id=f"b{i}", title="", text="Markets were calm today.", published_at=as_of)]
    return questions, ev_a, ev_b


def test_reader_swap_separates_acquisition_from_reporting() -> None:
    questions, ev_a, ev_b = _swap_case()
    report = reader_swap(ev_a, ev_b, [EvidenceReader(), UniformReader()], questions, resamples=300, seed=3)
    assert (report.n_items, report.n_questions, report.n_unmatched) == (4, 4, 0)
    # Evidence reader on A: counts [1, 0, 0] → p = [2/4, 1/4, 1/4] → Brier 1/4 + 2/16 = 0.375; uniform: 2/3.
    scores = {(s.reader, s.evidence): s.brier.value for s in report.scores}
    assert scores[("evidence", "A")] == pytest.approx(0.375)
    assert scores[("evidence", "B")] == pytest.approx(2 / 3)
    assert scores[("uniform", "A")] == scores[("uniform", "B")] == pytest.approx(2 / 3)
    acq = {g.reader: g.gain for g in report.acquisition}
    assert acq["evidence"].value == pytest.approx(2 / 3 - 0.375)
    assert acq["uniform"].value == pytest.approx(0.0)
    assert acq["mean over readers"].value == pytest.approx((2 / 3 - 0.375) / 2) and acq["mean over readers"].value > 0
    rep = {g.evidence: g.gain for g in report.reporting}
    assert rep["A"].value == pytest.approx(2 / 3 - 0.375)  # better reporting pays only with evidence to report
    assert rep["B"].value == pytest.approx(0.0)
    assert rep["mean"].value == pytest.approx((2 / 3 - 0.375) / 2)
    assert all(g.kind == "reporting" and g.reader == "evidence vs uniform" for g in report.reporting)
    md = report.to_markdown()
    assert "Acquisition gain" in md and "| evidence | A vs B |" in md


def test_reader_swap_input_errors() -> None:
    questions, ev_a, ev_b = _swap_case()
    extra_key = ("q0", datetime(2015, 9, 1, tzinfo=UTC))
    report = reader_swap({**ev_a, extra_key: []}, ev_b, [UniformReader()], questions, resamples=0)
    assert report.n_unmatched == 1 and report.n_items == 4
    with pytest.raises(InputError, match="not among the questions"):
        reader_swap(ev_a, ev_b, [UniformReader()], questions[1:], resamples=0)
    unresolved = [q.model_copy(update={"outcome_index": None}) for q in questions]
    with pytest.raises(InputError, match="not resolved"):
        reader_swap(ev_a, ev_b, [UniformReader()], unresolved, resamples=0)
    with pytest.raises(InputError, match="unique"):
        reader_swap(ev_a, ev_b, [UniformReader(), UniformReader()], questions)
    with pytest.raises(InputError, match="at least one reader"):
        reader_swap(ev_a, ev_b, [], questions)


def test_evidence_sets_reads_back_from_a_real_corpus(tmp_path) -> None:
    corpus = DatedCorpus.open(tmp_path / "index")
    day = datetime(2015, 9, 5, 23, 59, 59, tzinfo=UTC)
    corpus.ingest([Document(id="early", title="Early", text="Corbyn leads", published_at=day),
                   Document(id="late", title="Late", text="Corbyn wins", published_at=day + timedelta(days=4))])
    rec = EpisodeRecord(question_id="q1", agent="heuristic", memory=False, outcomes=["A", "B"], outcome_index=0,
                        forecasts=[DateForecast(question_id="q1", date=day, horizon_days=5.0, raw="", probs=[0.5, 0.5],
                                                format_ok=True, brier=0.5, log=math.log(0.5), reward=0.85,
                                                evidence=["early", "early"])])
    sets = evidence_sets([rec], corpus)
    assert [d.id for d in sets[("q1", day)]] == ["early"]
    leaked = rec.model_copy(deep=True)
    leaked.forecasts[0].evidence = ["late"]
    with pytest.raises(LeakError, match="late"):
        evidence_sets([leaked], corpus)
    with pytest.raises(InputError, match="two records"):
        evidence_sets([rec, rec], corpus)
