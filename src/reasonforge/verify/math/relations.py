"""The `sympy` checker: exact arithmetic and algebra on relations, one per line (DESIGN §3.1, §3.3 quick).

Artifact format (self-contained: each step is checked alone, so the translator copies in what the
step may use). One statement per line, read top to bottom; `#` starts a comment; blank lines are
ignored. Expressions use the language of `lang.math.expr` (`48/2`, `x^2 + y^2`, `sqrt(2)`, `20%`).

    let x = 3            a binding known before this step (a given, or an ancestor step's binding);
                         later lines use x's value; not checked; a later `let x` shadows it (a new
                         case of a case analysis)
    assume z > 0         an assumption: a relation (an equation is a hypothesis the claims are checked
                         under, like a fact), or `assume k is integer` with properties from
                         integer natural positive negative nonnegative nonpositive real rational
                         even odd prime (property assumptions apply to the whole artifact)
    fact x^2 + y^2 = z^2 a relation known before this step (a given, or an ancestor's claim); not checked
    define n = 2*k       this step binds n ("Let n = 2k", "if n = 3"): verified as a definition; when
                         n already had a value it is rebound (a new case), and the details say so;
                         what this step's claims established in the case before is forgotten (a `let`
                         that rebinds does the same)
    claim z^2 = 9 + 16   what this step asserts; checked
    case                 the step opens another case ("First, b + 6 = 1 …  Second, b + 6 = 3 …"): what its
                         claims established so far is forgotten, as after a rebinding

Relations: `=`, `<`, `>`, `<=`, `>=`, `!=`, and `~=` (≈). Names are real numbers.

Semantics of a claim:
1. Bindings are substituted. When no unknown remains the claim is decided exactly: integers, fractions
   and decimals are Rationals (`12/60 = 0.2` holds exactly). Rounding is accepted only where a side is
   a written decimal (optionally with %): it may differ from the exact value by half a unit of its
   last digit (`10/3 = 3.33` holds, tolerance 0.005; `10/3 = 3.3` holds, 0.05; `10/3 = 3.2` is false).
   `~=` (≈) rounds at the written precision (below); with no literal side it is `=`. Irrational closed forms (`sqrt(8) = 2*sqrt(2)`)
   are compared to 50 significant digits. `sin`/`cos`/`tan` of a plain nonzero number (`cos(60)`) is
   ambiguous (degrees or radians?), so such a claim is unsupported; write `pi` (the translator turns
   a degree sign into `*(pi/180)`).
   Percent points: a relation with `%` also holds if it holds with every `%` dropped and it shows that it
   counts points (`100 - 50 = 50%`, `1.2 x 100% = 120`, `0.2*100 = 20%`; `0.2 = 20%` converts exactly),
   recorded as `how: percent-as-unit`; without a ×100 or a 100 − … (`50 - 40 = 10%`) it is unsupported.
   `~=` (≈) is rounding at the written precision: half a unit of the last written digit of a literal side,
   whole numbers included (`8/3 ~= 3` and `8/3 ~= 2.67` hold, `8/3 ~= 4` does not); within a whole unit but
   not the rounding (`8/3 ~= 2`, `sqrt(2021) ~= 44.95`: a truncation?) it is unsupported, never verified.
2. With unknowns left: an identity (`(x+1)^2 = x^2 + 2*x + 1`) is verified; a relation that can never
   hold (`x = x + 1`) is failed as a contradiction. An equation whose unknowns include a name not used
   above it is a definition (verified, `how: definition`). Otherwise the known equations (facts,
   verified claims) that share unknowns with the claim are solved, solutions that break an assumption
   or are not real are dropped, and the claim is tested on each remaining solution: verified if it
   holds on all, failed if on none (the message gives the solutions), unsupported if on some only
   (the message names the others: state the sign or domain, e.g. `assume z > 0`). An equation the
   known equations leave open is a further definition when no `let` and no `fact` constrains its
   unknowns (`p + m = 27`, then `p = 8*m`, both stated by this step); otherwise it is unsupported.
3. A fact or a verified claim `name = <closed value>` binds the name like `let`. Facts without unknowns
   add nothing (their own step checked them) and are ignored.
4. Claims proven elsewhere (`proven`, line numbers: at the standard level, claims proved as Coq lemmas from
   the givens and the ancestors, see `pipeline.key_lemmas`): such a claim that the rules above leave undecided
   (unsupported) is verified, `how: coq-lemma`. Whatever the rules decide stands: a proof elsewhere never
   overrides a refutation, an error, or a verdict SymPy reached itself.

Step status: failed if a claim is false (details `error_kind`: `arithmetic` for a wrong value,
`contradiction` for a relation that can never hold), else error (syntax, a binding that refers to
itself, a size cap, the time limit), else unsupported (a claim that cannot be decided, or no claim or
define line at all), else verified. `details.relations` records every line checked with its verdict,
`how`, and the values of both sides.

Bounding the work: closed arithmetic is bounded by the size caps of `lang.math.expr` (numbers of at most
50,000 digits, no `10^10^10`), so it runs in process (well under a millisecond a relation, which is
what GSM8K-sized workloads need). Anything that needs SymPy's `simplify` or `solve` has no size bound
we can compute ahead, so the whole artifact is then re-checked in a worker process (~10-30 ms to start)
that is killed at `CheckLimits.timeout_s` and runs under an address-space limit of
`CheckLimits.memory_mb`; a timeout is `error`, never `failed`. See `_context` for how the worker starts.

One module: ~100 lines are the specification above, and the parser, engine and worker below change with it.
"""

from __future__ import annotations

import decimal
import itertools
import re
import time
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import sympy

from reasonforge.errors import ArtifactSyntaxError
from reasonforge.lang.math.expr import (
    CONSTANTS,
    Ambiguous,
    Binary,
    Call,
    ExpressionError,
    Name,
    Node,
    NotReal,
    Num,
    Postfix,
    TooLarge,
    Unary,
    Undefined,
    describe,
    evaluate,
    has_percent,
    literals,
    names_in,
    rounding_tolerance,
    split_relation,
    strip_percent,
    to_text,
)
from reasonforge.registry import Spec, checkers
from reasonforge.types import (
    ArtifactLanguage,
    CheckLimits,
    CheckOutcome,
    ErrorKind,
    ProofLevel,
    StepContext,
    StepStatus,
)
from reasonforge.verify.math.killable import Returned, Stop, call_killable, warm_sympy

__all__ = ["PROPERTIES", "PROVEN_ELSEWHERE", "ArithmeticChecker", "Line", "check_sympy", "parse_artifact"]

CHECKER_VERSION = "1.3"  # 1.2: records a refutation that needs the step's own claims; 1.3: reads the names of maths objects
KEYWORDS = ("let", "define", "assume", "fact", "claim", "case")
PROPERTIES = ("integer", "natural", "positive", "negative", "nonnegative", "nonpositive", "real", "rational",
              "even", "odd", "prime")
PROVEN_ELSEWHERE = "coq-lemma"  # the `how` of a claim SymPy left undecided and a Coq lemma proved (rule 4)
MAX_EQUATIONS = 8  # solve() on larger systems is left undecided: quick level promises speed
MAX_UNKNOWNS = 8
_NUMERIC_DIGITS = 50
# a literal with this many decimals (and four significant digits) may be a rounded value (2.8284 for √8); money and
# most givens have fewer
_ROUNDED_DECIMALS = 3
_MAX_ROUNDED = 4  # rounded literals in one side whose intervals are explored (2^n corners)
_ASSUMPTION_OF = {">": "positive", ">=": "nonnegative", "<": "negative", "<=": "nonpositive"}
_FLIP = {"<": ">", ">": "<", "<=": ">=", ">=": "<=", "=": "=", "!=": "!=", "~=": "~="}


# ---- the artifact -----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Line:
    """One statement of a `sympy` artifact."""

    number: int
    kind: str
    text: str
    lhs: Node | None = None
    op: str | None = None
    rhs: Node | None = None
    name: str | None = None
    properties: tuple[str, ...] = ()

    @property
    def relation(self) -> str:
        """The relation in canonical text (or `k is integer`)."""
        if self.kind == "case":
            return "case"
        if self.lhs is not None and self.rhs is not None:
            return f"{to_text(self.lhs)} {self.op} {to_text(self.rhs)}"
        return f"{self.name} is {' '.join(self.properties)}"


def parse_artifact(text: str) -> list[Line]:
    """Parse a `sympy` artifact (see the module docstring); raises ArtifactSyntaxError with line and column."""
    lines: list[Line] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        body = raw.split("#", 1)[0]
        stripped = body.strip()
        if not stripped:
            continue
        keyword, _, rest = stripped.partition(" ")
        column = body.index(stripped) + len(keyword) + 2
        if keyword not in KEYWORDS:
            raise ArtifactSyntaxError(
                f"a line starts with one of {', '.join(KEYWORDS)}, not {keyword!r}", line=number,
                column=body.index(stripped) + 1)
        rest = rest.strip()
        if keyword == "case":
            if rest:
                raise ArtifactSyntaxError("`case` takes nothing after it", line=number, column=column)
            lines.append(Line(number, keyword, ""))
            continue
        if keyword == "assume" and (m := re.fullmatch(r"([A-Za-z_][A-Za-z0-9_]*)\s+is\s+([A-Za-z ]+)", rest)):
            props = tuple(m.group(2).split())
            unknown = [p for p in props if p not in PROPERTIES]
            if unknown:
                raise ArtifactSyntaxError(f"unknown property {unknown[0]!r}; use one of {', '.join(PROPERTIES)}",
                                          line=number, column=column)
            lines.append(Line(number, keyword, rest, name=m.group(1), properties=props))
            continue
        try:
            lhs, op, rhs = split_relation(rest)
        except ExpressionError as exc:
            raise ArtifactSyntaxError(exc.message, line=number, column=column + (exc.column or 1) - 1) from None
        name = None
        if keyword in ("let", "define"):
            if op != "=" or not isinstance(lhs, Name) or lhs.name in CONSTANTS:
                raise ArtifactSyntaxError(f"{keyword} takes `name = expression`", line=number, column=column)
            name = lhs.name
        lines.append(Line(number, keyword, rest, lhs, op, rhs, name))
    return lines


# ---- comparing values ------------------------------------------------------------------------------------------
def _tolerance(line_lhs: Node, op: str, line_rhs: Node) -> sympy.Rational | None:
    """Half a unit of the last written digit of a decimal side; for `~=` whole-number literals count too."""
    # ≈ is rounding at the written precision: half a unit of the last written digit, whole numbers included
    # (8/3 ≈ 3 and ≈ 2.67 hold, 8/3 ≈ 4 and ≈ 2 do not)
    integers = op == "~="
    tolerances = [t for t in (rounding_tolerance(line_lhs, integers=integers),
                              rounding_tolerance(line_rhs, integers=integers)) if t is not None]
    return max(tolerances) if tolerances else None


def _percent_as_unit(line: Line) -> tuple[Node, Node] | None:
    """`100 - 50 = 50%`, `1.2 x 100% = 120`: prose often writes `%` where it counts percent points. The
    sides with every `%` dropped, when the relation has one (else None)."""
    if line.op not in ("=", "~=") or line.lhs is None or line.rhs is None:
        return None
    if not (has_percent(line.lhs) or has_percent(line.rhs)):
        return None
    return strip_percent(line.lhs), strip_percent(line.rhs)


def _shows_points(line: Line) -> bool:
    """The relation itself says it counts percent points: a side is a product with 100 (`0.2*100 = 20%`,
    `1.2*100% = 120`) or a sum or difference from 100 (`100 - 20 = 80%`)."""
    def hundred(node: Node) -> bool:
        return (isinstance(node, Num) and node.value == 100) or (
            isinstance(node, Postfix) and node.op == "%" and hundred(node.arg))

    def shows(node: Node) -> bool:
        if isinstance(node, Binary) and node.op == "*":
            return hundred(node.left) or hundred(node.right) or shows(node.left)
        if isinstance(node, Binary) and node.op == "/":
            return shows(node.left)
        if isinstance(node, Binary) and node.op in ("+", "-"):
            while isinstance(node, Binary) and node.op in ("+", "-"):
                node = node.left
            return hundred(node)
        return False

    return line.lhs is not None and line.rhs is not None and (shows(line.lhs) or shows(line.rhs))


def _looks_rounded(num: Num) -> bool:
    """Could `num` be a value rounded to its written digits (2.8284 for √8)? At least `_ROUNDED_DECIMALS`
    decimals and four significant digits, the last not 0: 0.125, 0.250 and 0.999 are exact values as often as not,
    and arithmetic on them is refuted as written."""
    digits = num.text.replace("-", "").replace(".", "").lstrip("0")
    return num.decimals >= _ROUNDED_DECIMALS and len(digits) >= 4 and not num.text.endswith("0")


def _nudged(num: Num, sign: int) -> Num:
    """`num` moved half a unit of its last written digit up (`sign` 1) or down (-1): an end of the interval of
    values it could be rounded from."""
    moved = decimal.Decimal(num.text) + sign * decimal.Decimal(5).scaleb(-(num.decimals + 1))
    return Num(text=format(moved, "f"), decimals=num.decimals + 1)


def _replaced(node: Node, moved: Mapping[int, Num]) -> Node:
    """`node` with each literal whose id is in `moved` replaced."""
    if isinstance(node, Num):
        return moved.get(id(node), node)
    if isinstance(node, Unary):
        return Unary(node.op, _replaced(node.arg, moved))
    if isinstance(node, Postfix):
        return Postfix(node.op, _replaced(node.arg, moved))
    if isinstance(node, Binary):
        return Binary(node.op, _replaced(node.left, moved), _replaced(node.right, moved))
    if isinstance(node, Call):
        return Call(node.func, tuple(_replaced(arg, moved) for arg in node.args))
    return node


def _is_integer_literal(node: Node) -> bool:
    return isinstance(node, Num) and node.decimals == 0


def _numeric(value: sympy.Expr) -> sympy.Float | None:
    try:
        approx = sympy.N(value, _NUMERIC_DIGITS)
    except (TypeError, ValueError, ZeroDivisionError):
        return None
    return approx if approx.is_Float or approx.is_Integer or approx.is_Rational else None


def _compare(lhs: sympy.Expr, op: str, rhs: sympy.Expr, tol: sympy.Rational | None) -> tuple[bool | None, str]:
    """(holds?, how) for two closed values; None when undecidable numerically."""
    if op in ("=", "~=", "!="):
        diff = lhs - rhs
        if diff == 0:
            equal, how = True, "exact"
        elif diff.is_Rational:
            equal, how = (True, "rounded") if tol is not None and abs(diff) <= tol and op != "!=" else (False, "exact")
        else:
            approx = _numeric(diff)
            if approx is None:
                return None, "numeric"
            size = max(1, abs(_numeric(lhs) or 1), abs(_numeric(rhs) or 1))
            if abs(approx) <= size * sympy.Float(10) ** (5 - _NUMERIC_DIGITS):
                equal, how = True, "numeric"
            elif tol is not None and abs(approx) <= tol and op != "!=":
                equal, how = True, "rounded"
            else:
                equal, how = False, "numeric"
        return (not equal if op == "!=" else equal), how
    build = {"<": sympy.Lt, ">": sympy.Gt, "<=": sympy.Le, ">=": sympy.Ge}[op]
    if lhs.is_Rational and rhs.is_Rational:
        return bool(build(lhs, rhs)), "exact"
    approx_l, approx_r = _numeric(lhs), _numeric(rhs)
    if approx_l is None or approx_r is None:
        return None, "numeric"
    return bool(build(approx_l, approx_r)), "numeric"


# the values written for a constant in its place: `π × 25 = 3.14 × 25` substitutes, it does not assert
_APPROXIMANTS = ((sympy.pi, "π", ("3.14", "3.142", "3.1416", "3.14159", "3.141592")), (sympy.E, "e", ("2.718", "2.7183",
                                                                                                   "2.71828")))


def _constant_approximated(line: Line, lhs: sympy.Expr, rhs: sympy.Expr, tol: sympy.Rational | None) -> str | None:
    """"π taken as 3.14" when one side holds π (or e) and the other writes one of its usual approximations, and
    the relation holds once that value is put for the constant; else None."""
    assert line.lhs is not None and line.rhs is not None
    for constant, shown, values in _APPROXIMANTS:
        for side, other, node in ((lhs, rhs, line.rhs), (rhs, lhs, line.lhs)):
            if not side.has(constant) or other.has(constant):
                continue
            texts = {n.text for n in literals(node)}
            written = sorted(texts & set(values))
            if constant == sympy.pi and {"22", "7"} <= texts:
                written.append("22/7")  # "use π = 22/7"
            for value in written:
                if _compare(side.subs(constant, sympy.Rational(value)), "~=", other, tol)[0]:
                    return f"{shown} taken as {value}"
    return None


def _values(line: Line, lhs: sympy.Expr, rhs: sympy.Expr) -> dict[str, str]:
    return {to_text(line.lhs): describe(lhs), to_text(line.rhs): describe(rhs)}  # type: ignore[arg-type]


def _false_message(line: Line, lhs: sympy.Expr, rhs: sympy.Expr, tol: sympy.Rational | None) -> str:
    shown = [f"{to_text(side)} = {describe(value)}" for side, value in ((line.lhs, lhs), (line.rhs, rhs))
             if side is not None and not isinstance(side, Num)]  # a literal's value is what it says
    message = f"{line.relation} is false"
    if shown:
        message += ": " + ", ".join(shown)
    if tol is not None and line.op in ("=", "~="):
        message += f" (more than the rounding allowance of {describe(tol)} apart)"
    return message


# ---- the engine ------------------------------------------------------------------------------------------------
class _NeedsSolver(Exception):
    """The artifact has a claim with unknowns: re-check it in the worker."""


class _Timeout(Exception):
    pass


@dataclass
class _Result:
    line: Line
    status: StepStatus
    how: str = ""
    message: str = ""
    error_kind: ErrorKind | None = None
    values: dict[str, str] = field(default_factory=dict)
    # refuted only together with the step's own earlier claims (its equations contradict each other)
    against_own: bool = False

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"line": self.line.number, "kind": self.line.kind, "relation": self.line.relation,
                               "verdict": self.status.value}
        if self.how:
            out["how"] = self.how
        if self.values:
            out["values"] = self.values
        if self.message:
            out["message"] = self.message
        if self.error_kind:
            out["error_kind"] = self.error_kind
        if self.against_own:
            out["against_own_claims"] = True
        return out


@dataclass
class _Known:
    """A relation known to hold at this point, kept as written; `inherited` when it came from a `fact` or
    `assume` line rather than from this step's own claims."""

    lhs: Node
    op: str
    rhs: Node
    inherited: bool = True


class _Engine:
    """Checks the lines of one artifact in order (see the module docstring)."""

    def __init__(self, lines: Sequence[Line], symbolic: bool, deadline: float,
                 proven: Collection[int] = frozenset(), closed_only: bool = False) -> None:
        self.lines = lines
        self.symbolic = symbolic
        self.closed_only = closed_only  # claims with unknowns are left undecided instead of sent to the solver
        self.deadline = deadline
        self.proven = frozenset(proven)
        self.symbols = _symbols(lines)
        self.env: dict[str, sympy.Expr] = {}
        self.known: list[_Known] = []
        self.filters: list[_Known] = []
        self.used: set[str] = set()  # names used above the current line (for definitions)
        self.let_names: set[str] = set()
        # names this step's own claims and defines bound, with the value each had before (None: unbound): a new
        # case restores those values
        self.own_bound: dict[str, sympy.Expr | None] = {}
        self.results: list[_Result] = []

    def run(self) -> list[_Result]:
        for line in self.lines:
            if time.monotonic() > self.deadline:
                raise _Timeout
            handler = getattr(self, f"_{line.kind}")
            result = handler(line)
            if result is not None:
                self.results.append(result)
            # a bound (`assume z >= 0`) leaves z free to be defined; a hypothesis equation uses its names
            if line.lhs is not None and line.rhs is not None and (line.kind != "assume" or line.op == "="):
                self.used |= names_in(line.lhs) | names_in(line.rhs)
        return self.results

    # -- statements --
    def _let(self, line: Line) -> _Result | None:
        assert line.name is not None and line.rhs is not None
        if line.name in names_in(line.rhs):
            return _Result(line, StepStatus.ERROR, message=f"binding {line.relation} refers to {line.name} itself; "
                           "a binding must give the name a value in terms of other names",
                           error_kind=ErrorKind.BINDING)
        try:
            value = evaluate(line.rhs, self.env, self.symbols)
        except ExpressionError as exc:
            return _Result(line, StepStatus.ERROR, message=f"binding {line.relation}: {exc.message}",
                           error_kind=ErrorKind.TOO_LARGE if isinstance(exc, TooLarge) else ErrorKind.BINDING)
        if line.name in self.env:
            self._new_case()
        self.env[line.name] = value  # a later binding shadows an earlier one: a new case
        self.let_names.add(line.name)
        return None

    def _define(self, line: Line) -> _Result:
        assert line.name is not None and line.rhs is not None
        if line.name in names_in(line.rhs):
            return _Result(line, StepStatus.ERROR, error_kind=ErrorKind.BINDING,
                           message=f"{line.relation} cannot define {line.name}: the right side uses {line.name} itself")
        try:
            value = evaluate(line.rhs, self.env, self.symbols)
        except ExpressionError as exc:
            return self._expression_problem(line, exc)
        previous = self.env.get(line.name)
        if previous is not None:
            self._new_case()
        self.own_bound.setdefault(line.name, self.env.get(line.name))
        self.env[line.name] = value
        note = f"rebinds {line.name} (it was {describe(previous)}): a new case" if previous is not None else ""
        return _Result(line, StepStatus.VERIFIED, how="definition", message=note, values={line.name: describe(value)})

    def _new_case(self) -> None:
        """A rebinding or a `case` line opens a new case: what this step's claims and defines established held in
        the case before ("for y = 60, sin x = √2/2; for y = 120, sin x = −√2/2"), so it is forgotten (each name
        back to the value it had before the step bound it); facts, `let` bindings and assumptions stay."""
        for name, before in self.own_bound.items():
            if before is None:
                self.env.pop(name, None)
            else:
                self.env[name] = before
        self.own_bound.clear()
        self.known = [k for k in self.known if k.inherited]
        self.filters = [k for k in self.filters if k.inherited]

    def _case(self, line: Line) -> None:
        self._new_case()

    def _assume(self, line: Line) -> None:
        if line.lhs is not None and line.rhs is not None:
            self.filters.append(_Known(line.lhs, line.op or "=", line.rhs, inherited=True))
            if line.op == "=":
                # a hypothesis ("if 200 + 200x = 228, then x = .14"): the claims are checked under it, not
                # taken as definitions of its names
                self._learn(line.lhs, "=", line.rhs, inherited=True)

    def _fact(self, line: Line) -> None:
        assert line.lhs is not None and line.rhs is not None and line.op is not None
        self._learn(line.lhs, line.op, line.rhs, inherited=True)

    def _claim(self, line: Line) -> _Result:
        assert line.lhs is not None and line.rhs is not None and line.op is not None
        try:
            lhs = evaluate(line.lhs, self.env, self.symbols)
            rhs = evaluate(line.rhs, self.env, self.symbols)
        except ExpressionError as exc:
            return self._expression_problem(line, exc)
        tol = _tolerance(line.lhs, line.op, line.rhs)
        if not (lhs.free_symbols or rhs.free_symbols):
            holds, how = _compare(lhs, line.op, rhs, tol)
            if holds is False and (unit := _percent_as_unit(line)) is not None:
                alt_lhs, alt_rhs = self._sides(unit)
                if _compare(alt_lhs, line.op, alt_rhs, _tolerance(unit[0], line.op, unit[1]))[0]:
                    if not _shows_points(line):  # `50 - 40 = 10%`: 10 is not 10%, unless 50 and 40 are percents
                        return _Result(line, StepStatus.UNSUPPORTED, "percent-ambiguous", error_kind=ErrorKind.AMBIGUOUS,
                                       message=f"{line.relation} holds only if its numbers count percent points, "
                                       "and nothing in it (a ×100, a 100 − …) says they do")
                    holds, how = True, "percent-as-unit"
            if holds is False and line.op in ("=", "~=") and (value := _constant_approximated(line, lhs, rhs, tol)):
                return _Result(line, StepStatus.UNSUPPORTED, "approximated-constant", error_kind=ErrorKind.AMBIGUOUS,
                               values=_values(line, lhs, rhs),
                               message=f"{line.relation} holds with {value}: an approximation (\"use 3.14 for π\"), "
                               "neither proven nor refuted")
            if holds is False and line.op in ("=", "~=") and self._rounded_operands(line, lhs, rhs, tol):
                return _Result(line, StepStatus.UNSUPPORTED, "rounded-operands", error_kind=ErrorKind.AMBIGUOUS,
                               values=_values(line, lhs, rhs),
                               message=f"{line.relation} is false as written but holds for values its numbers of "
                               f"{_ROUNDED_DECIMALS} or more decimals and four significant digits could be rounded from (`(2.8284)^2 = 8`): an "
                               "approximation, neither proven nor refuted")
            if holds is False and line.op == "~=" and (why := _loose_approximation(line, lhs, rhs, tol)):
                return _Result(line, StepStatus.UNSUPPORTED, "approximation", error_kind=ErrorKind.AMBIGUOUS,
                               values=_values(line, lhs, rhs), message=f"{line.relation}: {why}")
            if holds is False and line.op == "~=" and tol is not None \
                    and _compare(lhs, "~=", rhs, 2 * tol)[0]:  # `sqrt(2021) ≈ 44.95`: truncated, not rounded
                return _Result(line, StepStatus.UNSUPPORTED, "not-rounded", error_kind=ErrorKind.AMBIGUOUS,
                               message=f"{line.relation}: within a unit of the last written digit but not its "
                               "rounding (a truncation?); ≈ is checked as rounding at the written precision")
            result = self._verdict(line, holds, how, lhs, rhs, tol)
        elif self.closed_only:
            return _Result(line, StepStatus.UNSUPPORTED, "solver-timeout", values=_values(line, lhs, rhs),
                           message=f"{line.relation}: the solver did not finish within the time limit")
        elif not self.symbolic:
            raise _NeedsSolver
        else:
            result = self._symbolic(line, lhs, rhs, tol)
        if result.status is StepStatus.UNSUPPORTED and line.number in self.proven:
            result = _Result(line, StepStatus.VERIFIED, PROVEN_ELSEWHERE, values=result.values,
                             message=f"proved as a Coq lemma; SymPy left it undecided ({result.message})")
        if result.status is StepStatus.VERIFIED or result.how == _PREMISE:
            # an equation that is an identity or one to solve is, on either reading, what the step's next
            # relations rest on: a relation false under it is wrong whichever the step meant
            self._learn(line.lhs, line.op, line.rhs, inherited=False)
        return result

    def _rounded_operands(self, line: Line, lhs: sympy.Expr, rhs: sympy.Expr, tol: sympy.Rational | None) -> bool:
        """Does a side with literals of `_ROUNDED_DECIMALS` or more decimals (values a solution rounds: 2.8284
        for √8) reach the other side's value for some values those literals could be rounded from? The side's
        range is taken at the corners of their rounding intervals (at most `_MAX_ROUNDED` literals)."""
        assert line.lhs is not None and line.rhs is not None
        for side, other in ((line.lhs, rhs), (line.rhs, lhs)):
            if rounding_tolerance(side) is not None:
                continue  # a lone decimal: its rounding is the tolerance already
            span, target = self._rounded_span(side), _numeric(other)
            if span is None or target is None:
                continue
            allowance = tol or 0
            if bool(span[0] - allowance <= target) and bool(target <= span[1] + allowance):
                return True
        return False

    def _rounded_span(self, side: Node) -> tuple[sympy.Expr, sympy.Expr] | None:
        rounded = [n for n in literals(side) if _looks_rounded(n)]
        if not rounded or len(rounded) > _MAX_ROUNDED:
            return None
        corners: list[sympy.Expr] = []
        for signs in itertools.product((-1, 1), repeat=len(rounded)):
            moved = {id(num): _nudged(num, sign) for num, sign in zip(rounded, signs, strict=True)}
            try:
                value = evaluate(_replaced(side, moved), self.env, self.symbols)
            except (ExpressionError, TypeError, ValueError, ZeroDivisionError):
                return None
            approx = _numeric(value)
            if value.free_symbols or approx is None:
                return None
            corners.append(approx)
        return min(corners), max(corners)

    def _sides(self, sides: tuple[Node, Node]) -> tuple[sympy.Expr, sympy.Expr]:
        return evaluate(sides[0], self.env, self.symbols), evaluate(sides[1], self.env, self.symbols)

    # -- helpers --
    def _verdict(self, line: Line, holds: bool | None, how: str, lhs: sympy.Expr, rhs: sympy.Expr,
                 tol: sympy.Rational | None) -> _Result:
        values = _values(line, lhs, rhs)
        if holds is None:
            return _Result(line, StepStatus.UNSUPPORTED, how, values=values,
                           message=f"{line.relation}: the sides could not be compared numerically")
        if holds:
            return _Result(line, StepStatus.VERIFIED, how, values=values)
        return _Result(line, StepStatus.FAILED, how, _false_message(line, lhs, rhs, tol), ErrorKind.ARITHMETIC,
                       values)

    def _expression_problem(self, line: Line, exc: ExpressionError) -> _Result:
        if isinstance(exc, Ambiguous):
            return _Result(line, StepStatus.UNSUPPORTED, message=f"{line.relation}: {exc.message}",
                           error_kind=ErrorKind.AMBIGUOUS)
        if isinstance(exc, NotReal) and line.op in ("=", "!=") and any(
                side is not None and names_in(side) for side in (line.lhs, line.rhs)):
            # `i = sqrt(-1)`: an equation with a name may speak of complex numbers and hold there; a closed one
            # (`sqrt(-1) = 1`) is false in them too, and an order (`x > sqrt(-7)`) has no meaning for them
            return _Result(line, StepStatus.UNSUPPORTED, "exact", error_kind=ErrorKind.UNDECIDED,
                           message=f"{line.relation} is not checked: {exc.message}, and the reasoning may work in "
                           "the complex numbers, which this check does not")
        if isinstance(exc, NotReal) and line.op == "!=" and not self._equal_in_complex(line):
            # `sqrt(-4) != 2`: true in the complex numbers, where the reasoning may be working
            return _Result(line, StepStatus.UNSUPPORTED, "exact", error_kind=ErrorKind.UNDECIDED,
                           message=f"{line.relation} holds in the complex numbers ({exc.message}), which this "
                           "check does not work in")
        if isinstance(exc, NotReal) and line.op in ("=", "!=") and self._equal_in_complex(line):
            # `(-4 + sqrt(-4))/2 = -2 + sqrt(-1)`: a closed equation true in the complex numbers is a step of
            # reasoning that works there (complex roots of a quadratic), not a false one
            return _Result(line, StepStatus.UNSUPPORTED if line.op == "=" else StepStatus.FAILED, "exact",
                           error_kind=ErrorKind.UNDECIDED if line.op == "=" else ErrorKind.ARITHMETIC,
                           message=f"{line.relation} holds in the complex numbers ({exc.message}), which this "
                           "check does not work in" if line.op == "=" else
                           f"{line.relation} is false: its sides are the same complex number")
        if isinstance(exc, Undefined):
            return _Result(line, StepStatus.FAILED, "exact", f"{line.relation} is false: {exc.message}",
                           ErrorKind.ARITHMETIC)
        kind = ErrorKind.TOO_LARGE if isinstance(exc, TooLarge) else ErrorKind.SYNTAX
        return _Result(line, StepStatus.ERROR, message=f"{line.relation}: {exc.message}", error_kind=kind)

    def _equal_in_complex(self, line: Line) -> bool:
        """Whether both sides of the line have the same value as complex numbers (False when either has none)."""
        if line.lhs is None or line.rhs is None:
            return False
        try:
            gap = evaluate(line.lhs, self.env, self.symbols, complex_ok=True) - \
                evaluate(line.rhs, self.env, self.symbols, complex_ok=True)
        except ExpressionError:
            return False
        if gap.free_symbols:
            return False
        return bool(abs(complex(sympy.N(gap, 30))) < 1e-20)

    def _learn(self, lhs_node: Node, op: str, rhs_node: Node, *, inherited: bool) -> None:
        """Record a known relation; `name = closed value` binds the name."""
        try:
            lhs = evaluate(lhs_node, self.env, self.symbols)
            rhs = evaluate(rhs_node, self.env, self.symbols)
        except ExpressionError:
            return  # a fact we cannot evaluate tells us nothing usable
        if not (lhs.free_symbols or rhs.free_symbols):
            return
        if op == "=":
            for name_side, value, value_node in ((lhs_node, rhs, rhs_node), (rhs_node, lhs, lhs_node)):
                if isinstance(name_side, Name) and name_side.name not in self.env and not value.free_symbols \
                        and name_side.name not in CONSTANTS:
                    self.env[name_side.name] = value
                    if not inherited:
                        self.own_bound.setdefault(name_side.name, None)
                    return
        (self.known if op == "=" else self.filters).append(_Known(lhs_node, op, rhs_node, inherited))

    def _symbolic(self, line: Line, lhs: sympy.Expr, rhs: sympy.Expr, tol: sympy.Rational | None) -> _Result:
        assert line.op is not None
        values = _values(line, lhs, rhs)
        identity = _always(lhs, line.op, rhs)
        if identity is True:
            return _Result(line, StepStatus.VERIFIED, "identity", values=values)
        if identity is False:
            gap = _reduce(lhs - rhs)
            if line.op == "!=" and gap == 0:
                why = "the sides are always equal"
            else:
                why = f"the sides always differ by {describe(gap)}" if gap.is_number else "no value satisfies it"
            return _Result(line, StepStatus.FAILED, "contradiction", f"{line.relation} can never hold: {why}",
                           ErrorKind.CONTRADICTION, values)
        names = {str(s) for s in (lhs.free_symbols | rhs.free_symbols)}
        fresh = sorted(names - self.used - set(self.env))
        if fresh and line.op == "=":
            if (unclear := _not_a_definition(lhs, rhs)) is not None:
                return _Result(line, StepStatus.UNSUPPORTED, _PREMISE, values=values,
                               message=f"{line.relation} is not checked: {unclear}", error_kind=ErrorKind.AMBIGUOUS)
            return _Result(line, StepStatus.VERIFIED, "definition", values=values,
                           message=f"defines {', '.join(fresh)}")
        return self._solve(line, lhs, rhs, tol, values)

    def _solve(self, line: Line, lhs: sympy.Expr, rhs: sympy.Expr, tol: sympy.Rational | None,
               values: dict[str, str]) -> _Result:
        assert line.op is not None
        equations, filters = self._equations(lhs.free_symbols | rhs.free_symbols)
        unknown_names = ", ".join(sorted(str(s) for s in lhs.free_symbols | rhs.free_symbols))
        own_unknowns = self._own_unknowns(lhs.free_symbols | rhs.free_symbols)
        if not equations:
            if own_unknowns and line.op == "=" and (why := _not_a_definition(lhs, rhs)) is not None:
                return _Result(line, StepStatus.UNSUPPORTED, _PREMISE, values=values,
                               message=f"{line.relation} is not checked: {why}", error_kind=ErrorKind.AMBIGUOUS)
            if own_unknowns and line.op == "=":
                return _Result(line, StepStatus.VERIFIED, "definition", values=values,
                               message=f"constrains {unknown_names}, which nothing before this step constrains")
            return _Result(line, StepStatus.UNSUPPORTED, "solved", values=values,
                           message=f"{line.relation} cannot be decided: nothing above it determines {unknown_names}")
        unknowns = sorted(set().union(*(e.free_symbols for e in equations)), key=str)
        if len(equations) > MAX_EQUATIONS or len(unknowns) > MAX_UNKNOWNS:
            return _Result(line, StepStatus.UNSUPPORTED, "solved", values=values,
                           message=f"{line.relation}: {len(equations)} equations in {len(unknowns)} unknowns are "
                           f"more than the quick level solves (at most {MAX_EQUATIONS} and {MAX_UNKNOWNS})")
        transcendental = [e for e in equations if not e.is_algebraic_expr(*unknowns)]
        if transcendental:
            # SymPy lists some solutions of |x - 1| = x - 1 (x = 1 of the interval x >= 1) or sin x = 0 (not
            # x = 2*pi): a relation false at every listed one may hold at one it left out, and one true at
            # every listed one may fail at one.
            return _Result(line, StepStatus.UNSUPPORTED, "solved", values=values,
                           message=f"{line.relation} cannot be checked against the known equations: "
                           f"{sympy.sstr(transcendental[0])} = 0 has |x|, a trigonometric or another non-algebraic "
                           "function of the unknowns, whose solutions SymPy may list only in part")
        try:
            solutions = sympy.solve(equations, unknowns, dict=True)
        except (NotImplementedError, ValueError, TypeError) as exc:
            return _Result(line, StepStatus.UNSUPPORTED, "solved", values=values,
                           message=f"{line.relation}: SymPy cannot solve the known equations ({exc})")
        if not solutions:
            return _Result(line, StepStatus.UNSUPPORTED, "solved", values=values,
                           message=f"{line.relation} cannot be checked: the known equations have no real solution "
                           "(they contradict each other)")
        kept = [s for s in solutions if _admissible(s, filters)]
        if not kept:
            return _Result(line, StepStatus.UNSUPPORTED, "solved", values=values,
                           message=f"{line.relation} cannot be checked: no solution of the known equations meets "
                           "the assumptions")
        outcomes = [_holds_under(lhs, line.op, rhs, s, tol) for s in kept]
        shown = "; ".join(_show_solution(s) for s in kept[:4])
        values = {**values, "solutions": shown}
        if any(o is None for o in outcomes):
            if own_unknowns and line.op == "=" and not any(o is False for o in outcomes) \
                    and _not_a_definition(lhs, rhs) is None:
                return _Result(line, StepStatus.VERIFIED, "definition", values=values,
                               message=f"constrains {unknown_names}, which nothing before this step constrains")
            return _Result(line, StepStatus.UNSUPPORTED, "solved", values=values,
                           message=f"{line.relation} is not determined by the known equations ({shown})")
        if all(outcomes):
            return _Result(line, StepStatus.VERIFIED, "solved", values=values)
        if not any(outcomes):
            return _Result(line, StepStatus.FAILED, "solved",
                           f"{line.relation} is false: the known equations give {shown}",
                           ErrorKind.ARITHMETIC, values,
                           against_own=not self._refuted_by_inherited(line, lhs, rhs, tol, len(equations)))
        others = "; ".join(_show_solution(s) for s, ok in zip(kept, outcomes) if not ok)
        return _Result(line, StepStatus.UNSUPPORTED, "solved", values=values,
                       message=f"{line.relation} holds for only some solutions of the known equations: {others} also "
                       "satisfies them; state the sign or domain (e.g. `z > 0`) to rule it out")

    def _refuted_by_inherited(self, line: Line, lhs: sympy.Expr, rhs: sympy.Expr, tol: sympy.Rational | None,
                              used: int) -> bool:
        """Whether the equations known before this step (givens, ancestors, assumptions) refute the relation
        without the step's own claims (`used`: how many equations the refutation solved)."""
        assert line.op is not None
        equations, filters = self._equations(lhs.free_symbols | rhs.free_symbols, inherited_only=True)
        if len(equations) == used:
            return True  # the same equations: none of the step's own took part
        unknowns = sorted(set().union(*(e.free_symbols for e in equations)), key=str) if equations else []
        if not equations or len(unknowns) > MAX_UNKNOWNS or any(not e.is_algebraic_expr(*unknowns) for e in equations):
            return False
        try:
            solutions = [s for s in sympy.solve(equations, unknowns, dict=True) if _admissible(s, filters)]
        except (NotImplementedError, ValueError, TypeError):
            return False
        return bool(solutions) and all(_holds_under(lhs, line.op, rhs, s, tol) is False for s in solutions)

    def _own_unknowns(self, unknowns: set[sympy.Symbol]) -> bool:
        """Whether no binding and no inherited equation constrains these unknowns: then an equation on them
        that the step's own earlier relations leave open is a further definition (`p + m = 27 and
        p = 8m`). Inequalities (`assume z >= 0`) bound values without fixing any, so they do not count."""
        names = {str(s) for s in unknowns}
        if names & self.let_names:
            return False
        for known in self.known:
            if not known.inherited:
                continue
            try:
                gap = evaluate(known.lhs, self.env, self.symbols) - evaluate(known.rhs, self.env, self.symbols)
            except ExpressionError:
                continue
            if names & {str(s) for s in sympy.expand(gap).free_symbols}:
                return False
        return True

    def _equations(self, targets: set[sympy.Symbol], inherited_only: bool = False
                   ) -> tuple[list[sympy.Expr], list[tuple[sympy.Expr, str, sympy.Expr]]]:
        """Known equations sharing unknowns with the targets (transitively), and the evaluated filters; only
        those from before the step when `inherited_only`."""
        pool: list[sympy.Expr] = []
        for known in self.known:
            if inherited_only and not known.inherited:
                continue
            try:
                diff = evaluate(known.lhs, self.env, self.symbols) - evaluate(known.rhs, self.env, self.symbols)
            except ExpressionError:
                continue
            if diff.free_symbols:
                pool.append(diff)
        reach = set(targets)
        chosen: list[sympy.Expr] = []
        changed = True
        while changed:
            changed = False
            for eq in pool:
                if eq not in chosen and eq.free_symbols & reach:
                    chosen.append(eq)
                    reach |= eq.free_symbols
                    changed = True
        filters = []
        for known in self.filters:
            try:
                filters.append((evaluate(known.lhs, self.env, self.symbols), known.op,
                                evaluate(known.rhs, self.env, self.symbols)))
            except ExpressionError:
                continue
        return chosen, filters


def _symbols(lines: Sequence[Line]) -> dict[str, sympy.Symbol]:
    """One real Symbol per assumed name, carrying the assumed properties (SymPy then filters solutions)."""
    props: dict[str, dict[str, bool]] = {}
    for line in lines:
        if line.kind != "assume":
            continue
        if line.name is not None and line.lhs is None:
            for prop in line.properties:
                if prop == "natural":
                    props.setdefault(line.name, {}).update(integer=True, nonnegative=True)
                else:
                    props.setdefault(line.name, {})[prop] = True
        elif isinstance(line.lhs, Name) and isinstance(line.rhs, Num) and line.rhs.value == 0 and line.op in _ASSUMPTION_OF:
            props.setdefault(line.lhs.name, {})[_ASSUMPTION_OF[line.op]] = True
        elif isinstance(line.rhs, Name) and isinstance(line.lhs, Num) and line.lhs.value == 0 and line.op in _ASSUMPTION_OF:
            props.setdefault(line.rhs.name, {})[_ASSUMPTION_OF[_FLIP[line.op]]] = True
    out = {}
    for name, kw in props.items():
        try:
            out[name] = sympy.Symbol(name, real=True, **kw)
        except Exception:  # noqa: BLE001 - inconsistent assumptions (positive and negative): keep it plain
            out[name] = sympy.Symbol(name, real=True)
    return out


def _always(lhs: sympy.Expr, op: str, rhs: sympy.Expr) -> bool | None:
    """True for an identity, False for a relation that never holds, None otherwise."""
    if op in ("=", "~=", "!="):
        gap = _reduce(lhs - rhs)
        if gap == 0:
            return op != "!="
        if gap.is_number:
            return op == "!="
        return None
    try:
        relation = {"<": sympy.Lt, ">": sympy.Gt, "<=": sympy.Le, ">=": sympy.Ge}[op](lhs - rhs, 0)
        simplified = sympy.simplify(relation)
    except TypeError:  # SymPy cannot order the sides (a NaN or complex value under substitution): undecided
        return None
    if simplified is sympy.true:
        return True
    if simplified is sympy.false:
        return False
    return None


def _reduce(expr: sympy.Expr) -> sympy.Expr:
    """Cheap normal forms first (expand, cancel), `simplify` only when they leave symbols."""
    gap = sympy.expand(expr)
    if gap == 0 or gap.is_number:
        return gap
    gap = sympy.cancel(gap)
    if gap == 0 or gap.is_number:
        return gap
    return sympy.simplify(gap)


def _admissible(solution: Mapping[sympy.Symbol, sympy.Expr], filters: Sequence[tuple[sympy.Expr, str, sympy.Expr]]) -> bool:
    for value in solution.values():
        if value.is_real is False:
            return False
    for lhs, op, rhs in filters:
        holds = _holds_under(lhs, op, rhs, solution, None)
        if holds is False:
            return False
    return True


def _holds_under(lhs: sympy.Expr, op: str, rhs: sympy.Expr, solution: Mapping[sympy.Symbol, sympy.Expr],
                 tol: sympy.Rational | None) -> bool | None:
    left, right = lhs.subs(solution), rhs.subs(solution)
    if left.free_symbols or right.free_symbols:
        return _always(left, op, right)
    if left.has(sympy.zoo, sympy.nan) or right.has(sympy.zoo, sympy.nan):
        return False
    return _compare(sympy.simplify(left), op, sympy.simplify(right), tol)[0]


def _show_solution(solution: Mapping[sympy.Symbol, sympy.Expr]) -> str:
    return ", ".join(f"{name} = {describe(value)}" for name, value in sorted(solution.items(), key=lambda kv: str(kv[0])))


# ---- outcome ------------------------------------------------------------------------------------------------------
def _outcome(results: Sequence[_Result], where: str) -> CheckOutcome:
    own = [r for r in results if r.line.kind in ("claim", "define") or r.status is not StepStatus.VERIFIED]
    details: dict[str, Any] = {"relations": [r.as_dict() for r in results], "checked_in": where}
    for status in (StepStatus.FAILED, StepStatus.ERROR, StepStatus.UNSUPPORTED):
        bad = [r for r in own if r.status is status]
        if bad:
            more = f" (and {len(bad) - 1} more)" if len(bad) > 1 else ""
            kind = bad[0].error_kind or (ErrorKind.UNDECIDED if status is StepStatus.UNSUPPORTED else None)
            return CheckOutcome(status=status, message=f"{bad[0].message}{more}", error_kind=kind, details=details)
    if not own:
        return CheckOutcome(status=StepStatus.UNSUPPORTED, error_kind=ErrorKind.UNTRANSLATABLE, details=details,
                            message="no checkable relation in the artifact: it has no claim or define line")
    if all(r.how == "definition" for r in own):
        details["kind"] = "definition"
    return CheckOutcome(status=StepStatus.VERIFIED, details=details)


def _check_lines(lines: Sequence[Line], symbolic: bool, deadline: float,
                 proven: Collection[int] = frozenset()) -> CheckOutcome:
    try:
        results = _Engine(lines, symbolic, deadline, proven).run()
    except _Timeout:
        return _timeout_outcome(None)
    return _outcome(results, "worker" if symbolic else "process")


_CLOSED_BUDGET_S = 2.0  # closed arithmetic only: no solving, so a short budget after the solver ran out


def _closed_refutation(artifact: str, proven: tuple[int, ...]) -> dict[str, Any] | None:
    """When the solver ran out of time: the outcome of the artifact's closed arithmetic alone, if some of it is
    false (`8 - 64 + 16 = -40 + 16` is false whatever the solver would have said of the step's algebra); None
    otherwise, so that nothing is verified or left undecided on a partial check. Runs in the killable worker."""
    try:
        results = _Engine(parse_artifact(artifact), False, time.monotonic() + _CLOSED_BUDGET_S, proven,
                          closed_only=True).run()
    except _Timeout:
        return None
    if not any(r.status is StepStatus.FAILED for r in results):
        return None
    return _outcome(results, "worker").model_dump(mode="json")


def _timeout_outcome(timeout_s: float | None) -> CheckOutcome:
    within = f" within {timeout_s:g} s" if timeout_s is not None else " within the time limit"
    return CheckOutcome(status=StepStatus.ERROR, error_kind=ErrorKind.TIMEOUT,
                        message=f"the check did not finish{within} (timed out; not a verdict on the step)")


# ---- the worker ----------------------------------------------------------------------------------------------------
def _check_in_worker(artifact: str, timeout_s: float, proven: tuple[int, ...] = ()) -> dict[str, Any]:
    return _check_lines(parse_artifact(artifact), True, time.monotonic() + timeout_s, proven).model_dump(mode="json")


def _in_worker(artifact: str, limits: CheckLimits, proven: Collection[int] = frozenset()) -> CheckOutcome:
    done = call_killable(_check_in_worker, (artifact, limits.timeout_s, tuple(sorted(proven))), timeout_s=limits.timeout_s,
                         memory_mb=limits.memory_mb, preload="reasonforge.verify.math.relations", warm=warm_sympy)
    if isinstance(done, Returned):
        return CheckOutcome.model_validate(done.value)
    if done.why is Stop.TIMEOUT:
        closed = call_killable(_closed_refutation, (artifact, tuple(sorted(proven))), timeout_s=_CLOSED_BUDGET_S,
                               memory_mb=limits.memory_mb, preload="reasonforge.verify.math.relations", warm=warm_sympy)
        if isinstance(closed, Returned) and closed.value is not None:
            return CheckOutcome.model_validate(closed.value)
        return _timeout_outcome(limits.timeout_s)
    if done.why is Stop.MEMORY:
        return CheckOutcome(status=StepStatus.ERROR, error_kind=ErrorKind.MEMORY,
                            message=f"the check ran out of its {limits.memory_mb} MiB memory limit ({done.message})")
    if "nested" in done.message:
        return CheckOutcome(status=StepStatus.ERROR, error_kind=ErrorKind.TOO_LARGE,
                            message="the expressions are too deeply nested for SymPy")
    return CheckOutcome(status=StepStatus.ERROR, error_kind=ErrorKind.CRASH,
                        message=f"SymPy failed on this artifact: {done.message}")


# ---- the checker -----------------------------------------------------------------------------------------------------
@checkers.checker(ArtifactLanguage.SYMPY)
class ArithmeticChecker:
    """Checks `sympy` artifacts (see the module docstring); the same semantics at every proof level."""

    def __init__(self) -> None:
        self.spec = Spec(name="sympy-relations", version=CHECKER_VERSION, args={"sympy": sympy.__version__})

    def check(self, artifact: str, *, level: ProofLevel, limits: CheckLimits,
              context: StepContext | None = None, proven: Collection[int] = frozenset()) -> CheckOutcome:
        """Check every claim and define line; closed arithmetic in process, algebra in a killable worker.
        `proven`: numbers of claim lines proven elsewhere (rule 4 of the module docstring)."""
        try:
            lines = parse_artifact(artifact)
        except ArtifactSyntaxError as exc:
            return CheckOutcome(status=StepStatus.ERROR, message=exc.message, error_kind=ErrorKind.SYNTAX)
        try:
            return _check_lines(lines, False, time.monotonic() + limits.timeout_s, proven)
        except _NeedsSolver:
            return _in_worker(artifact, limits, proven)


def check_sympy(artifact: str, *, limits: CheckLimits | None = None,
                proven: Collection[int] = frozenset()) -> CheckOutcome:
    """Check a `sympy` artifact text (convenience wrapper around ArithmeticChecker)."""
    return ArithmeticChecker().check(artifact, level=ProofLevel.QUICK, limits=limits or CheckLimits(), proven=proven)



_PREMISE = "premise"  # an equation in unknowns nothing constrains that is no definition (`_not_a_definition`)


def _not_a_definition(lhs: sympy.Expr, rhs: sympy.Expr) -> str | None:
    """Why an equation in unknowns nothing constrains is no definition of them, or None when it is one: an
    algebraic equation in which some unknown stands once (`p + m = 27`, `x^2 + y^2 = z^2`), which it then
    introduces. An unknown written more than once (`(x + 3)^2 = x^2 + 9`, `(x + 3)^2 - x^2 = 9`, `2x + 3 =
    x + 10`) makes it an identity claimed for every value (false here) or an equation to solve (a premise), and
    which one is not written; an equation that is not algebraic in them (`e^(i*pi) = 1`) may speak of a
    constant a letter names."""
    unknowns = sorted(lhs.free_symbols | rhs.free_symbols, key=str)
    if not (lhs - rhs).is_algebraic_expr(*unknowns):
        return "it is not algebraic in its unknowns, whose letters may name constants"
    if any(lhs.count(u) + rhs.count(u) == 1 for u in unknowns):
        return None
    name = str(unknowns[0])
    return (f"{name} is written more than once, so it is an identity (false for some {name}) or an equation to "
            "solve, and which one is not written")


def _loose_approximation(line: Line, lhs: sympy.Expr, rhs: sympy.Expr, tol: sympy.Rational | None) -> str | None:
    """Why a false-looking ≈ is not refuted: the precision it rounds at is not written. Between two expressions
    (`49 × 51 ≈ 50 × 50`, `2^10 ≈ 10^3`) no digit says it; a whole number with trailing zeros (`≈ 333,000`,
    `≈ 8,800`) may be rounded to its last nonzero digit; a number in scientific notation (`≈ 3.5 × 10^9`) is
    rounded at its mantissa's last digit, scaled. A ≈ false at every such precision is still refuted."""
    loose = [t for t in (_significant_tolerance(line.lhs), _significant_tolerance(line.rhs)) if t is not None]
    if tol is None and not any(_scientific(side) for side in (line.lhs, line.rhs)):
        return "≈ between two expressions, whose precision no written digit states, is neither proven nor refuted"
    if loose and _compare(lhs, "~=", rhs, max(loose))[0]:
        return ("it holds when the round number is rounded at its last significant digit, and whether it is (or "
                "is exact to units) is not written: neither proven nor refuted")
    return None


def _scientific(node: Node | None) -> bool:
    """Whether a side is a number in scientific notation (`3.5*10^9`, `1.928*10^-7`)."""
    return isinstance(node, Binary) and node.op == "*" and isinstance(node.left, Num) \
        and isinstance(node.right, Binary) and node.right.op == "^" and isinstance(node.right.left, Num) \
        and node.right.left.value == 10 and isinstance(node.right.right, Num | Unary)


def _significant_tolerance(node: Node | None) -> sympy.Rational | None:
    """Half a unit of the last significant digit of a round whole number (`333000`: 500) or of a number in
    scientific notation (`3.5*10^9`: 0.05·10^9); None for any other side."""
    if isinstance(node, Unary):
        node = node.arg
    if isinstance(node, Num) and node.decimals == 0 and node.value != 0:
        digits = str(abs(int(node.value)))
        zeros = len(digits) - len(digits.rstrip("0"))
        return sympy.Rational(10 ** zeros, 2) if zeros else None
    if _scientific(node):
        assert isinstance(node, Binary) and isinstance(node.left, Num) and isinstance(node.right, Binary)
        exponent = node.right.right
        power = -exponent.arg.value if isinstance(exponent, Unary) and isinstance(exponent.arg, Num) else \
            exponent.value if isinstance(exponent, Num) else None
        if power is None or not power.is_integer or abs(power) > 400:
            return None
        return sympy.Rational(1, 2 * 10 ** node.left.decimals) * sympy.Integer(10) ** int(power)
    return None
