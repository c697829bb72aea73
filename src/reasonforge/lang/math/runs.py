"""Relations out of runs of maths tokens: a run is a maximal stretch of maths in a step's tokens, cut at
words and sentence punctuation; its sides are parsed into the expression language and paired by their
relation symbols, with the prose around them settling readings (units, truncated decimals, remainders,
"of", counting in thousands). See `lang.math.text` for the rules; nothing here raises on odd input."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import sympy

from reasonforge.lang.math.expr import (
    Binary,
    Call,
    ExpressionError,
    Node,
    Num,
    evaluate,
    names_in,
    parse_expression,
    rounding_tolerance,
)
from reasonforge.lang.math.step import Origin, Relation
from reasonforge.lang.math.tokens import PROSE_LETTERS, UNARY_AFTER_WORDS, VALUE_START, Tok, is_value_end
from reasonforge.lang.math.units import UNITS

__all__ = ["Found", "Run", "implicit_products", "relations_of_run", "render", "split_runs"]

_MAX_NOTES = 20
_BINARY_START = {"+", "*", "/", "//", "^", "%", "!"}
_SPLIT_KINDS = {"break", "word", "punct"}


@dataclass
class Run:
    """A maximal stretch of maths tokens, and whether words cut it at either end."""

    tokens: list[Tok]
    origin: Origin
    cut_left: bool = False  # a word stands just before: a leading operator lost its operand
    cut_right: bool = False  # an operator follows the words after it: the last side lost its tail
    label: bool = False  # the first side is a label's number ("Remaining 10 = …", "Weeks 1-2 = …")


@dataclass
class Found:
    """Notes on what could not be read, deduplicated and capped."""

    notes: list[str] = field(default_factory=list)

    def note(self, message: str) -> None:
        if len(self.notes) < _MAX_NOTES and message not in self.notes:
            self.notes.append(message)


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
                "house", "question", "problem", "exercise", "batch", "tank", "bucket", "jar", "pile", "stack"}


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
    return (len(tokens) >= 4 and tokens[0].kind == "num" and tokens[1].kind == "op" and tokens[1].text == "-"
            and tokens[2].kind == "num" and not tokens[1].space and not tokens[2].space and tokens[3].kind == "rel")


def split_runs(tokens: Sequence[Tok], origin: Origin) -> list[Run]:
    """Maximal stretches of maths tokens; words, sentence punctuation and top-level commas end them.

    A run is cut on the left when words separate it from an operator (`7 gallons + Cynthia's 8 = 15`:
    the 8 is not the whole left side), or when it continues a list of numbers (`13,15,17&19 = 4`); cut on
    the right when an operator follows the words after it (`12 = 5 + 3 apples + 4 apples`)."""
    runs: list[Run] = []
    current: Run | None = None
    depth = 0
    gap: list[Tok] = []  # the split tokens since the last run closed
    starts: list[int] = []  # where each run starts in `tokens`
    for index, tok in enumerate(tokens):
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
                if runs:
                    runs[-1].cut_right = True
            else:
                after_operator = words_only and before is not None and (
                    (before.kind == "op" and before.text in ("+", "-", "*", "/", "^")
                     and not any(t.text.lower() in _CLAUSE_WORDS for t in gap))
                    or _operator_in_gap(gap))
                in_list = before is not None and before.kind == "num" and tok.kind == "num" and len(gap) == 1 \
                    and gap[0].text in (",", "&") and not tok.space
                current.cut_left = after_operator or in_list
        depth += {"lp": 1, "rp": -1}.get(tok.kind, 0)
        current.tokens.append(tok)
    if current is not None:
        runs.append(current)
    for run, start in zip(runs, starts):
        run.label = start > 0 and _label_number(tokens[start - 1:start], run.tokens)
    return runs


_FUNCTION_LETTERS = {"f", "g", "h", "F", "G", "H", "P", "Q"}


def _function_atoms(tokens: list[Tok]) -> list[Tok]:
    """`f(0)`, `g(x)`, `P(-1)`: function notation, not a product. A value at a number or a name becomes one
    opaque name (`f_of_0`, `g_of_x`, `P_of_m1`), so `f(0) = 6` and a later `f(0) + 1 = 7` agree; any other
    argument makes the side unreadable (a note) rather than misread as `f*(…)`."""
    out: list[Tok] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        if not (tok.kind == "name" and tok.text in _FUNCTION_LETTERS and nxt is not None and nxt.kind == "lp"
                and not nxt.space):
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
    `15 j = …`, `4 W^2` (a number, then a letter that an operator or relation follows)."""
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
                    and nxt is not None and (nxt.kind == "rel" or (nxt.kind == "op" and nxt.text in "+-^"))))
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
        out.append(replace(tok, text=name))
        if i + 1 < len(tokens) and tokens[i + 1].kind == "lp" and degree is None:
            i += 1
            continue
        # the argument: the next atom (number, name or parenthesised group), with a glued degree sign
        j = i + 1
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
        else:
            return None
        anchor = tokens[j].start
        out.append(Tok("lp", "(", anchor, anchor))
        out.extend(arg)
        if degree:
            out.extend([Tok("comma", ",", anchor, anchor), Tok("num", degree, anchor, anchor)])
        out.append(Tok("rp", ")", tokens[k].end, tokens[k].end))
        i = k + 1
    return out


def render(tokens: Sequence[Tok], trig: bool) -> str:
    """Artifact text of a side; units vanish, except degrees inside trigonometry (→ ·π/180)."""
    parts: list[str] = []
    for tok in tokens:
        if tok.kind == "unit":
            if trig and tok.unit == "degree":
                parts.append("*(pi/180)")
            continue
        if tok.kind == "unsup":
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
    if left and right and (left.unit or right.unit) and left.unit != right.unit and "rate" not in (left.unit, right.unit):
        return f"it relates a quantity in {left.unit or 'no unit'} to one in {right.unit or 'no unit'}"
    if left and left.unit and left.unit not in ("rate", "dollar") and not any(t.unit for t in rhs if t.kind == "num"):
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
    """Parse a side; at a run's outer edge, drop a stray prose letter (`= 8 a day`) if that makes it parse."""
    candidates = [tokens]
    if trim_right and len(tokens) > 1 and tokens[-1].kind == "name" and tokens[-1].space:
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


def relations_of_run(run: Run, text: str, found: Found) -> list[Relation]:
    """The relations a run asserts (adjacent pairs of a chain); what cannot be read becomes a note in `found`."""
    tokens = _apply_functions(implicit_products(_tight_fractions(_function_atoms(run.tokens), run.origin),
                                                     run.origin))
    if tokens is None or not any(t.kind == "rel" for t in tokens):
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
    trig = any(t.kind == "func" and t.text in ("sin", "cos", "tan") for t in tokens)
    parsed: list[tuple[Node, list[Tok]] | None] = []
    unread: list[int] = []
    last = len(sides) - 1
    for k, side in enumerate(sides):
        leading_op = run.origin == "text" and side and side[0].kind == "op" and side[0].text in _BINARY_START
        incomplete = (k == 0 and (run.cut_left or leading_op or run.label)) \
            or (k == last and (run.cut_right or (side and (side[-1].kind in ("lp", "func") or (
                side[-1].kind == "op" and side[-1].text not in ("%", "!"))))))
        parsed.append(None if incomplete or not side else _parse_side(side, k == 0, k == last, trig))
        if parsed[-1] is None and side and not incomplete and any(t.kind != "unit" for t in side):
            unread.append(k)
    out: list[Relation] = []
    for k, op in enumerate(ops):
        tuples = _tuple_pairs(sides[k], sides[k + 1]) if op.text == "=" else None
        if tuples is not None:
            unread = [u for u in unread if u not in (k, k + 1)]
            for lhs_toks, rhs_toks in tuples:
                lhs, rhs = _parse_side(lhs_toks, False, False, trig), _parse_side(rhs_toks, False, False, trig)
                if lhs is not None and rhs is not None:
                    start, end = lhs_toks[0].start, rhs_toks[-1].end
                    out.append(Relation("=", lhs[0], rhs[0], (start, end), text[start:end], run.origin))
            continue
        left, right = parsed[k], parsed[k + 1]
        if left is None or right is None:
            continue
        clash = _unit_clash(left[1], right[1])
        start, end = left[1][0].start, right[1][-1].end
        source = text[start:end]
        if clash:
            found.note(f"skipped \"{_quote(source)}\": {clash}")
            continue
        unit = _stated_unit(left[1]) or _stated_unit(right[1])
        relation = Relation(op.text, left[0], right[0], (start, end), source, run.origin, unit)
        if run.origin == "text":
            relation, why = _prose_reading(relation, left[1], right[1], k + 1 == last, text, trig)
            if relation is None:
                found.note(f"skipped \"{_quote(source)}\": {why}")
                continue
        out.append(relation)
    for k in unread:
        source = text[sides[k][0].start:sides[k][-1].end].strip()
        found.note(f"could not read \"{_quote(source)}\" as an expression; the relation is not checked")
    # a chain `x = 60/3 = 20 minutes` states all its quantities in the one unit it writes
    units = {r.unit for r in out if r.unit}
    if len(units) == 1:
        out = [replace(r, unit=r.unit or next(iter(units))) for r in out]
    return out


def _stated_unit(side: Sequence[Tok]) -> str | None:
    """The unit of a side that is one quantity (`60 minutes`, `$5`), else None."""
    values = [t for t in side if t.kind != "unit"]
    if len(values) != 1 or values[0].kind != "num" or not values[0].unit:
        return None
    unit = values[0].unit
    return None if unit in ("rate", "per") or unit.startswith("conv:") else unit


_SENTENCE_END = re.compile(r"[.;?!\n](?:\s|$)")
_REMAINDER = re.compile(r"\bremainder\b|\bleft\s*over\b|\bleftover\b|\bwith\s+\d+\s+(?:\w+\s+)?(?:remaining|left)\b",
                        re.IGNORECASE)
_SCALE_MENTION = re.compile(r"\d\s+(thousand|million|billion)s?\b", re.IGNORECASE)
_SCALES = {"thousand": 10**3, "million": 10**6, "billion": 10**9}


def _closed(node: Node) -> sympy.Expr | None:
    """The exact value of a side without names (bounded by the expression caps), else None."""
    if names_in(node):
        return None
    try:
        return evaluate(node)
    except ExpressionError:
        return None


def _prose_reading(rel: Relation, lhs: Sequence[Tok], rhs: Sequence[Tok], last_side: bool, text: str,
                   trig: bool) -> tuple[Relation | None, str]:
    """What a prose relation asserts, where the words around it settle the reading: (relation, "") or
    (None, why it is skipped).
    - a number written with an ellipsis (`8.333...%`) is truncated: the relation is ≈;
    - `13 / 6 = 2 full cycles with a remainder of 1` is a whole quotient: floor(13/6) = 2;
    - `3/3 - 2/3 = 1/3 of $150 left`, `… = 15% of $300` at the end of a chain: "of $150" may be prose about
      the fraction rather than a product; when the fraction alone holds and the product does not, the two
      readings disagree and the relation is skipped (never verified on the kinder reading);
    - in a step counting in thousands (`5 thousand dollars … 5 * 3 = $15,000`), sides that differ by exactly
      that scale are in different units: skipped."""
    if rel.op == "=" and any(t.truncated for t in (*lhs, *rhs)):
        rel = replace(rel, op="~=")
    stop = _SENTENCE_END.search(text, rel.span[1])
    tail = text[rel.span[1]:stop.start() if stop else len(text)]
    if rel.op == "=" and _REMAINDER.search(tail) and isinstance(rel.lhs_tree, Binary) and rel.lhs_tree.op == "/" \
            and isinstance(rel.rhs_tree, Num) and rel.rhs_tree.decimals == 0:
        rel = replace(rel, lhs_tree=Call("floor", (rel.lhs_tree,)))
    of = [k for k, t in enumerate(rhs) if t.kind == "op" and t.text == "*" and text[t.start:t.end].lower() == "of"]
    scales = {m.group(1).lower() for m in _SCALE_MENTION.finditer(text)}
    if rel.op not in ("=", "~=") or not (scales or (last_side and len(of) == 1)):
        return rel, ""  # nothing to settle: no sides are evaluated (extraction stays cheap)
    left, right = _closed(rel.lhs_tree), _closed(rel.rhs_tree)
    if left is None or right is None or left == right:
        return rel, ""
    if last_side and len(of) == 1 and 0 < of[0] < len(rhs) - 1:
        fraction = _parse_side(list(rhs[:of[0]]), False, False, trig)
        value = _closed(fraction[0]) if fraction else None
        tolerance = rounding_tolerance(fraction[0]) if fraction else None
        if value is not None and abs(left - value) <= (tolerance or 0):
            return None, (f"\"{text[rhs[0].start:rhs[of[0]].start].strip()}\" alone holds but \"of …\" makes it a "
                          "product that does not: two readings")
    for word in scales:
        scale = _SCALES[word]
        if not any(t.kind == "unit" and UNITS.get(t.text.lower(), ("", ""))[0] == "scale" for t in (*lhs, *rhs)) \
                and (left * scale == right or right * scale == left):
            return None, f"the sides differ by exactly a {word}, and the step counts in {word}s"
    return rel, ""


def _quote(source: str, limit: int = 80) -> str:
    source = " ".join(source.split())
    return source if len(source) <= limit else source[:limit - 1] + "…"
