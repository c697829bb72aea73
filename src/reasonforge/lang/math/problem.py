"""What a maths question asks for, read from its text: the unknown, the unit it asks in, whether it is a word
problem, and the value the question itself determines when its reader can compute it.

- *Word problem*: the question states a quantity **of something** in prose — a number with what it counts
  ("16 eggs per day", "3 hours", "$2", "10 packs") outside every relation it states — and does not determine
  its own answer (below). Such a number means what the prose says it counts, and no rule reads that meaning:
  `16 + 3 + 4 = 23` is true arithmetic whether or not the 3 and the 4 are eggs she keeps. So the aligners give a
  word problem's verified steps `relations` evidence, never `claim`/`theorem`: the offline rules alone never
  prove a word problem's step. Only an independent model of the problem (`pipeline.corroboration`) lifts it.
  A bare number ("What is 2 + 3?", "legs 3 and 4", "divisible by 4") counts nothing: not a word problem.
- *The unknown*: the names the question asks for (`Question.asked_names`: "find x", "x = ?").
- *The asked unit*: the unit word of the sentence that asks ("How many minutes …", "How much in dollars …",
  "… in km?"), when there is exactly one; and the units the question states its quantities in, by dimension.
  A claimed answer written in another unit is not the question's answer (`lang.math.answers`).
- *Asks for a percent*: the asking sentence says "percent", "percentage" or "%".
- *The question's own value*: the value of an expression it asks to compute ("What is 2 + 3?", "Compute
  $17 \\cdot 23$.", "Let k = 2. What is k + 7?", with the question's bindings substituted), or the hypotenuse of
  a right triangle whose legs it gives ("a right triangle with legs 3 and 4": 5). None otherwise. A chain whose
  final value is not it does not answer the question.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

import sympy

from reasonforge.lang.math.expr import ExpressionError, Node, Num, evaluate, names_in, parse_expression
from reasonforge.lang.math.quantities import MAX_QUESTION_CHARS, Quantity, stated_quantities
from reasonforge.lang.math.reading import read_question
from reasonforge.lang.math.text import extract_value
from reasonforge.lang.math.units import word_unit

__all__ = ["WORD_PROBLEM_NOTE", "Problem", "RightTriangle", "read_problem", "right_triangles", "word_problem"]

WORD_PROBLEM_NOTE = ("a word problem: the arithmetic was checked, but no rule ties its numbers to what the question "
                     "says they count, nor its result to what the question asks")

_CURRENCY = {"$": "dollar", "€": "euro", "£": "sterling", "¥": "yen", "₹": "rupee"}
# words right after a number that say how it compares, not what it counts ("5 more than", "3 times as many")
_NOT_COUNTED = frozenset(("more", "less", "fewer", "times", "greater", "smaller", "larger", "bigger", "higher",
                          "lower", "st", "nd", "rd", "th", "per"))
# words that may stand between a number and what it counts ("48 of her friends", "half as many clips")
_LINKS = frozenset(("of", "as", "many", "much", "her", "his", "their", "its", "the", "a", "an", "my", "our", "your",
                    "these", "those", "more", "fewer", "less", "extra", "other", "different", "new", "same"))
_STOPS = frozenset(("and", "or", "but", "to", "for", "in", "on", "at", "by", "with", "from", "per", "each", "is",
                    "are", "was", "were", "be", "that", "this", "which", "who", "how", "what", "if", "then", "so",
                    "than", "when", "where", "divided", "plus", "minus", "over", "into", "equals", "squared",
                    "cubed"))
_AFTER = re.compile(r"[A-Za-z]+(?:['’][A-Za-z]+)?|\S")
_SENTENCE = re.compile(r"[^.?!]*(?:[.?!](?=\s|$)|$)")
_ASKS = re.compile(r"\b(?:how\s+(?:many|much|long|far|fast|old|tall|high|heavy)|what|which|find|compute|calculate|"
                   r"determine|evaluate)\b", re.IGNORECASE)
_HOW_MANY = re.compile(r"\bhow\s+(?:many|much)\s+(?:more\s+|fewer\s+|less\s+|extra\s+)?(?:in\s+)?([A-Za-z$%]+)"
                       r"(?:\s+(?:and|or)\s+([A-Za-z]+))?", re.IGNORECASE)
_IN_UNIT = re.compile(r"\b(?:in|of)\s+([A-Za-z]+)\b", re.IGNORECASE)
_PERCENT = re.compile(r"\bpercent(?:age)?s?\b|%", re.IGNORECASE)
# "What is 2 + 3?", "Compute $17 \cdot 23$.": the expression is the rest of the asking sentence
_ASKED_EXPRESSION = re.compile(r"\b(?:what\s+is|what's|compute|calculate|evaluate|find\s+the\s+value\s+of|"
                               r"what\s+is\s+the\s+value\s+of|find)\s+(?P<rest>.+)$", re.IGNORECASE | re.DOTALL)
# A leg: a number, a root or a fraction as written ("3", "4√3", "4\\sqrt{3}", "4/3"); its whole form is its value.
_LEG = r"(\d+(?:\.\d+)?(?:\s*(?:√\s*\d+(?:\.\d+)?|\\sqrt\s*\{\s*\d+\s*\}|/\s*\d+))?)"
_LEG_END = r"(?=\s*(?:$|[,;:?!)]|\.(?:\s|$)|(?:and|with|is|are|what|find|how|cm|m|km|mm|in|inches|feet|ft|units?)\b))"
_RIGHT_TRIANGLE = re.compile(rf"\bright(?:[- ]angled)?\s+triangle\s+(?:with|whose|having|has)\s+legs\s+(?:are\s+|of\s+"
                             rf"(?:lengths?\s+)?|measuring\s+)?{_LEG}\s*(?:cm|m|km|mm|units?)?\s*(?:,\s*and|and|,)"
                             rf"\s*{_LEG}{_LEG_END}", re.IGNORECASE)


@dataclass(frozen=True)
class RightTriangle:
    """A right triangle whose legs the question gives: their exact values (`4√3` is 4·√3, never 4), as written,
    and where the phrase is."""

    legs: tuple[sympy.Expr, sympy.Expr]
    written: tuple[str, str]
    span: tuple[int, int]

    @property
    def hypotenuse(self) -> sympy.Expr:
        a, b = self.legs
        return sympy.sqrt(a ** 2 + b ** 2)


@dataclass(frozen=True)
class Problem:
    """What the question asks for (see the module docstring)."""

    word_problem: bool = False
    asked_names: frozenset[str] = frozenset()
    asked_unit: str | None = None  # canonical unit (`word_unit`) of the asking sentence, when exactly one
    units: dict[str, frozenset[str]] = field(default_factory=dict)  # dimension -> canonical units it states
    asks_percent: bool = False
    value: sympy.Expr | None = None  # the question's own value of what it asks for
    value_source: str = ""  # how the question determines it ("2 + 3", "the hypotenuse of legs 3 and 4")
    words: frozenset[str] = frozenset()  # the question's words, lower case (what an answer may name)
    stated: tuple[sympy.Rational, ...] = ()  # the values of the quantities it states


def read_problem(query: str) -> Problem:
    """What `query` asks for (an empty question asks for nothing)."""
    return _read_problem(query[:MAX_QUESTION_CHARS])


def word_problem(query: str) -> bool:
    """Whether `query` is a word problem: it states a quantity of something and does not determine its answer."""
    return read_problem(query).word_problem


@functools.lru_cache(maxsize=64)
def _read_problem(query: str) -> Problem:
    if not query.strip():
        return Problem()
    question = read_question(query)
    asking = [s for s in _SENTENCE.findall(query) if s.strip() and (s.rstrip().endswith("?") or _ASKS.search(s))]
    value, source = _own_value(query, asking)
    quantities = stated_quantities(query)
    relations = [r.span for r in question.givens.relations]
    story = any(_counts_something(query, q) for q in quantities if not any(a <= q.span[0] < b for a, b in relations))
    return Problem(word_problem=story and value is None, asked_names=question.asked_names,
                   asked_unit=_asked_unit(asking), units=_units(quantities),
                   asks_percent=any(_PERCENT.search(s) for s in asking), value=value, value_source=source,
                   words=frozenset(w.lower() for w in re.findall(r"[A-Za-z]+", query)),
                   stated=tuple(q.value for q in quantities))


def _counts_something(query: str, q: Quantity) -> bool:
    """A number with a currency sign, or followed by a word saying what it counts ("16 eggs", "48 of her friends",
    "half as many clips"); not one followed by a verb, a symbol or nothing ("divisible by 4", "100 is divided")."""
    if q.text[:1] in _CURRENCY:
        return True
    skipped = 0
    for m in _AFTER.finditer(query, q.span[1], min(len(query), q.span[1] + 80)):
        word = m.group(0).lower()
        if not word.isalpha():
            return False
        if word in _LINKS and skipped < 3:
            skipped += 1
            continue
        return len(word) > 1 and word not in _NOT_COUNTED and word not in _STOPS
    return False


def _asked_unit(asking: list[str]) -> str | None:
    """The one unit the asking sentences ask in ("how many minutes", "how much in dollars", "in km"), else None."""
    found: set[str] = set()
    for sentence in asking:
        words = [w for m in _HOW_MANY.finditer(sentence) for w in m.groups() if w]  # "how many hours and minutes"
        words += [m.group(1) for m in _IN_UNIT.finditer(sentence)]
        for word in words:
            if word == "$":
                found.add("dollar")
            elif (unit := word_unit(word)) is not None:
                found.add(unit[1])
    return found.pop() if len(found) == 1 else None


def _units(quantities: tuple[Quantity, ...]) -> dict[str, frozenset[str]]:
    """The canonical units the question's quantities are stated in, by dimension."""
    out: dict[str, set[str]] = {}
    for q in quantities:
        if q.text[:1] in _CURRENCY:
            out.setdefault("money", set()).add(_CURRENCY[q.text[0]])
        first = q.counts.split()[0] if q.counts else ""
        if first and (unit := word_unit(first)) is not None:
            out.setdefault(unit[0], set()).add(unit[1])
    return {dim: frozenset(units) for dim, units in out.items()}


def right_triangles(text: str) -> list[RightTriangle]:
    """The right triangles whose legs `text` gives ("a right triangle with legs 3 and 4", "… legs 3 and 4√3"); a
    leg whose written form does not read exactly gives no triangle."""
    out = []
    for m in _RIGHT_TRIANGLE.finditer(text[:MAX_QUESTION_CHARS]):
        a, b = _leg(m.group(1)), _leg(m.group(2))
        if a is not None and b is not None:
            out.append(RightTriangle((a, b), (" ".join(m.group(1).split()), " ".join(m.group(2).split())), m.span()))
    return out


def _leg(written: str) -> sympy.Expr | None:
    latex = re.sub(r"√\s*(\d+(?:\.\d+)?)", r"\\sqrt{\1}", written)
    node = extract_value(latex) if "\\" not in latex else extract_value(f"${latex}$")
    try:
        value = evaluate(node) if node is not None else None
    except (ExpressionError, TypeError, ValueError, ZeroDivisionError, RecursionError):
        return None
    return value if value is not None and value.is_positive else None


def _own_value(query: str, asking: list[str]) -> tuple[sympy.Expr | None, str]:
    """The value the question determines for what it asks (see the module docstring), and how."""
    triangles = right_triangles(query)
    if len(triangles) == 1 and re.search(r"\bhypotenuse\b", " ".join(asking), re.IGNORECASE):
        a, b = triangles[0].written
        return triangles[0].hypotenuse, f"the hypotenuse of a right triangle with legs {a} and {b}"
    if len(asking) != 1:
        return None, ""
    m = _ASKED_EXPRESSION.search(asking[0])
    if m is None:
        return None, ""
    rest = m.group("rest").strip().rstrip("?.!").strip()
    node = _expression(rest)
    if node is None:
        return None, ""
    env = _bindings(query)
    if not names_in(node) <= set(env) or not (names_in(node) or _computes(node)):
        return None, ""  # a lone number asks nothing to compute; an unknown name the question does not fix
    try:
        value = evaluate(node, env)
    except (ExpressionError, TypeError, ValueError, ZeroDivisionError, RecursionError):
        return None, ""
    return (value, rest) if not value.free_symbols else (None, "")


def _expression(text: str) -> Node | None:
    """The whole `text` as one expression (`2 + 3`, `$\\frac{1}{2} + \\frac{1}{3}$`, `k + 7`), else None."""
    if not text or len(text) > 200:
        return None
    node = extract_value(text)
    if node is not None:
        # the value reader drops unit words ("3 hours"): only a text with no word at all is an expression
        return node if not re.search(r"(?<!\\)\b[A-Za-z]{2,}\b", re.sub(r"\\[A-Za-z]+", " ", text)) else None
    try:
        return parse_expression(text)
    except ExpressionError:
        return None


def _computes(node: Node) -> bool:
    return not isinstance(node, Num)


def _bindings(query: str) -> dict[str, sympy.Expr]:
    """The question's names with one closed value ("Let k = 2", "x = 3, y = 4"; not scenarios)."""
    out: dict[str, sympy.Expr] = {}
    for rel in read_question(query).givens.bindings:
        name = rel.bound_name
        try:
            value = evaluate(rel.rhs_tree)
        except (ExpressionError, TypeError, ValueError, ZeroDivisionError, RecursionError):
            continue
        if name is not None and not value.free_symbols:
            out.setdefault(name, value)
    return out

