"""Sentence splitting, question detection and conclusion markers."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reasonforge.lang.english.sentences import sentence_role, split_query, split_sentences


def test_split_sentences_keeps_numbers_and_abbreviations():
    text = "127 is a Mersenne prime. 3 is prime. Mr. Smith is tall! Is Bob red?"
    assert split_sentences(text) == ["127 is a Mersenne prime.", "3 is prime.", "Mr. Smith is tall!", "Is Bob red?"]


@pytest.mark.parametrize(
    "question",
    [
        "True or false: Fae is not cold-blooded.",
        "Is the following statement true or false? Fae is not cold-blooded.",
        "Based on the above information, is the following statement true, false, or unknown? Fae is not cold-blooded.",
    ],
)
def test_split_query_takes_the_statement_out_of_the_theory(question):
    split = split_query(f"Every cat is a feline. Fae is a cat. {question}")
    assert split.theory == ["Every cat is a feline.", "Fae is a cat."]
    assert split.statements == ["Fae is not cold-blooded."]


def test_plain_questions_are_not_theory():
    assert split_query("All men are mortal. Is Socrates mortal?").theory == ["All men are mortal."]


@pytest.mark.parametrize(
    ("sentence", "premises", "claim", "marked"),
    [
        ("Therefore whales are warm-blooded.", [], "whales are warm-blooded.", True),
        ("So, Socrates is mortal.", [], "Socrates is mortal.", True),
        ("Hence Bob is red.", [], "Bob is red.", True),
        ("Thus Bob is red.", [], "Bob is red.", True),
        ("Consequently, Bob is red.", [], "Bob is red.", True),
        ("Since Bob is big, Bob is red.", ["Bob is big"], "Bob is red.", True),
        ("Bob is red because Bob is big.", ["Bob is big."], "Bob is red", True),
        ("Bob is big, so Bob is red.", ["Bob is big"], "Bob is red.", True),
        ("Therefore, since Bob is big, Bob is red.", ["Bob is big"], "Bob is red.", True),
        ("Given that Bob is big, Bob is red.", ["Bob is big"], "Bob is red.", True),
        ("Socrates is a man.", [], "Socrates is a man.", False),
    ],
)
def test_sentence_role(sentence, premises, claim, marked):
    role = sentence_role(sentence)
    assert (role.premises, role.claim, role.marked) == (premises, claim, marked)


_PIECES = ["Rex", "is", "a", "cat", " ", "  ", ",", ".", "because", "since", "so", "Therefore", "Since", "given that",
           "not", "and", "or", "if", "then", "It is not true that", "\n", "\t"]


@settings(max_examples=40, deadline=None)  # a hang is caught by the suite's timeout, not by a clock here
@given(st.lists(st.sampled_from(_PIECES), min_size=1, max_size=3000))
def test_sentence_handling_is_linear_on_long_text(pieces):
    text = " ".join(pieces)
    for sentence in split_sentences(text):
        role = sentence_role(sentence)
        assert role.claim.strip() or not sentence.strip()
    split_query(text)


def test_long_runs_of_spaces_do_not_backtrack():
    # `^(.+?)\s*,?\s+because` took 72 s on 2,000 spaces; 20,000 would take days
    assert sentence_role("a" + " " * 20_000 + "b").claim.startswith("a")
    assert sentence_role("Since a" + " " * 20_000 + ", b").premises == ["a"]
    assert sentence_role("Therefore " * 5_000 + "Bob is red.").claim == "Bob is red."


def test_a_marker_with_nothing_after_it_is_not_a_claim():
    # found by the property test above: ", so" ending the sentence left an empty claim
    role = sentence_role("Rex , so")
    assert role.claim.strip()


@pytest.mark.parametrize(
    ("text", "theory"),
    [
        ("All men are mortal. Is Socrates mortal? Socrates is a man.", ["All men are mortal.", "Socrates is a man."]),
        ('All men are mortal. "Is Socrates mortal?" Socrates is a man.', ["All men are mortal.", "Socrates is a man."]),
        ("Is Socrates mortal? socrates is a man.", ["socrates is a man."]),  # "?" ends a sentence before lower case
        ("Is Socrates mortal?! Socrates is a man.", ["Socrates is a man."]),
        ("Socrates is a man (is he mortal?). All men are mortal.", ["All men are mortal."]),
        ("Could Socrates be mortal. Socrates is a man.", ["Socrates is a man."]),  # an interrogative without its "?"
        ("Does Socrates die. Will Socrates die. Socrates is a man.", ["Socrates is a man."]),
        ("Which man is mortal. Socrates is a man.", ["Socrates is a man."]),
        ("Is Socrates mortal? True or false: Socrates is a man.", []),
    ],
)
def test_a_question_is_never_theory_wherever_and_however_it_is_asked(text, theory):
    assert split_query(text).theory == theory


def test_a_sentence_that_only_opens_like_a_question_word_stays_theory():
    # "When …" is a conditional the reader refuses, not a question: it must stay theory, so that it is named unread
    assert split_query("When Rex is a cat, Rex is an animal.").theory == ["When Rex is a cat, Rex is an animal."]


def test_sentences_end_after_closing_quotes_and_brackets():
    assert split_sentences('He said "Rex is red." Bob is blue.') == ['He said "Rex is red."', "Bob is blue."]
    assert split_sentences("Rex is red (a cat). Bob is blue.") == ["Rex is red (a cat).", "Bob is blue."]
