"""The quantities a word problem states, and the operands of a step's relations that nothing grounds.

A word problem's arithmetic can hold while its operands come from nowhere: "she sells 16 - 3 - 5 = 8 eggs"
is exact arithmetic, but the question never mentions a 5. `stated_quantities` reads every number the
question writes (digits, `$1,250.50`, `25%`, `3/4`, `4√3`, number words, "twice", "half", "a dozen"), with what
it counts (the words after it); `grounding_values` is every value an operand may take: a stated quantity and
the forms a solution writes it in (a percent as a fraction, its complement: 20 % off leaves 80 % = 0.8; a
fraction's complement; 30 minutes as 0.5 hours), plus the named constants of the units the problem speaks of
(60 for minutes and hours, 7 for days and weeks, 12 for months and years, 100 for percent, …).

Grounding is a rule over a derivation, walked in order (`Grounds`): an operand is grounded by a value the
question states (in those forms), by a grounded result (the value of a subexpression or relation whose every
operand is grounded: "4 + 1 = 5" with an invented 1 grounds nothing), or by a named constant of the units the
question speaks of (each constant needs all of its units: 7 needs days and weeks, 100 cents needs cents and
dollars). A name carries the grounding of its derivation: bound or solved from grounded operands it is
grounded, from an ungrounded one it is not ("Let m = 5", then "16 - 3 - m"), and a name nothing determines is
an unknown, no operand. Nothing is grounded for free: 0 and 1 only where they change nothing (`× 1`, `÷ 1`,
`+ 0`), an exponent is part of its operator, and a fraction's numerator and denominator (¾ as × 3 ÷ 4) ground
only the operand of a product or quotient, never a value a name is bound to ("Let y = 4" for the leg 4/3).
A side that is a lone literal set against a computation of grounded operands is the relation's result.

Bounded: the question is read up to `MAX_QUESTION_CHARS` characters (a longer one grounds nothing beyond
that point, so its operands stay ungrounded: the check fails closed).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import sympy

from reasonforge.lang.math.expr import (
    CONSTANTS,
    Binary,
    Call,
    ExpressionError,
    Name,
    Node,
    Num,
    Postfix,
    Unary,
    evaluate,
    literals,
    names_in,
)
from reasonforge.lang.math.step import Relation
from reasonforge.lang.math.units import conversion_factor, word_unit

__all__ = ["MAX_QUESTION_CHARS", "Grounds", "Quantity", "Ungrounded", "fraction_parts", "grounding_values",
           "literal_operands", "relation_values", "stated_forms", "stated_quantities", "ungrounded_operands",
           "unit_constants"]

MAX_QUESTION_CHARS = 20_000
_MAX_UNKNOWNS = 4  # a side with more unknowns is not compared with grounded expressions (bounded algebra)

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
    "halfway": (sympy.Rational(1, 2), sympy.Integer(2)),
    "twice": (sympy.Integer(2),), "double": (sympy.Integer(2),), "doubled": (sympy.Integer(2),),
    "doubles": (sympy.Integer(2),), "pair": (sympy.Integer(2),), "pairs": (sympy.Integer(2),),
    "couple": (sympy.Integer(2),), "both": (sympy.Integer(2),), "triple": (sympy.Integer(3),),
    "tripled": (sympy.Integer(3),), "triples": (sympy.Integer(3),), "tripling": (sympy.Integer(3),),
    "doubling": (sympy.Integer(2),), "halved": (sympy.Rational(1, 2), sympy.Integer(2)),
    "thrice": (sympy.Integer(3),), "quadruple": (sympy.Integer(4),), "quadrupled": (sympy.Integer(4),),
    "quadruples": (sympy.Integer(4),),
    "dozen": (sympy.Integer(12),), "dozens": (sympy.Integer(12),), "score": (sympy.Integer(20),),
}
_ORDINAL_FRACTIONS = {"third": 3, "thirds": 3, "quarter": 4, "quarters": 4, "fourth": 4, "fourths": 4,
                      "fifth": 5, "fifths": 5, "sixth": 6, "sixths": 6, "seventh": 7, "sevenths": 7,
                      "eighth": 8, "eighths": 8, "ninth": 9, "ninths": 9, "tenth": 10, "tenths": 10}
_UNICODE_FRACTIONS = {"½": (1, 2), "⅓": (1, 3), "⅔": (2, 3), "¼": (1, 4), "¾": (3, 4), "⅕": (1, 5), "⅛": (1, 8)}
# the unit words a constant may be called for by
_MONTHS = "january february march april may june july august september october november december"
_UNIT_GROUPS = {
    "second": "second seconds sec secs", "minute": "minute minutes min mins", "hour": "hour hours hr hrs hourly mph",
    "day": "day days daily morning mornings afternoon afternoons evening evenings night nights nightly tonight",
    "week": "week weeks weekly monday mondays tuesday tuesdays wednesday wednesdays thursday thursdays friday "
            "fridays saturday saturdays sunday sundays weekend weekends",
    "month": "month months monthly " + _MONTHS,
    "year": "year years yearly annual annually anniversary anniversaries birthday birthdays", "decade": "decade decades",
    "century": "century centuries", "money": "money cost costs price prices pay pays paid coin coins change",
    "weekday": "weekday weekdays workweek workday workdays monday tuesday wednesday thursday friday",
    "cent": "cent cents penny pennies ¢", "penny": "penny pennies", "dollar": "dollar dollars $", "quarter": "quarter quarters",
    "dime": "dime dimes", "nickel": "nickel nickels", "percent": "percent % percentage percentages",
    "mm": "mm millimeter millimeters millimetre millimetres", "cm": "cm centimeter centimeters centimetre centimetres",
    "meter": "meter meters metre metres", "km": "km kilometer kilometers kilometre kilometres",
    "gram": "gram grams", "kg": "kg kgs kilogram kilograms kilo kilos", "ml": "ml milliliter milliliters",
    "liter": "liter liters litre litres", "ounce": "ounce ounces oz", "pound": "pound pounds lb lbs",
    "cup": "cup cups", "pint": "pint pints", "quart": "quart quarts", "gallon": "gallon gallons",
    "inch": "inch inches", "foot": "foot feet ft", "yard": "yard yards yd yds", "mile": "mile miles mph",
    "dozen": "dozen dozens", "thousand": "thousand thousands",
}
# named constants: each allowed when the problem speaks of every unit of one of its groups (60: minutes and
# hours, or seconds and minutes)
_CONSTANTS: tuple[tuple[int | str, tuple[tuple[str, ...], ...]], ...] = (
    (60, (("minute", "hour"), ("second", "minute"))),
    (3600, (("second", "hour"),)),
    (24, (("hour", "day"),)),
    (7, (("day", "week"),)),
    (5, (("weekday",), ("nickel",))),
    (12, (("month", "year"), ("inch", "foot"), ("dozen",))),
    (52, (("week", "year"),)),
    (365, (("day", "year"),)),
    (28, (("day", "month"),)), (29, (("day", "month"),)), (30, (("day", "month"),)), (31, (("day", "month"),)),
    (4, (("week", "month"), ("quart", "gallon"), ("quarter", "dollar"), ("cup", "quart"))),
    (100, (("percent",), ("cent", "dollar"), ("cm", "meter"), ("century", "year"))),
    ("0.01", (("percent",), ("cent", "dollar"))),  # GSM8K writes 20 % as 20*.01
    # a coin is worth its value (a quarter only as money: "a quarter of the cake" is ¼)
    (25, (("quarter", "cent"), ("quarter", "dollar"), ("quarter", "money"))),
    ("0.25", (("quarter", "dollar"), ("quarter", "money"))), ("0.1", (("dime",),)), ("0.05", (("nickel",),)),
    ("0.01", (("penny",),)),
    (10, (("dime",), ("decade", "year"), ("mm", "cm"))),
    (1000, (("gram", "kg"), ("meter", "km"), ("ml", "liter"), ("mm", "meter"), ("thousand",))),
    (16, (("ounce", "pound"), ("cup", "gallon"))),
    (3, (("foot", "yard"),)),
    (36, (("inch", "yard"),)),
    (5280, (("mile", "foot"),)),
    (2, (("pint", "quart"), ("cup", "pint"))),
    (8, (("pint", "gallon"),)),
)
_CANONICAL_UNITS = ("second", "minute", "hour", "day", "week", "mm", "cm", "meter", "km", "inch", "foot", "yard",
                    "mile", "mg", "gram", "kg", "ounce", "pound", "ml", "liter", "cup", "pint", "quart", "gallon",
                    "cent", "dollar")
_NUMBER = re.compile(
    r"(?:(?P<cur>[$€£¥₹])\s?)?(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)(?:/(?P<den>\d+))?"
    r"(?P<pct>\s?%|\s?percent\b)?")
# a radical, with its coefficient: `4√3`, `√2`, `4\sqrt{3}`, `3 \sqrt 5` (one quantity, never 4 and 3)
_RADICAL = re.compile(r"(?P<coef>\d+(?:\.\d+)?)?\s?(?:√|\\sqrt\s*)\s?(?:\{\s*(?P<braced>\d+(?:\.\d+)?)\s*\}|"
                      r"(?P<bare>\d+(?:\.\d+)?))")
_WORD_TOKEN = re.compile(r"[A-Za-z]+(?:['’][A-Za-z]+)?|[½⅓⅔¼¾⅕⅛]|\$|%|¢")
_STOP = frozenset(["and", "or", "but", "to", "of", "for", "in", "on", "at", "by", "with", "from", "per", "each", "is", "are", "was", "were", "be", "the", "a", "an", "that", "this", "which", "who", "how", "what", "if", "then", "so", "as", "than"])


@dataclass(frozen=True)
class Quantity:
    """A number the text states: its value, as written, what it counts (the words after it), where."""

    value: sympy.Expr  # a Rational, or an exact irrational (`4√3`)
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
    for m in _RADICAL.finditer(text):
        coefficient = sympy.Rational(m["coef"]) if m["coef"] else sympy.Integer(1)
        value = coefficient * sympy.sqrt(sympy.Rational(m["braced"] or m["bare"]))
        found.append(Quantity(value, m.group(0).strip(), _counts(text, m.end()), (m.start(), m.end())))
        taken.append((m.start(), m.end()))
    for m in _NUMBER.finditer(text):
        if not m["cur"] and m.start() > 0 and (text[m.start() - 1].isalpha() or text[m.start() - 1] == "_"):
            continue  # a name with digits (x1, a_2) is not a quantity; "for$ 4" is money
        if any(a <= m.start("num") < b for a, b in taken):
            continue  # inside a radical
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
    if end < len(words) and (parts := _ORDINAL_FRACTIONS.get(words[end].group(0).lower())):
        return (sympy.Rational(value, parts), sympy.Integer(value)), end + 1  # "two thirds"
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
    """Every value a question's formalisation may write (`verify.math.programs`): the stated quantities in the
    forms solutions write them and their fractions' parts, 0, 1, and the named constants of any unit the
    texts speak of. A step's operands are held to the stricter `Grounds`."""
    quantities = list(quantities)
    values: set[sympy.Rational] = {sympy.Integer(0), sympy.Integer(1)}
    values.update(v for v in stated_forms(quantities) if isinstance(v, sympy.Rational))
    values.update(fraction_parts(quantities))
    values.update(unit_constants(context_texts, every_unit=False))
    return frozenset(values)


def stated_forms(quantities: Iterable[Quantity]) -> set[sympy.Expr]:
    """The stated quantities in the forms solutions write them: the value, a percent as a fraction and its
    complement, a fraction's complement, and the quantity in the other units of its measuring system."""
    values: set[sympy.Expr] = set()
    for q in quantities:
        values.add(q.value)
        if not isinstance(q.value, sympy.Rational):
            continue
        if q.percent:
            values.update({q.value / 100, 100 - q.value, (100 - q.value) / 100, 100 + q.value, (100 + q.value) / 100})
        elif 0 < q.value < 1:
            values.add(1 - q.value)
        values.update(_converted(q))
    return values


def fraction_parts(quantities: Iterable[Quantity]) -> frozenset[sympy.Rational]:
    """The numerators and denominators of the stated fractions (¾ of it: × 3, ÷ 4)."""
    return frozenset(part for q in quantities if isinstance(q.value, sympy.Rational) and q.value.q != 1
                     for part in (sympy.Integer(q.value.p), sympy.Integer(q.value.q)))


def unit_constants(texts: Iterable[str], every_unit: bool = True) -> frozenset[sympy.Rational]:
    """The named constants the texts call for: each one whose units the texts all speak of (60 needs minutes
    and hours, or seconds and minutes); with `every_unit` false, any one of them is enough."""
    words = {w.lower() for text in texts for w in _WORD_TOKEN.findall(text[:MAX_QUESTION_CHARS])}
    spoken = {unit for unit, spelled in _UNIT_GROUPS.items() if words & set(spelled.split())}
    test = all if every_unit else any
    return frozenset(sympy.Rational(value) for value, groups in _CONSTANTS
                     if any(test(unit in spoken for unit in group) for group in groups))


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


def ungrounded_operands(relations: Sequence[Relation], allowed: frozenset[sympy.Expr]) -> list[Ungrounded]:
    """The operands of the relations that neither `allowed` nor an earlier relation's grounded results give
    (the rule of `Grounds`, with `allowed` as what the question grounds)."""
    grounds = Grounds(values=set(allowed))
    return [m for rel in relations for m in grounds.walk(rel)]


@dataclass
class Grounds:
    """What grounds the operands of a word problem's derivation so far (module docstring): values (the
    question's quantities in the forms solutions write them, unit constants, grounded results), the parts of
    stated fractions (operands of a product or quotient only), the names a grounded derivation gave a value,
    and the names an ungrounded one did (with the operand it rests on). `walk` takes the relations in order."""

    values: set[sympy.Expr] = field(default_factory=set)
    parts: frozenset[sympy.Rational] = frozenset()
    names: dict[str, sympy.Expr] = field(default_factory=dict)
    constrained: set[str] = field(default_factory=set)  # names grounded relations constrain, with no one value
    tainted: dict[str, str] = field(default_factory=dict)
    # the coefficients of grounded terms, by their unknown: 3 of 3x grounds a 3 only where x is spoken of (x = 60/3)
    coefficients: dict[str, set[sympy.Expr]] = field(default_factory=dict)
    # the computations of grounded relations, as written: a calculator annotation restating one (`<<60/3=20>>`
    # after x = 60/3) computes nothing new
    computed: set[Node] = field(default_factory=set)

    def walk(self, rel: Relation) -> list[Ungrounded]:
        """The ungrounded operands of `rel`; records what it grounds (its results, the names it determines or
        constrains) or taints (the names it determines from an ungrounded operand)."""
        free = [n for n in sorted(rel.names) if n not in self.names and n not in self.tainted
                and n not in self.constrained]
        sides: list[tuple[Node, list[str]]] = []
        local = {c for name in rel.names for c in self.coefficients.get(name, ())}
        for side in self._operand_sides(rel, free):
            results: list[sympy.Expr] = []
            side_missing = self._side(side, results, local)
            if not side_missing:  # `4·3 − 5 = 12 − 5`: the left side's 12 grounds the right side's
                self._add(*results)
            sides.append((side, side_missing))
        identity = self._identity(rel)
        if identity and any(not m for _, m in sides):
            # a rewriting of a grounded expression of unknowns (`x + 2x = 3x`, `4(3 + 2x) = 12 + 8x`): the other
            # side is that expression, and its terms are what the grounded side computes
            for side, side_missing in sides:
                side_missing.clear()
                self._add(self._value(side))
        missing = [operand for _, side_missing in sides for operand in side_missing]
        if missing:
            self.tainted.update((name, missing[0]) for name in free)
            return [Ungrounded(operand, rel) for operand in missing]
        for side in (rel.lhs_tree, rel.rhs_tree):
            self._add(self._value(side))
            self.computed.update(_compounds(side))
        if identity:
            return []  # an identity holds whatever its unknowns are: it determines none of them
        for name, value in self._determined(rel, free).items():
            if value is not None:
                self._determine(name, value)
        self.constrained.update(name for name in free if name not in self.names)
        if rel.op == "=" and isinstance(rel.lhs_tree, Name) and rel.lhs_tree.name in self.constrained \
                and (value := self._closed(rel.rhs_tree)) is not None:
            self._determine(rel.lhs_tree.name, value)  # `z = 5` once z² = 25 constrains z: the checker derives it
        return []

    def _add(self, *values: sympy.Expr | None) -> None:
        """Record grounded values; an expression of unknowns with its terms (`12 + 8x` gives 12 and 8·x, never a
        bare 8: "4x + x = 5x" computes its 5 from the 1 that x silently is)."""
        for value in values:
            if value is None:
                continue
            self.values.add(value)
            if value.free_symbols:
                for term in sympy.Add.make_args(value):
                    self.values.add(term)
                    coefficient, rest = term.as_coeff_Mul()
                    if len(rest.free_symbols) == 1 and coefficient not in (1, -1):
                        (symbol,) = rest.free_symbols
                        self.coefficients.setdefault(symbol.name, set()).add(abs(coefficient))

    def _determine(self, name: str, value: sympy.Expr) -> None:
        """Give `name` a grounded value, and the grounded expressions of it theirs (8·x is 208 once x = 26)."""
        self.names[name] = value
        for known in [v for v in self.values if any(s.name == name for s in v.free_symbols)]:
            self._add(sympy.expand(known.subs({s: value for s in known.free_symbols if s.name == name})))
        self._add(value)

    def _identity(self, rel: Relation) -> bool:
        """Whether `rel` is an equation of unknowns that holds whatever they are (a rewriting)."""
        if rel.op != "=":
            return False
        lhs, rhs = self._value(rel.lhs_tree), self._value(rel.rhs_tree)
        if lhs is None or rhs is None or not (lhs.free_symbols or rhs.free_symbols):
            return False
        return bool(sympy.expand(lhs - rhs) == 0)

    def _operand_sides(self, rel: Relation, free: Sequence[str]) -> list[Node]:
        """The sides whose operands must be grounded: a lone literal set against a computation of grounded
        operands is its result; set against an unknown (`m = 5`, `2x = 16`), it is what determines it."""
        lhs_lone, rhs_lone = _lone(rel.lhs_tree), _lone(rel.rhs_tree)
        if rel.op in ("=", "~=") and rhs_lone and not lhs_lone and not names_in(rel.lhs_tree) & set(free):
            return [rel.lhs_tree]
        if rel.op in ("=", "~=") and lhs_lone and not rhs_lone and not names_in(rel.rhs_tree) & set(free):
            return [rel.rhs_tree]
        return [rel.lhs_tree, rel.rhs_tree]

    def _closed(self, node: Node) -> sympy.Expr | None:
        """The exact value of a side once grounded names take their values, None when something is unknown."""
        if names_in(node) - self.names.keys():
            return None
        value = self._value(node)
        return None if value is None or value.free_symbols else value

    def _value(self, node: Node) -> sympy.Expr | None:
        """The value of a side, grounded names replaced by their values and expanded (`x + 2x` → 3·x), so an
        expression of unknowns compares with the grounded ones; None when it has no value."""
        if len(names_in(node) - self.names.keys()) > _MAX_UNKNOWNS:
            return None
        try:
            return sympy.expand(evaluate(node, self.names))
        except (ExpressionError, TypeError, ValueError, ZeroDivisionError, RecursionError):
            return None

    def _form(self, node: Node) -> sympy.Expr | None:
        """The value of an expression of names with none of them replaced (its form), expanded."""
        if len(names_in(node)) > _MAX_UNKNOWNS:
            return None
        try:
            return sympy.expand(evaluate(node))
        except (ExpressionError, TypeError, ValueError, ZeroDivisionError, RecursionError):
            return None

    def _side(self, node: Node, results: list[sympy.Expr], local: set[sympy.Expr]) -> list[str]:
        """The ungrounded operands of one side (as written), collecting the values of its grounded
        subexpressions into `results`; `local` are the values grounded in this relation only (coefficients)."""
        missing: list[str] = []
        self._node(node, None, missing, results, local, root=True)
        return missing

    def _node(self, node: Node, parent: Node | None, missing: list[str], results: list[sympy.Expr],
              local: set[sympy.Expr], root: bool = False) -> bool:
        """Whether `node` is grounded (its operands are), naming each ungrounded operand in `missing`. A
        subexpression whose value is already grounded counts as that value (`16 - (3 + 1)` where 4 is
        stated), except a whole side: its value coinciding with a known one is no derivation of it."""
        compound = not isinstance(node, Num | Name)  # a literal or a name is decided by its own rule below
        if compound and node in self.computed and not names_in(node) & self.tainted.keys():
            return True
        if compound and (value := self._value(node)) is not None and value in self.values \
                and (not root or value.free_symbols) and not names_in(node) & self.tainted.keys():
            return True  # a whole side of unknowns equal to a grounded one is its rewriting (`x + 2x = 3x`)
        if compound and names_in(node) and not names_in(node) & self.tainted.keys() \
                and (form := self._form(node)) is not None and form in self.values:
            return True  # `11x` once x + 2x + 8x computed it: the same expression, whatever x's value is now
        if isinstance(node, Num):
            value = node.value
            if value in self.values or -value in self.values or _identity(node, parent):
                return True
            if value in local and isinstance(parent, Binary) and parent.op in ("*", "/"):
                return True  # x's coefficient multiplies or divides (x = 60/3), never stands as a quantity (16 - 5)
            if value in self.parts and isinstance(parent, Binary) and parent.op in ("*", "/"):
                return True
            missing.append(node.text)
            return False
        if isinstance(node, Name):
            if node.name in CONSTANTS or node.name in self.names or node.name in self.constrained:
                return True
            if node.name in self.tainted:
                missing.append(f"{node.name} (from {self.tainted[node.name]})")
                return False
            return True  # an unknown: no operand
        children: list[Node]
        if isinstance(node, Binary):
            children = [node.left] if node.op == "^" and isinstance(node.right, Num) else [node.left, node.right]
        elif isinstance(node, Call):
            children = list(node.args)
        elif isinstance(node, Unary | Postfix):
            children = [node.arg]
        else:
            children = []
        verdicts = [self._node(child, node, missing, results, local) for child in children]  # every operand named
        grounded = all(verdicts)
        if grounded and (value := self._value(node)) is not None:
            results.append(value)
        return grounded

    def _determined(self, rel: Relation, free: Sequence[str]) -> dict[str, sympy.Expr | None]:
        """The names `rel` determines: its one unknown, with the value it gives when exactly one (`x = 16 - 3`,
        `2x = 16`); None where it is not a single value (`z² = 25`)."""
        if rel.op != "=" or len(free) != 1:
            return {}
        name = free[0]
        try:
            gap = evaluate(rel.lhs_tree, self.names) - evaluate(rel.rhs_tree, self.names)
            symbol = next(s for s in gap.free_symbols if s.name == name)
            solutions = sympy.solve(gap, symbol) if sympy.degree(gap, symbol) == 1 else []
        except (ExpressionError, TypeError, ValueError, ZeroDivisionError, RecursionError, StopIteration,
                sympy.PolynomialError, NotImplementedError):
            return {name: None}
        value = solutions[0] if len(solutions) == 1 and not solutions[0].free_symbols else None
        return {name: value}


def _compounds(node: Node) -> list[Node]:
    """`node` and its subexpressions that are computations (neither a literal nor a name)."""
    if isinstance(node, Num | Name):
        return []
    children = [node.left, node.right] if isinstance(node, Binary) else list(node.args) if isinstance(node, Call) \
        else [node.arg] if isinstance(node, Unary | Postfix) else []
    return [node, *(c for child in children for c in _compounds(child))]


def _identity(node: Num, parent: Node | None) -> bool:
    """A literal that changes nothing where it stands: a factor 1, a divisor 1, an addend 0."""
    if not isinstance(parent, Binary) or node.value not in (0, 1):
        return False
    if node.value == 1:
        return parent.op == "*" or (parent.op == "/" and parent.right is node)
    return parent.op == "+" or (parent.op == "-" and parent.right is node)


def _lone(node: Node) -> bool:
    while isinstance(node, Unary | Postfix) and node.op in ("-", "+", "%"):
        node = node.arg
    return isinstance(node, Num)


def literal_operands(node: Node) -> list[tuple[str, sympy.Rational]]:
    """Each literal of an expression, as written, with the value it stands for (`25%` as 25)."""
    return [(num.text, value) for num, value in _operands(node)]


def _operands(node: Node) -> list[tuple[Num, sympy.Rational]]:
    """Each literal of a side with the value it stands for (`25%` as 25: the percent is its unit)."""
    return [(num, num.value) for num in literals(node)]


def _rational(node: Node) -> sympy.Rational | None:
    try:
        value = evaluate(node)
    except (ExpressionError, TypeError, ValueError, ZeroDivisionError):
        return None
    return value if isinstance(value, sympy.Rational) else None
