"""Word rules: plurals, predicate and constant names, plural noun vs adjective."""

import pytest

from reasonforge.lang.english.lexicon import (
    Lexicon,
    constant_name,
    looks_plural,
    predicate_name,
    singularize,
    third_person,
)


@pytest.mark.parametrize(
    ("plural", "singular"),
    [
        ("wumpuses", "wumpus"), ("impuses", "impus"), ("butterflies", "butterfly"), ("ladies", "lady"),
        ("tabbies", "tabby"), ("sheep", "sheep"), ("people", "person"), ("men", "man"),
        ("children", "child"), ("mammals", "mammal"), ("invertebrates", "invertebrate"), ("boxes", "box"),
        ("houses", "house"), ("glasses", "glass"), ("wolves", "wolf"), ("cats", "cat"), ("bees", "bee"),
        ("wumpus", "wumpus"), ("nervous", "nervous"), ("cat", "cat"),
        ("uses", "use"),  # four letters ending in "uses": once an IndexError that crashed the translator
    ],
)
def test_singularize(plural, singular):
    assert singularize(plural) == singular


def test_looks_plural_tells_plural_nouns_from_s_adjectives():
    assert looks_plural("rompuses") and looks_plural("lepidopterans") and looks_plural("men")
    assert not looks_plural("nervous") and not looks_plural("luminous") and not looks_plural("small")


@pytest.mark.parametrize(
    ("words", "name"),
    [(["six-legged"], "SixLegged"), (["Mersenne", "prime"], "MersennePrime"), (["painted", "lady"], "PaintedLady"),
     (["warm-blooded"], "WarmBlooded"), (["prime", "number"], "PrimeNumber"), (["prime"], "Prime")],
)
def test_predicate_name(words, name):
    assert predicate_name(words) == name


def test_constant_name():
    assert constant_name(["Fae"]) == "fae"
    assert constant_name(["bald", "eagle"]) == "bald_eagle"
    assert constant_name(["127"]) == "n127"
    assert constant_name(["X"]) == "c_x"  # never captured by the variable x


def test_third_person():
    assert [third_person(v) for v in ("see", "chase", "need", "carry", "kiss")] == [
        "sees", "chases", "needs", "carries", "kisses"]


def test_lexicon_uses_the_theory_then_the_word_form():
    lexicon = Lexicon.from_texts(["Max is a tumpus. Max is nervous. Every wumpus is small."])
    assert lexicon.plural_is_noun("tumpuses")  # "a tumpus" seen
    assert not lexicon.plural_is_noun("nervous")  # seen as an adjective
    assert lexicon.plural_is_noun("rompuses")  # unseen: an -es plural by form
    assert not lexicon.plural_is_noun("small")
