"""The `sympy` checker (every relation a step asserts, checked with SymPy in exact arithmetic), the plan of a step's
artifact from its text, and the aligner that ties a checked artifact to what the step says."""

from reasonforge.verify.math.align import (
    align,
    chain_answer,
    is_word_problem,
    prose_beyond_relations,
    step_claims,
    step_results,
)
from reasonforge.verify.math.killable import Killed, Returned, Stop, call_killable, warm_sympy
from reasonforge.verify.math.plan import Rebound, StepPlan, plan_step, read_step
from reasonforge.verify.math.reference import REFERENCE_TIMEOUT_S, compare_reference
from reasonforge.verify.math.relations import PROVEN_ELSEWHERE, ArithmeticChecker, Line, check_sympy, parse_artifact

__all__ = [
    "PROVEN_ELSEWHERE",
    "REFERENCE_TIMEOUT_S",
    "ArithmeticChecker",
    "Killed",
    "Line",
    "Rebound",
    "Returned",
    "StepPlan",
    "Stop",
    "align",
    "call_killable",
    "chain_answer",
    "check_sympy",
    "compare_reference",
    "is_word_problem",
    "parse_artifact",
    "plan_step",
    "prose_beyond_relations",
    "read_step",
    "step_claims",
    "step_results",
    "warm_sympy",
]
