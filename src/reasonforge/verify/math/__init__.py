"""The `sympy` checker: every relation a step asserts, checked with SymPy in exact arithmetic."""

from reasonforge.verify.math.relations import ArithmeticChecker, Line, check_sympy, parse_artifact

__all__ = ["ArithmeticChecker", "Line", "check_sympy", "parse_artifact"]
