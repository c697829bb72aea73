"""What a step's text states besides its relations: the words left, and the numbers no relation checks."""

from __future__ import annotations

import pytest

from reasonforge.lang.math import extract
from reasonforge.lang.math.prose import numbers_beyond_relations, prose_beyond_relations


def stray(text: str, known: str = "") -> list[str]:
    math = extract(text)
    return numbers_beyond_relations(text, math.relations, known, [a.span for a in math.assumptions])


@pytest.mark.parametrize(("text", "known", "expected"), [
    # a result or an operand in words that no relation checks
    ("3 × 4 = 12. Adding 5 gives 18.", "", ["5", "18"]),
    ("2 + 2 = 4, so the answer is 5.", "", ["5"]),
    ("6 × 7 = 42. Therefore the result is 43.", "", ["43"]),
    ("17 × 3 = 51, then we add 4 to obtain 56.", "", ["4", "56"]),
    # a result equal to a number of the question is still a result no relation checks
    ("3 × 4 = 12. Adding 5 gives 18.", "Tom has 18 pears and 5 plums.", ["5", "18"]),
    ("3 × 4 = 12, and adding 4 gives 12 apples.", "", ["4"]),  # an operand no relation after it uses
    ("3 × 4 = 12. Adding five more gives eighteen apples.", "", ["five", "eighteen"]),  # in words
    ("3 × 4 = 12, and the 5kg sack makes 18kg in total.", "", ["5", "18"]),  # a unit glued
    ("3 × 4 = 12, so the total is:\n18.", "", ["18"]),  # a number ending a line is no list marker
    ("So it makes a total of 9 animals.", "There are 9 dogs.", ["9"]),  # a result a few words after its verb
    ("After the pour .65 liters remain.", "", [".65"]),
    ("12 / 4 = 3, so the price increased by 300%.", "", ["300"]),  # 300 % is no restatement of 3
    ("He has 3 × 4 = 12 eggs, which is 12 dozen eggs.", "", ["12"]),  # scaled
    ("That brings the total to 6½ cups.", "", ["6½"]),
])
def test_a_number_stated_in_words_outside_the_relations_is_found(text, known, expected):
    assert stray(text, known) == expected


@pytest.mark.parametrize(("text", "known"), [
    ("She has 16 eggs, and 16 - 3 - 4 = 9 eggs are left, so 9 eggs remain.", ""),  # the relations' own values
    ("He works 8 hours a day for 5 days: 8 × 5 = 40 hours.", ""),
    ("Step 2: 3 × 4 = 12 apples.", ""),  # a step's number
    ("1. First, 3 × 4 = 12.", ""),  # a list marker
    ("On the 3rd day, 3 × 4 = 12.", ""),  # an ordinal
    ("Over 7 days she reads 3 × 7 = 21 pages.", "She reads 3 pages a day for 7 days."),
    ("After the first 180 days, 2 × 185 = 370 cups.", "For the first 180 days the puppy eats 1 cup a day."),
    ("The crane is 14 percent taller because if 200 + 200x = 228 then x = .14", ""),  # a percent as its fraction
    ("Assume x > 0. Then x = 2.", ""),  # an assumption's number is read
    ("We multiply $8 by 2: 2 × $8 = $16.", ""),  # the operation in words, then the relation performing it
    ("One of the two boxes holds 3 + 4 = 7 toys.", ""),  # number words that count nothing checked
])
def test_a_number_that_restates_a_value_or_numbers_a_line_is_not_stray(text, known):
    assert stray(text, known) == []


def test_the_words_beyond_the_relations_are_what_no_relation_states():
    text = "She sells 16 - 3 - 4 = 9 eggs."
    assert prose_beyond_relations(text, extract(text).relations) == "She sells eggs"
