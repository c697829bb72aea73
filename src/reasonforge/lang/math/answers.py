"""A claimed final answer: read strictly, and compared with the value of the unknown the question asks for.

Reading (`read_answer`) gives an `Answer` — its value (or its values: `x = 3, y = 2`), the name each is given,
the unit it is written in and the words it counts — or a `Refusal` saying why the text is not one answer:
- a negation anywhere (`not`, `false`, `wrong`, `\\neg`, `≠` …): "$7$, not $5$", "the answer 5 is false";
- a second value ("5 or 6", "5, 6", "5 km and 3 m") or prose around the value ("It is 5"), a relation other
  than `name = value`;
- a rate ("$18 per day"), several units, a word after the value that is neither a unit nor a word of the
  question ("5 apples" when the question speaks of eggs).
`\\boxed{…}`, `$…$`, `\\text{…}` and "The answer is" are unwrapped first; `$5`, `5%`, `\\frac{1}{2}`, `1,250`
are values.

The chain's final value (`final_value`) is the value of the unknown the question asks for: the last value the
chain gives the asked name (the answer's own name first: `z = 5`), else a GSM8K answer line's (`#### 72`),
else the last step's last value, else the latest ancestor's. A chain whose last relation only re-derives a value
known before it (a stated quantity, an earlier result: "Check: 18 / 2 = 9", "so x + 2 = 7") does not say which
of its values answers the question: its final value is then ambiguous between that relation's and the last
new one.

Comparison (`check_answer`) under the question (`problem.Problem`):
- a unit must be the one the question asks in (else the one its quantities use): "5 m" for km, "5 cents" for
  dollars, "5 hours" for minutes are refused (unread), never equal;
- exact values by our reader, within the rounding of the answer's written decimals; `25%` is 1/4, and 25 also
  where the question asks for a percent; an answer that is the final value converted between the question's
  units (or ×100 for a percent) is undecided, never a mismatch (the chain's value may be in the other unit);
- forms the reader cannot read (sets, intervals) by `math-verify`, and only on text that passed the screen above
  (it reads "$7$, not $5$" as 5 and strips units): `math_verify_same`;
- a value equal to the final value is still unread when the final value is ambiguous; a value equal to neither
  of an ambiguous final value's readings is a mismatch; so is one that is not the question's own value when the
  question determines it (`Problem.value`: "What is 2 + 3?").

`math-verify`'s timeouts are SIGALRM-based and work only in the main thread; off it (the service's workers) an
unbounded SymPy call could hang, so there it does not run and the pair stays undecided (fail closed).
`benchmarks/answer_equivalence.py` measures the comparers on pairs of real model answers labelled by ProcessBench.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import sympy

from reasonforge.lang.math.expr import (
    ExpressionError,
    Name,
    Node,
    Postfix,
    Unary,
    evaluate,
    names_in,
    rounding_tolerance,
    to_text,
)
from reasonforge.lang.math.problem import Problem
from reasonforge.lang.math.quantities import relation_values
from reasonforge.lang.math.reading import answer_line
from reasonforge.lang.math.step import Relation, StepMath
from reasonforge.lang.math.text import extract_value
from reasonforge.lang.math.units import conversion_factor, word_unit

__all__ = ["MAX_ANSWER_CHARS", "Answer", "AnswerCheck", "Final", "Part", "Refusal", "Stated", "StepText",
           "answers_match", "check_answer", "final_value", "math_verify_same", "read_answer", "reader_same",
           "same_value", "value_of"]

MAX_ANSWER_CHARS = 400  # an answer is a value, not an essay: longer text is not compared
_TIMEOUT_S = 3  # per parse and per comparison

_NEGATION = re.compile(r"\b(?:not|no|never|false|untrue|incorrect|wrong|none|neither|nor|cannot|isn['’]t|aren['’]t|"
                       r"wasn['’]t|doesn['’]t|can['’]t|don['’]t|won['’]t)\b|\\(?:neg|lnot|not|neq?|nless|ngtr)\b|"
                       r"[¬≠]|!=|=/=", re.IGNORECASE)
_TWO_VALUES = re.compile(r"±|∓|\\(?:pm|mp)\b|\+\s*/\s*-")
_OTHER_RELATION = re.compile(r"[<>≤≥≈]|\\(?:leq?|geq?|lt|gt|approx|sim|equiv|in|subset)\b")
_PREFIX = re.compile(r"^(?:so\s+|thus\s+|therefore\s+|hence\s+)?(?:the\s+)?(?:final\s+)?answer\s*(?:is|:|=)?\s*",
                     re.IGNORECASE)
_WRAPPERS = (re.compile(r"^\\(?:boxed|fbox)\s*\{(.*)\}$", re.DOTALL), re.compile(r"^\$\$(.*)\$\$$", re.DOTALL),
             re.compile(r"^\$([^$]*)\$$", re.DOTALL), re.compile(r"^\\\((.*)\\\)$", re.DOTALL),
             re.compile(r"^\\\[(.*)\\\]$", re.DOTALL))
_TEXT_COMMAND = re.compile(r"\\(?:text|textbf|textit|mathrm|mbox|operatorname)\s*\{([^{}]*)\}")
_SPACES = re.compile(r"\\[,;:! ]|~")
# words that may stand in a value: LaTeX commands are written with a backslash; these are the bare ones
_MATH_WORDS = frozenset(("sqrt", "pi", "frac", "dfrac", "tfrac", "cdot", "times", "div", "infty", "ln", "log", "sin",
                         "cos", "tan", "exp", "e"))
_WORD = re.compile(r"(?<![\\A-Za-z])[A-Za-z]+(?:['’][A-Za-z]+)?")
_THOUSANDS = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?")
_FILLER = frozenset(("total", "in", "altogether", "all", "each", "a", "an", "the", "of", "only", "exactly"))
_CURRENCY = {"$": "dollar", "€": "euro", "£": "sterling", "¥": "yen", "₹": "rupee"}
_PART = re.compile(r"^\s*([A-Za-z][A-Za-z0-9_]*)\s*=\s*(.+?)\s*$", re.DOTALL)
_DOLLAR_MARK = "\x00"  # an escaped `\$` (a currency sign) while `$` delimiters are taken out


@dataclass(frozen=True)
class Part:
    """One value of an answer: the name it is given (if any), the value read (None: a form only `math-verify`
    reads, such as `\\{1, 2\\}`), and the value as written."""

    name: str | None
    value: Node | None
    text: str


@dataclass(frozen=True)
class Answer:
    """A claimed answer as read: its values, the unit it is written in (dimension, canonical unit) and the
    other words it counts ("eggs")."""

    parts: tuple[Part, ...]
    unit: tuple[str, str] | None = None
    counted: tuple[str, ...] = ()

    def shown(self) -> str:
        """The answer as the messages quote it (`z = 5`, `5`)."""
        return ", ".join(f"{p.name} = {_show(p)}" if p.name else _show(p) for p in self.parts)


@dataclass(frozen=True)
class Refusal:
    """Why a claimed answer is not read as one answer."""

    why: str


def _show(part: Part) -> str:
    return to_text(part.value) if part.value is not None else part.text


# ---- reading ---------------------------------------------------------------------------------------------------
def read_answer(text: str) -> Answer | Refusal:
    """The claimed answer `text` as one answer, or why it is not one (see the module docstring)."""
    if len(text) > MAX_ANSWER_CHARS:
        return Refusal(f"it is longer than {MAX_ANSWER_CHARS} characters")
    body = _unwrap(text)
    if (negation := _NEGATION.search(body)) is not None:
        return Refusal(f"it says \"{negation.group(0)}\": a negation is not an answer")
    body = _unwrap(_PREFIX.sub("", body).strip().rstrip(".").strip())  # "The answer is $\\boxed{72}$."
    if not body:
        return Refusal("it states no value")
    if _TWO_VALUES.search(body):
        return Refusal("it states two values (±)")
    if _OTHER_RELATION.search(body):
        return Refusal("it states a relation, not a value")
    if body.count("=") > 1:
        pieces = re.split(r"\s*(?:,|;|\band\b)\s*(?=[A-Za-z][A-Za-z0-9_]*\s*=)", body)
    else:
        pieces = [body]
    parts: list[Part] = []
    units: set[tuple[str, str]] = set()
    counted: list[str] = []
    for piece in pieces:
        name = None
        if "=" in piece:
            m = _PART.match(piece)
            if m is None:
                return Refusal("it is not a value or `name = value`")
            name, piece = m.group(1), m.group(2)
        got = _part(name, piece)
        if isinstance(got, Refusal):
            return got
        part, unit, words = got
        parts.append(part)
        units |= unit
        counted += words
    if len({n for p in parts if (n := p.name)}) != sum(1 for p in parts if p.name):
        return Refusal("it gives one name two values")
    if len(units) > 1:
        return Refusal("it is written in several units (" + ", ".join(sorted(u for _, u in units)) + ")")
    return Answer(tuple(parts), units.pop() if units else None, tuple(counted))


def _unwrap(text: str) -> str:
    """The answer with its LaTeX wrappers, text commands and spacing commands taken out."""
    body = text.strip().replace("\\$", _DOLLAR_MARK)
    for _ in range(8):  # nested wrappers: `$\boxed{5}$`
        for wrapper in _WRAPPERS:
            m = wrapper.match(body)
            if m is not None and _balanced(m.group(1)):  # `\boxed{7}, \boxed{5}` is not one box
                body = m.group(1).strip()
                break
        else:
            break
    if body.count("$") >= 2:  # math delimiters inside ("$7$, not $5$"); a lone `$` is a currency sign
        body = body.replace("$", " ")
    body = _TEXT_COMMAND.sub(lambda m: f" {m.group(1)} ", body)
    body = _SPACES.sub(" ", body).replace("\\%", "%").replace(_DOLLAR_MARK, "$")
    body = re.sub(r"\\(?:left|right)\b", "", body)
    body = re.sub(r"\^\s*\{?\\circ\}?", " degrees", body)
    return " ".join(body.split())


def _balanced(text: str) -> bool:
    """Do the braces and brackets of `text` close in order (`\\{`/`\\}` and intervals `(1, 2]` count as pairs)?"""
    depth = {"{": 0, "(": 0}
    for ch in text:
        if ch == "{":
            depth["{"] += 1
        elif ch == "}":
            depth["{"] -= 1
        elif ch in "([":
            depth["("] += 1
        elif ch in ")]":
            depth["("] -= 1
        if min(depth.values()) < 0:
            return False
    return not any(depth.values())


def _one_group(text: str) -> bool:
    """Is `text` one set, tuple or interval (`\\{1, 2\\}`, `(1, 2]`): an opener whose bracket closes at its end?"""
    body = text.strip()
    if body.startswith("\\{") and body.endswith("\\}"):
        return _balanced(body[2:-2]) and "\\{" not in body[2:-2]
    return len(body) > 1 and body[0] in "([" and body[-1] in ")]" and _balanced(body[1:-1])


def _part(name: str | None, text: str) -> tuple[Part, set[tuple[str, str]], list[str]] | Refusal:
    """One value, the units it is written in and the words it counts, or why it is not one value."""
    first = next((m for m in _WORD.finditer(text) if m.group(0).lower() not in _MATH_WORDS), None)
    value_text = text[:first.start()].strip() if first is not None else text.strip()
    tail = text[first.start():] if first is not None else ""
    if not value_text and re.search(r"\d", tail):
        return Refusal(f"it has words before its value (\"{_quote(text)}\")")
    if re.search(r"\d", tail):
        return Refusal(f"it states a second value (\"{_quote(text)}\")")
    units: set[tuple[str, str]] = set()
    words: list[str] = []
    for m in _WORD.finditer(tail):
        word = m.group(0).lower()
        if word in ("percent", "pct") and "%" not in value_text:
            value_text += "%"
            continue
        if word == "per":
            return Refusal("it states a rate, not the value the question asks for")
        if (unit := word_unit(word)) is not None:
            units.add(unit)
        elif word not in _FILLER and word not in _MATH_WORDS:
            words.append(word)
    if not value_text:
        return Refusal("it states no value")
    for sign, unit_name in _CURRENCY.items():
        if sign in value_text:
            units.add(("money", unit_name))
            value_text = value_text.replace(sign, "").strip()
    if not _balanced(value_text):
        return Refusal(f"its brackets do not close (\"{_quote(text)}\")")
    if re.search(r"\\(?:boxed|fbox)\b", value_text):
        return Refusal(f"it boxes more than one value (\"{_quote(text)}\")")
    bare = _THOUSANDS.sub("0", value_text)
    bracketed = bool(re.search(r"\\\{|[\[\](){}]", value_text))
    if (("," in bare or ";" in bare) and not _one_group(value_text)) or re.search(r"\d\s+\d", bare):
        return Refusal(f"it states more than one value (\"{_quote(text)}\")")
    if re.search(r"\d\s*(?:[½⅓⅔¼¾⅕⅛⅜⅝⅞]|\\[dt]?frac)", value_text):
        # `2½` is 5/2, but a reader of products takes it for 2·½: a mixed number is left unread
        return Refusal(f"it writes a mixed number (\"{_quote(text)}\"), which the reader does not read as one value")
    node = _value(value_text)
    if node is not None and names_in(node):
        return Refusal(f"its value {to_text(node)} is not a number")
    if node is None and not (bracketed or "\\" in value_text):
        return Refusal(f"it is not a value the reader reads (\"{_quote(text)}\")")
    return Part(name, node, value_text), units, words


def _value(text: str) -> Node | None:
    """The value `text` writes (`5`, `1,250.50`, `25%`, `\\frac{1}{2}`), else None."""
    node = extract_value(text)
    if node is None and "\\" in text:
        node = extract_value(f"${text}$")  # a LaTeX form the reader reads inside math delimiters
    return node


def _quote(text: str, limit: int = 40) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


# ---- comparing values ------------------------------------------------------------------------------------------
def same_value(final: Node, claimed: Node) -> bool | None:
    """Whether the claimed value is the final value: exactly, or within the rounding of its written decimals."""
    try:
        return _same(evaluate(final) - evaluate(claimed), rounding_tolerance(claimed))
    except (ExpressionError, TypeError, ValueError, ZeroDivisionError, RecursionError):
        return None


def _same(gap: sympy.Expr, tolerance: sympy.Rational | None) -> bool | None:
    if gap == 0:
        return True
    if gap.is_Rational:
        return tolerance is not None and bool(abs(gap) <= tolerance)
    try:
        approx = sympy.N(gap, 50)
    except (TypeError, ValueError):
        return None
    if not approx.is_Number:
        return None
    if abs(approx) < sympy.Float(10) ** -40:
        return True
    return tolerance is not None and bool(abs(approx) <= tolerance)


def _percent_number(node: Node) -> Node | None:
    """The number a top-level percent writes (`25%` → 25), else None."""
    sign = None
    if isinstance(node, Unary) and node.op == "-":
        sign, node = node, node.arg
    if isinstance(node, Postfix) and node.op == "%":
        return Unary("-", node.arg) if sign is not None else node.arg
    return None


def _scaled(final: Node, claimed: Node, factor: sympy.Rational) -> bool:
    """Is one value the other times `factor` (a unit conversion, or ×100 for a percent)?"""
    try:
        a, b = evaluate(final), evaluate(claimed)
    except (ExpressionError, TypeError, ValueError, ZeroDivisionError, RecursionError):
        return False
    return bool(sympy.simplify(a * factor - b) == 0 or sympy.simplify(b * factor - a) == 0)


def _compare(final: Node, claimed: Node, problem: Problem) -> bool | None:
    """The claimed value against the final value under the question's percent and units (module docstring)."""
    plain = same_value(final, claimed)
    if plain is True:
        return True
    claimed_pct, final_pct = _percent_number(claimed), _percent_number(final)
    if claimed_pct is not None or final_pct is not None:
        alt = same_value(final, claimed_pct) if claimed_pct is not None else same_value(final_pct, claimed)  # type: ignore[arg-type]
        if alt is True:
            return True if problem.asks_percent else None
        if alt is None:
            return None
    if plain is None:
        return None
    factors = [sympy.Integer(100)] if problem.asks_percent else []
    if problem.asked_unit is not None:
        for dim_units in problem.units.values():
            for unit in dim_units:
                factor = conversion_factor(unit, problem.asked_unit)
                if factor is not None and factor != 1:
                    factors.append(sympy.Rational(factor.numerator, factor.denominator))
    if any(_scaled(final, claimed, f) for f in factors):
        return None  # the chain's value may be in the question's other unit: undecided, never a mismatch
    return False


def math_verify_same(final: str, claimed: str) -> bool | None:
    """`math-verify`'s verdict (the final value as the gold side); None when it parses neither as maths. Give it
    only text that `read_answer` read: it accepts "$7$, not $5$" as 5."""
    if len(final) > MAX_ANSWER_CHARS or len(claimed) > MAX_ANSWER_CHARS:
        return None
    if threading.current_thread() is not threading.main_thread():
        return None  # its timeouts need the main thread's signals: undecided rather than unbounded
    from math_verify import ExprExtractionConfig, LatexExtractionConfig, parse, verify  # a heavy import: lazily

    configs = [LatexExtractionConfig(), ExprExtractionConfig()]
    parsed = []
    for text in (final, claimed):
        delimited = text if "$" in text or "\\boxed" in text or "\\(" in text else f"${text}$"
        got = parse(delimited, extraction_config=configs, parsing_timeout=_TIMEOUT_S)
        # it extracts what it can: from "1 - \\dfrac{1}{\\mathrm{e}}" only "1", so "1 - 1/e" and "1 + 1/e" would be
        # the same; a reading that is not the whole text is not this answer
        if len(got) < 2 or not isinstance(got[-1], str) or not _covers(got[0], got[-1], text):
            return None
        parsed.append(got)
    # it reads prose as a product of symbols ("five-ish" is E·f·i·v − h·i·s): a claimed answer with symbols the
    # final value does not have is text it did not understand, not an answer to compare
    if _symbols(parsed[1]) - _symbols(parsed[0]):
        return None
    try:
        same = bool(verify(parsed[0], parsed[1], timeout_seconds=_TIMEOUT_S))
    except Exception:  # noqa: BLE001 - a comparison it cannot make is undecided, never a crash of the step
        return None
    if same and (exact := _exactly_same(parsed[0][0], parsed[1][0], (final, claimed))) is not None:
        return exact
    return same


_DECORATION = re.compile(r"\\boxed\{|\\(?:left|right|displaystyle|[()\[\]])|\$|\s+")


def _bare(text: str) -> str:
    """`text` without what never changes a value: delimiters, `\\boxed{…}`, sizing, spaces, `\\dfrac`/`\\tfrac`
    spelt `\\frac`, a full stop at the end."""
    bare = _DECORATION.sub("", re.sub(r"\\[dt]frac", r"\\frac", text)).rstrip(".")
    return bare[:-1] if "\\boxed{" in text and bare.endswith("}") else bare


def _covers(expr: object, matched: str, text: str) -> bool:
    """Is `math-verify`'s reading `expr` (of the span `matched`) a reading of all of `text`? The span is normalised
    (0.5 comes back as \\frac{1}{2}), so where it differs from the text, the whole text must parse (latex2sympy
    raises on what it does not understand) to the same expression, floats taken as the decimals they write."""
    if _bare(matched) == _bare(text):
        return True
    from latex2sympy2_extended import latex2sympy  # type: ignore[import-untyped]

    try:
        whole = latex2sympy(_unwrap(text))
        return bool(_exact_floats(whole) == _exact_floats(expr))
    except Exception:  # noqa: BLE001 - whatever it cannot parse is not covered
        return False


def _exact_floats(value: object) -> object:
    if isinstance(value, sympy.Basic):
        return value.xreplace({f: sympy.Rational(str(f)) for f in value.atoms(sympy.Float)})
    return value


def _exactly_same(a: object, b: object, texts: tuple[str, str]) -> bool | None:
    """Two numbers `math-verify` called equal, compared exactly: equal when their difference is 0, or within half a
    unit of the last decimal either text writes (0.333 is 1/3). Its own tolerance is relative and made 1/2004! and
    1/2006! the same. None: not two closed numbers."""
    if not isinstance(a, sympy.Expr) or not isinstance(b, sympy.Expr) or a.free_symbols or b.free_symbols:
        return None
    try:
        gap = sympy.nsimplify(a - b) if (a - b).is_Float else a - b
        if gap == 0 or sympy.simplify(gap) == 0:
            return True
        decimals = max((len(d) for t in texts for d in re.findall(r"\d\.(\d+)", t)), default=None)
        if decimals is None:
            return False
        return bool(abs(gap.evalf(60)) <= sympy.Rational(1, 2) * sympy.Rational(1, 10) ** decimals)
    except (TypeError, ValueError, AttributeError):
        return None


def _symbols(parsed: list) -> set[str]:
    return {str(x) for item in parsed if isinstance(item, sympy.Basic) for x in item.free_symbols}


def reader_same(final: str, claimed: str) -> bool | None:
    """Our reader's verdict on two answer texts (None: it cannot read one of them as one value, or their names
    differ)."""
    a, b = read_answer(final), read_answer(claimed)
    if isinstance(a, Refusal) or isinstance(b, Refusal) or len(a.parts) != 1 or len(b.parts) != 1:
        return None
    (pa,), (pb,) = a.parts, b.parts
    if pa.value is None or pb.value is None or (pa.name and pb.name and pa.name != pb.name):
        return None
    return _compare(pa.value, pb.value, Problem())


def answers_match(final: str, claimed: str) -> tuple[bool | None, str]:
    """(verdict, which comparer decided it): the reader, else `math-verify` where the reader cannot decide and
    the claimed text reads as one answer."""
    own = reader_same(final, claimed)
    if own is not None:
        return own, "reader"
    read = read_answer(claimed)
    if isinstance(read, Refusal) or len(read.parts) != 1:
        return None, "reader"
    return math_verify_same(final, read.parts[0].text), "math-verify"


# ---- the chain's final value -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class StepText:
    """A step as the final-value search reads it: its id, its text and its maths (`reading.read_text`)."""

    step_id: int
    content: str
    math: StepMath


@dataclass(frozen=True)
class Stated:
    """A value the chain states: the value, where (`z = 5 (step 4)`), and the relation (None: an answer line)."""

    value: Node
    source: str
    step_id: int
    relation: Relation | None


@dataclass(frozen=True)
class Final:
    """The chain's final value; `new` and `rederived` when its last relation only re-derives a value known
    before it (then the last value it derived first, if any, is the other reading)."""

    stated: Stated
    rederived: bool = False
    new: Stated | None = None


def value_of(rel: Relation, name: str | None) -> Node | None:
    """The closed value a claim gives (for `name`, the value it gives that name), else None."""
    if rel.op not in ("=", "~="):
        return None
    lhs, rhs = rel.lhs_tree, rel.rhs_tree
    if name is not None:
        for name_side, value_side in ((lhs, rhs), (rhs, lhs)):
            if isinstance(name_side, Name) and name_side.name == name and not names_in(value_side):
                return value_side
        return None
    for value_side, other in ((rhs, lhs), (lhs, rhs)):
        if names_in(value_side):
            continue
        # `x^2 - 3x + 2 = 0` is an equation in standard form, not a computation whose value is 0
        if _is_zero(value_side) and names_in(other) and not isinstance(other, Name):
            return None
        return value_side
    return None


def _is_zero(node: Node) -> bool:
    try:
        return bool(evaluate(node) == 0)
    except (ExpressionError, TypeError, ValueError, ZeroDivisionError, RecursionError):
        return False


def final_value(problem: Problem, last: StepText, ancestors: Sequence[StepText], name: str | None) -> Final | None:
    """The chain's final value (for `name`, the last value it gives that name), or None where it states none."""
    line = answer_line(last.content)
    if line is not None and last.math.empty:
        written = extract_value(line)
        if written is None:
            return None
        return Final(Stated(written, f"{to_text(written)} (the answer line of step {last.step_id})", last.step_id,
                            None))
    if name is not None:
        for rel in reversed(last.math.claims):
            if (node := value_of(rel, name)) is not None:
                return Final(Stated(node, f"{rel.text} (step {last.step_id})", last.step_id, rel))
        for step in reversed(ancestors):
            # a named answer may be a binding's value ("Let y = 4"): stated, not derived
            for rel in reversed([r for r in step.math.relations if r in step.math.claims or r in step.math.bindings]):
                if (node := value_of(rel, name)) is not None:
                    return Final(Stated(node, f"{rel.text} (step {step.step_id})", step.step_id, rel))
        return None
    results = [Stated(node, f"{rel.text} (step {step.step_id})", step.step_id, rel)
               for step in (*ancestors, last) for rel in step.math.claims if (node := value_of(rel, None)) is not None]
    if not results:
        return None
    own = [r for r in results if r.step_id == last.step_id]
    final = own[-1] if own else results[-1]
    known: list[sympy.Expr] = list(problem.stated)
    seen: list[tuple[Stated, bool]] = []  # each result, and whether its value was known before it
    previous: Stated | None = None
    for result in results:
        value = _evaluated(result.value)
        # `a + b = 2 + 5 = 7` (in one step or two): a link continuing the relation before it computes its value, it does
        # not check a known one
        continued = previous is not None and result.relation is not None \
            and previous.relation is not None and result.relation.lhs_tree == previous.relation.rhs_tree
        seen.append((result, not continued and value is not None and any(_equal(value, k) for k in known)))
        previous = result
        if value is not None:
            known.append(value)
        if result.relation is not None:
            known += relation_values(result.relation)
        if result is final:
            break
    if not seen[-1][1]:
        return Final(final)
    new = next((r for r, rederived in reversed(seen[:-1]) if not rederived), None)
    return Final(final, rederived=True, new=new)


def _evaluated(node: Node) -> sympy.Expr | None:
    try:
        value = evaluate(node)
    except (ExpressionError, TypeError, ValueError, ZeroDivisionError, RecursionError):
        return None
    return value if not value.free_symbols else None


def _equal(a: sympy.Expr, b: sympy.Expr) -> bool:
    try:
        return bool(a == b or sympy.simplify(a - b) == 0)
    except (TypeError, ValueError):
        return False


# ---- the check -------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class AnswerCheck:
    """The claimed answer against the chain's final value: `same`, `different` (a mismatch) or `unread`, a
    message saying which values, and the final values compared (for the caller's "was it derived?")."""

    status: Literal["same", "different", "unread"]
    message: str
    finals: tuple[Stated, ...] = ()
    by: str = "reader"


def check_answer(claimed: str, problem: Problem, last: StepText, ancestors: Sequence[StepText]) -> AnswerCheck:
    """Rule of the module docstring: is `claimed` the value of the unknown the question asks for, as the chain
    states it?"""
    read = read_answer(claimed)
    if isinstance(read, Refusal):
        return AnswerCheck("unread", f"the claimed answer \"{_quote(claimed, 60)}\" cannot be read as one value or "
                           f"`name = value`: {read.why}")
    if (why := _unit_refusal(read, problem)) is not None:
        return AnswerCheck("unread", f"the claimed answer \"{_quote(claimed, 60)}\" {why}")
    names = [p.name for p in read.parts if p.name]
    asked = sorted(problem.asked_names)
    if asked and (other := [n for n in names if n not in problem.asked_names]):
        return AnswerCheck("unread", f"the question asks for {' and '.join(asked)}; the claimed answer gives "
                           f"{other[0]}")
    if len(asked) > 1 and sorted(names) != asked:
        return AnswerCheck("unread", f"the question asks for {' and '.join(asked)}; the claimed answer "
                           f"\"{_quote(claimed, 60)}\" does not give each of them")
    outcomes: list[AnswerCheck] = []
    for part in read.parts:
        name = part.name or (asked[0] if len(asked) == 1 else None)
        outcomes.append(_check_part(part, name, problem, last, ancestors))
    for status in ("different", "unread"):
        if (first := next((o for o in outcomes if o.status == status), None)) is not None:
            return first
    finals = tuple(f for o in outcomes for f in o.finals)
    message = "; ".join(o.message for o in outcomes)
    return AnswerCheck("same", message, finals, "math-verify" if any(o.by == "math-verify" for o in outcomes)
                       else "reader")


def _check_part(part: Part, name: str | None, problem: Problem, last: StepText,
                ancestors: Sequence[StepText]) -> AnswerCheck:
    stated = f"{part.name} = {_show(part)}" if part.name else _show(part)
    final = final_value(problem, last, ancestors, name)
    if final is None:
        which = f"value of {name}" if name else "value"
        return AnswerCheck("unread", f"the chain states no {which} to compare the claimed answer {stated} with")
    same, by = _same_part(final.stated.value, part, problem)
    shown = f"{stated} against the final value {final.stated.source}" + (" (by math-verify)" if by != "reader"
                                                                           else "")
    if final.rederived:
        other, _ = _same_part(final.new.value, part, problem) if final.new is not None else (False, by)
        readings = final.stated.source + (f" or {final.new.source}" if final.new is not None else "")
        if same is False and other is False:
            return AnswerCheck("different", f"the claimed answer {stated} is not the chain's final value: "
                               f"{readings}", (final.stated,), by)
        own = _same_expr(problem.value, part.value) if problem.value is not None and part.value is not None else None
        if own is True and (same is True or other is True):
            # the question determines its answer: the reading of the chain that gives it is the one it concludes
            chosen = final.stated if same is True else final.new
            assert chosen is not None
            return AnswerCheck("same", f"{stated} against the final value {chosen.source}, the question's own "
                               f"value", (chosen,), by)
        return AnswerCheck("unread", f"the chain's last relation {final.stated.source} only re-derives a value "
                           f"known before it, so which of its values answers the question is not read (the "
                           f"claimed answer {stated})")
    if same is False:
        return AnswerCheck("different", f"the claimed answer {stated} is not the chain's final value: "
                           f"{final.stated.source}", (final.stated,), by)
    if same is None:
        return AnswerCheck("unread", f"the claimed answer {stated} cannot be compared exactly with the final value "
                           f"{final.stated.source}", (final.stated,), by)
    if problem.value is not None and part.value is not None and _same_expr(problem.value, part.value) is False:
        return AnswerCheck("different", f"the claimed answer {stated} is not what the question asks for: "
                           f"{problem.value_source} is {sympy.nsimplify(problem.value)}", (final.stated,), by)
    return AnswerCheck("same", shown, (final.stated,), by)


def _same_part(final: Node, part: Part, problem: Problem) -> tuple[bool | None, str]:
    if part.value is not None:
        return _compare(final, part.value, problem), "reader"
    return math_verify_same(to_text(final), part.text), "math-verify"


def _same_expr(value: sympy.Expr, claimed: Node) -> bool | None:
    try:
        return _same(value - evaluate(claimed), rounding_tolerance(claimed))
    except (ExpressionError, TypeError, ValueError, ZeroDivisionError, RecursionError):
        return None


def _unit_refusal(answer: Answer, problem: Problem) -> str | None:
    """Why the answer's unit or counted words are not the question's (None when they are, or it has none)."""
    for word in answer.counted:
        if word not in problem.words and _singular(word) not in {_singular(w) for w in problem.words}:
            return f"counts \"{word}\", which the question does not speak of"
    if answer.unit is None:
        return None
    dimension, unit = answer.unit
    if problem.asked_unit is not None:
        return None if unit == problem.asked_unit else f"is in {unit}s; the question asks in {problem.asked_unit}s"
    stated = problem.units.get(dimension, frozenset())
    if stated == frozenset({unit}):
        return None
    told = ", ".join(sorted(stated)) or "no such unit"
    return f"is in {unit}s; the question asks in no unit, and states {dimension} in {told}"


def _singular(word: str) -> str:
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word

