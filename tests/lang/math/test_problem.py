"""What a question asks for (lang/math/problem.py): word problem or not, the unknown, the asked unit, and the value
the question itself determines."""

import pytest
import sympy

from reasonforge.lang.math.problem import read_problem, right_triangles, word_problem

JANET = ("Janet’s ducks lay 16 eggs per day. She eats three for breakfast every morning and bakes muffins for her "
         "friends every day with four. She sells the remainder at the farmers' market daily for $2 per fresh duck egg. "
         "How much in dollars does she make every day at the farmers' market?")


@pytest.mark.parametrize("query", [
    JANET, "A movie marathon lasts 3 hours. How many minutes does the marathon last?",
    ("Natalia sold clips to 48 of her friends in April, and then she sold half as many clips in May. How many clips "
    "did Natalia sell altogether in April and May?"),
    "A jacket costs $120. It is on sale for 20% off. How much does the jacket cost on sale?",
    "Tom scored 80, 90 and 100 points on three tests. What is his average score?",
    JANET + " Let d = 2.",  # a stray relation does not make the story algebra
    JANET.replace("How much in dollars", "How many dollars x"),  # nor does naming the unknown
    "A movie marathon lasts 3 hours (1 hour = 60 minutes). How many minutes does the marathon last?",
    "Find the sum of the first 10 positive integers.",
])
def test_a_question_stating_quantities_of_something_is_a_word_problem(query):
    assert word_problem(query)


@pytest.mark.parametrize("query", [
    "", "What is 2 + 3?", "Compute 2 + 2.", "Find x if x + 2 = 7.", "Let x = 4.",
    "Prove that if n is an even integer, then n² is divisible by 4.", "What is the remainder when 100 is divided by 7?",
    "Find the hypotenuse of a right triangle with legs 3 and 4",
    "Find the hypotenuse of a right triangle with legs 3 cm and 4 cm.",  # counted, but the question determines it
])
def test_a_question_in_numbers_alone_or_determining_its_answer_is_not(query):
    assert not word_problem(query)


@pytest.mark.parametrize(("query", "value"), [
    ("What is 2 + 3?", 5), ("Compute 2 + 2.", 4), ("Let k = 2. What is k + 7?", 9), ("x = 3, y = 4: what is x + y?", 7),
    ("Compute $\\frac{1}{2} + \\frac{1}{3}$.", sympy.Rational(5, 6)),
    ("Find the hypotenuse of a right triangle with legs 3 and 4", 5),
    ("A right triangle has legs 3 and 4. What is the hypotenuse?", 5),
    ("Find the hypotenuse of a right triangle with legs 3 and 4√3", sympy.sqrt(57)),
    ("Find the hypotenuse of a right triangle with legs 3 and 4/3.", sympy.sqrt(97) / 3),
])
def test_the_value_a_question_determines(query, value):
    assert sympy.simplify(read_problem(query).value - value) == 0


@pytest.mark.parametrize("query", [
    "Find x if x + 2 = 7.", "What is 3 hours?", "Let x be a real number with x = 1 and x = 2. Find x + 1.",
    "n is an integer. Compute n - n.", JANET, "A right triangle has legs 3 and 4 times 2. Find the hypotenuse.",
])
def test_no_value_where_the_question_does_not_determine_one(query):
    assert read_problem(query).value is None


def test_the_asked_unit_and_the_stated_units():
    assert read_problem(JANET).asked_unit == "dollar"
    assert read_problem("A road is 2 km long and another 3 km. How many km are they together?").asked_unit == "km"
    assert read_problem("How long is the walk, in minutes, if it takes 2 hours?").asked_unit == "minute"
    marathon = read_problem("A movie marathon lasts 3 hours. How many minutes does the marathon last?")
    assert marathon.asked_unit == "minute" and marathon.units == {"time": frozenset({"hour"})}
    assert read_problem("How many hours and minutes does it take?").asked_unit is None  # two units: none
    assert read_problem("What percent of the 40 students passed?").asks_percent
    assert not read_problem("What fraction of the 40 students passed?").asks_percent


def test_right_triangle_legs_are_read_whole():
    (plain,) = right_triangles("a right triangle with legs 3 and 4.")
    assert plain.legs == (3, 4) and plain.hypotenuse == 5
    (root,) = right_triangles("a right triangle with legs 3 and 4√3")
    assert root.legs == (3, 4 * sympy.sqrt(3))
    assert right_triangles("a right triangle with legs 3 and 4x") == []
