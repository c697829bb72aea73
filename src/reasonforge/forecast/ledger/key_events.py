"""Key events: the ledger developments about the market dated just after its two largest price moves.

A development is a key event when it is about the market (`relevance.about_market`: it names the title's
actors and places, not merely one of them), dated after day zero and within one day of one of the two
largest absolute daily price changes after day zero. If none qualifies (no such move, or no development
about the market near one), every development after day zero that is about the market is a key event.
A sandstorm that happens to hit Syria on the day a Russia–Syria market moves is in the window, not an
event of the market; a ledger with no development about the market has no key events.

Temporal proximity does not establish cause: a development dated next to a price move may have moved
the market, may have been caused by the same thing, or may be a coincidence. Key events are the
developments a good explanation had the best chance to anticipate, not a claim about why the price moved.
"""

from __future__ import annotations

import itertools
from datetime import date

from reasonforge.forecast.ledger.models import Development, Ledger, PricePoint
from reasonforge.forecast.ledger.relevance import about_market, market_terms, text_terms

PROXIMITY_DAYS = 1
"""A development within this many days (either side) of a large move counts as a key event."""


def largest_moves(price_path: list[PricePoint], n: int = 2, *, day_zero: date | None = None) -> list[date]:
    """Dates of the `n` largest absolute daily price changes (after `day_zero` when given), in date order.

    The change dated D is price(D) − price(previous point); moves of size zero never count, and ties go
    to the earlier date so the choice does not depend on anything but the path.
    """
    moves: list[tuple[float, date]] = []
    for before, after in itertools.pairwise(price_path):
        if day_zero is not None and after.date <= day_zero:
            continue
        # rounded so float noise (0.7-0.5 vs 0.5-0.3) cannot break a tie between equal moves
        size = round(abs(after.price - before.price), 9)
        if size > 0:
            moves.append((size, after.date))
    moves.sort(key=lambda move: (-move[0], move[1]))
    return sorted(day for _, day in moves[:max(n, 0)])


def key_events(ledger: Ledger, n_moves: int = 2) -> list[Development]:
    """Developments about the market after day zero within one day of the largest moves; all later ones
    about the market if none."""
    market = market_terms(ledger.title)
    later = [dev for dev in ledger.developments
             if dev.date > ledger.day_zero and about_market(text_terms(dev.text), market)]
    moves = largest_moves(ledger.price_path, n_moves, day_zero=ledger.day_zero)
    near = [dev for dev in later if any(abs((dev.date - move).days) <= PROXIMITY_DAYS for move in moves)]
    return near or later
