"""Fixed-point text for the numbers the forecast commands print (tables, summaries, audit pages)."""

from __future__ import annotations


def fixed(value: float | None, digits: int = 4, missing: str = "-", *, sign: bool = False) -> str:
    """`value` with `digits` decimals (`sign`: always with + or −); `missing` for None.

    A value that rounds to zero prints as 0.0000: a float such as −1e-17 (a score difference that is
    zero up to rounding) would otherwise print as "-0.0000", a negative number that is not there.
    """
    if value is None:
        return missing
    # round() gives the same digits the format would, and adding 0.0 turns a -0.0 into +0.0.
    shown = round(float(value), digits) + 0.0
    return f"{shown:+.{digits}f}" if sign else f"{shown:.{digits}f}"
