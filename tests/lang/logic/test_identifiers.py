"""Identifiers are read as a person reads them: NFKC form, one script, no non-Latin look-alikes of Latin names."""

import pytest

from reasonforge.errors import ArtifactSyntaxError
from reasonforge.lang.logic import Atom, Const, parse_fol_artifact, parse_formula
from reasonforge.lang.logic.parse import IdentifierError, identifier_problem, normalise_identifier


@pytest.mark.parametrize(("written", "read"), [
    ("Ｃat(ｔom)", "Cat(tom)"),  # fullwidth letters are the ASCII ones
    ("ﬁsh(a)", "fish(a)"),  # a ligature is its letters
    ("Cat(Kelvin)", "Cat(Kelvin)"),  # the Kelvin sign K is K
])
def test_nfkc_forms_are_one_name(written, read):
    assert parse_formula(written) == parse_formula(read)


def test_a_fullwidth_keyword_is_the_keyword():
    assert parse_formula("ｆorall x Cat(x)") == parse_formula("forall x Cat(x)")


@pytest.mark.parametrize(("text", "words", "column"), [
    ("Cаt(tom)", "mixes scripts (Latin 'C', Cyrillic 'а')", 1),  # Cyrillic а in a Latin word
    ("Cat(tοm)", "mixes scripts", 5),  # Greek omicron
    ("Сор(tom)", "reads as 'Cop'", 1),  # all Cyrillic, every letter looks Latin
    ("α(b)", "Greek letters that each look Latin", 1),
    ("x¼(a)", "not an identifier", 1),  # ¼ becomes 1⁄4: the fraction slash is not part of a name
])
def test_look_alikes_are_refused_with_the_reason_and_place(text, words, column):
    with pytest.raises(ArtifactSyntaxError) as info:
        parse_formula(text)
    assert words in info.value.message and (info.value.line, info.value.column) == (1, column)


def test_the_error_points_at_the_identifier():
    with pytest.raises(ArtifactSyntaxError) as info:
        parse_fol_artifact("Cat(tom)\n⊢ Cat(tom) ∧ Cаt(tom)")
    assert (info.value.line, info.value.column) == (2, 14)


@pytest.mark.parametrize("name", ["Café", "naïve", "λ", "日本語", "ひらがなカタカナ漢字", "кошка", "GrowthCompanies’Stocks", "x_1"])
def test_honest_names_in_one_script_are_kept(name):
    assert normalise_identifier(name) == name
    assert identifier_problem(name) is None


def test_a_contradiction_hidden_by_a_look_alike_cannot_be_written():
    # To a reader "Cat(tom) ∧ ¬Cat(tom)" is contradictory; with a Cyrillic а the solver would see two predicates.
    with pytest.raises(ArtifactSyntaxError, match="mixes scripts"):
        parse_formula("Cat(tom) ∧ ¬Cаt(tom)")
    assert parse_formula("Ｃat(tom) ∧ ¬Cat(tom)").args[0] == Atom("Cat", (Const("tom"),))


def test_identifier_error_is_a_value_error_with_the_reason():
    with pytest.raises(IdentifierError, match="mixes scripts"):
        normalise_identifier("Dоg")
