"""The quantities a word problem states, and the operands none of them grounds."""

from __future__ import annotations

import sympy

from reasonforge.lang.math import extract
from reasonforge.lang.math.quantities import grounding_values, stated_quantities, ungrounded_operands

JANET = ("Janet's ducks lay 16 eggs per day. She eats three for breakfast every morning and bakes muffins with "
         "four. She sells the rest for $2 per egg, a 25% markup over one third of a dozen, 1,250.50 in all.")


def _values(text: str) -> list[sympy.Rational]:
    return [q.value for q in stated_quantities(text)]


def test_digits_words_money_percent_and_fractions_are_read_with_what_they_count() -> None:
    quantities = stated_quantities(JANET)
    assert [q.text for q in quantities if q.text[0].isdigit() or q.text[0] == "$"][:2] == ["16", "$2"]
    assert quantities[0].counts == "eggs per day"
    values = _values(JANET)
    for want in (16, 3, 4, 2, 25, sympy.Rational(1, 3), 12, sympy.Rational(125050, 100)):
        assert sympy.Rational(want) in values, want
    assert any(q.percent and q.value == 25 for q in quantities)


def test_names_with_digits_are_not_quantities() -> None:
    assert _values("Let x1 and a_2 be the roots.") == []


def test_grounding_values_add_the_forms_solutions_write_and_unit_constants_only_with_their_units() -> None:
    stated = stated_quantities("The shirt costs $40 and is 20% off for 30 minutes.")
    values = grounding_values(stated, ["The shirt costs $40 and is 20% off for 30 minutes."])
    for want in ("0.2", "80", "0.8", "60", "0.5"):  # the fraction, the complement, minutes' constant, 30 min in h
        assert sympy.Rational(want) in values, want
    assert sympy.Integer(7) not in values  # nobody spoke of days or weeks
    assert sympy.Integer(7) in grounding_values([], ["every day"])


def test_an_operand_from_nowhere_is_named_and_results_ground_later_relations() -> None:
    allowed = grounding_values(stated_quantities(JANET), [JANET])
    rels = extract("16 - 3 - 4 = 9, and 9 * 2 = 18, then 18 + 5 = 23.").claims
    missing = ungrounded_operands(rels, allowed)
    assert [m.operand for m in missing] == ["5"]
    assert missing[0].relation.text == "18 + 5 = 23"


def test_the_left_side_of_a_chained_equality_grounds_its_right_side() -> None:
    rels = extract("S = 4*3 - 5 = 12 - 5 = 7").claims + extract("So 4*3 - 5 = 12 - 5.").claims
    assert ungrounded_operands(rels, frozenset({sympy.Integer(4), sympy.Integer(3), sympy.Integer(5)})) == []


def test_a_lone_result_is_not_an_operand() -> None:
    rels = extract("16 - 3 = 13").claims
    assert ungrounded_operands(rels, frozenset({sympy.Integer(16), sympy.Integer(3)})) == []
    assert [m.operand for m in ungrounded_operands(extract("13 = 16 - 2").claims,
                                                   frozenset({sympy.Integer(16)}))] == ["2"]


def test_a_number_word_before_percent_is_a_percent_and_counts_keep_their_last_letters():
    (twenty,) = [q for q in stated_quantities("He needs twenty percent more.") if q.value == 20]
    assert twenty.percent and sympy.Rational("0.2") in grounding_values([twenty], [])
    (orange,) = stated_quantities("It costs 1 orange per day.")
    assert orange.counts == "orange per day"
