"""Relations asserted by one step of natural-language mathematics, read into the artifact expression
language (`lang.math.expr`) and SymPy trees.

`extract(text) -> StepMath`: claims (relations the step asserts, chains `a = b = c` as adjacent pairs),
bindings ("Let x = 3", "x is 3", "Suppose n = 2k"), cases (values that hold for this step only: "if
x = 2", "for n = 1", roots listed as `x = 2 and x = 1/2`), assumptions ("where k is an integer", "z > 0",
"if K^2 = 1") and notes on what could not be read (see `roles.classify` for the rules). Each relation keeps
its source span and canonical text, and offers the relation as an unevaluated SymPy tree
(`Relation.sympy()`), so other emitters (Coq) can reuse it.

Where relations come from, in this order:
- GSM8K calculator annotations `<<48/2=24>>`: the annotation is the relation; the number repeated
  after it (its echo) must be its value (`<<16-3=13>>14` claims 13 = 14), and a text relation holding the
  echo (`48/2 = <<48/2=24>>24`) is the annotation read again when it says the same (see `_settle_echoes`).
- Delimited LaTeX: `$…$`, `$$…$$`, `\\(…\\)`, `\\[…\\]` (`\\frac`, `\\sqrt`, `\\cdot`, `\\times`, `^{}`,
  `\\left( \\right)`, `\\boxed{}`, `\\le`, `\\ge`, `\\neq`, ...). A `$` pair holding prose words is currency.
- Plain text: a maximal run of maths tokens (numbers, single-letter names, operators, Unicode ² ³ × ÷
  − √ π ·) holding a relation symbol. Words end a run, so "x" in prose never becomes a symbol; unit
  and currency words next to numbers (`$12`, `12 dollars`, `5 km`) are skipped, and so are the nouns
  that numbers count between operands (`6 monkeys / 10 animals * 100%`, see `lang.math.tokens`); `20%` is
  20/100 and "20% of 50" is (20/100)·50; `1,000` and `1 000` are one thousand; `8.333...` is a truncated
  decimal (the other side lies in [8.333, 8.334)); `2k` and `3(x+1)` are products, and so are `(1/2) 1956` and `15 j = …`;
  `x` before a number is × (`3 x 4`, but `3x - 5` keeps x); `1 1/2`, `1 and 1/2`, `16 and (2/3)` are
  mixed numbers; `25 / 1/3` divides by a third, and so does `14 / 1 / 4` (nobody divides by 1); `a//b` is
  floor(a/b); `13 / 6 = 2 … with a remainder of 1` is floor(13/6) = 2; `f(0)` is a value of f (the name
  `f_of_0`), not a product; `(Number of Minutes)` as an operand is one name (`number_of_minutes`); `BC`
  in LaTeX is a segment, not B·C; hyphenated compounds (`5-minute`, `one-fourth`) are words; times of
  day (`11:00`) and list labels (`Day 3:`, `Remaining 10 = …`, `Weeks 1-2 = …`, `section 2 = …`) are not
  values.

Read exactly or not at all (issue 17): every relation symbol of the text is read, or is prose on one side
("Total = 8", "Darcy = 2*Dexter"), or is listed in `StepMath.unread` with why (`step.UnreadReason`), so a step is
never verified on its other relations while the text asserts one the reader dropped. Words around a run that
change a side's value are read where the reading is exact ("half of 12", "twice 5", "a third of", "two-thirds of",
"three times 4", "4 squared", "the square root of 16", "the square of 7", "the cube of x", "the double of 8",
"3 + 3 is not 7") and otherwise leave the relation unread ("half of 12 + 4", "the square of 3 + 4", "the root of
49", "we halve 10", "10 take away 3", "5 more than 3 = 8", "= 3 dozen", "= about 7", `3 = 3,5`, a range `3-4
hours`); a relation its sentence does not assert is unread too (`_asserted`): in a question ("Is x = 5?",
unless a condition introduces it: "What is x if 2x = 6?"), in a hypothesis when it has no unknowns ("If 2 + 2 = 5
then 3 + 3 = 7": both; "Suppose, for contradiction, that 2 + 2 = 5"), in a report or a verdict on it ("A common
mistake is to write 2 + 2 = 5", "… is refuted", "We check whether …", "… unless 1 = 0"), in a sentence with words
of a script the reader does not read (Cyrillic, Han, full-width Latin, a Cyrillic о inside "not") or with an
invisible or combining character; a calculator annotation is a calculator's record, asserted whatever the prose
around it says. A truncated decimal whose next unit is the other side (`0.999... = 1`) may be a recurring one:
unread. Units are
dimension-checked (`3 m + 3 m = 7 m` is 3 + 3 = 7; `2 hours = 120 minutes` converts exactly; euros plus dollars,
dollars plus hours, dozens plus bare numbers are unread); a truncated decimal (`0.666...`) is read as the
interval it states; prose negation is read where its scope is exact ("It is not true that R", "R is false")
and otherwise leaves R unread; the number written after an annotation must be its value, and prose around an
annotation that says something else is unread; digits and symbols outside the reader's alphabet (`৪`, `１`, `≡`,
a Cyrillic `х`) make their side unread. Unread too: both sides of an "or" between relations (`30h - 5.5m = 0 or
30h - 5.5m = 180` asserts neither; values listed for one name are alternatives, `roles.classify`); every member of
a list a negation after it reaches ("y = 8, y = 24 and y = 48 are not roots"); a relation whose left side a
quantity before it applies to across LaTeX regions (`$10\\%$ of $\\$1.50 = …$`); a side beside a function written
as a word ("sin x = √2 cos y"), or holding a minus glued to a number after spaced arithmetic (`x + 2 -16`: a lost
line break); in a question, a format example ("e.g. (1, 2, 3) for a=1, b=2, c=3") is not a given. Every scan over
the text is linear (no regex backtracks over it).

Conservative by design (a misread relation would be a false failure): a run cut by a word on its left
or right loses the cut side (`7 gallons + Cynthia's 8 = 15` yields nothing), a relation between
quantities in different units of one dimension (`1 hour = 60 minutes`) is skipped with a note (a
conversion factor such as "60 minutes per hour" converts exactly, and only into its own unit), and any
side that does not parse is skipped with a note. Where the prose allows two readings that disagree
(`3/3 - 2/3 = 1/3 of $150`; `5 * 3 = $15,000` in a step counting in thousands), the relation is
skipped with a note rather than verified on the kinder reading (`runs._prose_reading`). Each relation
records the unit its quantities are stated in (`Relation.unit`), and `restate` rewrites it exactly
into another unit, so a translator can follow a quantity from hours into minutes across steps.

Modules: `step` (the data returned), `runs` (relations out of token runs), `roles` (claims, bindings,
cases, assumptions); this module finds the regions and joins them (`extract`, `extract_value`, `restate`).
"""

from __future__ import annotations

import bisect
import itertools
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, replace

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
    names_in,
    parse_expression,
    parse_number,
    strip_percent,
    to_text,
)
from reasonforge.lang.math.latex import LatexReader
from reasonforge.lang.math.roles import classify, domain_assumptions
from reasonforge.lang.math.runs import (
    Found,
    implicit_products,
    percents_in,
    relations_of_run,
    render,
    scales_in,
    split_runs,
)
from reasonforge.lang.math.step import Assumption, Origin, Relation, StepMath, Unread, UnreadReason
from reasonforge.lang.math.tokens import VALUE_WORDS, Tok, label_words, lex_plain, read_words
from reasonforge.lang.math.units import conversion_factor, word_unit

__all__ = ["Assumption", "Relation", "StepMath", "extract", "extract_value", "latex_spans", "restate"]


# ---- regions ---------------------------------------------------------------------------------------------------
_ANNOTATION = re.compile(r"<<([^<>\n]{1,2000})>>")
_ECHO = re.compile(r">>[ \t]*(?:[$€£][ \t]*)?([0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]+)?|[0-9]+(?:\.[0-9]+)?|\.[0-9]+)(?![0-9])")
_OPENERS = re.compile(r"\$|\\[\[(]|\\begin\{(?:align|equation|gather|eqnarray|multline|alignat)\*?\}")
_PROSE_WORD = re.compile(r"(?<![\\A-Za-z])[A-Za-z]{3,}")
# prose naming what a LaTeX region computes: "Total cost = \\(3.5 + 7.5 = 11\\)". The opener belongs to neither side,
# so the `=` has a word on its left and the region on its right: the words label the region's first side. Only a
# word of three letters or more (never `x = \\(3 + 4\\)`, whose x is an unknown the relation binds)
_LABEL_OPENS = re.compile(r"(?<![\\A-Za-z])[A-Za-z]{3,}'?s?[ \t]*=[ \t]*(?:\\\$[ \t]*)?(?P<opener>\\[(\[]|\$)[ \t]*\Z")


@dataclass
class _Region:
    kind: Origin
    start: int
    end: int


def _latex_like(body: str, after: str) -> bool:
    """A `$…$` pair is maths unless it reads as currency: prose words inside, a blank before the closing
    `$`, or a number right after it (`$5 + $3 = $8`, `$5 or $.50`); a full stop after it ends a sentence."""
    if body[-1:].isspace() or after[:1].isdigit() or re.match(r"\.\d", after):
        return False
    stripped = re.sub(r"\\(?:text|mathrm|textbf|mbox|operatorname)\s*\{[^{}]*\}|\\[A-Za-z]+", " ", body)
    return len(_PROSE_WORD.findall(stripped)) == 0 and len(body) <= 2000


def _delimited(text: str) -> list[tuple[int, int]]:
    """Spans of delimited LaTeX bodies: `$$…$$`, `\\[…\\]`, `\\(…\\)`, `$…$` (not currency) and displayed
    environments standing alone (`\\begin{align*}…\\end{align*}`, the whole environment), left to right.
    Linear: each closer is searched once per opener that it closes, and a delimiter with no closer left
    is not searched for again."""
    found: list[tuple[int, int]] = []
    dead: set[str] = set()
    pos = 0
    while (m := _OPENERS.search(text, pos)) is not None:
        i = m.start()
        if text.startswith("$$", i):
            close = -1 if "$$" in dead else text.find("$$", i + 2)
            if close < 0:
                dead.add("$$")
                pos = i + 2
            elif close == i + 2:
                pos = i + 4
            else:
                found.append((i + 2, close))
                pos = close + 2
            continue
        if text.startswith("\\begin", i):  # a displayed environment outside `$$` is maths all the same
            closer = "\\end" + m.group()[6:]
            close = -1 if closer in dead else text.find(closer, m.end())
            if close < 0:
                dead.add(closer)
                pos = m.end()
            else:
                found.append((i, close + len(closer)))
                pos = close + len(closer)
            continue
        if text[i] == "\\":
            closer = "\\]" if text[i + 1] == "[" else "\\)"
            close = -1 if closer in dead else text.find(closer, i + 2)
            if close < 0:
                dead.add(closer)
                pos = i + 2
            else:
                if close > i + 2:
                    found.append((i + 2, close))
                pos = close + 2
            continue
        if i > 0 and text[i - 1] == "\\":  # `\$`: an escaped dollar opens nothing
            pos = i + 1
            continue
        close = -1 if "$" in dead else text.find("$", i + 1)
        if close < 0:
            dead.add("$")
            pos = i + 1
            continue
        if close == i + 1 or text[close - 1] == "\\":
            pos = i + 1
            continue
        if _latex_like(text[i + 1:close], text[close + 1:close + 3]):
            found.append((i + 1, close))
            pos = close + 1
        elif re.search(r"\\[(\[]", text[i + 1:close]):
            pos = i + 1  # "won $1 more … \\(2 \\times 5 = 10\\) … was $5": two amounts, LaTeX between them
        else:
            pos = close + 1  # a currency pair (`$5 + $`) is consumed like a LaTeX one, but not read as LaTeX
    return found


def latex_spans(text: str) -> list[tuple[int, int]]:
    """The spans of the text's delimited LaTeX bodies, left to right (what the LaTeX reader reads)."""
    return _delimited(text)


def _regions(text: str) -> list[_Region]:
    """Split the text into annotation, LaTeX and plain regions, in order."""
    found: list[_Region] = []
    for m in _ANNOTATION.finditer(text):
        found.append(_Region("annotation", m.start(), m.end()))
    taken = [(r.start, r.end) for r in found]
    starts = [a for a, _ in taken]
    for a, b in _delimited(text):
        k = bisect.bisect_right(starts, b) - 1  # annotations are sorted and disjoint: check the one before b
        if k >= 0 and taken[k][0] < b and a - 2 < taken[k][1]:
            continue
        found.append(_Region("latex", a, b))
    found.sort(key=lambda r: r.start)
    regions: list[_Region] = []
    pos = 0
    for r in found:
        if r.start > pos:
            label = _LABEL_OPENS.search(text, max(pos, r.start - 80), r.start) if r.kind == "latex" else None
            if label is not None and not _names_a_quantity(text, pos, text.rindex("=", pos, label.start("opener"))):
                label = None
            regions.append(_Region("text", pos, label.start("opener") if label else r.start))
        regions.append(r)
        pos = r.end
    if pos < len(text):
        regions.append(_Region("text", pos, len(text)))
    return regions


def _names_a_quantity(text: str, lo: int, hi: int) -> bool:
    """Do the words of the clause ending at `hi` (from its last stop, comma or colon) only name a quantity: a few
    words, none of them a number, an operator, a unit, a negation or a hedge (`tokens.label_words`)? "Total cost"
    does; "twenty", "Total cost in cents", "Total cost is not" do not."""
    clause = re.split(r"[.;:!?,\n]|\\[)\]]|\$", text[lo:hi])[-1]
    words = _CLAUSE_WORD.findall(clause)
    return bool(words) and label_words(words) and all(word_unit(w.lower()) is None for w in words)


_CLAUSE_WORD = re.compile(r"[A-Za-z]+(?:['’][A-Za-z]+)*")


# ---- entry points -------------------------------------------------------------------------------------------------
def _tokens_for(text: str, region: _Region) -> list[Tok]:
    if region.kind == "latex":
        return LatexReader(text).tokens(region.start, region.end)
    if region.kind == "annotation":
        return read_words(lex_plain(text, region.start + 2, region.end - 2))
    return lex_plain(text, region.start, region.end, prose=True)


def _streams(text: str) -> list[tuple[Origin, list[Tok], _Region | None]]:
    """Token streams in text order: prose (adjacent text regions joined across the annotations that cut them,
    which are masked out), annotations and LaTeX spans."""
    streams: list[tuple[Origin, list[Tok], _Region | None]] = []
    plain: list[Tok] = []
    pending: list[tuple[Origin, list[Tok], _Region | None]] = []  # annotations met inside the prose
    closer_end = 0  # the end of the last inline atom's closing delimiter: no token of the prose
    for region in _regions(text):
        if region.kind == "text":
            plain.extend(t for t in _tokens_for(text, region) if t.start >= closer_end)
            continue
        if region.kind == "annotation":
            pending.append(("annotation", _tokens_for(text, region), region))
            continue
        if (delimited := _operand_atom(text, region)) is not None:
            opener_start, closer_end = delimited
            while plain and plain[-1].start >= opener_start:
                plain.pop()  # the opening delimiter ends the prose before the atom
            plain.extend(_tokens_for(text, region))
            continue
        streams.append(("text", read_words(plain), None))
        streams.extend(pending)
        plain, pending = [], []
        streams.append(("latex", _tokens_for(text, region), region))
    streams.append(("text", read_words(plain), None))
    streams.extend(pending)
    return streams


_INLINE_ATOM = re.compile(r"\s*(?:[A-Za-z]|\d+(?:\.\d+)?)\s*\Z")
_OPERATOR_END = re.compile(r"(?:[-+*/=<>×÷−(]|\\times|\\cdot)\s*\Z")
_OPERATOR_START = re.compile(r"\s*(?:[-+*/=<>×÷−)]|\\times|\\cdot)")


def _operand_atom(text: str, region: _Region) -> tuple[int, int] | None:
    """Where the delimiters of an inline LaTeX region holding one letter or number start and end (its opener's start,
    its closer's end) when an operator in the prose around it takes it as its operand (`30 + 15 + \\( x \\) + 105 =
    500`, `\\( x \\) = 350 - 150`): it is read as part of that prose, exactly as it renders. None for any other
    region."""
    if not _INLINE_ATOM.match(text, region.start, region.end):
        return None
    opener = "\\(" if text.startswith("\\(", region.start - 2) else "$" if text[region.start - 1:region.start] == "$" \
        else None
    if opener is None or not text.startswith("\\)" if opener == "\\(" else "$", region.end):
        return None
    lo, hi = region.start - len(opener), region.end + len(opener)
    if not (_OPERATOR_END.search(text, max(0, lo - 20), lo) or _OPERATOR_START.match(text, hi, hi + 20)):
        return None
    return lo, hi


def _variables(streams: Sequence[tuple[Origin, list[Tok], _Region | None]]) -> frozenset[str]:
    """One-letter names used as unknowns somewhere in the text: not only right after a number (so `m` in
    "m = 4" stays an unknown in `3m + 3m = 7m` too)."""
    names: set[str] = set()
    for _, tokens, _ in streams:
        for k, tok in enumerate(tokens):
            if tok.kind == "name" and len(tok.text) == 1 and not (k > 0 and tokens[k - 1].kind == "num"):
                names.add(tok.text)
    return frozenset(names)


def extract(text: str, question: bool = False) -> StepMath:
    """Read the relations a step asserts (see the module docstring); `question`: the text is a question, whose
    conditions are what it gives (only its interrogative relations are not read). Never raises on odd input."""
    streams = _streams(text)
    found = Found(decimal_comma=_DECIMAL_COMMA.search(text) is not None, scales=scales_in(text),
                  variables=_variables(streams), percents=percents_in(text))
    relations: list[Relation] = []
    annotations: list[Relation] = []
    for origin, tokens, region in streams:
        for run in split_runs(tokens, origin):
            read = relations_of_run(run, text, found)
            if origin == "annotation" and region is not None:
                annotations.extend(replace(rel, span=(region.start, region.end), source=text[region.start:region.end])
                                   for rel in read)
            else:
                relations.extend(read)
    relations, echo_claims = _settle_echoes(text, relations, annotations, found)
    seen = {rel.text for rel in annotations}
    merged = sorted([*annotations, *echo_claims, *(r for r in relations if r.text not in seen)], key=lambda r: r.span)
    unique: list[Relation] = []
    texts: set[str] = set()
    for rel in merged:
        if rel.text not in texts:
            texts.add(rel.text)
            unique.append(rel)
    unique = _applied_after(text, _applied_before(text, unique, found), found)
    unique, negated = _negations(text, unique, found)
    unique = _asserted(text, unique, found, negated, question)
    unread = _accounted(text, found, annotations)
    kinds = classify(text, unique, question)
    assumptions = kinds["assumption"] + domain_assumptions(text)
    notes = [*found.notes, *(u.message for u in unread if u.message not in found.notes)][:40]
    return StepMath(tuple(kinds["claim"]), tuple(kinds["binding"]), tuple(assumptions), tuple(notes),
                    tuple(kinds["case"]), tuple(unread))


# "10% of", "1/2 of", "two thirds of" right before a relation, in another region than its left side (`$10\%$ of
# $\$1.50 = 0.10 \times \$1.50$`): the left side is what the quantity applies to, not the quantity the text states
_APPLIED_BEFORE = re.compile(r"(?:\d|%|percent|half|halves|thirds?|quarters?|fourths?|fifths?|tenths?)\s*of\s*(?:the\s+)?$",
                             re.IGNORECASE)


# an operator right before a relation, outside its region: "(Expected coins) × \\( \\frac{1}{100} = … \\)" multiplies
# its left side by what the prose names (a dash is an operator only after a value on its line, never a bullet)
_OPERATOR_BEFORE = re.compile(r"(?:[×*·÷/+]|\btimes|\bcdot|\bdiv|[0-9A-Za-z)\]][ \t]*[-−])\s*$")


# a number and a comma (or "and") right before a relation: "The sum of 4, 6 = 10" may say 4 + 6 = 10, never 6 = 10
_LISTED_BEFORE = re.compile(r"(\d)\s*(?:,\s*(?:and\s+)?|and\s+)$")


def _opens_region(text: str, at: int) -> bool:
    """Whether only blanks stand between a LaTeX region's opening (`\\(`, `\\[`, `$`) and `at`."""
    return re.search(r"(?:\\[(\[]|\$)\s*$", text[max(0, at - 8):at]) is not None


def _applied_after(text: str, relations: list[Relation], found: Found) -> list[Relation]:
    """The relations whose right side ends their LaTeX region where the prose after it goes on to change that value
    ("\\(3^2 = 9\\) thousand", "\\(= 11\\)% of the budget", "\\(= 7\\) squared") are unread, as in plain text."""
    out: list[Relation] = []
    for rel in relations:
        if rel.origin == "latex":
            close = _REGION_CLOSE.match(text, rel.span[1], rel.span[1] + 40)
            after = text[close.end():close.end() + 40].lstrip(" -(") if close else ""
            word = _CLAUSE_WORD.match(after)
            words = [w.lower() for w in _CLAUSE_WORD.findall(after)[:2]]
            if close and (after.startswith(("%", "\\%")) or word and word.group().lower() in _CHANGES_AFTER
                          or words == ["per", "cent"]):
                found.miss(text, rel.span[0], rel.span[1], UnreadReason.WORD_OPERATOR,
                           "the words after its region change its right side's value", -1)
                continue
        out.append(rel)
    return out


# the end of a relation's region, past spacing and the braces of a box (`= 9 \\,\\)`, `= \\boxed{9}\\)`)
_REGION_CLOSE = re.compile(r"(?:\s|\\[,;:! ]|\})*(?:\\[)\]]|\$\$?)")
_CHANGES_AFTER = (VALUE_WORDS | {"mil"}) - {"more", "less", "fewer", "than", "over", "off", "away", "point", "versus", "vs", "times",
                                "plus", "minus", "short", "extra", "net"}


def _applied_before(text: str, relations: list[Relation], found: Found) -> list[Relation]:
    """The relations whose left side a quantity written before them applies to ("10% of" across LaTeX regions)
    are unread: the reader sees "1.50 = 0.10 × 1.50", the text says "10% of $1.50 = 0.10 × $1.50"; so are those
    whose left side ends a list of lone numbers ("the sum of 4, 6 = 10": the list may be the left side). A number
    that ends another relation ("x = 3, y = 4") lists relations, not numbers."""
    out: list[Relation] = []
    for rel in relations:
        if rel.origin != "annotation":
            lo = max(0, rel.span[0] - 60)
            before = re.sub(r"\\[()\[\]]|\\?\$|\\", " ", text[lo:rel.span[0]])
            if _APPLIED_BEFORE.search(before):
                found.miss(text, rel.span[0], rel.span[1], UnreadReason.WORD_OPERATOR,
                           "a quantity before it applies to its left side (\"… of\")", -1)
                continue
            if _OPERATOR_BEFORE.search(before) and rel.origin == "latex" and _opens_region(text, rel.span[0]):
                found.miss(text, rel.span[0], rel.span[1], UnreadReason.INCOMPLETE,
                           "an operator before its region joins its left side to what the prose names", -1)
                continue
            listed = _LISTED_BEFORE.search(before)
            if listed is not None and not any(o.span[0] < lo + listed.end(1) <= o.span[1] for o in relations):
                found.miss(text, rel.span[0], rel.span[1], UnreadReason.WORD_OPERATOR,
                           "a list of numbers before it may be its left side", -1)
                continue
        out.append(rel)
    return out


_DECIMAL_COMMA = re.compile(r"(?<![0-9,.])0,[0-9]")
_REL_BEFORE = re.compile(r"(?:[=<>≤≥≠≈]|\bequals|\bis)\s*(?:[$€£]\s*)?$")


def _settle_echoes(text: str, relations: list[Relation], annotations: list[Relation],
                   found: Found) -> tuple[list[Relation], list[Relation]]:
    """The number written after a calculator annotation (its echo) is checked, and so is the prose relation
    around the annotation:
    - `16 - 3 = <<16-3=13>>14`: the echo must be the annotation's value (claim `13 = 14`; `~=` when the echo
      has fewer decimals than the value: `<<100/3=33.33>>33` rounds);
    - a prose relation whose right side is the echo (`48/2 = <<48/2=24>>24`) is the annotation read again when
      its left side has the annotation's value (dropped); when it adds only a `%` (`100 - 20 = <<100-20=80>>80%`)
      it is a claim of its own (percent points, for the checker to settle); any other difference
      (`7 + 9 = <<7+8=15>>15`, or prose that cut its left side: `25x.4=<<25*.4=10>>10`) leaves it unread;
    - one whose right side goes on past the echo (`5 + 3 = <<5+3=8>>8 - 2 = …`) is a chain through the echo
      when its left side has the annotation's value (dropped); with unknowns (`71 + P - 3 = <<71+-3=68>>68 + P`)
      it is read as written, and otherwise it is unread;
    - any other prose relation holding an echo (`<<5+3=8>>8 + 3 = 11`) is an ordinary claim."""
    by_end = {a.span[1]: a for a in annotations}
    echoes: list[tuple[int, int, Relation]] = []  # (echo start, echo end, its annotation)
    claims: list[Relation] = []
    for m in _ECHO.finditer(text):
        ann = by_end.get(m.start() + 2)
        if ann is None:
            continue
        start, end = m.start(1), m.end(1)
        echoes.append((start, end, ann))
        written = m.group(1).replace(",", "")
        echo = Num(written if not written.startswith(".") else "0" + written, len(written.partition(".")[2]))
        value = ann.rhs_tree
        if to_text(value) == echo.text:
            continue
        op = "~=" if isinstance(value, Num) and value.decimals > echo.decimals else "="
        claims.append(Relation(op, value, echo, (ann.span[0], end), text[ann.span[0]:end], "annotation", ann.unit))
    if not echoes:
        return relations, claims
    starts = [e[0] for e in echoes]
    kept: list[Relation] = []
    for rel in relations:
        k = bisect.bisect_left(starts, rel.span[0])
        inside = [e for e in echoes[k:k + 4] if rel.span[0] <= e[0] < rel.span[1]]
        if not inside:
            kept.append(rel)
            continue
        start, end, ann = inside[0]
        if not _REL_BEFORE.search(text, rel.span[0], ann.span[0]) or names_in(rel.lhs_tree) \
                or isinstance(ann.lhs_tree, Num):
            # the echo is not where its right side starts, or the prose is algebra the annotation only computes a
            # number of (`X = 11 - 6, X = <<11-6=5>>5`, `x=<<10=10>>10`, `3N = <<3*5=15>>15`): a claim of its own
            kept.append(rel)
            continue
        whole = text[end:rel.span[1]].strip() in ("", "%")
        if not whole and end < len(text) and (text[end].isalpha() or text[end] == "("):
            kept.append(rel)  # `2 * 2S = <<2*2=4>>4S`: the echo is a coefficient of the right side, not all of it
            continue
        same_left = _same_value(rel.lhs_tree, ann.lhs_tree)
        if whole and same_left and to_text(rel.rhs_tree) == to_text(ann.rhs_tree):
            continue
        if whole and _same_value(strip_percent(rel.lhs_tree), ann.lhs_tree) \
                and _same_value(strip_percent(rel.rhs_tree), ann.rhs_tree):
            kept.append(rel)  # `$8.50/$50 x 100% = <<8.5/50*100=17>>17%`: percent points, the checker settles them
            continue
        if not whole and same_left:
            continue
        found.miss(text, rel.span[0], rel.span[1], UnreadReason.AMBIGUOUS,
                   f"the prose around the annotation reads {rel.text}, the annotation {ann.text}", -1)
    return kept, claims


def _same_value(a: Node, b: Node) -> bool:
    """Two sides written alike, or both closed with one exact value (`½ × 24` and `24/2`)."""
    if to_text(a) == to_text(b):
        return True
    if names_in(a) or names_in(b):
        return False
    try:
        return bool(evaluate(a) == evaluate(b))
    except ExpressionError:
        return False


def _accounted(text: str, found: Found, annotations: Sequence[Relation]) -> list[Unread]:
    """The unread relations, less those an annotation right after the relation symbol reads: the prose before
    the symbol ends with the annotation's numbers (`7 gallons + Cynthia's 8 gallons = <<7+8=15>>15`: the
    annotation is the relation; `… Cynthia's 9 gallons = <<7+8=15>>15` stays unread)."""
    starts = {a.span[0]: a for a in annotations}
    out: list[Unread] = []
    for entry, op_end in found.unread:
        m = _ANNOTATION_NEXT.match(text, op_end) if op_end >= 0 else None
        ann = starts.get(m.end() - 2) if m else None
        if ann is not None and _prose_numbers_match(text, op_end, ann):
            continue
        out.append(entry)
    return out


_ANNOTATION_NEXT = re.compile(r"[ \t]*(?:[$€£][ \t]*)?<<")
_NUMBER = re.compile(r"(?<![0-9.])(?:[0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)(?:\.[0-9]+)?|(?<![0-9])\.[0-9]+")
_PROSE_WINDOW = 200


def _literal_value(text: str) -> str:
    """A written number's exact value as text (`1,000` → 1000, `.50` → 1/2, `3.00` → 3)."""
    digits = text.replace(",", "")
    return str(parse_number("0" + digits if digits.startswith(".") else digits))


def _prose_numbers_match(text: str, op_end: int, ann: Relation) -> bool:
    """The numbers written in the prose right before the relation symbol, last first, are the annotation's
    literals (as a multiset): the annotation computes what the prose states."""
    # `1800 sq in * 20% = <<1800*20*.01=360>>`: the annotation writes the percent as a factor the prose does not
    literals = sorted(v for v in (_literal_value(n.text) for n in _literals(ann.lhs_tree)) if v not in ("1/100", "100"))
    if not literals:
        return False
    previous = text.rfind(">>", max(0, op_end - _PROSE_WINDOW), op_end)  # numbers since the last annotation
    lo = max(0, op_end - _PROSE_WINDOW, previous + 2 if previous >= 0 else 0)
    # a percent's 100 and a rate's "per 1 hour" are written in the prose, not computed by the annotation
    dropped = {"100", "1"} - set(literals)
    written = [v for v in (_literal_value(m.group()) for m in _NUMBER.finditer(text, lo, op_end)) if v not in dropped]
    return len(written) >= len(literals) and sorted(written[len(written) - len(literals):]) == literals


def _literals(node: Node) -> list[Num]:
    if isinstance(node, Num):
        return [node]
    if isinstance(node, Binary):
        return _literals(node.left) + _literals(node.right)
    if isinstance(node, (Unary, Postfix)):
        return _literals(node.arg)
    if isinstance(node, Call):
        return [n for a in node.args for n in _literals(a)]
    return []

# ---- negation ---------------------------------------------------------------------------------------------------
_NEGATION_WINDOW = 160
_CLAUSE_END = re.compile(r"[.,;:!?\n]|\b(?:so|then|thus|hence|therefore|because|since|but)\b", re.IGNORECASE)
# after a negation, a word that makes what follows a proposition ("not true that", "doesn't think"), not a quantity
# that a negated verb takes as its object ("was not able to hit 60 + 50 = 110 balls": the sum is asserted)
_PROPOSITION = re.compile(
    r"\b(?:whether|true|case|correct|right|say|says|said|think|thinks|thought|believe|believes|believed|"
    r"claim|claims|claimed|hold|holds|know|knows|show|shows|prove|proves|mean|follow|follows|imply|implies|"
    r"equal|equals|exactly|quite|simply|necessarily|always|really|actually|so)\b", re.IGNORECASE)
_NEGATION_WORD = re.compile(
    r"\b(?:not|no|never|neither|nor|cannot|false|untrue|wrong|wrongly|incorrect|incorrectly|impossible|mistaken|"
    r"mistake|mistakenly|erroneous|erroneously|invalid|fails?|failed|instead\s+of|rather\s+than|unlike|contrary|"
    r"contradicts?|disproves?|refutes?)\b|n['’]t\b",
    re.IGNORECASE)
_NEGATED_THAT = re.compile(
    r"(?:^|[\s,])(?:it\s+is|it['’]s|it\s+was|this\s+is)\s+(?:not\s+true|false|untrue|not\s+the\s+case|wrong|"
    r"incorrect)\s+that\s*$", re.IGNORECASE)
_NEGATED_AFTER = re.compile(
    r"\s*(?:is|was)\s+(?:false|untrue|wrong|incorrect|not\s+true|impossible|invalid)\s*(?:[.;!?\n]|$)",
    re.IGNORECASE)
_NEGATION_AFTER = re.compile(
    r"\s*,?\s*(?:(?:which|that|this)\s+)?(?:is|was|are|were|would\s+be)\s+(?:not|never|false|untrue|wrong|"
    r"incorrect|impossible|invalid|a\s+mistake|an\s+error)\b|\s*(?:isn['’]t|wasn['’]t|doesn['’]t|does\s+not|"
    r"cannot|can['’]t|never|fails?)\b", re.IGNORECASE)
_NEGATE = {"=": "!=", "!=": "=", "<": ">=", ">": "<=", "<=": ">", ">=": "<"}
_DELIMITERS = re.compile(r"\\[()\[\]]|\$")


def _clause_before(text: str, start: int) -> str:
    """The prose of a relation's clause before it (within a window), LaTeX delimiters blanked."""
    lo = max(0, start - _NEGATION_WINDOW)
    prefix = text[lo:start]
    ends = list(_CLAUSE_END.finditer(prefix))
    if ends:
        prefix = prefix[ends[-1].end():]
    return _DELIMITERS.sub(" ", prefix)


def _negations(text: str, relations: list[Relation], found: Found) -> tuple[list[Relation], set[tuple[int, int]]]:
    """Prose negation: "It is not true that 3 + 3 = 6" claims 3 + 3 ≠ 6 and "3 + 3 = 7 is false" claims
    3 + 3 ≠ 7 (the relation negated, when it is the only one in its clause and no other negation is there);
    any other negation in the relation's clause ("not", "n't", "wrong", "instead", …, before it or as its
    predicate after it) leaves it unread: its scope is not read, so the relation is never read as asserted.
    Returns the relations and the spans of those read negated."""
    out: list[Relation] = []
    negated: set[tuple[int, int]] = set()
    unread_until = -1  # a chain `a ≤ b ≤ c` after "this contradicts": each of its pairs is under the negation
    for k, rel in enumerate(relations):
        if rel.span[0] < unread_until:
            found.miss(text, rel.span[0], rel.span[1], UnreadReason.NEGATION,
                       "it continues a chain under a negation", -1)
            unread_until = max(unread_until, rel.span[1])
            continue
        before = _clause_before(text, rel.span[0])
        tail = text[rel.span[1]:rel.span[1] + 80]
        bare_tail = _DELIMITERS.sub("", tail)  # `\( x = 5 \) is not …`: a negation all the same
        listed = _list_end(text, relations, k)
        if listed > rel.span[1] and _NEGATION_AFTER.match(_DELIMITERS.sub("", text[listed:listed + 80])):
            # "y = 8, y = 24 and y = 48 are not roots": the negation after a list reaches every member
            found.miss(text, rel.span[0], rel.span[1], UnreadReason.NEGATION,
                       "a member of a list that a negation after it reaches", -1)
            continue
        that = _NEGATED_THAT.search(before)
        rest = before[:that.start()] if that else before
        words_before = _negation_over(rest)
        exact_after = _NEGATED_AFTER.match(tail) is not None
        alone = not (k > 0 and relations[k - 1].span[1] > rel.span[0] - len(before)) and not (
            k + 1 < len(relations) and not _CLAUSE_END.search(text, rel.span[1], max(rel.span[1], relations[k + 1].span[0])))
        if (that is not None) != exact_after and not words_before and alone and rel.op in _NEGATE:
            out.append(replace(rel, op=_NEGATE[rel.op]))
            negated.add(rel.span)
        elif that is not None or words_before or _NEGATION_AFTER.match(tail) or _NEGATION_AFTER.match(bare_tail):
            found.miss(text, rel.span[0], rel.span[1], UnreadReason.NEGATION,
                       "prose negation whose scope over it is not read exactly", -1)
            unread_until = rel.span[1]
        else:
            out.append(rel)
    return out, negated


_LIST_GAP = re.compile(r"(?:\s|\\[()\[\]]|\$)*(?:,|\band\b|\bor\b)(?:\s|\\[()\[\]]|\$|,|\band\b|\bor\b)*",
                       re.IGNORECASE)


def _list_end(text: str, relations: Sequence[Relation], k: int) -> int:
    """Where the list that relation k belongs to ends (`y = 8, y = 24, and y = 48`: members joined by commas,
    "and", "or" and LaTeX delimiters only); its own end when it ends no list."""
    end = relations[k].span[1]
    for following in relations[k + 1:]:
        gap = text[end:following.span[0]]
        if following.span[0] < end or len(gap) > 40 or _LIST_GAP.fullmatch(gap) is None:
            break
        end = following.span[1]
    return end


def _negation_over(before: str) -> bool:
    """A negation in the clause before a relation reaches it: it stands right before it ("not 3 + 3 = 6"), or
    a proposition word or an adverb comes between ("isn't true that", "doesn't think", "not exactly"); a
    negated verb whose object holds the relation ("couldn't finish 40*1/5 = 8", "did not eat 10 - 2 = 8
    apples") does not negate the arithmetic."""
    last = None
    for last in _NEGATION_WORD.finditer(before):
        pass
    if last is None:
        return False
    between = before[last.end():]
    return not between.split() or _PROPOSITION.search(between) is not None


# ---- whether the sentence asserts a relation --------------------------------------------------------------------
# Sentence ends: `.` only before a blank or the end (`3.5`, `0.999...` inside a relation are not ends)
_SENTENCE_MARK = re.compile(r"[;?!\n\u3002\uff01\uff1f\uff1b]|\.(?=\s|$)")
_LETTERS = re.compile(r"[^\W\d_]+", re.UNICODE)
# words that make the sentence a report, a quotation or a verdict on a relation rather than its assertion ("A
# common mistake is to write 2 + 2 = 5", "The claim 2 + 2 = 5 is refuted", "Tom thinks …"); an exact negation
# ("It is false that R", "R is false") is read by `_negations` first
_REPORTING = frozenset("""
mistake mistakes mistaken mistakenly error errors erroneous erroneously wrong wrongly incorrect incorrectly typo
typos false falsely untrue absurd absurdity nonsense refute refutes refuted disprove disproves disproved
contradiction contradictions contradict contradicts contradicted contradictory counterexample claim claims claimed
claiming think thinks thought believe believes believed belief guess guesses guessed guessing pretend pretends
imagine imagines hypothetically supposedly allegedly whether unless
""".split())  # noqa: SIM905 - a word list reads better as text
# words that open a hypothesis: a relation with no unknowns after them is not asserted ("If 2 + 2 = 5 then …",
# "Suppose, for contradiction, that 2 + 2 = 5"); one with unknowns is a case or an assumption (`roles.classify`)
_ANTECEDENT = frozenset({"if", "provided", "providing"})  # their clause ends at a comma, colon or "then"
_SUPPOSITION = frozenset({"suppose", "supposing", "assume", "assuming"})  # to the sentence end
_CONDITIONS = frozenset({"if", "given", "when", "whenever", "where", "such", "suppose", "supposing", "assume",
                         "assuming", "let", "for", "with", "provided"})
_CLAUSE_BREAK = re.compile(r"[,:]|\b(?:then|because|since|so|thus|hence|therefore)\b", re.IGNORECASE)
_CLAUSE_WORDS = re.compile(r"\b(?:because|since|so|thus|hence|therefore|but|while|whereas)\b", re.IGNORECASE)
_SCRIPTS_LATIN = ("LATIN",)  # é in "café" is Latin; full-width Latin is not (`FULLWIDTH LATIN …`)
# characters that change what a word reads without showing (`n\u200bot`, a combining stroke, private use)
_HIDDEN = frozenset({"Cf", "Mn", "Me", "Co", "Cs", "Cn"})


def _breaks(text: str, spans: Sequence[tuple[int, int]]) -> list[int]:
    """Positions of the sentence ends of `text` that lie in no relation's span, sorted."""
    ordered = sorted(spans)
    starts = [a for a, _ in ordered]
    out = []
    for m in _SENTENCE_MARK.finditer(text):
        k = bisect.bisect_right(starts, m.start()) - 1
        if k >= 0 and ordered[k][0] <= m.start() < ordered[k][1]:
            continue
        out.append(m.start())
    return out


def _unread_script(prose: str) -> str | None:
    """A word of the prose in a script the reader does not read (Cyrillic, Han, full-width Latin, a Greek word:
    `Λάθος`), else None; a lone Greek letter is a name (θ), letterlike symbols (ℕ, ℝ) are maths."""
    for word in _LETTERS.findall(prose):
        letters = [ch for ch in word if unicodedata.category(ch).startswith("L") and not 0x2100 <= ord(ch) <= 0x214F]
        if len(letters) == 1 and unicodedata.name(letters[0], "").startswith("GREEK"):
            continue
        for ch in letters:
            if not ch.isascii() and not unicodedata.name(ch, "").startswith(_SCRIPTS_LATIN):
                return word
    return None


def _masked(text: str, lo: int, hi: int, spans: Sequence[tuple[int, int]]) -> str:
    """text[lo:hi] with the relations' spans blanked (same length, so positions still fit)."""
    chars = list(text[lo:hi])
    for a, b in spans:
        for k in range(max(a, lo), min(b, hi)):
            chars[k - lo] = " "
    return "".join(chars)


def _asserted(text: str, relations: list[Relation], found: Found, negated: set[tuple[int, int]],
              question: bool) -> list[Relation]:
    """The relations their sentence asserts; the others are unread (never verified, never refuted as if
    asserted). Not asserted: a relation in a question sentence ("Is x = 5?", "x = 5?"; unless a condition
    introduces it: "What is x if 2x = 6?"); in a sentence holding words of a script the reader does not read; in
    a sentence that reports, quotes or judges it ("A common mistake is to write 2 + 2 = 5", "… would be
    absurd", "We check whether …", "… unless 1 = 0"); a relation without unknowns in a hypothesis ("If 2 + 2 = 5
    then 3 + 3 = 7": both; "Suppose, for contradiction, that 2 + 2 = 5"; "Were 2 + 2 = 5, …"). In a question
    (`question`), only its interrogative relations are left out: its conditions are what it gives. Calculator
    annotations are a calculator's record, asserted whatever the prose around them says."""
    spans = [r.span for r in relations] + [u.span for u, _ in found.unread]
    breaks = _breaks(text, spans)
    alternatives = _disjunctions(text, relations)
    out: list[Relation] = []
    curve = None if question else _CURVE.search(text)
    for rel in relations:
        if rel.origin == "annotation":
            out.append(rel)
            continue
        if rel.span in alternatives:
            found.miss(text, rel.span[0], rel.span[1], UnreadReason.NOT_ASSERTED,
                       "one side of an \"or\": the sentence asserts that one of them holds, not which", -1)
            continue
        if curve is not None and rel.names and rel.names <= _COORDINATES:
            found.miss(text, rel.span[0], rel.span[1], UnreadReason.NOT_ASSERTED,
                       f"the step speaks of \"{curve.group().strip()}\": an equation in x and y may describe it, "
                       "with x and y its points' coordinates rather than values found before", -1)
            continue
        if rel.names and rel.bound_name is None and _heading(text, rel):  # "For a = 2:" stays a case
            found.miss(text, rel.span[0], rel.span[1], UnreadReason.NOT_ASSERTED,
                       "it heads a line (\"- m + n = 5: (1, 4), (2, 3)\"): a case the line is about, not a claim", -1)
            continue
        if question and _in_example(text, rel.span[0]):
            found.miss(text, rel.span[0], rel.span[1], UnreadReason.NOT_ASSERTED,
                       "an example the question gives of a format (\"e.g.\"), not a given", -1)
            continue
        k = bisect.bisect_left(breaks, rel.span[0])
        lo = breaks[k - 1] + 1 if k else 0
        hi = breaks[k] if k < len(breaks) else len(text)
        terminator = text[hi] if hi < len(text) else ""
        inside = [r.span for r in relations if lo <= r.span[0] < hi]
        prose = _masked(text, lo, hi, inside)
        before = prose[:rel.span[0] - lo]
        after = prose[rel.span[1] - lo:]
        why = _not_asserted(rel, prose, before, after, terminator, negated, question,
                            closed_antecedent=any(_closed_antecedent(prose[:r.span[0] - lo])
                                                  for r in relations if lo <= r.span[0] < hi and not r.names))
        if why is None:
            out.append(rel)
            continue
        reason, detail = why
        found.miss(text, rel.span[0], rel.span[1], reason, detail, -1)
    return out


# a curve or a line the step describes by an equation: its x and y are any point's coordinates
_CURVE = re.compile(r"\b(?:(?:the|a|its|this)\s+)?(?:(?:perpendicular|angle)\s+)?(?:line|lines|bisector|circle|curve|"
                    r"parabola|hyperbola|ellipse|plane|graph|tangent|asymptote|locus|axis\s+of\s+symmetry)\b"
                    r"(?=[^.]{0,80}?(?:\bis\b|\bhas\s+(?:the\s+)?equation\b|:|\$|\\\(|\\\[|\by\s*=|\bx\s*=))",
                    re.IGNORECASE)
_COORDINATES = frozenset({"x", "y", "z"})
_HEAD_BEFORE = re.compile(r"[ \t]*(?:[-*•+]|\d{1,3}[.)]|\(\w\))?[ \t]*(?:(?:for|when|if|case|with)[ \t]+)?"
                          r"(?:\*\*|\\\(|\\\[|\$)*[ \t]*", re.IGNORECASE)
_HEAD_AFTER = re.compile(r"[ \t]*(?:\*\*|\\\)|\\\]|\$)*[ \t]*:")


def _heading(text: str, rel: Relation) -> bool:
    """Whether a relation with unknowns heads its line and a colon follows it (`- \\(m+n=5\\): (1,4), (2,3)`,
    "For x = 2: …"): the case the line is about, one of several, not a claim that holds with the others."""
    before = text[text.rfind("\n", 0, rel.span[0]) + 1:rel.span[0]]
    return len(before) <= 40 and _HEAD_BEFORE.fullmatch(before) is not None \
        and _HEAD_AFTER.match(text, rel.span[1]) is not None


_EXAMPLE_OPENER = re.compile(r"\be\.\s?g\.|\bfor\s+(?:example|instance)\b|\bsuch\s+as\b", re.IGNORECASE)
_SENTENCE_END_AFTER = re.compile(r"[.!?](?:\s|$)")


def _in_example(text: str, start: int) -> bool:
    """Whether a relation of a question stands in an example the question gives ("in the form of coordinates
    (e.g. (1, 2, 3) for a=1, b=2, c=3)"): an example opener earlier on its line, no sentence end between."""
    line_start = text.rfind("\n", 0, start) + 1
    window = text[max(line_start, start - 120):start]
    opener = None
    for opener in _EXAMPLE_OPENER.finditer(window):
        pass
    return opener is not None and _SENTENCE_END_AFTER.search(window, opener.end()) is None


# "or" between two relations, in prose or in LaTeX (`\\quad \\text{or} \\quad`), with delimiters and spacing around it
_SPACER = r"(?:\s|\\[()\[\]]|\$|[,;()~—–-]|\\(?:q?quad(?![A-Za-z])|[,;:! ]))"
_OR_GAP = re.compile(rf"{_SPACER}*(?:\b(?:and/)?or\b|\\(?:text[a-z]*|math[a-z]*|mbox|operatorname)\s*\{{[\s,;]*"
                     rf"(?:and/)?or\s*\}}){_SPACER}*(?:\belse\b{_SPACER}*)?", re.IGNORECASE)


def _disjunctions(text: str, relations: Sequence[Relation]) -> set[tuple[int, int]]:
    """The spans of relations joined by "or" (`30h - 5.5m = 0 or 30h - 5.5m = 180`): a disjunction asserts
    neither side. Values listed for one name (`x = 2 or x = 3`) are left to `roles.classify`, which reads them
    as alternatives (cases), never as facts that hold together."""
    out: set[tuple[int, int]] = set()
    for left, right in itertools.pairwise(relations):
        if left.origin == "annotation" or right.origin == "annotation" or right.span[0] < left.span[1]:
            continue
        if _OR_GAP.fullmatch(text[left.span[1]:right.span[0]]) is None:
            continue
        if left.bound_name is not None and left.bound_name == right.bound_name \
                and not (names_in(left.rhs_tree) or names_in(right.rhs_tree)):
            continue
        out |= {left.span, right.span}
    return out


def _words_in(prose: str) -> list[str]:
    """The words of the prose, lowercase; words joined by a slash are one ("true/false questions")."""
    return [w.lower().replace("’", "'") for w in re.findall(r"[A-Za-z]+(?:['’/][A-Za-z]+)*", prose)]


def _clause(prose: str, start: int, end: int) -> str:
    """The clause of the sentence's prose that holds [start, end): cut where a reason or a consequence starts
    ("guessed 800 because 8 x 100 = 800": the reason is asserted), never at a comma ("Tom thinks, as usual, that
    …" keeps the report)."""
    lo = max((m.end() for m in _CLAUSE_WORDS.finditer(prose, 0, start)), default=0)
    stop = _CLAUSE_WORDS.search(prose, end)
    return prose[lo:stop.start() if stop else len(prose)]


def _closed_antecedent(before: str) -> bool:
    """The prose before a relation opens a hypothesis that reaches it ("If", "Suppose, for contradiction, that",
    "Were" opening the sentence)."""
    words = _words_in(before)
    if words[:1] == ["were"]:
        return True
    for m in reversed(list(re.finditer(r"[A-Za-z]+(?:['’][A-Za-z]+)*", before))):
        word = m.group().lower().replace("’", "'")
        if word in _SUPPOSITION:
            return True
        if word in _ANTECEDENT:
            return _CLAUSE_BREAK.search(before, m.end()) is None
    return False


# In a question, "x = 3, y = 4: what is x + y?": what stands before the colon is what it gives, not what it asks
_ASKING_AFTER_COLON = re.compile(r"[^:]*:\s*(?:what|which|find|compute|calculate|evaluate|determine|how)\b",
                                 re.IGNORECASE)


def _not_asserted(rel: Relation, prose: str, before: str, after: str, terminator: str,
                  negated: set[tuple[int, int]], question: bool, closed_antecedent: bool) -> tuple[UnreadReason, str] | None:
    """Why the sentence does not assert `rel` (`_asserted`), else None."""
    if terminator in ("?", "\uff1f") and not _condition_before(before) \
            and not (question and _ASKING_AFTER_COLON.match(after)):
        return UnreadReason.NOT_ASSERTED, "a question asserts nothing"
    if question:
        return None
    if (mark := next((c for c in prose if unicodedata.category(c) in _HIDDEN), None)) is not None:
        return UnreadReason.SYMBOL, f"its sentence holds an invisible or combining character (U+{ord(mark):04X})"
    if (word := _unread_script(prose)) is not None:
        return UnreadReason.SCRIPT, f"its sentence holds \"{word}\", in a script the reader does not read"
    words = _words_in(_clause(prose, len(before), len(before) + rel.span[1] - rel.span[0]))
    reporting = sorted(set(words) & _REPORTING)
    if rel.span in negated:
        reporting = [w for w in reporting if w not in ("false", "untrue", "wrong", "incorrect")]
    if reporting:
        return UnreadReason.NOT_ASSERTED, f"\"{reporting[0]}\" in its sentence: it may not assert it"
    if not rel.names and (closed_antecedent or _closed_antecedent(before)):
        return UnreadReason.NOT_ASSERTED, "a hypothesis, or what follows from one: the sentence does not assert it"
    if _COUNTERFACTUAL.search(before):
        return UnreadReason.NOT_ASSERTED, "a counterfactual (\"if … were …\"): the sentence supposes what is not so"
    return None


# "If a were 8, then a + 3 = 11": a supposition in words the reader does not read, against what is known; what
# follows from it holds in the supposition, not in the problem ("There were 20 - 5 = 15 left" stays a claim)
_COUNTERFACTUAL = re.compile(r"\b(?:if|as\s+if|even\s+if)\b[^.;:!?]*?\b(?:were|had\s+been)\b|^\s*(?:were|had)\s+\w",
                             re.IGNORECASE)


def _condition_before(before: str) -> bool:
    """A condition word introduces the relation inside a question ("What is x if 2x = 6?", "Given x = 3 and
    y = 4, …"): no comma or colon between it and the relation."""
    for m in reversed(list(re.finditer(r"[A-Za-z]+", before))):
        if m.group().lower() in _CONDITIONS:
            return re.search(r"[,:]", before[m.end():]) is None
    return False


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
        node = parse_expression(render(implicit_products(values, "text"), trig=False))
    except ExpressionError:
        return None
    return node if not names_in(node) else None
