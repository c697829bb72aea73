"""Tokens of natural-language maths for `lang.math.text`: the plain-text lexer and the context pass that
reads words as maths where it is unambiguous (units, currency, percent, `x` as ×, "is" as =, mixed numbers,
ratios, times of day, rates such as "per hour" or "a week", the nouns numbers count, words in brackets
used as one quantity); unit words and their exact conversions are `lang.math.units`."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, replace
from fractions import Fraction

from reasonforge.lang.math.units import conversion_factor, same_noun, word_unit

__all__ = [
    "HEDGE_WORDS",
    "LATEX_SIMPLE",
    "PLAIN",
    "PLAIN_MATH",
    "PROSE_LETTERS",
    "SCALE_WORDS",
    "UNARY_AFTER_WORDS",
    "VALUE_START",
    "VALUE_WORDS",
    "Tok",
    "is_value_end",
    "label_words",
    "lex_plain",
    "read_words",
]

# ---- tokens -----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Tok:
    """A token with its span in the step text; kind is one of num name func op rel lp rp comma unit break
    word punct unsup."""

    kind: str
    text: str
    start: int
    end: int
    space: bool = False  # whitespace before it
    unit: str | None = None  # the unit word after a number ("hour"), for the mixed-unit guard
    truncated: bool = False  # a number written with an ellipsis ("8.333..."): its digits stop, the value goes on
    grouped: bool = False  # a number written with thousands separators ("1,000"): 1.000 where commas are decimal
    per: str | None = None  # a rate's denominator unit ("5 km per hour": hour), for the conversion guard



_ORDINAL = re.compile(r"(?:st|nd|rd|th|s)$")
_FUNC_WORDS = {"sqrt", "sin", "cos", "tan", "ln", "exp"}
_SUPERSCRIPT = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")
_UNICODE_FRACTIONS = {"½": ("1", "2"), "⅓": ("1", "3"), "⅔": ("2", "3"), "¼": ("1", "4"), "¾": ("3", "4"),
                      "⅕": ("1", "5"), "⅛": ("1", "8")}
_GREEK = {"α": "alpha", "β": "beta", "γ": "gamma", "δ": "delta", "θ": "theta", "λ": "lambda_", "μ": "mu",
          "σ": "sigma", "φ": "phi", "ω": "omega", "ρ": "rho", "τ": "tau"}
_REL_SPELLINGS = {"=": "=", "==": "=", "<": "<", ">": ">", "<=": "<=", ">=": ">=", "!=": "!=", "≤": "<=",
                  "≥": ">=", "≠": "!=", "≈": "~=", "~=": "~=", "⩽": "<=", "⩾": ">="}
_ARROWS = {"=>", "->", "<=>", "<->", "⇒", "→", "⟹", "⟺", "↔", "⇔"}

_WORD = r"[A-Za-z]+(?:['’][A-Za-z]+)*"
# hyphenated compounds are one word: "one-fourth", "two-point", and "5-minute", "12-pound" (an adjective
# naming a kind of thing, not 5 minus minute); a single letter after the hyphen keeps `10-x` maths
_COMPOUND = r"(?P<cword>(?:\d+(?:\.\d+)?|[A-Za-z]{2,}(?:['’][A-Za-z]+)*)(?:-[A-Za-z]{2,}(?:['’][A-Za-z]+)*)+)|"
# thousands grouped by spaces ("80 000", "1 500 000"); not "12 200-kilobyte", where 200 starts a compound
_SPACED_THOUSANDS = r"\d{1,3}(?:[ \u00a0\u2009\u202f]\d{3})+(?![\d\w-])(?:\.\d+)?(?![\d-])|"
_TOKENS = (
    r"(?P<nl>\n)|{compound}"
    r"(?P<ws>[ \t\r\f\v\u00a0\u2009\u202f]+)"
    r"|(?P<num>\d{{1,3}}(?:(?:,|\{{,\}})\d{{3}})+(?:\.\d+)?(?!\d)|{spaced}"
    r"0,\d+(?![\d,])|\d+\.\d+|\d+|(?<![\w.])\.\d+)"
    r"(?P<ellipsis>\.\.\.|…)?"
    r"|(?P<word>{word})"
    r"|(?P<latex>\\(?:[A-Za-z]+|.))"
    r"|(?P<sup>[⁰¹²³⁴⁵⁶⁷⁸⁹⁻]+)"
    r"|(?P<rel><=>|<->|=>|->|==|<=|>=|!=|~=|[=<>≤≥≠≈⩽⩾⇒→⟹⟺↔⇔])"
    r"|(?P<op>\*\*|//|[-+*/^×·∙⋅÷−–%!()\[\]{{}}])"
    r"|(?P<cur>[$€£¥₹¢])"
    r"|(?P<punct>[,;:.?])"
    r"|(?P<frac>[½⅓⅔¼¾⅕⅛])"
    r"|(?P<sqrt>[√∛∜])"
    r"|(?P<pi>π)"
    r"|(?P<deg>°)"
    r"|(?P<greek>[α-ωΑ-Ω])"
    r"|(?P<other>.)"
)
# ASCII digits only: `৪` (Bengali four) looks like 8 and `１` is not the reader's 1, so other digits are
# symbols the reader does not read (see `_settle_others`)
PLAIN = re.compile(_TOKENS.format(compound=_COMPOUND, spaced=_SPACED_THOUSANDS, word=_WORD), re.DOTALL | re.ASCII)
"""Plain-text tokens (prose)."""
PLAIN_MATH = re.compile(_TOKENS.format(compound="", spaced="", word=_WORD), re.DOTALL | re.ASCII)
"""The same tokens inside delimited maths, where `3-ab` is a difference and `100 200` two numbers."""

_CURRENCIES = {"$": "dollar", "€": "euro", "£": "sterling", "¥": "yen", "₹": "rupee", "¢": "cent"}
_OPS = {"//": "//", "*": "*", "×": "*", "·": "*", "∙": "*", "⋅": "*", "**": "^", "^": "^", "/": "/", "÷": "/", "+": "+",
        "-": "-", "−": "-", "–": "-", "%": "%", "!": "!"}
LATEX_SIMPLE = {
    "cdot": ("op", "*"), "times": ("op", "*"), "ast": ("op", "*"), "div": ("op", "/"),
    "le": ("rel", "<="), "leq": ("rel", "<="), "leqslant": ("rel", "<="), "ge": ("rel", ">="),
    "geq": ("rel", ">="), "geqslant": ("rel", ">="), "ne": ("rel", "!="), "neq": ("rel", "!="),
    "lt": ("rel", "<"), "gt": ("rel", ">"), "approx": ("rel", "~="), "pi": ("name", "pi"),
    "%": ("op", "%"), "lfloor": ("func", "floor"), "rfloor": ("rp", ")"), "lceil": ("func", "ceil"),
    "rceil": ("rp", ")"),
}



# ---- plain-text lexer -------------------------------------------------------------------------------
def lex_plain(text: str, start: int, end: int, prose: bool = False) -> list[Tok]:
    """Tokens of a plain-text region (before the context pass that reads words). In prose (not maths
    delimiters, where a dash is always minus), a `-`, `*` or `+` that opens a line and is followed by a blank
    is a list item's marker, a line break: "\n- 40% of $40 is $16" says 40% of 40 is 16, never −40% of it."""
    out: list[Tok] = []
    pos = start
    space = False
    while pos < end:
        m = PLAIN.match(text, pos, end)
        assert m is not None  # `other` matches any character
        kind, raw, a, b = m.lastgroup or "other", m.group(), m.start(), m.end()
        if kind == "ellipsis":
            kind = "num"
        pos = b
        if kind == "ws":
            space = True
            continue
        tok: Tok | None
        if kind == "num":
            digits = m.group("num")
            text_ = digits.replace("0,", "0.", 1) if digits.startswith("0,") else digits  # 0,2: a decimal comma
            grouped = text_ != digits or "," in digits or "{,}" in digits or any(c.isspace() for c in digits)
            text_ = re.sub(r"[\s,]|\{,\}", "", text_)
            tok = Tok("num", text_, a, b, space, truncated=m.group("ellipsis") is not None and "." in text_,
                      grouped=grouped and not digits.startswith("0,"))
        elif kind in ("word", "cword"):
            tok = Tok("word", raw, a, b, space)
        elif kind == "latex" and raw in ("\\boxed", "\\fbox"):
            continue  # `= \boxed{43000}` outside maths delimiters: the box is transparent, its group a bracket
        elif kind == "latex":
            tok = _plain_latex(raw, a, b, space)
        elif kind == "sup":
            digits = raw.translate(_SUPERSCRIPT)
            out.append(Tok("op", "^", a, a, False))
            tok = Tok("num", digits, a, b, False) if "-" not in digits else None
            if tok is None:
                out.extend([Tok("lp", "(", a, a), Tok("op", "-", a, a), Tok("num", digits.strip("-"), a, b),
                            Tok("rp", ")", b, b)])
        elif kind == "rel":
            tok = Tok("break", raw, a, b, space) if raw in _ARROWS else Tok("rel", _REL_SPELLINGS[raw], a, b, space)
        elif kind == "op":
            if raw in "([{":
                tok = Tok("lp", "[" if raw == "[" else "(", a, b, space)  # "[" kept: see _bracketed
            elif raw in ")]}":
                tok = Tok("rp", "]" if raw == "]" else ")", a, b, space)
            elif prose and (marker := _list_marker(text, a, b)) is not None:
                tok = Tok(marker, "\n" if marker == "break" else raw, a, b, space)
            else:
                tok = Tok("op", _OPS[raw], a, b, space)
        elif kind == "cur":
            tok = Tok("unit", "$", a, b, space, unit=_CURRENCIES[raw])  # one marker, each currency its own unit
        elif kind == "punct":
            tok = Tok("comma", ",", a, b, space) if raw == "," else Tok("punct", raw, a, b, space)
        elif kind == "frac":
            p, q = _UNICODE_FRACTIONS[raw]
            out.extend([Tok("lp", "(", a, a, space), Tok("num", p, a, a), Tok("op", "/", a, a),
                        Tok("num", q, a, b), Tok("rp", ")", b, b)])
            tok = None
        elif kind == "sqrt":
            tok = Tok("func", {"√": "sqrt", "∛": "cbrt", "∜": "root4"}[raw], a, b, space)
        elif kind == "pi":
            tok = Tok("name", "pi", a, b, space)
        elif kind == "deg":
            tok = Tok("unit", "°", a, b, space, unit="degree")
        elif kind == "greek":
            tok = Tok("name", _GREEK.get(raw, "greek_" + str(ord(raw))), a, b, space)
        elif kind == "nl":
            tok = Tok("break", "\n", a, b, space)
        else:
            tok = Tok("other", raw, a, b, space)
        if tok is not None:
            out.append(tok)
        space = False
    return _settle_others(out)


def _list_marker(text: str, a: int, b: int) -> str | None:
    """What the operator at a..b is when it may be Markdown's list marker (`-`, `*` or `+` alone at a line's start,
    a blank after it): "break" for a marker, where the text shows a list (the line before is a list item or ends
    in a colon, or a blank line follows a finished sentence, or no line comes before); "unsup" anywhere else, where
    it may as well be an operator on the line before (`Total = 20 dollars⏎+ 5 dollars = 25 dollars`, `  7⏎- 2⏎= 5`:
    neither 5 = 25 nor 2 = 5 is read); None for an operator."""
    line = text.rfind("\n", 0, a) + 1
    if text[a:b] not in ("-", "*", "+") or b >= len(text) or text[b] not in " \t" or text[line:a].strip(" \t"):
        return None
    # the nearest line before with something on it, and whether a blank line lies between (only the lines walked
    # back over are read: a text of many list items stays linear)
    end, blank, previous = line - 1, False, ""
    while end > 0 and not previous:
        start = text.rfind("\n", 0, end) + 1
        previous = text[start:end].strip()
        blank = blank or not previous
        end = start - 1
    if not previous or _LIST_ITEM.match(previous) or previous.endswith(":") or (blank and previous[-1] in ".!?"):
        return "break"
    return "unsup"


_LIST_ITEM = re.compile(r"(?:[-*+•]|\d{1,3}[.)])\s")


# tokens that make a neighbour of an unknown symbol maths, on either side
_MATH_KINDS = {"num", "name", "rp", "lp", "op", "rel", "unit", "unsup", "func"}
_MATH_START = set("0123456789([$.+-*/^=<>≤≥≠≈×÷−")


def _settle_others(tokens: list[Tok]) -> list[Tok]:
    """Characters outside the reader's alphabet: a digit of another script (`৪`, `١`, `１`) or a symbol or
    letter between maths tokens (`3 ≡ 1`, `10—7`, `x_1`, `3 х 4` with a Cyrillic х) is `unsup`, so the side
    holding it is not read (never read as if the character were not there); elsewhere (`#### 5`, a quote
    before prose) it ends a run like punctuation."""
    out: list[Tok] = []
    for k, tok in enumerate(tokens):
        if tok.kind != "other":
            out.append(tok)
            continue
        category = unicodedata.category(tok.text)
        if category.startswith("N"):
            out.append(replace(tok, kind="unsup"))
            continue
        prev = out[-1] if out else None
        nxt = tokens[k + 1] if k + 1 < len(tokens) else None
        after_math = prev is not None and _mathlike(prev)
        before_math = nxt is not None and (_mathlike(nxt) or (nxt.kind == "other" and nxt.text in _MATH_START))
        out.append(replace(tok, kind="unsup" if after_math and before_math else "break"))
    return out


def _mathlike(tok: Tok) -> bool:
    """A token that may belong to maths: a number, operator, relation, ... or a lone letter (a name to be)."""
    return tok.kind in _MATH_KINDS or (tok.kind == "word" and len(tok.text) == 1)


def _plain_latex(raw: str, a: int, b: int, space: bool) -> Tok:
    """A LaTeX command met outside maths delimiters: the simple ones read as operators, the rest stop a run."""
    name = raw[1:]
    if name in LATEX_SIMPLE:
        kind, text = LATEX_SIMPLE[name]
        return Tok(kind, text, a, b, space)
    if name == "$":
        return Tok("unit", "$", a, b, space, unit="dollar")
    return Tok("unsup", raw, a, b, space)


# ---- the context pass over plain tokens ----------------------------------------------------------------------
_VALUE_END = {"num", "name", "rp"}
VALUE_START = {"num", "name", "lp", "func"}
UNARY_AFTER_WORDS = {"is", "are", "was", "were", "be", "equals", "get", "gets", "gives", "yields", "obtain",
                      "becomes", "to", "so", "then", "and", "thus", "hence", "therefore", "at", "of", "by", "from",
                      "with", "that", "means", "because", "since", "but", "or", "when", "if", "while", "where", "as"}
PROSE_LETTERS = {"a", "A", "I"}


def is_value_end(tok: Tok | None) -> bool:
    return tok is not None and (tok.kind in _VALUE_END or (tok.kind == "op" and tok.text in ("%", "!")))


def _next_value_start(tokens: Sequence[Tok], i: int) -> bool:
    """Whether tokens[i:] start a value (skipping currency and a unary minus)."""
    while i < len(tokens) and tokens[i].kind == "unit" and tokens[i].text == "$":
        i += 1
    if i < len(tokens) and tokens[i].kind == "op" and tokens[i].text == "-":
        i += 1
    return i < len(tokens) and tokens[i].kind in VALUE_START


def read_words(tokens: list[Tok]) -> list[Tok]:
    """Turn words into maths where the context makes it unambiguous (see the module docstring)."""
    out: list[Tok] = []
    i = 0
    n = len(tokens)
    while i < n:
        tok = tokens[i]
        prev = out[-1] if out else None
        if tok.kind != "word":
            if prev is not None and _mixed_number(tokens, i, prev):
                den = tokens[i + 2]
                out[-1] = Tok("lp", "(", prev.start, prev.start, prev.space)
                out.extend([replace(prev, space=False), Tok("op", "+", prev.end, prev.end), tok,
                            Tok("op", "/", tok.end, tok.end), den, Tok("rp", ")", den.end, den.end)])
                i += 3
                continue
            if tok.kind == "lp" and (label_end := _label_group(tokens, i, out)) is not None:
                i = label_end + 1  # "7995 (total cookies) - 2595 (rainbow cookies)": a label of the number
                continue
            if tok.kind == "lp" and (group := _word_group(tokens, i, prev)) is not None:
                name, end = group
                out.append(Tok("name", name, tok.start, tokens[end].end, tok.space))
                i = end + 1
                continue
            if tok.kind == "op" and tok.text == "/" and not tok.space and prev is not None and prev.kind == "unit" \
                    and prev.text != "$" and i + 1 < n and tokens[i + 1].kind == "word" and not tokens[i + 1].space \
                    and word_unit(tokens[i + 1].text):
                out.append(replace(tok, kind="unit", unit="per"))  # "120 miles/hour", "60 minutes/hour"
                out.append(replace(tokens[i + 1], kind="unit", unit="per"))
                _mark_compound(out)
                i += 2
                continue
            if tok.kind == "op" and tok.text == "/" and _per_item(tokens, i, out):
                if out[-1].kind == "word":
                    out[-1] = replace(out[-1], kind="unit")  # "5 tasks/cycle": what the number counts
                out.append(replace(tok, kind="unit", unit="per"))  # "$60/shoe", "$194/meter": a price per item
                out.append(replace(tokens[i + 1], kind="unit", unit="per"))
                _mark_compound(out)
                i += 2
                continue
            if tok.kind == "op" and tok.text == "/" and not tok.space and prev is not None and prev.kind == "word" \
                    and len(prev.text) > 1 and i + 1 < n and tokens[i + 1].kind == "word" and not tokens[i + 1].space \
                    and len(tokens[i + 1].text) > 1 and word_unit(tokens[i + 1].text) is None:
                out.append(replace(tok, kind="punct"))  # "true/false", "and/or": a slash between words
            elif tok.kind == "op" and tok.text == "!" and not _factorial_here(tokens, i, prev):
                glued = i + 1 < n and not tokens[i + 1].space and tokens[i + 1].kind in ("num", "name")
                # `!5 = 44`: the subfactorial before a value, not an exclamation mark
                out.append(replace(tok, kind="unsup" if glued and (prev is None or tok.space) else "punct"))
            elif tok.kind == "punct" and tok.text == ":" and _label_colon(out):
                out.append(replace(tok, kind="break"))  # "Day 3:100+20", "Bowler 2:3x": a label
            elif tok.kind == "punct" and tok.text == ":" and _time_of_day(tokens, i, prev):
                out[-1] = replace(out[-1], kind="word")  # a time of day is a label, not a value
                out.append(replace(tokens[i + 1], kind="word"))
                i += 2
                continue
            elif tok.kind == "num" and len(tok.text) == 4 and tok.text.startswith("0") and tok.text.isdigit():
                out.append(replace(tok, kind="word"))  # 0900 hours
            elif tok.kind == "op" and tok.text == "^" and prev is not None and prev.kind == "unit" \
                    and tok.start == prev.end and i + 1 < n and tokens[i + 1].kind == "num":
                i += 2  # cm³, m²: the power belongs to the unit
                continue
            elif tok.kind == "punct" and tok.text == ":" and _ratio_colon(tokens, i, prev):
                out.append(replace(tok, kind="op", text="/"))  # a ratio 7,980 : 420
            elif tok.kind == "num" and prev is not None and prev.kind == "unit" and prev.text == "$":
                out.append(replace(tok, unit=prev.unit or "dollar"))
            else:
                out.append(tok)
            i += 1
            continue
        word, low = tok.text, tok.text.lower()
        attached = prev is not None and prev.kind == "num" and not tok.space and prev.end == tok.start
        words_ahead = [t.text.lower() for t in tokens[i:i + 4] if t.kind == "word"]
        if (spoken := _word_operator(tokens, i, out)) is not None:
            emitted, i = spoken
            out.extend(emitted)
            continue
        if low == "and" and prev is not None and (fraction := _and_fraction(tokens, i + 1, prev)) is not None:
            num, den, last = fraction
            out[-1] = Tok("lp", "(", prev.start, prev.start, prev.space)
            out.extend([replace(prev, space=False), Tok("op", "+", tok.start, tok.end), num,
                        Tok("op", "/", num.end, num.end), den, Tok("rp", ")", den.end, den.end)])
            i = last + 1
            continue
        if attached and _ORDINAL.fullmatch(low) and len(low) <= 2 and low != "s":
            out[-1] = replace(out[-1], kind="word")  # 2nd, 3rd: not a value
            out.append(tok)
        elif low == "x" and _after_value(out) and _times_x(tokens, i):
            out.append(Tok("op", "*", tok.start, tok.end, tok.space))  # 3 x 4, 3x4, "3 x the height"
        elif low == "x" and _between_counted_words(tokens, i, out):
            out.append(Tok("op", "*", tok.start, tok.end, tok.space))  # "6 sets x every 2 hours"
        elif low in ("a", "an") and prev is not None and (prev.kind == "unit" or prev.unit is not None) \
                and _after_value(out) and i + 1 < n and tokens[i + 1].kind == "word" and word_unit(tokens[i + 1].text):
            out.append(replace(tok, kind="unit", unit="per"))  # "$18 a week", "8 hours a day": a rate
            out.append(replace(tokens[i + 1], kind="unit", unit="per"))
            _mark_compound(out)
            i += 2
            continue
        elif (unit := word_unit(low)) and (is_value_end(prev) or (prev is not None and prev.kind == "unit")):
            if prev is not None and prev.kind == "num":
                out[-1] = replace(prev, unit=unit[1])
            out.append(replace(tok, kind="unit", unit=unit[1]))
        elif attached and len(word) == 1:
            out.append(Tok("name", word, tok.start, tok.end, False))
        elif attached:
            out[-1] = replace(out[-1], kind="word")
            out.append(tok)
        elif (width := _count_noun(tokens, i, out)) > 0:
            out.extend(replace(t, kind="unit") for t in tokens[i:i + width])  # "6 monkeys / 10 animals"
            i += width
            continue
        elif low == "percent" and is_value_end(prev):
            out.append(Tok("op", "%", tok.start, tok.end, tok.space))
        elif low == "per" and i + 1 < n and tokens[i + 1].kind == "word" and word_unit(tokens[i + 1].text):
            out.append(replace(tok, kind="unit", unit="per"))
            out.append(replace(tokens[i + 1], kind="unit", unit="per"))
            _mark_compound(out)
            i += 2
            continue
        elif low == "times" and is_value_end(prev) and _as_many_as(tokens, i + 1) \
                and _next_value_start(tokens, i + 4):
            out.append(Tok("op", "*", tok.start, tokens[i + 3].end, tok.space))  # "3 times as many as 4"
            i += 4
            continue
        elif low in ("times", "of") and is_value_end(prev) and _next_value_start(tokens, i + 1) and (
                low != "of" or _part_of(out)) \
                and (low == "of" or not _new_subject(out, tokens, i + 1)):
            out.append(Tok("op", "*", tok.start, tok.end, tok.space))
        elif low in ("plus", "minus") and is_value_end(prev) and _next_value_start(tokens, i + 1) \
                and not _new_subject(out, tokens, i + 1):
            out.append(Tok("op", "+" if low == "plus" else "-", tok.start, tok.end, tok.space))
        elif words_ahead[:2] in (["divided", "by"], ["multiplied", "by"]) and is_value_end(prev) \
                and _next_value_start(tokens, i + 2) and not _new_subject(out, tokens, i + 2):
            out.append(Tok("op", "/" if low == "divided" else "*", tok.start, tokens[i + 1].end, tok.space))
            i += 2
            continue
        elif low in _RELATION_WORDS and (rel := _word_relation(tokens, i, prev, out)) is not None:
            op, width = rel
            out.append(Tok("rel", op, tok.start, tokens[i + width - 1].end, tok.space))
            i += width
            continue
        elif low in _FUNC_WORDS and i + 1 < n and tokens[i + 1].kind == "lp" and not tokens[i + 1].space:
            out.append(Tok("func", low, tok.start, tok.end, tok.space))
        elif len(word) == 1 and word.isascii() and word not in "xX" and i + 1 < n and tokens[i + 1].kind == "num" \
                and tokens[i + 1].start == tok.end and tokens[i + 1].text.isdigit() and len(tokens[i + 1].text) <= 2 \
                and not (i + 2 < n and tokens[i + 2].start == tokens[i + 1].end and tokens[i + 2].kind == "word"):
            out.append(Tok("name", word + tokens[i + 1].text, tok.start, tokens[i + 1].end, tok.space))  # D3, P2
            i += 2
            continue
        elif len(word) == 1 and word.isascii() and not (word in PROSE_LETTERS and i + 1 < n and tokens[i + 1].kind == "word"):
            out.append(Tok("name", word, tok.start, tok.end, tok.space))  # "a half", "a total": prose, not a name
        else:
            out.append(tok)
        i += 1
    return out


# ---- word operators: "half of 12", "twice 5", "two-thirds of 9", "4 squared", "the square root of 16" ----------
_MULTIPLIERS = {"half": (1, 2), "twice": (2, 1), "double": (2, 1), "triple": (3, 1), "thrice": (3, 1),
                "quadruple": (4, 1)}
_ORDINAL_PARTS = {"half": 2, "halves": 2, "third": 3, "thirds": 3, "quarter": 4, "quarters": 4, "fourth": 4,
                  "fourths": 4, "fifth": 5, "fifths": 5, "sixth": 6, "sixths": 6, "seventh": 7, "sevenths": 7,
                  "eighth": 8, "eighths": 8, "ninth": 9, "ninths": 9, "tenth": 10, "tenths": 10}
_SMALL_NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
                  "ten": 10, "eleven": 11, "twelve": 12}
_RELATION_WORDS = {"equals", "is", "equal", "isn't", "isn’t", "does", "doesn't", "doesn’t"}
# "the double 4", "the second half 4 * 85": after these a multiplier word is a noun or an adjective
_NOT_MULTIPLIER_AFTER = {"the", "a", "an", "first", "second", "third", "last", "other", "each", "every", "this",
                         "that", "his", "her", "their", "its", "our", "my", "your"}


def _word(tokens: Sequence[Tok], j: int) -> str | None:
    return tokens[j].text.lower().replace("’", "'") if j < len(tokens) and tokens[j].kind == "word" else None


def _as_many_as(tokens: Sequence[Tok], j: int) -> bool:
    return _word(tokens, j) == "as" and _word(tokens, j + 1) in ("many", "much") and _word(tokens, j + 2) == "as"


def _spoken_fraction(tokens: Sequence[Tok], i: int) -> tuple[int, int, int] | None:
    """(numerator, denominator, index after the words) of a spoken multiplier at tokens[i]: "half", "twice",
    "a third", "two-thirds", "three quarters", "one-half"; None otherwise."""
    first = _word(tokens, i)
    if first is None:
        return None
    if first in _MULTIPLIERS:
        p, q = _MULTIPLIERS[first]
        return p, q, i + 1
    parts = first.split("-")
    if len(parts) == 2 and parts[0] in _SMALL_NUMBERS and parts[1] in _ORDINAL_PARTS:
        p, q = _SMALL_NUMBERS[parts[0]], _ORDINAL_PARTS[parts[1]]
        return (p, q, i + 1) if (p == 1) == (not parts[1].endswith("s")) else None  # "one-third", "two-thirds"
    second = _word(tokens, i + 1)
    if second in _ORDINAL_PARTS and (first in ("a", "an", "one") or first in _SMALL_NUMBERS):
        p = 1 if first in ("a", "an") else _SMALL_NUMBERS[first]
        if (p == 1) != second.endswith("s"):  # "a third", "three quarters"; not "two third"
            return p, _ORDINAL_PARTS[second], i + 2
    return None


def _atom_end(tokens: Sequence[Tok], j: int) -> int | None:
    """The index after the operand that starts at tokens[j] (`$`, a number or a letter with an optional glued
    `%`, or a bracketed group), else None."""
    if j < len(tokens) and tokens[j].kind == "unit" and tokens[j].text == "$":
        j += 1
    if j >= len(tokens):
        return None
    tok = tokens[j]
    if tok.kind == "lp":
        depth = 0
        for k in range(j, min(len(tokens), j + 200)):
            depth += {"lp": 1, "rp": -1}.get(tokens[k].kind, 0)
            if depth == 0:
                return k + 1
        return None
    if tok.kind == "num" or (tok.kind == "word" and len(tok.text) == 1 and tok.text.isascii()
                             and tok.text not in PROSE_LETTERS):
        k = j + 1
        if k < len(tokens) and tokens[k].kind == "op" and tokens[k].text == "%" and not tokens[k].space:
            k += 1
        return k
    return None


def _operand_alone(tokens: Sequence[Tok], k: int) -> bool:
    """Nothing after an operand ends at k extends it additively (`half of 12 + 4`: (12 + 4)/2 or 6 + 4?); its
    unit or noun words are skipped, and a power binds tighter than "of" anyway (`two-fifths of 500cm³`)."""
    skipped = 0
    while k < len(tokens) and tokens[k].kind == "word" and skipped < 2 and _word(tokens, k) not in (
            "plus", "minus", "and", "times"):
        k += 1
        skipped += 1
    if k >= len(tokens):
        return True
    tok = tokens[k]
    return not (tok.kind == "op" and tok.text in ("+", "-", "−", "–")) and _word(tokens, k) not in (
        "plus", "minus", "times")


def _word_operator(tokens: Sequence[Tok], i: int, out: Sequence[Tok]) -> tuple[list[Tok], int] | None:
    """Spoken operators read exactly: a multiplier before an operand ("half of 12", "twice 5", "a third of
    the 12", "three times as many as 4", "two-thirds of 9"), "the square root of 16", a power after one
    ("4 squared", "2 cubed") and a small number word before "times". Where the operand is not alone
    (`half of 12 + 4`), an unreadable token is emitted so the side is not read. (tokens, next index) or None."""
    tok = tokens[i]
    low = _word(tokens, i)
    prev = out[-1] if out else None
    if low in ("squared", "cubed") and prev is not None and prev.kind in ("num", "name", "rp") and not (
            len(out) >= 2 and out[-2].kind == "op" and out[-2].text in ("*", "/", "^")):
        return [Tok("op", "^", tok.start, tok.start, tok.space), Tok("num", "2" if low == "squared" else "3",
                                                                        tok.start, tok.end)], i + 1
    if low in _SMALL_NUMBERS and _word(tokens, i + 1) == "times" and (
            _next_value_start(tokens, i + 2) or _as_many_as(tokens, i + 2)):
        return [Tok("num", str(_SMALL_NUMBERS[low]), tok.start, tok.end, tok.space)], i + 1
    j = i + (low == "the")
    if _word(tokens, j) in _POWER_NOUNS and _word(tokens, j + 1) == "of":
        return _power_of(tokens, i, j + 2, _POWER_NOUNS[_word(tokens, j) or ""])
    if _word(tokens, j) in ("square", "cube") and _word(tokens, j + 1) == "root" and _word(tokens, j + 2) == "of":
        func, after = ("sqrt" if _word(tokens, j) == "square" else "cbrt"), j + 3
    elif j > i and _word(tokens, j) in _MULTIPLIERS and _MULTIPLIERS[_word(tokens, j) or ""][1] == 1 \
            and _word(tokens, j + 1) == "of":
        p, q = _MULTIPLIERS[_word(tokens, j) or ""]  # "the double of 8", "the triple of x": a multiple
        func, after = None, j + 1
    elif (fraction := _spoken_fraction(tokens, i)) is not None and not is_value_end(prev) \
            and not (prev is not None and prev.kind == "word" and prev.text.lower() in _NOT_MULTIPLIER_AFTER):
        p, q, after = fraction
        func = None
        if (q != 1 or low in ("a", "an", "one")) and _word(tokens, after) not in ("of", "the") \
                and not _as_many_as(tokens, after):
            return None  # "the second half 4 * 85": half is a noun here, not half of 4
    else:
        return None
    if _word(tokens, after) == "of":
        after += 1
    elif func is None and _as_many_as(tokens, after):
        after += 3
    if _word(tokens, after) == "the":
        after += 1
    end = _atom_end(tokens, after)
    if end is None:
        return None
    last = tokens[after - 1]
    if not _operand_alone(tokens, end):
        return [Tok("unsup", " ".join(t.text for t in tokens[i:after]), tok.start, last.end, tok.space)], after
    if func is not None:
        return [Tok("func", func, tok.start, last.end, tok.space)], after
    if q == 1:
        return [Tok("num", str(p), tok.start, tok.end, tok.space), Tok("op", "*", tok.end, last.end)], after
    return [Tok("lp", "(", tok.start, tok.start, tok.space), Tok("num", str(p), tok.start, tok.start),
            Tok("op", "/", tok.start, tok.start), Tok("num", str(q), tok.start, tok.end), Tok("rp", ")", tok.end, tok.end),
            Tok("op", "*", tok.end, last.end)], after


_POWER_NOUNS = {"square": "2", "cube": "3"}


def _power_of(tokens: Sequence[Tok], i: int, after: int, exponent: str) -> tuple[list[Tok], int] | None:
    """`the square of 7`, `the cube of x`: the operand right after "of" (a number or a letter) to that power;
    an operand that is not a lone number or letter, or that something after it extends (`the square of 3 + 4`),
    gives an unreadable token, so the side is not read (never the operand without its power)."""
    tok = tokens[i]
    if _word(tokens, after) == "the":
        after += 1
    end = _atom_end(tokens, after)
    last = tokens[after - 1]
    unread = [Tok("unsup", " ".join(t.text for t in tokens[i:after]), tok.start, last.end, tok.space)]
    if end is None or end != after + 1 or tokens[after].kind == "unit" or not _operand_alone(tokens, end):
        return unread, after
    operand = tokens[after]
    if operand.kind == "word":
        operand = Tok("name", operand.text, operand.start, operand.end, operand.space)
    return [Tok("lp", "(", tok.start, tok.start, tok.space), replace(operand, space=False),
            Tok("rp", ")", operand.end, operand.end), Tok("op", "^", operand.end, operand.end),
            Tok("num", exponent, operand.end, operand.end)], end


def _after_value(out: Sequence[Tok]) -> bool:
    """The tokens so far end with a value, possibly followed by its unit words (`5 hours`, `50 sacks`)."""
    k = len(out) - 1
    while k >= 0 and out[k].kind == "unit" and out[k].text != "$":
        k -= 1
    return k >= 0 and is_value_end(out[k])


_NOT_NOUNS = {
    "of", "more", "less", "fewer", "than", "times", "dozen", "dozens", "half", "halves", "quarter", "quarters",
    "third", "thirds", "fourth", "fourths", "fifth", "fifths", "dime", "dimes", "nickel", "nickels", "penny",
    "pennies", "pair", "pairs", "and", "or", "the", "a", "an", "each", "every", "per", "is", "are", "was", "were",
    "be", "to", "from", "for", "in", "on", "at", "by", "with", "so", "then", "thus", "which", "that", "it", "he",
    "she", "they", "we", "you", "his", "her", "their", "its", "left", "remaining", "plus", "minus",
    "divided", "multiplied", "x", "equals", "equal", "percent", "only", "about", "around", "over", "under",
    "extra", "another", "other", "new", "old", "all", "both", "if", "when", "because", "since", "as",
}


def _noun(tok: Tok) -> bool:
    return tok.kind == "word" and len(tok.text) > 1 and tok.text.isalpha() and tok.text.islower() \
        and tok.text not in _NOT_NOUNS and word_unit(tok.text) is None


def _operator_at(tokens: Sequence[Tok], j: int) -> str | None:
    """The binary operator at tokens[j] when a value follows it (`/ 10`, `x 50`, `* $3`), else None."""
    if j >= len(tokens):
        return None
    tok = tokens[j]
    if tok.kind == "op" and tok.text in ("+", "-", "*", "/"):
        op = tok.text
    elif tok.kind == "word" and tok.text.lower() in ("x", "times") and tok.space:
        op = "*"
    else:
        return None
    return op if _next_value_start(tokens, j + 1) and tokens[j + 1].kind != "lp" else None


def _count_noun(tokens: Sequence[Tok], i: int, out: Sequence[Tok]) -> int:
    """How many words at tokens[i] name what a number counts, so they read like a unit (0 if they don't).

    `6 monkeys / 10 animals * 100%`, `27 green marbles + 14 yellow marbles`, `50 snowballs / 200 snowballs`:
    one or two lowercase words between a number and an operator whose other operand is a number. Adding or
    subtracting needs the same noun on both operands (`4 quarters + 1 dime` is money, not 5); before a
    relation the number must itself be an operand counted in a noun an earlier operand used (`5 apples + 3
    apples = 8`; not the subject in `5 apples = 5`, nor `1/3 gives b = …`).
    Coins, dozens, pairs and fractions words are never nouns here: they change the value."""
    prev = out[-1] if out else None
    if prev is None or prev.kind != "num" or not tokens[i].space or not _noun(tokens[i]):
        return 0
    for width in (1, 2):
        words = tokens[i:i + width]
        if len(words) < width or not all(_noun(w) or (k == width - 1 and word_unit(w.text)) for k, w in
                                         enumerate(words)) or not all(w.space for w in words):
            return 0
        j = i + width
        op = _operator_at(tokens, j)
        if op in ("*", "/"):
            return width
        if op in ("+", "-"):
            k = j + 1
            while k < len(tokens) and tokens[k].kind == "unit":
                k += 1
            after = [t.text.lower() for t in tokens[k + 1:k + 3] if t.kind == "word"]
            return width if words[-1].text.lower() in after else 0
        if j < len(tokens) and tokens[j].kind == "rel" and len(out) >= 2 and out[-2].kind == "op" \
                and out[-2].text in ("+", "-", "*", "/") \
                and any(t.kind == "unit" and same_noun(t.text.lower(), words[-1].text.lower()) for t in out):
            return width  # the last operand, counted in a noun an earlier operand used: `13 marbles + 4 marbles =`
        if j >= len(tokens) or tokens[j].kind != "word":
            return 0
    return 0


def _between_counted_words(tokens: Sequence[Tok], i: int, out: Sequence[Tok]) -> bool:
    """`6 sets x every 2 hours`: a spaced `x` after a counted noun and before a word is ×, not a name."""
    nxt = tokens[i + 1] if i + 1 < len(tokens) else None
    return (len(out) >= 2 and out[-1].kind == "word" and out[-2].kind == "num" and tokens[i].space
            and nxt is not None and nxt.kind == "word" and nxt.space)


_SUBJECT_VERBS = {"is", "are", "gives", "makes", "yields"}


def _new_subject(out: Sequence[Tok], tokens: Sequence[Tok], j: int) -> bool:
    """`8*45 = 360 divided by 5 is 360/5 = 72`: a word operator after a lone right side, whose result is
    then described with "is", starts a new subject (360 divided by 5), not a longer right side."""
    if len(out) < 2 or out[-1].kind != "num" or out[-2].kind != "rel":
        return False
    k = j
    while k < len(tokens) and (tokens[k].kind == "unit" or tokens[k].kind == "num"):
        k += 1
    return k < len(tokens) and tokens[k].kind == "word" and tokens[k].text.lower() in _SUBJECT_VERBS


_GROUP_WORD = re.compile(r"[A-Za-z]+(?:['’][A-Za-z]+)*")
# Words that change the value of a number beside them, or state one of their own: what no reader may drop as a noun
# the number counts (`10 = 5 pairs`, `3 \\text{ squared} = 9`, `1000 = 1 grand`), nor take as a label of a value.
SCALE_WORDS = frozenset((  # nouns that count in groups or scale a number: "5 pairs", "2 grand", "3 k"
    "pair", "pairs", "couple", "couples", "dozen", "dozens", "score", "scores", "gross", "grand", "k", "bn", "mn",
    "lakh", "lakhs", "crore", "crores", "ream", "reams", "trio", "trios", "quartet", "quartets", "myriad", "myriads",
    "hundred", "hundreds", "thousand", "thousands", "million", "millions", "billion", "billions", "trillion",
    "trillions", "percent", "percents", "percentage", "percentages", "pct",
))
VALUE_WORDS = SCALE_WORDS | frozenset((
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
    "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty", "thirty", "forty",
    "fifty", "sixty", "seventy", "eighty", "ninety", "half", "halves", "halved", "halve", "third", "thirds", "quarter",
    "quarters", "fourth", "fourths", "fifth", "fifths", "sixth", "sixths", "seventh", "sevenths", "eighth", "eighths",
    "ninth", "ninths", "tenth", "tenths", "twelfth", "twelfths", "hundredth", "hundredths", "thousandth",
    "thousandths", "twice", "double", "doubled", "triple", "tripled", "thrice", "quadruple", "quadrupled", "fold",
    "squared", "cubed", "square", "squares", "cube", "cubes", "sq", "root", "roots", "sqrt", "power", "powers",
    "exponent", "times", "plus", "minus", "negative", "negated", "negate", "opposite", "inverse", "inverted",
    "invert", "reciprocal", "reversed", "reverse", "rounded", "round", "floored", "floor", "ceiling", "ceil",
    "truncated", "abs", "absolute", "remainder", "mod", "modulo", "factorial", "log", "logarithm", "net", "gross",
    "more", "less", "fewer", "than", "over", "off", "away", "short", "extra", "point", "versus", "vs",
))
# words that make a sentence state something other than the value it names: a negation, a bound, an estimate, a
# condition, a verdict on it
HEDGE_WORDS = frozenset((
    "not", "no", "never", "nor", "neither", "isn", "isnt", "aren", "arent", "wasn", "wasnt", "doesn", "doesnt",
    "don", "dont", "didn", "didnt", "won", "wont", "cannot", "can't", "hardly", "barely", "least", "most", "about",
    "around", "approx", "approximately", "nearly", "almost", "roughly", "estimated", "estimate", "maybe", "perhaps",
    "possibly", "probably", "guess", "if", "unless", "assuming", "suppose", "would", "could", "might", "instead",
    "rather", "except", "exceeds", "exceed", "beyond", "above", "below", "under", "up", "within", "between", "or",
    "either", "non", "wrong", "incorrect", "false", "mistake", "error", "greater", "smaller", "larger", "fewer",
))
# words that, in brackets after a number, may say something about its value ("5 (squared)", "3.33 (rounded)",
# "2 (half of the rewards)", "4 (in thousands)"): such a bracket is not a label, and is read (or not) as before
_LABEL_HAZARDS = VALUE_WORDS | HEDGE_WORDS | {"per", "each", "every", "in", "into"}


def label_words(words: Sequence[str]) -> bool:
    """Can these bracketed words only label a number (none of them may say something of its value)?"""
    return bool(words) and len(words) <= 6 and all(
        _GROUP_WORD.fullmatch(w) and w.lower().replace("’", "'").removesuffix("'s") not in _LABEL_HAZARDS
        for w in words)


def _label_group(tokens: Sequence[Tok], i: int, out: Sequence[Tok]) -> int | None:
    """`7995 (total cookies) - 2595 (rainbow cookies) = 4500`, `180 minutes (before dinner) + 80`: words in
    brackets, set off by a space after a number (or its unit) and followed by an operator or a relation, label
    that number; the index of the closing bracket, else None. A bracket with a word that may change the value
    (`_LABEL_HAZARDS`), with anything but words, or glued to the number (`20(Pencil Price)`, a product) is no
    label."""
    if not tokens[i].space or tokens[i].text != "(" or not out:
        return None
    k = len(out) - 1
    while k >= 0 and out[k].kind == "unit" and out[k].text != "$":
        k -= 1
    if k < 0 or out[k].kind != "num":
        return None
    j = i + 1
    while j < len(tokens) and tokens[j].kind == "word" and _GROUP_WORD.fullmatch(tokens[j].text) and j - i <= 6:
        if tokens[j].text.lower().replace("’", "'").removesuffix("'s") in _LABEL_HAZARDS:
            return None
        j += 1
    if j == i + 1 or j >= len(tokens) or tokens[j].kind != "rp" or tokens[j].text != ")":
        return None
    nxt = tokens[j + 1] if j + 1 < len(tokens) else None
    if nxt is None or not (nxt.kind == "rel" or (nxt.kind == "op" and nxt.text in ("+", "-", "*", "/"))):
        return None
    return j


def _word_group(tokens: Sequence[Tok], i: int, prev: Tok | None) -> tuple[str, int] | None:
    """`.1(Number of Minutes)`, `20(Pencil Price)`, `(Number of Minutes) = 4`: words in parentheses used as
    an operand name one quantity (`number_of_minutes`). Only where it is an operand: glued after a value,
    after an operator, or followed by an operator or relation; `= 33 (rounded)` stays prose."""
    k = i + 1
    while k < len(tokens) and tokens[k].kind == "word" and _GROUP_WORD.fullmatch(tokens[k].text) and k - i <= 6:
        k += 1
    if k == i + 1 or k >= len(tokens) or tokens[k].kind != "rp" or tokens[k].text != ")" or tokens[i].text != "(":
        return None
    nxt = tokens[k + 1] if k + 1 < len(tokens) else None
    operand = (prev is not None and not tokens[i].space and prev.kind in ("num", "rp")) \
        or (prev is not None and prev.kind == "op" and prev.text in ("+", "-", "*", "/")) \
        or (nxt is not None and (nxt.kind == "rel" or (nxt.kind == "op" and nxt.text in ("+", "-", "*", "/"))))
    if not operand:
        return None
    name = "_".join(re.sub(r"['’]", "", t.text).lower() for t in tokens[i + 1:k])
    return name, k


def _part_of(out: Sequence[Tok]) -> bool:
    """Whether the value before "of" is a part of what follows (`20% of 50`, `1/3 of 30`, `(2/3) of 9`, `0.5 of
    8`): a product. A whole number is not (`2 of 6` chooses two of six, `3 of 5 books`)."""
    prev = out[-1] if out else None
    if prev is None:
        return False
    if prev.text == "%" or prev.kind == "rp":
        return True
    fraction = len(out) >= 3 and out[-2].kind == "op" and out[-2].text == "/"
    return prev.kind == "num" and ("." in prev.text or fraction)


def _per_item(tokens: Sequence[Tok], i: int, out: Sequence[Tok]) -> bool:
    """`$60/shoe`, `5 tasks/cycle`, `2 kg/portion`, `$194/meter`: a slash glued between a number (or a number's
    unit or counted noun) and a noun or unit word (no value: a word of several letters) makes the number a rate
    per that word; `60/x` divides by the name x, and a word glued to a bracket or power after it (`60/sin(x)`,
    `3/cm^2`) is left as it was."""
    prev = out[-1] if out else None
    word = tokens[i + 1] if i + 1 < len(tokens) else None
    if word is None or prev is None or tokens[i].space or word.space or prev.end != tokens[i].start:
        return False
    if word.kind != "word" or not (_noun(word) or word_unit(word.text)):
        return False
    if prev.kind == "unit" and prev.text != "$" or prev.kind == "word" and _noun(prev):
        counted = len(out) >= 2 and out[-2].kind == "num"
    else:
        counted = prev.kind == "num"
    nxt = tokens[i + 2] if i + 2 < len(tokens) else None
    return counted and (nxt is None or nxt.space or nxt.kind not in ("lp", "op", "num", "name", "word"))


def _mark_compound(out: list[Tok]) -> None:
    # "$12 per hour": the number's unit is a rate, which no single-dimension check applies to; "60 minutes
    # per hour" (one dimension over itself) is a conversion factor into minutes: `conv:minute`
    per = word_unit(out[-1].text)
    for k in range(len(out) - 3, -1, -1):
        if out[k].kind == "num":
            own = out[k].unit
            factor = conversion_factor(per[1], own) if per is not None and own else None
            # only the exact factor converts: "8 hours a day" is a rate, "60 minutes per hour" a conversion
            conversion = factor is not None and out[k].text.replace(".", "", 1).isdigit() \
                and Fraction(out[k].text) == factor
            out[k] = replace(out[k], unit=f"conv:{own}" if conversion else "rate",
                             per=None if conversion else per[1] if per is not None else out[-1].text.lower())
            return
        if out[k].kind != "unit":
            return


def _and_fraction(tokens: Sequence[Tok], j: int, prev: Tok) -> tuple[Tok, Tok, int] | None:
    """`16 and 2/3`, `16 and (2/3)`, `$3 and $1/3`: after "and", a proper fraction completing a whole number;
    (numerator, denominator, index of the last token used) or None."""
    if prev.kind != "num" or not prev.text.isdigit():
        return None
    k = j
    if k < len(tokens) and tokens[k].kind == "unit" and tokens[k].text == "$":
        k += 1
    bracketed = k < len(tokens) and tokens[k].kind == "lp" and tokens[k].text == "("
    k += bracketed
    if k + 2 >= len(tokens):
        return None
    num, slash, den = tokens[k], tokens[k + 1], tokens[k + 2]
    if not (num.kind == "num" and slash.kind == "op" and slash.text == "/" and not slash.space and den.kind == "num"
            and not den.space and num.text.isdigit() and den.text.isdigit() and 0 < int(num.text) < int(den.text) <= 100):
        return None
    last = k + 2
    if bracketed:
        if last + 1 >= len(tokens) or tokens[last + 1].kind != "rp":
            return None
        last += 1
    return num, den, last


def _mixed_number(tokens: Sequence[Tok], i: int, prev: Tok) -> bool:
    """`1 1/2` (a whole number, then a proper fraction) reads as 1 + 1/2."""
    if prev.kind != "num" or "." in prev.text or i + 2 >= len(tokens):
        return False
    num, slash, den = tokens[i], tokens[i + 1], tokens[i + 2]
    return (num.kind == "num" and num.space and slash.kind == "op" and slash.text == "/" and not slash.space
            and den.kind == "num" and not den.space and num.text.isdigit() and den.text.isdigit()
            and 0 < int(num.text) < int(den.text) <= 100)


def _times_x(tokens: Sequence[Tok], i: int) -> bool:
    """`x` after a value is × when a number, `(` or `$` follows (`3 x 4`, `3x4`), or, spaced, a word follows
    (`3 x the height of 12`, a product whose operand is prose); `3x-5`, `2x + 1` keep x a name."""
    nxt = tokens[i + 1] if i + 1 < len(tokens) else None
    if nxt is None:
        return False
    if nxt.kind == "lp" and not nxt.space and not tokens[i].space:
        return False  # `3x(1/3)`: a name times a group
    if nxt.kind in ("num", "lp") or (nxt.kind == "unit" and nxt.text == "$"):
        return True
    return nxt.kind == "word" and tokens[i].space and nxt.space


def _label_colon(out: Sequence[Tok]) -> bool:
    """`Day 3:`, `Bowler 2:`: a capitalised word and a number before the colon name a line of a list."""
    return len(out) >= 2 and out[-1].kind == "num" and out[-2].kind == "word" and out[-2].text[:1].isupper() \
        and out[-1].space


def _time_of_day(tokens: Sequence[Tok], i: int, prev: Tok | None) -> bool:
    """`11:00`, `7:50`: hours, a colon and two digits of minutes, glued."""
    nxt = tokens[i + 1] if i + 1 < len(tokens) else None
    return (prev is not None and nxt is not None and prev.kind == "num" and nxt.kind == "num" and not nxt.space
            and not tokens[i].space and len(nxt.text) == 2 and len(prev.text) <= 2 and (prev.text + nxt.text).isdigit()
            and int(nxt.text) < 60)


def _ratio_colon(tokens: Sequence[Tok], i: int, prev: Tok | None) -> bool:
    """`3:4` and `7,980 : 420` are ratios; `30%: $1000` and `Day 3:100+20=120` are labels (the number after
    the colon starts a computation)."""
    if not (is_value_end(prev) and _next_value_start(tokens, i + 1)):
        return False
    nxt = tokens[i + 1]
    if tokens[i].space != nxt.space:
        return False
    j = i + 1
    while j < len(tokens) and tokens[j].kind in ("num", "unit"):
        j += 1
    after = tokens[j] if j < len(tokens) else None
    return not (after is not None and (after.kind == "lp" or (after.kind == "op" and after.text in "+-*/^")))


def _factorial_here(tokens: Sequence[Tok], i: int, prev: Tok | None) -> bool:
    """`5!` is a factorial only when glued to a value and followed by an operator, relation or ')'."""
    if prev is None or tokens[i].space or not is_value_end(prev):
        return False
    nxt = tokens[i + 1] if i + 1 < len(tokens) else None
    return nxt is not None and (nxt.kind in ("rel", "rp") or (nxt.kind == "op" and nxt.text != "!"))


# words after which a lone letter starts the clause ("so x is 3", "we know that n is 4"); after any other
# word the letter names a thing inside a longer subject ("square B", "City C")
_SUBJECT_BEFORE = {"so", "then", "thus", "hence", "therefore", "now", "that", "since", "because", "if", "when",
                   "where", "let", "suppose", "assume", "say", "know", "get", "means", "while", "as",
                   "once", "value", "number"}

_IS_PHRASES: tuple[tuple[tuple[str, ...], str], ...] = (
    (("is", "not", "equal", "to"), "!="), (("isn't", "equal", "to"), "!="), (("does", "not", "equal"), "!="),
    (("doesn't", "equal"), "!="), (("is", "not", "less", "than"), ">="), (("is", "not", "greater", "than"), "<="),
    (("is", "not", "more", "than"), "<="), (("is", "not"), "!="), (("isn't",), "!="),
    (("is", "equal", "to"), "="), (("equal", "to"), "="), (("equals",), "="),
    (("is", "less", "than", "or", "equal", "to"), "<="), (("is", "greater", "than", "or", "equal", "to"), ">="),
    (("is", "less", "than"), "<"), (("is", "greater", "than"), ">"), (("is", "more", "than"), ">"),
    (("is", "at", "least"), ">="), (("is", "at", "most"), "<="), (("is",), "="),
)


def _expression_before(out: Sequence[Tok]) -> bool:
    """The maths just before ends an expression with an operator (`5 + 3`, `2 x 4`), not a lone number nor a
    fraction (`4/7 is equal to $24` is 4/7 of something)."""
    for tok in reversed(out[-60:]):
        if tok.kind == "op" and tok.text in ("+", "-", "*", "^"):
            return True
        if tok.kind not in ("num", "name", "rp", "lp", "unit", "func", "op"):
            return False
    return False


def _word_relation(tokens: Sequence[Tok], i: int, prev: Tok | None, out: Sequence[Tok]) -> tuple[str, int] | None:
    """`x is 3`, `5 + 3 equals 8`, `x is at least 2`, `3 + 3 is not 7`: (relation, number of words) or None.

    "is" relates a single-letter name or an expression (`5 + 3 is 8`), not a lone quantity (`20 minutes is
    1/3 hour` is a unit conversion)."""
    for phrase, op in _IS_PHRASES:
        width = len(phrase)
        words = tokens[i:i + width]
        if len(words) < width or any(t.kind != "word" or t.text.lower().replace("’", "'") != w
                                     for t, w in zip(words, phrase)):
            continue
        if not _next_value_start(tokens, i + width):
            return None
        subject = prev is not None and prev.kind == "name" and prev.text not in PROSE_LETTERS
        if phrase[0] in ("is", "isn't") and not (subject or (is_value_end(prev) and _expression_before(out))):
            return None
        if phrase[0] != "is" and not is_value_end(prev):
            return None
        before = tokens[i - 2] if i >= 2 else None
        if prev is not None and prev.kind == "name" and before is not None and before.kind == "word" \
                and before.text.lower() not in _SUBJECT_BEFORE:
            return None  # "the angles of B and C is equal to …", "the area of square B is 81": B is not the subject
        return op, width
    return None
