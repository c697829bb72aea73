"""The `coq` chain checker: one workspace per chain compiled by coqc in the sandbox, audited and aligned."""

from reasonforge.verify.coq.align import align
from reasonforge.verify.coq.checker import CoqChecker, LemmaRun, check_coq_chain, unavailable_reason
from reasonforge.verify.coq.claims import Phrase, phrases

__all__ = ["CoqChecker", "LemmaRun", "Phrase", "align", "check_coq_chain", "phrases", "unavailable_reason"]
