"""The quantities a word problem states, and the operands none of them grounds."""

from __future__ import annotations

import sympy

from reasonforge.lang.math import extract
from reasonforge.lang.math.quantities import (
    Grounds,
    fraction_parts,
    grounding_values,
    stated_forms,
    stated_quantities,
    ungrounded_operands,
    unit_constants,
)

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


# ---- the grounding rule (Grounds): stated quantities, grounded results, constants of the question's units -----------
DUCKS = ("Janet’s ducks lay 16 eggs per day. She eats three for breakfast every morning and bakes muffins for her "
         "friends every day with four. She sells the remainder at the farmers' market daily for $2 per fresh duck egg. "
         "How much in dollars does she make every day at the farmers' market?")


def _grounds(question: str) -> Grounds:
    stated = stated_quantities(question)
    return Grounds(values={*stated_forms(stated), *unit_constants([question])}, parts=fraction_parts(stated))


def _walk(question: str, *texts: str) -> list[list[str]]:
    """The ungrounded operands of each text's relations, walked in order."""
    grounds = _grounds(question)
    return [[m.operand for rel in extract(t).relations for m in grounds.walk(rel)] for t in texts]


def test_a_result_grounds_only_when_its_operands_do() -> None:
    assert _walk(DUCKS, "4 + 1 = 5", "16 - 3 - 5 = 8", "8 * 2 = 16") == [["1"], ["5"], ["8"]]
    assert _walk(DUCKS, "16 - 3 - 4 = 9", "9 * 2 = 18") == [[], []]
    assert _walk(DUCKS, "16 - 3 - (4 + 1) = 8") == [["1"]]


def test_names_carry_the_grounding_of_their_derivation() -> None:
    assert _walk(DUCKS, "Let m = 5", "16 - 3 - m = 8") == [["5"], ["m (from 5)"]]
    assert _walk(DUCKS, "Let e = 16", "e - 3 - 5 = 8") == [[], ["5"]]
    assert _walk(DUCKS, "x = 16 - 3 - 5", "x = 8", "2x = 16") == [["5"], ["x (from 5)"], ["x (from 5)"]]
    assert _walk(DUCKS, "Let x = 16 - 3 - 4", "x * 2 = 18") == [[], []]
    # an unknown is no operand; solved from grounded operands it is grounded
    assert _walk("Jim has 301 models: 3 more than twice the Chevys, and 4 times as many Buicks as Fords.",
                 "Fords: 3 + 2x", "Buicks: 4(3 + 2x) = 12 + 8x", "x + 3 + 2x + 12 + 8x = 301", "11x + 15 = 301",
                 "11x = 286", "x = 26", "12 + 8(26) = 220") == [[]] * 7


def test_nothing_is_grounded_for_free() -> None:
    # 1 and 0 only where they change nothing; an exponent belongs to its operator
    assert _walk(DUCKS, "16 - 3 - 4 - 1 = 8", "(16 - 3 - 4) * 1 = 9", "9 / 1 + 0 = 9", "3^2 - 4 = 5") == [
        ["1"], [], [], []]
    # a whole side whose value happens to be known is no derivation of it
    assert _walk(DUCKS, "16 - 3 - 11 = 2") == [["11"]]
    assert _walk(DUCKS, "16 - 3 - 5 = 2 * 4") == [["5"]]


def test_a_fraction_s_parts_ground_a_product_never_a_binding() -> None:
    question = "A tank holds 20 liters and is 3/4 full. How many liters are in it?"
    assert _walk(question, "20 * 3 / 4 = 15") == [[]]
    assert _walk(question, "Let n = 3") == [["3"]]
    assert _walk("A right triangle has legs 3 and 4/3.", "Let y = 4") == [["4"]]


def test_a_radical_is_one_quantity() -> None:
    (radical,) = [q for q in stated_quantities("legs 3 and 4√3") if q.value != 3]
    assert radical.value == 4 * sympy.sqrt(3) and radical.text == "4√3"
    assert [q.value for q in stated_quantities("legs 3 and $4\\sqrt{3}$")] == [3, 4 * sympy.sqrt(3)]
    assert _walk("legs 3 and 4√3", "Let y = 4") == [["4"]]


def test_a_unit_constant_needs_every_unit_it_converts_between() -> None:
    assert sympy.Integer(7) not in unit_constants([DUCKS])  # days, but no weeks
    assert sympy.Integer(7) in unit_constants(["He runs 3 miles a day. How far does he run in a week?"])
    assert sympy.Integer(100) not in unit_constants(["She sells eggs for $2."])  # no cents
    assert sympy.Integer(100) in unit_constants(["It costs 50 cents, or half a dollar."])
    assert {sympy.Integer(5), sympy.Integer(10)} <= unit_constants(["He has 6 nickels and 4 dimes."])
    assert sympy.Integer(25) not in unit_constants(["She ate a quarter of the cake."])  # ¼, not a coin
    assert sympy.Integer(7) in grounding_values([], ["every day"])  # a formalisation's constants: any unit


def test_money_after_a_word_is_a_quantity() -> None:
    assert [q.value for q in stated_quantities("2 soft drinks for$ 4 each")] == [2, 4]


def test_a_coefficient_is_grounded_as_a_term_never_as_a_bare_number() -> None:
    # 4x + x = 5x is algebra, but its 5 counts the 1 that x silently is: no source for a bare 5
    assert _walk(DUCKS, "Let x be the eggs. 4x + x = 5x", "16 - 3 - 5 = 8") == [[], ["5"]]


def test_a_tainted_name_stays_tainted_in_any_expression() -> None:
    assert _walk(DUCKS, "Let x be the eggs. x + 3 = 3 + x", "Let x = 5", "16 - 3 - x = 8", "2(x + 3) = 16") == [
        [], ["5"], ["x (from 5)"], ["x (from 5)"]]


def test_a_coefficient_grounds_a_number_only_where_its_unknown_is_spoken_of() -> None:
    # 5x = 16 - 3 - 3 = 10 solves to x = 10/5: the 5 is x's coefficient; beside no x it is an invented 5
    assert _walk(DUCKS, "Let x be the eggs. 4x + x = 5x", "5x = 16 - 3 - 3", "x = 10/5 = <<10/5=2>>2",
                 "16 - 5 = 11") == [[], [], [], ["5"]]
    # beside x, the coefficient may only multiply or divide: "x = 16 - 5" invents a quantity 5
    assert _walk(DUCKS, "Let x be the eggs. 4x + x = 5x", "x = 16 - 5") == [[], ["5"]]
