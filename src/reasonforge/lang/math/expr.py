"""The expression language of `sympy` artifacts: a tokenizer and Pratt parser into a small AST, a
canonical printer, and an evaluator into SymPy with size caps.

Untrusted text never reaches `sympify`/`parse_expr` (they `eval`): every SymPy object is built here,
node by node. Syntax (one expression; relations are split off by the caller):

    numbers   12   0.2   .5   (exact: a decimal is the Rational of its digits; no thousands commas)
    names     x  z2  x_1  alpha  (symbols, real-valued); `pi` is the constant π
    operators + - * / ^ (also **), // (floor division: a//b is floor(a/b)), postfix ! (factorial) and
              % (÷ 100), parentheses
    functions sqrt(x) root(x, n) abs floor ceil sin cos tan cot sec csc ln exp log(x, base) binomial(n, k)
              gcd(a, b) lcm(a, b)

`^` is right-associative and binds tighter than unary minus (-2^2 = -4). There is no implicit
multiplication: `2x` is a syntax error here (the natural-language extractor inserts the `*`).

Caps (why: a claim such as `10^10^10` must be refused, never evaluated): literals and results of at
most MAX_DIGITS digits, integer powers whose result would stay under MAX_DIGITS, exponents on symbolic
bases up to MAX_SYMBOLIC_EXPONENT, roots up to degree MAX_ROOT, factorials and binomials up to
MAX_FACTORIAL, expressions of at most MAX_TOKENS tokens, parentheses nested at most MAX_DEPTH deep and at
most MAX_TREE_DEPTH operations stacked (printing and evaluating recurse over the tree).

One module: parser, printer and evaluator share the AST and enforce the same caps, and every reader imports all three.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import sympy

from reasonforge.errors import ReasonForgeError

__all__ = [
    "MAX_DIGITS",
    "RELATION_OPS",
    "Ambiguous",
    "Binary",
    "Call",
    "ExpressionError",
    "ExpressionSyntaxError",
    "Name",
    "Node",
    "NotReal",
    "Num",
    "Postfix",
    "TooLarge",
    "Unary",
    "Undefined",
    "describe",
    "evaluate",
    "has_percent",
    "literals",
    "names_in",
    "parse_expression",
    "parse_number",
    "rounding_tolerance",
    "split_relation",
    "strip_percent",
    "to_sympy",
    "to_text",
]

MAX_DIGITS = 50_000
MAX_SYMBOLIC_EXPONENT = 1_000
MAX_ROOT = 1_000
MAX_FACTORIAL = 5_000
MAX_TOKENS = 20_000
MAX_DEPTH = 100  # parenthesis nesting (the parser recurses)
MAX_TREE_DEPTH = 300  # operations stacked on one another (printing and evaluation recurse)

# Relation operators in canonical form; the Unicode and doubled spellings map onto them.
RELATION_OPS = ("=", "<", ">", "<=", ">=", "!=", "~=")
_REL_ALIASES = {"==": "=", "≤": "<=", "≥": ">=", "≠": "!=", "≈": "~=", "⩽": "<=", "⩾": ">="}
_OP_ALIASES = {"**": "^", "−": "-", "×": "*", "·": "*", "÷": "/"}
_LOG10_2 = math.log10(2)


class ExpressionError(ReasonForgeError):
    """An expression cannot be used: carries the 1-based column where known."""

    code = "expression_error"

    def __init__(self, message: str, *, column: int | None = None) -> None:
        super().__init__(message)
        self.column = column


class ExpressionSyntaxError(ExpressionError):
    """The text is not an expression of the artifact language."""

    code = "expression_syntax_error"


class TooLarge(ExpressionError):
    """Evaluating would exceed a size cap; nothing was evaluated."""

    code = "expression_too_large"


class Ambiguous(ExpressionError):
    """The expression has two readings and nothing says which is meant (`cos(60)`: degrees or radians?)."""

    code = "expression_ambiguous"


class Undefined(ExpressionError):
    """The expression has no (real) value: division by zero, factorial of a negative number, ..."""

    code = "expression_undefined"


class NotReal(Undefined):
    """The expression's value is a number that is not real (`sqrt(-1)`): none in the reals, one in the complex
    numbers, which the reasoning may be working in."""

    code = "expression_not_real"


# ---- AST ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Num:
    """A literal exactly as written: `text` keeps trailing zeros, `decimals` counts fraction digits."""

    text: str
    decimals: int

    @property
    def value(self) -> sympy.Rational:
        """The exact value (a decimal is the Rational of its digits)."""
        return parse_number(self.text)


@dataclass(frozen=True)
class Name:
    """A symbol (or the constant `pi`)."""

    name: str


@dataclass(frozen=True)
class Unary:
    """Prefix `-` or `+`."""

    op: str
    arg: Node


@dataclass(frozen=True)
class Binary:
    """`+ - * / ^`."""

    op: str
    left: Node
    right: Node


@dataclass(frozen=True)
class Postfix:
    """`!` (factorial) or `%` (÷ 100)."""

    op: str
    arg: Node


@dataclass(frozen=True)
class Call:
    """A function from the fixed table (`sqrt`, `binomial`, ...)."""

    func: str
    args: tuple[Node, ...]


Node = Num | Name | Unary | Binary | Postfix | Call

_FUNCTIONS: dict[str, int] = {
    "sqrt": 1, "root": 2, "abs": 1, "floor": 1, "ceil": 1, "sin": 1, "cos": 1, "tan": 1,
    "cot": 1, "sec": 1, "csc": 1, "ln": 1, "exp": 1, "log": 2, "binomial": 2, "gcd": 2, "lcm": 2,
}
CONSTANTS = {"pi": sympy.pi}


def parse_number(text: str) -> sympy.Rational:
    """The exact Rational of a decimal literal, digit string by digit string (no float, no eval)."""
    whole, _, frac = text.partition(".")
    if len(whole) + len(frac) > MAX_DIGITS:
        raise TooLarge(f"a number with {len(whole) + len(frac):,} digits is over the cap of {MAX_DIGITS:,}")
    return sympy.Rational(_int_of(whole + frac), 10 ** len(frac))


def _int_of(digits: str) -> int:
    # int() refuses strings over 4,300 digits (CPython's DoS guard); build big ones chunk by chunk.
    digits = digits.lstrip("0") or "0"
    if len(digits) <= 4000:
        return int(digits)
    value = 0
    for i in range(0, len(digits), 4000):
        chunk = digits[i:i + 4000]
        value = value * 10 ** len(chunk) + int(chunk)
    return value


# ---- tokenizer and parser ---------------------------------------------------------------------------
_TOKEN = re.compile(
    r"(?P<ws>\s+)"
    r"|(?P<num>[0-9]+(?:\.[0-9]+)?|\.[0-9]+)"
    r"|(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
    r"|(?P<rel><=|>=|!=|~=|==|[=<>≤≥≠≈⩽⩾])"
    r"|(?P<op>\*\*|//|[-+*/^!%(),−×·÷])"
)


@dataclass(frozen=True)
class _Tok:
    kind: str
    text: str
    column: int


def _tokenize(text: str) -> list[_Tok]:
    tokens: list[_Tok] = []
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            raise ExpressionSyntaxError(f"unexpected character {text[pos]!r}", column=pos + 1)
        kind = m.lastgroup or ""
        if kind != "ws":
            value = m.group()
            if kind == "rel":
                value = _REL_ALIASES.get(value, value)
            elif kind == "op":
                value = _OP_ALIASES.get(value, value)
            tokens.append(_Tok(kind, value, pos + 1))
            if len(tokens) > MAX_TOKENS:
                raise TooLarge(f"the expression has more than {MAX_TOKENS:,} tokens")
        pos = m.end()
    return tokens


_INFIX = {"+": (10, False), "-": (10, False), "*": (20, False), "/": (20, False), "//": (20, False), "^": (30, True)}
_PREFIX_BP = 25
_POSTFIX_BP = 40


class _Parser:
    def __init__(self, text: str, tokens: list[_Tok]) -> None:
        self.text = text
        self.tokens = tokens
        self.pos = 0
        self.depth = 0
        self.heights: dict[int, int] = {}  # id(node) -> height of its subtree

    def built(self, node: Node, *children: Node) -> Node:
        height = 1 + max((self.heights.get(id(c), 1) for c in children), default=0)
        if height > MAX_TREE_DEPTH:
            raise TooLarge(f"the expression stacks more than {MAX_TREE_DEPTH} operations")
        self.heights[id(node)] = height
        return node

    def peek(self) -> _Tok | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self) -> _Tok:
        tok = self.peek()
        if tok is None:
            raise ExpressionSyntaxError("the expression ends too early", column=len(self.text) + 1)
        self.pos += 1
        return tok

    def expect(self, text: str) -> None:
        tok = self.peek()
        if tok is None or tok.text != text:
            where = tok.column if tok else len(self.text) + 1
            found = repr(tok.text) if tok else "the end"
            raise ExpressionSyntaxError(f"expected {text!r}, found {found}", column=where)
        self.pos += 1

    def expression(self, min_bp: int = 0) -> Node:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise ExpressionSyntaxError(f"the expression is nested more than {MAX_DEPTH} levels deep")
        left = self.prefix()
        while (tok := self.peek()) is not None:
            if tok.kind == "op" and tok.text in ("!", "%"):
                if _POSTFIX_BP <= min_bp:
                    break
                self.pos += 1
                left = self.built(Postfix(tok.text, left), left)
                continue
            if tok.kind != "op" or tok.text not in _INFIX:
                break
            bp, right_assoc = _INFIX[tok.text]
            if bp <= min_bp:
                break
            self.pos += 1
            right = self.expression(bp - 1 if right_assoc else bp)
            if tok.text == "//":  # floor division, as calculators and Python write it: floor(a/b)
                quotient = self.built(Binary("/", left, right), left, right)
                left = self.built(Call("floor", (quotient,)), quotient)
            else:
                left = self.built(Binary(tok.text, left, right), left, right)
        self.depth -= 1
        return left

    def prefix(self) -> Node:
        tok = self.take()
        if tok.kind == "num":
            frac = tok.text.partition(".")[2]
            text = "0" + tok.text if tok.text.startswith(".") else tok.text
            if len(tok.text) > MAX_DIGITS:
                raise TooLarge(f"a number with {len(tok.text):,} digits is over the cap of {MAX_DIGITS:,}")
            return Num(text, len(frac))
        if tok.kind == "name":
            nxt = self.peek()
            if nxt is not None and nxt.text == "(":
                return self.call(tok)
            if tok.text in _FUNCTIONS:
                raise ExpressionSyntaxError(f"function {tok.text} needs its arguments in parentheses", column=tok.column)
            return Name(tok.text)
        if tok.kind == "op" and tok.text in ("-", "+"):
            arg = self.expression(_PREFIX_BP)
            return self.built(Unary(tok.text, arg), arg)
        if tok.kind == "op" and tok.text == "(":
            inner = self.expression()
            self.expect(")")
            return inner
        raise ExpressionSyntaxError(f"unexpected {tok.text!r}", column=tok.column)

    def call(self, tok: _Tok) -> Node:
        arity = _FUNCTIONS.get(tok.text)
        if arity is None:
            raise ExpressionSyntaxError(
                f"unknown function {tok.text!r} (write {tok.text}*(...) for a product)", column=tok.column
            )
        self.expect("(")
        args = [self.expression()]
        while (nxt := self.peek()) is not None and nxt.text == ",":
            self.pos += 1
            args.append(self.expression())
        self.expect(")")
        if len(args) != arity:
            raise ExpressionSyntaxError(f"{tok.text} takes {arity} argument(s), got {len(args)}", column=tok.column)
        return self.built(Call(tok.text, tuple(args)), *args)


def parse_expression(text: str) -> Node:
    """Parse one expression (no relation operator) into an AST; raises ExpressionSyntaxError/TooLarge."""
    tokens = _tokenize(text)
    if not tokens:
        raise ExpressionSyntaxError("empty expression", column=1)
    for tok in tokens:
        if tok.kind == "rel":
            raise ExpressionSyntaxError(f"unexpected relation {tok.text!r} inside an expression", column=tok.column)
    parser = _Parser(text, tokens)
    node = parser.expression()
    if parser.pos < len(tokens):
        tok = tokens[parser.pos]
        raise ExpressionSyntaxError(f"unexpected {tok.text!r} after a complete expression", column=tok.column)
    return node


def split_relation(text: str) -> tuple[Node, str, Node]:
    """Parse `lhs OP rhs` with exactly one relation operator (see RELATION_OPS)."""
    tokens = _tokenize(text)
    rels = [t for t in tokens if t.kind == "rel"]
    if len(rels) != 1:
        what = "no relation operator" if not rels else f"{len(rels)} relation operators"
        raise ExpressionSyntaxError(f"expected one relation (=, <, >, <=, >=, !=, ~=), found {what}", column=1)
    rel = rels[0]
    start = rel.column - 1
    end = start + len(text[start:]) - len(text[start:].lstrip("=<>!~≤≥≠≈⩽⩾"))
    lhs_text, rhs_text = text[:start], text[end:]
    try:
        lhs = parse_expression(lhs_text)
    except ExpressionSyntaxError as exc:
        raise ExpressionSyntaxError(f"left side: {exc.message}", column=exc.column) from None
    try:
        rhs = parse_expression(rhs_text)
    except ExpressionSyntaxError as exc:
        column = None if exc.column is None else exc.column + end
        raise ExpressionSyntaxError(f"right side: {exc.message}", column=column) from None
    return lhs, rel.text, rhs


# ---- printing -------------------------------------------------------------------------------------------
def _prec(node: Node) -> int:
    if isinstance(node, Binary):
        return _INFIX[node.op][0]
    if isinstance(node, Unary):
        return _PREFIX_BP
    if isinstance(node, Postfix):
        return _POSTFIX_BP
    return 100


def to_text(node: Node) -> str:
    """Canonical text of an AST (parses back to the same tree)."""
    if isinstance(node, Num):
        return node.text
    if isinstance(node, Name):
        return node.name
    if isinstance(node, Call):
        return f"{node.func}({', '.join(to_text(a) for a in node.args)})"
    if isinstance(node, Unary):
        inner = to_text(node.arg)
        return f"{node.op}({inner})" if _prec(node.arg) <= _PREFIX_BP else f"{node.op}{inner}"
    if isinstance(node, Postfix):
        inner = to_text(node.arg)
        return f"({inner}){node.op}" if _prec(node.arg) < 100 else f"{inner}{node.op}"
    bp, right_assoc = _INFIX[node.op]
    left, right = to_text(node.left), to_text(node.right)
    if _prec(node.left) < bp or (right_assoc and _prec(node.left) <= bp):
        left = f"({left})"
    if _prec(node.right) < bp or (not right_assoc and _prec(node.right) <= bp):
        right = f"({right})"
    sep = " " if node.op in "+-" else ""
    return f"{left}{sep}{node.op}{sep}{right}"


def literals(node: Node) -> list[Num]:
    """The number literals of `node`, in reading order."""
    if isinstance(node, Num):
        return [node]
    if isinstance(node, Unary | Postfix):
        return literals(node.arg)
    if isinstance(node, Binary):
        return literals(node.left) + literals(node.right)
    if isinstance(node, Call):
        return [n for arg in node.args for n in literals(arg)]
    return []


def names_in(node: Node) -> frozenset[str]:
    """Every symbol name used (constants excluded)."""
    if isinstance(node, Name):
        return frozenset() if node.name in CONSTANTS else frozenset({node.name})
    if isinstance(node, Num):
        return frozenset()
    if isinstance(node, (Unary, Postfix)):
        return names_in(node.arg)
    if isinstance(node, Binary):
        return names_in(node.left) | names_in(node.right)
    return frozenset().union(*(names_in(a) for a in node.args))


def has_percent(node: Node) -> bool:
    """Does the expression write a `%` anywhere?"""
    if isinstance(node, Postfix):
        return node.op == "%" or has_percent(node.arg)
    if isinstance(node, Unary):
        return has_percent(node.arg)
    if isinstance(node, Binary):
        return has_percent(node.left) or has_percent(node.right)
    if isinstance(node, Call):
        return any(has_percent(a) for a in node.args)
    return False


def strip_percent(node: Node) -> Node:
    """The expression with every `%` dropped (`10%` → `10`)."""
    if isinstance(node, Postfix):
        inner = strip_percent(node.arg)
        return inner if node.op == "%" else Postfix(node.op, inner)
    if isinstance(node, Unary):
        return Unary(node.op, strip_percent(node.arg))
    if isinstance(node, Binary):
        return Binary(node.op, strip_percent(node.left), strip_percent(node.right))
    if isinstance(node, Call):
        return Call(node.func, tuple(strip_percent(a) for a in node.args))
    return node


# relative: a decimal written to 13 or more significant digits is a machine's printout, whose last digits carry
# the noise of the floating-point arithmetic that made it (a double's unit in the last place is 2^-52 relative,
# and a few operations multiply it)
MACHINE_NOISE = sympy.Rational(1, 2**40)


def rounding_tolerance(node: Node, *, integers: bool = False) -> sympy.Rational | None:
    """Half a unit of the last written digit when `node` is a (signed, optionally %) decimal literal; with
    `integers`, of a whole-number literal too (½: `≈ 3` is rounding to units). Never less than `MACHINE_NOISE` of
    the value: a value printed from a float to 17 digits (`≈ 0.04879016416943231`) is the true value computed in
    floating point, not rounded at its last digit."""
    scale = sympy.Integer(1)
    while True:
        if isinstance(node, Unary):
            node = node.arg
        elif isinstance(node, Postfix) and node.op == "%":
            scale /= 100
            node = node.arg
        else:
            break
    if isinstance(node, Num) and (node.decimals > 0 or integers):
        half = sympy.Rational(1, 2 * 10 ** node.decimals)
        # a whole number is written exactly, never a float's printout: its rounding is to units
        return scale * (max(half, abs(node.value) * MACHINE_NOISE) if node.decimals > 0 else half)
    return None


# ---- evaluation -------------------------------------------------------------------------------------------
def _digits_of_int(n: int) -> int:
    return int(abs(n).bit_length() * _LOG10_2) + 1


def _log10_size(value: sympy.Expr) -> float:
    """log10 of the largest numerator or denominator among a number's rational atoms (at least log10 2):
    a size estimate for its integer powers."""
    atoms = [value] if value.is_Rational else list(value.atoms(sympy.Rational))
    sizes = [math.log10(abs(int(n))) for a in atoms for n in (a.p, a.q) if n != 0]
    return max([_LOG10_2, *sizes])


def _check_size(value: sympy.Expr, node: Node) -> sympy.Expr:
    if value is sympy.nan or value.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo):
        raise Undefined(f"{to_text(node)} is undefined")
    if value.is_Rational:
        digits = _digits_of_int(int(value.p)) + _digits_of_int(int(value.q)) - 1
        if digits > MAX_DIGITS:
            raise TooLarge(f"{to_text(node)} has about {digits:,} digits, over the cap of {MAX_DIGITS:,}")
    return value


def _power(base: sympy.Expr, exp: sympy.Expr, node: Node) -> sympy.Expr:
    if base.is_zero and exp.is_negative:
        raise Undefined(f"division by zero in {to_text(node)} (0 to a negative power)")
    if exp.is_Rational and not (base.is_Rational and abs(base) in (0, 1) and exp.q == 1):
        if exp.q > MAX_ROOT:
            raise TooLarge(f"{to_text(node)}: a root of degree {exp.q} is over the cap of {MAX_ROOT:,}")
        if base.free_symbols:
            if abs(exp.p) > MAX_SYMBOLIC_EXPONENT:
                raise TooLarge(f"{to_text(node)}: exponent {_short(exp.p)} on a symbolic base is over the cap "
                               f"of {MAX_SYMBOLIC_EXPONENT:,}")
        elif abs(exp.p) > int(MAX_DIGITS / _log10_size(base)):
            raise TooLarge(f"{to_text(node)} would have more than {MAX_DIGITS:,} digits (exponent "
                           f"{_short(int(exp.p))}); not evaluated")
    return sympy.Pow(base, exp)


def _factorial(n: sympy.Expr, node: Node) -> sympy.Expr:
    if n.free_symbols:
        return sympy.factorial(n)
    if not n.is_Integer or n < 0:
        raise Undefined(f"{to_text(node)}: factorial needs a nonnegative integer, not {describe(n)}")
    if n > MAX_FACTORIAL:
        raise TooLarge(f"{to_text(node)}: factorial of {_short(int(n))} is over the cap of {MAX_FACTORIAL:,}")
    return sympy.factorial(n)


def _binomial(n: sympy.Expr, k: sympy.Expr, node: Node) -> sympy.Expr:
    if not n.free_symbols and n.is_Integer and n > MAX_FACTORIAL * 2:
        raise TooLarge(f"{to_text(node)}: binomial of {_short(int(n))} is over the cap of {MAX_FACTORIAL * 2:,}")
    return sympy.binomial(n, k)


def _divide(num: sympy.Expr, den: sympy.Expr, node: Node) -> sympy.Expr:
    if den.is_zero:
        raise Undefined(f"division by zero in {to_text(node)}")
    return num / den


def _root(x: sympy.Expr, n: sympy.Expr, node: Node) -> sympy.Expr:
    if n.free_symbols:  # `\sqrt[k]{n}` for a letter k: a root of any degree k may stand for; no value to refute
        raise Ambiguous(f"{to_text(node)}: a root of symbolic degree is not evaluated")
    if not (n.is_Integer and n > 1):
        raise Undefined(f"{to_text(node)}: the root degree must be an integer of at least 2")
    if n > MAX_ROOT:
        raise TooLarge(f"{to_text(node)}: a root of degree {_short(int(n))} is over the cap of {MAX_ROOT:,}")
    if int(n) % 2 == 1 and x.is_number and x.is_real and x.is_negative:
        # `\\sqrt[3]{-27}` is the real cube root, -3, as written in real analysis (not the principal complex one)
        return -_power(-x, sympy.Rational(1, int(n)), node)
    return _power(x, sympy.Rational(1, int(n)), node)


def _angle(x: sympy.Expr, node: Node) -> sympy.Expr:
    # cos(60) is 1/2 to whoever wrote it in degrees and -0.95 in radians: an angle that is a plain nonzero
    # number (no π, no degree sign turned into π/180) is not evaluated
    if x.is_Rational and x != 0:
        raise Ambiguous(f"{to_text(node)}: is {describe(x)} in degrees or radians? write pi (or °) to say")
    return x


_CALLS: dict[str, Callable[..., sympy.Expr]] = {
    "sqrt": lambda x, node: _power(x, sympy.Rational(1, 2), node),
    "root": _root,
    "abs": lambda x, node: sympy.Abs(x),
    "floor": lambda x, node: sympy.floor(x),
    "ceil": lambda x, node: sympy.ceiling(x),
    "sin": lambda x, node: sympy.sin(_angle(x, node)),
    "cos": lambda x, node: sympy.cos(_angle(x, node)),
    "tan": lambda x, node: sympy.tan(_angle(x, node)),
    "cot": lambda x, node: sympy.cot(_angle(x, node)),
    "sec": lambda x, node: sympy.sec(_angle(x, node)),
    "csc": lambda x, node: sympy.csc(_angle(x, node)),
    "ln": lambda x, node: sympy.log(x),
    "exp": lambda x, node: sympy.exp(x),
    "log": lambda x, b, node: sympy.log(x, b),
    "binomial": _binomial,
    "gcd": lambda a, b, node: sympy.gcd(a, b),
    "lcm": lambda a, b, node: sympy.lcm(a, b),
}


def evaluate(
    node: Node,
    env: Mapping[str, sympy.Expr] | None = None,
    symbols: Mapping[str, sympy.Symbol] | None = None,
    complex_ok: bool = False,
) -> sympy.Expr:
    """The SymPy value of `node`, names replaced from `env` (else from `symbols`, else a real Symbol).

    Raises TooLarge before any operation that would break a cap, Undefined for expressions with no real
    value (division by zero, ln 0, sqrt of a negative number, ...); with `complex_ok`, a value that is a complex
    number is returned instead of raising NotReal."""
    env = env or {}
    symbols = symbols or {}

    def walk(n: Node) -> sympy.Expr:
        if isinstance(n, Num):
            return n.value
        if isinstance(n, Name):
            if n.name in env:
                return env[n.name]
            if n.name in CONSTANTS:
                return CONSTANTS[n.name]
            return symbols.get(n.name) or sympy.Symbol(n.name, real=True)
        if isinstance(n, Unary):
            value = walk(n.arg)
            return -value if n.op == "-" else value
        if isinstance(n, Postfix):
            value = walk(n.arg)
            return _check_size(_factorial(value, n) if n.op == "!" else value / 100, n)
        if isinstance(n, Call):
            args = [walk(a) for a in n.args]
            return _check_size(_CALLS[n.func](*args, n), n)
        left, right = walk(n.left), walk(n.right)
        if n.op == "+":
            value = left + right
        elif n.op == "-":
            value = left - right
        elif n.op == "*":
            value = left * right
        elif n.op == "/":
            value = _divide(left, right, n)
        else:
            value = _power(left, right, n)
        return _check_size(value, n)

    value = walk(node)
    if not complex_ok and value.is_number and value.is_real is False:
        raise NotReal(f"{to_text(node)} is not a real number ({describe(value)})")
    return value


def to_sympy(node: Node) -> sympy.Expr:
    """An unevaluated SymPy tree with the structure as written (`48/2` stays 48/2); builds, never computes."""
    if isinstance(node, Num):
        return node.value
    if isinstance(node, Name):
        return CONSTANTS.get(node.name) or sympy.Symbol(node.name, real=True)
    if isinstance(node, Unary):
        inner = to_sympy(node.arg)
        return sympy.Mul(sympy.S.NegativeOne, inner, evaluate=False) if node.op == "-" else inner
    if isinstance(node, Postfix):
        inner = to_sympy(node.arg)
        if node.op == "!":
            return sympy.factorial(inner, evaluate=False)
        return sympy.Mul(inner, sympy.Pow(sympy.Integer(100), -1, evaluate=False), evaluate=False)
    if isinstance(node, Call):
        args = [to_sympy(a) for a in node.args]
        builders: dict[str, Callable[..., sympy.Expr]] = {
            "sqrt": lambda x: sympy.Pow(x, sympy.S.Half, evaluate=False),
            "root": lambda x, n: sympy.Pow(x, sympy.Pow(n, -1, evaluate=False), evaluate=False),
            "abs": lambda x: sympy.Abs(x, evaluate=False), "floor": lambda x: sympy.floor(x, evaluate=False),
            "ceil": lambda x: sympy.ceiling(x, evaluate=False), "sin": lambda x: sympy.sin(x, evaluate=False),
            "cos": lambda x: sympy.cos(x, evaluate=False), "tan": lambda x: sympy.tan(x, evaluate=False),
            "cot": lambda x: sympy.cot(x, evaluate=False), "sec": lambda x: sympy.sec(x, evaluate=False),
            "csc": lambda x: sympy.csc(x, evaluate=False),
            "ln": lambda x: sympy.log(x, evaluate=False), "exp": lambda x: sympy.exp(x, evaluate=False),
            "log": lambda x, b: sympy.Mul(sympy.log(x, evaluate=False),
                                          sympy.Pow(sympy.log(b, evaluate=False), -1, evaluate=False),
                                          evaluate=False),
            "binomial": lambda n, k: sympy.binomial(n, k, evaluate=False),
            "gcd": lambda a, b: sympy.Function("gcd")(a, b), "lcm": lambda a, b: sympy.Function("lcm")(a, b),
        }
        return builders[node.func](*args)
    left, right = to_sympy(node.left), to_sympy(node.right)
    if node.op == "+":
        return sympy.Add(left, right, evaluate=False)
    if node.op == "-":
        return sympy.Add(left, sympy.Mul(sympy.S.NegativeOne, right, evaluate=False), evaluate=False)
    if node.op == "*":
        return sympy.Mul(left, right, evaluate=False)
    if node.op == "/":
        return sympy.Mul(left, sympy.Pow(right, -1, evaluate=False), evaluate=False)
    return sympy.Pow(left, right, evaluate=False)


def _short(n: int) -> str:
    """An integer for a message: in full when short, else its leading digits and digit count."""
    m = abs(n)
    digits = _digits_of_int(m)  # may overestimate by one
    if digits <= 30:
        return str(n)
    power = 10 ** (digits - 1)
    if m < power:
        digits -= 1
        power //= 10
    lead = m // (power // 10 ** 5)
    return f"{'-' if n < 0 else ''}{lead}… ({digits:,} digits)"


def describe(value: sympy.Expr) -> str:
    """A value for a message: exact when short (`24`, `10/3 ≈ 3.3333`), abbreviated when huge."""
    if value.is_Integer:
        return _short(int(value))
    if value.is_Rational:
        if _digits_of_int(int(value.p)) + _digits_of_int(int(value.q)) > 40:
            return f"≈ {sympy.Float(value, 12)}"
        return f"{value.p}/{value.q} ≈ {_decimal(value)}"
    if value.is_number:
        try:
            return f"{sympy.sstr(value)} ≈ {_decimal(value)}" if len(sympy.sstr(value)) < 60 else f"≈ {_decimal(value)}"
        except (TypeError, ValueError):
            return sympy.sstr(value)
    text = sympy.sstr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _decimal(value: sympy.Expr) -> str:
    approx = sympy.N(value, 10)
    text = sympy.sstr(approx, full_prec=False)
    return text.rstrip("0").rstrip(".") if "." in text and "e" not in text else text
