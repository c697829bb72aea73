"""Relations asserted by one step of natural-language mathematics, read into the artifact expression
language (`verify.math_expr`) and SymPy trees.

`extract(text) -> StepMath`: claims (relations the step asserts, chains `a = b = c` as adjacent pairs),
bindings ("Let x = 3", "x is 3", "Suppose n = 2k"), cases (values that hold for this step only: "if
x = 2", "for n = 1", roots listed as `x = 2 and x = 1/2`), assumptions ("where k is an integer", "z > 0",
"if K^2 = 1") and notes on what could not be read (see `_classify` for the rules). Each relation keeps
its source span and canonical text, and offers the relation as an unevaluated SymPy tree
(`Relation.sympy()`), so other emitters (Coq) can reuse it.

Where relations come from, in this order:
- GSM8K calculator annotations `<<48/2=24>>`: the annotation is the relation; the number repeated
  after it is prose, and a text relation holding that echo (`48/2 = <<48/2=24>>24`) is the annotation
  read again, not a second claim.
- Delimited LaTeX: `$…$`, `$$…$$`, `\\(…\\)`, `\\[…\\]` (`\\frac`, `\\sqrt`, `\\cdot`, `\\times`, `^{}`,
  `\\left( \\right)`, `\\boxed{}`, `\\le`, `\\ge`, `\\neq`, ...). A `$` pair holding prose words is currency.
- Plain text: a maximal run of maths tokens (numbers, single-letter names, operators, Unicode ² ³ × ÷
  − √ π ·) holding a relation symbol. Words end a run, so "x" in prose never becomes a symbol; unit
  and currency words next to numbers (`$12`, `12 dollars`, `5 km`) are skipped, and so are the nouns
  that numbers count between operands (`6 monkeys / 10 animals * 100%`, see `math_tokens`); `20%` is
  20/100 and "20% of 50" is (20/100)·50; `1,000` and `1 000` are one thousand; `8.333...` is a truncated
  decimal (the relation is ≈); `2k` and `3(x+1)` are products, and so are `(1/2) 1956` and `15 j = …`;
  `x` before a number is × (`3 x 4`, but `3x - 5` keeps x); `1 1/2`, `1 and 1/2`, `16 and (2/3)` are
  mixed numbers; `25 / 1/3` divides by a third, and so does `14 / 1 / 4` (nobody divides by 1); `a//b` is
  floor(a/b); `13 / 6 = 2 … with a remainder of 1` is floor(13/6) = 2; `f(0)` is a value of f (the name
  `f_of_0`), not a product; `(Number of Minutes)` as an operand is one name (`number_of_minutes`); `BC`
  in LaTeX is a segment, not B·C; hyphenated compounds (`5-minute`, `one-fourth`) are words; times of
  day (`11:00`) and list labels (`Day 3:`, `Remaining 10 = …`, `Weeks 1-2 = …`, `section 2 = …`) are not
  values.

Conservative by design (a misread relation would be a false failure): a run cut by a word on its left
or right loses the cut side (`7 gallons + Cynthia's 8 = 15` yields nothing), a relation between
quantities in different units of one dimension (`1 hour = 60 minutes`) is skipped with a note (a
conversion factor such as "60 minutes per hour" converts exactly, and only into its own unit), and any
side that does not parse is skipped with a note. Where the prose allows two readings that disagree
(`3/3 - 2/3 = 1/3 of $150`; `5 * 3 = $15,000` in a step counting in thousands), the relation is
skipped with a note rather than verified on the kinder reading (`_prose_reading`). Each relation
records the unit its quantities are stated in (`Relation.unit`), and `restate` rewrites it exactly
into another unit, so a translator can follow a quantity from hours into minutes across steps.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

import sympy

from reasonforge.verify.math_expr import (
    Binary,
    Call,
    ExpressionError,
    Name,
    Node,
    Num,
    Unary,
    evaluate,
    names_in,
    parse_expression,
    rounding_tolerance,
    to_sympy,
    to_text,
)
from reasonforge.verify.math_latex import LatexReader
from reasonforge.verify.math_tokens import (
    PROSE_LETTERS,
    UNARY_AFTER_WORDS,
    UNITS,
    VALUE_START,
    Tok,
    conversion_factor,
    is_value_end,
    lex_plain,
    read_words,
)

__all__ = ["Assumption", "Relation", "StepMath", "extract", "extract_value", "restate"]

Origin = Literal["annotation", "latex", "text"]
_MAX_NOTES = 20


# ---- public data ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Relation:
    """`lhs op rhs` as written in the step: op is one of = < > <= >= != ~= (≈)."""

    op: str
    lhs_tree: Node
    rhs_tree: Node
    span: tuple[int, int]
    source: str
    origin: Origin
    unit: str | None = None  # the unit its quantities are stated in (`3x = 60 minutes` → minute), when written

    @property
    def text(self) -> str:
        """Canonical text in the artifact expression language, e.g. `48/2 = 24`."""
        return f"{to_text(self.lhs_tree)} {self.op} {to_text(self.rhs_tree)}"

    @property
    def lhs(self) -> sympy.Expr:
        """The left side as an unevaluated SymPy tree."""
        return to_sympy(self.lhs_tree)

    @property
    def rhs(self) -> sympy.Expr:
        """The right side as an unevaluated SymPy tree."""
        return to_sympy(self.rhs_tree)

    @property
    def names(self) -> frozenset[str]:
        """Symbol names used on either side."""
        return names_in(self.lhs_tree) | names_in(self.rhs_tree)

    @property
    def bound_name(self) -> str | None:
        """The symbol on the left of an `=` whose left side is a lone symbol (a binding's name)."""
        if self.op == "=" and isinstance(self.lhs_tree, Name) and self.lhs_tree.name != "pi":
            return self.lhs_tree.name
        return None

    def sympy(self) -> sympy.Basic:
        """The relation as an unevaluated SymPy relational (`~=` becomes Eq: it is checked with a tolerance)."""
        build = {"=": sympy.Eq, "~=": sympy.Eq, "<": sympy.Lt, ">": sympy.Gt, "<=": sympy.Le, ">=": sympy.Ge,
                 "!=": sympy.Ne}[self.op]
        return build(self.lhs, self.rhs, evaluate=False)


@dataclass(frozen=True)
class Assumption:
    """A domain statement: a relation (`z > 0`) or properties of a name (`k` integer)."""

    span: tuple[int, int]
    source: str
    relation: Relation | None = None
    name: str | None = None
    properties: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        """Artifact form: `z > 0` or `k is positive integer`."""
        if self.relation is not None:
            return self.relation.text
        return f"{self.name} is {' '.join(self.properties)}"


@dataclass(frozen=True)
class StepMath:
    """What a step asserts (claims), introduces (bindings: "Let x = 3"; cases: "if x = 3", which hold for
    this step only), assumes, and what could not be read."""

    claims: tuple[Relation, ...] = ()
    bindings: tuple[Relation, ...] = ()
    assumptions: tuple[Assumption, ...] = ()
    notes: tuple[str, ...] = ()
    cases: tuple[Relation, ...] = ()

    @property
    def relations(self) -> tuple[Relation, ...]:
        """Bindings, cases and claims in text order."""
        return tuple(sorted((*self.bindings, *self.cases, *self.claims), key=lambda r: r.span))

    @property
    def empty(self) -> bool:
        """Whether nothing checkable was found (no claim, binding or case)."""
        return not self.claims and not self.bindings and not self.cases


# ---- regions ---------------------------------------------------------------------------------------------------
_ANNOTATION = re.compile(r"<<([^<>\n]{1,2000})>>")
_ECHO = re.compile(r"(?<=>>)(\s*[$€£]?\s*)[\d.]")
_DELIMITED = re.compile(
    r"\$\$(?P<dd>.+?)\$\$|\\\[(?P<sq>.+?)\\\]|\\\((?P<par>.+?)\\\)|(?<![\\$])\$(?P<d>[^$]+?)(?<!\\)\$",
    re.DOTALL,
)
_PROSE_WORD = re.compile(r"(?<![\\A-Za-z])[A-Za-z]{3,}")


@dataclass
class _Region:
    kind: Origin
    start: int
    end: int


def _latex_like(body: str, after: str) -> bool:
    """A `$…$` pair is maths unless it reads as currency: prose words inside, a blank before the closing
    `$`, or a digit right after it (`$5 + $3 = $8`)."""
    if body[-1:].isspace() or after[:1].isdigit() or after[:1] == ".":
        return False
    stripped = re.sub(r"\\(?:text|mathrm|textbf|mbox|operatorname)\s*\{[^{}]*\}|\\[A-Za-z]+", " ", body)
    return len(_PROSE_WORD.findall(stripped)) == 0 and len(body) <= 2000


def _regions(text: str) -> list[_Region]:
    """Split the text into annotation, LaTeX and plain regions, in order."""
    found: list[_Region] = []
    for m in _ANNOTATION.finditer(text):
        found.append(_Region("annotation", m.start(), m.end()))
    taken = [(r.start, r.end) for r in found]
    for m in _DELIMITED.finditer(text):
        key = next(k for k in ("dd", "sq", "par", "d") if m.group(k) is not None)
        if key == "d" and not _latex_like(m.group("d"), text[m.end():m.end() + 1]):
            continue
        if any(a < m.end() and m.start() < b for a, b in taken):
            continue
        found.append(_Region("latex", m.start(key), m.end(key)))
    found.sort(key=lambda r: r.start)
    regions: list[_Region] = []
    pos = 0
    for r in found:
        if r.start > pos:
            regions.append(_Region("text", pos, r.start))
        regions.append(r)
        pos = r.end
    if pos < len(text):
        regions.append(_Region("text", pos, len(text)))
    return regions


# ---- runs, sides and relations ---------------------------------------------------------------------------------
_BINARY_START = {"+", "*", "/", "//", "^", "%", "!"}
_SPLIT_KINDS = {"break", "word", "punct"}


@dataclass
class _Run:
    tokens: list[Tok]
    origin: Origin
    cut_left: bool = False  # a word stands just before: a leading operator lost its operand
    cut_right: bool = False  # an operator follows the words after it: the last side lost its tail
    label: bool = False  # the first side is a label's number ("Remaining 10 = …", "Weeks 1-2 = …")


@dataclass
class _Found:
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


def _runs(tokens: Sequence[Tok], origin: Origin) -> list[_Run]:
    """Maximal stretches of maths tokens; words, sentence punctuation and top-level commas end them.

    A run is cut on the left when words separate it from an operator (`7 gallons + Cynthia's 8 = 15`:
    the 8 is not the whole left side), or when it continues a list of numbers (`13,15,17&19 = 4`); cut on
    the right when an operator follows the words after it (`12 = 5 + 3 apples + 4 apples`)."""
    runs: list[_Run] = []
    current: _Run | None = None
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
            current = _Run([], origin)
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


def _implicit_products(tokens: list[Tok], origin: Origin) -> list[Tok]:
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


def _render(tokens: Sequence[Tok], trig: bool) -> str:
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
            return parse_expression(_render(side, trig)), side
        except ExpressionError:
            continue
    return None


def _relations_of_run(run: _Run, text: str, found: _Found) -> list[Relation]:
    tokens = _apply_functions(_implicit_products(_tight_fractions(_function_atoms(run.tokens), run.origin),
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


# ---- bindings and assumptions ------------------------------------------------------------------------------------
_BINDING_PREFIX = re.compile(
    r"\b(?:let|suppose|assume|assuming|define|denote|where|given|say|put)(?:\s+that|\s+now|\s+again)?[\s,:]*$",
    re.IGNORECASE,
)
# a hypothetical value holds for the step that states it: a case, a trial, a reference to a term
_CASE_PREFIX = re.compile(
    r"\b(?:if|when|whenever|for|set|setting|with|consider|considering|testing|test|try|trying|substitute|"
    r"substituting|plug|plugging|take|taking|case|at|from|of|starting)\b[^.;]*$",
    re.IGNORECASE,
)
_INEQUALITIES = ("<", ">", "<=", ">=", "!=")
_REASON_GIVEN = re.compile(r"\b(?:since|because|as)\b[^.;]*,\s*$", re.IGNORECASE)  # "Since z > 0, z = 5"
_HYPOTHESIS = re.compile(r"\b(?:if|when|whenever|suppose|supposing|assume|assuming)\b[^.;:]*$", re.IGNORECASE)
_CONTINUATION = re.compile(r"^[\s,;]*(?:and|or|,)?[\s,]*$", re.IGNORECASE)
_CONCLUSION = re.compile(
    r"\b(?:therefore|so|thus|hence|then|get|gets|got|gives|give|obtain|obtains|find|finds|means|implies|"
    r"conclude|yields|becomes|shows?|solving|equals|is|are|must|need|needs)\b",
    re.IGNORECASE,
)
_DELIMS = re.compile(r"\\[()\[\]]|\$")
_PROPS = r"(?:positive|negative|non-?negative|non-?positive|even|odd|prime|real|rational|natural|whole)"
_NOUNS = r"(?:integers?|numbers?|reals?|natural\s+numbers?|whole\s+numbers?|primes?)"
_DOMAIN_IS = re.compile(
    rf"(?<![\w\\])([A-Za-z](?:\s*,\s*[A-Za-z])*(?:\s*,?\s*and\s+[A-Za-z])?)\$?\s+(?:is|are|be)\s+(?:an?\s+|all\s+)?"
    rf"((?:{_PROPS}\s*)*)({_NOUNS})?\b",
    re.IGNORECASE,
)
_DOMAIN_SOME = re.compile(rf"\b(?:some|any|all|every|an?)\s+((?:{_PROPS}\s+)*)({_NOUNS})\s+\$?\\?\(?\s*([A-Za-z])\b",
                          re.IGNORECASE)
_DOMAIN_IN = re.compile(r"(?<![\w\\])([A-Za-z])\s*(?:\\in|∈)\s*(?:\\mathbb\s*\{?\s*([ZNRQ])\s*\}?|([ℤℕℝℚ]))")
_SET_PROPS = {"Z": ("integer",), "ℤ": ("integer",), "N": ("integer", "nonnegative"), "ℕ": ("integer", "nonnegative"),
              "R": ("real",), "ℝ": ("real",), "Q": ("rational",), "ℚ": ("rational",)}


def _properties(props: str, noun: str | None) -> tuple[str, ...]:
    out: list[str] = []
    for word in props.lower().replace("-", "").split():
        if word in ("natural", "whole"):
            out += ["integer", "nonnegative"]
        else:
            out.append(word)
    noun = (noun or "").lower()
    if noun.startswith(("integer", "natural", "whole")):
        out.append("integer")
        if noun.startswith(("natural", "whole")):
            out.append("nonnegative")
    elif noun.startswith("prime"):
        out.append("prime")
    elif noun.startswith("real"):
        out.append("real")
    return tuple(dict.fromkeys(out))


def _domain_assumptions(raw: str) -> list[Assumption]:
    # delimiters blanked to spaces of the same length, so "\\(k\\) is an integer" reads and spans still fit
    text = _DELIMS.sub(lambda m: " " * len(m.group()), raw)
    found: list[Assumption] = []
    for m in _DOMAIN_IS.finditer(text):
        props = _properties(m.group(2) or "", m.group(3))
        if not props or props == ("real",) and not m.group(2):
            continue
        for name in re.findall(r"[A-Za-z]+", re.sub(r"\band\b", " ", m.group(1))):
            if len(name) == 1:
                found.append(Assumption(m.span(), m.group(), name=name, properties=props))
    for m in _DOMAIN_SOME.finditer(text):
        props = _properties(m.group(1) or "", m.group(2))
        if props:
            found.append(Assumption(m.span(), m.group(), name=m.group(3), properties=props))
    for m in _DOMAIN_IN.finditer(text):
        props = _SET_PROPS[m.group(2) or m.group(3)]
        found.append(Assumption(m.span(), m.group(), name=m.group(1), properties=props))
    return found


def _prefix(text: str, start: int, floor: int) -> str:
    """The prose of the current sentence before `start`, LaTeX delimiters removed."""
    lo = max(floor, *(text.rfind(c, 0, start) + 1 for c in ".;\n?!"))
    return _DELIMS.sub(" ", text[lo:start])


def _classify(text: str, relations: Sequence[Relation]) -> dict[str, list]:
    """Sort relations into claims, bindings, cases (hypothetical bindings) and assumptions by the prose of
    their sentence before them:
    - `name = …` after let/suppose/define/denote/where/given/say, or "x is 3" → a binding (it persists);
    - `name = …` after if/for/when/set/with/consider/testing/substituting/… → a case (this step only);
    - `name = <number>` with no conclusion word (so/therefore/thus/get/gives/…) before it → a case too:
      prose such as "the n = 1 term" or "starting from n = 2" names a value, it does not derive one;
    - `name < constant` (and >, ≤, ≥, ≠) with no conclusion word → an assumption;
    - any other relation with names right after if/when/suppose/assume (no conclusion word between) → an
      assumption (a hypothesis); an annotation is always a claim;
    - a relation joined by "and"/"," to the one before takes its kind; a later pair of a chain
      `a = b = c` is always a claim; everything else is a claim;
    - finally, a name given several values in one step (`x = 2 and x = 1/2`) lists alternatives: cases."""
    sorted_: dict[str, list] = {"claim": [], "binding": [], "case": [], "assumption": []}
    previous: Relation | None = None
    previous_kind = "claim"
    for rel in relations:
        chained = previous is not None and rel.span[0] < previous.span[1] and previous.rhs_tree == rel.lhs_tree
        floor = min(previous.span[1], rel.span[0]) if previous is not None and not chained else 0
        prefix = _prefix(text, rel.span[0], floor)
        sentence = _prefix(text, rel.span[0], 0)
        kind = "claim"
        if not chained:
            concluded = _CONCLUSION.search(sentence) is not None or _REASON_GIVEN.search(sentence) is not None
            continued = previous is not None and _CONTINUATION.match(prefix) is not None
            if continued and previous_kind in ("binding", "case") and rel.bound_name or continued and previous_kind == "assumption" and rel.op in _INEQUALITIES and _is_bound_check(rel):
                kind = previous_kind
            elif rel.bound_name and (_BINDING_PREFIX.search(prefix) or (
                    re.search(r"\s(?:is|equals)\s", rel.source) and not concluded)):
                kind = "binding"  # "Let x = 3", "x is 3"
            elif rel.bound_name and _CASE_PREFIX.search(sentence) and not _CONCLUSION.search(prefix) or rel.bound_name and isinstance(rel.rhs_tree, (Num, Unary)) and not names_in(rel.rhs_tree) \
                    and not concluded:
                kind = "case"
            elif rel.op in _INEQUALITIES and _is_bound_check(rel) and not concluded:
                kind = "assumption"
            elif rel.names and rel.origin != "annotation" and _hypothesis(prefix):
                kind = "assumption"  # "if K^2 = 1, then …": a hypothesis of this step, not a claim
        sorted_[kind].append(Assumption(rel.span, rel.source, relation=rel) if kind == "assumption" else rel)
        previous, previous_kind = rel, kind
    # `x = 2 and x = 1/2`, `m = 0 or m = 2`: one name given several values lists alternatives (roots,
    # cases), not facts that must all hold at once
    values: dict[str, set[str]] = {}
    for rel in (*sorted_["claim"], *sorted_["case"]):
        if rel.bound_name:
            values.setdefault(rel.bound_name, set()).add(to_text(rel.rhs_tree))
    several = {name for name, seen in values.items() if len(seen) > 1}
    alternatives = [r for r in sorted_["claim"] if r.bound_name in several]
    sorted_["claim"] = [r for r in sorted_["claim"] if r not in alternatives]
    sorted_["case"] = sorted([*sorted_["case"], *alternatives], key=lambda r: r.span)
    return sorted_


def _hypothesis(prefix: str) -> bool:
    """The relation right after "if"/"when"/"suppose" … with no conclusion word in between."""
    m = _HYPOTHESIS.search(prefix)
    if m is None:
        return False
    after = m.group()[len(m.group().split()[0]):]  # the prose after the if/when word
    return _CONCLUSION.search(after) is None


def _is_bound_check(rel: Relation) -> bool:
    """`z > 0`, `3 <= n`: a lone symbol against a constant."""
    sides = (rel.lhs_tree, rel.rhs_tree)
    lone = [s for s in sides if isinstance(s, Name) and s.name != "pi"]
    return len(lone) == 1 and not names_in(sides[1] if sides[0] is lone[0] else sides[0])


# ---- entry points -------------------------------------------------------------------------------------------------
def _tokens_for(text: str, region: _Region) -> list[Tok]:
    if region.kind == "latex":
        return LatexReader(text).tokens(region.start, region.end)
    if region.kind == "annotation":
        return read_words(lex_plain(text, region.start + 2, region.end - 2))
    return lex_plain(text, region.start, region.end)


def extract(text: str) -> StepMath:
    """Read the relations a step asserts (see the module docstring). Never raises on odd input."""
    found = _Found()
    relations: list[Relation] = []
    annotations: list[Relation] = []
    plain: list[Tok] = []

    def flush_plain() -> None:
        for run in _runs(read_words(plain), "text"):
            relations.extend(_relations_of_run(run, text, found))
        plain.clear()

    for region in _regions(text):
        if region.kind == "text":
            plain.extend(_tokens_for(text, region))
            continue
        if region.kind == "annotation":
            # the annotation is masked out of the prose, so "48/2 = <<48/2=24>>24" reads as one text run
            for run in _runs(_tokens_for(text, region), "annotation"):
                for rel in _relations_of_run(run, text, found):
                    annotations.append(replace(rel, span=(region.start, region.end),
                                               source=text[region.start:region.end]))
            continue
        flush_plain()
        for run in _runs(_tokens_for(text, region), "latex"):
            relations.extend(_relations_of_run(run, text, found))
    flush_plain()
    # the number repeated after an annotation is its echo in the prose: a text relation holding it (`7 gallons
    # + Cynthia's 8 gallons = <<7+8=15>>15`) is the annotation's relation misread, not a second claim
    echoes = [m.start() + len(m.group(1)) for m in _ECHO.finditer(text)]
    relations = [r for r in relations if not any(r.span[0] <= e < r.span[1] for e in echoes)]
    seen = {rel.text for rel in annotations}
    merged = sorted([*annotations, *(r for r in relations if r.text not in seen)], key=lambda r: r.span)
    unique: list[Relation] = []
    texts: set[str] = set()
    for rel in merged:
        if rel.text not in texts:
            texts.add(rel.text)
            unique.append(rel)
    kinds = _classify(text, unique)
    assumptions = kinds["assumption"] + _domain_assumptions(text)
    return StepMath(tuple(kinds["claim"]), tuple(kinds["binding"]), tuple(assumptions), tuple(found.notes),
                    tuple(kinds["case"]))


def _homogeneous_linear(node: Node) -> bool:
    """Whether a side is a sum of multiples of names with no constant term (`3*x`, `x + 2*y`): such a side
    keeps its form when every quantity in it changes unit."""
    try:
        value = sympy.expand(evaluate(node))
    except (ExpressionError, TypeError, ValueError):
        return False
    symbols = sorted(value.free_symbols, key=str)
    if not symbols:
        return False
    try:
        poly = sympy.Poly(value, *symbols)
    except sympy.PolynomialError:
        return False
    return poly.total_degree() == 1 and all(term.free_symbols for term in sympy.Add.make_args(value))


def restate(rel: Relation, target: str) -> Relation | None:
    """The relation with its quantities in `target` units instead of `rel.unit` (`3x = 1` hour → `3x = 1*60`
    minutes), or None when that cannot be done exactly: no exact conversion, or a side mixing names with
    constants (`x + 5 = 1` hour: is the 5 in hours too?). Sides that are multiples of names keep their form."""
    if rel.unit is None or rel.unit == target:
        return rel
    factor = conversion_factor(rel.unit, target)
    if factor is None:
        return None
    sides = [rel.lhs_tree, rel.rhs_tree]
    linear = [_homogeneous_linear(side) for side in sides]
    if all(linear):
        return replace(rel, unit=target)
    constant = [not names_in(side) for side in sides]
    if sorted(zip(linear, constant)) != [(False, True), (True, False)]:
        return None
    k = constant.index(True)
    scale = Num(str(factor.numerator), 0) if factor.denominator == 1 else None
    sides[k] = Binary("*", sides[k], scale) if scale else \
        Binary("/", Binary("*", sides[k], Num(str(factor.numerator), 0)), Num(str(factor.denominator), 0))
    return replace(rel, lhs_tree=sides[0], rhs_tree=sides[1], unit=target)


def extract_value(text: str) -> Node | None:
    """A lone numeric value such as a final answer (`#### 1,000`, `$5`, `\\boxed{30}`), else None."""
    body = text.strip().lstrip("#").strip()
    tokens: list[Tok] = []
    for region in _regions(body):
        tokens.extend(_tokens_for(body, region))
    values = [t for t in read_words(tokens) if t.kind not in ("unit", "punct", "break")]
    if not values or any(t.kind in ("rel", "word", "unsup", "comma") for t in values):
        return None
    try:
        node = parse_expression(_render(_implicit_products(values, "text"), trig=False))
    except ExpressionError:
        return None
    return node if not names_in(node) else None
