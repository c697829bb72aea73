"""Relations out of runs of maths tokens: a run is a maximal stretch of maths in a step's tokens, cut at
words and sentence punctuation; its sides are parsed into the expression language and paired by their
relation symbols, with the prose around them settling readings (units, truncated decimals, remainders,
"of", counting in thousands, percent points). Every relation symbol of a run ends up read, or prose on one
side, or in `Found.unread` with why: the hazards (a word around the run that changes an edge side's value),
cut sides, unparsed sides, units of different kinds, two readings. See `lang.math.text` for the rules; nothing
here raises on odd input."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import sympy

from reasonforge.lang.math.expr import (
    Binary,
    Call,
    ExpressionError,
    Node,
    Num,
    Postfix,
    Unary,
    evaluate,
    has_percent,
    names_in,
    parse_expression,
    rounding_tolerance,
)
from reasonforge.lang.math.step import Origin, Relation, Unread, UnreadReason
from reasonforge.lang.math.tokens import (
    PROSE_LETTERS,
    SCALE_WORDS,
    UNARY_AFTER_WORDS,
    VALUE_START,
    Tok,
    is_value_end,
)
from reasonforge.lang.math.units import UNITS, conversion_factor, same_noun, word_unit

__all__ = [
    "Found",
    "Run",
    "implicit_products",
    "percents_in",
    "relations_of_run",
    "render",
    "scales_in",
    "split_runs",
]

_MAX_NOTES = 20
_MAX_UNREAD = 50
_BINARY_START = {"+", "*", "/", "//", "^", "%", "!"}
_SPLIT_KINDS = {"break", "word", "punct"}
_BOUNDARY_KINDS = {"break", "punct", "comma"}


@dataclass
class Run:
    """A maximal stretch of maths tokens, whether words cut it at either end, and the prose around it."""

    tokens: list[Tok]
    origin: Origin
    cut_left: bool = False  # a word stands just before: a leading operator lost its operand
    cut_right: bool = False  # an operator follows the words after it: the last side lost its tail
    label: bool = False  # the first side is a label's number ("Remaining 10 = …", "Weeks 1-2 = …")
    before: list[Tok] = field(default_factory=list)  # the words since the last clause boundary or run
    after: list[Tok] = field(default_factory=list)  # the words up to the next clause boundary or run
    prev_end: Tok | None = None  # the previous run's last token, when no clause boundary comes between
    prev_relation: bool = False  # the previous run (same condition) holds a relation of its own
    prev_number: bool = False  # the previous run (same condition) holds a number (not only `a year`)
    prev_before: list[str] = field(default_factory=list)  # the previous run's words before it (same condition)
    next_start: Tok | None = None  # the next run's first token, when no clause boundary comes between
    next_tokens: list[Tok] = field(default_factory=list)  # the next run's tokens (same condition)
    glued_comma: bool = False  # `3 = 3,5`: a comma glued between its last digit and the next run's (not `1,000`)


@dataclass
class Found:
    """What one extraction found besides relations: notes, the relations it did not read (with where their
    relation symbol ends, so an annotation right after it can account for it), and facts about the whole
    text that settle readings."""

    notes: list[str] = field(default_factory=list)
    unread: list[tuple[Unread, int]] = field(default_factory=list)
    decimal_comma: bool = False  # the text writes a decimal comma (`0,5`): `1,000` may be 1
    scales: frozenset[str] = frozenset()  # "thousand", "million" … the text counts in
    variables: frozenset[str] = frozenset()  # letters used as unknowns (not only right after a number)
    percents: frozenset[str] = frozenset()  # numbers the text writes as percents ("25%")

    def note(self, message: str) -> None:
        if len(self.notes) < _MAX_NOTES and message not in self.notes:
            self.notes.append(message)

    def miss(self, text: str, start: int, end: int, reason: UnreadReason, detail: str, op_end: int) -> None:
        """Record a relation the text asserts and the reader did not read."""
        if len(self.unread) < _MAX_UNREAD:
            start, end = max(0, start), max(start, end)
            entry = Unread((start, end), text[start:end].strip() or text[start:end], reason, detail)
            self.unread.append((entry, op_end))


_OPERATOR_WORDS = {"plus", "minus", "times"}
# a verb or connective after an operator word starts a new clause: in "3 times that depth which is 3*4 = 12"
# the 3*4 is not the operand of "times"
_CLAUSE_WORDS = {"is", "are", "was", "were", "which", "so", "for", "because", "then", "thus", "hence", "therefore",
                 "means", "gives", "equals", "makes", "has", "have", "had", "will", "would", "can", "could"}
# sentence openers that are not labels: "So 4 = 2 + 2" claims, "Remaining 10 = 62,300/10" names a line
_CONNECTIVES = {
    "so", "then", "thus", "hence", "therefore", "and", "but", "or", "now", "also", "finally", "first", "next",
    "second", "third", "lastly", "since", "because", "if", "when", "after", "before", "that", "this", "these",
    "those", "which", "where", "as", "we", "it", "he", "she", "they", "i", "you", "there", "here", "total", "the",
    "a", "an", "each", "every", "all", "some", "any", "no", "not", "only", "just", "still", "let", "is", "are",
    "was", "were", "of", "from", "on", "in", "at", "for", "by", "with", "to", "into", "over", "under", "about",
    "per", "during", "within", "without", "between", "among", "through", "until", "upon", "his", "her", "their",
    "its", "our", "my", "your", "today", "yesterday", "tomorrow", "yes", "means", "equals", "gives", "get", "gets"}


def _operator_in_gap(gap: Sequence[Tok]) -> bool:
    """An operator word in the words between runs, with no clause word after it."""
    last = max((k for k, t in enumerate(gap) if t.text.lower() in _OPERATOR_WORDS), default=None)
    return last is not None and not any(t.text.lower() in _CLAUSE_WORDS for t in gap[last + 1:])


# nouns that number things ("section 2", "day 3"): the number after them names the thing
_LABEL_NOUNS = {"section", "sections", "day", "week", "month", "level", "round", "page", "chapter", "floor", "room",
                "row", "part", "team", "grade", "game", "test", "quiz", "stage", "phase", "lap", "class", "group",
                "box", "bag", "shelf", "option", "plan", "route", "trip", "season", "semester", "period", "store",
                "house", "question", "problem", "exercise", "batch", "tank", "bucket", "jar", "pile", "stack",
                # "the top 3 = 90, 85, 80", "the last 2 = …": how many of a list, not a value
                "top", "bottom", "last", "first", "next", "best", "worst", "final", "previous",
                "combination", "code", "pin", "password"}


def _label_number(gap: Sequence[Tok], tokens: Sequence[Tok]) -> bool:
    """`Remaining 10 = …`, `Weeks 1-2 = …`, `section 2 = x + 200`: a capitalised word (not a connective) or
    a numbering noun right before a lone number or a glued range that is the whole first side: the number
    is part of the label."""
    if not gap or gap[-1].kind != "word":
        return False
    word = gap[-1].text
    if not (word.lower() in _LABEL_NOUNS or (word[:1].isupper() and word.lower() not in _CONNECTIVES)):
        return False
    if len(tokens) >= 2 and tokens[0].kind == "num" and tokens[1].kind == "rel":
        return True
    if len(tokens) >= 3 and tokens[0].kind == "num" and tokens[1].text == "%" and tokens[2].kind == "rel":
        return True  # "the top 10% = 0.1 * 200", "Tax 10% = …": which part, not a value
    k = 0  # a glued range or code: `1-2`, `3-5-7`
    while k + 2 < len(tokens) and tokens[k].kind == "num" and tokens[k + 1].kind == "op" and tokens[k + 1].text == "-" \
            and tokens[k + 2].kind == "num" and not tokens[k + 1].space and not tokens[k + 2].space:
        k += 2
    return k > 0 and k + 1 < len(tokens) and tokens[k + 1].kind == "rel"


def split_runs(tokens: Sequence[Tok], origin: Origin) -> list[Run]:
    """Maximal stretches of maths tokens; words, sentence punctuation and top-level commas end them.

    A run is cut on the left when words separate it from an operator (`7 gallons + Cynthia's 8 = 15`:
    the 8 is not the whole left side), or when it continues a list of numbers (`13,15,17&19 = 4`); cut on
    the right when an operator follows the words after it (`12 = 5 + 3 apples + 4 apples`). A line break
    right before a relation symbol continues the run (`x &= 3 + 4 \\\\ &= 7`: the 7 is 3 + 4's value). Each run
    keeps the words around it in its clause, for the hazards `relations_of_run` checks."""
    runs: list[Run] = []
    current: Run | None = None
    depth = 0
    gap: list[Tok] = []  # the split tokens since the last run closed
    starts: list[int] = []  # where each run starts in `tokens`
    for index, tok in enumerate(tokens):
        if tok.kind == "break" and current is not None and tok.text in ("\n", "\\\\") \
                and is_value_end(current.tokens[-1]) and _next_is_relation(tokens, index + 1):
            continue  # a displayed derivation goes on at the next line's relation symbol
        if tok.kind in _SPLIT_KINDS or (tok.kind == "comma" and depth <= 0):
            if current is not None:
                runs.append(current)
                current, depth, gap = None, 0, []
            gap.append(tok)
            continue
        if current is None:
            current = Run([], origin)
            starts.append(index)
            words_only = bool(gap) and all(t.kind == "word" for t in gap)
            before = runs[-1].tokens[-1] if runs else None
            if words_only and tok.kind == "op" and tok.text in ("+", "-", "*", "/", "^"):
                current.cut_left = tok.text != "-" or gap[-1].text.lower() not in UNARY_AFTER_WORDS
                if runs and current.cut_left:
                    runs[-1].cut_right = True
            else:
                after_operator = words_only and before is not None and (
                    (before.kind == "op" and before.text in ("+", "-", "*", "/", "^")
                     and not any(t.text.lower() in _CLAUSE_WORDS for t in gap))
                    or _operator_in_gap(gap))
                in_list = before is not None and before.kind == "num" and tok.kind == "num" and len(gap) == 1 \
                    and gap[0].text in (",", "&", ":") and not tok.space and gap[0].start == before.end
                current.cut_left = after_operator or in_list
            bounded = any(t.kind in _BOUNDARY_KINDS for t in gap)
            last_boundary = max((k for k, t in enumerate(gap) if t.kind in _BOUNDARY_KINDS), default=-1)
            current.before = gap[last_boundary + 1:]
            if runs and not bounded:
                current.prev_end = runs[-1].tokens[-1]
                current.prev_relation = any(t.kind == "rel" for t in runs[-1].tokens)
                current.prev_number = any(t.kind == "num" for t in runs[-1].tokens)
                current.prev_before = [t.text.lower() for t in runs[-1].before if t.kind == "word"]
                runs[-1].next_start = tok
            if runs:
                first_boundary = next((k for k, t in enumerate(gap) if t.kind in _BOUNDARY_KINDS), len(gap))
                runs[-1].after = gap[:first_boundary]
                previous = runs[-1].tokens[-1]
                runs[-1].glued_comma = len(gap) == 1 and gap[0].kind == "comma" and previous.kind == "num" \
                    and tok.kind == "num" and gap[0].start == previous.end and tok.start == gap[0].end
        depth += {"lp": 1, "rp": -1}.get(tok.kind, 0)
        current.tokens.append(tok)
    if current is not None:
        runs.append(current)
    elif runs:
        first_boundary = next((k for k, t in enumerate(gap) if t.kind in _BOUNDARY_KINDS), len(gap))
        runs[-1].after = gap[:first_boundary]
    for k, (run, start) in enumerate(zip(runs, starts)):
        run.label = start > 0 and _label_number(tokens[start - 1:start], run.tokens)
        if run.next_start is not None and k + 1 < len(runs):
            run.next_tokens = runs[k + 1].tokens
    return runs


def _next_is_relation(tokens: Sequence[Tok], i: int) -> bool:
    while i < len(tokens) and tokens[i].kind == "break" and tokens[i].text in ("\n", "\\\\"):
        i += 1
    return i < len(tokens) and tokens[i].kind == "rel"


_FUNCTION_LETTERS = {"f", "g", "h", "F", "G", "H", "P", "Q"}


def _function_atoms(tokens: list[Tok]) -> list[Tok]:
    """`f(0)`, `g(x)`, `P(-1)`: function notation, not a product. A value at a number or a name becomes one
    opaque name (`f_of_0`, `g_of_x`, `P_of_m1`), so `f(0) = 6` and a later `f(0) + 1 = 7` agree; any other
    argument makes the side unreadable (a note) rather than misread as `f*(…)`, and so does a subscripted name
    glued to a bracket (`v_2(8)`)."""
    out: list[Tok] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        if tok.kind == "lp" and i + 3 < len(tokens) and tokens[i + 1].kind == "name" and "_" in tokens[i + 1].text \
                and tokens[i + 2].kind == "rp" and tokens[i + 3].kind == "lp":
            # `{v_2}(8)`: the braces LaTeX groups the name in change nothing
            out.append(Tok("unsup", f"{tokens[i + 1].text}(…)", tok.start, tokens[i + 2].end, tok.space))
            i += 3
            continue
        before_bracket = tok.kind == "name" and nxt is not None and nxt.kind == "lp"
        if before_bracket and "_" in tok.text and tok.text not in _FUNCTION_LETTERS:
            # `v_2(8)`, `v_2 (8)`: a subscripted name before a bracket may be a function (the 2-adic valuation) as
            # well as a product; read as v_2·8 it was refuted (omnimath-560): neither reading is taken
            out.append(Tok("unsup", f"{tok.text}(…)", tok.start, tok.end, tok.space))
            i += 1
            continue
        if not (before_bracket and nxt is not None and not nxt.space and tok.text in _FUNCTION_LETTERS):
            out.append(tok)
            i += 1
            continue
        depth, j = 0, i + 1
        while j < len(tokens):
            depth += {"lp": 1, "rp": -1}.get(tokens[j].kind, 0)
            if depth == 0:
                break
            j += 1
        inner = [t.text for t in tokens[i + 2:j]]
        arg = "m" + inner[1] if len(inner) == 2 and inner[0] == "-" else inner[0] if len(inner) == 1 else ""
        end = tokens[min(j, len(tokens) - 1)].end
        if re.fullmatch(r"m?[A-Za-z0-9_]+", arg):
            out.append(Tok("name", f"{tok.text}_of_{arg}", tok.start, end, tok.space))
        else:
            out.append(Tok("unsup", f"{tok.text}(…)", tok.start, end, tok.space))
        i = j + 1
    return out


def _tight_fractions(tokens: list[Tok], origin: Origin) -> list[Tok]:
    """`25 / 1/3 = 75`: after a spaced `/`, a glued fraction `1/3` is one number (25 ÷ (1/3)). In prose,
    `14 / 1 / 4` is 14 ÷ (1/4) however it is spaced: nobody divides by 1, so `1 / 4` is the written fraction
    (calculator annotations keep their literal left-to-right reading)."""
    out: list[Tok] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        prev = out[-1] if out else None
        if (prev is not None and prev.kind == "op" and prev.text == "/" and i + 2 < len(tokens)
                and tok.kind == "num" and tokens[i + 1].kind == "op" and tokens[i + 1].text == "/"
                and tokens[i + 2].kind == "num" and (
                    (not tokens[i + 1].space and not tokens[i + 2].space and (tok.space or prev.space))
                    or (origin == "text" and tok.text == "1"))):
            out.extend([Tok("lp", "(", tok.start, tok.start, tok.space), replace(tok, space=False), tokens[i + 1],
                        tokens[i + 2], Tok("rp", ")", tokens[i + 2].end, tokens[i + 2].end)])
            i += 3
            continue
        out.append(tok)
        i += 1
    return out


def _fraction_group(out: Sequence[Tok]) -> bool:
    """The tokens end with a bracketed fraction `(1/2)`."""
    return len(out) >= 5 and [t.kind for t in out[-5:]] == ["lp", "num", "op", "num", "rp"] and out[-3].text == "/"


def implicit_products(tokens: list[Tok], origin: Origin) -> list[Tok]:
    """Insert `*` for `2k`, `3(x+1)`, `)(`, `x²y` (glued); in LaTeX also across spaces (`2 x`, `xy`). In prose
    across a space only where nothing else is meant: `(1/2) 1956` (a bracketed fraction before a number) and
    `15 j = …`, `4 W^2` (a number, then a letter that an operator or relation follows), and `J = 4 N` (a
    capital letter ending the run)."""
    out: list[Tok] = []
    for i, tok in enumerate(tokens):
        prev = out[-1] if out else None
        if prev is not None and is_value_end(prev) and tok.kind in VALUE_START:
            glued = not tok.space
            numbers = prev.kind == "num" and tok.kind == "num"
            nxt = tokens[i + 1] if i + 1 < len(tokens) else None
            spaced = origin == "text" and (
                (tok.kind == "num" and _fraction_group(out))
                or (prev.kind == "num" and tok.kind == "name" and len(tok.text) == 1 and tok.text not in PROSE_LETTERS
                    and ((nxt is not None and (nxt.kind == "rel" or (nxt.kind == "op" and nxt.text in "+-^")))
                         or (nxt is None and tok.text.isupper()))))
            if spaced or (not numbers and (glued or origin == "latex") and not (prev.kind == "name" and tok.kind == "num")):
                out.append(Tok("op", "*", tok.start, tok.start))
        out.append(tok)
    return out


def _apply_functions(tokens: list[Tok]) -> list[Tok] | None:
    """Give `\\sin x`, `√2`, `∛8` their parentheses; None when an argument cannot be delimited."""
    out: list[Tok] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok.kind != "func":
            out.append(tok)
            i += 1
            continue
        name = {"cbrt": "root", "root4": "root"}.get(tok.text, tok.text)
        degree = {"cbrt": "3", "root4": "4"}.get(tok.text)
        base = None
        if name.startswith("log_"):  # `\\log_2 8`: log(8, 2)
            name, base = "log", name[4:]
        # `\\sin^2 x` is (sin x)², and only a whole exponent of 2 or more says so (`\\sin^{-1}` is arcsin)
        power = _function_power(tokens, i + 1) if degree is None and base is None else None
        if power is not None:
            out.append(Tok("lp", "(", tok.start, tok.start))
        out.append(replace(tok, text=name))
        j = i + 1 if power is None else power[1]
        if j < len(tokens) and tokens[j].kind == "lp" and degree is None and base is None and power is None:
            i += 1
            continue
        # the argument: the next atom (number, name or parenthesised group), with a glued degree sign
        if j < len(tokens) and tokens[j].kind == "lp":
            depth = 0
            for k in range(j, len(tokens)):
                depth += {"lp": 1, "rp": -1}.get(tokens[k].kind, 0)
                if depth == 0:
                    break
            else:
                return None
            arg = tokens[j:k + 1]
        elif j < len(tokens) and tokens[j].kind in ("num", "name"):
            k = j
            arg = [tokens[j]]
            if k + 1 < len(tokens) and tokens[k + 1].kind == "unit" and tokens[k + 1].unit == "degree":
                k += 1
                arg.append(tokens[k])
            if k + 2 < len(tokens) and _implicit(tokens[k + 1]) and tokens[k + 2].kind in ("num", "name"):
                return None  # `\\sin 2x`, `\\ln 2x`: the argument is 2x by convention, never sin(2)·x; not read
            if k + 2 < len(tokens) and tokens[k + 1].kind == "op" and (tokens[k + 1].text == "^" or (
                    tokens[k + 1].text == "/" and tokens[k + 2].kind in ("num", "name"))):
                return None  # `\\log_2 2^{10}`, `\\cot \\pi/4`: the power or fraction may be the argument; not read
        else:
            return None
        anchor = tokens[j].start
        out.append(Tok("lp", "(", anchor, anchor))
        out.extend(arg)
        if degree:
            out.extend([Tok("comma", ",", anchor, anchor), Tok("num", degree, anchor, anchor)])
        if base:
            out.extend([Tok("comma", ",", anchor, anchor),
                        Tok("num" if base[0].isdigit() else "name", base, anchor, anchor)])
        end = tokens[k].end
        out.append(Tok("rp", ")", end, end))
        if power is not None:
            out.extend([Tok("rp", ")", end, end), Tok("op", "^", end, end), Tok("num", power[0], end, end)])
        i = k + 1
        if i < len(tokens) and tokens[i].kind == "func":
            out.append(Tok("op", "*", end, end))  # `\\cos 10^\\circ \\cos 50^\\circ`: a product of the two
    return out


def _implicit(tok: Tok) -> bool:
    """A product `implicit_products` inserted (it has no width in the text)."""
    return tok.kind == "op" and tok.text == "*" and tok.start == tok.end


def _function_power(tokens: Sequence[Tok], j: int) -> tuple[str, int] | None:
    """(exponent, index after it) when a function's name carries a whole power of 2 or more (`\\sin^2`,
    `\\tan^{3}`); None otherwise."""
    if not (j + 1 < len(tokens) and tokens[j].kind == "op" and tokens[j].text == "^"):
        return None
    if tokens[j + 1].kind == "num":
        exponent, after = tokens[j + 1].text, j + 2
    elif j + 3 < len(tokens) and tokens[j + 1].kind == "lp" and tokens[j + 2].kind == "num" \
            and tokens[j + 3].kind == "rp":
        exponent, after = tokens[j + 2].text, j + 4
    else:
        return None
    if after < len(tokens) and _implicit(tokens[after]):
        after += 1  # the product `implicit_products` put between the power and the argument
    return (exponent, after) if exponent.isdigit() and int(exponent) >= 2 else None


def render(tokens: Sequence[Tok], trig: bool) -> str:
    """Artifact text of a side; units vanish, except degrees inside trigonometry (→ ·π/180)."""
    parts: list[str] = []
    for tok in tokens:
        if tok.kind == "unit":
            if trig and tok.unit == "degree":
                parts.append("*(pi/180)")
            continue
        if tok.kind == "unsup" or trig and tok.kind == "name" and tok.text.startswith("angle_"):
            # (an angle's name inside a trigonometric function: degrees or radians, its value does not say)
            parts.append(f"\\{tok.text.lstrip(chr(92))}")  # never parses: the note quotes it
            continue
        parts.append({"[": "(", "]": ")"}.get(tok.text, tok.text))
    return " ".join(parts)


def _unit_clash(lhs: Sequence[Tok], rhs: Sequence[Tok]) -> str | None:
    """Why a pair compares quantities in different units of one dimension (a conversion), else None."""
    def converted(side: Sequence[Tok]) -> set[str]:
        # a side with a conversion factor ("12 hours * 60 minutes per hour") is in the factor's unit
        targets = {t.unit[5:] for t in side if t.kind == "num" and t.unit and t.unit.startswith("conv:")}
        return targets or {t.unit for t in side if t.kind == "num" and t.unit and t.unit not in ("rate", "per")}

    rates = [t for t in (*lhs, *rhs) if t.kind == "num" and t.unit == "rate"]
    if len(rates) > 1 and (any(r.per is None for r in rates) or len({r.per for r in rates}) > 1):
        # `$12/hour = $0.20/minute`, `60 km/h = 1 km/min`: rates per different units (or per what the reader
        # cannot tell) compared as bare numbers would make a conversion false and a wrong one true
        return f"it converts rates ({', '.join(sorted({f'per {r.per}' if r.per else 'per an unknown unit' for r in rates}))})"
    if (clash := _rate_factor_clash(lhs, rhs)) is not None:
        return clash
    for rate in (t for t in (*lhs, *rhs) if t.kind == "num" and t.per):
        dimension = _dimension_of(rate.per or "")
        for tok in (*lhs, *rhs):
            if tok.kind == "num" and tok.unit and tok.unit not in ("rate", "per") and not tok.unit.startswith("conv:") \
                    and _dimension_of(tok.unit) == dimension and tok.unit != rate.per:
                # `5 km per hour * 30 minutes = 2.5 km`: the minutes become hours on the way, unwritten
                return f"it converts units (a rate per {rate.per} applied to {tok.unit})"
    if any(t.kind == "num" and t.unit and t.unit.startswith("conv:") for t in (*lhs, *rhs)):
        left_units, right_units = converted(lhs), converted(rhs)
        if left_units and right_units and left_units != right_units:
            return f"it converts units ({', '.join(sorted(left_units | right_units))})"
        in_lhs = any(t.kind == "num" and t.unit and t.unit.startswith("conv:") for t in lhs)
        other = rhs if in_lhs else lhs
        if sum(t.kind == "num" for t in other) > 1:
            # `7 minutes x 60 seconds per minute = 420 seconds + 23 seconds`: the conversion is compared with a
            # computation that goes on (a running total), not with the converted quantity
            return "it converts units into a computation that goes on"
        return None
    units: dict[str, set[str]] = {}
    for tok in (*lhs, *rhs):
        if tok.unit and tok.unit not in ("rate", "per") and tok.kind == "num":
            dim = next((d for d, c in UNITS.values() if c == tok.unit), tok.unit)
            units.setdefault(dim, set()).add(tok.unit)
    for seen in units.values():
        if len(seen) > 1:
            return f"it converts units ({', '.join(sorted(seen))})"

    def lone(side: Sequence[Tok]) -> Tok | None:
        values = [t for t in side if t.kind != "unit"]
        return values[0] if len(values) == 1 and values[0].kind == "num" else None

    left, right = lone(lhs), lone(rhs)
    if left and right and (left.unit == "rate") != (right.unit == "rate"):
        return "it equates a rate with a quantity"  # `$36/dozen = $3 each`: a unit conversion, unwritten
    if left and right and (left.unit or right.unit) and left.unit != right.unit and "rate" not in (left.unit, right.unit):
        return f"it relates a quantity in {left.unit or 'no unit'} to one in {right.unit or 'no unit'}"
    if left and left.unit and left.unit != "rate" and _dimension_of(left.unit) != "money" \
            and not any(t.unit for t in rhs if t.kind == "num"):
        # `2 kg = 2 * 1000`, `14 hours = 14 * 60`: a quantity with a unit equated to a bare computation
        # (money is exempt: `$450 = 15*x` writes the currency on the total only)
        return f"it converts a quantity in {left.unit} into a computation without units"
    return None


def _tuple_pairs(lhs: Sequence[Tok], rhs: Sequence[Tok]) -> list[tuple[list[Tok], list[Tok]]] | None:
    """`(p, q) = (2, 5)` as the pairs p = 2, q = 5 (None unless both sides are tuples of one length)."""
    def items(side: Sequence[Tok]) -> list[list[Tok]] | None:
        if len(side) < 5 or side[0].kind != "lp" or side[-1].kind != "rp":
            return None
        parts: list[list[Tok]] = [[]]
        depth = 0
        for tok in side[1:-1]:
            depth += {"lp": 1, "rp": -1}.get(tok.kind, 0)
            if depth < 0:
                return None
            if tok.kind == "comma" and depth == 0:
                parts.append([])
            else:
                parts[-1].append(tok)
        return parts if len(parts) > 1 and all(parts) else None

    left, right = items(lhs), items(rhs)
    if left is None or right is None or len(left) != len(right):
        return None
    return list(zip(left, right))


def _bracketed(side: Sequence[Tok]) -> bool:
    """A whole side in square brackets, `[22.8] = 22`: brackets may mean the integer part, so not read."""
    if len(side) < 3 or side[0].kind != "lp" or side[-1].kind != "rp" or side[0].text != "[":
        return False
    depth = 0
    for k, tok in enumerate(side):
        depth += {"lp": 1, "rp": -1}.get(tok.kind, 0)
        if depth == 0:
            return k == len(side) - 1
    return False


def _parse_side(tokens: list[Tok], trim_left: bool, trim_right: bool, trig: bool) -> tuple[Node, list[Tok]] | None:
    """Parse a side; at a run's outer edge, drop a stray prose letter (`= 8 a day`) if that makes it parse.
    Only the prose letters a, A, I: any other letter after a number may be an unknown (`= 7 y`) or a unit."""
    candidates = [tokens]
    if trim_right and len(tokens) > 1 and tokens[-1].kind == "name" and tokens[-1].space \
            and tokens[-1].text in PROSE_LETTERS:
        candidates.append(tokens[:-1])
    if trim_left and len(tokens) > 2 and tokens[0].kind == "num" and tokens[1].kind == "unit" and tokens[1].text != "$" \
            and tokens[2].kind == "num" and tokens[2].space:
        candidates.append(tokens[2:])  # "During 5 days 2 * 12 * 5 = 120": "5 days" is the prose's, not an operand
    if trim_left and len(tokens) > 1 and tokens[0].kind == "name" and tokens[1].space and tokens[0].text in PROSE_LETTERS:
        candidates.append(tokens[1:])
    for side in candidates:
        if not any(t.kind != "unit" for t in side):
            return None
        if _bracketed(side):
            return None
        try:
            return parse_expression(render(side, trig)), side
        except ExpressionError:
            continue
    return None


# ---- hazards: prose around a run that changes what its edge sides say -------------------------------------
# Words are not maths tokens, so a run never holds them; but a word right before a run's first side or right
# after its last one can change that side's value ("half of 12 = 6", "twice 5 = 10", "= 3 dozen", "= 7 or 6").
# The word operators the reader reads exactly become operators in `tokens.read_words`; any other such word
# leaves the side unread, so the relation is neither verified nor failed on a reading the text does not make.
_FRACTION_WORDS = {
    "half", "halves", "third", "thirds", "quarter", "quarters", "fourth", "fourths", "fifth", "fifths", "sixth",
    "sixths", "seventh", "sevenths", "eighth", "eighths", "ninth", "ninths", "tenth", "tenths", "twelfth", "twelfths",
    "hundredth", "hundredths", "thousandth", "thousandths",
}
_NUMBER_WORDS = {
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
    "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty", "thirty", "forty",
    "fifty", "sixty", "seventy", "eighty", "ninety", "hundred", "thousand", "million", "billion", "trillion",
}
# a word that operates on the number right after it, wherever it stands
# a function written as a word in plain text ("sin x = √2 cos y"): the value beside it is its argument or a factor
_FUNCTION_WORDS = ("sin", "cos", "tan", "cot", "sec", "csc", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh",
                   "ln", "exp", "lg")
_BEFORE_ALWAYS = _FRACTION_WORDS | _NUMBER_WORDS | {
    "twice", "double", "doubled", "triple", "tripled", "thrice", "quadruple", "quadrupled", "times", "minus",
    "negative", "square", "squared", "cube", "cubed", "root", "sqrt", "reciprocal", "inverse", "opposite", "dozen",
    "dozens", "score", "mod", "modulo", "factorial", "log", "logarithm", "power", "exponent", "halve", "halving",
    "halved", "doubling", "tripling", "squaring", "cubing", "negate", "negating", "invert", "inverting", "choose",
} | set(_FUNCTION_WORDS)
# "the sum of the squares 3 + 4 = 25": the numbers after a plural operator noun may be what it applies to
_OPERATOR_PLURALS = {"squares", "cubes", "roots", "reciprocals", "inverses", "powers", "logs", "logarithms",
                     "factorials", "halves", "doubles", "opposites", "negatives"}
# a word that joins the number before it to the number after it ("5 and 3", "12 by 4", "5 more than 3"), with
# how many words may stand between them ("more than", "out of": two)
_BEFORE_JOINING = {"and": 1, "to": 1, "by": 1, "from": 2, "away": 2, "than": 2, "over": 1, "into": 1, "of": 2, "per": 1,
                   "plus": 1, "less": 1, "more": 1, "fewer": 1, "off": 1, "versus": 1, "vs": 1, "x": 1}
_COPULAS = {"is", "are", "was", "were", "equals", "equal", "be", "makes", "gives"}
# words that end a clause or start one: after them a number starts a new statement, not an operand
_STARTS_CLAUSE = _COPULAS | _CLAUSE_WORDS | {
    "and", "or", "but", "since", "as", "get", "gets", "got", "give", "yields", "yield", "that", "where", "when", "if",
    "we", "i", "you", "it", "this", "giving", "leaves", "leaving", "making", "becomes", "with", "let", "now", "here",
    "there"}
# a preposition that ends an operator phrase ("raised to 3", "added to 5"); two words ending otherwise ("12 pencils
# hold 3 × 12") are a noun and a verb: a new statement
_LINKING = {"to", "by", "into", "over", "from", "with", "under", "on"}
# "the sum of 5 and 3 = 8": after these, "and" joins two operands; elsewhere it joins clauses
_PAIR_NOUNS = {"sum", "difference", "product", "quotient", "ratio", "between", "average", "mean", "total", "both"}
# a word after a number that changes the value it states ("3 dozen", "4 squared", "5 halves", "3 point 5",
# "3 over 4"); "quarters" are coins as often as fourths, and a spoken alternative or range ("= 6 or 7",
# "= 8 to 10") only weakens the claim, so reading its first value stays sound
_AFTER_ALWAYS = {"squared", "cubed", "factorial", "rounded", "floored", "truncated", "inverted", "negated",
                 "reversed", "fold"} | (SCALE_WORDS - {"percent", "percents", "percentage", "percentages"}) \
    | {w for w in _FRACTION_WORDS if w.endswith("s") and w != "quarters"}
# a word after a number that joins it to the next number ("3 over 4", "3 out of 4", "3 point 5", "1 mod 3"),
# with how many words may stand between; before prose ("a = 4 into the equation") it changes nothing
_AFTER_JOINING = {"over": 1, "into": 1, "out": 2, "point": 1, "plus": 1, "minus": 1, "mod": 1, "modulo": 1, "by": 1,
                  "choose": 1}
_LATEX_WORDS = re.compile(r"\\(?:text[a-z]*|math(?:rm|it|bf|sf)|mbox|operatorname)\s*\{")
# after "N times", a ratio or a frequency ("16 times as fast", "42 times a week"): N is the value stated
_TIMES_AS_COUNT = {"as", "a", "an", "per", "each", "every", "less", "more", "faster", "slower", "bigger", "larger",
                   "smaller", "higher", "lower", "longer", "shorter", "greater", "cheaper", "heavier", "lighter",
                   "over", "in", "during", "before", "after", "total", "altogether", "now", "today"}
_SKIP_BEFORE = {"the", "a", "an"}
_ORDINAL_SUFFIX = re.compile(r"st|nd|rd|th|s|'s|’s")
_DETERMINERS = {"the", "first", "second", "last", "other", "this", "that", "his", "her", "their", "its", "our", "my",
                "your", "each", "every", "next", "same"}
_FILLER = {"the", "a", "an", "about", "around", "approximately", "roughly", "nearly", "almost", "circa", "approx",
           "exactly", "only", "just", "at", "least", "most", "up", "under", "some", "total", "sum", "another",
           "additional", "extra", "precisely", "close", "like", "maybe", "perhaps", "possibly", "probably"}
_APPROXIMATE = {"about", "around", "approximately", "roughly", "nearly", "almost", "circa", "approx", "some",
                "least", "most", "over", "under", "exactly", "just", "only"}


def _words(tokens: Sequence[Tok]) -> list[str]:
    return [t.text.lower() for t in tokens if t.kind == "word"]


def _adjacent_before(run: Run, limit: int) -> bool:
    """The previous run is a lone quantity (no relation of its own: `5 and 3 = 8`, not `x = 3 and y = 4`)
    ending with a value, and at most `limit` words of this clause come between."""
    prev = run.prev_end
    return prev is not None and not run.prev_relation and run.prev_number and (is_value_end(prev) or prev.kind == "unit") \
        and len(run.before) <= limit


def _left_hazard(run: Run) -> str | None:
    """A word before the run that changes its first side's value (why), else None."""
    words = _words(run.before)
    k = len(words) - 1
    while k >= 0 and words[k] in _SKIP_BEFORE | {"of"}:
        k -= 1
    # "the second half 4 * 85": a noun, not an operator; but "the root of 49" applies it to the number
    noun = k > 0 and words[k - 1] in _DETERMINERS and "of" not in words[k + 1:] and words[k] not in _OPERATOR_PLURALS
    if k >= 0 and words[k] in _OPERATOR_PLURALS:
        return f"\"{words[k]}\" before it may name what it is computed from"  # "the squares 3 + 4 = 25"
    if k >= 0 and not noun and (words[k] in _BEFORE_ALWAYS or any(part in _BEFORE_ALWAYS
                                                                 for part in words[k].split("-"))):
        return f"\"{words[k]}\" before it changes its value"
    if words and words[-1] in _BEFORE_JOINING and _adjacent_before(run, _BEFORE_JOINING[words[-1]]) \
            and not _COPULAS & set(words) and (words[-1] != "and" or _PAIR_NOUNS & set(run.prev_before[-3:])):
        return f"\"{' '.join(words)}\" joins it to the number before"
    sides = _sides_of(run.tokens)
    lone = [_lone_value(side) for side in sides[:2]] if len(sides) >= 2 else []
    if words and words[-1] in ("for", "at") and lone and lone[0] is not None:
        # "3 shirts for $5 = $15", "4 hours at $12/hour = 4 × 12": the price or rate of a count, compared with
        # what the count costs
        return f"\"{words[-1]}\" before it makes it the price or rate of what comes before"
    if len(lone) == 2 and None not in lone and lone[0] != lone[1] and _adjacent_before(run, 3):
        # "She had 10 but gave 3 = 7 left": the number before is the left side the words cut off
        return f"\"{' '.join(words)}\" stands between it and the number before, which may be its left side"
    if words and len(run.before) <= 2 and _adjacent_before(run, 2) and not set(words) & _STARTS_CLAUSE \
            and (len(words) == 1 or words[-1] in _LINKING) and run.prev_end is not None \
            and run.prev_end.kind == "num" and run.prev_end.unit is None:  # ("1 inch represents 4 * 8": a quantity)
        # "9 choose 3 = 84", "2 raised to 3 = 8", "12 divides 36": a word the reader does not know, standing
        # between two numbers, may be the operator that joins them
        return f"\"{' '.join(words)}\" between it and the number before may join them"
    return None


def _lone_value(side: Sequence[Tok]) -> str | None:
    """The number a side is, when it is one number and units (`$5`, `7 apples`), else None."""
    values = [t for t in side if t.kind != "unit"]
    return values[0].text if len(values) == 1 and values[0].kind == "num" else None


def _right_hazard(run: Run) -> str | None:
    """A word after the run that changes its last side's value (why), else None."""
    words = _words(run.after)
    if not words:
        return None
    first = words[0]
    glued = run.after[0]
    if run.tokens and glued.kind == "word" and glued.start == run.tokens[-1].end and word_unit(glued.text) is None \
            and not _ORDINAL_SUFFIX.fullmatch(first):
        return f"\"{glued.text}\" glued after it may be factors of its value (\"2πrh\")"
    if first in _AFTER_ALWAYS or any(part in _AFTER_ALWAYS for part in first.split("-")[1:]):
        return f"\"{first}\" after it changes its value"
    if first in _FUNCTION_WORDS:
        return f"\"{first}\" after it multiplies it by a function's value"
    if first in _AFTER_JOINING and len(words) <= _AFTER_JOINING[first] and run.next_start is not None \
            and run.next_start.kind in VALUE_START:
        return f"\"{' '.join(words)}\" after it joins it to the next number"
    if first == "times" and len(words) > 1 and words[1] not in _TIMES_AS_COUNT:
        return f"\"times {words[1]}\" after it multiplies it by prose"
    if first in ("more", "less", "fewer") and words[1:] == ["than"] and run.next_start is not None \
            and run.next_start.kind in VALUE_START:
        return f"\"{first} than\" a number after it makes it a difference"
    if first == "and" and len(words) > 1 and (words[1] in _FRACTION_WORDS or (
            len(words) > 2 and words[1] in _NUMBER_WORDS | {"a", "an"} and words[2] in _FRACTION_WORDS)
            or any(part in _FRACTION_WORDS for part in words[1].split("-"))):
        return f"\"and {' '.join(words[1:3])}\" after it adds a fraction"
    return None


# ---- units ------------------------------------------------------------------------------------------------------
# one-letter unit symbols ("3 m", "5 g", "2 h"): a letter that may also be an unknown
_UNIT_LETTERS = {"m": "meter", "g": "gram", "s": "second", "h": "hour", "l": "liter", "L": "liter"}
# one-letter symbols of SI units (volt, ampere, watt, newton, joule, coulomb, farad, kelvin, tesla, henry,
# siemens, ohm, gray, weber's W is the watt's)
_SI_SYMBOLS = frozenset("VAWNJCFKTHSΩ")


def _terms(side: Sequence[Tok]) -> list[list[Tok]]:
    """A side cut at its top-level binary + and - (its additive terms)."""
    terms: list[list[Tok]] = [[]]
    depth = 0
    for k, tok in enumerate(side):
        depth += {"lp": 1, "rp": -1}.get(tok.kind, 0)
        binary = k > 0 and is_value_end(side[k - 1]) or (k > 0 and side[k - 1].kind == "unit")
        if depth == 0 and tok.kind == "op" and tok.text in ("+", "-") and binary:
            terms.append([])
        else:
            terms[-1].append(tok)
    return [t for t in terms if t]


def _sides_of(tokens: Sequence[Tok]) -> list[list[Tok]]:
    sides: list[list[Tok]] = [[]]
    depth = 0
    for tok in tokens:
        depth += {"lp": 1, "rp": -1}.get(tok.kind, 0)
        if tok.kind == "rel" and depth == 0:
            sides.append([])
        else:
            sides[-1].append(tok)
    return sides


def _term_index(tokens: Sequence[Tok]) -> list[tuple[int, int]]:
    """For each token, (side, additive term) it belongs to (relation symbols and top-level + and - belong to
    the next side or term)."""
    where: list[tuple[int, int]] = []
    side = term = depth = 0
    for k, tok in enumerate(tokens):
        depth += {"lp": 1, "rp": -1}.get(tok.kind, 0)
        if depth == 0 and tok.kind == "rel":
            side, term = side + 1, 0
        elif depth == 0 and tok.kind == "op" and tok.text in ("+", "-") and k > 0 and (
                is_value_end(tokens[k - 1]) or tokens[k - 1].kind == "unit"):
            term += 1
        where.append((side, term))
    return where


def _unit_letters(tokens: list[Tok], found: Found) -> tuple[list[Tok], set[str]]:
    """`3 m + 3 m = 7 m`, `400g / 200g = 2`: a unit letter right after every number it follows is a unit,
    never an unknown that makes a false relation true. When every additive term of every side holds it to
    one power (3 m, 7 m: 1; 400g/200g, 2: 0), the relation compares magnitudes in that unit (3 + 3 = 7: false).
    Spaced from its number at the end of a side (`= 2000 g`), it is a unit too. Otherwise, where it is spaced
    from its numbers, the reading is open (the letters returned); glued (`3m = 12`), it stays an unknown."""
    doubtful: set[str] = set()
    for letter, unit in _UNIT_LETTERS.items():
        spots = [k for k, t in enumerate(tokens) if t.kind == "name" and t.text == letter]
        if not spots or letter in found.variables or not all(
                k > 0 and tokens[k - 1].kind == "num" and not (
                    k + 1 < len(tokens) and tokens[k + 1].kind == "op" and tokens[k + 1].text == "^") for k in spots):
            continue
        where = _term_index(tokens)
        powers: dict[tuple[int, int], int] = {place: 0 for place, tok in zip(where, tokens)
                                              if tok.kind not in ("rel",) and not (tok.kind == "op" and tok.text in "+-")}
        for k in spots:
            divided = k >= 2 and tokens[k - 2].kind == "op" and tokens[k - 2].text == "/"
            powers[where[k]] = powers.get(where[k], 0) + (-1 if divided else 1)
        # `= 2000 g`: spaced from its number and ending a side, a unit letter reads as prose writes units
        at_ends = all(tokens[k].space and (k + 1 == len(tokens) or tokens[k + 1].kind == "rel") for k in spots)
        if len(set(powers.values())) == 1 or at_ends:
            out = list(tokens)
            for k in spots:
                out[k - 1] = replace(out[k - 1], unit=unit)
                out[k] = replace(out[k], kind="unit", unit=unit)
            tokens = out
        elif any(tokens[k].space for k in spots):
            doubtful.add(letter)
    # `= 12 V`, `= 58.8 N` ending a side: an SI unit's symbol, or the quantity the text names by that capital
    # (V = I·R, N boxes) as a factor; which one is not written
    # (glued before a relation, `2A = 10`, it is a coefficient's unknown)
    doubtful |= {tok.text for k, tok in enumerate(tokens) if tok.kind == "name" and tok.text in _SI_SYMBOLS and k > 0
                 and tokens[k - 1].kind == "num" and (k + 1 == len(tokens) or tok.space and tokens[k + 1].kind == "rel")}
    return tokens, doubtful


# speeds written as one word: a rate per hour
_SPEEDS = {"mph": "hour", "kph": "hour"}


def _rate_factor_clash(lhs: Sequence[Tok], rhs: Sequence[Tok]) -> str | None:
    """Why a product applies a rate to a factor not counted in the rate's denominator (`3 boots * $60/shoe`,
    `12 eggs/carton * 60 eggs`, `$15/meter * $450`, `60 mph * 30 minutes`), else None: what converts one into the
    other is unwritten, so the bare product may be the wrong computation."""
    for term in (t for side in (lhs, rhs) for t in _terms(side)):
        rates = [k for k, t in enumerate(term) if t.kind == "num" and (t.unit == "rate" and t.per or t.unit in _SPEEDS)]
        if len(rates) != 1:
            continue
        k = rates[0]
        per = term[k].per if term[k].unit == "rate" else _SPEEDS[term[k].unit or ""]
        assert per is not None
        for j, tok in enumerate(term):
            if j == k + 1 and tok.kind == "unit":
                continue  # "5 tasks/cycle": what the rate counts
            if tok.kind == "unit" and tok.unit is None and tok.text != "$" and not same_noun(tok.text.lower(), per):
                return f"it applies a rate per {per} to {tok.text}"
            if j != k and tok.kind == "num" and tok.unit and tok.unit not in ("rate", "per") \
                    and not tok.unit.startswith("conv:") and tok.unit != per:
                return f"it applies a rate per {per} to {tok.unit}"
    return None


def _dimension_of(unit: str) -> str:
    return next((d for d, c in UNITS.values() if c == unit), unit)


def _dimension_clash(lhs: Sequence[Tok], rhs: Sequence[Tok]) -> str | None:
    """Why a relation adds or compares quantities of different dimensions (`$5 + 3 hours = 8`), or a scale with
    bare numbers (`2 dozen + 6 = 8`: a bare number is not in dozens), else None."""
    dims: set[str] = set()
    bare = False
    for side in (lhs, rhs):
        for term in _terms(side):
            numbers = [t for t in term if t.kind == "num"]
            if len(numbers) == 1 and numbers[0].unit and numbers[0].unit not in ("rate", "per") \
                    and not numbers[0].unit.startswith("conv:"):
                dims.add(_dimension_of(numbers[0].unit))
            elif len(numbers) == 1 and not numbers[0].unit and not any(t.kind == "name" for t in term):
                bare = True
    if len(dims) > 1:
        return f"it adds or compares quantities of different kinds ({', '.join(sorted(dims))})"
    if dims == {"scale"} and bare:
        return "it adds a number in a scale (dozens, thousands) to a bare number"
    return None


def _converted(lhs: Sequence[Tok], rhs: Sequence[Tok], left: Node, right: Node) -> tuple[Node, str] | None:
    """`2 hours = 120 minutes`: two lone quantities in units with an exact conversion; the left side restated in
    the right side's unit (2*60) and that unit, else None."""
    def lone(side: Sequence[Tok]) -> Tok | None:
        values = [t for t in side if t.kind != "unit"]
        return values[0] if len(values) == 1 and values[0].kind == "num" else None

    a, b = lone(lhs), lone(rhs)
    if a is None or b is None or not a.unit or not b.unit or a.unit == b.unit:
        return None
    factor = conversion_factor(a.unit, b.unit)
    if factor is None:
        return None
    scaled = Binary("*", left, Num(str(factor.numerator), 0))
    if factor.denominator != 1:
        scaled = Binary("/", scaled, Num(str(factor.denominator), 0))
    return scaled, b.unit


def _range_side(side: Sequence[Tok], after: Sequence[Tok], last: bool) -> bool:
    """`3-4 hours`: a glued difference of a smaller by a larger whole number, before a word, is a range."""
    values = [t for t in side if t.kind != "unit"]
    if len(values) != 3 or values[0].kind != "num" or values[1].text != "-" or values[2].kind != "num":
        return False
    if values[1].space or values[2].space or not (values[0].text.isdigit() and values[2].text.isdigit()):
        return False
    followed = any(t.kind == "unit" for t in side) or (last and bool(after))
    return int(values[0].text) < int(values[2].text) and followed


# ---- relations of a run ------------------------------------------------------------------------------------------
_PROSE_OPERAND = "a word is an operand"  # `Darcy = 2*Dexter`, `= total/3 = 186/3`: a relation about prose


def _worded_relation(run: Run) -> str | None:
    """`5 + 3 equals about 8`, `5 + 3 is roughly 9`: an expression related in words to a number the words around
    it qualify (why it is not read), else None. A relation word the reader reads is a relation symbol already."""
    words = _words(run.after)
    last = max((k for k, t in enumerate(run.tokens) if t.kind == "rel"), default=-1)
    expression = any(t.kind == "op" and t.text in ("+", "-", "*", "/", "^") for t in run.tokens[last + 1:])
    nxt = run.next_start
    if not words or words[0] not in _COPULAS or not expression or nxt is None or nxt.kind not in VALUE_START:
        return None
    rest = words[1:]
    if rest[:2] == ["equal", "to"]:
        rest = rest[2:]
    if len(rest) <= 3 and rest and all(w in _FILLER or w in _BEFORE_ALWAYS or w in _BEFORE_JOINING for w in rest):
        return f"\"{' '.join(words)}\" relates it in words to the number after"
    return None


def _glued_sign(side: Sequence[Tok]) -> bool:
    """`x + 2 -16`: a binary minus with a space before and none after, beside an operator spaced on both sides:
    a model that lost a line break (`-14 = x + 2` / `-16 = x`) writes exactly this, so it is not read as 2 − 16."""
    spaced = any(t.kind == "op" and t.space and k + 1 < len(side) and side[k + 1].space
                 for k, t in enumerate(side))
    return spaced and any(
        t.kind == "op" and t.text == "-" and t.space and k > 0 and is_value_end(side[k - 1])
        and k + 1 < len(side) and not side[k + 1].space and side[k + 1].kind in ("num", "name")
        for k, t in enumerate(side))


def _side_problem(run: Run, k: int, side: list[Tok], last: int) -> tuple[UnreadReason, str] | None:
    """Why side k of a run cannot be read as the whole side the text means (None when it can)."""
    leading_op = run.origin == "text" and side and side[0].kind == "op" and side[0].text in _BINARY_START
    if k == 0 and (run.cut_left or leading_op):
        # one word right before the leading operator, after a relation or the clause start, is the operand
        operand = leading_op and len(run.before) == 1 and (run.prev_end is None or run.prev_end.kind == "rel")
        return UnreadReason.INCOMPLETE, _PROSE_OPERAND if operand else "prose cuts its left side"
    if k == last and (run.cut_right or (side and (side[-1].kind in ("lp", "func") or (
            side[-1].kind == "op" and side[-1].text not in ("%", "!"))))):
        # one word after the trailing operator, before a relation or the clause end, is the operand
        operand = side[-1].kind == "op" and len(run.after) == 1 and (
            run.next_start is None or run.next_start.kind == "rel")
        return UnreadReason.INCOMPLETE, _PROSE_OPERAND if operand else "prose cuts its right side"
    if run.origin != "annotation":
        if k == 0 and (why := _left_hazard(run)):
            return UnreadReason.WORD_OPERATOR, why
        if k == last and (why := _right_hazard(run)):
            return UnreadReason.WORD_OPERATOR, why
        if k == last and run.glued_comma:
            return UnreadReason.AMBIGUOUS, "a comma glued between digits may be a decimal comma or a list"
    if _glued_sign(side):
        return UnreadReason.AMBIGUOUS, ("a minus glued to the number after it, in spaced arithmetic (`x + 2 -16`), "
                                        "may start a new expression whose line break was lost")
    if _range_side(side, run.after, k == last):
        return UnreadReason.AMBIGUOUS, "a glued a-b with a < b may be a range"
    if any(t.kind == "unsup" for t in side):
        bad = next(t for t in side if t.kind == "unsup")
        if bad.text.endswith("(…)"):
            return UnreadReason.AMBIGUOUS, f"{bad.text!r} may be a function's value or a product"
        if _LATEX_WORDS.match(bad.text):
            return UnreadReason.WORD_OPERATOR, f"the words {bad.text!r} stand where the reader reads no value"
        if bad.text in ("-", "*", "+"):  # tokens.lex_plain: the only way an operator's character is unsup
            return UnreadReason.AMBIGUOUS, (f"the {bad.text!r} opening its line, where the text shows no list, may be "
                                            "a list's marker or an operator going on from the line before")
        return UnreadReason.SYMBOL, f"{bad.text!r} is outside the reader's alphabet"
    return None


def _empty_side_problem(run: Run, k: int, last: int) -> str | None:
    """An empty side is prose ("Total = 8", "x = the number of apples"): harmless, unless a number right
    next to it in its clause is what the relation is about (`5 apples = 10`, `= about 7`)."""
    if k == 0 and 0 < last:
        # "Area of 1 bedroom = 11 * 11", "8 batches = 5.5 * 8": a label holding a number is prose, unless a word in
        # it changes that number ("3 dozen = 36"): then it is the relation's left side, misread
        words = _words(run.before)
        changed = any(w in _AFTER_ALWAYS or w in _BEFORE_ALWAYS for w in words[:1])
        return "a word changes the number on its left side" if changed and _adjacent_before(run, 2) else None
    if k == last and 0 < last:
        nxt = run.next_start
        value_next = nxt is not None and (nxt.kind in VALUE_START or (nxt.kind == "unit" and nxt.text == "$"))
        # "= about 7", "= a total of 9", "= half of 24": the value after such words is the relation's right side;
        # after a noun ("= miles the 3 runners ran") the right side is prose
        words = _words(run.after)
        filler = all(w in _FILLER or w in _BEFORE_ALWAYS or w in _BEFORE_JOINING for w in words)
        return "its right side is prose around a number" if value_next and len(words) <= 3 and filler else None
    return "a relation symbol with nothing on one side"


_ORDERS = {"<", ">", "<=", ">=", "≤", "≥", "⩽", "⩾"}


def _restatement_links(ops: Sequence[Tok], sides: Sequence[Sequence[Tok]]) -> set[int]:
    """The `=`/`≈` of a chain that joins two restatements of one bound (`90/123 < k < 180/123 ≈ 0.732 < k <
    1.463`): a lone name bounded by orders on both sides of it is what each restatement bounds, so the link
    relates the bounds, not the numbers beside it."""
    def bounded(side: Sequence[Tok]) -> str | None:
        return side[0].text if len(side) == 1 and side[0].kind == "name" else None

    links = set()
    for k, op in enumerate(ops):
        if op.text in _ORDERS:
            continue
        before = {bounded(sides[i]) for i in range(1, k + 1) if ops[i - 1].text in _ORDERS and ops[i].text in _ORDERS}
        after = {bounded(sides[i]) for i in range(k + 2, len(ops)) if ops[i - 1].text in _ORDERS
                 and ops[i].text in _ORDERS}
        if (before & after) - {None}:
            links.add(k)
    return links


def relations_of_run(run: Run, text: str, found: Found) -> list[Relation]:
    """The relations a run asserts (adjacent pairs of a chain). Every relation symbol of the run is read,
    or is prose on one side ("Total = 8"), or is recorded in `found.miss` with why it was not read."""
    if any(_sign_choice(t) for t in run.tokens):
        return _plus_minus(run, text, found)
    lettered, unit_doubt = _unit_letters(list(run.tokens), found)
    tokens = _apply_functions(implicit_products(_tight_fractions(_function_atoms(lettered), run.origin),
                                                     run.origin))
    symbols = [t for t in run.tokens if t.kind == "rel"]
    if (why := _worded_relation(run)) is not None:
        found.miss(text, run.tokens[0].start, run.next_start.end if run.next_start else run.tokens[-1].end,
                   UnreadReason.INCOMPLETE, why, -1)
    if not symbols:
        # `7 ≡ 2`, `৪ + 1 = 5`: a symbol or digit of another alphabet may be a relation the reader cannot see
        unknown = [t for t in run.tokens if t.kind == "unsup" and len(t.text) == 1
                   and unicodedata.category(t.text)[0] in ("S", "N")]
        if unknown and len(run.tokens) > 1:
            found.miss(text, run.tokens[0].start, run.tokens[-1].end, UnreadReason.SYMBOL,
                       f"{unknown[0].text!r} is outside the reader's alphabet", run.tokens[-1].end)
        return []
    if tokens is None:
        found.miss(text, run.tokens[0].start, run.tokens[-1].end, UnreadReason.UNPARSED,
                   "a function's argument cannot be delimited", symbols[0].end)
        return []
    sides: list[list[Tok]] = [[]]
    ops: list[Tok] = []
    depth = 0
    for tok in tokens:
        depth += {"lp": 1, "rp": -1}.get(tok.kind, 0)
        if tok.kind == "rel" and depth == 0:
            ops.append(tok)
            sides.append([])
        else:
            sides[-1].append(tok)
    if ops and _modulus(run, text):
        # `(4^2)^2 = (-1)^2 = 1 \\pmod{17}`: a modulus anywhere in a chain makes its = congruences, which
        # (-1)^2 = (4^2)^2 is as an equality is false
        found.miss(text, run.tokens[0].start, run.tokens[-1].end, UnreadReason.AMBIGUOUS,
                   "the chain states a modulus, so its = may be congruences", symbols[0].end)
        return []
    if not ops:  # every relation symbol sits inside brackets: `(x = 3)`
        found.miss(text, run.tokens[0].start, run.tokens[-1].end, UnreadReason.UNPARSED,
                   "a relation inside brackets", symbols[0].end)
        return []
    trig = any(t.kind == "func" and t.text in ("sin", "cos", "tan", "cot", "sec", "csc") for t in tokens)
    last = len(sides) - 1
    parsed: list[tuple[Node, list[Tok]] | None] = []
    problems: list[tuple[UnreadReason, str] | None] = []  # per side: why it is not read (None: read, or prose)
    for k, side in enumerate(sides):
        problem: tuple[UnreadReason, str] | None = None
        result = None
        if not any(t.kind != "unit" for t in side):
            why = _empty_side_problem(run, k, last)
            problem = (UnreadReason.INCOMPLETE, why) if why else None
        elif k == 0 and run.label and not run.cut_left and _left_hazard(run) is None:
            problem = None  # a label's number ("Day 3 = …"): the relation's left side is prose
        elif (problem := _side_problem(run, k, side, last)) is None:
            result = _parse_side(side, k == 0, k == last, trig)
            if result is None:
                problem = (UnreadReason.UNPARSED, "not an expression")
        parsed.append(result)
        problems.append(problem)
    out: list[Relation] = []
    restated = _restatement_links(ops, sides)
    for k, op in enumerate(ops):
        left_toks, right_toks = sides[k], sides[k + 1]
        if k in restated:
            shown = "≈" if op.text == "~=" else op.text
            found.miss(text, left_toks[0].start if left_toks else op.start,
                       right_toks[-1].end if right_toks else op.end, UnreadReason.AMBIGUOUS,
                       f"the {shown} joins two restatements of one bound (`a < k < b {shown} c < k < d`), not "
                       "the numbers beside it", op.end)
            continue
        span_start = (left_toks[0].start if left_toks else op.start)
        span_end = (right_toks[-1].end if right_toks else op.end)
        tuples = _tuple_pairs(left_toks, right_toks) if op.text == "=" else None
        if tuples is not None:
            for lhs_toks, rhs_toks in tuples:
                lhs, rhs = _parse_side(lhs_toks, False, False, trig), _parse_side(rhs_toks, False, False, trig)
                if lhs is None or rhs is None:
                    found.miss(text, lhs_toks[0].start, rhs_toks[-1].end, UnreadReason.UNPARSED,
                               "an item of a tuple is not an expression", op.end)
                    continue
                start, end = lhs_toks[0].start, rhs_toks[-1].end
                out.append(Relation("=", lhs[0], rhs[0], (start, end), text[start:end], run.origin))
            continue
        left, right = parsed[k], parsed[k + 1]
        if left is None or right is None:
            problem = problems[k] or problems[k + 1]
            # `Darcy = 2*Dexter`, `= total/3 = 186/3`: an expression with a prose word for an operand relates
            # prose quantities, like "Total = 8" does: not a relation the reader reads
            mine, theirs = problems[k], problems[k + 1]
            operand = any(p is not None and p[1] == _PROSE_OPERAND for p in (mine, theirs))
            other = theirs if mine is not None and mine[1] == _PROSE_OPERAND else mine
            if operand and (other is None or other[1] == _PROSE_OPERAND):
                continue
            if problem is not None:
                found.miss(text, span_start, span_end, problem[0], problem[1], op.end)
            continue
        start, end = left[1][0].start, right[1][-1].end
        source = text[start:end]
        if doubt := sorted(unit_doubt & {t.text for t in (*left[1], *right[1]) if t.kind == "name"}):
            found.miss(text, start, end, UnreadReason.UNIT, f"\"{doubt[0]}\" after a number may be a unit or an unknown",
                       op.end)
            continue
        if (conversion := _converted(left[1], right[1], left[0], right[0])) is not None:
            out.append(Relation(op.text, conversion[0], right[0], (start, end), source, run.origin, conversion[1]))
            continue
        clash = _unit_clash(left[1], right[1]) or _dimension_clash(left[1], right[1])
        if clash:
            found.note(f"skipped \"{_quote(source)}\": {clash}")
            found.miss(text, start, end, UnreadReason.UNIT, clash, op.end)
            continue
        if found.decimal_comma and any(t.grouped for t in (*left[1], *right[1])):
            found.miss(text, start, end, UnreadReason.AMBIGUOUS,
                       "the text writes decimal commas, so a grouped number may be a decimal", op.end)
            continue
        unit = _stated_unit(left[1]) or _stated_unit(right[1])
        lhs_tree, rhs_tree = _percent_points(left[0], right[0], found.percents) if run.origin == "text" \
            else (left[0], right[0])
        relation = Relation(op.text, lhs_tree, rhs_tree, (start, end), source, run.origin, unit)
        if any(t.truncated for t in (*left[1], *right[1])):  # in prose and in LaTeX alike (`$$x = 1.234...$$`)
            readings, why = _truncation_reading(relation, left[1], right[1])
        elif run.origin == "text":
            readings, why = _prose_reading(relation, left[1], right[1], k + 1 == last, text, trig, found)
        else:
            readings, why = [_whole_quotient(relation, text)], ""
        if readings:
            remainder, unsure = _remainder_reading(readings[0], text)
            if unsure and _false_either_way(readings[0]):
                unsure = ""  # `1529 ÷ 6 = 255 with a remainder of 4 (because …)`: false whatever the remainder says
            readings, why = ([], unsure) if unsure else ([*readings, remainder] if remainder else readings, why)
        if not readings:
            found.note(f"skipped \"{_quote(source)}\": {why}")
            found.miss(text, start, end, UnreadReason.AMBIGUOUS, why, op.end)
            continue
        out.extend(readings)
    # a chain `x = 60/3 = 20 minutes` states all its quantities in the one unit it writes
    units = {r.unit for r in out if r.unit}
    if len(units) == 1:
        out = [replace(r, unit=r.unit or next(iter(units))) for r in out]
    return out


# ± and ∓: the sign each variant takes (∓ the opposite of ± beside it)
_SIGN_CHOICES = {"\\pm": "+-", "±": "+-", "\\mp": "-+", "∓": "-+"}


def _sign_choice(tok: Tok) -> bool:
    return tok.kind == "unsup" and tok.text in _SIGN_CHOICES


def _plus_minus(run: Run, text: str, found: Found) -> list[Relation]:
    """The relations of a chain that writes ± (or ∓): read once with every ± as + and once as −, each link kept
    only where the convention says what it asserts. A link with one ± on each side (`\\frac{5 \\pm \\sqrt{1}}{2}
    = \\frac{5 \\pm 1}{2}`, `(a ± b)² = a² ± 2ab + b²`) asserts both readings, the signs taken together; a name
    given a value with one ± (`x = \\frac{5 \\pm 1}{2}`, `x = ±2`) is given two values, listed as alternatives
    like `x = 3 or x = 2`; a link without ± reads as usual. Any other link (`\\frac{5 \\pm 1}{2} = 3`: which of
    the values is 3?, `\\sqrt{4} = ±2`, two ± on one side, which may be four values) is unread."""
    sides = _sides_of(run.tokens)
    ops = [t for t in run.tokens if t.kind == "rel"]
    if len(ops) != len(sides) - 1:  # a relation symbol inside brackets: not a chain whose links can be told apart
        found.miss(text, run.tokens[0].start, run.tokens[-1].end, UnreadReason.AMBIGUOUS,
                   "± in a relation inside brackets", run.tokens[-1].end)
        return []
    signs = [sum(1 for t in side if _sign_choice(t)) for side in sides]
    variants: list[tuple[list[Relation], Found]] = []
    for which in (0, 1):
        signed = [replace(t, kind="op", text=_SIGN_CHOICES[t.text][which]) if _sign_choice(t) else t
                  for t in run.tokens]
        # a leading + (`x = ±2` as `x = +2`) says nothing: dropped, so the value reads as it is written
        signed = [t for k, t in enumerate(signed) if not (
            t.text == "+" and _sign_choice(run.tokens[k]) and (k == 0 or signed[k - 1].kind in ("rel", "op", "lp")))]
        scratch = replace(found, notes=[], unread=[])
        variants.append((relations_of_run(replace(run, tokens=signed), text, scratch), scratch))

    def link_of(position: int) -> int:
        return sum(1 for op in ops if op.start < position)

    out: list[Relation] = []
    for k, op in enumerate(ops):
        left, right = signs[k], signs[k + 1]
        named = len(sides[k]) == 1 and sides[k][0].kind == "name"
        if left == right == 0:
            kept = variants[:1]
        elif (left == right == 1) or (left == 0 and right == 1 and named):
            kept = variants
        else:
            start = sides[k][0].start if sides[k] else op.start
            found.miss(text, start, sides[k + 1][-1].end if sides[k + 1] else op.end, UnreadReason.AMBIGUOUS,
                       "± stands for two values here, and which of them the relation speaks of is not written",
                       op.end)
            continue
        for relations, scratch in kept:
            out += [r for r in relations if link_of(r.span[0]) == k and r.text not in {o.text for o in out}]
            for entry, op_end in scratch.unread:
                if link_of(entry.span[0]) == k and (entry, op_end) not in found.unread:
                    found.miss(text, entry.span[0], entry.span[1], entry.reason, entry.detail, op_end)
    for _, scratch in variants:
        for note in scratch.notes:
            found.note(note)
    return out


_MODULUS_COMMANDS = {"\\pmod", "\\mod", "\\bmod", "\\equiv", "\\pod"}
_MODULUS_WORDS = {"mod", "modulo", "pmod", "bmod"}


def _modulus(run: Run, text: str) -> bool:
    """Whether the run, or its sentence ("… = 1 (mod 17)", "Modulo 5, 3^4 = 81 = 1"), states a modulus."""
    if any(t.kind == "unsup" and t.text.rstrip() in _MODULUS_COMMANDS or t.text.lower() in _MODULUS_WORDS
           for t in run.tokens):
        return True
    start, end = run.tokens[0].start, run.tokens[-1].end
    lo = max((m.end() for m in _SENTENCE_END.finditer(text, max(0, start - 300), start)), default=max(0, start - 300))
    stop = _SENTENCE_END.search(text, end, end + 300)
    return _MODULUS_SENTENCE.search(text, lo, stop.start() if stop else min(len(text), end + 300)) is not None


_MODULUS_SENTENCE = re.compile(r"\b(?:mod|modulo|pmod|bmod|congruen\w*|residues?)\b|\\(?:p|b)?mod\b|\\equiv\b|"
                               r"\\mathbb\s*\{?\s*Z\s*\}?\s*_|"
                               # "on a 12-hour clock, 9 + 5 = 2": clock arithmetic wraps around
                               r"\b\d+[- ]hour\s+clock\b|\bclock\s+arithmetic\b|\b(?:on|around)\s+(?:a|the)\s+clock\b",
                               re.IGNORECASE)


def _blank(side: Sequence[Tok]) -> bool:
    """A side with no maths in it (empty, or only unit words): prose."""
    return not any(t.kind != "unit" for t in side)


def _numbers(node: Node) -> list[Num] | None:
    """The literals of a side built from literals, + - * / and brackets only (None for anything else)."""
    if isinstance(node, Num):
        return [node]
    if isinstance(node, Binary) and node.op in ("+", "-", "*", "/"):
        left, right = _numbers(node.left), _numbers(node.right)
        return None if left is None or right is None else left + right
    return None


def _additive_terms(node: Node) -> list[Node]:
    if isinstance(node, Binary) and node.op in ("+", "-"):
        return _additive_terms(node.left) + _additive_terms(node.right)
    return [node]


def _percent_points(lhs: Node, rhs: Node, percents: frozenset[str]) -> tuple[Node, Node]:
    """`kills 25%, … 5% … so 25 - 5 = 20%`: a side without `%` whose every number the step writes as a percent
    elsewhere counts percent points; its numbers get their `%` back (25% - 5% = 20%, exact). Otherwise the
    sides stay as written (and `50 - 40 = 10%` is not 10 = 0.1 read as points)."""
    def wrap(node: Node) -> Node:
        if isinstance(node, Num):
            return Postfix("%", node)
        if isinstance(node, Binary):
            return Binary(node.op, wrap(node.left), wrap(node.right))
        return node

    if not percents or has_percent(lhs) == has_percent(rhs):
        return lhs, rhs
    bare_left = not has_percent(lhs)
    bare, marked = (lhs, rhs) if bare_left else (rhs, lhs)
    numbers = _numbers(bare)
    additive = isinstance(bare, Binary) and bare.op in ("+", "-") and all(
        isinstance(t, Num) for t in _additive_terms(bare))
    lone_percent = isinstance(marked, Postfix) and marked.op == "%" and isinstance(marked.arg, Num)
    if not (additive and lone_percent) or not numbers or any(n.text not in percents or n.text == "100"
                                                             for n in numbers):
        return lhs, rhs
    return (wrap(lhs), rhs) if bare_left else (lhs, wrap(rhs))


_PERCENT_WRITTEN = re.compile(r"(?<![0-9.,])([0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)(\.[0-9]+)?\s*(?:%|percent\b)", re.IGNORECASE)


def percents_in(text: str) -> frozenset[str]:
    """The numbers the text writes as percents (`25%`, `5 percent`), as the lexer writes them (`1,000` → 1000)."""
    return frozenset(m.group(1).replace(",", "") + (m.group(2) or "") for m in _PERCENT_WRITTEN.finditer(text))


def _stated_unit(side: Sequence[Tok]) -> str | None:
    """The unit of a side that is one quantity (`60 minutes`, `$5`), else None."""
    values = [t for t in side if t.kind != "unit"]
    if len(values) != 1 or values[0].kind != "num" or not values[0].unit:
        return None
    unit = values[0].unit
    return None if unit in ("rate", "per") or unit.startswith("conv:") else unit


_SENTENCE_END = re.compile(r"[.;?!\n](?:\s|$)")
_REMAINDER = re.compile(r"\bremainder\b|\bleft\s*over\b|\bleftover\b|\bremains?\b|\bwith\s+\d+\s+(?:\w+\s+)?(?:remaining|left)\b",
                        re.IGNORECASE)
_SCALE_MENTION = re.compile(r"\d\s+(thousand|million|billion)s?\b", re.IGNORECASE)
_SCALES = {"thousand": 10**3, "million": 10**6, "billion": 10**9}
_TAIL_WINDOW = 200  # how far after a relation its sentence is searched for a remainder


def scales_in(text: str) -> frozenset[str]:
    """The scale words the text counts in ("5 thousand dollars" → thousand)."""
    return frozenset(m.group(1).lower() for m in _SCALE_MENTION.finditer(text))


def _closed(node: Node) -> sympy.Expr | None:
    """The exact value of a side without names (bounded by the expression caps), else None."""
    if names_in(node):
        return None
    try:
        return evaluate(node)
    except ExpressionError:
        return None


def _truncated_bounds(rel: Relation, lhs: Sequence[Tok], rhs: Sequence[Tok]) -> list[Relation] | None:
    """`20/240 = 8.333...%`: a truncated literal as a whole side says the other side lies in [8.333, 8.334)
    (percent), read as two exact relations; None when the truncated number is inside an expression."""
    def literal(node: Node) -> tuple[Num, bool, bool] | None:  # (digits, negative, percent)
        negative = percent = False
        if isinstance(node, Unary) and node.op == "-":
            negative, node = True, node.arg
        if isinstance(node, Postfix) and node.op == "%":
            percent, node = True, node.arg
        return (node, negative, percent) if isinstance(node, Num) else None

    truncated_left, truncated_right = any(t.truncated for t in lhs), any(t.truncated for t in rhs)
    if truncated_left == truncated_right:
        return None
    side, other = (rel.lhs_tree, rel.rhs_tree) if truncated_left else (rel.rhs_tree, rel.lhs_tree)
    found = literal(side)
    if found is None or found[0].decimals == 0:
        return None
    digits, negative, percent = found
    unit = Num("0." + "0" * (digits.decimals - 1) + "1", digits.decimals)

    def bound(node: Node) -> Node:
        node = Postfix("%", node) if percent else node
        return Unary("-", node) if negative else node

    near, far = bound(digits), bound(Binary("+", digits, unit))
    lower, upper = (far, near) if negative else (near, far)
    low_op, high_op = (">", "<=") if negative else (">=", "<")
    return [replace(rel, op=low_op, lhs_tree=other, rhs_tree=lower),
            replace(rel, op=high_op, lhs_tree=other, rhs_tree=upper)]


def _remainder_tail(rel: Relation, text: str) -> str:
    """The words after a relation up to its sentence's end (a semicolon does not end it: "= 19; remainder 4"), or
    up to the next relation or division, whose remainder a remainder there would be ("84 ÷ 7 = 12, and 12 ÷ 5 = 2
    remainder 2")."""
    window = min(len(text), rel.span[1] + _TAIL_WINDOW)
    stop = _QUOTIENT_END.search(text, rel.span[1], window)
    return text[rel.span[1]:stop.start() if stop else window]


_QUOTIENT_END = re.compile(r"[.?!\n](?:\s|$)|[=<>÷/]|\\(?:div|frac|dfrac|le|ge|neq?)\b")


def _whole_quotient(rel: Relation, text: str) -> Relation:
    """`13 / 6 = 2 full cycles with a remainder of 1`, `63 \\div 14 = 4 \\quad \\text{remainder} \\quad 7`: a
    quotient with a remainder after it is the whole quotient, floor(13/6) = 2 (in prose and in LaTeX alike)."""
    if rel.op == "=" and _REMAINDER.search(_remainder_tail(rel, text)) and isinstance(rel.lhs_tree, Binary) \
            and rel.lhs_tree.op == "/" and isinstance(rel.rhs_tree, Num) and rel.rhs_tree.decimals == 0:
        return replace(rel, lhs_tree=Call("floor", (rel.lhs_tree,)))
    return rel


# the remainder a whole quotient states right after it: "= 19 remainder 8", "= 2 full cycles with a remainder of 1",
# `= 19 \\text{ remainder } 8`, "= 19; remainder 4" (at most two words between, none a connective: "and the remainder
# is 45 dollars" may be the rest of something else; then "with", "leaving" or nothing)
_STATED_REMAINDER = re.compile(
    r"(?:\s|\\[A-Za-z]+\s*\{?|\\[,;:! ]|[{}$(),;])*(?:(?!(?:and|the|but|so|then|while|of)\b)[A-Za-z]+\s+){0,2}"
    r"(?:(?:with|leaving)\s+(?:a\s+)?)?"
    r"remainder(?:\s|\\[A-Za-z]+\s*\{?|\\[,;:! ]|[{}$():]|\bof\b|\bis\b)*(\d+)(?!\d|[.,]\d|\s*[-+*/÷×−^%(\\])",
    re.IGNORECASE)
_ANY_NUMBER = re.compile(r"\d|\b(?:" + "|".join(sorted(_NUMBER_WORDS)) + r")\b", re.IGNORECASE)


def _false_either_way(rel: Relation) -> bool:
    """A whole quotient floor(a/b) = q that is false both as the whole quotient and as the exact one."""
    if not (isinstance(rel.lhs_tree, Call) and rel.lhs_tree.func == "floor"):
        return False
    whole, exact, stated = _closed(rel.lhs_tree), _closed(rel.lhs_tree.args[0]), _closed(rel.rhs_tree)
    return None not in (whole, exact, stated) and whole != stated and exact != stated


def _remainder_reading(rel: Relation, text: str) -> tuple[Relation | None, str]:
    """`327 ÷ 17 = 19 remainder 8` states two things: floor(327/17) = 19 (`_whole_quotient`) and the remainder,
    327 − 17·floor(327/17) = 8, which is read too: (that relation, ""). A remainder the words state in a way
    not read exactly ("with 8 left over", "remainder eight", "and the remainder is 45 dollars for rent") leaves
    the quotient unread: (None, why), never verified on floor alone. (None, "") when no remainder is stated."""
    if not (isinstance(rel.lhs_tree, Call) and rel.lhs_tree.func == "floor"
            and isinstance(quotient := rel.lhs_tree.args[0], Binary) and quotient.op == "/"):
        return None, ""
    tail = _remainder_tail(rel, text)
    stated = _STATED_REMAINDER.match(tail)
    if stated is None or _ANY_NUMBER.search(tail, stated.end()):
        if _REMAINDER.search(tail) and _ANY_NUMBER.search(tail):
            return None, "a remainder is stated beside the quotient in words the reader does not read exactly"
        return None, ""
    rest = Binary("-", quotient.left, Binary("*", quotient.right, rel.lhs_tree))
    end = rel.span[1] + stated.end()
    return Relation("=", rest, Num(stated.group(1), 0), (rel.span[0], end), text[rel.span[0]:end], rel.origin,
                    rel.unit), ""


def _truncation_reading(rel: Relation, lhs: Sequence[Tok], rhs: Sequence[Tok]) -> tuple[list[Relation], str]:
    """A number written with an ellipsis (`8.333...%`) is truncated: the other side lies between it and one unit
    of its last digit above (two exact relations); a truncated number inside an expression is not read.
    (relations, "") or ([], why it is not read)."""
    bounds = _truncated_bounds(rel, lhs, rhs) if rel.op in ("=", "~=") else None
    if bounds is None:
        return [], "a truncated decimal (…) inside an expression has no exact reading"
    # `0.999... = 1`: a recurring 9 reaches the next unit of its last digit, so the open end of the
    # truncation reading is a value the dots may mean exactly (neither side of it is read)
    strict = next(b for b in bounds if b.op in ("<", ">"))
    other, end = _closed(strict.lhs_tree), _closed(strict.rhs_tree)
    if other is not None and end is not None and other == end:
        return [], "the dots may be a truncation or a recurring digit, which reaches the value on the other side"
    return bounds, ""


def _prose_reading(rel: Relation, lhs: Sequence[Tok], rhs: Sequence[Tok], last_side: bool, text: str,
                   trig: bool, found: Found) -> tuple[list[Relation], str]:
    """What a prose relation asserts, where the words around it settle the reading: (relations, "") or
    ([], why it is not read).
    - `13 / 6 = 2 full cycles with a remainder of 1` is a whole quotient: floor(13/6) = 2;
    - `3/3 - 2/3 = 1/3 of $150 left`, `… = 15% of $300` at the end of a chain: "of $150" may be prose about
      the fraction rather than a product; when the fraction alone holds and the product does not, the two
      readings disagree and the relation is skipped (never verified on the kinder reading);
    - in a step counting in thousands (`5 thousand dollars … 5 * 3 = $15,000`), sides that differ by exactly
      that scale are in different units: skipped."""
    rel = _whole_quotient(rel, text)
    of = [k for k, t in enumerate(rhs) if t.kind == "op" and t.text == "*" and text[t.start:t.end].lower() == "of"]
    scales = found.scales
    if rel.op not in ("=", "~=") or not (scales or (last_side and len(of) == 1)):
        return [rel], ""  # nothing to settle: no sides are evaluated (extraction stays cheap)
    left, right = _closed(rel.lhs_tree), _closed(rel.rhs_tree)
    if left is None or right is None or left == right:
        return [rel], ""
    if last_side and len(of) == 1 and 0 < of[0] < len(rhs) - 1:
        fraction = _parse_side(list(rhs[:of[0]]), False, False, trig)
        value = _closed(fraction[0]) if fraction else None
        tolerance = rounding_tolerance(fraction[0]) if fraction else None
        if value is not None and abs(left - value) <= (tolerance or 0):
            return [], (f"\"{text[rhs[0].start:rhs[of[0]].start].strip()}\" alone holds but \"of …\" makes it a "
                        "product that does not: two readings")
    for word in sorted(scales):
        scale = _SCALES[word]
        if not any(t.kind == "unit" and UNITS.get(t.text.lower(), ("", ""))[0] == "scale" for t in (*lhs, *rhs)) \
                and (left * scale == right or right * scale == left):
            return [], f"the sides differ by exactly a {word}, and the step counts in {word}s"
    return [rel], ""


def _quote(source: str, limit: int = 80) -> str:
    source = " ".join(source.split())
    return source if len(source) <= limit else source[:limit - 1] + "…"
