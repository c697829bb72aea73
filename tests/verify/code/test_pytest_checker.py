"""The `python` checker with real sandboxed runs: verdicts, anti-gaming, levels, details."""

from __future__ import annotations

import pytest

from reasonforge.registry import checkers
from reasonforge.types import ArtifactLanguage, CheckLimits, Domain, ProofLevel, StepContext, StepStatus
from reasonforge.verify import sandbox as sb
from reasonforge.verify.code.harness_run import HarnessReport, expected_tests, interpret
from reasonforge.verify.code.pytest_checker import PythonTestsChecker

pytestmark = pytest.mark.skipif(sb.unavailable_reason() is not None, reason=f"sandbox unavailable: {sb.unavailable_reason()}")

FREQ = '''
from hypothesis import given, strategies as st


def count_frequencies(arr: list[int]) -> dict[int, int]:
    freq: dict[int, int] = {}
    for x in arr:
        freq[x] = freq.get(x, 0) + 1
    return freq


def test_basic():
    assert count_frequencies([1, 2, 2, 3]) == {1: 1, 2: 2, 3: 1}


def test_empty():
    assert count_frequencies([]) == {}


@given(st.lists(st.integers(min_value=-1000, max_value=1000)))
def test_sum_preserved(arr):
    freq = count_frequencies(arr)
    assert sum(freq.values()) == len(arr)
'''

ADD = "def add(a, b):\n    return a + b\n\n"
CLAMP = ("def clamp(x, lo, hi):\n    if x < lo:\n        return lo\n    if x > hi:\n        return hi\n"
         "    return x\n\n")
LIMITS = CheckLimits(timeout_s=8)


def check(src: str, level: str = "standard", limits: CheckLimits = LIMITS, **kw):
    return PythonTestsChecker(**kw).check(src, level=ProofLevel(level), limits=limits)


def test_registered_for_python():
    assert isinstance(checkers.get(ArtifactLanguage.PYTHON), PythonTestsChecker)


@pytest.mark.slow
def test_frequency_count_verifies_with_details():
    out = check(FREQ)
    assert out.status is StepStatus.VERIFIED, out.message
    d = out.details
    assert (d["tests_total"], d["tests_passed"], d["property_violations"]) == (3, 3, [])
    assert d["mutation_score"] >= 0.6 and d["surviving_mutants"] == []
    assert PythonTestsChecker().spec.args["mutation_threshold"] == 0.5
    assert d["elapsed_ms"] > 0
    if d["coverage_available"]:
        assert d["coverage_percent"] == 100.0


def test_off_by_one_fails_naming_the_test():
    out = check(FREQ.replace("for x in arr:", "for x in arr[1:]:"))
    assert out.status is StepStatus.FAILED
    assert "artifact.py::test_basic" in out.message
    assert out.details["tests_passed"] < out.details["tests_total"]
    assert out.details["failing_tests"][0]["test"] == "artifact.py::test_basic"


def test_vacuous_tests_kill_no_mutant():
    # tests too weak to tell the code from its mutants are no evidence either way: unsupported, not refuted
    out = check(ADD + "def test_add():\n    add(1, 2)\n    assert True\n")
    assert out.status is StepStatus.UNSUPPORTED
    assert out.message.startswith("tests kill 0 % of mutants")
    assert out.details["mutation_score"] == 0.0 and out.details["surviving_mutants"]


@pytest.mark.slow
def test_mutation_threshold_is_configurable():
    src = CLAMP + "def test_clamp():\n    assert clamp(5, 0, 10) == 5\n"  # one value: kills some mutants, not most
    weak = check(src, mutation_threshold=0.9)
    assert weak.status is StepStatus.UNSUPPORTED and "% of mutants" in weak.message
    assert weak.details["value_check"]["quiet_killed"] >= 1  # it does check a value
    assert check(src, mutation_threshold=0.0).status is StepStatus.VERIFIED


def test_a_correct_function_the_question_s_examples_test_weakly_is_unsupported_never_refuted():
    # the question's three examples kill 5 of clamp's 12 mutants: no counterexample to the code, only weak evidence
    src = ("def clamp(x, lo, hi):\n    if lo > hi:\n        raise ValueError('empty range: ' + str(lo) + ' > ' + str(hi))"
           "\n    if x < lo:\n        return lo\n    if x > hi:\n        return hi\n    return x\n")
    question = ("Write clamp(x, lo, hi), which returns x limited to the range lo..hi.\n>>> clamp(5, 0, 10)\n5\n"
                ">>> clamp(-3, 0, 10)\n0\n>>> clamp(42, 0, 10)\n10")
    context = StepContext(step_id=1, content="Compare with both bounds, refusing an empty range.",
                          original_query=question, domain=Domain.CODE, proof_level=ProofLevel.STANDARD, final=True)
    out = PythonTestsChecker().check(src, level=ProofLevel.STANDARD, limits=LIMITS, context=context)
    assert out.status is StepStatus.UNSUPPORTED and "% of mutants" in out.message, out.message
    assert out.details["mutation_score"] < 0.5


def test_a_test_that_only_checks_not_none_kills_nothing():
    out = check(ADD + "def test_add():\n    assert add(2, 2) is not None\n")  # `a - b` and `type(a + b)()` are ints
    assert out.status is StepStatus.UNSUPPORTED and out.message.startswith("tests kill 0 % of mutants"), out.message


@pytest.mark.slow
def test_tests_that_check_no_value_verify_nothing_at_any_threshold():
    first = "def first(xs):\n    return xs[0]\n\n\n"  # `xs[1]` crashes on [5]: the one mutant such tests kill
    for test in ("assert first([5]) is not None", "assert type(first([5])) is int", "first([5])"):
        src = first + f"def test_first():\n    {test}\n"
        for threshold in (0.0, 0.3):
            out = check(src, mutation_threshold=threshold)
            assert out.status is StepStatus.UNSUPPORTED and out.message.startswith("the tests check no value"), (
                out.message)
            values = out.details["value_check"]
            assert values["loud_killed"] >= 1 and values["quiet_killed"] == 0 and not values["passed"]
    assert check(src, mutation_threshold=0.0, value_check=False).status is StepStatus.VERIFIED
    assert check(first + "def test_first():\n    assert first([5, 6]) == 5\n").status is StepStatus.VERIFIED


def test_property_violation_is_reported():
    src = ADD + ("from hypothesis import given, strategies as st\n\n@given(st.integers())\n"
                 "def test_positive(x):\n    assert add(x, 1) > 0\n")
    out = check(src)
    assert out.status is StepStatus.FAILED and out.message.startswith("property violated")
    assert out.details["property_violations"][0]["test"] == "artifact.py::test_positive"


def test_no_tests_is_an_error_never_a_pass():
    # nothing was checked: not a refutation of the step either (an implementation the step's text gives no
    # example for, or a translation that left its tests out)
    out = check(ADD)
    assert out.status is StepStatus.ERROR and "no tests were collected" in out.message


def test_syntax_error_fails_without_running():
    out = check("def f(:\n    pass\n")
    assert out.status is StepStatus.FAILED and out.message.startswith("syntax error at line 1")


GOOD_TEST = "def test_add():\n    assert add(1, 2) == 3\n    assert add(-1, 1) == 0\n"


@pytest.mark.parametrize("level", ["quick", "standard"])
@pytest.mark.parametrize("depth", [500, 3000])
def test_an_artifact_nested_too_deep_to_read_is_unsupported_never_a_crash(level, depth):
    # 500: parses and runs, but its mutants' ast.unparse recursed past the limit; 3000: ast.parse itself does
    deep = "def double(n):\n    return n + n + (" + "+".join(["0"] * depth) + ")\n\n"
    out = check(deep + "def test_double():\n    assert double(2) == 4\n    assert double(5) == 10\n", level)
    assert out.status is StepStatus.UNSUPPORTED and out.error_kind == "too_large"
    assert "nests" in out.message and "naming intermediate values" in out.message




@pytest.mark.parametrize(("name", "prefix"), [
    ("os._exit before tests", "import os\nos._exit(0)\n"),
    ("sys.exit at import", "import sys\nsys.exit(0)\n"),
    ("kill the harness parent", "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\n"),
    ("print a fake report", "print('RFREPORT {\"nonce\": \"0\", \"events\": []}')\nimport os\nos._exit(0)\n"),
    ("print a report deeper than the decoder recurses", "print('RFREPORT ' + '[' * 100000)\nimport os\nos._exit(0)\n"),
    ("write a fake report file", "open('report.json', 'w').write('{\"passed\": true}')\nimport os\nos._exit(0)\n"),
])
def test_escapes_from_the_harness_are_never_a_pass(name, prefix):
    out = check(ADD + prefix + GOOD_TEST)
    assert out.status is StepStatus.FAILED, (name, out.message)


def test_a_conftest_written_by_the_artifact_is_not_loaded():
    conftest = ("import pytest\n@pytest.hookimpl(hookwrapper=True)\ndef pytest_runtest_makereport(item, call):\n"
                "    out = yield\n    out.get_result().outcome = 'passed'\n")
    src = f"open('conftest.py', 'w').write({conftest!r})\n" + ADD.replace("a + b", "a - b") + GOOD_TEST
    out = check(src, level="quick")
    assert out.status is StepStatus.FAILED and "test_add" in out.message


def test_parent_memory_is_out_of_reach():
    src = ADD + ("import os\n\ndef test_add():\n    assert add(1, 2) == 3\n\n"
                 "def test_snoop():\n    open(f'/proc/{os.getppid()}/mem', 'rb').read(1)\n")
    out = check(src, level="quick")
    assert out.status is StepStatus.FAILED and "test_snoop" in out.message


def test_dynamically_added_tests_do_not_match_the_ast():
    out = check(ADD + GOOD_TEST + "globals()['test_extra'] = lambda: None\n")
    assert out.status is StepStatus.FAILED and "do not match" in out.message


def test_infinite_loop_is_an_error_not_a_failure():
    out = check(ADD + "def test_add():\n    while True:\n        pass\n", level="quick",
                limits=CheckLimits(timeout_s=2))
    assert out.status is StepStatus.ERROR and "limit" in out.message


def test_quick_level_runs_asserts_and_notes_type_check():
    out = check(ADD + GOOD_TEST, level="quick")
    assert out.status is StepStatus.VERIFIED, out.message
    assert "type_check" in out.details and "mutation_score" not in out.details
    bad = check(ADD + "assert add(1, 1) == 3\n" + GOOD_TEST, level="quick")
    assert bad.status is StepStatus.FAILED and "import or collect" in bad.message


def test_a_missing_return_the_type_check_cannot_rule_out_refutes_nothing():
    # HumanEval/24's canonical solution: the loop always returns for n >= 2, mypy cannot tell
    divisor = ("def largest_divisor(n: int) -> int:\n    for i in reversed(range(n)):\n        if n % i == 0:\n"
               "            return i\n\n\ndef test_divisor():\n    assert largest_divisor(15) == 5\n"
               "    assert largest_divisor(49) == 7\n")
    out = check(divisor, level="quick")
    if "skipped" in out.details.get("type_check", ""):
        pytest.skip("mypy is not installed in the sandbox's Python")
    assert out.status is StepStatus.VERIFIED, out.message
    assert out.details["type_check"].startswith("passed") and "[return]" in out.details["type_errors"][0]
    # a finding about a value is still a refutation
    wrong = check("def half(n: int) -> int:\n    return n / 2\n\n\ndef test_half():\n    assert half(4) == 2\n",
                  level="quick")
    assert wrong.status is StepStatus.FAILED and "return-value" in wrong.message


def test_formal_level_reports_crosshair_status():
    src = ('def half(x: int) -> int:\n    """\n    pre: x >= 0\n    post: __return__ * 2 <= x\n    """\n'
           '    return x // 2\n\n\ndef test_half():\n    assert half(4) == 2\n    assert half(5) == 2\n'
           '    assert half(0) == 0\n')
    out = check(src, level="formal")
    assert out.status is StepStatus.VERIFIED, out.message
    assert "formal" in out.details


def test_interpret_fails_closed_on_incomplete_reports():
    expected = expected_tests(__import__("ast").parse(GOOD_TEST))
    assert interpret(HarnessReport(valid=False, problem="no report"), expected).status == "failed"
    collected = {"ev": "collected", "items": [{"id": "a::test_add", "name": "test_add", "cls": None}]}
    assert interpret(HarnessReport(valid=True, events=[collected], child_exit=0), expected).status == "failed"
    passed = {"ev": "test", "id": "a::test_add", "when": "call", "outcome": "passed"}
    finish = {"ev": "finish", "exitstatus": 0}
    ok = interpret(HarnessReport(valid=True, events=[collected, passed, finish], child_exit=0), expected)
    assert ok.status == "passed" and ok.tests_passed == 1
    lying = interpret(HarnessReport(valid=True, events=[collected, passed, {"ev": "finish", "exitstatus": 1}],
                                    child_exit=1), expected)
    assert lying.status == "failed"
    timeout = interpret(HarnessReport(valid=True, resource="wall clock"), expected)
    assert timeout.status == "error"


def test_variants_each_run_in_their_own_sandbox():
    from reasonforge.verify.code.harness_run import run_options, run_variants

    variants = [ADD + GOOD_TEST, ADD.replace("a + b", "a * b") + GOOD_TEST,
                ADD + "def test_add():\n    while True:\n        pass\n",
                ADD + "import os\nos._exit(0)\n" + GOOD_TEST, ADD + GOOD_TEST]
    expected = expected_tests(__import__("ast").parse(GOOD_TEST))
    results = run_variants(variants, options=run_options(variants[0], examples=10), run_timeout_s=1.5,
                           memory_mb=1024, expected=expected, examples=10, plan=None, workers=2)
    assert [r.status for r in results] == ["passed", "failed", "error", "failed", "passed"]


def test_the_harness_is_read_only_to_the_artifact():
    src = ADD + ("def test_add():\n    assert add(1, 2) == 3\n\n"
                 "def test_tamper():\n    open('/rf-harness/rf_parent.py', 'a').write('# tampered')\n")
    out = check(src, level="quick")
    assert out.status is StepStatus.FAILED and "test_tamper" in out.message
    assert "Read-only file system" in out.message or "Permission denied" in out.message


def test_tests_of_a_function_the_artifact_never_defines_are_an_error_not_a_refutation():
    # What the local 0.5B model wrote for "sum_even(xs) adds up the even elements": the test, not the function.
    out = check("def test_sum_even():\n    assert sum_even([1, 2, 3, 4]) == 6\n")
    assert out.status is StepStatus.ERROR and out.error_kind == "compile"
    assert "calls sum_even but never defines" in out.message


def test_an_artifact_with_nothing_to_run_is_an_error_not_a_failure():
    out = check("def sum_even(xs):\n    return sum(x for x in xs if x % 2 == 0)\n")
    assert out.status is StepStatus.ERROR and out.error_kind == "untranslatable", out.message
