"""Grading reasonings against a ledger built from the repo's dated news sample (September 2015)."""

from __future__ import annotations

import json
import random
import re
from datetime import date, timedelta
from pathlib import Path

import numpy as np
import pytest

from reasonforge.errors import InputError
from reasonforge.forecast.ledger.grade import (
    MIN_REASONING_CHARS,
    Assessment,
    EventDecision,
    OfflineGrader,
    argument_grade,
    clauses,
    denies,
    grade_market,
    polarity_units,
    score_assessment,
    substantive_text,
)
from reasonforge.forecast.ledger.models import Development, Forecast, Ledger, PricePoint

from ledger_support import dev, ledger

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
    # The two pre-move items are not key; of the migrant-crisis items near the moves only those about Germany
    # are (Slovakia's or Croatia's border measures are in the window, not events of this market).
    assert [e.ref for e in report.key_events] == ["56835", "56851"]
    strong = report.details["strong"]
    assert strong.argument == 2
    border = next(d for d in strong.events if d.event.ref == "56835")  # Germany reintroduces border controls
    assert border.anticipated and border.similarity >= 0.6
    assert "reintroduce controls" in border.matched_text
    hits = sum(d.anticipated for d in strong.events)
    assert 1 <= hits < len(report.key_events)
    assert strong.anticipation == pytest.approx(2 * hits / 2)
    assert report.scores["strong"] == pytest.approx(2 + 2 * hits / 2)


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


def test_compound_denials_deny_each_conjunct():
    # each conjunct is read as the proposition it states, with the clause's subject
    assert polarity_units("Russia will not move fighter jets to Syria and will not launch air strikes") == [
        ("Russia will not move fighter jets to Syria", True), ("Russia will not launch air strikes", True)]
    assert polarity_units("Russia will neither move fighter jets to Syria nor launch air strikes there") == [
        ("Russia will neither move fighter jets to Syria", True), ("Russia launch air strikes there", True)]
    assert polarity_units("Russia won't move fighter jets to Syria or begin combat operations there") == [
        ("Russia won't move fighter jets to Syria", True), ("Russia begin combat operations there", True)]
    assert polarity_units("Russia didn't move jets to Syria or begin combat operations there") == [
        ("Russia didn't move jets to Syria", True), ("Russia begin combat operations there", True)]
    assert polarity_units("Russia will move fighter jets to Syria and will launch air strikes") == [
        ("Russia will move fighter jets to Syria", False), ("Russia will launch air strikes", False)]
    # a conjunct with its own verb group or subject keeps its own polarity; short ones stay with their neighbour
    assert polarity_units("Russia will not move fighter jets and will launch air strikes") == [
        ("Russia will not move fighter jets", True), ("Russia will launch air strikes", False)]
    assert polarity_units("Moscow did not act and the rebels took the airport") == [
        ("Moscow did not act", True), ("the rebels took the airport", False)]
    assert polarity_units("will not send jets and tanks to Syria") == [("will not send jets", True),
                                                                       ("tanks to Syria", True)]
    assert polarity_units("Russia and Syria sign a pact") == [("Russia and Syria sign a pact", False)]
    assert denies("neither jets nor tanks arrive") and not denies("There is no doubt Germany closes the border")


RUSSIA_EVENTS = {"56768": "Russian forces reportedly begin combat operations in Syria in support of the Bashar "
                          "al-Assad government.",
                 "56906": "Russia moves its first tactical fighter jets to Syria, according to American sources."}
BECAUSE = (", because Moscow reported on 8 September that its advisers {} the Syrian army; I put the probability "
           "at {}%.")


@pytest.mark.parametrize(("claim", "anticipated"), [
    ("Russia will not move fighter jets to Syria and will not begin combat operations there", False),
    ("Russia will neither move fighter jets to Syria nor begin combat operations there", False),
    ("Russia won't move fighter jets to Syria or begin combat operations there", False),
    ("Russia will not move fighter jets to Syria", False),  # the one-clause denial, as before
    ("Russia will move fighter jets to Syria and will begin combat operations there", True),
])
def test_a_compound_denial_earns_no_anticipation_and_an_affirmation_of_both_earns_both(grader, claim, anticipated):
    events = [Development(date=date(2015, 9, 9 if ref == "56768" else 18), text=text, ref=ref)
              for ref, text in RUSSIA_EVENTS.items()]
    mood = ("are preparing", 85) if anticipated else ("are only training", 15)
    assessment = grader.grade(claim + BECAUSE.format(*mood), events)
    jets = next(d for d in assessment.events if d.event.ref == "56906")
    # the sentence is close to the event either way: only its polarity decides
    assert jets.similarity >= grader.threshold
    assert jets.anticipated is anticipated and bool(jets.contradicted_text) is not anticipated
    if "begin combat" in claim:
        assert [d.anticipated for d in assessment.events] == [anticipated, anticipated]


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


def test_no_later_development_means_excluded_and_an_empty_key_set_no_foresight_term(grader):
    # Nothing happened after day zero: the ledger is thin, whatever its stored flag says.
    early = news_ledger().model_copy(update={"day_zero": date(2015, 9, 30)})
    out = grade_market(early, [Forecast(forecaster="strong", reasoning=STRONG)], grader)
    assert out.excluded == "thin_ledger" and out.scores == {}
    # The formula itself still defines the foresight term as 0 when K is empty.
    graded = score_assessment("strong", grader.grade(STRONG, []), [])
    assert graded.anticipation == 0.0 and graded.total == 2.0


def test_user_errors(grader):
    with pytest.raises(InputError, match="more than once"):
        grade_market(news_ledger(), [Forecast(forecaster="a", reasoning=STRONG)] * 2, grader)
    with pytest.raises(InputError, match="threshold"):
        OfflineGrader(threshold=1.5)


# --- the design's rules hold on every ledger, whatever its origin --------------------------------------

class ScriptedGrader:
    """A grader whose judgement is written in the reasoning ("argument N, anticipates K"); records calls."""

    name = "scripted"

    def __init__(self) -> None:
        self.calls: list[str] = []

    def grade(self, reasoning: str, events: list[Development]) -> Assessment:
        self.calls.append(reasoning)
        if reasoning.startswith("fail"):
            return Assessment(argument=None, reason="grader gave up")
        argument, hits = (int(n) for n in re.findall(r"\d+", reasoning)[:2])
        return Assessment(argument=argument, events=[EventDecision(event=e, anticipated=i < hits)
                                                     for i, e in enumerate(events)])


FILLER = " of the key events, written out at enough length to pass the fifty-character rule."
# Moves on day 3 (+0.3) and day 8 (-0.2): developments on days 3 and 8 are key, days 11 and 12 are not.
MOVING = [0.4, 0.4, 0.4, 0.7, 0.7, 0.7, 0.7, 0.7, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5]
FOUR = [dev(3, "Hungary's parliament schedules the vote."), dev(8, "Hungary's interior minister resigns."),
        dev(11, "Protests in Hungary's capital."), dev(12, "A court in Hungary hears a challenge.")]


def test_hand_written_two_development_ledger_is_excluded_by_the_library():
    grader = ScriptedGrader()
    thin = ledger(FOUR[:2], prices=MOVING)
    assert thin.excluded is None  # nobody marked it: the rule must still hold
    out = grade_market(thin, [Forecast(forecaster="a", reasoning="argument 2, anticipates 2" + FILLER)], grader)
    assert out.excluded == "thin_ledger" and out.scores == {} and out.details == {} and grader.calls == []


def test_copies_of_one_event_do_not_make_a_ledger_thick():
    # Adversarial: two real developments padded to five with copies that differ in case, spacing,
    # punctuation or document id, plus one outside the window. The rule counts distinct events.
    copies = [*FOUR[:2], dev(3, "HUNGARY'S PARLIAMENT  schedules the vote!", ref="other-id"),
              dev(8, "Hungary's interior minister resigns.", source="another wire", ref=FOUR[1].ref),
              dev(20, "Something in Hungary after the window closed.")]
    out = grade_market(ledger(copies, prices=MOVING),
                       [Forecast(forecaster="a", reasoning="argument 2, anticipates 2" + FILLER)], ScriptedGrader())
    assert out.excluded == "thin_ledger" and out.scores == {}


def test_developments_and_moves_outside_the_window_are_not_key_events():
    # Adversarial: a development dated after the window, next to a large move after the window, would be a
    # key event (and dilute or replace the real ones) if the window were not enforced at grading time.
    late = dev(16, "Late news from Hungary that a friendly forecaster happened to predict.")
    prices = [*MOVING, 0.5, 0.99]  # day 16: the largest move of all, after the 14-day window
    out = grade_market(ledger([*FOUR, late], prices=prices), [], ScriptedGrader())
    assert [e.text for e in out.key_events] == [FOUR[0].text, FOUR[1].text]


@pytest.mark.parametrize("reasoning", [
    "Yes," + " " * 60 + "70%.",  # whitespace padding
    "Yes, 70%" + "!" * 60,  # one character repeated
    "Yes, 70%, definitely" + "y" * 40,
    "Yes\u200b" * 30,  # zero-width spaces between copies of a word
    "Probably yes. " * 8,  # one sentence repeated
    "yes 70% " * 12,  # a phrase repeated
    "Yes, 70% because " + "\u200b\ufeff" * 40 + "it will.",  # invisible characters
])
def test_short_reasoning_scores_zero_without_grading_however_it_is_padded(reasoning):
    assert len(reasoning.strip()) >= MIN_REASONING_CHARS  # a naive count would send it to the grader
    grader = ScriptedGrader()
    out = grade_market(ledger(FOUR, prices=MOVING), [Forecast(forecaster="terse", reasoning=reasoning)], grader)
    terse = out.details["terse"]
    assert terse.total == 0.0 and terse.argument == 0 and not terse.imputed and "under 50" in terse.reason
    assert grader.calls == []
    assert len(substantive_text(reasoning)) < MIN_REASONING_CHARS


def test_honest_reasoning_of_fifty_characters_is_graded():
    text = "Seventy percent, because the ministry has the votes."
    assert len(text) >= MIN_REASONING_CHARS and substantive_text(text) == text
    grader = ScriptedGrader()
    out = grade_market(ledger(FOUR, prices=MOVING), [Forecast(forecaster="ok", reasoning="1 0 " + text)], grader)
    assert out.scores == {"ok": 1.0} and len(grader.calls) == 1


def test_imputation_is_the_25th_percentile_of_the_scores_on_the_ledger_checked_by_hand():
    grader = ScriptedGrader()
    rows = [("one", "argument 1, anticipates 0" + FILLER),  # 1 + 2·0/2 = 1.0
            ("two", "argument 2, anticipates 0" + FILLER),  # 2 + 0 = 2.0
            ("three", "argument 2, anticipates 1" + FILLER),  # 2 + 2·1/2 = 3.0
            ("four", "argument 2, anticipates 2" + FILLER),  # 2 + 2·2/2 = 4.0
            ("list", "argument 0, anticipates 2" + FILLER),  # a = 0 → 0, whatever it anticipated
            ("terse", "Yes."),  # under 50 characters → 0
            ("broken", "fail: the grader cannot judge this one" + FILLER),  # no score: not in the population
            ("silent", None), ("blank", " \n\t\u200b ")]  # no reasoning: imputed, not in the population
    out = grade_market(ledger(FOUR, prices=MOVING), [Forecast(forecaster=n, reasoning=r) for n, r in rows], grader)
    assert [e.text for e in out.key_events] == [FOUR[0].text, FOUR[1].text]
    assert {n: out.scores[n] for n in ("one", "two", "three", "four", "list", "terse")} == {
        "one": 1.0, "two": 2.0, "three": 3.0, "four": 4.0, "list": 0.0, "terse": 0.0}
    assert out.details["broken"].total is None and "broken" not in out.scores
    # Population: the six scores 0, 0, 1, 2, 3, 4. The 25th percentile (linear) sits at position
    # 0.25·(6 − 1) = 1.25 of the sorted list: 0 + 0.25·(1 − 0) = 0.25.
    for name in ("silent", "blank"):
        assert out.details[name].imputed and out.scores[name] == 0.25
    # Without the two zeros: 1, 2, 3, 4 → position 0.75 → 1 + 0.75·(2 − 1) = 1.75.
    fewer = grade_market(ledger(FOUR, prices=MOVING), [Forecast(forecaster=n, reasoning=r) for n, r in rows[:4]]
                         + [Forecast(forecaster="silent")], grader)
    assert fewer.scores["silent"] == 1.75
