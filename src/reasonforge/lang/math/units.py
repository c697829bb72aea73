"""Unit words of natural-language maths and the exact conversions between units.

`UNITS` maps a unit word to its dimension and canonical unit (`"hrs"` → time, hour), `word_unit` looks a
word up, and `conversion_factor` converts exactly between units of one measuring system (hour → minute:
60), never between metric and imperial units, nor for months, years and tons.
"""

from __future__ import annotations

from fractions import Fraction

from reasonforge.lang.english import singularize

__all__ = ["UNITS", "conversion_factor", "same_noun", "word_unit"]

# dimension -> canonical unit -> the words that write it
_UNIT_WORDS: dict[str, dict[str, str]] = {
    "time": {"second": "second seconds sec secs", "minute": "minute minutes min mins", "hour": "hour hours hr hrs",
             "day": "day days", "week": "week weeks", "month": "month months", "year": "year years yr yrs",
             "decade": "decade decades"},
    "length": {"mm": "mm millimeter millimeters", "cm": "cm centimeter centimeters centimetre centimetres",
               "meter": "meter meters metre metres", "km": "km kilometer kilometers kilometre kilometres",
               "inch": "inch inches", "foot": "foot feet ft", "yard": "yard yards yd yds", "mile": "mile miles"},
    "mass": {"gram": "gram grams", "kg": "kg kgs kilogram kilograms kilo kilos", "mg": "mg", "pound": "pound pounds lb lbs",
             "ounce": "ounce ounces oz", "ton": "ton tons tonne tonnes"},
    "volume": {"liter": "liter liters litre litres", "ml": "ml milliliter milliliters", "gallon": "gallon gallons gal",
               "quart": "quart quarts", "pint": "pint pints", "cup": "cup cups"},
    "money": {"dollar": "dollar dollars bucks usd", "cent": "cent cents", "euro": "euro euros", "sterling": "sterling",
              "yen": "yen", "rupee": "rupee rupees"},
    "speed": {"mph": "mph", "kph": "kph kmh"},
    "angle": {"degree": "degree degrees °"},
    # "$16 million" is written with the scale as a unit, consistently on both sides; a conversion
    # ("2 million = 2,000,000") relates a lone number with a unit to one without, and is skipped
    "scale": {"dozen": "dozen dozens", "hundred": "hundred hundreds", "thousand": "thousand thousands",
              "million": "million millions",
              "billion": "billion billions", "trillion": "trillion"},
}
# exact conversions: canonical unit -> (system, size in the system's smallest unit); months, years and
# tons have no single size, and metric and imperial units are not converted into each other
_UNIT_SIZES: dict[str, tuple[str, int]] = {
    "second": ("time", 1), "minute": ("time", 60), "hour": ("time", 3600), "day": ("time", 86400),
    "week": ("time", 604800),
    "mm": ("metric length", 1), "cm": ("metric length", 10), "meter": ("metric length", 1000),
    "km": ("metric length", 1_000_000),
    "inch": ("imperial length", 1), "foot": ("imperial length", 12), "yard": ("imperial length", 36),
    "mile": ("imperial length", 63360),
    "mg": ("metric mass", 1), "gram": ("metric mass", 1000), "kg": ("metric mass", 1_000_000),
    "ounce": ("imperial mass", 1), "pound": ("imperial mass", 16),
    "ml": ("metric volume", 1), "liter": ("metric volume", 1000),
    "cup": ("us volume", 1), "pint": ("us volume", 2), "quart": ("us volume", 4), "gallon": ("us volume", 16),
    "cent": ("money", 1), "dollar": ("money", 100),
}


def conversion_factor(source: str, target: str) -> Fraction | None:
    """How many `target` units one `source` unit is (hour → minute: 60), when the conversion is exact."""
    a, b = _UNIT_SIZES.get(source), _UNIT_SIZES.get(target)
    if a is None or b is None or a[0] != b[0]:
        return None
    return Fraction(a[1], b[1])


UNITS: dict[str, tuple[str, str]] = {
    word: (dim, canon) for dim, units in _UNIT_WORDS.items() for canon, words in units.items() for word in words.split()
}
"""A unit word -> (dimension, canonical unit)."""


def word_unit(word: str) -> tuple[str, str] | None:
    """(dimension, canonical unit) of a unit word, case-insensitively, else None."""
    return UNITS.get(word.lower())


def same_noun(a: str, b: str) -> bool:
    """`shoes` and `shoe`, `boxes` and `box`, `children` and `child`: one noun, singular or plural."""
    return singularize(a) == singularize(b)
