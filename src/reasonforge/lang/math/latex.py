"""The LaTeX reader of `lang.math.text`: a delimited LaTeX span (`\\frac`, `\\sqrt`, `^{}`, `\\left( \\right)`,
`\\boxed{}`, `\\le`, ...) turned into the same tokens as plain text (recursive over groups, depth-capped)."""

from __future__ import annotations

import re
from dataclasses import replace

from reasonforge.lang.math.tokens import (
    LATEX_SIMPLE,
    PLAIN_MATH,
    VALUE_WORDS,
    Tok,
    is_value_end,
    label_words,
    lex_plain,
)
from reasonforge.lang.math.units import word_unit

__all__ = ["LatexReader"]

_MAX_LATEX_DEPTH = 40
# command names by what they become
_LATEX_GREEK = {"alpha", "beta", "gamma", "delta", "epsilon", "varepsilon", "theta", "vartheta", "lambda", "mu",
                "nu", "sigma", "phi", "varphi", "omega", "rho", "tau", "eta", "zeta", "kappa", "psi", "chi", "xi"}
_LATEX_SPACE = {",", ";", ":", "!", " ", ">", "left", "right", "big", "Big", "bigg", "Bigg", "bigl", "bigr",
                "Bigl", "Bigr", "biggl", "biggr", "displaystyle", "textstyle", "limits", "nolimits", "$", "mathclap"}
_LATEX_BREAK = {"\\", "quad", "qquad", "Rightarrow", "Longrightarrow", "implies", "to", "iff", "Leftrightarrow",
                "therefore", "because", "rightarrow", "longrightarrow", "Longleftrightarrow", "&", "newline",
                "text_break", "hline", "cr"}
_LATEX_FUNCS = {"sin", "cos", "tan", "cot", "sec", "csc", "ln", "exp", "gcd"}
_LATEX_TEXT = {"text", "textbf", "textit", "textrm", "mathrm", "mathit", "mbox", "textnormal", "mathbf",
               "operatorname", "textsf", "mathsf", "texttt"}
_LATEX_GROUP_TRANSPARENT = {"boxed", "fbox", "underline", "underbrace", "overbrace", "color", "textcolor"}
_LATEX_SWALLOW = {"sum", "prod", "int", "lim", "max", "min", "sup", "inf", "bigcup", "bigcap", "iint", "oint"}
_LATEX_FRAC = {"frac", "dfrac", "tfrac", "cfrac"}
_LATEX_BINOM = {"binom", "dbinom", "tbinom"}
# prose joining maths inside `\text{…}` ("and", "if"), not what a number counts
_CONNECTIVE_WORDS = {"and", "or", "if", "so", "then", "where", "when", "for", "with", "since", "because", "thus",
                     "hence", "therefore", "is", "are", "but", "as", "by", "of", "to", "from", "per", "i", "e", "ie",
                     "eg", "mod", "else", "otherwise", "not", "no"}
# inside bars, what makes them something other than an absolute value ("such that", a relation)
_RELATION_INSIDE = re.compile(r"[=<>]|\\(?:le|ge|leq|geq|neq|ne|lt|gt|in|mid|vert)\b")
# a recurring decimal `1.\overline{234}` (= 1233/999), read exactly
_REPEATING = re.compile(r"(\d*)\.(\d{0,12})\\overline\s*\{\s*(\d{1,12})\s*\}")
# a rate written as one unit: `\text{ km/day}`, `\text{dollars per hour}`
_RATE = re.compile(r"([A-Za-z]+)\s*(?:/|\bper\b)\s*([A-Za-z]+)")
# the base of `\\log_2 8`, `\\log_{10} x`, `\\log_b a`: a whole number or one letter
_LOG_BASE = re.compile(r"\s*_\s*(?:\{\s*(\d{1,3}|[A-Za-z])\s*\}|(\d|[A-Za-z]))")
_ONE_LETTER_UNITS = {"m": "meter", "g": "gram", "s": "second", "h": "hour", "l": "liter", "L": "liter"}


def _in_base(number: Tok | None, base: str, under: int) -> str | None:
    """The value of a numeral written in a base (`1202_7`, `441_{10}`: digits glued to the subscript's `_` at
    `under`, each below the base), in decimal; None when the subscript is not such a base."""
    base = base.strip()
    if number is None or number.kind != "num" or number.end != under or \
            not number.text.isdigit() or not base.isdigit() or not 2 <= int(base) <= 36:
        return None
    digits = number.text
    return str(int(digits, int(base))) if all(int(d) < int(base) for d in digits) else None


# `\angle ABC`, `\angle{ABC}`: the points that name an angle; another point or command right after them
# (`\angle G G_1 B_5`) means the name goes on in a way not read
_ANGLE_NAME = re.compile(r"\s*(?:\{\s*([A-Z]{1,3})\s*\}|([A-Z]{1,3})(?![A-Za-z_'0-9]))")
_MORE_POINTS = re.compile(r"\s*(?:[A-Z]|\\[a-z])")


class LatexReader:
    """Converts a delimited LaTeX span into tokens (recursive over groups, depth-capped)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def group(self, i: int, end: int) -> tuple[int, int, int]:
        """(inner start, inner end, next index) of the `{…}` group or single token at i (after spaces)."""
        while i < end and self.text[i] in " \t\n":
            i += 1
        if i >= end:
            return i, i, i
        if self.text[i] == "{":
            depth = 0
            for j in range(i, end):
                c = self.text[j]
                if c == "\\":
                    continue
                if c == "{" and (j == 0 or self.text[j - 1] != "\\"):
                    depth += 1
                elif c == "}" and self.text[j - 1] != "\\":
                    depth -= 1
                    if depth == 0:
                        return i + 1, j, j + 1
            return i + 1, end, end  # unbalanced: the rest is the group
        if self.text[i] == "\\":
            m = re.compile(r"\\(?:[A-Za-z]+|.)").match(self.text, i, end)
            stop = m.end() if m else i + 1
            return i, stop, stop
        return i, i + 1, i + 1

    def absolute_end(self, i: int, end: int, out: list[Tok]) -> int | None:
        """The closing bar of an absolute value opened at i (`|x - 1| = 2`, `\\left| … \\right|`), else None. The
        bar opens one only where a value cannot end before it (so `a | b`, "divides", and `\\{x | x > 0\\}` stay
        unread), and the bars pair only with nothing between them that a bar, a relation or a brace level
        change could make something else."""
        if is_value_end(out[-1] if out else None):
            return None
        depth = 0
        for j in range(i + 1, min(end, i + 2000)):
            c = self.text[j]
            if c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
                if depth < 0:
                    return None
            elif c == "|":
                inner = self.text[i + 1:j]
                if depth != 0 or not inner.replace("\\right", "").strip() or _RELATION_INSIDE.search(inner):
                    return None
                return j
        return None

    def tokens(self, start: int, end: int, depth: int = 0) -> list[Tok]:
        if depth > _MAX_LATEX_DEPTH:
            return [Tok("unsup", "…", start, end)]
        out: list[Tok] = []
        text = self.text
        i = start
        space = False
        while i < end:
            c = text[i]
            if c in " \t\r\n~":
                space = True
                i += 1
                continue
            if c == "\\":
                i = self.command(i, end, depth, out, space)
            elif c == "{":
                a, b, i = self.group(i, end)
                out.append(Tok("lp", "(", a - 1, a, space))
                out.extend(self.tokens(a, b, depth + 1))
                out.append(Tok("rp", ")", b, min(b + 1, end)))
            elif c == "}":
                i += 1  # stray closing brace of malformed input
            elif c == "^":
                i = self.superscript(i, end, depth, out, space)
            elif c == "_":
                under = i
                a, b, i = self.group(i + 1, end)
                numeral = _in_base(out[-1] if out else None, text[a:b], under)
                if numeral is not None:
                    out[-1] = replace(out[-1], text=numeral, end=i)
                else:
                    out.append(Tok("unsup", "_" + text[a:b], a, b, space))
            elif c == "&":
                i += 1
            elif c == "|" and (close := self.absolute_end(i, end, out)) is not None:
                out.extend([Tok("func", "abs", i, i, space), Tok("lp", "(", i, i + 1)])
                out.extend(self.tokens(i + 1, close, depth + 1))
                out.append(Tok("rp", ")", close, close + 1))
                i = close + 1
            elif c == "|" or c == "'":
                out.append(Tok("unsup", c, i, i + 1, space))
                i += 1
            elif c.isalpha() and c.isascii():
                name = c
                j = i + 1
                # geometry names a segment or angle by its points: `BC`, `ABC` are one name, not a product
                while c.isupper() and j < end and text[j].isascii() and text[j].isupper() and j - i < 3:
                    j += 1
                if j < end and text[j].isascii() and text[j].islower() and j - i > 1:
                    j = i + 1  # `ABx`: read letter by letter
                name = text[i:j]
                if j < end and text[j] == "_":
                    a, b, j = self.group(j + 1, end)
                    sub = text[a:b].strip()
                    name = f"{c}_{sub}" if re.fullmatch(r"[A-Za-z0-9]+", sub) else ""
                out.append(Tok("name", name, i, j, space) if name else Tok("unsup", text[i:j], i, j, space))
                i = j
            elif (rep := _REPEATING.match(text, i, end)) is not None:
                whole, fixed, block = rep.group(1) or "0", rep.group(2), rep.group(3)
                numerator = int(whole + fixed + block) - int(whole + fixed)
                denominator = (10 ** len(block) - 1) * 10 ** len(fixed)
                a, b = rep.start(), rep.end()
                out.extend([Tok("lp", "(", a, a, space), Tok("num", str(numerator), a, b), Tok("op", "/", b, b),
                            Tok("num", str(denominator), b, b), Tok("rp", ")", b, b)])
                i = b
            else:
                m = PLAIN_MATH.match(text, i, end)
                assert m is not None
                for tok in lex_plain(text, m.start(), m.end()):
                    if tok.kind == "punct" and tok.text == "." and m.end() < end and not text[m.end()].isspace() \
                            and text[m.end()] not in "$,;":
                        tok = replace(tok, kind="unsup")  # `1.\dot{3}`: a point inside a number, not a full stop
                    elif tok.kind == "op" and tok.text == "!" and not is_value_end(out[-1] if out else None) \
                            and tok.end < end and text[tok.end].isalnum():
                        tok = replace(tok, kind="unsup")  # `!5`: the subfactorial, not an exclamation mark
                    elif tok.kind == "punct" or tok.kind == "op" and tok.text == "!" and not is_value_end(out[-1] if out else None):
                        tok = replace(tok, kind="break")
                    out.append(replace(tok, space=space or tok.space))
                i = m.end()
            space = False
        return out

    def superscript(self, i: int, end: int, depth: int, out: list[Tok], space: bool) -> int:
        a, b, nxt = self.group(i + 1, end)
        body = self.text[a:b].strip()
        if body in ("\\circ", "\\degree"):
            out.append(Tok("unit", "°", i, nxt, space, unit="degree"))
            return nxt
        if out and out[-1].kind == "unit" and body.isdigit():
            # `80\,\text{cm}^3`: the power belongs to the unit (a unit of its own), never to the number
            unit = out[-1]
            out[-1] = replace(unit, text=f"{unit.text}^{body}", end=nxt, unit=f"{unit.unit or unit.text}^{body}")
            return nxt
        out.append(Tok("op", "^", i, i + 1, space))
        out.append(Tok("lp", "(", a, a))
        out.extend(self.tokens(a, b, depth + 1))
        out.append(Tok("rp", ")", b, b))
        return nxt

    def command(self, i: int, end: int, depth: int, out: list[Tok], space: bool) -> int:
        text = self.text
        m = re.compile(r"\\(?:[A-Za-z]+|.)").match(text, i, end)
        if m is None:
            return i + 1
        name, nxt = m.group()[1:], m.end()
        if name in ("ldots", "dots", "cdots") and out and out[-1].kind == "num" and "." in out[-1].text \
                and out[-1].end == i and not out[-1].truncated:
            out[-1] = replace(out[-1], end=nxt, truncated=True)  # `0.333\ldots`: the digits stop, the value goes on
            return nxt
        if name in _LATEX_SPACE:
            if name in ("left", "right") and nxt < end and text[nxt] == ".":
                nxt += 1
            return nxt
        if name in _LATEX_BREAK:
            out.append(Tok("break", m.group(), i, nxt, space))
            return nxt
        if name in LATEX_SIMPLE:
            kind, value = LATEX_SIMPLE[name]
            out.append(Tok(kind, value, i, nxt, space))
            if kind == "func":
                out.append(Tok("lp", "(", nxt, nxt))
            return nxt
        if name in ("angle", "measuredangle"):
            # `\angle ABC`, `\angle{ABC}`, `\angle A`: an angle's name, one name (`angle_ABC`), never a product
            angle = _ANGLE_NAME.match(text, nxt, end)
            if angle is None or _MORE_POINTS.match(text, angle.end(), end):
                # `\angle G G_1 B_5`, `\angle A'B'C`: points with subscripts or primes, whose name is not read
                out.append(Tok("unsup", m.group(), i, nxt, space))
                return nxt
            if out and out[-1].kind in ("name", "word", "unit", "break") and out[-1].text.strip("~ ") == "m":
                out.pop()  # `m\angle A`, `\mathrm{m}\angle A`: the measure of the angle, its value, not m times it
                if out and out[-1].kind == "num" and out[-1].unit is not None:
                    out[-1] = replace(out[-1], unit=None)  # `2 \mathrm{~m} \angle C`: not 2 metres
            out.append(Tok("name", f"angle_{angle.group(1) or angle.group(2)}", i, angle.end(), space))
            return angle.end()
        if name in _LATEX_GREEK:
            out.append(Tok("name", name if name != "lambda" else "lambda_", i, nxt, space))
            return nxt
        if name in _LATEX_FUNCS:
            out.append(Tok("func", name, i, nxt, space))
            return nxt
        if name in ("begin", "end"):
            a, b, after = self.group(nxt, end)
            if name == "begin" and text[a:b].strip().rstrip("*") in ("alignat", "array", "tabular", "alignedat"):
                _, _, after = self.group(after, end)  # `\\begin{alignat*}{2}`: the column count, no factor
            out.append(Tok("break", m.group(), i, after, space))
            return after
        if name in _LATEX_FRAC or name in _LATEX_BINOM:
            a1, b1, mid = self.group(nxt, end)
            a2, b2, after = self.group(mid, end)
            first, second = self.tokens(a1, b1, depth + 1), self.tokens(a2, b2, depth + 1)
            if name in _LATEX_FRAC and out and out[-1].kind == "num" and [t.kind for t in (*first, *second)] == [
                    "num", "num"]:
                # `2\frac{6}{7}`: a mixed number (2 + 6/7) or a product (2 · 6/7)? the reader cannot tell
                out.append(Tok("unsup", text[i:after], i, after, space))
                return after
            if name in _LATEX_FRAC:
                out.extend([Tok("lp", "(", i, i, space), Tok("lp", "(", a1, a1), *first, Tok("rp", ")", b1, b1),
                            Tok("op", "/", b1, b1), Tok("lp", "(", a2, a2), *second, Tok("rp", ")", b2, b2),
                            Tok("rp", ")", after, after)])
            else:
                out.extend([Tok("func", "binomial", i, nxt, space), Tok("lp", "(", a1, a1), *first,
                            Tok("comma", ",", b1, b1), *second, Tok("rp", ")", after, after)])
            return after
        if name == "sqrt":
            degree: list[Tok] = []
            j = nxt
            if j < end and text[j] == "[":
                close = text.find("]", j, end)
                if close < 0:
                    out.append(Tok("unsup", "\\sqrt[", i, end, space))
                    return end
                degree = self.tokens(j + 1, close, depth + 1)
                j = close + 1
            a, b, after = self.group(j, end)
            body = self.tokens(a, b, depth + 1)
            if degree:
                out.extend([Tok("func", "root", i, nxt, space), Tok("lp", "(", a, a), *body, Tok("comma", ",", b, b),
                            *degree, Tok("rp", ")", after, after)])
            else:
                out.extend([Tok("func", "sqrt", i, nxt, space), Tok("lp", "(", a, a), *body,
                            Tok("rp", ")", after, after)])
            return after
        if name in _LATEX_TEXT:
            a, b, after = self.group(nxt, end)
            words = text[a:b].strip()
            unit = word_unit(words)
            if not words:
                return after
            if words.lower() in ("remainder", "remainder of", "with remainder", "with a remainder of") and out \
                    and out[-1].kind == "num":
                out.append(Tok("break", words, i, after, space))  # `19 \\text{ remainder } 8`: runs.py reads both
                return after
            if _labels(words, out, text[after:end]):
                return after  # `16 \text{ (snowflake)} + 19 \text{ (truck)}`: a label of the number, as in prose
            if out and is_value_end(out[-1]) and _VALUE_NEXT.match(text, after, end) and not (
                    words.lower() in _PERCENT_OF and out[-1].kind == "op" and out[-1].text == "%"):
                # `12 \text{ divided by } 3`, `3 \text{ and } 4`: words between two values join them somehow;
                # dropped, only the right one was read (`3 = 3`)
                out.append(Tok("unsup", text[i:after], i, after, space))
                return after
            if _changes_value(words, out, text[after:end]):
                # `3 \text{ times } 4 = 12`, `3 \text{ squared} = 9`: dropped, the words would leave `4 = 12`, `3 = 9`
                out.append(Tok("unsup", text[i:after], i, after, space))
                return after
            counted = bool(out) and out[-1].kind == "num" and (
                re.fullmatch(r"[A-Za-z]+", words) is not None and words.lower() not in _CONNECTIVE_WORDS
                or _rate(words) is not None)
            per = len(out) > 1 and out[-1].kind == "op" and out[-1].text == "/" and out[-2].kind in ("num", "unit") \
                and (unit is not None or words in _ONE_LETTER_UNITS)  # `240 / \text{speed}` divides
            rate = _rate(words)
            if per:
                # `\$5/\text{hour}`: the slash makes a rate of the unit, not a division by a quantity
                out[-1] = Tok("unit", "/" + words, out[-1].start, after, out[-1].space)
                _rated(out, words)
            elif rate and counted:
                out.append(Tok("unit", words, i, after, space))
                _rated(out, rate.group(2))
            elif unit:
                last = next((k for k in range(len(out) - 1, -1, -1) if out[k].kind == "num"), None) \
                    if out and out[-1].kind in ("num", "rp") else None
                if last is not None:
                    # as in prose: the value is in that unit (`2\text{ hours} = 120\text{ minutes}` converts, and
                    # so does `\frac12\text{ inch} = 20\text{ miles}`, through its last number)
                    out[last] = replace(out[last], unit=unit[1])
                out.append(Tok("unit", words, i, after, space, unit=unit[1]))
            elif name in ("mathrm", "operatorname") and words in _LATEX_FUNCS:
                out.append(Tok("func", words, i, after, space))
            elif counted:
                # `3\text{ m}`, `5\text{ apples}`: what the number counts, like a unit (never dropped so that
                # `5\text{ apples} + 3\text{ apples} = 9\text{ apples}` would vanish unread)
                letter = _ONE_LETTER_UNITS.get(words)
                out.append(Tok("unit", words, i, after, space, unit=letter))
                if letter:
                    out[-2] = replace(out[-2], unit=letter)
            elif words.lower() in _PERCENT_OF and out and out[-1].kind == "op" and out[-1].text == "%":
                out.append(Tok("op", "*", i, after, space))  # `25\% \text{ of } 2000`: a percent of a value
            elif out and out[-1].kind == "op" and out[-1].text not in ("%", "!") or _OPERATOR_NEXT.match(text, after, end):
                # `\text{Naomi's Points} + 17`: words in an operand's place are a value the reader does not know,
                # never nothing (dropped, they left `+17 = 68 + 17`)
                out.append(Tok("unsup", text[i:after], i, after, space))
            else:
                out.append(Tok("break", words, i, after, space))
            return after
        if name in _LATEX_GROUP_TRANSPARENT:
            if name in ("color", "textcolor"):
                _, _, nxt = self.group(nxt, end)  # the colour name
                if name == "color":
                    return nxt
            a, b, after = self.group(nxt, end)
            out.extend(self.tokens(a, b, depth + 1))
            return after
        if name == "log" and (base := _LOG_BASE.match(text, nxt, end)) is not None:
            out.append(Tok("func", "log_" + (base.group(1) or base.group(2)), i, base.end(), space))
            return base.end()
        if name in ("log", "ln"):
            # `\\log x` without a base is unread: 10 in one text, e in another
            out.append(Tok("unsup" if name == "log" else "func", m.group(), i, nxt, space))
            return nxt
        if name in _LATEX_SWALLOW:
            # \sum_{i=1}^{n}: the limits belong to the operator, which this reader does not evaluate
            j = nxt
            while j < end and text[j] in "_^ ":
                if text[j] == " ":
                    j += 1
                    continue
                _, _, j = self.group(j + 1, end)
            out.append(Tok("unsup", text[i:j], i, j, space))
            return j
        if name in ("degree", "circ"):
            out.append(Tok("unit", "°", i, nxt, space, unit="degree"))
            return nxt
        out.append(Tok("unsup", m.group(), i, nxt, space))
        return nxt


def _rate(words: str) -> re.Match[str] | None:
    """`km/day`, `dollars per hour`: a unit over a unit (`and/or` is no rate)."""
    rate = _RATE.fullmatch(words)
    if rate is None or rate.group(1).lower() in _CONNECTIVE_WORDS or rate.group(2).lower() in _CONNECTIVE_WORDS:
        return None
    return rate


def _rated(out: list[Tok], denominator: str) -> None:
    """The number before the rate unit that ends `out` is a rate per `denominator` (`5 \\text{ km/h}`): no
    single-dimension check applies to it, and a quantity of the denominator's dimension in another unit makes
    its relation a conversion (`runs._unit_clash`)."""
    known = word_unit(denominator) or (
        ("", _ONE_LETTER_UNITS[denominator]) if denominator in _ONE_LETTER_UNITS else None)
    for k in range(len(out) - 2, -1, -1):
        if out[k].kind == "num":
            out[k] = replace(out[k], unit="rate", per=known[1] if known else None)
            return
        if out[k].kind != "unit":
            return


_LABEL = re.compile(r"\(\s*([^()]*?)\s*\)")
_AFTER_LABEL = re.compile(r"\s*(?:[-+*/=<>]|\\(?:times|cdot|div|le|ge|leq|geq|neq|ne|approx|lt|gt)\b)")


def _changes_value(words: str, out: list[Tok], rest: str) -> bool:
    """Words in `\\text{…}` that may change a value or state one (`tokens.VALUE_WORDS`: `3 \\text{ squared}`,
    `20 \\text{ percent}`, `\\text{twice}\\ 5`, `= \\text{ten}`), which no side may be read without. Only a whole side
    that also names something else is a name, never a value: `\\text{Half of the points} = \\frac{153}{2}`."""
    if any(c.isdigit() for c in words):
        return True  # `\\text{10\\% of } 50`: a number the words state is one the reader does not read
    found = re.findall(r"[a-z]+", words.lower())
    if not any(w in VALUE_WORDS and word_unit(w) is None for w in found):  # a unit is converted, not dropped
        return False
    whole_side = (not out or out[-1].kind == "rel") and _SIDE_END.match(rest) is not None
    return not (whole_side and any(w not in VALUE_WORDS and w not in _FILLER and word_unit(w) is None for w in found))


_VALUE_NEXT = re.compile(r"\s*(?:\\[,;:! ]\s*)*(?:\d|\.\d|[A-Za-z(]|\\(?:d?frac|sqrt|left|pi)\b|\{)")
_PERCENT_OF = frozenset(("of", "of the"))
_OPERATOR_NEXT = re.compile(r"\s*(?:[-+*/×÷·^]|\\(?:times|cdot|div)\b)")
_SIDE_END = re.compile(r"\s*(?:$|[=<>]|\\(?:le|ge|leq|geq|neq|ne|approx|lt|gt)\b)")
_FILLER = frozenset(("a", "an", "the", "of", "and"))


def _labels(words: str, out: list[Tok], rest: str) -> bool:
    """`\text{ (snowflake)}` after a number and before an operator or a relation: words in brackets that can only
    label the number (`tokens.label_words`), dropped like the prose's `7995 (total cookies) - 2595`."""
    bracket = _LABEL.fullmatch(words)
    return bracket is not None and bool(out) and out[-1].kind == "num" and _AFTER_LABEL.match(rest) is not None \
        and label_words(bracket.group(1).split())
