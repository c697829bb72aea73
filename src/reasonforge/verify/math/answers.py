"""Is a claimed final answer the value a chain derived? Two comparers, and the policy that uses them.

- `reader_same`: our reader (`lang.math`): each side read as a value (`72`, `$5`, `\\boxed{3/4}`, `x = 2`),
  compared exactly, or within the rounding its written decimals allow. Decides only what it reads exactly.
- `math_verify_same`: Hugging Face's `math-verify` (LaTeX via latex2sympy2, sets, intervals, matrices,
  percent, units stripped; numeric tolerance 1e-6 after rounding), on bounded text and under its own
  timeouts. Those are SIGALRM-based and work only in the main thread; off it (the service's workers) an
  unbounded SymPy call could hang, so there it does not run and the pair stays undecided (fail closed).
- `answers_match`: the reader first; `math-verify` only where the reader cannot decide (`None`): the reader
  never calls two values equal that are not, and `math-verify` reads forms it cannot (`\\{1, 2\\}`,
  `(1, 2]`, `2\\sqrt{2}` against `\\sqrt{8}`). `benchmarks/answer_equivalence.py` measures all three on
  pairs of real model answers labelled by ProcessBench.
"""

from __future__ import annotations

import re
import threading

import sympy

from reasonforge.lang.math import ExpressionError, Name, Node, evaluate, extract, extract_value, names_in
from reasonforge.lang.math.expr import rounding_tolerance

__all__ = ["MAX_ANSWER_CHARS", "answers_match", "math_verify_same", "read_answer", "reader_same", "same_value"]

MAX_ANSWER_CHARS = 400  # an answer is a value, not an essay: longer text is not compared
_TIMEOUT_S = 3  # per parse and per comparison


def read_answer(text: str) -> tuple[str | None, Node] | None:
    """(None, value) for a lone value, (name, value) for `name = value`, else None."""
    if len(text) > MAX_ANSWER_CHARS:
        return None
    boxed = re.fullmatch(r"\s*\\boxed\s*\{(.*)\}\s*", text, re.DOTALL)
    text = boxed.group(1) if boxed else text
    value = extract_value(text)
    if value is not None:
        return None, value
    math = extract(text)
    if len(math.relations) != 1 or math.relations[0].op != "=":
        return None
    rel = math.relations[0]
    for name_side, value_side in ((rel.lhs_tree, rel.rhs_tree), (rel.rhs_tree, rel.lhs_tree)):
        if isinstance(name_side, Name) and names_in(name_side) and not names_in(value_side):
            return name_side.name, value_side
    return None


def same_value(final: Node, claimed: Node) -> bool | None:
    """Whether the claimed answer is the final value: exactly, or within the rounding of its written decimals."""
    try:
        gap = evaluate(final) - evaluate(claimed)
    except (ExpressionError, TypeError, ValueError, ZeroDivisionError):
        return None
    if gap == 0:
        return True
    tolerance = rounding_tolerance(claimed)
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


def reader_same(final: str, claimed: str) -> bool | None:
    """Our reader's verdict on two answer texts (None: it cannot read one of them, or their names differ)."""
    a, b = read_answer(final), read_answer(claimed)
    if a is None or b is None or (a[0] and b[0] and a[0] != b[0]):
        return None
    return same_value(a[1], b[1])


def math_verify_same(final: str, claimed: str) -> bool | None:
    """`math-verify`'s verdict (the final value as the gold side); None when it parses neither as maths."""
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
        if not got:
            return None
        parsed.append(got)
    # it reads prose as a product of symbols ("five-ish" is E·f·i·v − h·i·s): a claimed answer with symbols the
    # final value does not have is text it did not understand, not an answer to compare
    if _symbols(parsed[1]) - _symbols(parsed[0]):
        return None
    try:
        return bool(verify(parsed[0], parsed[1], timeout_seconds=_TIMEOUT_S))
    except Exception:  # noqa: BLE001 - a comparison it cannot make is undecided, never a crash of the step
        return None


def _symbols(parsed: list) -> set[str]:
    return {str(x) for item in parsed if isinstance(item, sympy.Basic) for x in item.free_symbols}


def answers_match(final: str, claimed: str) -> tuple[bool | None, str]:
    """(verdict, which comparer decided it): the reader, else `math-verify` where the reader cannot decide."""
    own = reader_same(final, claimed)
    if own is not None:
        return own, "reader"
    return math_verify_same(final, claimed), "math-verify"
