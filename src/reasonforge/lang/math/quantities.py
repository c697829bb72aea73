"""The quantities a word problem states, and the operands of a relation that none of them grounds.

A word problem's arithmetic can hold while its operands come from nowhere: "she sells 16 - 3 - 5 = 8 eggs"
is exact arithmetic, but the question never mentions a 5. `stated_quantities` reads every number the
question writes (digits, `$1,250.50`, `25%`, `3/4`, number words, "twice", "half", "a dozen"), with what it
counts (the words after it); `grounding_values` is every value an operand may take: a stated quantity and
the forms a solution writes it in (a percent as a fraction, its complement: 20 % off leaves 80 % = 0.8; a
fraction's complement; "2 dozen" as 24), plus the named constants of the units the problem speaks of (60
for minutes and hours, 7 for days and weeks, 12 for months, 100 for percent and cents …) and 0 and 1.
`ungrounded_operands` walks a step's numeric relations in order: each literal operand must be such a value,
an earlier result (the caller passes the ancestors' results in, and each relation's values ground the
relations after it) — else it is named. A side that is a lone literal set against a computation is the
relation's result, not an operand.

Bounded: the question is read up to `MAX_QUESTION_CHARS` characters (a longer one grounds nothing beyond
that point, so its operands stay ungrounded: the check fails closed).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import sympy

from reasonforge.lang.math.expr import Binary, Call, ExpressionError, Node, Num, Postfix, Unary, evaluate
from reasonforge.lang.math.step import Relation
from reasonforge.lang.math.units import conversion_factor, word_unit

__all__ = ["MAX_QUESTION_CHARS", "Quantity", "Ungrounded", "grounding_values", "literal_operands", "relation_values",
           "stated_quantities", "ungrounded_operands"]

MAX_QUESTION_CHARS = 20_000

_UNITS_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
    "seventeen": 17, "eighteen": 18, "nineteen": 19,
}
_TENS_WORDS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
               "ninety": 90}
_SCALES = {"hundred": 100, "thousand": 1000, "million": 1_000_000, "billion": 1_000_000_000}
# words that state a value on their own: the value, and a second reading a solution may use ("half" is ½ of
# something and also "divide by 2")
_VALUE_WORDS: dict[str, tuple[sympy.Rational, ...]] = {
    "half": (sympy.Rational(1, 2), sympy.Integer(2)), "halves": (sympy.Rational(1, 2), sympy.Integer(2)),
    "twice": (sympy.Integer(2),), "double": (sympy.Integer(2),), "doubled": (sympy.Integer(2),),
    "doubles": (sympy.Integer(2),), "pair": (sympy.Integer(2),), "pairs": (sympy.Integer(2),),
    "couple": (sympy.Integer(2),), "both": (sympy.Integer(2),), "triple": (sympy.Integer(3),),
    "tripled": (sympy.Integer(3),), "thrice": (sympy.Integer(3),), "quadruple": (sympy.Integer(4),),
    "dozen": (sympy.Integer(12),), "dozens": (sympy.Integer(12),), "score": (sympy.Integer(20),),
}
_ORDINAL_FRACTIONS = {"third": 3, "thirds": 3, "quarter": 4, "quarters": 4, "fourth": 4, "fourths": 4,
                      "fifth": 5, "fifths": 5, "sixth": 6, "sixths": 6, "seventh": 7, "sevenths": 7,
                      "eighth": 8, "eighths": 8, "ninth": 9, "ninths": 9, "tenth": 10, "tenths": 10}
_UNICODE_FRACTIONS = {"½": (1, 2), "⅓": (1, 3), "⅔": (2, 3), "¼": (1, 4), "¾": (3, 4), "⅕": (1, 5), "⅛": (1, 8)}
# named constants, each allowed when the problem or the solution speaks of one of its words
_MONTHS = "january february march april may june july august september october november december"
_CONSTANTS: tuple[tuple[int | str, str], ...] = (
    (60, "second seconds minute minutes min mins hour hours hr hrs mph"),
    (3600, "second seconds hour hours"),
    (24, "hour hours day days daily"),
    (7, "day days week weeks weekly daily"),
    (5, "weekday weekdays workweek monday friday nickel nickels"),
    (12, "month months year years yearly annual annually dozen dozens inch inches foot feet ft monthly"),
    (52, "week weeks year years yearly annual annually weekly"),
    (365, "day days year years yearly annual annually daily"),
    (30, "day days month months monthly " + _MONTHS),
    (31, "day days month months monthly " + _MONTHS),
    (28, "day days month months monthly february"),
    (29, "day days february leap"),
    (4, "week weeks month months monthly quarter quarters quart quarts gallon gallons"),
    (100, "percent % cent cents century centuries centimeter centimeters cm meter meters dollar dollars $"),
    ("0.01", "percent % cent cents penny pennies"),  # GSM8K writes 20 % as 20*.01
    ("0.25", "quarter quarters"), ("0.1", "dime dimes"), ("0.05", "nickel nickels"),
    (10, "decade decades dime dimes millimeter millimeters mm centimeter centimeters cm"),
    (1000, ("thousand kilo kilos kilogram kilograms kg gram grams km kilometer kilometers meter meters liter "
            "liters litre litres milliliter milliliters ml")),
    (16, "ounce ounces oz pound pounds lb lbs cup cups"),
    (3, "foot feet ft yard yards yd"),
    (36, "inch inches yard yards"),
    (5280, "mile miles foot feet"),
    (25, "quarter quarters"),
    (2, "half halves twice double pair pairs couple both each pint pints"),
    (8, "pint pints gallon gallons"),
)
_CANONICAL_UNITS = ("second", "minute", "hour", "day", "week", "mm", "cm", "meter", "km", "inch", "foot", "yard",
                    "mile", "mg", "gram", "kg", "ounce", "pound", "ml", "liter", "cup", "pint", "quart", "gallon",
                    "cent", "dollar")
_NUMBER = re.compile(
    r"(?:(?P<cur>[$€£¥₹])\s?)?(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)(?:/(?P<den>\d+))?"
    r"(?P<pct>\s?%|\s?percent\b)?")
_WORD_TOKEN = re.compile(r"[A-Za-z]+(?:['’][A-Za-z]+)?|[½⅓⅔¼¾⅕⅛]|\$|%")
_STOP = frozenset(["and", "or", "but", "to", "of", "for", "in", "on", "at", "by", "with", "from", "per", "each", "is", "are", "was", "were", "be", "the", "a", "an", "that", "this", "which", "who", "how", "what", "if", "then", "so", "as", "than"])


@dataclass(frozen=True)
class Quantity:
    """A number the text states: its value, as written, what it counts (the words after it), where."""

    value: sympy.Rational
    text: str
    counts: str
    span: tuple[int, int]
    percent: bool = False

    def describe(self) -> str:
        """`16 (eggs per day)`: the quantity as a reader names it."""
        return f"{self.text} ({self.counts})" if self.counts else self.text


@dataclass(frozen=True)
class Ungrounded:
    """A literal operand of a relation that no stated quantity, earlier result or named constant gives."""

    operand: str
    relation: Relation


def stated_quantities(text: str) -> tuple[Quantity, ...]:
    """Every number `text` states, in order: digits (with `$`, `%`, `/`), number words, "half", "twice" …"""
    text = text[:MAX_QUESTION_CHARS]
    found: list[Quantity] = []
    taken: list[tuple[int, int]] = []
    for m in _NUMBER.finditer(text):
        if m.start() > 0 and (text[m.start() - 1].isalpha() or text[m.start() - 1] == "_"):
            continue  # a name with digits (x1, a_2) is not a quantity
        try:
            value = sympy.Rational(m["num"].replace(",", ""))
        except (TypeError, ValueError):
            continue
        if m["den"] and int(m["den"]) != 0:
            value = value / int(m["den"])
        percent = bool(m["pct"])
        found.append(Quantity(value, m.group(0).strip(), _counts(text, m.end()), (m.start(), m.end()), percent))
        taken.append((m.start(), m.end()))
    words = list(_WORD_TOKEN.finditer(text))
    i = 0
    while i < len(words):
        token = words[i]
        if any(a <= token.start() < b for a, b in taken):
            i += 1
            continue
        got = _word_number(words, i)
        if got is None:
            i += 1
            continue
        values, end = got
        percent = end < len(words) and words[end].group(0).lower() in ("percent", "%")  # "twenty percent"
        span = (token.start(), words[end - 1].end())
        for value in values:
            found.append(Quantity(value, text[span[0]:span[1]], _counts(text, span[1]), span, percent))
        i = end
    return tuple(sorted(found, key=lambda q: q.span))


def _word_number(words: Sequence[re.Match[str]], i: int) -> tuple[tuple[sympy.Rational, ...], int] | None:
    """The value(s) the number words starting at `words[i]` write, and the index after them."""
    word = words[i].group(0).lower()
    if word in _UNICODE_FRACTIONS:
        num, den = _UNICODE_FRACTIONS[word]
        return (sympy.Rational(num, den),), i + 1
    if word in _VALUE_WORDS:
        return _VALUE_WORDS[word], i + 1
    if word in _ORDINAL_FRACTIONS:
        den = _ORDINAL_FRACTIONS[word]  # "a third", and also the ordinal ("the third day": 3)
        return (sympy.Rational(1, den), sympy.Integer(den)), i + 1
    value = _cardinal(word)
    if value is None:
        return None
    end = i + 1
    if end < len(words) and value >= 20 and value % 10 == 0 and (unit := _UNITS_WORDS.get(
            words[end].group(0).lower())) is not None and 0 < unit < 10:
        value, end = value + unit, end + 1  # "twenty five" (the hyphenated form is one token each side)
    while end < len(words) and (scale := _SCALES.get(words[end].group(0).lower())):
        value, end = value * scale, end + 1
    if end < len(words) and (den := _ORDINAL_FRACTIONS.get(words[end].group(0).lower())):
        return (sympy.Rational(value, den), sympy.Integer(value)), end + 1  # "two thirds"
    return (sympy.Integer(value),), end


def _cardinal(word: str) -> int | None:
    if word in _UNITS_WORDS:
        return _UNITS_WORDS[word]
    if word in _TENS_WORDS:
        return _TENS_WORDS[word]
    if "-" in word:
        tens, _, unit = word.partition("-")
        if tens in _TENS_WORDS and unit in _UNITS_WORDS and 0 < _UNITS_WORDS[unit] < 10:
            return _TENS_WORDS[tens] + _UNITS_WORDS[unit]
    return None


def _counts(text: str, end: int) -> str:
    """Up to three words right after a number, up to punctuation or a function word: what it counts."""
    words: list[str] = []
    for m in re.finditer(r"-?[A-Za-z]+(?:['’-][A-Za-z]+)*|[^\sA-Za-z]", text[end:end + 80]):
        word = m.group(0).lstrip("-")
        if not word or not word[0].isalpha() or word.lower() in _STOP:
            if word.lower() == "per" and words:
                words.append(word)
                continue
            break
        words.append(word)
        if len(words) == 3:
            break
    while words and words[-1].lower() == "per":
        words.pop()
    return " ".join(words)


def grounding_values(quantities: Iterable[Quantity], context_texts: Iterable[str]) -> frozenset[sympy.Rational]:
    """Every value an operand may take: the stated quantities in the forms solutions write them, 0, 1, and the
    named constants of the units the texts speak of."""
    values: set[sympy.Rational] = {sympy.Integer(0), sympy.Integer(1)}
    for q in quantities:
        values.add(q.value)
        if q.percent:
            values.update({q.value / 100, 100 - q.value, (100 - q.value) / 100, 100 + q.value, (100 + q.value) / 100})
        elif 0 < q.value < 1:
            values.add(1 - q.value)
        if q.value.q != 1:
            values.update({sympy.Integer(q.value.p), sympy.Integer(q.value.q)})  # ¾ of it: × 3, ÷ 4
        values.update(_converted(q))
    words = {w.lower() for text in context_texts for w in _WORD_TOKEN.findall(text[:MAX_QUESTION_CHARS])}
    for constant, triggers in _CONSTANTS:
        if words & set(triggers.split()):
            values.add(sympy.Rational(constant))
    return frozenset(values)


def _converted(q: Quantity) -> set[sympy.Rational]:
    """The quantity in the other units of its measuring system (30 minutes as 0.5 hours), when exact."""
    first = q.counts.split(" ")[0].lstrip("-") if q.counts else ""
    unit = word_unit(first) if first else None
    if unit is None:
        return set()
    return {q.value * sympy.Rational(f.numerator, f.denominator) for other in _CANONICAL_UNITS
            if (f := conversion_factor(unit[1], other)) is not None and f != 1}


def relation_values(rel: Relation) -> set[sympy.Rational]:
    """The exact rational values a relation writes: its literals and the value of every subexpression."""
    return _subvalues(rel.lhs_tree) | _subvalues(rel.rhs_tree)


def _subvalues(node: Node) -> set[sympy.Rational]:
    """The values of a side's literals and of each of its subexpressions (4·3 − 5 gives 4, 3, 5, 12 and 7)."""
    out = {value for _, value in _operands(node)}
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, Binary | Call | Unary | Postfix) and (value := _rational(n)) is not None:
            out.add(value)
        stack.extend((n.left, n.right) if isinstance(n, Binary) else n.args if isinstance(n, Call)
                     else (n.arg,) if isinstance(n, Unary | Postfix) else ())
    return out


def ungrounded_operands(relations: Sequence[Relation], allowed: frozenset[sympy.Rational]) -> list[Ungrounded]:
    """The literal operands of the numeric relations that neither `allowed` nor an earlier relation's values
    give; each relation's values ground the relations after it."""
    known = set(allowed)
    missing: list[Ungrounded] = []
    for rel in relations:
        if not rel.names:  # a relation of named unknowns is the algebra checker's business, not a word problem's
            for side in _operand_sides(rel):
                for num, value in _operands(side):
                    if value not in known and -value not in known:
                        missing.append(Ungrounded(num.text, rel))
                known.update(_subvalues(side))  # `4·3 − 5 = 12 − 5`: the left side's 12 grounds the right's
        known.update(relation_values(rel))
    return missing


def _operand_sides(rel: Relation) -> list[Node]:
    """The sides whose literals are operands: a lone literal set against a computation is the result."""
    lhs_lone, rhs_lone = _lone(rel.lhs_tree), _lone(rel.rhs_tree)
    if rel.op in ("=", "~=") and rhs_lone and not lhs_lone:
        return [rel.lhs_tree]
    if rel.op in ("=", "~=") and lhs_lone and not rhs_lone:
        return [rel.rhs_tree]
    return [rel.lhs_tree, rel.rhs_tree]


def _lone(node: Node) -> bool:
    while isinstance(node, Unary | Postfix) and node.op in ("-", "+", "%"):
        node = node.arg
    return isinstance(node, Num)


def literal_operands(node: Node) -> list[tuple[str, sympy.Rational]]:
    """Each literal of an expression, as written, with the value it stands for (`25%` as 25)."""
    return [(num.text, value) for num, value in _operands(node)]


def _operands(node: Node) -> list[tuple[Num, sympy.Rational]]:
    """Each literal of a side with the value it stands for (`25%` as 25: the percent is its unit)."""
    if isinstance(node, Num):
        return [(node, node.value)]
    if isinstance(node, Unary | Postfix):
        return _operands(node.arg)
    if isinstance(node, Binary):
        return _operands(node.left) + _operands(node.right)
    if isinstance(node, Call):
        return [x for arg in node.args for x in _operands(arg)]
    return []


def _rational(node: Node) -> sympy.Rational | None:
    try:
        value = evaluate(node)
    except (ExpressionError, TypeError, ValueError, ZeroDivisionError):
        return None
    return value if isinstance(value, sympy.Rational) else None
