"""A claimed answer read strictly and compared with the chain's final value (lang/math/answers.py): the reader
decides what it reads exactly, math-verify only the forms it cannot and only on text the reader let through."""

import threading

import pytest

from reasonforge.lang.math.answers import (
    MAX_ANSWER_CHARS,
    Refusal,
    StepText,
    answers_match,
    check_answer,
    final_value,
    math_verify_same,
    read_answer,
    reader_same,
)
from reasonforge.lang.math.problem import read_problem
from reasonforge.lang.math.reading import read_text


def test_the_reader_compares_values_exactly_or_within_written_rounding():
    assert reader_same("72", "\\boxed{72}") is True
    assert reader_same("0.5", "50%") is True
    assert reader_same("1/3", "0.33") is True  # two written decimals: within their rounding
    assert reader_same("1/3", "0.4") is False
    assert reader_same("10", "11") is False
    assert reader_same("x = 5", "y = 5") is None  # different names: nothing to compare
    assert reader_same("1/2", "\\dfrac{1}{2}") is True  # LaTeX the reader reads inside math delimiters


def test_math_verify_reads_what_the_reader_cannot():
    assert reader_same("\\{1,2\\}", "\\{2,1\\}") is None
    assert math_verify_same("\\{1,2\\}", "\\{2,1\\}") is True
    assert math_verify_same("2\\sqrt{2}", "\\sqrt{8}") is True
    assert math_verify_same("[1,2]", "(1,2]") is False
    assert math_verify_same("5", "five-ish") is None  # prose it reads as symbols is not an answer
    assert answers_match("\\sqrt[3]{8}", "2") == (True, "math-verify")
    assert answers_match("72", "72.0") == (True, "reader")


def test_math_verify_is_undecided_off_the_main_thread_and_on_oversized_text():
    got: list[bool | None] = []
    worker = threading.Thread(target=lambda: got.append(math_verify_same("\\{1,2\\}", "\\{2,1\\}")))
    worker.start()
    worker.join(timeout=120)
    assert got == [None]  # its timeouts need the main thread: undecided, never unbounded
    assert math_verify_same("1" * (MAX_ANSWER_CHARS + 1), "1") is None
    assert reader_same("1" * (MAX_ANSWER_CHARS + 1), "1") is None


# ---- reading: what is one answer, and what is refused -------------------------------------------------------------
@pytest.mark.parametrize(("text", "shown"), [
    ("72", "72"), ("$5", "5"), ("\\$5", "5"), ("1,250", "1250"), ("$1,250.50", "1250.50"), ("25%", "25%"),
    ("25 percent", "25%"), ("x = 5", "x = 5"), ("\\boxed{5}", "5"), ("$\\boxed{5}$", "5"),
    ("The answer is $\\boxed{72}$.", "72"), ("\\frac{1}{2}", "1/2"), ("-3", "-3"), ("x = 3 and y = 2", "x = 3, y = 2"),
    ("\\{1,2\\}", "\\{1,2\\}"), ("(1,2]", "(1,2]"),
])
def test_one_value_or_name_value_pairs_are_read(text, shown):
    answer = read_answer(text)
    assert not isinstance(answer, Refusal), answer
    assert answer.shown() == shown


@pytest.mark.parametrize(("text", "why"), [
    ("$7$, not $5$", "negation"), ("the answer 5 is false", "negation"), ("\\neg 5", "negation"),
    ("It is not $5$", "negation"), ("$\\text{not } 5$", "negation"), ("5 \\neq 7", "negation"), ("¬5", "negation"),
    ("x = 5 (not 7)", "negation"), ("5 or 6", "second value"), ("5, 6", "more than one value"),
    ("5 and 6", "second value"), ("\\boxed{7}, \\boxed{5}", "more than one value"), ("(1, 2), (3, 4)", "more than one value"), ("\\pm 2", "two values"),
    ("x = \\pm 2", "two values"), ("1 1/2", "more than one value"), ("2½", "mixed number"),
    ("1\\frac{1}{2}", "mixed number"), ("3\\,\\frac{1}{2}", "mixed number"), ("1,25", "more than one value"),
    ("five", "no value"), ("about 5", "words before its value"), ("x > 5", "relation"), ("x \\approx 5", "relation"),
    ("5 = 7", "not a value"), ("x = 5 = 7", "not a value"), ("$18 per day", "rate"), ("5 (", "brackets"),
    ("x = 5, x = 6", "one name two values"), ("5 km and 3 m", "second value"), ("1" * (MAX_ANSWER_CHARS + 1), "longer"),
])
def test_anything_but_one_answer_is_refused_never_read_as_its_first_number(text, why):
    answer = read_answer(text)
    assert isinstance(answer, Refusal) and why in answer.why, answer


def test_units_and_counted_words_are_kept_for_the_comparison():
    assert read_answer("5 cents").unit == ("money", "cent")
    assert read_answer("18 dollars").unit == ("money", "dollar") == read_answer("$18").unit
    assert read_answer("5km").unit == ("length", "km") == read_answer("\\text{5 km}").unit
    assert read_answer("5 kilometres").unit == ("length", "km")
    assert read_answer("\\boxed{18 \\text{ eggs}}").counted == ("eggs",)
    assert isinstance(read_answer("5 km 3 m"), Refusal)


# ---- the comparison under the question ------------------------------------------------------------------------
def chain(*texts):
    steps = [StepText(i, text, read_text(text)) for i, text in enumerate(texts, 1)]
    return steps[-1], steps[:-1]


def check(query, claimed, *texts):
    last, ancestors = chain(*texts)
    return check_answer(claimed, read_problem(query), last, ancestors)


JANET = ("Janet’s ducks lay 16 eggs per day. She eats three for breakfast every morning and bakes muffins for her "
         "friends every day with four. She sells the remainder at the farmers' market daily for $2 per fresh duck egg. "
         "How much in dollars does she make every day at the farmers' market?")


@pytest.mark.parametrize(("query", "claimed"), [
    ("A road is 2 km long and another is 3 km long. How many km are they together?", "5 m"),
    ("A road is 2 km long and another is 3 km long. How many km are they together?", "5 meters"),
    ("Ann has $2 and Bob has $3. How many dollars do they have together?", "5 cents"),
    ("Ann has $2 and Bob has $3. How many dollars do they have together?", "€5"),
    ("A task takes 2 minutes and another takes 3 minutes. How many minutes do both take?", "5 hours"),
    ("A bag weighs 2 g and another weighs 3 g. How many grams do they weigh together?", "5 kg"),
    ("A bag weighs 2 g and another weighs 3 g. How many grams do they weigh together?", "5\\mathrm{kg}"),
    ("A rope is 2 km and another 3 km. How long are they together?", "5 miles"),  # no asked unit: the stated one
    ("Tom has 2 apples and gets 3 more. How many apples does he have?", "5 pears"),
])
def test_an_answer_in_another_unit_or_counting_another_thing_is_unread_never_equal(query, claimed):
    got = check(query, claimed, "2 + 3 = 5")
    assert got.status == "unread", got


@pytest.mark.parametrize("claimed", ["5 km", "5 kilometers", "\\boxed{5\\text{ km}}", "5"])
def test_an_answer_in_the_asked_unit_is_compared(claimed):
    got = check("A road is 2 km long and another is 3 km long. How many km are they together?", claimed, "2 + 3 = 5")
    assert got.status == "same", got


def test_the_janet_answer_in_cents_or_with_words_of_the_question():
    steps = ("16 - 3 - 4 = 9", "9 * 2 = 18")
    assert check(JANET, "18 cents", *steps).status == "unread"
    assert check(JANET, "$18", *steps).status == "same"
    assert check(JANET, "18 dollars", *steps).status == "same"
    assert check(JANET, "\\boxed{19}", *steps).status == "different"
    assert check(JANET, "9", *steps).status == "different"  # an intermediate value is not the final one


def test_percent_and_fraction_answers():
    percent = "Of 40 students, 10 passed. What percent of the students passed?"
    assert check(percent, "25%", "10 / 40 * 100 = 25").status == "same"
    assert check(percent, "25", "10 / 40 * 100 = 25").status == "same"
    assert check(percent, "25%", "10 / 40 = 0.25").status == "same"  # 25 % is 1/4
    assert check(percent, "0.25", "10 / 40 * 100 = 25").status == "unread"  # ×100 apart: which unit is undecided
    assert check(percent, "30%", "10 / 40 * 100 = 25").status == "different"
    fraction = "Of 40 students, 10 passed. What fraction of the students passed?"
    assert check(fraction, "25%", "10 / 40 = 0.25").status == "same"
    assert check(fraction, "25%", "10 / 40 * 100 = 25").status == "unread"  # 25 % is 25 only when a percent is asked
    assert check(fraction, "25", "10 / 40 = 0.25").status == "different"


def test_the_named_unknown_is_compared_not_a_trailing_check():
    query = "Find x if x + 2 = 7."
    for steps in (("x = 7 - 2 = 5", "Check: 5 + 2 = 7"), ("x = 7 - 2 = 5", "5 + 2 = 7"), ("x = 7 - 2 = 5, so x + 2 = 7",)):
        assert check(query, "7", *steps).status == "different"
        assert check(query, "5", *steps).status == "same"
        assert check(query, "x = 5", *steps).status == "same"
    assert check(query, "y = 7", "x = 7 - 2 = 5", "y = x + 2 = 7").status == "unread"  # not what it asks for


def test_a_trailing_rederivation_leaves_a_word_problems_answer_unread_never_matched():
    steps = ("16 - 3 - 4 = 9", "9 * 2 = 18", "Check: 18 / 2 = 9")
    assert check(JANET, "9", *steps).status == "unread"
    assert check(JANET, "18", *steps).status == "unread"  # which of them the chain concludes is not read
    assert check(JANET, "20", *steps).status == "different"  # neither reading
    last, ancestors = chain(*steps)
    final = final_value(read_problem(JANET), last, ancestors, None)
    assert final.rederived and final.new.source == "9*2 = 18 (step 2)"


def test_only_the_link_right_after_a_relation_continues_it():
    # "9 * 2 = 2 * 9" then "2 * 9 = 18": the link computes the relation before it, in one step or two
    assert check(JANET, "18", "16 - 3 - 4 = 9", "9 * 2 = 2 * 9", "2 * 9 = 18").status == "same"
    assert check(JANET, "18", "16 - 3 - 4 = 9", "9 * 2 = 2 * 9 = 18").status == "same"
    # a restatement of an earlier computation after another one is a check line: which value concludes is unread
    assert check(JANET, "9", "16 - 3 - 4 = 9", "9 * 2 = 18", "16 - 3 - 4 = 9").status == "unread"


def test_several_unknowns_need_each_named():
    query = "Find x and y if x + y = 5 and x - y = 1."
    steps = ("So x = 3", "y = 5 - 3 = 2")
    assert check(query, "x = 3, y = 2", *steps).status == "same"
    assert check(query, "x = 3 and y = 2", *steps).status == "same"
    assert check(query, "x = 3", *steps).status == "unread"
    assert check(query, "3", *steps).status == "unread"
    assert check(query, "x = 3, y = 3", *steps).status == "different"


def test_a_question_that_determines_its_answer_refutes_a_chain_that_computes_another():
    assert check("What is 2 + 3?", "6", "2 * 3 = 6").status == "different"
    assert check("What is 2 + 3?", "5", "2 + 3 = 5").status == "same"
    assert check("Let k = 2. What is k + 7?", "9", "k + 7 = 2 + 7 = 9").status == "same"
    hypotenuse = "Find the hypotenuse of a right triangle with legs 3 and 4"
    assert check(hypotenuse, "z = 7", "Let x = 3 and y = 4", "x + y = z", "So z = 3 + 4 = 7").status == "different"
    # the question's own value also settles which reading of a trailing check answers it
    assert check("What is 2 + 3?", "5", "2 + 3 = 5", "Check: 5 - 3 = 2").status == "same"


def test_math_verify_s_false_equalities_are_refused():
    # equations it would compare on the number it pulled out of each (both read as 0)
    assert math_verify_same("3x-y+13=0", "3x+4y+14=0") is False
    # values inside its relative tolerance that are not equal
    assert math_verify_same("\\frac{1}{2004!}", "\\frac{1}{2006!}") is False
    # a formula it reads only part of (`1 - \dfrac{1}{\mathrm{e}}` as 1): not a reading of the answer
    assert math_verify_same("1 - 1/e", "1 + 1/e") is False
    assert math_verify_same("1 - \\dfrac{1}{\\mathrm{e}}", "1 + \\dfrac{1}{\\mathrm{e}}") is None
    # what it reads whole still compares
    assert math_verify_same("x^2+1=0", "2x^2+2=0") is True
    assert math_verify_same("\\frac{1}{2}", "0.5") is True
    assert math_verify_same("(0,1]", "(0, 1]") is True


def test_an_equation_in_standard_form_is_not_a_final_value_of_zero():
    # "x^2 - 3x + 2 = 0" states the equation; reading it as "the value is 0" refuted a right answer {1, 2}
    problem = read_problem("Solve $x^2 - 3x + 2 = 0$.")
    last = StepText(1, "The roots of $x^2 - 3x + 2 = 0$ are $x = 1$ and $x = 2$.",
                    read_text("The roots of $x^2 - 3x + 2 = 0$ are $x = 1$ and $x = 2$."))
    assert check_answer("\\{1, 2\\}", problem, last, []).status != "different"
    # a computation that ends in 0 still is one
    zero = StepText(1, "So 5 - 5 = 0.", read_text("So 5 - 5 = 0."))
    assert check_answer("0", read_problem("What is 5 - 5?"), zero, []).status == "same"
