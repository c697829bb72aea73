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
# Where each name the reader knows lives in the standard library (from `Locate`, Coq 8.16). A printed name
# denotes `key` only when it is a trailing part of one of these full names: a same-named constant of another
# library (`Bool.le`, `Hurkens.Generic.le`, `Fin.R`, `ClassicalDedekindReals.Rle`) or of the workspace is not
# the one the reader means, so it stays unread.
_HOMES: dict[str, tuple[str, ...]] = {
    "Coq.Init.Logic": ("True", "False", "eq", "ex", "and", "or", "not", "iff"),
    "Coq.Init.Datatypes": ("nat", "S", "O", "bool", "true", "false"),
    "Coq.Init.Peano": ("lt", "le", "gt", "ge", "plus", "minus", "mult"),
    "Coq.Init": ("Peano.lt", "Peano.le", "Peano.gt", "Peano.ge", "Nat.add", "Nat.sub", "Nat.mul", "Nat.pow",
                 "Nat.div", "Nat.modulo", "Nat.even", "Nat.odd", "Nat.square"),
    "Coq.Arith.PeanoNat": ("Nat.add", "Nat.sub", "Nat.mul", "Nat.pow", "Nat.div", "Nat.modulo", "Nat.even",
                           "Nat.odd", "Nat.square", "Nat.Even", "Nat.Odd", "Nat.divide", "Nat.le", "Nat.lt"),
    "Coq.Numbers.BinNums": ("Z", "Zpos", "Zneg", "Z0", "positive", "xH", "xI", "xO", "N", "N0", "Npos"),
    "Coq.ZArith.BinInt": ("Z", "Zpos", "Zneg", "Z0", "Z.add", "Z.sub", "Z.mul", "Z.pow", "Z.div", "Z.modulo",
                          "Z.opp", "Z.abs", "Z.succ", "Z.pred", "Z.square", "Z.of_nat", "Z.of_N", "Z.even", "Z.odd",
                          "Z.Even", "Z.Odd", "Z.divide", "Z.lt", "Z.le", "Z.gt", "Z.ge"),
    "Coq.ZArith.BinIntDef": ("Z.add", "Z.sub", "Z.mul", "Z.pow", "Z.div", "Z.modulo", "Z.opp", "Z.abs", "Z.succ",
                             "Z.pred", "Z.square", "Z.of_nat", "Z.of_N", "Z.even", "Z.odd"),
    "Coq.ZArith.Zeven": ("Zeven", "Zodd"),
    "Coq.NArith.BinNat": ("N0", "Npos", "N.add", "N.sub", "N.mul", "N.pow", "N.div", "N.modulo", "N.even", "N.odd",
                          "N.succ", "N.of_nat", "N.Even", "N.Odd", "N.divide", "N.lt", "N.le", "N.gt", "N.ge"),
    "Coq.NArith.BinNatDef": ("N.add", "N.sub", "N.mul", "N.pow", "N.div", "N.modulo", "N.even", "N.odd", "N.succ",
                             "N.of_nat"),
    "Coq.PArith.BinPos": ("positive", "xH", "xI", "xO", "Pos.add", "Pos.mul", "Pos.pow", "Pos.succ"),
    "Coq.PArith.BinPosDef": ("Pos.add", "Pos.mul", "Pos.pow", "Pos.succ"),
    "Coq.QArith.QArith_base": ("Q", "Qmake", "Qplus", "Qminus", "Qmult", "Qdiv", "Qopp", "Qinv", "Qeq", "Qlt", "Qle",
                               "Qpower", "inject_Z"),
    "Coq.QArith.Qabs": ("Qabs",),
    "Coq.Reals.Rdefinitions": ("R", "R0", "R1", "Rplus", "Rmult", "Ropp", "Rlt", "Rle", "Rge", "Rgt", "Rminus", "Rdiv",
                               "Rinv", "IZR", "IPR", "Q2R"),
    "Coq.Reals.Rdefinitions.RbaseSymbolsImpl": ("R", "R0", "R1", "Rplus", "Rmult", "Ropp", "Rlt"),
    "Coq.Reals.Rdefinitions.RinvImpl": ("Rinv",),
    "Coq.Reals.Raxioms": ("INR",),
    "Coq.Reals.Rbasic_fun": ("Rabs",),
    "Coq.Reals.RIneq": ("Rsqr",),
    "Coq.Reals.Rpow_def": ("pow",),
}
_FULL: dict[str, tuple[str, ...]] = {}
for _home, _keys in _HOMES.items():
    for _key in _keys:
        _FULL[_key] = (*_FULL.get(_key, ()), f"{_home}.{_key}")


def _is(name: str, *keys: str) -> bool:
    """Does the printed (partially qualified) name denote one of `keys`, i.e. the standard library's own?"""
    if _WORKSPACE.match(name):
        return False
    for key in keys:
        if name != key and not name.endswith("." + key):
            continue
        if any(full == name or full.endswith("." + name) for full in _FULL.get(key, ())):
            return True
    return False


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
    value = _expr(t, bound)
    if value.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo):
        raise Unsupported("an undefined value (an inverse of 0); Coq gives it a value of its own, so it is not compared")
    return value


def _expr(t: Term, bound: frozenset[str]) -> sympy.Expr:
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
    """A proposition: `atom`, `and`, `or`, `not`, `exists`, `forall` (with `var` of number type `typ`, or an
    `implies` with a hypothesis), `true`/`false`."""

    kind: str
    atom: Atom | None = None
    parts: list[Prop] = field(default_factory=list)
    var: str = ""
    typ: str = ""


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
            return Prop("forall", var=t.name, parts=[to_prop(body, bound | {t.name})], typ=kind)
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
        divisor = to_expr(args[0], bound)
        if divisor == 0:
            raise Unsupported("divisibility by 0 (it means equal to 0; not compared)")
        return Prop("atom", Atom("=", sympy.Mod(to_expr(args[1], bound), divisor),
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
        kind = number_type(lam.args[0])
        if kind is None:
            raise Unsupported(f"an existential over {lam.args[0]} is not read")
        return Prop("exists", var=lam.name, parts=[to_prop(lam.args[1], bound | {lam.name})], typ=kind)
    raise Unsupported(f"the predicate {name} is not read")


def _bool_parity(a: Term, b: Term, bound: frozenset[str]) -> Prop:
    for test, value in ((a, b), (b, a)):
        if test.kind == "app" and len(test.args) == 1 and value.kind == "var" and _is(value.name, "true", "false"):
            truth = _is(value.name, "true")
            if _is(test.name, "Z.even", "Nat.even", "N.even", "Z.odd", "Nat.odd", "N.odd"):
                odd = _is(test.name, "Z.odd", "Nat.odd", "N.odd") == truth
                return Prop("atom", _parity(test.args[0], odd, bound))
    raise Unsupported("a boolean equation other than parity (`Z.even n = true`)")


WITNESS = "@ex"  # witness symbols are `<name>@ex<k>`: `@` keeps them apart from every name a text can use


@dataclass
class Statement:
    """A theorem's statement split into its universally bound variables (with their number types), hypotheses
    and conclusion atoms. An existential of the conclusion is a *witness*: its variable is renamed to a symbol of
    its own (`k@ex1`), so `exists k, k = 9` never reads as `k = 9` about a `k` the text already knows."""

    variables: list[str]
    hypotheses: list[Atom]
    conclusions: list[Atom]
    opaque: list[str] = field(default_factory=list)
    types: dict[str, str] = field(default_factory=dict)
    witnesses: dict[str, tuple[str, str]] = field(default_factory=dict)  # symbol -> (written name, number type)

    def renamed(self, names: dict[str, str]) -> Statement:
        """The statement with its universally bound `variables` renamed (`k` → `k@2`); other names unchanged."""
        subs = {sympy.Symbol(v): sympy.Symbol(names[v]) for v in self.variables if v in names}
        if not subs:
            return self
        return Statement([names.get(v, v) for v in self.variables], [_rename(a, subs) for a in self.hypotheses],
                         [_rename(a, subs) for a in self.conclusions], list(self.opaque),
                         {names.get(v, v): t for v, t in self.types.items()}, dict(self.witnesses))


def _rename(atom: Atom, subs: dict[sympy.Symbol, sympy.Symbol]) -> Atom:
    if atom.expr is None:
        return atom
    plain = {sympy.Symbol(s.name): s for s in atom.expr.free_symbols}
    mapped = {plain[k]: v for k, v in subs.items() if k in plain}
    return Atom(atom.op, atom.expr.xreplace(mapped), atom.text) if mapped else atom


def to_atoms(p: Prop, witnesses: dict[str, tuple[str, str]] | None = None) -> tuple[list[Atom], list[str]]:
    """Flatten conjunctions and existentials into atoms; what cannot be an atom is listed as opaque text.

    With `witnesses` (a conclusion), each existential's variable becomes a fresh witness symbol recorded there;
    without (a hypothesis), `exists k, P k` reads as `P k`: assuming it for the `k` a fact names is sound."""
    if p.kind == "atom" and p.atom is not None:
        return [p.atom], []
    if p.kind == "and":
        a1, o1 = to_atoms(p.parts[0], witnesses)
        a2, o2 = to_atoms(p.parts[1], witnesses)
        return a1 + a2, o1 + o2
    if p.kind == "exists":
        atoms, opaque = to_atoms(p.parts[0], witnesses)
        if witnesses is None:
            return atoms, opaque
        fresh = f"{p.var}{WITNESS}{len(witnesses) + 1}"
        witnesses[fresh] = (p.var, p.typ)
        return [_rename(a, {sympy.Symbol(p.var): sympy.Symbol(fresh)}) for a in atoms], opaque
    if p.kind == "true":
        return [], []
    return [], [p.kind]


def statement_of(printed: str) -> Statement:
    """Read a printed theorem type into variables, hypotheses and conclusions (Unsupported if not readable)."""
    p = to_prop(parse_term(printed))
    variables: list[str] = []
    types: dict[str, str] = {}
    hypotheses: list[Atom] = []
    while p.kind in ("forall", "implies"):
        if p.kind == "forall":
            if p.var in types:
                raise Unsupported(f"the binder `{p.var}` shadows an earlier one of the same name")
            variables.append(p.var)
            types[p.var] = p.typ
            p = p.parts[0]
        else:
            hyp_atoms, opaque = to_atoms(p.parts[0])
            if opaque:
                raise Unsupported(f"a hypothesis of shape `{opaque[0]}` is not read")
            hypotheses += hyp_atoms
            p = p.parts[1]
    witnesses: dict[str, tuple[str, str]] = {}
    conclusions, opaque = to_atoms(p, witnesses)
    return Statement(variables, hypotheses, conclusions, opaque, types, witnesses)


# ------------------------------------------------------------------------------------- comparison
def _plain(expr: sympy.Expr) -> sympy.Expr:
    """Every symbol as a plain `Symbol(name)`: text-side and Coq-side symbols must compare by name."""
    return expr.xreplace({s: sympy.Symbol(s.name) for s in expr.free_symbols})


_MAX_OPS = 400  # a relation bigger than this is not simplified (compared as undecided): SymPy could run away
_MAX_EXPONENT = 64


def _tame(expr: sympy.Expr) -> bool:
    """Small enough to simplify: few operations, no symbolic power with a huge exponent (`(x + 1)^100000`)."""
    if sympy.count_ops(expr) > _MAX_OPS:
        return False
    return all(not (p.exp.is_Number and abs(p.exp) > _MAX_EXPONENT and p.base.free_symbols)
               for p in expr.atoms(sympy.Pow))


def truth(atom: Atom) -> bool | None:
    """True/False for a closed (or identically decided) relation, None when it depends on symbols."""
    if atom.expr is None or not _tame(atom.expr):
        return None
    expr = sympy.simplify(_plain(atom.expr))
    if expr.free_symbols:
        return True if (atom.op == "=" and expr == 0) else None
    if not expr.is_number or expr.has(sympy.zoo, sympy.nan):
        return None
    return {"=": expr == 0, "!=": expr != 0, "<": bool(expr < 0), "<=": bool(expr <= 0)}[atom.op]


def atoms_equivalent(a: Atom, b: Atom) -> bool:
    """Same relation up to a constant factor (positive for orders): `2x = 6` ≡ `x = 3`, `a < b` ≡ `b > a`."""
    if a.expr is None or b.expr is None or not (_tame(a.expr) and _tame(b.expr)):
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
