"""Equivalent-mutant exclusion: recorded calls, perturbations, the differential run and its anti-gaming rules."""

from __future__ import annotations

import ast
import dataclasses
import importlib
import math
import random
import sys

import pytest

from reasonforge.types import CheckLimits, ProofLevel, StepStatus
from reasonforge.verify import sandbox as sb
from reasonforge.verify.code.equivalence import (
    Judgement,
    differential,
    mutated_span,
    parse_calls,
)
from reasonforge.verify.code.equivalence_static import canonical
from reasonforge.verify.code.harness_run import HARNESS_DIR, expected_tests, run_harness, run_tests
from reasonforge.verify.code.judging import judge_mutants, untested_functions
from reasonforge.verify.code.mutants import (
    Mutant,
    generate_mutants,
    implementation_nodes,
    misnamed_implementations,
)
from reasonforge.verify.code.pytest_checker import PythonTestsChecker

needs_sandbox = pytest.mark.skipif(sb.unavailable_reason() is not None,
                                   reason=f"sandbox unavailable: {sb.unavailable_reason()}")
LIMITS = CheckLimits(timeout_s=8)


def harness(name: str):
    """A harness module, imported from its directory as the sandbox does (trusted test inputs only)."""
    if str(HARNESS_DIR) not in sys.path:
        sys.path.insert(0, str(HARNESS_DIR))
    return importlib.import_module(name)


def mutant_of(source: str, before: str, after: str) -> Mutant:
    """The mutant that replaces the first `before` by `after` in the unparsed source."""
    text = ast.unparse(ast.parse(source))
    assert before in text, before
    return Mutant(0, "test", 1, before, after, text.replace(before, after, 1))


def check(src: str, **kw):
    return PythonTestsChecker(**kw).check(src, level=ProofLevel.STANDARD, limits=LIMITS)


# ------------------------------------------------------------------------------- pure parts


def test_values_round_trip_plain_data_and_refuse_the_rest():
    values = harness("rf_values")
    value = [1, -2.5, float("nan"), "s", b"\x00", (1, [2]), {1: {"a": (3,)}}, {4, 5}, frozenset({6}), 1 + 2j, None, True]
    back = values.decode(values.encode(value))
    assert back[:2] == value[:2] and math.isnan(back[2]) and back[3:] == value[3:]
    assert type(back[5]) is tuple and type(back[7]) is set and type(back[8]) is frozenset
    for bad in (object(), [lambda: 0], list(range(5000)), 1 << 5000):
        with pytest.raises(values.Unsupported):
            values.encode(bad)
    with pytest.raises(ValueError):
        values.decode({"$": "pickle", "v": []})


def test_perturbations_are_deterministic_typed_and_near():
    perturb = harness("rf_perturb")
    draw = [perturb.variants(v, random.Random(1)) for v in (5, 2.0, "abc", [3, 1, 2], (1, "x"), {"k": 1}, {1, 2})]
    assert draw == [perturb.variants(v, random.Random(1)) for v in (5, 2.0, "abc", [3, 1, 2], (1, "x"), {"k": 1}, {1, 2})]
    ints, _, strs, lists, tuples, dicts, sets = draw
    assert {6, 4, 0, -5, 10} <= set(ints) and 5 not in ints
    assert {"", "cba", "ABC"} <= set(strs) and "abc" not in strs
    assert [] in lists and [1, 2, 3] in lists and [2, 1, 3] in lists and [-3, -1, -2] in lists
    assert all(type(t) is tuple for t in tuples) and all(type(d) is dict for d in dicts) and set() in sets
    calls = perturb.perturbed_calls([[1, 2], 3], {}, random.Random(0), 30)
    assert all(len(args) == 2 for args, _ in calls) and len(calls) == 30


def test_recorder_keeps_outer_calls_only_and_adds_no_frames_to_recursion():
    record = harness("rf_record")
    ns: dict = {}
    exec("def depth(n, seen):\n    seen.append(depth)\n    return 0 if n == 0 else 1 + depth(n - 1, seen)\n", ns)
    real = ns["depth"]
    recorder = record.Recorder()
    recorder.install(ns, ["depth"])
    seen: list = []
    assert ns["depth"](3, seen) == 3 and ns["depth"](2, []) == 2
    assert all(f is real for f in seen)  # inside the call the global name is the real function
    assert [c["args"] for c in recorder.calls] == [[3, []], [2, []]]  # arguments as received, before the call
    ns["depth"](3, [])  # a repeat is not kept twice
    ns["depth"](1, [object()])  # not plain data: skipped, the call still runs
    assert len(recorder.calls) == 2 and recorder.dropped == 1


def test_loud_differences_are_the_ones_a_type_check_sees():
    compare = harness("rf_compare")

    def outcome(fn, *args):
        return compare.run_call(fn, list(args), {}, 1.0)

    three = outcome(lambda a, b: a + b, 1, 2)
    assert not compare.loud_difference(three, outcome(lambda a, b: a - b, 1, 2))  # another int: quiet
    assert compare.loud_difference(three, outcome(lambda a, b: None, 1, 2))
    assert compare.loud_difference(three, outcome(lambda a, b: a / b, 1, 2))  # a float now
    assert compare.loud_difference(three, outcome(lambda a, b: [][a], 1, 2))  # raises
    index_error, key_error = outcome(lambda xs: xs[1], []), outcome(lambda d: d[1], {})
    assert compare.loud_difference(index_error, key_error) and not compare.loud_difference(index_error, index_error)
    grown = outcome(lambda xs: xs.append(1), [0])
    assert not compare.loud_difference(grown, outcome(lambda xs: xs.append(2), [0]))  # same types after the call
    assert not compare.loud_difference(grown, outcome(lambda xs: xs.__setitem__(0, "x"), [0]))  # still a list
    assert compare.loud_difference(outcome(lambda x: x, [1]), outcome(lambda x: tuple(x), [1]))


def test_a_function_is_untested_only_when_every_counted_mutant_is_shown_unreached():
    src = "def f(x):\n    return x + 1\n\n\ndef g(x):\n    y = x * 2\n    return y - 1\n"
    tree = ast.parse(src)
    mutants = generate_mutants(src, max_mutants=100)
    in_g = [m for m in mutants if m.line >= 5]
    unreached = {m.id: Judgement(mutant=m.id, status="undecided", unreached=True) for m in in_g}
    assert untested_functions(tree, in_g, unreached) == [("g", len(in_g))]
    doubt = {**unreached, in_g[0].id: Judgement(mutant=in_g[0].id, status="undecided")}  # e.g. no span: not watched
    assert untested_functions(tree, in_g, doubt) == []
    assert untested_functions(tree, in_g, {k: v for k, v in unreached.items() if k != in_g[0].id}) == []  # one killed
    assert untested_functions(tree, [m for m in mutants if m.line < 5], unreached) == []


def test_mutated_span_is_the_changed_node_in_the_mutant():
    src = "def f(x, lo):\n    if x < lo:\n        return lo + 1\n    return x\n"
    original = ast.unparse(ast.parse(src))
    assert mutated_span(original, original.replace("x < lo", "x <= lo")) == (2, 7, 2, 14)
    assert mutated_span(original, original.replace("lo + 1", "lo + 2")) == (3, 20, 3, 21)
    assert mutated_span(original, original.replace("if x < lo", "if not x < lo")) == (2, 7, 2, 17)
    assert mutated_span(original, original) is None


def test_parse_calls_keeps_known_functions_and_one_recorder_event():
    good = {"function": "f", "args": [1, {"$": "tuple", "v": [2]}], "kwargs": {}}
    events = [{"ev": "calls", "calls": [good, {"function": "os.system", "args": [], "kwargs": {}}, {"bad": 1}]},
              {"ev": "calls", "calls": [{"function": "f", "args": [99], "kwargs": {}}]}]
    calls = parse_calls(events, {"f"})
    assert [c.args for c in calls] == [[1, {"$": "tuple", "v": [2]}]]


def test_static_prefilter_skips_mutants_equal_after_folding():
    assert canonical("y = x + 0") == canonical("y = x - 0") == canonical("y = x")
    assert canonical("y = x ** 1") == canonical("y = x * 1")
    assert canonical("y = 60 * 6") == canonical("y = 360")
    assert canonical("y = x + 1") != canonical("y = x - 1")
    assert canonical("y = 10 ** 10 ** 10") != canonical("y = 0")  # too large to fold: left alone
    changes = [m.description for m in generate_mutants("def f(x):\n    return x + 0\n", max_mutants=100)]
    assert "line 2: x + 0 → x - 0" not in changes and "line 2: 0 → 1" in changes


def test_misnamed_implementation_rule():
    src = ("import pytest\n\n@pytest.fixture\ndef data():\n    return 1\n\n"
           "def test_three_equal(x, y, z):\n    return len({x, y, z})\n\n"
           "def test_uses_fixture(data, tmp_path):\n    assert data\n\n"
           "def test_unknown_fixture(foo):\n    assert foo\n\n"
           "def test_default(x=1):\n    assert x\n\n"
           "def test_case_1():\n    assert test_three_equal(1, 1, 1) == 1\n")
    tree = ast.parse(src)
    assert misnamed_implementations(tree) == {"test_three_equal"}  # test_unknown_fixture is called by no one
    assert "test_three_equal" in [f.name for f in implementation_nodes(tree)]
    assert {n for _, n in expected_tests(tree)} == {"test_uses_fixture", "test_unknown_fixture", "test_default",
                                                   "test_case_1"}


# ------------------------------------------------------------------------------- sandboxed

ALL_SAME = '''
def all_same(s):
    for i in range(1, len(s)):
        if s[i] != s[0]:
            return False
    return True


def test_all_same():
    assert all_same("aaa")
    assert not all_same("aab")
    assert all_same("")
'''


@needs_sandbox
def test_equivalent_mutant_is_recognised_and_a_real_one_has_evidence():
    equivalent = mutant_of(ALL_SAME, "range(1, len(s))", "range(0, len(s))")  # s[0] != s[0] never holds
    real = dataclasses.replace(mutant_of(ALL_SAME, "s[i] != s[0]", "s[i] != s[1]"), id=1)
    # A generous per-call limit: a loaded machine's stall must not read as the mutant timing out.
    judged, run = judge_mutants(ALL_SAME, [equivalent, real], limits=LIMITS, per_call_s=1.0)
    assert run.status == "passed" and run.calls
    assert judged[0].status == "equivalent" and judged[0].inputs > 3
    assert judged[1].status == "distinguished"
    assert judged[1].evidence and judged[1].evidence["function"] == "all_same"


@needs_sandbox
def test_killed_mutants_are_classified_loud_or_quiet_on_the_tests_inputs():
    src = "def add(a, b):\n    return a + b\n\n\ndef test_add():\n    assert add(1, 2) == 3\n"
    swapped = mutant_of(src, "a + b", "a - b")
    nothing = dataclasses.replace(mutant_of(src, "return a + b", "return None"), id=1)
    crash = dataclasses.replace(mutant_of(src, "return a + b", "return [][a]"), id=2)
    run = run_tests(src, examples=10, wall_s=8, memory_mb=LIMITS.memory_mb, record=["add"])
    assert run.status == "passed" and run.calls
    judged, loud, _ = differential(src, [], run.calls, run=run_harness, seed=0, memory_mb=LIMITS.memory_mb,
                                   killed=[swapped, nothing, crash])
    assert judged == {} and loud == {0: False, 1: True, 2: True}


@needs_sandbox
def test_checker_excludes_equivalent_mutants_from_the_denominator():
    out = check(ALL_SAME)
    d = out.details
    assert {"tests_passed", "tests_total", "mutation_score", "surviving_mutants", "equivalent_mutants",
            "equivalence_inputs", "recorded_calls"} <= set(d)
    assert d["recorded_calls"] >= 3
    counted = d["mutants_total"] - len(d["equivalent_mutants"])
    assert d["mutation_score"] == round(d["mutants_killed"] / counted, 4)
    assert all("distinguished_by" in s or "undecided" in s for s in d["surviving_mutants"])


@needs_sandbox
def test_mutants_that_only_equivalent_code_offers_leave_the_step_unsupported():
    src = ("def normalize(xs):\n    xs.sort()\n    if len(xs) > 0:\n        xs.sort()\n\n\n"
           "def test_normalize():\n    xs = [3, 1, 2]\n    normalize(xs)\n    assert xs == [1, 2, 3]\n")
    out = check(src)
    assert out.status is StepStatus.UNSUPPORTED, out.details
    assert "tests exercise nothing that mutants change" in out.message
    assert out.details["equivalent_mutants"] and out.details["mutants_killed"] == 0


@needs_sandbox
def test_tests_that_never_call_the_code_claim_no_equivalence():
    src = "def add(a, b):\n    return a + b\n\n\ndef test_add():\n    assert True\n"
    out = check(src)
    assert out.status is StepStatus.UNSUPPORTED and out.message.startswith("tests kill 0 % of mutants")
    assert out.details["recorded_calls"] == 0 and out.details["equivalent_mutants"] == []
    assert "no mutant can be claimed equivalent" in out.details["equivalence_note"]


@needs_sandbox
def test_code_the_tests_never_reach_is_not_equivalent():
    src = ("def inc(x):\n    return x + 1\n\n\n"
           "def total(xs):\n    s = 0\n    for x in xs:\n        s += x\n    return s\n\n\n"
           "def test_inc():\n    assert inc(1) == 2\n    assert inc(-1) == 0\n")
    out = check(src)
    assert out.status is StepStatus.UNSUPPORTED and out.message.startswith("the tests never run total"), out.message
    undecided = [s for s in out.details["surviving_mutants"] if "undecided" in s]
    assert undecided and all("never ran" in s["undecided"] for s in undecided)
    assert out.details["equivalent_mutants"] == [] and out.details["untested_functions"] == ["total"]
    assert out.details["mutation_score"] >= 0.5  # the score alone would have let it through


@needs_sandbox
def test_a_mutant_that_stops_terminating_is_distinguished():
    src = ("def count_up(n):\n    i = 0\n    while i < n:\n        i += 1\n    return i\n\n\n"
           "def test_count_up():\n    assert count_up(3) >= 0\n")
    looping = mutant_of(src, "i += 1", "i -= 1")
    judged, _ = judge_mutants(src, [looping], limits=LIMITS)
    assert judged[0].status == "distinguished"
    assert judged[0].evidence["mutant"] == "does not finish in time"


@needs_sandbox
def test_an_implementation_named_like_a_test_is_not_collected():
    src = ("def test_three_equal(x, y, z):\n    result = set([x, y, z])\n    if len(result) == 3:\n        return 0\n"
           "    return 4 - len(result)\n\n\ndef test_case_1():\n    assert test_three_equal(1, 1, 1) == 3\n\n\n"
           "def test_case_2():\n    assert test_three_equal(-1, -2, -3) == 0\n\n\n"
           "def test_case_3():\n    assert test_three_equal(1, 2, 2) == 2\n")
    out = check(src)
    assert out.status is StepStatus.VERIFIED, out.message
    assert out.details["tests_total"] == 3 and out.details["mutants_total"] > 0
    broken = check("def add(a, b):\n    return a + b\n\n\ndef test_add(foo):\n    assert add(foo, 1)\n")
    assert broken.status is StepStatus.FAILED and "test_add" in broken.message  # a real test needing a fixture
