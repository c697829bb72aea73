"""A word problem formalised as declarative constraints, decided by Z3: is there one answer, and which?

A problem model is what a translator writes from the question alone (`translate.question`): one equation per
line, `expression = expression`, over named unknowns and the numbers the question states, the last line
`answer = expression` naming the quantity asked for. Nothing is computed by the writer: "she gives away half
and then 3, and has 5 left" is `start / 2 - 3 = 5`, whatever way round the problem runs. Each side is read by our
own bounded expression reader (`lang.math.expr`), and every literal must be a value the question states or a
named constant of its units (`lang.math.quantities.grounding_values`), as for the programs.

Z3 then decides it, over the reals, each call under a time limit in a context of its own:
- the equations must be satisfiable (a model that contradicts itself formalises nothing);
- the answer must be forced: with v the answer's value in one solution, asserting `answer ≠ v` must be
  unsatisfiable (a model the givens do not determine is no evidence of any answer);
- v must be rational (a word problem's answer is written as one);
- each named unknown whose value is forced the same way is a quantity the model entails, with that name: what a
  step's result is checked against (`pipeline.corroboration`).
A model that fails any of these is rejected with the reason (`Unforced`); it never refutes anything.
Division by an expression with unknowns asserts that the divisor is not 0; a power must have a whole-number
literal exponent of at most 4 and no power in its base, each equation a degree of at most 4 in the unknowns and
all of them together (the product of their degrees) at most 16: anything else is not a word problem's
arithmetic, and it is where Z3 gives up or, worse, where solutions grow too large to write out in any time.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy
import z3

from reasonforge.errors import ArtifactSyntaxError, ReasonForgeError
from reasonforge.lang.math.expr import Binary, ExpressionError, Name, Node, Num, Postfix, Unary, parse_expression
from reasonforge.lang.math.quantities import literal_operands

__all__ = ["MAX_MODEL_LINES", "ProblemModel", "Unforced", "read_problem_model"]

MAX_MODEL_CHARS = 4_000
MAX_MODEL_LINES = 30
MAX_UNKNOWNS = 30
MAX_EXPONENT = 4
MAX_DEGREE = 4  # of each side in its unknowns: word problems are linear, now and then quadratic
MAX_SYSTEM_DEGREE = 16  # the product of the equations' degrees, which bounds how large a solution can grow
MAX_DIGITS = 1_000  # of a forced value's numerator or denominator
ANSWER_NAME = "answer"
_EQUATION = re.compile(r"([^=<>!]+?)\s*=(?!=)\s*([^=<>!]+)")
_FENCE = re.compile(r"```[a-z]*\n(.*?)```", re.DOTALL)


class Unforced(ReasonForgeError):
    """The equations do not determine one rational answer (contradictory, under-determined, undecided in time)."""

    code = "problem_model_unforced"


@dataclass(frozen=True)
class ProblemModel:
    """A decided problem model: the answer it forces, and every named quantity it forces, by value."""

    answer: sympy.Rational
    forced: tuple[tuple[str, sympy.Rational], ...]  # each unknown whose value the equations force, in order
    equations: tuple[tuple[Node, Node], ...] = ()  # each equation's sides, as written

    def quantities(self) -> dict[sympy.Expr, str]:
        """Each forced value, with the first name that has it."""
        out: dict[sympy.Expr, str] = {}
        for name, value in self.forced:
            out.setdefault(value, name)
        return out


def read_problem_model(text: str, grounding: Iterable[sympy.Rational], *, timeout_s: float = 2.0) -> ProblemModel:
    """The answer and quantities `text` forces; ArtifactSyntaxError naming the line when it is not a list of
    grounded equations ending with `answer = ...`, Unforced when Z3 does not find exactly one rational answer.
    Every decision together runs within `timeout_s`: the quantities still undecided when it is spent are not
    forced."""
    equations = _equations(text, frozenset(grounding))
    deadline = time.monotonic() + timeout_s
    ctx = z3.Context()
    unknowns: dict[str, Any] = {}
    solver = _Bounded(z3.Solver(ctx=ctx), deadline)
    for number, left, right in equations:
        guards: list[Any] = []
        lhs = _term(left, ctx, unknowns, guards, number)
        rhs = _term(right, ctx, unknowns, guards, number)
        solver.add(*guards, lhs == rhs)
        if len(unknowns) > MAX_UNKNOWNS:
            raise ArtifactSyntaxError(f"the model names over {MAX_UNKNOWNS} unknowns", line=number, column=1)
    answer = unknowns[ANSWER_NAME]
    model = _decided(solver, "the equations")
    value = _rational(model.eval(answer, model_completion=True))
    if value is None:
        raise Unforced("the answer the equations give is not a rational number")
    if not _forced(solver, answer, value, ctx):
        raise Unforced("the equations do not determine the answer: another value satisfies them too")
    forced: list[tuple[str, sympy.Rational]] = []
    for name, unknown in unknowns.items():
        if name == ANSWER_NAME:
            continue
        own = _rational(model.eval(unknown, model_completion=True))
        if own is not None and _forced(solver, unknown, own, ctx):
            forced.append((name, own))
    forced.append((ANSWER_NAME, value))
    return ProblemModel(answer=value, forced=tuple(forced),
                        equations=tuple((left, right) for _, left, right in equations))


def _equations(text: str, allowed: frozenset[sympy.Rational]) -> list[tuple[int, Node, Node]]:
    if len(text) > MAX_MODEL_CHARS:
        raise ArtifactSyntaxError(f"the model is {len(text):,} characters, over the cap of {MAX_MODEL_CHARS:,}",
                                  line=1, column=1)
    fenced = _FENCE.search(text)
    body = fenced.group(1) if fenced else text
    lines = [(n, line.split("#", 1)[0].strip()) for n, line in enumerate(body.splitlines(), 1)]
    lines = [(n, line) for n, line in lines if line]
    if not lines:
        raise ArtifactSyntaxError("the model has no equation", line=1, column=1)
    if len(lines) > MAX_MODEL_LINES:
        raise ArtifactSyntaxError(f"the model has {len(lines)} lines, over the cap of {MAX_MODEL_LINES}",
                                  line=lines[MAX_MODEL_LINES][0], column=1)
    out: list[tuple[int, Node, Node]] = []
    bezout = 1
    for number, line in lines:
        match = _EQUATION.fullmatch(line)
        if match is None:
            raise ArtifactSyntaxError(f"not an equation `expression = expression`: {line[:80]}", line=number,
                                      column=1)
        sides = (_parse(match.group(1), number), _parse(match.group(2), number))
        degree = max(_degree(side, number) for side in sides)
        if degree > MAX_DEGREE:
            raise ArtifactSyntaxError(f"an equation of degree over {MAX_DEGREE} in its unknowns is not a word "
                                      "problem's arithmetic", line=number, column=1)
        bezout *= max(1, degree)
        if bezout > MAX_SYSTEM_DEGREE:
            # `y1 = y0 * y0`, `y2 = y1 * y1`, …: each line quadratic, the values doubly exponential, and Z3 would
            # spend its time (uninterruptibly) writing them out
            raise ArtifactSyntaxError(f"the equations up to here are of degree over {MAX_SYSTEM_DEGREE} together "
                                      "(the product of their degrees): not a word problem's arithmetic",
                                      line=number, column=1)
        for side in sides:
            for literal, value in literal_operands(side):
                if value not in allowed and -value not in allowed:
                    raise ArtifactSyntaxError(f"{literal} is not a quantity the question states or a named constant "
                                              "of its units; a problem model may use only those", line=number,
                                              column=1)
        out.append((number, *sides))
    last_number, last_left, _ = out[-1]
    if last_left != Name(ANSWER_NAME):
        raise ArtifactSyntaxError(f"the last line must be `{ANSWER_NAME} = ...`", line=last_number, column=1)
    if any(left == Name(ANSWER_NAME) for _, left, _ in out[:-1]):
        raise ArtifactSyntaxError(f"`{ANSWER_NAME}` is defined once, on the last line", line=out[0][0], column=1)
    return out


def _degree(node: Node, line: int) -> int:
    """A bound on the degree of `node` in its unknowns; ArtifactSyntaxError for a power of a power (values that
    grow beyond any word problem's before Z3 is even asked)."""
    if isinstance(node, Num):
        return 0
    if isinstance(node, Name):
        return 1
    if isinstance(node, Unary | Postfix):
        return _degree(node.arg, line)
    if isinstance(node, Binary):
        if node.op == "^":
            if _has_power(node.left):
                raise ArtifactSyntaxError("a power of a power is not a word problem's arithmetic", line=line,
                                          column=1)
            exponent = node.right
            times = int(exponent.text) if isinstance(exponent, Num) and exponent.text.isdigit() else MAX_EXPONENT + 1
            return _degree(node.left, line) * times
        left, right = _degree(node.left, line), _degree(node.right, line)
        return max(left, right) if node.op in ("+", "-") else left + right
    return 0


def _has_power(node: Node) -> bool:
    if isinstance(node, Binary):
        return node.op == "^" or _has_power(node.left) or _has_power(node.right)
    if isinstance(node, Unary | Postfix):
        return _has_power(node.arg)
    return False


def _parse(source: str, line: int) -> Node:
    try:
        return parse_expression(source)
    except ExpressionError as exc:
        raise ArtifactSyntaxError(f"{exc.message}: {source[:80]}", line=line, column=exc.column or 1) from None


def _term(node: Node, ctx: Any, unknowns: dict[str, Any], guards: list[Any], line: int) -> Any:
    """The Z3 real term of `node` (unknowns made as they are met; `guards` gets each non-constant divisor ≠ 0)."""
    if isinstance(node, Num):
        value = Fraction(str(node.value))
        return z3.RealVal(f"{value.numerator}/{value.denominator}", ctx)
    if isinstance(node, Name):
        if node.name not in unknowns:
            unknowns[node.name] = z3.Real(node.name, ctx)
        return unknowns[node.name]
    if isinstance(node, Unary):
        inner = _term(node.arg, ctx, unknowns, guards, line)
        return -inner if node.op == "-" else inner
    if isinstance(node, Postfix) and node.op == "%":
        return _term(node.arg, ctx, unknowns, guards, line) / z3.RealVal(100, ctx)
    if isinstance(node, Binary):
        left = _term(node.left, ctx, unknowns, guards, line)
        if node.op == "^":
            exponent = node.right
            if not (isinstance(exponent, Num) and exponent.text.isdigit() and int(exponent.text) <= MAX_EXPONENT):
                raise ArtifactSyntaxError(f"a power's exponent must be a whole number up to {MAX_EXPONENT}",
                                          line=line, column=1)
            out = z3.RealVal(1, ctx)
            for _ in range(int(exponent.text)):
                out = out * left
            return out
        right = _term(node.right, ctx, unknowns, guards, line)
        if node.op == "+":
            return left + right
        if node.op == "-":
            return left - right
        if node.op == "*":
            return left * right
        if node.op == "/":
            if not z3.is_rational_value(z3.simplify(right)):
                guards.append(right != 0)
            elif z3.simplify(right).as_fraction() == 0:
                raise ArtifactSyntaxError("it divides by 0", line=line, column=1)
            return left / right
    raise ArtifactSyntaxError("only + - * / ^ %, numbers and names may appear in a problem model", line=line, column=1)


class _Bounded:
    """A Z3 solver whose every check gets the time left before one deadline (none left: unknown)."""

    def __init__(self, solver: Any, deadline: float) -> None:
        self.solver, self.deadline = solver, deadline

    def add(self, *constraints: Any) -> None:
        self.solver.add(*constraints)

    def push(self) -> None:
        self.solver.push()

    def pop(self) -> None:
        self.solver.pop()

    def check(self) -> Any:
        left_ms = int((self.deadline - time.monotonic()) * 1000)
        if left_ms <= 0:
            return z3.unknown
        self.solver.set("timeout", left_ms)
        return self.solver.check()

    def model(self) -> Any:
        return self.solver.model()

    def reason_unknown(self) -> str:
        return "out of time" if time.monotonic() >= self.deadline else str(self.solver.reason_unknown())


def _decided(solver: _Bounded, what: str) -> Any:
    verdict = solver.check()
    if verdict == z3.unsat:
        raise Unforced(f"{what} contradict each other: no value satisfies them all")
    if verdict != z3.sat:
        raise Unforced(f"Z3 did not decide {what} in time ({solver.reason_unknown()})")
    return solver.model()


def _forced(solver: _Bounded, term: Any, value: sympy.Rational, ctx: Any) -> bool:
    """Is `term` = `value` in every solution (asserting otherwise unsatisfiable)? Unknown counts as no."""
    solver.push()
    try:
        solver.add(term != z3.RealVal(f"{value.p}/{value.q}", ctx))
        return bool(solver.check() == z3.unsat)
    finally:
        solver.pop()


def _rational(value: Any) -> sympy.Rational | None:
    """The exact rational `value` is; None for an algebraic number or one too long to be a word problem's."""
    if not z3.is_rational_value(value):
        return None
    # Z3 prints its own numerals: a Python int of over 4,300 digits could not be made from them
    if len(str(value.numerator())) > MAX_DIGITS or len(str(value.denominator())) > MAX_DIGITS:
        return None
    fraction = value.as_fraction()
    return sympy.Rational(fraction.numerator, fraction.denominator)
