"""Key events: developments within one day of the two largest price moves after day zero; fallback to all."""

from __future__ import annotations

from reasonforge.forecast.ledger.key_events import key_events, largest_moves
from reasonforge.forecast.ledger.models import Development, Ledger

from ledger_support import DAY_ZERO, day, dev, ledger, news_rows, price_path

# day:      0    1    2    3    4    5    6    7    8    9   10
PRICES = [0.30, 0.32, 0.33, 0.60, 0.61, 0.60, 0.62, 0.62, 0.20, 0.21, 0.22]  # big moves on days 3 (+.27), 8 (-.42)


def test_largest_moves_are_the_two_biggest_absolute_changes() -> None:
    assert largest_moves(price_path(PRICES), day_zero=DAY_ZERO) == [day(3), day(8)]
    assert largest_moves(price_path(PRICES), n=1, day_zero=DAY_ZERO) == [day(8)]


def test_moves_on_or_before_day_zero_do_not_count() -> None:
    before = price_path([0.1, 0.9, 0.5, 0.52, 0.53, 0.63], start=day(-2))  # the 0.8 jump lands on day -1
    assert largest_moves(before, day_zero=DAY_ZERO) == [day(1), day(3)]
    assert day(-1) in largest_moves(before)  # without day_zero every change counts


def test_flat_path_has_no_moves_and_ties_go_to_the_earlier_day() -> None:
    assert largest_moves(price_path([0.5] * 6), day_zero=DAY_ZERO) == []
    assert largest_moves(price_path([0.3, 0.5, 0.7, 0.9]), day_zero=DAY_ZERO) == [day(1), day(2)]


def test_key_events_are_those_within_one_day_of_the_moves() -> None:
    devs = [dev(0, "Hungary: day-zero news"), dev(1, "Hungary: far before the first move"),
            dev(2, "Hungary: day before the first move"), dev(3, "Hungary: day of the first move"),
            dev(4, "Hungary: day after the first move"), dev(5, "Hungary: two days after"),
            dev(9, "Hungary: day after the second move"), dev(12, "Hungary: much later")]
    chosen = [event.text for event in key_events(ledger(devs, PRICES))]
    assert chosen == ["Hungary: day before the first move", "Hungary: day of the first move",
                      "Hungary: day after the first move", "Hungary: day after the second move"]


def test_fallback_to_all_later_developments_when_none_is_near_a_move() -> None:
    devs = [dev(0, "Hungary: day-zero news"), dev(6, "Hungary: quiet day"), dev(12, "Hungary: much later")]
    assert [event.text for event in key_events(ledger(devs, PRICES))] == ["Hungary: quiet day", "Hungary: much later"]
    # a flat price path has no moves at all: the same fallback
    assert [event.text for event in key_events(ledger(devs))] == ["Hungary: quiet day", "Hungary: much later"]


def test_key_events_never_include_day_zero_or_earlier() -> None:
    prices = [0.2, 0.9, 0.9, 0.9]  # the big move is on day 1, so day 0 is "within one day" of it
    devs = [dev(-1, "Hungary before"), dev(0, "Hungary on day zero"), dev(1, "Hungary on the move day"),
            dev(3, "Hungary later")]
    assert [event.text for event in key_events(ledger(devs, prices))] == ["Hungary on the move day"]


RUSSIA_SYRIA = "Will Russia begin military operations in Syria in support of Bashar al-Assad?"
# The news sample's items around the Russia–Syria market's moves (2015-09-09 and 2015-09-18): a sandstorm over
# Lebanon and Syria, a British drone strike in Syria, Russian combat operations, clashes in the Turkish city of
# Cizre, US concern about Russian military activity in Syria, Russian fighter jets moved to Syria.
NEAR_THE_MOVES = ["56755", "56748", "56768", "56776", "56781", "56906"]


def test_developments_that_merely_mention_one_place_of_the_market_are_not_key_events() -> None:
    # day zero 2015-09-06; the two largest moves on 09-09 (+0.30) and 09-18 (+0.15), as in the worked example
    prices = [0.25, 0.25, 0.25, 0.55, 0.55, 0.55, 0.55, 0.55, 0.55, 0.55, 0.55, 0.55, 0.70, 0.70, 0.70]
    start = day(1)  # 2015-09-06
    rows = {row["id"]: row for row in news_rows()}
    devs = [Development(date=rows[ref]["date"], text=rows[ref]["description"], source="wikipedia-cep", ref=ref)
            for ref in NEAR_THE_MOVES]
    assert "sandstorm" in devs[0].text and "drone" in devs[1].text and "Cizre" in devs[3].text
    market = Ledger(market_id="russia-syria", title=RUSSIA_SYRIA, day_zero=start, developments=devs,
                    price_path=price_path(prices, start=start))
    assert largest_moves(market.price_path, day_zero=start) == [day(4), day(13)]
    # The sandstorm (Syria, Lebanon) and the British drone strike (in Syria) fall on the day before the first
    # move, and the clashes in Cizre the day after: in the window, not events of this market.
    assert [event.ref for event in key_events(market)] == ["56768", "56781", "56906"]


def test_a_market_named_by_one_entity_needs_it_and_a_ledger_about_nothing_has_no_key_events() -> None:
    devs = [dev(1, "Hungarian police close the Horgos crossing."), dev(2, "Austria opens its border."),
            dev(3, "Croatia closes seven crossings.")]
    assert [event.text for event in key_events(ledger(devs))] == ["Hungarian police close the Horgos crossing."]
    assert key_events(ledger(devs[1:])) == []
