"""Grading reasonings against a ledger built from the repo's dated news sample (September 2015)."""

from __future__ import annotations

import json
import random
from datetime import date, timedelta
from pathlib import Path

import numpy as np
import pytest

from reasonforge.errors import InputError
from reasonforge.forecast.ledger.grade import (
    OfflineGrader,
    argument_grade,
    clauses,
    denies,
    grade_market,
)
from reasonforge.forecast.ledger.models import Development, Forecast, Ledger, PricePoint

NEWS = Path(__file__).resolve().parents[3] / "data" / "wikipedia_cep_2015_09" / "events.jsonl"
# Migrant-crisis items: two before the big moves, then items around 13–14 and 16–18 September.
IDS = ["56779", "56798", "56835", "56851", "56852", "56879", "56880", "56896", "56897", "56916"]
PRICES = [0.30, 0.30, 0.32, 0.31, 0.33, 0.80, 0.82, 0.80, 0.81, 0.60, 0.62, 0.60, 0.60]  # jumps on 13th, 17th

STRONG = ("Germany's reception centres are overwhelmed: Munich reported 450 arrivals of an expected 10,000 on "
          "5 September. Because Bavaria is pressing Berlin, I expect Germany to temporarily reintroduce controls "
          "on its border with Austria, which raises the probability to 0.65. If Hungary seals its own border, "
          "migrants will likely be diverted through Serbia and Croatia instead.")
HEADLINES = ("Hungary closes Budapest Keleti station to migrants.\nThousands of refugees arrive in Munich.\n"
             "Gabriel says Germany can take 500,000 asylum seekers a year.\nProbability: 0.4")
LOOSE = "Germany might change course at some point because of the pressure from the states, hard to tell."
OFF_TOPIC = ("Merkel has defended the open-door policy in several speeches, so a reversal within two weeks "
             "seems unlikely; 20%.")


def news_ledger(order: list[str] = IDS) -> Ledger:
    rows = {r["id"]: r for r in map(json.loads, NEWS.read_text(encoding="utf-8").splitlines())}
    devs = [Development(date=rows[i]["date"], text=rows[i]["description"], source="wikipedia-cep", ref=i)
            for i in order]
    path = [PricePoint(date=date(2015, 9, 8) + timedelta(days=i), price=p) for i, p in enumerate(PRICES)]
    return Ledger(market_id="de-border", title="Will Germany reintroduce border controls before 20 September 2015?",
                  day_zero=date(2015, 9, 8), developments=devs, price_path=path)


@pytest.fixture(scope="module")
def grader() -> OfflineGrader:
    return OfflineGrader()


@pytest.fixture(scope="module")
def report(grader):
    forecasts = [Forecast(forecaster="strong", reasoning=STRONG), Forecast(forecaster="headlines", reasoning=HEADLINES),
                 Forecast(forecaster="loose", reasoning=LOOSE), Forecast(forecaster="off-topic", reasoning=OFF_TOPIC),
                 Forecast(forecaster="short", reasoning="Yes, 70%, borders will close."),
                 Forecast(forecaster="silent", reasoning=None)]
    return grade_market(news_ledger(), forecasts, grader)


def test_argument_grades():
    assert argument_grade(HEADLINES)[0] == 0
    assert argument_grade(LOOSE)[0] == 1
    assert argument_grade(STRONG)[0] == 2
    assert argument_grade(OFF_TOPIC)[0] == 2


def test_key_events_and_strong_reasoning(report):
    assert [e.ref for e in report.key_events] == IDS[2:]  # the two pre-move items are not key
    strong = report.details["strong"]
    assert strong.argument == 2
    border = next(d for d in strong.events if d.event.ref == "56835")  # Germany reintroduces border controls
    assert border.anticipated and border.similarity >= 0.6
    assert "reintroduce controls" in border.matched_text
    hits = sum(d.anticipated for d in strong.events)
    assert 1 <= hits < len(report.key_events)
    assert strong.anticipation == pytest.approx(2 * hits / 8)
    assert report.scores["strong"] == pytest.approx(2 + 2 * hits / 8)


def test_headline_list_and_short_text_score_zero(report):
    assert report.scores["headlines"] == 0.0 and report.details["headlines"].argument == 0
    short = report.details["short"]
    assert short.total == 0.0 and short.events == [] and "under 50" in short.reason


def test_on_topic_reasoning_that_missed_the_events_gets_only_the_argument(report):
    off = report.details["off-topic"]
    assert off.argument == 2 and not any(d.anticipated for d in off.events)
    assert report.scores["off-topic"] == 2.0
    assert report.scores["loose"] == pytest.approx(1 + report.details["loose"].anticipation)


def test_missing_reasoning_gets_25th_percentile_of_the_others(report):
    others = [report.scores[n] for n in ("strong", "headlines", "loose", "off-topic", "short")]
    silent = report.details["silent"]
    assert silent.imputed and silent.argument is None
    assert silent.total == pytest.approx(float(np.percentile(others, 25)))
    assert list(report.details) == ["strong", "headlines", "loose", "off-topic", "short", "silent"]


DENIED = ("Merkel has repeatedly promised open borders, so Germany will not reintroduce controls on its border "
          "with Austria; I put this at 10% because the coalition backs her.")
HEDGED_NO = ("Germany is unlikely to reintroduce controls on its border with Austria, since Merkel reported strong "
             "support from the coalition on 8 September; 15%.")
SIDE_DENIAL = ("Because Hungary has not sealed its border, I expect Germany to reintroduce controls on its border with "
               "Austria within days, which raises the probability to 0.7.")
DOUBLE_DENIAL = ("There is no doubt that Germany will reintroduce controls on its border with Austria, because Munich "
                 "reported 13,000 arrivals in one day; 80%.")


def border_event(grade):
    return next(d for d in grade.events if d.event.ref == "56835")  # Germany reintroduces border controls


def test_a_reasoning_that_denied_the_event_gets_no_credit_for_it(grader):
    forecasts = [Forecast(forecaster=name, reasoning=text) for name, text in
                 (("denied", DENIED), ("hedged", HEDGED_NO), ("side", SIDE_DENIAL), ("double", DOUBLE_DENIAL))]
    out = grade_market(news_ledger(), forecasts, grader)
    for name in ("denied", "hedged"):
        decision = border_event(out.details[name])
        # The embedding alone would credit it: the denying sentence sits well above the threshold.
        assert not decision.anticipated and "reintroduce controls" in decision.contradicted_text
        assert decision.matched_text == ""
    for name in ("side", "double"):
        decision = border_event(out.details[name])
        assert decision.anticipated and decision.contradicted_text == ""
        assert "reintroduce controls" in decision.matched_text


def test_denial_words_and_clauses():
    assert denies("Germany will not close the border") and denies("Berlin won't act") and denies("Berlin won’t act")
    assert denies("It is unlikely that Berlin acts") and denies("Merkel rules out border controls")
    assert not denies("Germany closes the border") and not denies("There is no doubt Germany closes the border")
    assert not denies("Nobody knows; Germany notes the pressure")  # words that merely contain "no"/"not"
    assert clauses("Because Hungary has not sealed its border, Germany will act.") == [
        "Hungary has not sealed its border", "Germany will act."]
    assert clauses("Short one.") == ["Short one."]


def test_shuffled_ledger_gives_the_same_grades(grader, report):
    order = IDS[:]
    random.Random(7).shuffle(order)
    assert order != IDS
    forecasts = [Forecast(forecaster="strong", reasoning=STRONG), Forecast(forecaster="off-topic", reasoning=OFF_TOPIC)]
    again = grade_market(news_ledger(order), forecasts, grader)
    assert again.key_events == report.key_events
    for name in ("strong", "off-topic"):
        assert again.scores[name] == report.scores[name]
        assert again.details[name].events == report.details[name].events


def test_thin_ledger_is_excluded_and_nobody_alone_is_imputed_zero(grader):
    thin = news_ledger().model_copy(update={"excluded": "thin_ledger"})
    out = grade_market(thin, [Forecast(forecaster="strong", reasoning=STRONG)], grader)
    assert out.excluded == "thin_ledger" and out.scores == {} and out.details == {}
    alone = grade_market(news_ledger(), [Forecast(forecaster="silent", reasoning="  ")], grader)
    assert alone.scores == {"silent": 0.0} and alone.details["silent"].imputed


def test_no_later_development_means_no_foresight_term(grader):
    early = news_ledger().model_copy(update={"day_zero": date(2015, 9, 30)})
    out = grade_market(early, [Forecast(forecaster="strong", reasoning=STRONG)], grader)
    assert out.key_events == [] and out.details["strong"].anticipation == 0.0 and out.scores["strong"] == 2.0


def test_user_errors(grader):
    with pytest.raises(InputError, match="more than once"):
        grade_market(news_ledger(), [Forecast(forecaster="a", reasoning=STRONG)] * 2, grader)
    with pytest.raises(InputError, match="threshold"):
        OfflineGrader(threshold=1.5)
