"""A word problem's equations decided by Z3 (verify/math/problem_model.py): one forced rational answer, or a
named reason; and every way a writer could try to make a model say more than the question does."""

import pytest
import sympy

from reasonforge.errors import ArtifactSyntaxError
from reasonforge.lang.math.quantities import grounding_values, stated_quantities
from reasonforge.verify.math.problem_model import MAX_MODEL_LINES, Unforced, read_problem_model

WENG = ("Weng earns $12 an hour for babysitting. Yesterday, she just did 50 minutes of babysitting. How much did "
        "she earn?")
GROUNDS = grounding_values(stated_quantities(WENG), [WENG])


def decide(text, grounds=GROUNDS, timeout_s=2.0):
    return read_problem_model(text, grounds, timeout_s=timeout_s)


def test_equations_stated_as_told_force_the_answer_and_each_quantity():
    model = decide("```\ndollars_per_minute * 60 = 12\nearned = dollars_per_minute * 50\nanswer = earned\n```")
    assert model.answer == 10
    assert model.quantities() == {sympy.Rational(1, 5): "dollars_per_minute", sympy.Integer(10): "earned"}


def test_an_unknown_used_before_the_line_that_fixes_it_is_an_unknown_not_an_error():
    assert decide("earned = per_minute * 50\nper_minute * 60 = 12\nanswer = earned").answer == 10


def test_an_under_determined_model_is_refused_not_guessed():
    with pytest.raises(Unforced, match="do not determine the answer"):
        decide("hours + minutes = 12\nanswer = hours")


def test_a_quantity_the_equations_leave_free_is_not_reported_as_forced():
    model = decide("spare * 0 = 0\nearned = 12 * 50 / 60\nanswer = earned")
    assert "spare" not in model.quantities().values() and model.answer == 10


def test_contradictory_equations_are_refused():
    with pytest.raises(Unforced, match="contradict each other"):
        decide("rate = 12\nrate = 50\nanswer = rate")


def test_a_divisor_that_could_be_zero_is_assumed_not_to_be():
    # x / y = 12 and y = 0 have no solution in which the division means anything
    with pytest.raises(Unforced, match="contradict"):
        decide("earned = 12 / minutes\nminutes = 0\nanswer = earned")
    with pytest.raises(ArtifactSyntaxError, match="divides by 0"):
        decide("answer = 12 / 0")


def test_an_irrational_answer_is_refused():
    with pytest.raises(Unforced, match="not a rational number"):
        decide("side * side = 12\nanswer = side * side * side")


def test_a_number_the_question_does_not_state_is_refused_with_its_line():
    with pytest.raises(ArtifactSyntaxError, match=r"line 2, column 1: 7 is not a quantity the question states"):
        decide("earned = 12 * 50 / 60\nbonus = 7\nanswer = earned + bonus")


def test_only_equations_of_arithmetic_are_read_never_code():
    for text in ("import os\nanswer = 12", "answer = __import__('os').getpid()", "answer = sqrt(12)",
                 "x < 12\nanswer = x", "answer = 12 ^ minutes", "answer = 12 ^ 9"):
        with pytest.raises(ArtifactSyntaxError):
            decide(text)


def test_the_answer_is_defined_once_on_the_last_line():
    with pytest.raises(ArtifactSyntaxError, match="must be `answer = ...`"):
        decide("answer = 12\nearned = answer")
    with pytest.raises(ArtifactSyntaxError, match="defined once"):
        decide("answer = 12\nanswer = 12")
    with pytest.raises(ArtifactSyntaxError, match="no equation"):
        decide("```\n\n```")


def test_the_model_is_bounded_in_size():
    lines = "\n".join(f"q{i} = 12" for i in range(MAX_MODEL_LINES + 1))
    with pytest.raises(ArtifactSyntaxError, match="over the cap"):
        decide(lines + "\nanswer = q0")


def test_arithmetic_that_grows_beyond_any_word_problem_is_refused_before_z3_sees_it():
    # each found by a red-team pass: a power of powers (a ValueError from a 4,300-digit numeral), nested powers of
    # an unknown (Z3 spent 5 s and 1.4 GB in building the term, past its time limit), and a chain of squarings
    # (doubly exponential values Z3 writes out without a deadline)
    for text, said in (("answer = (((((12^4)^4)^4)^4)^4)^4", "power of a power"),
                       ("((((x+1)^4)^4)^4) = y\nanswer = 12", "power of a power"),
                       ("x * x * x * x * x = 12\nanswer = x", "degree over 4"),
                       ("y0 = 12\n" + "\n".join(f"y{i + 1} = y{i} * y{i}" for i in range(20)) + "\nanswer = y20",
                        "degree over 16 together")):
        with pytest.raises(ArtifactSyntaxError, match=said):
            decide(text)


def test_a_quadratic_word_problem_is_still_decided():
    # the side of a square of area 144 is ±12; its area again, 144, is forced whichever
    assert decide("side * side = 12 * 12\narea = side * side\nanswer = area").answer == 144
    with pytest.raises(Unforced, match="do not determine"):
        decide("side * side = 12 * 12\nanswer = side")  # -12 satisfies it too


def test_a_nonlinear_model_z3_cannot_settle_in_time_is_refused_within_the_limit():
    # as nonlinear as a model may be; whatever Z3 makes of it, a decision or a refusal, never a hang
    text = "a * a * b * b = 12\nb * b - a * c = 50\nanswer = a + b + c"
    try:
        decide(text, timeout_s=0.5)
    except Unforced as exc:
        assert "did not decide" in exc.message or "determine" in exc.message or "rational" in exc.message


def test_no_time_left_means_undecided_never_forced():
    with pytest.raises(Unforced, match="did not decide"):
        decide("earned = 12 * 50 / 60\nanswer = earned", timeout_s=0.0)
