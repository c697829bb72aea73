"""Tool-free readers: uniform baseline and the recency-weighted evidence heuristic."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import pytest

from reasonforge.errors import InputError
from reasonforge.forecast.agentic.corpus_types import Document, LeakError
from reasonforge.forecast.agentic.readers import (
    BaseRateReader,
    EvidenceReader,
    Reader,
    UniformReader,
    count_bins,
    outcome_terms,
    poisson_bins,
    poisson_pmf,
    window_days,
)
from reasonforge.forecast.agentic.records import Question

AS_OF = datetime(2015, 9, 10, 23, 59, 59, tzinfo=UTC)


def _question(outcomes: list[str]) -> Question:
    return Question(id="q1", question="Who will win the leadership election?", outcomes=outcomes,
                    forecast_dates=[AS_OF], resolution_date=AS_OF + timedelta(days=3), outcome_index=0)


def _doc(doc_id: str, text: str, days_old: float = 0.0, title: str = "") -> Document:
    return Document(id=doc_id, title=title, text=text, published_at=AS_OF - timedelta(days=days_old))


Q = _question(["Jeremy Corbyn", "Andy Burnham", "Yvette Cooper"])


def test_readers_satisfy_the_protocol() -> None:
    assert isinstance(UniformReader(), Reader) and isinstance(EvidenceReader(), Reader)


def test_uniform_reader() -> None:
    assert UniformReader().forecast(Q, AS_OF, [_doc("d", "Corbyn")]) == pytest.approx([1 / 3] * 3)


def test_outcome_terms_drop_shared_and_generic_words() -> None:
    terms = outcome_terms(["Labour Party", "Conservative Party", "None of these", "Yes"])
    assert terms[0] == (("labour", "party"), frozenset({"labour"}))
    assert terms[1] == (("conservative", "party"), frozenset({"conservative"}))
    assert terms[2] == ((), frozenset()) and terms[3] == ((), frozenset())
    assert outcome_terms(["Tsipras", "Meimarakis"])[0] == ((), frozenset({"tsipras"}))  # no double count


def test_hand_computed_forecast() -> None:
    # "Jeremy Corbyn" once: phrase 2·1 + keywords jeremy, corbyn = 4 hits, weight 1 (published at as_of).
    doc = _doc("d1", "Jeremy Corbyn leads the final poll.")
    assert EvidenceReader().counts(Q, AS_OF, [doc]) == pytest.approx([4.0, 0.0, 0.0])
    assert EvidenceReader().forecast(Q, AS_OF, [doc]) == pytest.approx([5 / 7, 1 / 7, 1 / 7])
    # Three days old with a three-day half-life: weight 1/2; title counts too; hits cap at 5.
    old = _doc("d2", "Burnham Burnham Burnham Burnham Burnham Burnham", days_old=3.0, title="Andy Burnham")
    assert EvidenceReader().counts(Q, AS_OF, [old]) == pytest.approx([0.0, 2.5, 0.0])


def test_recency_and_deduplication() -> None:
    reader = EvidenceReader()
    fresh = reader.forecast(Q, AS_OF, [_doc("d1", "Yvette Cooper gains support", days_old=0.5)])
    stale = reader.forecast(Q, AS_OF, [_doc("d1", "Yvette Cooper gains support", days_old=10.0)])
    assert fresh[2] > stale[2] > 1 / 3
    twice = reader.forecast(Q, AS_OF, [_doc("d1", "Yvette Cooper"), _doc("d1", "Yvette Cooper")])
    assert twice == reader.forecast(Q, AS_OF, [_doc("d1", "Yvette Cooper")])


def test_deterministic_and_order_free() -> None:
    docs = [_doc("a", "Corbyn rally", 1.0), _doc("b", "Cooper and Burnham debate", 2.0), _doc("c", "Corbyn", 4.0)]
    reader = EvidenceReader()
    first = reader.forecast(Q, AS_OF, docs)
    assert first == reader.forecast(Q, AS_OF, list(reversed(docs)))
    assert sum(first) == pytest.approx(1.0) and first[0] > first[1] == first[2]


def test_no_evidence_or_no_distinctive_words_is_uniform() -> None:
    assert EvidenceReader().forecast(Q, AS_OF, []) == pytest.approx([1 / 3] * 3)
    yes_no = _question(["Yes", "No"])
    assert EvidenceReader().forecast(yes_no, AS_OF, [_doc("d", "Yes, no, yes.")]) == pytest.approx([0.5, 0.5])


def test_future_evidence_is_a_leak() -> None:
    future = Document(id="late", title="", text="Corbyn wins", published_at=AS_OF + timedelta(seconds=1))
    for reader in (EvidenceReader(), UniformReader()):
        with pytest.raises(LeakError, match="late"):
            reader.forecast(Q, AS_OF, [future])


def test_bad_parameters() -> None:
    with pytest.raises(InputError, match="half_life_days"):
        EvidenceReader(half_life_days=0)


# --- BaseRateReader ------------------------------------------------------------------------------------------

def _cep_question(text: str, outcomes: list[str], background: str) -> Question:
    return Question(id="q2", question=text, outcomes=outcomes, background=background, forecast_dates=[AS_OF],
                    resolution_date=AS_OF + timedelta(days=9), outcome_index=0)


STORY = _cep_question("Will the portal list at least one item in the story “Turkey–PKK conflict” dated between "
                      "2015-09-14 and 2015-09-15?", ["Yes", "No"],
                      "The portal story “Turkey–PKK conflict” has 4 item(s) dated up to 2015-09-08, the first on "
                      "2015-09-07. Latest of these (2015-09-08): A PKK bombing kills 14 Turkish police officers.")


def test_helpers_window_bins_and_poisson() -> None:
    assert window_days(STORY) == 2 and window_days(Q) is None
    assert count_bins(["0", "1 to 2", "3 or more"]) == [(0, 0), (1, 2), (3, None)]
    assert count_bins(["0", "many"]) is None
    assert poisson_pmf(0, 2.0) == pytest.approx(math.exp(-2.0))
    assert poisson_pmf(2, 2.0) == pytest.approx(2.0 * math.exp(-2.0))
    bins = poisson_bins(1.5, [(0, 0), (1, 2), (3, None)])
    e = math.exp(-1.5)
    assert bins == pytest.approx([e, 1.5 * e + 1.125 * e, 1 - e - 1.5 * e - 1.125 * e])


def test_story_rate_and_poisson_yes() -> None:
    # 4 items over the 2015-09-07…2015-09-10 span (as_of end of the 10th: 4 days) → rate 1 per day; no new
    # evidence; P(Yes) = 1 − e^(−2); shrunk toward 1/2 with weight k/(k + 4).
    reader = BaseRateReader(prior_events=4.0)
    p_yes = 1 - math.exp(-2.0)
    assert reader.forecast(STORY, AS_OF, []) == pytest.approx([(p_yes + 0.5) / 2, (1 - p_yes + 0.5) / 2])
    # Two new story items (two stems of the story name) after the cut-off raise the rate to 6/4 per day;
    # an unrelated document and one dated on the cut-off day (already in the background) do not count.
    new = [_doc("n1", "Turkey strikes PKK camps", 1.0), _doc("n2", "PKK and Turkey trade fire", 0.5),
           _doc("x", "Hungary closes its border", 0.5), _doc("old", "PKK attack in Turkey", 2.0)]
    p_yes = 1 - math.exp(-3.0)
    assert reader.forecast(STORY, AS_OF, new) == pytest.approx([0.6 * p_yes + 0.2, 0.6 * (1 - p_yes) + 0.2])


def test_count_bins_use_the_stated_category_rate() -> None:
    q = _cep_question("How many items in the category “Business_Finance” will the portal list dated between "
                      "2015-09-14 and 2015-09-15?", ["0", "1 to 2", "3 or more"],
                      "Up to 2015-09-08 the portal lists 6 item(s) in the category “Business_Finance” "
                      "over 8 day(s) (0.75 per day).")
    expected = poisson_bins(1.5, [(0, 0), (1, 2), (3, None)])
    assert BaseRateReader(prior_events=0.0).forecast(q, AS_OF, []) == pytest.approx(expected)
    shrunk = BaseRateReader(prior_events=6.0).forecast(q, AS_OF, [])
    assert shrunk == pytest.approx([(p + 1 / 3) / 2 for p in expected])


def test_none_of_these_gets_the_no_event_mass() -> None:
    q = _cep_question("Which of these will the portal link in the most items dated between 2015-09-14 and "
                      "2015-09-15?", ["Syria", "Yemen", "None of these"],
                      "In the 7 day(s) up to 2015-09-08 the portal lists 92 item(s); it links “Syria” in 3, "
                      "“Yemen” in 4.")
    p_none = math.exp(-7 / 7 * 2)
    reader = BaseRateReader(prior_events=0.0, alpha=1.0)
    assert reader.forecast(q, AS_OF, []) == pytest.approx([(1 - p_none) * 4 / 9, (1 - p_none) * 5 / 9, p_none])
    # A fresh mention of Syria after the cut-off adds weight 1 (published at as_of) to its share.
    got = reader.forecast(q, AS_OF, [_doc("s", "Shelling in Syria", 0.0)])
    assert got == pytest.approx([(1 - p_none) * 5 / 10, (1 - p_none) * 5 / 10, p_none])


def test_fallback_gives_wordless_outcomes_the_mean_and_shrinks() -> None:
    q = _question(["Jeremy Corbyn", "Andy Burnham", "None of these"])
    doc = _doc("d1", "Jeremy Corbyn leads the final poll.")  # counts [4, 0, mean 2]
    got = BaseRateReader(fallback_shrink=0.5).forecast(q, AS_OF, [doc])
    assert got == pytest.approx([0.5 * 5 / 9 + 1 / 6, 0.5 * 1 / 9 + 1 / 6, 0.5 * 3 / 9 + 1 / 6])
    assert BaseRateReader().forecast(q, AS_OF, []) == pytest.approx([1 / 3] * 3)


def test_base_rate_reader_leak_and_parameters() -> None:
    assert isinstance(BaseRateReader(), Reader)
    late = Document(id="late", title="", text="PKK", published_at=AS_OF + timedelta(seconds=1))
    with pytest.raises(LeakError, match="late"):
        BaseRateReader().forecast(STORY, AS_OF, [late])
    with pytest.raises(InputError, match="prior_events"):
        BaseRateReader(prior_events=-1)
