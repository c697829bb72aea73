"""Checkers, one subpackage per artifact family: `logic/` (Z3, cvc5), `math/` (SymPy relations), `coq/`,
`lean/`, `code/` (pytest + hypothesis, mutants), and the `sandbox/` they run untrusted code in.

Importing this package loads none of them; `registry.CHECKER_MODULES` imports a family when a step
of its language is first checked."""

__all__ = ["code", "coq", "lean", "logic", "math", "sandbox"]
