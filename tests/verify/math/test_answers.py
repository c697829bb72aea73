"""Final-answer comparers: the reader decides what it reads exactly, math-verify the LaTeX forms it cannot."""

import threading

from reasonforge.verify.math.answers import MAX_ANSWER_CHARS, answers_match, math_verify_same, reader_same


def test_the_reader_compares_values_exactly_or_within_written_rounding():
    assert reader_same("72", "\\boxed{72}") is True
    assert reader_same("0.5", "50%") is True
    assert reader_same("1/3", "0.33") is True  # two written decimals: within their rounding
    assert reader_same("1/3", "0.4") is False
    assert reader_same("10", "11") is False
    assert reader_same("x = 5", "y = 5") is None  # different names: nothing to compare


def test_math_verify_reads_what_the_reader_cannot():
    assert reader_same("\\{1,2\\}", "\\{2,1\\}") is None
    assert math_verify_same("\\{1,2\\}", "\\{2,1\\}") is True
    assert math_verify_same("2\\sqrt{2}", "\\sqrt{8}") is True
    assert math_verify_same("[1,2]", "(1,2]") is False
    assert math_verify_same("5", "five-ish") is None  # prose it reads as symbols is not an answer
    assert answers_match("\\frac{1}{2}", "0.5") == (True, "math-verify")
    assert answers_match("72", "72.0") == (True, "reader")


def test_math_verify_is_undecided_off_the_main_thread_and_on_oversized_text():
    got: list[bool | None] = []
    worker = threading.Thread(target=lambda: got.append(math_verify_same("\\{1,2\\}", "\\{2,1\\}")))
    worker.start()
    worker.join(timeout=120)
    assert got == [None]  # its timeouts need the main thread: undecided, never unbounded
    assert math_verify_same("1" * (MAX_ANSWER_CHARS + 1), "1") is None
    assert reader_same("1" * (MAX_ANSWER_CHARS + 1), "1") is None
