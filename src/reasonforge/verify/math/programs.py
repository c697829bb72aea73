"""A word problem formalised as a program of assignments, evaluated exactly: what its quantities are.

The program is what a translator writes from the question alone (`translate.question`): one assignment per
line, `name = expression`, in the expression language of the maths artifacts (`lang.math.expr`: + - * / ^ or **,
// as floor, parentheses, names assigned on earlier lines), the last line `answer = ...`. Nothing is executed:
each expression is parsed and evaluated exactly by our own bounded reader, so a program can compute values and
nothing else. Every literal must be a value the question states or a named constant of its units
(`lang.math.quantities.grounding_values`): a formalisation may not invent a number, or it would formalise
another problem.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

import sympy

from reasonforge.errors import ArtifactSyntaxError
from reasonforge.lang.math.expr import ExpressionError, Node, evaluate, names_in, parse_expression, to_text
from reasonforge.lang.math.quantities import literal_operands

__all__ = ["MAX_PROGRAM_CHARS", "MAX_PROGRAM_LINES", "Program", "read_program"]

MAX_PROGRAM_CHARS = 4_000
MAX_PROGRAM_LINES = 40
ANSWER_NAME = "answer"
_ASSIGNMENT = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]{0,40})\s*=(?!=)\s*(.+?)\s*")
_FENCE = re.compile(r"```[a-z]*\n(.*?)```", re.DOTALL)


@dataclass(frozen=True)
class Program:
    """An evaluated formalisation: each assignment's exact value in order, and the answer's."""

    values: tuple[tuple[str, sympy.Expr], ...]
    answer: sympy.Expr
    lines: tuple[tuple[str, Node], ...] = ()  # each assignment's name and expression, as written

    def quantities(self) -> dict[sympy.Expr, str]:
        """Each value the program computes, with the first name it gives it."""
        out: dict[sympy.Expr, str] = {}
        for name, value in self.values:
            out.setdefault(value, name)
        return out


def read_program(text: str, grounding: Iterable[sympy.Rational]) -> Program:
    """The program's values, evaluated exactly; ArtifactSyntaxError naming the line when it is not a program of
    assignments whose literals are all in `grounding` (or their negations), ending with `answer = ...`."""
    if len(text) > MAX_PROGRAM_CHARS:
        raise ArtifactSyntaxError(f"the program is {len(text):,} characters, over the cap of {MAX_PROGRAM_CHARS:,}",
                                  line=1, column=1)
    fenced = _FENCE.search(text)
    body = fenced.group(1) if fenced else text
    allowed = set(grounding)
    env: dict[str, sympy.Expr] = {}
    values: list[tuple[str, sympy.Expr]] = []
    written: list[tuple[str, Node]] = []
    lines = [(n, line) for n, line in enumerate(body.splitlines(), 1) if line.strip() and not line.lstrip().startswith("#")]
    if not lines:
        raise ArtifactSyntaxError("the program has no assignment", line=1, column=1)
    if len(lines) > MAX_PROGRAM_LINES:
        raise ArtifactSyntaxError(f"the program has {len(lines)} lines, over the cap of {MAX_PROGRAM_LINES}",
                                  line=lines[MAX_PROGRAM_LINES][0], column=1)
    for number, line in lines:
        match = _ASSIGNMENT.fullmatch(line.split("#", 1)[0])
        if match is None:
            raise ArtifactSyntaxError(f"not an assignment `name = expression`: {line.strip()[:80]}", line=number,
                                      column=1)
        name, source = match.groups()
        node = _parse(source, number)
        _grounded(node, allowed, number)
        unknown = sorted(names_in(node) - env.keys())
        if unknown:
            raise ArtifactSyntaxError(f"{', '.join(unknown)} is used before any line assigns it", line=number,
                                      column=1)
        value = _evaluate(node, env, number)
        env[name] = value
        values.append((name, value))
        written.append((name, node))
    if values[-1][0] != ANSWER_NAME:
        raise ArtifactSyntaxError(f"the last line must assign `{ANSWER_NAME}`, not `{values[-1][0]}`",
                                  line=lines[-1][0], column=1)
    return Program(values=tuple(values), answer=values[-1][1], lines=tuple(written))


def _parse(source: str, line: int) -> Node:
    try:
        return parse_expression(source)
    except ExpressionError as exc:
        raise ArtifactSyntaxError(f"{exc.message}: {source[:80]}", line=line, column=exc.column or 1) from None


def _grounded(node: Node, allowed: set[sympy.Rational], line: int) -> None:
    for text, value in literal_operands(node):
        if value not in allowed and -value not in allowed:
            raise ArtifactSyntaxError(f"{text} is not a quantity the question states or a named constant of its "
                                      "units; a formalisation may use only those", line=line, column=1)


def _evaluate(node: Node, env: dict[str, sympy.Expr], line: int) -> sympy.Expr:
    try:
        value = evaluate(node, env)
    except (ExpressionError, TypeError, ValueError, ZeroDivisionError) as exc:
        message = exc.message if isinstance(exc, ExpressionError) else str(exc)
        raise ArtifactSyntaxError(f"{to_text(node)} has no value: {message}", line=line, column=1) from None
    if value.free_symbols or not value.is_real:
        raise ArtifactSyntaxError(f"{to_text(node)} is not a real number", line=line, column=1)
    return value
