"""Strict reader of the final `PROBABILITY:` line of a forecasting reply.

The parser rejects rather than guesses. Rules, applied to the last line that starts with
`PROBABILITY:` (case-insensitive, leading whitespace allowed):

- a bare number in [0, 1] is a probability (`1` is certainty, not 1 %);
- a bare number strictly between 1 and 2 is rejected: `1.7` could be a typo for 0.17, 17 % or
  1.7 %, and reading it as a percent once turned garbage into a confident 0.017;
- a bare number in [2, 100] is a percent (`62` → 0.62, `62.5` → 0.625);
- a number followed by `%` is a percent (`62%` → 0.62) when it lies in [0, 100];
- anything else is rejected: negatives, values above 100, NaN, infinities, decimal commas
  (`0,62`), exponents, words, trailing text.
"""

from __future__ import annotations

import math
import re

# Plain decimals only: an exponent or a sign is never how a forecaster writes a probability.
_NUMBER = r"(?P<number>\d+(?:\.\d+)?|\.\d+)"
_LINE = re.compile(r"^[ \t]*PROBABILITY:(?P<rest>.*)$", re.IGNORECASE | re.MULTILINE)
_VALUE = re.compile(rf"^[ \t]*{_NUMBER}[ \t]*(?P<percent>%?)[ \t]*$")

PERCENT_FLOOR = 2.0
"""Bare values from here up to 100 are percents; (1, 2) is the rejected ambiguous interval."""


def parse_probability(reply: str | None) -> float | None:
    """The probability stated on the reply's last `PROBABILITY:` line, or None when it is not valid."""
    if not reply:
        return None
    matches = list(_LINE.finditer(reply))
    if not matches:
        return None
    return parse_value(matches[-1].group("rest").rstrip("\r"))


def parse_value(text: str) -> float | None:
    """One probability value as written after `PROBABILITY:` (see the module rules), or None."""
    match = _VALUE.match(text)
    if match is None:
        return None
    value = float(match.group("number"))
    if not math.isfinite(value):
        return None
    if match.group("percent"):
        return value / 100.0 if value <= 100.0 else None
    if value <= 1.0:
        return value
    if PERCENT_FLOOR <= value <= 100.0:
        return value / 100.0
    return None
