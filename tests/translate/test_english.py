"""Sentence → FOL rules, one case per template; uncovered sentences raise NoRule (never a guess)."""

import pytest

from reasonforge.lang.logic import to_text
from reasonforge.translate.english import EnglishParser, NoRule
from reasonforge.translate.lexicon import Lexicon


def fol(sentence: str, *context: str, either_or: str = "exclusive") -> str:
    parser = EnglishParser(Lexicon.from_texts([sentence, *context]), either_or=either_or)
    return to_text(parser.parse(sentence), explicit=True)


CASES = [
    # the plan's whale example and the classic syllogisms
    ("All mammals are warm-blooded.", "∀x (Mammal(x) → WarmBlooded(x))"),
    ("Whales are mammals.", "∀x (Whale(x) → Mammal(x))"),
    ("All men are mortal.", "∀x (Man(x) → Mortal(x))"),
    ("Socrates is a man.", "Man(socrates)"),
    ("Socrates is mortal.", "Mortal(socrates)"),
    ("No reptiles are mammals.", "∀x (Reptile(x) → ¬Mammal(x))"),
    ("No cat is a dog.", "∀x (Cat(x) → ¬Dog(x))"),
    ("Some mammals are whales.", "∃x (Mammal(x) ∧ Whale(x))"),
    ("Some mammals are not whales.", "∃x (Mammal(x) ∧ ¬Whale(x))"),
    ("Not all cats are black.", "¬(∀x (Cat(x) → Black(x)))"),
    ("Every man is mortal.", "∀x (Man(x) → Mortal(x))"),
    ("Each whale is a mammal.", "∀x (Whale(x) → Mammal(x))"),
    ("A whale is a mammal.", "∀x (Whale(x) → Mammal(x))"),
    ("Socrates is not a god.", "¬God(socrates)"),
    # connectives
    ("If Socrates is a man then Socrates is mortal.", "Man(socrates) → Mortal(socrates)"),
    ("If Socrates is a man, Socrates is mortal.", "Man(socrates) → Mortal(socrates)"),
    ("Socrates is mortal if Socrates is a man.", "Man(socrates) → Mortal(socrates)"),
    ("Bob is red if and only if Bob is hot.", "Red(bob) ↔ Hot(bob)"),
    ("Bob is red or Bob is blue.", "Red(bob) ∨ Blue(bob)"),
    ("Bob is red or blue.", "Red(bob) ∨ Blue(bob)"),
    ("Either Bob is red or Bob is blue.", "Red(bob) ⊕ Blue(bob)"),
    ("Bob is either red or blue.", "Red(bob) ⊕ Blue(bob)"),
    ("Bob is neither red nor blue.", "¬Red(bob) ∧ ¬Blue(bob)"),
    ("Bob is big, red, and kind.", "Big(bob) ∧ Red(bob) ∧ Kind(bob)"),
    ("Socrates is a man and Plato is a man.", "Man(socrates) ∧ Man(plato)"),
    ("Socrates and Plato are men.", "Man(socrates) ∧ Man(plato)"),
    ("It is not the case that Bob is red.", "¬Red(bob)"),
    # something / everything as variables
    ("If something is big then it is red.", "∀x (Big(x) → Red(x))"),
    ("If an animal is big then it is strong.", "∀x ((Animal(x) ∧ Big(x)) → Strong(x))"),
    ("Everything is red.", "∀x (Red(x))"),
    ("Everything that is big is red.", "∀x (Big(x) → Red(x))"),
    ("Someone is kind.", "∃x (Kind(x))"),
    ("Nothing is red.", "∀x (¬Red(x))"),
    # PrOntoQA templates
    ("Every cat is a feline.", "∀x (Cat(x) → Feline(x))"),
    ("Each lepidopteran is an insect.", "∀x (Lepidopteran(x) → Insect(x))"),
    ("Butterflies are lepidopterans.", "∀x (Butterfly(x) → Lepidopteran(x))"),
    ("Every insect is six-legged.", "∀x (Insect(x) → SixLegged(x))"),
    ("Wumpuses are red.", "∀x (Wumpus(x) → Red(x))"),
    ("Every arthropod is not bony.", "∀x (Arthropod(x) → ¬Bony(x))"),
    ("Each yumpus is not shy.", "∀x (Yumpus(x) → ¬Shy(x))"),
    ("Jompuses are not shy.", "∀x (Jompus(x) → ¬Shy(x))"),
    ("Sally is a painted lady.", "PaintedLady(sally)"),
    ("Each painted lady is a butterfly.", "∀x (PaintedLady(x) → Butterfly(x))"),
    ("Painted ladies are butterflies.", "∀x (PaintedLady(x) → Butterfly(x))"),
    ("127 is a Mersenne prime.", "MersennePrime(n127)"),
    ("Mersenne primes are prime numbers.", "∀x (MersennePrime(x) → PrimeNumber(x))"),
    ("Prime numbers are prime.", "∀x (PrimeNumber(x) → Prime(x))"),
    ("Real numbers are real.", "∀x (RealNumber(x) → Real(x))"),
    ("Sheep are mammals.", "∀x (Sheep(x) → Mammal(x))"),
    ("Protostomes are invertebrates.", "∀x (Protostome(x) → Invertebrate(x))"),
    ("Arthropods are small.", "∀x (Arthropod(x) → Small(x))"),
    ("Zumpuses are rompuses.", "∀x (Zumpus(x) → Rompus(x))"),
    ("Numpuses are nervous.", "∀x (Numpus(x) → Nervous(x))"),
    ("Max is not sour.", "¬Sour(max)"),
    ("Fae is not cold-blooded.", "¬ColdBlooded(fae)"),
    # ProofWriter forms
    ("The bear needs the lion.", "Needs(bear, lion)"),
    ("The cat does not eat the squirrel.", "¬Eats(cat, squirrel)"),
    ("The bald eagle is big.", "Big(bald_eagle)"),
    ("If something sees the lion then it likes the bald eagle.", "∀x (Sees(x, lion) → Likes(x, bald_eagle))"),
    ("If someone is kind and round then they are red.", "∀x ((Kind(x) ∧ Round(x)) → Red(x))"),
    ("Red, cold things are round.", "∀x ((Red(x) ∧ Cold(x)) → Round(x))"),
    ("All quiet things are rough.", "∀x (Quiet(x) → Rough(x))"),
    ("Rough people are cold.", "∀x (Rough(x) → Cold(x))"),
    ("If Dave is smart and Dave is kind then Dave is quiet.", "(Smart(dave) ∧ Kind(dave)) → Quiet(dave)"),
    ("If someone sees the cat and they are not green then they see the cow.",
     "∀x ((Sees(x, cat) ∧ ¬Green(x)) → Sees(x, cow))"),
    ("If something visits the bear and the bear does not chase it then it needs the squirrel.",
     "∀x ((Visits(x, bear) ∧ ¬Chases(bear, x)) → Needs(x, squirrel))"),
    ("If the rabbit is kind and the rabbit sees the squirrel then the squirrel needs the rabbit.",
     "(Kind(rabbit) ∧ Sees(rabbit, squirrel)) → Needs(squirrel, rabbit)"),
]


@pytest.mark.parametrize(("sentence", "expected"), CASES)
def test_template(sentence, expected):
    assert fol(sentence) == expected


def test_the_same_noun_gets_the_same_predicate_in_every_template():
    forms = ["Every wumpus is a dumpus.", "Wumpuses are dumpuses.", "Max is a dumpus.", "Each dumpus is a wumpus."]
    rendered = [fol(s) for s in forms]
    assert "Dumpus(x)" in rendered[0] and "Dumpus(x)" in rendered[1] and rendered[2] == "Dumpus(max)"
    assert "Wumpus(x)" in rendered[3]


def test_inclusive_either_or_is_an_option():
    assert fol("Either Bob is red or Bob is blue.", either_or="inclusive") == "Red(bob) ∨ Blue(bob)"


@pytest.mark.parametrize(
    "sentence",
    [
        "The moon is made of cheese.",  # preposition: no rule
        "Bob is very big.",  # adverb: no rule, and no guess
        "Bob is probably red.",
        "Cats eat mice.",  # generic object
        "He is red.",  # pronoun without antecedent
        "Bob's cat is red.",
        "Bob is taller than Alice.",
        "",
    ],
)
def test_uncovered_sentences_raise(sentence):
    parser = EnglishParser(Lexicon.from_texts([sentence]))
    with pytest.raises(NoRule):
        parser.parse(sentence)


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("Something is red if it is big.", "∀x (Big(x) → Red(x))"),
        ("If something is big then something is red.", "∀x (Big(x) → (∃y (Red(y))))"),
        ("Bob is red if something is big.", "(∃y (Big(y))) → Red(bob)"),
    ],
)
def test_indefinites_bind_in_order_of_mention(sentence, expected):
    assert fol(sentence) == expected
