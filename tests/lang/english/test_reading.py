"""The English reader's view of a step: its supporting claims (the premises it states), its conclusion, and whether it
claims an inference."""

import pytest

from reasonforge.lang.english import ClaimRole, EnglishReader
from reasonforge.lang.logic import to_text


def read(content: str, claimed: str | None = None):
    reader = EnglishReader()
    return reader.read_step(content, claimed, reader.parser([content, claimed or ""]))


@pytest.mark.parametrize(("content", "inference"), [
    ("All men are mortal. Socrates is a man. Therefore Socrates is mortal.", True),
    ("Since Socrates is a man, Socrates is mortal.", True),
    ("Socrates is mortal because Socrates is a man.", True),
    ("So Socrates is mortal.", True),
    ("Socrates is mortal.", False),
    ("All men are mortal. Socrates is a man.", False),
])
def test_a_step_claims_an_inference_when_it_marks_a_conclusion(content, inference):
    assert read(content).inference is inference


def test_an_unmarked_steps_sentences_are_the_premises_its_claimed_conclusion_is_drawn_from():
    reading = read("All men are mortal. Socrates is a man.", "Socrates is mortal.")
    assert reading.inference
    assert [p.role for p in reading.parts] == [ClaimRole.SUPPORT, ClaimRole.SUPPORT, ClaimRole.CLAIMED]
    assert to_text(reading.conclusion) == "Mortal(socrates)"
    assert len(reading.claims) == 3  # dependants still build on everything the step asserts


def test_a_claimed_conclusion_the_step_already_states_adds_nothing():
    reading = read("Socrates is mortal.", "Socrates is mortal.")
    assert not reading.inference and [p.role for p in reading.parts] == [ClaimRole.CONCLUSION]


def test_a_marked_steps_claimed_conclusion_is_added_to_its_conclusion():
    reading = read("Socrates is a man. So Socrates is mortal.", "Socrates is a philosopher.")
    assert [p.role for p in reading.parts] == [ClaimRole.SUPPORT, ClaimRole.CONCLUSION, ClaimRole.CLAIMED]
    assert to_text(reading.conclusion) == "Mortal(socrates) ∧ Philosopher(socrates)"


def test_a_question_in_a_step_leaves_it_unread():
    assert read("Is Socrates mortal? So Socrates is mortal.").error is not None
