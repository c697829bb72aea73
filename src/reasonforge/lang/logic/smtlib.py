"""Formulas as SMT-LIB 2 text: declarations over a sort `U`, one term per formula, whole `smtlib` artifacts."""

from __future__ import annotations

import re
from dataclasses import dataclass

from reasonforge.lang.logic.syntax import (
    And,
    Atom,
    BoolConst,
    Eq,
    Formula,
    Iff,
    Implies,
    Not,
    Or,
    Quant,
    Term,
    Var,
    Xor,
    signature_of,
)

_SMT_SIMPLE = re.compile(r"[A-Za-z~!@$%^&*_+=<>.?/-][A-Za-z0-9~!@$%^&*_+=<>.?/-]*")
_SMT_RESERVED = {
    "and", "or", "not", "xor", "=>", "=", "distinct", "ite", "true", "false", "forall", "exists", "let",
    "match", "par", "as", "_", "!", "Bool", "U", "assert", "NUMERAL", "DECIMAL", "STRING", "BINARY", "HEXADECIMAL",
}


def smt_symbol(name: str) -> str:
    """An SMT-LIB symbol for a FOL name: bare when safe, else `|quoted|`; reserved words get a `!` suffix
    (never produced by the FOL parser, so no clash)."""
    if name in _SMT_RESERVED:
        return f"|{name}!|"
    return name if _SMT_SIMPLE.fullmatch(name) else f"|{name}|"


@dataclass(frozen=True)
class SmtlibRendering:
    """SMT-LIB text for formulas: declarations (sort U, predicates, constants) and one term per formula."""

    logic: str
    declarations: str
    terms: list[str]


def to_smtlib(formulas: list[Formula]) -> SmtlibRendering:
    """Render formulas as SMT-LIB 2 terms over an uninterpreted sort `U`, with their declarations."""
    sig = signature_of(formulas)
    lines: list[str] = []
    needs_sort = bool(sig.constants) or sig.quantified or any(a > 0 for a in sig.predicates.values())
    if needs_sort:
        lines.append("(declare-sort U 0)")
    for name, arity in sig.predicates.items():
        lines.append(f"(declare-fun {smt_symbol(name)} ({' '.join(['U'] * arity)}) Bool)")
    for name in sig.constants:
        lines.append(f"(declare-const {smt_symbol(name)} U)")
    logic = ("" if sig.quantified else "QF_") + "UF"
    return SmtlibRendering(logic, "\n".join(lines), [_smt_term(f, {}) for f in formulas])


def to_smtlib_script(premises: list[Formula], conclusion: Formula) -> str:
    """A complete `smtlib` artifact (the translator contract): premises asserted, then `(assert (not C))`."""
    rendering = to_smtlib([*premises, conclusion])
    body = [f"(set-logic {rendering.logic})", rendering.declarations]
    body += [f"(assert {t})" for t in rendering.terms[:-1]]
    body += [f"(assert (not {rendering.terms[-1]}))", "(check-sat)"]
    return "\n".join(line for line in body if line) + "\n"


def _smt_term(f: Formula, env: dict[str, str]) -> str:
    def term(t: Term) -> str:
        return env[t.name] if isinstance(t, Var) else smt_symbol(t.name)

    if isinstance(f, Atom):
        name = smt_symbol(f.pred)
        return name if not f.args else f"({name} {' '.join(term(t) for t in f.args)})"
    if isinstance(f, Eq):
        return f"(= {term(f.left)} {term(f.right)})"
    if isinstance(f, BoolConst):
        return "true" if f.value else "false"
    if isinstance(f, Not):
        return f"(not {_smt_term(f.arg, env)})"
    if isinstance(f, (And, Or)):
        op = "and" if isinstance(f, And) else "or"
        return f"({op} {' '.join(_smt_term(a, env) for a in f.args)})"
    if isinstance(f, Xor):
        acc = _smt_term(f.args[0], env)
        for a in f.args[1:]:
            acc = f"(xor {acc} {_smt_term(a, env)})"
        return acc
    if isinstance(f, Implies):
        return f"(=> {_smt_term(f.left, env)} {_smt_term(f.right, env)})"
    if isinstance(f, Iff):
        return f"(= {_smt_term(f.left, env)} {_smt_term(f.right, env)})"
    if isinstance(f, Quant):
        # Bound variables get a `!`-suffixed name that no declared symbol can have.
        var = f"|{f.var}!{len(env)}|"
        op = "forall" if f.kind == "forall" else "exists"
        return f"({op} (({var} U)) {_smt_term(f.body, {**env, f.var: var})})"
    raise TypeError(f"not a formula: {f!r}")
