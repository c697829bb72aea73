"""The `python` checker: pytest + hypothesis from a harness the artifact cannot edit, AST mutants,
equivalent-mutant judging and measured complexity claims."""

from reasonforge.verify.code.align import align
from reasonforge.verify.code.complexity import parse_big_o
from reasonforge.verify.code.judging import judge_mutants
from reasonforge.verify.code.mutants import Mutant, generate_mutants
from reasonforge.verify.code.pytest_checker import PythonTestsChecker

__all__ = ["Mutant", "PythonTestsChecker", "align", "generate_mutants", "judge_mutants", "parse_big_o"]
