"""Coq text for the expressions and relations the maths extractor reads (Z, Q or R arithmetic).

`coq_expr` prints an expression tree (`lang.math.expr`) as written, so `9 + 16` stays `9 + 16` and
Coq, not this module, does the arithmetic. `coq_poly` prints a SymPy polynomial (a computed witness).
Anything outside the fragment raises `NotCoq` with the reason, and the step becomes `unsupported`.
"""

from __future__ import annotations

from typing import Literal

import sympy

from reasonforge.lang.math.expr import Binary, Call, Name, Node, Num, Postfix, Unary

__all__ = ["Domain", "NotCoq", "coq_expr", "coq_poly", "coq_relation", "needs_rationals"]

Domain = Literal["Z", "Q", "R"]
_OPS = {"+": "+", "-": "-", "*": "*", "/": "/", "^": "^"}
_PREC = {"+": 1, "-": 1, "*": 2, "/": 2, "^": 3}
_RESERVED = frozenset({"Z", "Q", "R", "nat", "pi", "e", "fun", "forall", "exists", "match", "with", "end", "as", "in",
                       "let", "if", "then", "else", "return", "Prop", "Set", "Type", "True", "False", "I", "S", "O"})


class NotCoq(ValueError):
    """The expression uses something the Coq emitter does not handle (the message says what)."""


def needs_rationals(node: Node) -> bool:
    """Does the expression need Q (a decimal, a division or a percentage) rather than Z?"""
    if isinstance(node, Num):
        return node.decimals > 0
    if isinstance(node, Binary):
        return node.op == "/" or needs_rationals(node.left) or needs_rationals(node.right)
    if isinstance(node, Unary):
        return needs_rationals(node.arg)
    if isinstance(node, Postfix):
        return node.op == "%" or needs_rationals(node.arg)
    return False


def _name(name: str) -> str:
    if name in _RESERVED or not name.isidentifier():
        raise NotCoq(f"the name `{name}` cannot be a Coq identifier here")
    return name


def coq_expr(node: Node, domain: Domain, parent: int = 0) -> str:
    """Coq syntax for `node` in `domain`'s scope (Z_scope / Q_scope / R_scope)."""
    if isinstance(node, Num):
        if node.decimals and domain == "Z":
            raise NotCoq(f"the decimal {node.text} is not an integer")
        return node.text.replace("_", "")
    if isinstance(node, Name):
        return _name(node.name)
    if isinstance(node, Unary):
        inner = coq_expr(node.arg, domain, 4)
        return f"(- {inner})" if node.op == "-" else inner
    if isinstance(node, Binary):
        if node.op == "/" and domain == "Z":
            raise NotCoq("division needs rationals (Q)")
        prec = _PREC[node.op]
        if node.op == "^":
            exponent = node.right
            if not (isinstance(exponent, Num) and exponent.decimals == 0):
                raise NotCoq("only whole-number literal exponents are translated")
            text = f"{coq_expr(node.left, domain, prec + 1)} ^ {exponent.text}"
        else:
            left = coq_expr(node.left, domain, prec)
            right = coq_expr(node.right, domain, prec + 1)
            text = f"{left} {_OPS[node.op]} {right}"
        return f"({text})" if prec < parent or (prec == parent and node.op == "^") else text
    if isinstance(node, Postfix):
        if node.op == "%" and domain in ("Q", "R"):
            return f"({coq_expr(node.arg, domain, 3)} / 100)"
        raise NotCoq(f"the postfix `{node.op}` is not translated")
    if isinstance(node, Call):
        raise NotCoq(f"the function `{node.func}` is not translated")
    raise NotCoq(f"unexpected expression {node!r}")


def coq_relation(lhs: Node, op: str, rhs: Node, domain: Domain) -> str:
    """`lhs op rhs` as a Coq proposition (Q equality is `==`, disequality `~ (_ == _)`)."""
    a, b = coq_expr(lhs, domain), coq_expr(rhs, domain)
    if op == "=":
        return f"{a} {'==' if domain == 'Q' else '='} {b}"
    if op == "!=":
        return f"~ ({a} == {b})" if domain == "Q" else f"{a} <> {b}"
    if op in ("<", "<=", ">", ">="):
        return f"{a} {op} {b}"
    raise NotCoq(f"the relation `{op}` is not translated (an approximation is not a theorem)")


def coq_poly(expr: sympy.Expr) -> str:
    """Coq Z syntax for a polynomial with integer coefficients (e.g. a witness `k^2`)."""
    expr = sympy.expand(expr)
    if isinstance(expr, sympy.Integer):
        return f"({expr})" if expr < 0 else str(expr)
    if isinstance(expr, sympy.Symbol):
        return _name(expr.name)
    if isinstance(expr, sympy.Add):
        return "(" + " + ".join(coq_poly(t) for t in expr.as_ordered_terms()) + ")"
    if isinstance(expr, sympy.Mul):
        return "(" + " * ".join(coq_poly(f) for f in expr.args) + ")"
    if isinstance(expr, sympy.Pow) and isinstance(expr.exp, sympy.Integer) and expr.exp > 0:
        return f"({coq_poly(expr.base)} ^ {expr.exp})"
    raise NotCoq(f"the witness {expr} is not an integer polynomial")
