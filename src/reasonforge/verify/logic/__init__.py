"""Logic checkers: `fol` and `smtlib` entailment by Z3 (cvc5 cross-check), `propositional`, fallacy names."""

from reasonforge.verify.logic.align import Reading, align, read_context
from reasonforge.verify.logic.fallacies import name_fallacy
from reasonforge.verify.logic.propositional import PropositionalChecker, check_propositional
from reasonforge.verify.logic.smt import (
    Classification,
    EntailmentChecker,
    FolChecker,
    SmtLibChecker,
    check_fol,
    check_smtlib,
    classify,
    entails,
    summarise_counterexample,
)

__all__ = [
    "Classification",
    "EntailmentChecker",
    "FolChecker",
    "PropositionalChecker",
    "Reading",
    "SmtLibChecker",
    "align",
    "check_fol",
    "check_propositional",
    "check_smtlib",
    "classify",
    "entails",
    "name_fallacy",
    "read_context",
    "summarise_counterexample",
]
