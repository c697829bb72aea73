"""The offline reader of code steps (examples, the claim phrase table) and the judging of step checks: no sandbox."""

from __future__ import annotations

import ast

import pytest

from reasonforge.types import Domain, ProofLevel, StepContext
from reasonforge.verify.code.policy import hypothesis_tampering
from reasonforge.verify.code.step_checks import Origin, plan_step_checks
from reasonforge.verify.code.step_text import ClaimKind, doctest_blocks, read_claims
from reasonforge.verify.code.values import decode_value, encode_value

LARGEST = "def largest(xs):\n    return max(xs)\n\ndef test_largest():\n    assert largest([1, 2]) == 2\n"


def ctx(content: str, question: str = "") -> StepContext:
    return StepContext(step_id=1, content=content, original_query=question, domain=Domain.CODE,
                       proof_level=ProofLevel.STANDARD)


@pytest.mark.parametrize(("text", "kind"), [
    ("The function returns the largest element.", ClaimKind.MAX),
    ("`largest(xs)` returns the maximum of the list.", ClaimKind.MAX),
    ("It returns the smallest value in `xs`.", ClaimKind.MIN),
    ("Return the list sorted in descending order.", ClaimKind.SORTED_DESC),
    ("This returns a sorted copy of the list.", ClaimKind.SORTED),
    ("It returns the sum of the elements of the list in O(n) time.", ClaimKind.SUM),
    ("It returns the reversed string.", ClaimKind.REVERSED_STR),
    ("It returns the list reversed.", ClaimKind.REVERSED_LIST),
    ("It returns the number of characters in the string.", ClaimKind.LENGTH_STR),
    ("It returns the length of the list.", ClaimKind.LENGTH_LIST),
])
def test_the_phrase_table_reads_plain_claims(text, kind):
    claims = read_claims(text)
    assert [c.kind for c in claims] == [kind], claims


@pytest.mark.parametrize("text", [
    "It returns the largest sum of a contiguous subarray.",  # another quantity
    "It returns the maximum of a and b.",  # not one sequence
    "It returns the largest element and its index.",  # more than the element
    "It does not return the largest element.",  # negated
    "It should return the largest element.",  # a requirement, not a claim about the code
    "If the list is sorted, it returns the smallest element.",  # conditional
    "It returns the sum of the even numbers.",  # a filtered sum
    "It sorts the list.",  # in place or not: the text does not say what is returned
])
def test_phrasing_the_table_does_not_know_is_not_read(text):
    assert read_claims(text) == []


def test_doctest_blocks_in_docstrings_end_at_the_closing_quotes():
    text = 'def f(x):\n    """Double.\n\n    >>> f(2)\n    4\n    """\n    return 2 * x\n'
    assert doctest_blocks(text) == [[("f(2)", "4")]]
    assert doctest_blocks('    >>> f(1)\n    2"""') == [[("f(1)", "2")]]


def test_examples_of_the_step_and_the_question_are_planned():
    question = 'def largest(xs):\n    """Largest.\n    >>> largest([4, 9])\n    9\n    """\n'
    plan = plan_step_checks(ctx("We write it.\n>>> largest([3, 1, 2])\n3", question), ast.parse(LARGEST))
    assert [(e.origin, e.lines) for e in plan.examples] == [
        (Origin.STEP, (("largest([3, 1, 2])", "3"),)), (Origin.QUESTION, (("largest([4, 9])", "9"),))]
    assert plan.unaligned is None and plan.claims == []


def test_a_question_example_about_other_code_is_skipped_with_a_note():
    plan = plan_step_checks(ctx("Helper first.", ">>> solve([1])\n1"), ast.parse(LARGEST))
    assert plan.examples == [] and plan.unaligned is None
    assert any("solve" in n for n in plan.notes)


def test_a_step_example_about_code_the_artifact_lacks_is_unaligned():
    plan = plan_step_checks(ctx(">>> smallest([3, 1])\n1"), ast.parse(LARGEST))
    assert plan.unaligned is not None and "smallest" in plan.unaligned


def test_a_claim_is_placed_on_the_function_the_sentence_names():
    src = LARGEST + "\ndef helper(xs):\n    return xs\n"
    plan = plan_step_checks(ctx("`largest` returns the largest element."), ast.parse(src))
    assert [(c.function, c.claim.kind) for c in plan.claims] == [("largest", ClaimKind.MAX)]
    assert len(plan.claims[0].inputs) == 40 and all(plan.claims[0].inputs)  # max needs non-empty lists


def test_a_claim_in_a_docstring_is_about_its_function():
    step = '```python\ndef top(xs):\n    """Return the largest element."""\n    return max(xs)\n```'
    src = "def top(xs):\n    return max(xs)\n\ndef other(xs):\n    return xs\n"
    plan = plan_step_checks(ctx(step), ast.parse(src))
    assert [c.function for c in plan.claims] == ["top"]


def test_a_claim_that_fits_several_functions_unnamed_is_unaligned():
    src = LARGEST + "\ndef other(xs):\n    return xs\n"
    plan = plan_step_checks(ctx("The function returns the largest element."), ast.parse(src))
    assert plan.claims == [] and plan.unaligned is not None and "several" in plan.unaligned


def test_unknown_phrasing_is_noted_not_checked():
    plan = plan_step_checks(ctx("It returns the element that beats all others."), ast.parse(LARGEST))
    assert plan.checks == 0 and any("phrase table" in n for n in plan.notes)
    evidence = plan.evidence(ast.parse(LARGEST), tests=1)
    assert evidence.kind == "author_tests" and "author's tests only" in evidence.aligned_claim
    assert "def largest(xs)" in evidence.aligned_claim


def _events(**results):
    return [{"ev": "step_check", "id": k, **v} for k, v in results.items()]


def test_judging_compares_literals_by_value_and_the_rest_by_repr():
    plan = plan_step_checks(ctx(">>> largest([3, 1, 2])\n3\n>>> largest(['a'])\n'a'\n>>> print(largest([5]))\n5"),
                            ast.parse(LARGEST))
    lines = [{"i": 0, "value": 3, "repr": "3", "printed": "", "error": None},
             {"i": 1, "value": "a", "repr": "'a'", "printed": "", "error": None},
             {"i": 2, "printed": "5\n", "error": None}]
    assert plan.judge(_events(e1={"lines": lines})) is None
    wrong = [{**lines[0], "value": 1, "repr": "1"}, *lines[1:]]
    assert "should give 3, but it returned 1" in (plan.judge(_events(e1={"lines": wrong})) or "")
    assert "did not run" in (plan.judge(_events(e1={"lines": lines[:2]})) or "")
    assert "did not report" in (plan.judge([]) or "")  # a missing result is a failure
    assert plan.judge(_events(e1={"lines": lines}) * 2) is not None  # so is a second one


def test_a_bool_only_equals_a_bool():
    plan = plan_step_checks(ctx(">>> largest([True])\nTrue"), ast.parse(LARGEST))
    assert plan.judge(_events(e1={"lines": [{"i": 0, "value": 1, "repr": "1", "error": None}]})) is not None
    assert plan.judge(_events(e1={"lines": [{"i": 0, "value": True, "repr": "True", "error": None}]})) is None


def test_an_expected_traceback_needs_that_exception():
    plan = plan_step_checks(ctx(">>> largest([])\nTraceback (most recent call last):\n...\nValueError: empty"),
                            ast.parse(LARGEST))
    assert plan.judge(_events(e1={"lines": [{"i": 0, "error": "ValueError: max() arg is empty"}]})) is None
    assert plan.judge(_events(e1={"lines": [{"i": 0, "error": "TypeError: no"}]})) is not None
    assert plan.judge(_events(e1={"lines": [{"i": 0, "value": 0, "repr": "0", "error": None}]})) is not None


def test_claims_are_judged_against_the_reference_on_every_input():
    plan = plan_step_checks(ctx("`largest` returns the largest element."), ast.parse(LARGEST))
    inputs = plan.claims[0].inputs
    right = _events(c1={"calls": [{"value": max(x), "repr": repr(max(x)), "error": None} for x in inputs]})
    assert plan.judge(right) is None
    wrong = _events(c1={"calls": [{"value": min(x), "repr": repr(min(x)), "error": None} for x in inputs]})
    assert "returns the largest element" in (plan.judge(wrong) or "")
    short = _events(c1={"calls": right[0]["calls"][:-1]})
    assert plan.judge(short) is not None


def test_values_round_trip_and_malformed_ones_are_refused():
    for value in [1, "a", [1, (2, 3)], {"k": {1, 2}}, frozenset({1}), b"x", 1.5, float("inf"), None, True]:
        assert decode_value(encode_value(value)) == value
    for bad in [{"$": "nope", "v": []}, {"$": "set", "v": [[1]]}, {"x": 1}, [[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]:
        with pytest.raises(ValueError):
            decode_value(bad)


@pytest.mark.parametrize(("src", "needle"), [
    ("from hypothesis import settings\nsettings.register_profile('x', max_examples=1)\n", "profile"),
    ("from hypothesis import settings\nsettings.load_profile('x')\n", "profile"),
    ("import hypothesis\nhypothesis.settings.default = None\n", "modifies hypothesis"),
    ("from hypothesis import core\n", "internal"),
    ("import hypothesis.internal.conjecture.engine as e\n", "internal"),
    ("import hypothesis.core\n", "internal"),
    ("from hypothesis import strategies as st\nst.integers = lambda: st.just(0)\n", "modifies hypothesis"),
    ("import hypothesis\nsetattr(hypothesis, 'given', None)\n", "modifies hypothesis"),
    ("def f(t):\n    t._hypothesis_internal_use_settings = None\n", "private"),
    ("x = getattr(f, '_hypothesis_internal_use_settings')\n", "private"),
])
def test_tampering_with_hypothesis_is_refused(src, needle):
    problem = hypothesis_tampering(ast.parse(src))
    assert problem is not None and needle in problem


def test_ordinary_hypothesis_use_is_not_refused():
    src = ("from hypothesis import given, settings, example, assume, strategies as st\n"
           "@settings(max_examples=500, deadline=None)\n@given(st.lists(st.integers()))\n@example([])\n"
           "def test_p(xs):\n    assume(len(xs) < 100)\n    assert sorted(xs) == sorted(xs)\n")
    assert hypothesis_tampering(ast.parse(src)) is None


def test_an_expression_that_prints_its_answer_does_not_return_it():
    plan = plan_step_checks(ctx(">>> largest([5])\n5"), ast.parse(LARGEST))
    printed_only = {"i": 0, "value": None, "repr": "None", "printed": "5\n", "error": None}
    assert "returned None" in (plan.judge(_events(e1={"lines": [printed_only]})) or "")
    plan = plan_step_checks(ctx(">>> print(largest([5]))\n5"), ast.parse(LARGEST))
    assert plan.judge(_events(e1={"lines": [printed_only]})) is None
