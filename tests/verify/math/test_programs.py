"""A word problem's formalisation read and evaluated exactly, never executed (verify/math/programs.py)."""

import pytest
import sympy

from reasonforge.errors import ArtifactSyntaxError
from reasonforge.lang.math.quantities import grounding_values, stated_quantities
from reasonforge.verify.math.programs import MAX_PROGRAM_CHARS, MAX_PROGRAM_LINES, read_program

QUESTION = ("A baker sells 3 dozen muffins for $2 each and gives away a quarter of them. How many dollars does he "
            "make in a week?")
GROUNDING = grounding_values(stated_quantities(QUESTION), [QUESTION])


def test_a_program_is_evaluated_exactly_with_every_value_named():
    program = read_program("```python\nmuffins = 3 * 12\nsold = muffins * 3 / 4\nanswer = sold * 2 * 7\n```",
                           GROUNDING)
    assert program.answer == 378
    assert program.quantities() == {36: "muffins", 27: "sold", 378: "answer"}
    assert read_program("half = 3 / 4 * 2\nanswer = half / 4", GROUNDING).answer == sympy.Rational(3, 8)


@pytest.mark.parametrize(("text", "why"), [
    ("muffins = 3 * 13\nanswer = muffins", "13 is not a quantity the question states"),  # an invented number
    ("answer = 3 * 5280", "5280 is not a quantity"),  # a unit constant of units the question never names
    ("import os\nanswer = 3", "not an assignment"),
    ("answer = __import__('os')", "unexpected character"),
    ("answer = sold * 2", "sold is used before any line assigns it"),
    ("sold = 3 * 2", "the last line must assign `answer`"),
    ("zero = 3 - 3\nanswer = 2 / zero", "has no value"),
    ("", "has no assignment"),
    ("answer == 3", "not an assignment"),
])
def test_what_is_not_a_grounded_program_of_assignments_is_refused_naming_the_line(text, why):
    with pytest.raises(ArtifactSyntaxError, match=why):
        read_program(text, GROUNDING)


def test_a_program_is_bounded():
    with pytest.raises(ArtifactSyntaxError, match="over the cap"):
        read_program("x = 3\n" * (MAX_PROGRAM_CHARS // 4), GROUNDING)
    with pytest.raises(ArtifactSyntaxError, match=f"over the cap of {MAX_PROGRAM_LINES}"):
        read_program("x = 3\n" * (MAX_PROGRAM_LINES + 1) + "answer = x", GROUNDING)
    with pytest.raises(ArtifactSyntaxError, match="has no value|too large|over the cap"):
        read_program("x = 12 ^ 12 ^ 12\nanswer = x", GROUNDING)
