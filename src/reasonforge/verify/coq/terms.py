"""Read statements as Coq prints them under `Set Printing All` into small SymPy-backed propositions.

The checker never reads the artifact's own surface syntax for meaning: it asks Coq for the elaborated
statement (`Check`), where notations, scopes, implicit arguments and coercions are all spelled out and
every name is printed qualified enough to be unique (`BinInt.Z.add`, `Context.x`, `Step2.k`). That is
what the kernel proved, so it is what gets compared with the step's text.

Only a small fragment is understood: numbers of Z, nat, Q and R, `+ - * / ^`, opposite, floor division
and modulo, equalities, orders, divisibility, parity, `and`, `or`, `not`, `exists`, `forall` and
implications. Anything else raises `Unsupported`, and the caller decides what an unread statement means.
Truncating operations keep their meaning (nat subtraction is `Max(a - b, 0)`, Z division is `floor`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import sympy

__all__ = [
    "Atom",
    "Statement",
    "Term",
    "Unsupported",
    "atoms_equivalent",
    "parse_term",
    "statement_of",
    "to_atoms",
]

_MAX_NAT = 5000  # a unary nat literal deeper than this is refused (printing it is already absurd)
_WORKSPACE = re.compile(r"^(?:RF\.)?(?:Context|Step\d+)\.")


class Unsupported(ValueError):
    """The term is outside the fragment this module reads."""


# ------------------------------------------------------------------------------------------- syntax
@dataclass(frozen=True)
class Term:
    """`kind` is var | app | forall | fun | sort; `name` the head/binder; `args` sub-terms."""

    kind: str
    name: str = ""
    args: tuple[Term, ...] = ()

    def __str__(self) -> str:
        if self.kind in ("var", "sort"):
            return self.name
        if self.kind == "app":
            return "(" + " ".join([self.name, *map(str, self.args)]) + ")"
        return f"({self.kind} {self.name} : {self.args[0]}, {self.args[1]})"


_TOKEN = re.compile(r"\s*(=>|->|[(),:@]|[A-Za-z_][\w'.]*(?:@\{[^}]*\})?|\d+|\S)")


def _tokens(text: str) -> list[str]:
    out, pos = [], 0
    text = text.strip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            break
        out.append(m.group(1))
        pos = m.end()
    return out


class _Parser:
    def __init__(self, text: str) -> None:
        self.toks = _tokens(text)
        self.i = 0

    def peek(self) -> str | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self, expected: str | None = None) -> str:
        tok = self.peek()
        if tok is None or (expected is not None and tok != expected):
            raise Unsupported(f"expected {expected or 'more'} in the printed term, found {tok!r}")
        self.i += 1
        return tok

    def term(self) -> Term:
        tok = self.peek()
        if tok in ("forall", "fun"):
            self.take()
            binders = self.binders("," if tok == "forall" else "=>")
            body = self.term()
            for name, typ in reversed(binders):
                body = Term(tok, name, (typ, body))
            return body
        if tok in ("let", "match", "if", "fix", "cofix"):
            raise Unsupported(f"`{tok}` in a statement is not read")
        left = self.application()
        if self.peek() == "->":
            self.take()
            return Term("forall", "_", (left, self.term()))
        return left

    def binders(self, stop: str) -> list[tuple[str, Term]]:
        out: list[tuple[str, Term]] = []
        if self.peek() != "(":
            names = self.names()
            self.take(":")
            typ = self.term_until(stop)
            return [(n, typ) for n in names]
        while self.peek() == "(":
            self.take("(")
            names = self.names()
            self.take(":")
            typ = self.term()
            self.take(")")
            out += [(n, typ) for n in names]
        self.take(stop)
        return out

    def term_until(self, stop: str) -> Term:
        typ = self.term()
        self.take(stop)
        return typ

    def names(self) -> list[str]:
        names = []
        while self.peek() not in (":", None):
            names.append(self.take())
        if not names:
            raise Unsupported("a binder without a name")
        return names

    def application(self) -> Term:
        head = self.atom()
        args = []
        while self.peek() not in (None, ")", ",", ":", "=>", "->"):
            args.append(self.atom())
        if not args:
            return head
        if head.kind != "var":
            raise Unsupported(f"applied non-constant {head}")
        return Term("app", head.name, tuple(args))

    def atom(self) -> Term:
        tok = self.take()
        if tok == "(":
            inner = self.term()
            self.take(")")
            return inner
        if tok == "@":
            return Term("var", self.take())
        if tok in ("Prop", "Set", "SProp") or tok.startswith("Type"):
            return Term("sort", tok)
        if re.match(r"[A-Za-z_]", tok):
            return Term("var", tok)
        raise Unsupported(f"unexpected token {tok!r} in the printed term")


def parse_term(text: str) -> Term:
    """Parse one printed term (`Set Printing All` syntax); Unsupported when it is not one."""
    parser = _Parser(text)
    term = parser.term()
    if parser.peek() is not None:
        raise Unsupported(f"trailing text after the term: {' '.join(parser.toks[parser.i:parser.i + 5])}")
    return term


# ---------------------------------------------------------------------------------------- meaning
def _is(name: str, *keys: str) -> bool:
    """Does the printed (partially qualified) stdlib name denote one of `keys`?"""
    if _WORKSPACE.match(name):
        return False
    return any(name == k or name.endswith("." + k) for k in keys)


_NUMBER_TYPES = {("Z",): "Z", ("nat",): "nat", ("Q",): "Q", ("R",): "R", ("N",): "N", ("positive",): "positive"}


def number_type(t: Term) -> str | None:
    """`Z`, `nat`, `Q`, `R`, `N` or `positive` when `t` names that type."""
    if t.kind != "var":
        return None
    for (key,), label in _NUMBER_TYPES.items():
        if _is(t.name, key):
            return label
    return None


_BINARY = {
    ("Z.add", "Nat.add", "N.add", "Qplus", "Rplus", "Pos.add", "plus"): lambda a, b: a + b,
    ("Z.sub", "Qminus", "Rminus"): lambda a, b: a - b,
    ("Nat.sub", "N.sub", "minus"): lambda a, b: sympy.Max(a - b, 0),
    ("Z.mul", "Nat.mul", "N.mul", "Qmult", "Rmult", "Pos.mul", "mult"): lambda a, b: a * b,
    ("Z.pow", "Nat.pow", "N.pow", "pow", "Qpower", "Pos.pow"): lambda a, b: a ** b,
    ("Qdiv", "Rdiv"): lambda a, b: a / b,
    ("Z.div", "Nat.div", "N.div"): lambda a, b: sympy.floor(a / b),
    ("Z.modulo", "Nat.modulo", "N.modulo"): lambda a, b: sympy.Mod(a, b),
}
_UNARY = {
    ("Z.opp", "Qopp", "Ropp"): lambda a: -a,
    ("Qinv", "Rinv"): lambda a: 1 / a,
    ("Z.abs", "Rabs", "Qabs"): lambda a: sympy.Abs(a),
    ("Z.succ", "S", "Pos.succ", "N.succ"): lambda a: a + 1,
    ("Z.pred",): lambda a: a - 1,
    ("Rsqr", "Z.square", "Nat.square"): lambda a: a * a,
    # Embeddings between number types keep the value.
    ("IZR", "Q2R", "INR", "inject_Z", "Z.of_nat", "Z.of_N", "Zpos", "N.of_nat", "Npos", "IPR"): lambda a: a,
    ("Zneg",): lambda a: -a,
    ("xI",): lambda a: 2 * a + 1,
    ("xO",): lambda a: 2 * a,
}
_CONSTANTS = {("Z0", "O", "N0", "R0"): 0, ("xH", "R1"): 1}


def to_expr(t: Term, bound: frozenset[str]) -> sympy.Expr:
    """The value of a number-typed term; workspace constants and bound variables become symbols."""
    if t.kind == "var":
        if t.name in bound:
            return sympy.Symbol(t.name)
        if _WORKSPACE.match(t.name):
            return sympy.Symbol(t.name.rsplit(".", 1)[-1])
        for keys, value in _CONSTANTS.items():
            if _is(t.name, *keys):
                return sympy.Integer(value)
        raise Unsupported(f"the constant {t.name} is not read as a number")
    if t.kind != "app":
        raise Unsupported(f"{t.kind} is not a number")
    if _is(t.name, "S"):
        depth, inner = 0, t
        while inner.kind == "app" and _is(inner.name, "S") and len(inner.args) == 1:
            depth, inner = depth + 1, inner.args[0]
            if depth > _MAX_NAT:
                raise Unsupported("a unary natural number too large to read")
        return to_expr(inner, bound) + depth
    if _is(t.name, "Qmake") and len(t.args) == 2:
        return sympy.Rational(1, 1) * to_expr(t.args[0], bound) / to_expr(t.args[1], bound)
    args = t.args
    for keys, unary in _UNARY.items():
        if _is(t.name, *keys) and len(args) == 1:
            return unary(to_expr(args[0], bound))
    for keys, binary in _BINARY.items():
        if _is(t.name, *keys) and len(args) == 2:
            a, b = to_expr(args[0], bound), to_expr(args[1], bound)
            if b == 0 and keys[0] in ("Qdiv", "Z.div", "Z.modulo"):
                raise Unsupported("division by zero (Coq defines it as 0; not compared)")
            if keys[0] == "Z.pow" and b.is_number and b < 0:
                raise Unsupported("a negative Z power (Coq defines it as 0; not compared)")
            return binary(a, b)
    raise Unsupported(f"the function {t.name} is not read")


_SHOW_BINARY = {
    ("Z.add", "Nat.add", "N.add", "Qplus", "Rplus", "plus"): "+",
    ("Z.sub", "Nat.sub", "N.sub", "Qminus", "Rminus", "minus"): "-",
    ("Z.mul", "Nat.mul", "N.mul", "Qmult", "Rmult", "mult"): "*",
    ("Z.div", "Nat.div", "N.div", "Qdiv", "Rdiv"): "/",
    ("Z.pow", "Nat.pow", "N.pow", "pow", "Qpower"): "^",
    ("Z.modulo", "Nat.modulo", "N.modulo"): "mod",
}
_LITERAL_HEADS = ("Zpos", "Zneg", "xI", "xO", "S", "Qmake", "IZR", "Q2R", "INR", "inject_Z", "Z.of_nat")


def show(t: Term, bound: frozenset[str] = frozenset()) -> str:
    """Readable infix text of a number-typed term (`2 + 2`, `x ^ 2`), for messages."""
    if t.kind == "var":
        if t.name in bound or _WORKSPACE.match(t.name):
            return t.name.rsplit(".", 1)[-1]
        try:
            return sympy.sstr(to_expr(t, bound))
        except Unsupported:
            return t.name.rsplit(".", 1)[-1]
    if t.kind == "app":
        if _is(t.name, *_LITERAL_HEADS):
            try:
                value = to_expr(t, bound)
                if not value.free_symbols:
                    return sympy.sstr(value)
            except Unsupported:
                pass
        for keys, op in _SHOW_BINARY.items():
            if _is(t.name, *keys) and len(t.args) == 2:
                a, b = (show(x, bound) for x in t.args)
                wrap = [f"({x})" if (" " in x and not x.startswith("(")) else x for x in (a, b)]
                return f"{wrap[0]} {op} {wrap[1]}"
        if _is(t.name, "Z.opp", "Qopp", "Ropp") and len(t.args) == 1:
            return f"-{show(t.args[0], bound)}"
        if len(t.args) == 1 and _is(t.name, "IZR", "Q2R", "INR", "inject_Z", "Z.of_nat", "Zpos"):
            return show(t.args[0], bound)
        return t.name.rsplit(".", 1)[-1] + "(" + ", ".join(show(a, bound) for a in t.args) + ")"
    return str(t)


@dataclass(frozen=True)
class Atom:
    """A relation `expr op 0` with op in = != < <=, or an opaque proposition kept as its printed text."""

    op: str
    expr: sympy.Expr | None = None
    text: str = ""

    def __str__(self) -> str:
        return self.text or (_render(self) if self.expr is not None else "")


def _render(a: Atom) -> str:
    expr = a.expr
    if isinstance(expr, sympy.Mod) and a.op == "=":
        return f"{expr.args[1]} divides {expr.args[0]}" if expr.args[1] != 2 else f"{expr.args[0]} is even"
    if isinstance(expr, sympy.Add) and a.op == "=" and any(isinstance(x, sympy.Mod) for x in expr.args):
        mod = next(x for x in expr.args if isinstance(x, sympy.Mod))
        rest = expr - mod
        if mod.args[1] == 2 and rest == -1:
            return f"{mod.args[0]} is odd"
    lhs, rhs = _split(expr)
    return f"{sympy.sstr(lhs)} {a.op} {sympy.sstr(rhs)}"


def _split(expr: sympy.Expr) -> tuple[sympy.Expr, sympy.Expr]:
    pos = [t for t in sympy.Add.make_args(expr) if not t.could_extract_minus_sign()]
    neg = [-t for t in sympy.Add.make_args(expr) if t.could_extract_minus_sign()]
    return sympy.Add(*pos), sympy.Add(*neg)


def _relation(op: str, a: Term, b: Term, bound: frozenset[str]) -> Atom:
    x, y = to_expr(a, bound), to_expr(b, bound)
    text = f"{show(a, bound)} {op} {show(b, bound)}"
    if op == ">":
        return Atom("<", y - x, text)
    if op == ">=":
        return Atom("<=", y - x, text)
    return Atom(op, x - y, text)


def _parity(x: Term, odd: bool, bound: frozenset[str]) -> Atom:
    return Atom("=", sympy.Mod(to_expr(x, bound), 2) - (1 if odd else 0),
                f"{show(x, bound)} is {'odd' if odd else 'even'}")


_ORDERS = {
    ("Z.lt", "Peano.lt", "Nat.lt", "lt", "N.lt", "Qlt", "Rlt"): "<",
    ("Z.le", "Peano.le", "Nat.le", "le", "N.le", "Qle", "Rle"): "<=",
    ("Z.gt", "Peano.gt", "Nat.gt", "gt", "N.gt", "Rgt"): ">",
    ("Z.ge", "Peano.ge", "Nat.ge", "ge", "N.ge", "Rge"): ">=",
}


@dataclass
class Prop:
    """A proposition: `atom`, `and`, `or`, `not`, `exists`, `forall` (with `var` or a hypothesis), `true`/`false`."""

    kind: str
    atom: Atom | None = None
    parts: list[Prop] = field(default_factory=list)
    var: str = ""


def to_prop(t: Term, bound: frozenset[str] = frozenset()) -> Prop:
    """The proposition a printed statement denotes (Unsupported outside the fragment)."""
    if t.kind == "var":
        if _is(t.name, "True"):
            return Prop("true")
        if _is(t.name, "False"):
            return Prop("false")
        raise Unsupported(f"the proposition {t.name} is not read")
    if t.kind == "forall":
        typ, body = t.args
        kind = number_type(typ)
        if kind is not None and t.name != "_":
            return Prop("forall", var=t.name, parts=[to_prop(body, bound | {t.name})])
        hyp = to_prop(typ, bound)
        return Prop("implies", parts=[hyp, to_prop(body, bound | ({t.name} if t.name != "_" else set()))])
    if t.kind != "app":
        raise Unsupported(f"{t.kind} is not a proposition")
    name, args = t.name, t.args
    if _is(name, "eq") and len(args) == 3:
        if _is(args[0].name if args[0].kind == "var" else "", "bool"):
            return _bool_parity(args[1], args[2], bound)
        return Prop("atom", _relation("=", args[1], args[2], bound))
    if _is(name, "Qeq") and len(args) == 2:
        return Prop("atom", _relation("=", args[0], args[1], bound))
    for keys, op in _ORDERS.items():
        if _is(name, *keys) and len(args) == 2:
            return Prop("atom", _relation(op, args[0], args[1], bound))
    if _is(name, "Z.divide", "Nat.divide", "N.divide") and len(args) == 2:
        return Prop("atom", Atom("=", sympy.Mod(to_expr(args[1], bound), to_expr(args[0], bound)),
                                 f"{show(args[0], bound)} divides {show(args[1], bound)}"))
    if _is(name, "Z.Even", "Nat.Even", "Zeven", "N.Even") and len(args) == 1:
        return Prop("atom", _parity(args[0], False, bound))
    if _is(name, "Z.Odd", "Nat.Odd", "Zodd", "N.Odd") and len(args) == 1:
        return Prop("atom", _parity(args[0], True, bound))
    if _is(name, "not") and len(args) == 1:
        inner = to_prop(args[0], bound)
        if inner.kind == "atom" and inner.atom is not None and inner.atom.op == "=":
            return Prop("atom", Atom("!=", inner.atom.expr, inner.atom.text.replace(" = ", " <> ", 1)))
        return Prop("not", parts=[inner])
    if _is(name, "and", "or", "iff") and len(args) == 2:
        return Prop(name.rsplit(".", 1)[-1], parts=[to_prop(args[0], bound), to_prop(args[1], bound)])
    if _is(name, "ex") and len(args) == 2 and args[1].kind == "fun":
        lam = args[1]
        return Prop("exists", var=lam.name, parts=[to_prop(lam.args[1], bound | {lam.name})])
    raise Unsupported(f"the predicate {name} is not read")


def _bool_parity(a: Term, b: Term, bound: frozenset[str]) -> Prop:
    for test, value in ((a, b), (b, a)):
        if test.kind == "app" and len(test.args) == 1 and value.kind == "var" and _is(value.name, "true", "false"):
            truth = _is(value.name, "true")
            if _is(test.name, "Z.even", "Nat.even", "N.even", "Z.odd", "Nat.odd", "N.odd"):
                odd = _is(test.name, "Z.odd", "Nat.odd", "N.odd") == truth
                return Prop("atom", _parity(test.args[0], odd, bound))
    raise Unsupported("a boolean equation other than parity (`Z.even n = true`)")


@dataclass
class Statement:
    """A theorem's statement split into its universally bound variables, hypotheses and conclusion atoms."""

    variables: list[str]
    hypotheses: list[Atom]
    conclusions: list[Atom]
    opaque: list[str] = field(default_factory=list)


def to_atoms(p: Prop) -> tuple[list[Atom], list[str]]:
    """Flatten conjunctions and existentials into atoms; what cannot be an atom is listed as opaque text."""
    if p.kind == "atom" and p.atom is not None:
        return [p.atom], []
    if p.kind == "and":
        a1, o1 = to_atoms(p.parts[0])
        a2, o2 = to_atoms(p.parts[1])
        return a1 + a2, o1 + o2
    if p.kind == "exists":
        return to_atoms(p.parts[0])
    if p.kind == "true":
        return [], []
    return [], [p.kind]


def statement_of(printed: str) -> Statement:
    """Read a printed theorem type into variables, hypotheses and conclusions (Unsupported if not readable)."""
    p = to_prop(parse_term(printed))
    variables: list[str] = []
    hypotheses: list[Atom] = []
    while p.kind in ("forall", "implies"):
        if p.kind == "forall":
            variables.append(p.var)
            p = p.parts[0]
        else:
            hyp_atoms, opaque = to_atoms(p.parts[0])
            if opaque:
                raise Unsupported(f"a hypothesis of shape `{opaque[0]}` is not read")
            hypotheses += hyp_atoms
            p = p.parts[1]
    conclusions, opaque = to_atoms(p)
    return Statement(variables, hypotheses, conclusions, opaque)


# ------------------------------------------------------------------------------------- comparison
def _plain(expr: sympy.Expr) -> sympy.Expr:
    """Every symbol as a plain `Symbol(name)`: text-side and Coq-side symbols must compare by name."""
    return expr.xreplace({s: sympy.Symbol(s.name) for s in expr.free_symbols})


def truth(atom: Atom) -> bool | None:
    """True/False for a closed (or identically decided) relation, None when it depends on symbols."""
    if atom.expr is None:
        return None
    expr = sympy.simplify(_plain(atom.expr))
    if expr.free_symbols:
        return True if (atom.op == "=" and expr == 0) else None
    if not expr.is_number or expr.has(sympy.zoo, sympy.nan):
        return None
    return {"=": expr == 0, "!=": expr != 0, "<": bool(expr < 0), "<=": bool(expr <= 0)}[atom.op]


def atoms_equivalent(a: Atom, b: Atom) -> bool:
    """Same relation up to a constant factor (positive for orders): `2x = 6` ≡ `x = 3`, `a < b` ≡ `b > a`."""
    if a.expr is None or b.expr is None:
        return False
    if a.op != b.op:
        return False
    x, y = _plain(a.expr), _plain(b.expr)
    if sympy.simplify(x - y) == 0:
        return True
    if y == 0 or x == 0:
        return False
    ratio = sympy.simplify(x / y)
    if ratio.free_symbols or not ratio.is_number or ratio == 0:
        return False
    return bool(ratio > 0) if a.op in ("<", "<=") else True
