"""A reference (gold) answer against the chain's final value: read and compared like a claimed answer, in a worker
that a deadline kills, reported beside the verdict and never changing it."""

import threading

from reasonforge.pipeline import verify_chain
from reasonforge.types import AnswerComparer, Domain, Overall, ProofLevel, StepStatus, VerifyRequest

QUESTION = ("Natalia sold clips to 48 of her friends in April, and then she sold half as many clips in May. How many "
            "clips did Natalia sell altogether in April and May?")
STEPS = ["Natalia sold 48/2 = 24 clips in May.", "Natalia sold 48+24 = 72 clips altogether in April and May.",
         "#### 72"]


def _verdict(reference: str, steps: list[str] = STEPS, domain: Domain = Domain.MATHEMATICS):
    request = VerifyRequest(original_query=QUESTION, domain=domain, proof_level=ProofLevel.QUICK,
                            reasoning_chain=[{"step_id": i + 1, "content": s} for i, s in enumerate(steps)],
                            reference_answer=reference)
    return verify_chain(request)


def test_the_final_value_is_compared_with_the_reference_exactly():
    same = _verdict("72")
    assert same.answer_matches_reference is True and same.reference_check is not None
    assert same.reference_check.compared_by is AnswerComparer.READER
    assert "72" in same.reference_check.message
    assert _verdict("\\boxed{\\frac{144}{2}}").answer_matches_reference is True
    other = _verdict("73")
    assert other.answer_matches_reference is False
    assert "the reference answer 73 is not the chain's final value" in other.reference_check.message


def test_the_reference_changes_no_status_and_nothing_the_verdict_proved():
    plain = verify_chain(VerifyRequest(original_query=QUESTION, domain=Domain.MATHEMATICS, proof_level=ProofLevel.QUICK,
                                       reasoning_chain=[{"step_id": i + 1, "content": s} for i, s in enumerate(STEPS)]))
    wrong = _verdict("73")
    assert plain.answer_matches_reference is None and plain.reference_check is None
    assert [v.status for v in wrong.step_verdicts] == [v.status for v in plain.step_verdicts]
    assert wrong.overall == plain.overall and wrong.verdict_digest == plain.verdict_digest
    assert all(v.status is not StepStatus.FAILED for v in wrong.step_verdicts)


def test_a_reference_that_is_not_one_value_is_not_compared():
    for reference, why in (("seventy-two", "cannot be read"), ("72 apples", "apples"), ("72 or 73", "cannot be read"),
                           ("$72$, not $73$", "negation")):
        check = _verdict(reference).reference_check
        assert check is not None and check.matches is None, reference
        assert why in check.message, (reference, check.message)


def test_a_chain_that_states_no_value_is_not_compared():
    check = _verdict("72", ["She sold some clips, then more clips."]).reference_check
    assert check is not None and check.matches is None and "states no value" in check.message


def test_other_domains_say_why_they_are_not_compared():
    check = _verdict("True", ["All cats are animals. Tom is a cat. So Tom is an animal."], Domain.LOGIC).reference_check
    assert check is not None and check.matches is None and "mathematics" in check.message


def test_sets_and_intervals_go_to_math_verify_from_any_thread():
    steps = ["The roots of $x^2 - 3x + 2 = 0$ are $x = 1$ and $x = 2$, so the solution set is $\\{1, 2\\}$."]
    got = []
    worker = threading.Thread(target=lambda: got.append(_verdict("\\{2, 1\\}", steps).reference_check))
    worker.start()
    worker.join(120)
    assert got and got[0] is not None
    assert got[0].matches in (True, None)  # never a false mismatch; math-verify decides where the chain states the set
    if got[0].matches is True:
        assert got[0].compared_by is AnswerComparer.MATH_VERIFY
    assert _verdict("72").reference_check.matches is True
    assert Overall  # the verdict type is the library's own
