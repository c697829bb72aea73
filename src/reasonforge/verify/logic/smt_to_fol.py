"""An `smtlib` artifact read back as first-order formulas, so it can be compared with a reading of the step.

The offline reader writes first-order logic over one sort of individuals: unary and n-ary predicates,
named individuals, connectives, quantifiers and equality. A script is read back exactly as Z3 parses the
text the checker hands it (`SmtScript.text`), and only when it stays inside that logic: one uninterpreted
sort (any name), Bool-valued predicates over it, constants of it, Boolean constants (0-ary predicates).
Anything else (arithmetic, strings, arrays, bit-vectors, datatypes, a second sort, functions into the sort,
quantifiers over Bool) has no counterpart in the reading and is refused with `NotFol` naming it, so a
premise cannot be made trivially true by a theory the reading never speaks of.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import z3

from reasonforge.lang.logic import (
    MAX_DEPTH,
    And,
    Atom,
    BoolConst,
    Const,
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
)
from reasonforge.lang.logic.formulas import conj, disj
from reasonforge.verify.logic.script import SmtScript

_MAX_NODES = 200_000  # a `let` shared many times unfolds into a tree; past this it is refused, not walked


class NotFol(Exception):
    """The script uses something the reading's first-order logic has no counterpart for (message names it)."""


@dataclass(frozen=True)
class SmtFormulas:
    """The script's premises and conclusion C (from `(assert (not C))`) as formulas, with source lines."""

    premises: list[Formula]
    conclusion: Formula
    premise_lines: list[int]
    conclusion_line: int
    sort: str | None  # the uninterpreted sort of individuals, if the script has one


def smtlib_formulas(script: SmtScript) -> SmtFormulas:
    """Read the script's assertions back as formulas (raises NotFol, or ValueError when Z3 rejects the text)."""
    ctx = z3.Context()
    try:
        vector = z3.parse_smt2_string(script.text(script.conclusion), ctx=ctx)
    except z3.Z3Exception as exc:
        raise ValueError(f"Z3 rejected the script: {exc}") from None
    terms = [vector[i] for i in range(len(vector))]
    if len(terms) != len(script.premise_lines) + 1:
        raise ValueError(f"expected {len(script.premise_lines) + 1} assertions, Z3 read {len(terms)}")
    reader = _Reader()
    formulas = [reader.formula(t, [], 0) for t in terms]
    return SmtFormulas(formulas[:-1], formulas[-1], list(script.premise_lines), script.conclusion_line, reader.sort)


class _Reader:
    def __init__(self) -> None:
        self.sort: str | None = None
        self.sort_ref: Any = None
        self.nodes = 0

    def individual(self, sort: Any, where: str) -> None:
        """Check that `sort` is the one sort of individuals (the first uninterpreted sort seen)."""
        if sort.kind() != z3.Z3_UNINTERPRETED_SORT:
            raise NotFol(f"{where} has sort {sort.name()}; the reading speaks only of individuals (one declared "
                         "sort) and truth values, so theories such as arithmetic have no counterpart in it")
        if self.sort_ref is None:
            self.sort_ref, self.sort = sort, sort.name()
        elif not sort.eq(self.sort_ref):  # by identity: two sorts may print alike (parametric ones)
            raise NotFol(f"{where} has sort {sort.sexpr()}, a second sort beside {self.sort_ref.sexpr()}; the "
                         "reading has one sort of individuals")

    def formula(self, e: Any, env: list[str], depth: int) -> Formula:
        self.nodes += 1
        if self.nodes > _MAX_NODES:
            raise NotFol(f"the script unfolds into more than {_MAX_NODES} formula nodes")
        if depth > MAX_DEPTH:
            raise NotFol(f"a formula is nested more than {MAX_DEPTH} levels deep")
        if z3.is_quantifier(e):
            return self.quantifier(e, env, depth)
        if z3.is_var(e):
            raise NotFol("a quantified Boolean variable has no counterpart in the reading")
        if not z3.is_app(e) or e.sort().kind() != z3.Z3_BOOL_SORT:
            raise NotFol(f"{_short(e)} is not a formula of the reading's logic")
        kind = e.decl().kind()
        args = [e.arg(i) for i in range(e.num_args())]
        if kind == z3.Z3_OP_TRUE:
            return BoolConst(True)
        if kind == z3.Z3_OP_FALSE:
            return BoolConst(False)
        if kind == z3.Z3_OP_NOT:
            return Not(self.formula(args[0], env, depth + 1))
        if kind in (z3.Z3_OP_AND, z3.Z3_OP_OR):
            parts = [self.formula(a, env, depth + 1) for a in args]
            if not parts:
                return BoolConst(kind == z3.Z3_OP_AND)
            if len(parts) == 1:
                return parts[0]
            return And(tuple(parts)) if kind == z3.Z3_OP_AND else Or(tuple(parts))
        if kind == z3.Z3_OP_IMPLIES:
            return Implies(self.formula(args[0], env, depth + 1), self.formula(args[1], env, depth + 1))
        if kind == z3.Z3_OP_XOR:
            return Xor((self.formula(args[0], env, depth + 1), self.formula(args[1], env, depth + 1)))
        if kind == z3.Z3_OP_ITE:
            test, then, other = (self.formula(a, env, depth + 1) for a in args)
            return disj([conj([test, then]), conj([Not(test), other])])
        if kind in (z3.Z3_OP_EQ, z3.Z3_OP_IFF, z3.Z3_OP_DISTINCT):
            return self.equation(kind, args, env, depth)
        if kind == z3.Z3_OP_UNINTERPRETED:
            name = e.decl().name()
            for i, a in enumerate(args):
                self.individual(a.sort(), f"argument {i + 1} of {name}")
            return Atom(name, tuple(self.term(a, env) for a in args))
        raise NotFol(f"{e.decl().name()} is a theory symbol the reading has no counterpart for")

    def equation(self, kind: int, args: list[Any], env: list[str], depth: int) -> Formula:
        boolean = args[0].sort().kind() == z3.Z3_BOOL_SORT
        if boolean:
            parts = [self.formula(a, env, depth + 1) for a in args]
        else:
            self.individual(args[0].sort(), "an equation")
            terms = [self.term(a, env) for a in args]
        pairs: list[Formula] = []
        count = len(args)
        if kind == z3.Z3_OP_DISTINCT:
            for i in range(count):
                for j in range(i + 1, count):
                    pairs.append(Not(Iff(parts[i], parts[j])) if boolean else Not(Eq(terms[i], terms[j])))
        else:
            for i in range(count - 1):
                pairs.append(Iff(parts[i], parts[i + 1]) if boolean else Eq(terms[i], terms[i + 1]))
        return conj(pairs) if pairs else BoolConst(True)

    def quantifier(self, e: Any, env: list[str], depth: int) -> Formula:
        if e.is_lambda():
            raise NotFol("a lambda term has no counterpart in the reading")
        names = []
        for i in range(e.num_vars()):
            self.individual(e.var_sort(i), f"the quantified variable {e.var_name(i)}")
            names.append(f"v{len(env) + i}")
        body = self.formula(e.body(), [*env, *names], depth + 1)
        kind: Literal["forall", "exists"] = "forall" if e.is_forall() else "exists"
        for name in reversed(names):
            body = Quant(kind, name, body)
        return body

    def term(self, e: Any, env: list[str]) -> Term:
        if z3.is_var(e):
            return Var(env[len(env) - 1 - z3.get_var_index(e)])
        if z3.is_app(e) and e.decl().kind() == z3.Z3_OP_UNINTERPRETED and e.num_args() == 0:
            self.individual(e.sort(), f"the constant {e.decl().name()}")
            return Const(e.decl().name())
        raise NotFol(f"{_short(e)} is a compound term; the reading names individuals only by constants")


def _short(e: Any) -> str:
    text = e.sexpr()
    return text if len(text) <= 80 else text[:77] + "..."
