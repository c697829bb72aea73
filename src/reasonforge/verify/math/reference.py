"""A reference (gold) answer the caller holds, against the chain's final value.

Pipelines that train or evaluate on maths hold the right answer and ask two questions: is the final answer right,
and is the reasoning right. The second is the verdict; this answers the first, beside it and never inside it (a
right final value proves no step; a wrong one refutes none: the reference is the caller's word, not a checked
fact). The answer compared is the one the chain states (its claimed answer: `#### 72`, `\\boxed{72}`), else its
final value, read and compared exactly as a claimed answer is (`align.answer_check`): read strictly as one value,
by our reader, else by `math-verify` with its false equalities guarded (`lang.math.answers.math_verify_same`).

The comparison runs in a worker process killed at its deadline (`killable.call_killable`), so it can hang no
caller's thread and `math-verify`'s signal-based timeouts work from any thread of a server or a trainer.
"""

from __future__ import annotations

from reasonforge.lang.math.answers import answers_match
from reasonforge.types import AnswerComparer, ReferenceCheck, StepContext
from reasonforge.verify.math.align import answer_check
from reasonforge.verify.math.killable import Killed, call_killable, warm_sympy

__all__ = ["REFERENCE_TIMEOUT_S", "compare_reference"]

REFERENCE_TIMEOUT_S = 10.0  # reading a chain and comparing two values; SymPy alone may never return


def _compare(context: StepContext, reference: str) -> tuple[str, str, str]:
    claimed = context.claimed_answer.strip()
    if claimed:
        # the chain states its answer (`#### 72`, `\\boxed{72}`): that is the answer that is right or wrong (the
        # last step is refuted where it is not the chain's own final value)
        same, by = answers_match(reference, claimed)
        shown = f"the chain's answer {claimed[:80]}"
        if same is None:
            return "unread", f"{shown} and the reference answer {reference[:80]} cannot be compared exactly", by
        return ("same", f"{shown} is the reference answer {reference[:80]}", by) if same else \
            ("different", f"{shown} is not the reference answer {reference[:80]}", by)
    check = answer_check(context, reference)
    return check.status, check.message.replace("the claimed answer", "the reference answer"), check.by


def compare_reference(last: StepContext, reference: str, *, timeout_s: float = REFERENCE_TIMEOUT_S) -> ReferenceCheck:
    """`reference` against the final value of the chain whose last step's context is `last` (its ancestors the
    steps the final value may come from)."""
    done = call_killable(_compare, (last, reference), timeout_s=timeout_s,
                         preload="reasonforge.verify.math.reference", warm=warm_sympy)
    if isinstance(done, Killed):
        return ReferenceCheck(reference=reference, matches=None,
                              message=f"the reference was not compared: {done.message}")
    status, message, by = done.value
    return ReferenceCheck(reference=reference, matches={"same": True, "different": False}.get(status),
                          compared_by=AnswerComparer(by), message=message)
