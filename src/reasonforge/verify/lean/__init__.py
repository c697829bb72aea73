"""The `lean4` chain checker: a Lake workspace per chain, compiled (or run through a REPL pool), axioms audited."""

from reasonforge.verify.lean.align import align
from reasonforge.verify.lean.checker import ALLOWED_AXIOMS, LeanChecker, judge_axioms

__all__ = ["ALLOWED_AXIOMS", "LeanChecker", "align", "judge_axioms"]
