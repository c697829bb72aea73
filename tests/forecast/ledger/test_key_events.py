"""Key events: developments within one day of the two largest price moves after day zero; fallback to all."""

from __future__ import annotations

from reasonforge.forecast.ledger.key_events import key_events, largest_moves

from ledger_support import DAY_ZERO, day, dev, ledger, price_path

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
    devs = [dev(0, "Day-zero news"), dev(1, "Far before the first move"), dev(2, "Day before the first move"),
            dev(3, "Day of the first move"), dev(4, "Day after the first move"), dev(5, "Two days after"),
            dev(9, "Day after the second move"), dev(12, "Much later")]
    chosen = [event.text for event in key_events(ledger(devs, PRICES))]
    assert chosen == ["Day before the first move", "Day of the first move", "Day after the first move",
                      "Day after the second move"]


def test_fallback_to_all_later_developments_when_none_is_near_a_move() -> None:
    devs = [dev(0, "Day-zero news"), dev(6, "Quiet day"), dev(12, "Much later")]
    assert [event.text for event in key_events(ledger(devs, PRICES))] == ["Quiet day", "Much later"]
    # a flat price path has no moves at all: the same fallback
    assert [event.text for event in key_events(ledger(devs))] == ["Quiet day", "Much later"]


def test_key_events_never_include_day_zero_or_earlier() -> None:
    prices = [0.2, 0.9, 0.9, 0.9]  # the big move is on day 1, so day 0 is "within one day" of it
    devs = [dev(-1, "Before"), dev(0, "Day zero"), dev(1, "Move day"), dev(3, "Later")]
    assert [event.text for event in key_events(ledger(devs, prices))] == ["Move day"]
