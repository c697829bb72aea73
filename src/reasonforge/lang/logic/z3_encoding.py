"""Formulas as Z3 terms: one uninterpreted sort `U` of individuals, predicates and constants over it."""

from __future__ import annotations

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
    Signature,
    Term,
    Var,
    Xor,
)


class Z3Encoding:
    """Z3 terms for a signature in one context: a sort `U` of individuals, predicates, constants."""

    def __init__(self, sig: Signature, ctx: object) -> None:
        import z3

        self.z3 = z3
        self.ctx = ctx
        self.sig = sig
        self.sort = z3.DeclareSort("U", ctx)
        boolean = z3.BoolSort(ctx)
        self.preds = {
            name: (z3.Bool(name, ctx) if arity == 0 else z3.Function(name, *([self.sort] * arity), boolean))
            for name, arity in sig.predicates.items()
        }
        self.consts = {name: z3.Const(name, self.sort) for name in sig.constants}

    def apply(self, pred: object, args: list[object]) -> object:
        """`pred(*args)` without z3py's per-argument sort casting (the arguments are built here, in
        the right sort); this halves the time to encode a FOLIO problem."""
        z3 = self.z3
        arr = (z3.Ast * len(args))(*[a.as_ast() for a in args])  # type: ignore[attr-defined]
        ast = z3.Z3_mk_app(self.ctx.ref(), pred.ast, len(args), arr)  # type: ignore[attr-defined]
        return z3.BoolRef(ast, self.ctx)

    def encode(self, f: Formula, env: dict[str, object] | None = None) -> object:
        """The Z3 BoolRef for `f`; `env` maps bound variable names to Z3 constants."""
        z3 = self.z3
        env = env or {}
        if isinstance(f, Atom):
            pred = self.preds[f.pred]
            if not f.args:
                return pred
            return self.apply(pred, [self.term(t, env) for t in f.args])
        if isinstance(f, Eq):
            return self.term(f.left, env) == self.term(f.right, env)
        if isinstance(f, BoolConst):
            return z3.BoolVal(f.value, self.ctx)
        if isinstance(f, Not):
            return z3.Not(self.encode(f.arg, env))
        if isinstance(f, And):
            return z3.And([self.encode(a, env) for a in f.args])
        if isinstance(f, Or):
            return z3.Or([self.encode(a, env) for a in f.args])
        if isinstance(f, Xor):
            acc = self.encode(f.args[0], env)
            for a in f.args[1:]:
                acc = z3.Xor(acc, self.encode(a, env))
            return acc
        if isinstance(f, Implies):
            return z3.Implies(self.encode(f.left, env), self.encode(f.right, env))
        if isinstance(f, Iff):
            return self.encode(f.left, env) == self.encode(f.right, env)
        if isinstance(f, Quant):
            # A fresh name per binder: the body may mention a constant spelled like the variable elsewhere.
            var = z3.Const(f"{f.var}!{len(env)}", self.sort)
            body = self.encode(f.body, {**env, f.var: var})
            return z3.ForAll([var], body) if f.kind == "forall" else z3.Exists([var], body)
        raise TypeError(f"not a formula: {f!r}")

    def term(self, t: Term, env: dict[str, object]) -> object:
        if isinstance(t, Var):
            return env[t.name]
        return self.consts[t.name]


# ----------------------------------------------------------------------------------------- SMT-LIB
