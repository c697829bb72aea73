"""The offline reader of code steps (examples, the claim phrase table), the placing of checks on the artifact, and
the judging of what the step-check child reports: no sandbox (the child's events are written here as it writes
them: marshal bytes, in hex)."""

from __future__ import annotations

import ast
import marshal
from typing import Any

import pytest

from reasonforge.types import Domain, ProofLevel, ReasoningStep, StepContext
from reasonforge.verify.code.policy import hypothesis_tampering
from reasonforge.verify.code.step_checks import ChecksStatus, LineMode, Origin, StepPlan, plan_step_checks
from reasonforge.verify.code.step_text import ClaimKind, doctest_blocks, doctest_options, prose_examples, read_claims

LARGEST = ("def largest(xs):\n    return max(xs)\n\ndef test_largest():\n    assert largest([1, 2]) == 2\n"
           "    assert largest([5, 3]) == 5\n")
TWO = ">>> largest([3, 1, 2])\n3\n>>> largest([-5, -2])\n-2"


def ctx(content: str, question: str = "", *, sole: bool = False) -> StepContext:
    ancestors = [] if sole else [ReasoningStep(step_id=0, content="An earlier step.")]
    return StepContext(step_id=1, content=content, original_query=question, domain=Domain.CODE,
                       proof_level=ProofLevel.STANDARD, final=True, ancestors=ancestors)


def plan_for(content: str, question: str = "", src: str = LARGEST, **kw: Any) -> StepPlan:
    return plan_step_checks(ctx(content, question, **kw), ast.parse(src))


def sv(block: str, i: int, value: Any = None, kind: str = "v") -> dict[str, Any]:
    """One result as the child reports it (`block`: the check's own id; `run` sends it under the plan's)."""
    payload = "" if kind in ("u", "t") else marshal.dumps(value).hex()
    return {"ev": "sv", "b": block, "i": i, "r": kind, "m": payload}


def run(plan: StepPlan, *results: dict[str, Any]) -> list[dict[str, Any]]:
    """A finished run of the step child reporting `results`, under the ids the plan sent them with."""
    sent = [{**r, "b": plan.sent_id(r["b"])} for r in results]
    return [{"ev": "step_loaded"}, *sent, {"ev": "step_done"}]


def honest(plan: StepPlan, function: Any = max) -> list[dict[str, Any]]:
    """The events an honest artifact whose function is `function` would send for `plan`."""
    out = []
    for example in plan.examples:
        for i, line in enumerate(example.parsed):
            if line.mode is LineMode.STATEMENT:
                continue
            if line.mode is LineMode.RAISES:
                out.append(sv(example.id, i, line.want, "x"))
            else:
                out.append(sv(example.id, i, eval(line.sent, {example.names[0]: function})))
    for claim in plan.claims:
        out += [sv(f"{claim.id}.{j}", 0, function(v)) for j, v in enumerate(claim.inputs)]
    return run(plan, *out)


# ------------------------------------------------------------------------------------------ the phrase table


@pytest.mark.parametrize(("text", "kind"), [
    ("The function returns the largest element.", ClaimKind.MAX),
    ("`largest(xs)` returns the maximum of the list.", ClaimKind.MAX),
    ("Write `largest(xs)`, which returns the largest element of a non-empty list.", ClaimKind.MAX),
    ("It returns the smallest value in `xs`.", ClaimKind.MIN),
    ("Return the list sorted in descending order.", ClaimKind.SORTED_DESC),
    ("This returns a sorted copy of the list.", ClaimKind.SORTED),
    ("It returns the sum of the elements of the list in O(n) time.", ClaimKind.SUM),
    ("It returns the reversed string.", ClaimKind.REVERSED_STR),
    ("It returns the list reversed.", ClaimKind.REVERSED_LIST),
    ("It returns the number of characters in the string.", ClaimKind.LENGTH_STR),
    ("It returns the length of the list.", ClaimKind.LENGTH_LIST),
    ("`mean(xs)` returns the arithmetic mean of the list.", ClaimKind.MEAN),
    ("It returns the average of the numbers in the list.", ClaimKind.MEAN),
    ("`median(xs)` returns the median.", ClaimKind.MEDIAN),
    ("`my_abs(x)` returns the absolute value of x.", ClaimKind.ABS),
    ("`double(n)` returns twice n.", ClaimKind.DOUBLE),
    ("`double(x)` doubles x.", ClaimKind.DOUBLE),
    ("`triple(n)` returns three times n.", ClaimKind.TRIPLE),
    ("`square(n)` squares its argument.", ClaimKind.SQUARE),
    ("It returns n squared.", ClaimKind.SQUARE),
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
    "It returns twice as much.",  # not a number named
    "Return the average score.",  # another quantity
    "It returns the square root of n.",  # not the square
    "It returns the mean of a and b.",  # not one sequence
])
def test_phrasing_the_table_does_not_know_is_not_read(text):
    assert read_claims(text) == []


def test_a_question_states_requirements_and_they_are_read():
    assert [c.kind for c in read_claims("The function should return the largest element.", requirement=True)] == [
        ClaimKind.MAX]
    assert read_claims("The function should not return the largest element.", requirement=True) == []
    assert read_claims("If it is sorted, it should return the first element.", requirement=True) == []
    # a question goes on to qualify what it asks for: read only what ends its sentence
    assert read_claims("Write `f(xs)`, which returns the list sorted in ascending order, without duplicates.",
                       requirement=True) == []
    assert read_claims("Return the largest element with its index.", requirement=True) == []
    assert [c.kind for c in read_claims("Return the sum of the list in O(n) time.", requirement=True)] == [
        ClaimKind.SUM]


def test_doctest_blocks_in_docstrings_end_at_the_closing_quotes():
    text = 'def f(x):\n    """Double.\n\n    >>> f(2)\n    4\n    """\n    return 2 * x\n'
    assert doctest_blocks(text) == [[("f(2)", "4")]]
    assert doctest_blocks('    >>> f(1)\n    2"""') == [[("f(1)", "2")]]


@pytest.mark.parametrize(("text", "examples"), [
    ("sum_list([1, 2]) should return 3.", [[("sum_list([1, 2])", "3")]]),
    ("For example: add(2, 3) should return 5, add(0,0) → 0.", [[("add(2, 3)", "5")], [("add(0,0)", "0")]]),
    ('split_words("a, b") == ["a", "b"]', [[('split_words("a, b")', '["a", "b"]')]]),
    ("count_up_to(5) => [2,3]", [[("count_up_to(5)", "[2,3]")]]),
    ("digits(235) -> 15", [[("digits(235)", "15")]]),
    # MBPP's asserts: an expected value a builtin makes of a literal is that literal
    ("assert set(similar_elements((3, 4), (4, 5))) == set((4,))", [[("set(similar_elements((3, 4), (4, 5)))", "{4}")]]),
    ("assert f(1) == set()", []),
    # code is not prose: a fenced test's assert is the author's test; a stub's code is not read, its docstring is
    ("```python\ndef test_f():\n    assert f(1) == 2\n```", []),
    ('def f(x):\n    """Double it: f(2) should return 4."""\n    return g(1) == 2\n', [[("f(2)", "4")]]),
    # read whole or not at all: a negation, a qualified value, a value that is not a literal, a doctest line
    ("f(3) should not return 9", []),
    ("f(2) returns 4 for small inputs", []),
    ("f(3) is 9 or 10", []),
    ("f(x) is called often.", []),
    (">>> f(1) == 2", []),
])
def test_examples_in_prose_are_read_whole_or_not_at_all(text, examples):
    assert prose_examples(text) == examples


@pytest.mark.parametrize("text", [
    # a case supposed or described: what a bug gives, not what the code must give
    "A common bug: if inc_square(3) is 9, the plus one was forgotten.",
    "It is wrong when inc_square(3) returns 9, since that forgets the one.",
    "Whenever inc_square(3) gives 9, the one is missing.",
    "Suppose inc_square(3) is 9; then the one was dropped.",
    "Unless the one is added, inc_square(3) is 9.",
    "inc_square(3) == 9 would be a bug.",
    "inc_square(3) returns 9, which is incorrect.",
    "A naive version gives inc_square(3) → 9.",
    "inc_square(3) is 9 instead of 10.",
    "It never happens that inc_square(3) is 9.",
    "Is inc_square(3) == 9?",
    # a list's lead-in governs its items
    "Common mistakes:\n- inc_square(3) is 9\n- inc_square(4) is 16",
    "Outputs of the broken version:\n1. inc_square(3) is 9\n2. inc_square(4) is 16",
])
def test_an_example_a_sentence_supposes_negates_or_calls_a_bug_is_not_read(text):
    assert prose_examples(text) == []


def test_examples_stated_around_a_described_bug_are_still_read():
    text = ("Write inc_square(n).\ninc_square(2) is 5.\nIf inc_square(3) is 9, the one was forgotten.\n"
            "Examples:\n- inc_square(4) is 17\nYour code should pass these tests:\nassert inc_square(0) == 1")
    assert prose_examples(text) == [[("inc_square(2)", "5")], [("inc_square(4)", "17")], [("inc_square(0)", "1")]]


def test_a_question_describing_a_bug_gives_no_example_to_refute_correct_code():
    question = "Write inc_square(n), which returns n squared plus one. A common bug: if inc_square(3) is 9, the plus one was forgotten."
    plan = plan_for("Square and add one.", question, src="def inc_square(n):\n    return n * n + 1\n")
    assert [e.lines for e in plan.examples] == []


def test_a_question_s_prose_examples_are_the_question_s_evidence():
    plan = plan_for("We write it.", "Write largest(xs).\nlargest([4, 9]) should return 9, largest([1]) → 1.")
    assert [(e.origin, e.lines) for e in plan.examples] == [
        (Origin.QUESTION, (("largest([4, 9])", "9"),)), (Origin.QUESTION, (("largest([1])", "1"),))]


# ------------------------------------------------------------------------------------------------ planning


def test_examples_of_the_step_and_the_question_are_planned_with_how_each_line_is_judged():
    question = 'def largest(xs):\n    """Largest.\n    >>> largest([4, 9])\n    9\n    """\n'
    step = ("We write it.\n>>> largest([3, 1, 2])\n3\n>>> print(largest([7]))\n7\n>>> largest([])\n"
            "Traceback (most recent call last):\nValueError: empty\n>>> largest([object()])\n<object ...>")
    plan = plan_for(step, question)
    assert [(e.origin, e.names) for e in plan.examples] == [(Origin.STEP, ("largest",)), (Origin.QUESTION, ("largest",))]
    modes = [(line.mode, line.sent, line.want) for line in plan.examples[0].parsed]
    assert modes == [(LineMode.VALUE, "largest([3, 1, 2])", 3), (LineMode.PRINTED, "largest([7])", "7"),
                     (LineMode.RAISES, "largest([])", "ValueError"), (LineMode.UNREAD, "largest([object()])", None)]
    assert any("not a literal the comparison can read exactly" in n for n in plan.notes)
    assert plan.unaligned is None and plan.claims == []


def test_the_child_is_sent_calls_never_what_they_should_give():
    plan = plan_for("`largest` returns the largest element.\n" + TWO)
    payload = repr(plan.payload())
    assert "largest([3, 1, 2])" in payload and "largest([-5, -2])" in payload
    blocks = plan.payload()["blocks"]
    assert {b["id"] for b in blocks} >= {plan.sent_id(i) for i in ("e1", "c1.0", "p1")}
    # neither the examples' outputs (3, -2) nor a claim's reference values appear as data: only sources and names
    assert all(set(b) == {"id", "names", "lines"} for b in blocks)
    assert all(isinstance(src, str) and report in (True, False) for b in blocks for src, report in b["lines"])


def test_an_example_that_checks_no_code_of_the_artifact_is_not_counted():
    plan = plan_for(">>> 1 + 1\n2")
    assert plan.examples == [] and any("no code of the artifact computes" in n for n in plan.notes)


def test_a_claim_is_placed_on_the_function_the_sentence_names_whatever_binds_it():
    src = "def decoy(xs):\n    return max(xs)\n\n\nlargest = lambda xs: min(xs)\n"
    plan = plan_for("`largest(xs)` returns the largest element.", src=src)
    assert [(c.function, c.claim.kind) for c in plan.claims] == [("largest", ClaimKind.MAX)]
    assert len(plan.claims[0].inputs) == 40 and all(plan.claims[0].inputs)  # max needs non-empty lists


def test_a_claim_in_a_docstring_is_about_its_function():
    step = '```python\ndef top(xs):\n    """Return the largest element."""\n    return max(xs)\n```'
    src = "def top(xs):\n    return max(xs)\n\ndef other(xs):\n    return xs\n"
    assert [c.function for c in plan_for(step, src=src).claims] == ["top"]


def test_an_unnamed_claim_is_not_placed_when_a_lambda_or_alias_could_be_it():
    src = "def decoy(xs):\n    return max(xs)\n\n\npick = lambda xs: min(xs)\n"
    plan = plan_for("The function returns the largest element.", src=src)
    assert plan.claims == [] and plan.unaligned is not None and "several" in plan.unaligned
    dynamic = "def decoy(xs):\n    return max(xs)\n\n\nglobals()['pick'] = min\n"
    assert plan_for("The function returns the largest element.", src=dynamic).unaligned is not None
    # the question's unplaceable claim may be about another step's code: noted, not blocking
    plan = plan_for("Here it is.", "Write a function that returns the largest element.", src=src)
    assert plan.unaligned is None and any("several" in n for n in plan.notes)


def test_an_unnamed_claim_of_the_question_is_about_the_function_its_examples_call():
    src = "def best(xs):\n    return max(xs)\n"
    plan = plan_for("Here.", "Write a function that returns the largest element.\n" + TWO, src=src)
    assert [(c.function, c.origin) for c in plan.claims] == [("largest", Origin.QUESTION)]  # never `best`


def test_a_claim_of_the_question_is_read_and_placed():
    plan = plan_for("Done.", "Write `total(xs)`, which returns the sum of the elements of the list.",
                    src="def total(xs):\n    return sum(xs)\n")
    assert [(c.function, c.claim.kind, c.origin) for c in plan.claims] == [("total", ClaimKind.SUM, Origin.QUESTION)]
    assert "(question: " in plan.claims[0].describe()


def test_unknown_phrasing_is_noted_not_checked():
    plan = plan_for("It returns the element that beats all others.")
    assert plan.checks == 0 and any("phrase table" in n for n in plan.notes)
    evidence = plan.evidence(ast.parse(LARGEST), None, tests=1)
    assert evidence is not None and evidence.kind == "author_tests"
    assert "def largest(xs)" in evidence.aligned_claim


# ------------------------------------------------------------------------------------------------- judging


def test_values_are_compared_by_type_and_value():
    plan = plan_for("x", TWO)
    assert plan.judge(honest(plan)).status is ChecksStatus.PASSED
    wrong = plan.judge(run(plan, sv("e1", 0, 1), sv("e1", 1, -5)))
    assert wrong.status is ChecksStatus.FAILED and "should give 3, but it returned 1" in wrong.message
    as_float = plan.judge(run(plan, sv("e1", 0, 3.0), sv("e1", 1, -2)))
    assert as_float.status is ChecksStatus.FAILED and "returned 3.0" in as_float.message


def test_a_bool_only_equals_a_bool():
    plan = plan_for(">>> largest([True])\nTrue")
    assert plan.judge(run(plan, sv("e1", 0, 1))).status is ChecksStatus.FAILED
    assert plan.judge(run(plan, sv("e1", 0, True))).status is ChecksStatus.PASSED


def test_an_example_nested_too_deep_to_read_is_noted_not_checked():
    deep = "largest([" + "+".join(["1"] * 500) + "])"
    plan = plan_for("x", f">>> print({deep})\n500\n\nAnd:\n" + TWO)
    assert [e.lines[0][0] for e in plan.examples] == ["largest([3, 1, 2])"]
    assert any("question example nests more than 100 levels" in n for n in plan.notes)


# ------------------------------------------------------------------------------------ doctest's own semantics


def test_doctest_blocks_read_skip_blanklines_and_the_text_s_optionflags_as_doctest_does():
    text = (">>> two('x', 'y')\nx\n<BLANKLINE>\ny\n>>> f(7)  # doctest: +SKIP\n99\n"
            ">>> g(1)  # doctest: +DONT_ACCEPT_BLANKLINE\n<BLANKLINE>")
    assert doctest_blocks(text) == [[("two('x', 'y')", "x  y"), ("g(1)  # doctest: +DONT_ACCEPT_BLANKLINE",
                                      "<BLANKLINE>")]]
    # options the text sets for all its examples reach each one's directive, where its own directive still decides
    text = ("doctest.testmod(optionflags=doctest.ELLIPSIS)\n>>> f(1)\n[1, ...]\n>>> f(2)  # doctest: -ELLIPSIS\n"
            "[2]\n>>> f(3)  # doctest: +SKIP\n[3]")
    blocks = doctest_blocks(text)
    assert [src for block in blocks for src, _ in block] == ["f(1)  # doctest: +ELLIPSIS", "f(2)  # doctest: -ELLIPSIS"]
    assert [doctest_options(src) for block in blocks for src, _ in block] == [{"ELLIPSIS"}, set()]


def test_an_output_a_doctest_option_loosens_or_elides_is_unread_never_compared():
    step = (">>> largest([1, 2])  # doctest: +ELLIPSIS\n[0, 1, ..., 99]\n"
            ">>> largest([3])  # doctest: +NORMALIZE_WHITESPACE\n'a  b'\n"
            ">>> largest([4])\n[1, ..., 4]\n"  # `...` where a value stands: elided (the option set elsewhere)
            ">>> print(largest([5]))  # doctest: +NORMALIZE_WHITESPACE\na   b\n"  # printed text: compared, normalised
            ">>> print(largest([6]))  # doctest: +ELLIPSIS\na...\n"
            ">>> largest([7])  # doctest: +ELLIPSIS\n7")  # nothing elided: compared
    plan = plan_for(step)
    modes = [line.mode for line in plan.examples[0].parsed]
    assert modes == [LineMode.UNREAD, LineMode.UNREAD, LineMode.UNREAD, LineMode.PRINTED, LineMode.UNREAD,
                     LineMode.VALUE]
    assert any("ELLIPSIS option is in effect" in n for n in plan.notes)
    reported = [sv("e1", 0, list(range(100))), sv("e1", 1, "a b"), sv("e1", 2, [1, 2, 3, 4]), sv("e1", 3, "a b"),
                sv("e1", 4, "abc"), sv("e1", 5, 7)]
    assert plan.judge(run(plan, *reported)).status is ChecksStatus.PASSED
    assert plan.judge(run(plan, *reported[:5], sv("e1", 5, 8))).status is ChecksStatus.FAILED


def test_a_blankline_is_an_empty_line_of_what_is_printed():
    plan = plan_for("x", ">>> print(largest(['x', 'y']))\nx\n<BLANKLINE>\ny")
    assert plan.judge(run(plan, sv("e1", 0, "x\n\ny"))).status is ChecksStatus.PASSED
    assert plan.judge(run(plan, sv("e1", 0, "x <BLANKLINE> y"))).status is ChecksStatus.FAILED


def test_a_doctest_s_1_admits_true_as_doctest_does_unless_told_not_to():
    plan = plan_for(">>> largest([1])\n1\n>>> largest([0])\n0")
    assert plan.judge(run(plan, sv("e1", 0, True), sv("e1", 1, False))).status is ChecksStatus.PASSED
    assert plan.judge(run(plan, sv("e1", 0, False), sv("e1", 1, False))).status is ChecksStatus.FAILED
    strict = plan_for(">>> largest([1])  # doctest: +DONT_ACCEPT_TRUE_FOR_1\n1")
    assert strict.judge(run(strict, sv("e1", 0, True))).status is ChecksStatus.FAILED
    prose = plan_for("largest([1]) should return 1.")  # prose is no doctest: a bool is not an int there
    assert prose.judge(run(prose, sv("e1", 0, True))).status is ChecksStatus.FAILED


def test_a_traceback_is_judged_by_its_exception_line_or_unread():
    plan = plan_for(">>> largest([])\nTraceback (most recent call last):\n...\nValueError: not a KeyError")
    assert plan.examples[0].parsed[0].want == "ValueError"
    assert plan.judge(run(plan, sv("e1", 0, "ValueError", "x"))).status is ChecksStatus.PASSED
    for unread in ("Oops: empty", "...Error: empty"):  # no exception name the reader can tell
        plan = plan_for(f">>> largest([])  # doctest: +ELLIPSIS\nTraceback (most recent call last):\n{unread}")
        assert plan.examples[0].parsed[0].mode is LineMode.UNREAD
        assert plan.judge(run(plan, sv("e1", 0, "Oops", "x"))).status is ChecksStatus.PASSED


def test_a_value_that_is_not_plain_data_is_unread_never_passed():
    # the child's marshal refuses an object whose repr is the answer, or a str subclass with a forged repr
    plan = plan_for("x", TWO)
    judged = plan.judge(run(plan, sv("e1", 0, kind="u"), sv("e1", 1, -2)))
    assert judged.status is ChecksStatus.UNREAD and ("e1", 0) in judged.unread
    assert "not plain data" in judged.message
    assert plan.judge(run(plan, sv("e1", 0, kind="u"), sv("e1", 1, 5))).status is ChecksStatus.FAILED


def test_an_expected_traceback_needs_that_exception_and_a_print_is_its_value_printed():
    plan = plan_for(">>> largest([])\nTraceback (most recent call last):\n...\nValueError: empty")
    assert plan.judge(run(plan, sv("e1", 0, "ValueError", "x"))).status is ChecksStatus.PASSED
    assert plan.judge(run(plan, sv("e1", 0, "TypeError", "x"))).status is ChecksStatus.FAILED
    assert plan.judge(run(plan, sv("e1", 0, 0))).status is ChecksStatus.FAILED
    plan = plan_for(">>> print(largest(['a b']))\na b")
    assert plan.judge(run(plan, sv("e1", 0, "a b"))).status is ChecksStatus.PASSED
    assert plan.judge(run(plan, sv("e1", 0, "a c"))).status is ChecksStatus.FAILED


def test_a_run_that_does_not_report_each_check_exactly_once_fails():
    plan = plan_for("x", TWO)
    assert plan.judge([]).status is ChecksStatus.FAILED  # never finished
    assert plan.judge(run(plan, sv("e1", 0, 3))).status is ChecksStatus.FAILED  # a line missing
    twice = run(plan, sv("e1", 0, 3), sv("e1", 0, 3), sv("e1", 1, -2))
    assert plan.judge(twice).status is ChecksStatus.FAILED
    assert plan.judge([{"ev": "import_error", "m": marshal.dumps("ImportError").hex()}]).status is ChecksStatus.FAILED


def test_a_run_in_which_the_artifact_reached_into_the_harness_counts_for_nothing():
    plan = plan_for("x", TWO)
    events = [{"ev": "tamper", "m": marshal.dumps("sys.settrace").hex()}, *honest(plan)]
    judged = plan.judge(events)
    assert judged.status is ChecksStatus.VOID and "sys.settrace" in judged.message


def test_a_question_example_the_artifact_does_not_bind_is_skipped_unless_the_step_is_the_only_one():
    plan = plan_for("Helper first.", ">>> solve([1, 2])\n3\n>>> solve([5, 5])\n10")
    judged = plan.judge(run(plan, sv("e1", -1, ["solve"], "n")))
    assert judged.status is ChecksStatus.PASSED and judged.skipped == {"e1"}
    assert any("solve" in n for n in judged.notes)
    sole = plan_for("Helper first.", ">>> solve([1, 2])\n3\n>>> solve([5, 5])\n10", sole=True)
    judged = sole.judge(run(sole, sv("e1", -1, ["solve"], "n")))
    assert judged.status is ChecksStatus.UNPLACED and "not the code the step describes" in judged.message


def test_a_step_example_or_claim_about_code_the_artifact_does_not_bind_is_unplaced():
    plan = plan_for(">>> smallest([3, 1])\n1")
    assert plan.judge(run(plan, sv("e1", -1, ["smallest"], "n"))).status is ChecksStatus.UNPLACED
    plan = plan_for("`smallest(xs)` returns the smallest element.")
    events = run(plan, *[sv(f"c1.{j}", -1, ["smallest"], "n") for j in range(40)])
    assert plan.judge(events).status is ChecksStatus.UNPLACED


def test_claims_are_judged_against_the_reference_computed_here():
    plan = plan_for("`largest` returns the largest element.")
    assert plan.judge(honest(plan, max)).status is ChecksStatus.PASSED
    wrong = plan.judge(honest(plan, min))
    assert wrong.status is ChecksStatus.FAILED and "returns the largest element" in wrong.message
    short = [e for e in honest(plan, max) if e.get("b") != plan.sent_id("c1.39")]
    assert plan.judge(short).status is ChecksStatus.FAILED


def test_a_numeric_claim_accepts_an_int_or_a_float_never_a_floor():
    plan = plan_for("`mean(xs)` returns the arithmetic mean of the list.", src="def mean(xs):\n    return 0\n")
    assert plan.judge(honest(plan, lambda xs: sum(xs) / len(xs))).status is ChecksStatus.PASSED
    assert plan.judge(honest(plan, lambda xs: sum(xs) // len(xs))).status is ChecksStatus.FAILED
    plan = plan_for("`double(n)` returns twice n.", src="def double(n):\n    return n + 2\n")
    assert plan.judge(honest(plan, lambda n: n + 2)).status is ChecksStatus.FAILED
    assert plan.judge(honest(plan, lambda n: 2.0 * n)).status is ChecksStatus.PASSED


def test_written_examples_that_fail_are_disputed_not_refuting():
    context = ctx("x").model_copy(update={"written_examples": TWO})
    plan = plan_step_checks(context, ast.parse(LARGEST))
    assert plan.judge(run(plan, sv("e1", 0, 1), sv("e1", 1, -5))).status is ChecksStatus.DISPUTED


# ------------------------------------------------------------------------------------------------ evidence


def test_the_questions_examples_are_the_questions_evidence():
    plan = plan_for("Here it is.", TWO)
    judged = plan.judge(honest(plan))
    evidence = plan.evidence(ast.parse(LARGEST), judged, tests=1)
    assert evidence is not None and (evidence.kind, evidence.supplied_by) == ("examples", "question")
    assert "largest([3, 1, 2]) → 3; largest([-5, -2]) → -2 (question)" in evidence.aligned_claim


@pytest.mark.parametrize(("question", "why"), [
    (">>> largest([3, 1, 2])\n3", "whatever its input (one example is all there is)"),
    (">>> largest([3, 1])\n3\n>>> largest([9, 1])\n9", "the first item"),
    (">>> largest([1, 3])\n3\n>>> largest([1, 9])\n9", "the last item"),
    (">>> largest([5])\n5\n>>> largest([5])\n5", "whatever its input"),
])
def test_examples_a_trivial_function_gives_are_no_evidence(question, why):
    plan = plan_for("Here it is.", question, src="def largest(xs):\n    return max(xs)\n")
    judged = plan.judge(honest(plan))
    assert plan.evidence(ast.parse("def largest(xs):\n    return max(xs)\n"), judged, tests=0) is None
    assert why in plan.no_evidence(ast.parse("def largest(xs):\n    return max(xs)\n"), judged)


def test_a_traceback_example_is_checked_but_shows_no_computation():
    question = ">>> largest([])\nTraceback (most recent call last):\nValueError: empty"
    src = "def largest(xs):\n    raise ValueError(xs)\n"
    plan = plan_for("Here it is.", question, src=src)
    judged = plan.judge(honest(plan))
    assert judged.status is ChecksStatus.PASSED and plan.evidence(ast.parse(src), judged, tests=0) is None


def test_the_supplier_is_the_strongest_whose_checks_alone_suffice():
    written = ">>> largest([3, 1, 2])\n3\n>>> largest([0, -4])\n0"
    context = ctx("We scan once.\n" + TWO, ">>> largest([7, 8])\n8").model_copy(update={"written_examples": written})
    plan = plan_step_checks(context, ast.parse(LARGEST))
    judged = plan.judge(honest(plan))
    # the question's one example is no evidence alone; with the written ones it is: an independent writer's
    assert plan.evidence(ast.parse(LARGEST), judged, tests=1).supplied_by == "independent"
    only_step = plan_for("We scan once.\n" + TWO)
    assert only_step.evidence(ast.parse(LARGEST), only_step.judge(honest(only_step)), tests=1).supplied_by == "author"


def test_a_claim_that_held_is_evidence_of_its_supplier():
    plan = plan_for("Done.", "Write `largest(xs)`, which returns the largest element.")
    assert plan.evidence(ast.parse(LARGEST), plan.judge(honest(plan)), tests=1).supplied_by == "question"
    plan = plan_for("`largest(xs)` returns the largest element.")
    assert plan.evidence(ast.parse(LARGEST), plan.judge(honest(plan)), tests=1).supplied_by == "author"


def with_probes(plan: StepPlan, function: Any) -> list[dict[str, Any]]:
    """`honest(plan, function)` with the probes' results too (a probe the function raises on reports the raise)."""
    def probe(p: Any) -> dict[str, Any]:
        try:
            return sv(p.id, 0, eval(p.source, {p.function: function}))
        except Exception as exc:  # noqa: BLE001 - the child reports any exception the same way
            return sv(p.id, 0, type(exc).__name__, "x")

    events = honest(plan, function)
    probes = run(plan, *[probe(p) for p in plan.probes])
    return events[:-1] + probes[1:-1] + events[-1:]


def test_an_example_answered_without_computing_is_found():
    src = "def largest(xs):\n    return len(xs) and 3\n"
    plan = plan_for("x", ">>> largest([1, 3, 2])\n3\n>>> largest([4, 1, 3])\n3", src=src)
    assert plan.probes and all(p.function == "largest" for p in plan.probes)
    events = with_probes(plan, lambda xs: len(xs) and 3)
    assert "does not depend on its input" in (plan.shortcut(ast.parse(src), events, plan.judge(events)) or "")
    events = with_probes(plan, max)
    assert plan.shortcut(ast.parse(src), events, plan.judge(events)) is None


def test_a_function_of_its_items_sizes_or_of_the_words_of_a_text_is_seen_computing():
    # MBPP 562 and HumanEval/19: changing the items' values keeps every size, and changing a letter leaves no
    # number word a word (the function raises); a shorter input, among the first probes, is answered differently
    longest = "def Find_Max_Length(lst):\n    return max(len(x) for x in lst)\n"
    plan = plan_for("x", (">>> Find_Max_Length([[1], [1, 4], [5, 6, 7, 8]])\n4\n"
                          ">>> Find_Max_Length([[0, 1], [2, 2], [3, 2, 1]])\n3\n"
                          ">>> Find_Max_Length([[7], [22, 23], [13, 14, 15], [10, 20, 30, 40, 50]])\n5"), src=longest)
    events = with_probes(plan, lambda lst: max(len(x) for x in lst))
    assert plan.shortcut(ast.parse(longest), events, plan.judge(events)) is None
    words = {"zero": 0, "one": 1, "three": 3, "five": 5, "seven": 7}
    order = "def sort_numbers(s):\n    return ' '.join(sorted(s.split(), key=lambda w: WORDS[w]))\n"
    plan = plan_for("x", ">>> sort_numbers('three one five')\n'one three five'", src=order)
    events = with_probes(plan, lambda s: " ".join(sorted(s.split(), key=lambda w: words[w])))
    assert plan.shortcut(ast.parse(order), events, plan.judge(events)) is None


@pytest.mark.parametrize(("src", "needle"), [
    ("def largest(xs):\n    return 3\n", "never reads its parameter"),
    ("def largest(xs):\n    if xs == [1, 3, 2]:\n        return 3\n    return min(xs)\n", "lookup of the examples"),
    ("TABLE = {(1, 3, 2): 3, (4, 1, 5): 5}\n\ndef largest(xs):\n    return TABLE.get(tuple(xs), min(xs))\n",
     "lookup of the examples"),
    ("def largest(xs):\n    if str(xs) == '[1, 3, 2]':\n        return 3\n    return min(xs)\n", "lookup of the examples"),
    ("def largest(xs):\n    if tuple(xs) in {(1, 3, 2), (4, 1, 5)}:\n        return max(xs)\n    return min(xs)\n",
     "lookup of the examples"),
])
def test_a_lookup_of_the_examples_or_ignored_parameters_are_found_in_the_code(src, needle):
    plan = plan_for("x", ">>> largest([1, 3, 2])\n3\n>>> largest([4, 1, 5])\n5", src=src)
    events = with_probes(plan, max)
    assert needle in (plan.shortcut(ast.parse(src), events, plan.judge(events)) or "")


def test_a_base_case_compared_with_an_empty_list_is_not_a_lookup():
    src = "def largest(xs):\n    if xs == []:\n        return None\n    return max(xs)\n"
    plan = plan_for("x", TWO, src=src)
    events = with_probes(plan, max)
    assert plan.shortcut(ast.parse(src), events, plan.judge(events)) is None


# ------------------------------------------------------------------------------------------------- policy


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


def test_blocks_are_sent_under_ids_that_say_nothing_and_new_for_each_check():
    plan = plan_for("`largest` returns the largest element.\n" + TWO)
    sent = [b["id"] for b in plan.payload()["blocks"]]
    assert sent == sorted(sent) and not any(i in {"e1", "c1.0", "p1"} for i in sent)
    assert plan.payload() == plan.payload()  # the same for the original and every mutant
    again = plan_for("`largest` returns the largest element.\n" + TWO)
    assert again.sent_id("e1") != plan.sent_id("e1")  # a new check, new ids: nothing to learn from an earlier one
    assert plan.judge([{"ev": "sv", "b": "e1", "i": 0, "r": "v", "m": marshal.dumps(3).hex()}, *honest(plan)]).status \
        is ChecksStatus.PASSED  # a line under a made-up id is nobody's


def test_an_artifact_that_answers_the_same_call_twice_differently_is_not_computing_it():
    # a forger that answers the example's id with the question's value, and computes everything else
    src = "def largest(xs):\n    return min(xs)\n"
    plan = plan_for("x", TWO, src=src)
    twins = [p for p in plan.probes if p.twin]
    assert len(twins) == 2 and twins[0].source != "largest([3, 1, 2])"
    assert eval(twins[0].source, {"largest": max}) == 3
    events = with_probes(plan, min)
    forged = [e for e in events if e.get("b") != plan.sent_id("e1")]
    forged = forged[:-1] + run(plan, sv("e1", 0, 3), sv("e1", 1, -2))[1:]
    judged = plan.judge(forged)
    assert judged.status is ChecksStatus.PASSED  # the examples alone are fooled
    assert "two answers in one run" in (plan.shortcut(ast.parse(src), forged, judged) or "")
