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
  after it is prose, and a text relation holding that echo (`48/2 = <<48/2=24>>24`) is the annotation
  read again, not a second claim.
- Delimited LaTeX: `$…$`, `$$…$$`, `\\(…\\)`, `\\[…\\]` (`\\frac`, `\\sqrt`, `\\cdot`, `\\times`, `^{}`,
  `\\left( \\right)`, `\\boxed{}`, `\\le`, `\\ge`, `\\neq`, ...). A `$` pair holding prose words is currency.
- Plain text: a maximal run of maths tokens (numbers, single-letter names, operators, Unicode ² ³ × ÷
  − √ π ·) holding a relation symbol. Words end a run, so "x" in prose never becomes a symbol; unit
  and currency words next to numbers (`$12`, `12 dollars`, `5 km`) are skipped, and so are the nouns
  that numbers count between operands (`6 monkeys / 10 animals * 100%`, see `lang.math.tokens`); `20%` is
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
skipped with a note rather than verified on the kinder reading (`runs._prose_reading`). Each relation
records the unit its quantities are stated in (`Relation.unit`), and `restate` rewrites it exactly
into another unit, so a translator can follow a quantity from hours into minutes across steps.

Modules: `step` (the data returned), `runs` (relations out of token runs), `roles` (claims, bindings,
cases, assumptions); this module finds the regions and joins them (`extract`, `extract_value`, `restate`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

import sympy

from reasonforge.lang.math.expr import Binary, ExpressionError, Node, Num, evaluate, names_in, parse_expression
from reasonforge.lang.math.latex import LatexReader
from reasonforge.lang.math.roles import classify, domain_assumptions
from reasonforge.lang.math.runs import Found, implicit_products, relations_of_run, render, split_runs
from reasonforge.lang.math.step import Assumption, Origin, Relation, StepMath
from reasonforge.lang.math.tokens import Tok, lex_plain, read_words
from reasonforge.lang.math.units import conversion_factor

__all__ = ["Assumption", "Relation", "StepMath", "extract", "extract_value", "restate"]


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


# ---- entry points -------------------------------------------------------------------------------------------------
def _tokens_for(text: str, region: _Region) -> list[Tok]:
    if region.kind == "latex":
        return LatexReader(text).tokens(region.start, region.end)
    if region.kind == "annotation":
        return read_words(lex_plain(text, region.start + 2, region.end - 2))
    return lex_plain(text, region.start, region.end)


def extract(text: str) -> StepMath:
    """Read the relations a step asserts (see the module docstring). Never raises on odd input."""
    found = Found()
    relations: list[Relation] = []
    annotations: list[Relation] = []
    plain: list[Tok] = []

    def flush_plain() -> None:
        for run in split_runs(read_words(plain), "text"):
            relations.extend(relations_of_run(run, text, found))
        plain.clear()

    for region in _regions(text):
        if region.kind == "text":
            plain.extend(_tokens_for(text, region))
            continue
        if region.kind == "annotation":
            # the annotation is masked out of the prose, so "48/2 = <<48/2=24>>24" reads as one text run
            for run in split_runs(_tokens_for(text, region), "annotation"):
                for rel in relations_of_run(run, text, found):
                    annotations.append(replace(rel, span=(region.start, region.end),
                                               source=text[region.start:region.end]))
            continue
        flush_plain()
        for run in split_runs(_tokens_for(text, region), "latex"):
            relations.extend(relations_of_run(run, text, found))
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
    kinds = classify(text, unique)
    assumptions = kinds["assumption"] + domain_assumptions(text)
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
        node = parse_expression(render(implicit_products(values, "text"), trig=False))
    except ExpressionError:
        return None
    return node if not names_in(node) else None
