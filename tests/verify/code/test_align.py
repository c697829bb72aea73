"""Attacks on the python checker by an artifact that has read its source (issue 17), each a real sandboxed run.

Every attack here obtained VERIFIED (or a mutant kill it did not earn) before the fix it names; each is kept
so that it stays closed. Honest controls sit beside them: the fixes must not cost honest artifacts.
"""

from __future__ import annotations

import ast

import pytest

from reasonforge.pipeline.gate import gate
from reasonforge.pipeline.run import verify_chain
from reasonforge.types import (
    ArtifactLanguage,
    CheckLimits,
    CheckOutcome,
    Domain,
    ErrorKind,
    ProofLevel,
    ReasoningStep,
    StepContext,
    StepStatus,
    StepTranslation,
    VerifyRequest,
)
from reasonforge.verify import sandbox as sb
from reasonforge.verify.code.harness_run import expected_tests, run_options
from reasonforge.verify.code.judging import run_mutants
from reasonforge.verify.code.mutants import generate_mutants
from reasonforge.verify.code.pytest_checker import PythonTestsChecker

pytestmark = pytest.mark.skipif(sb.unavailable_reason() is not None, reason=f"sandbox unavailable: {sb.unavailable_reason()}")

LIMITS = CheckLimits(timeout_s=8)
CLAMP = ("def clamp(x, lo, hi):\n    if x < lo:\n        return lo\n    if x > hi:\n        return hi\n"
         "    return x\n\n\n")
# Runs the code (so the mutated lines execute) but checks no value: only a run it can tell apart fails.
CALLS = "    clamp(5, 0, 10)\n    clamp(-5, 0, 10)\n    clamp(50, 0, 10)\n"
LARGEST = ("def largest(xs):\n    best = xs[0]\n    for x in xs[1:]:\n        if x > best:\n            best = x\n"
           "    return best\n\n\n")
SMALLEST_AS_LARGEST = LARGEST.replace("x > best", "x < best")


def check(src: str, level: str = "standard", context: StepContext | None = None):
    return PythonTestsChecker().check(src, level=ProofLevel(level), limits=LIMITS, context=context)


def ctx(content: str, question: str = "") -> StepContext:
    return StepContext(step_id=1, content=content, original_query=question, domain=Domain.CODE,
                       proof_level=ProofLevel.STANDARD)


# ------------------------------------------------------------------ 1. runs the artifact can tell apart

FINGERPRINT = '''
import hashlib, json, os, sys


def seen():
    fields = {"file": __file__, "name": __name__, "argv": sys.argv, "cwd": os.getcwd(), "pid": os.getpid(),
              "ppid": os.getppid(), "env": sorted(os.environ.items()), "path": sys.path, "trace": sys.gettrace() is None,
              "modules": sorted(m for m in sys.modules if not m.startswith("_")), "files": sorted(os.listdir(".")),
              "tmp": sorted(os.listdir("/tmp")), "wrapped": hasattr(clamp, "__wrapped__")}
    return hashlib.sha256(json.dumps(fields, sort_keys=True).encode()).hexdigest()[:16]


def test_fingerprint():
    clamp(5, 0, 10)
    assert False, "FP=" + seen()
'''


def test_the_original_and_every_mutant_run_where_nothing_tells_them_apart():
    src = CLAMP + FINGERPRINT
    mutants = [m for m in generate_mutants(src, max_mutants=20) if m.line <= 6][:6]  # clamp's, not seen()'s
    expected = expected_tests(ast.parse(src))
    original, results = run_mutants(src, mutants, options=run_options(src, examples=10), examples=10,
                                    run_timeout_s=5, memory_mb=1024, expected=expected, plan=None, workers=2)
    prints = {r.failing[0]["message"].split("FP=")[1][:16] for r in [original, *results]}
    assert len(prints) == 1, prints


@pytest.mark.parametrize(("name", "tell"), [
    ("file name", "import os\n    assert os.path.basename(__file__) == 'artifact.py'\n"),
    ("argv", "import sys\n    assert sys.argv[1] == 'artifact.py'\n"),
    ("module name", "assert __name__ == 'artifact'\n"),
    ("state left by an earlier run", ("import os\n    first = not os.path.exists('/tmp/seen')\n"
                                      "    open('/tmp/seen', 'w').close()\n    assert first\n")),
    ("the recorder's wrappers", "assert hasattr(clamp, '__wrapped__')\n"),
    ("coverage tracing", "import sys\n    assert sys.gettrace() is not None\n"),
    ("the first run's profile", "from hypothesis import settings\n    assert settings.default.max_examples == 100\n"),
    ("its comments", "assert '# the original' in open(__file__).read()\n"),
    ("its line numbers", "import sys\n    assert sys._getframe().f_lineno == 17\n"),
])
def test_tests_that_pass_only_in_the_first_run_do_not_kill_mutants(name, tell):
    src = "# the original\n\n\n" + CLAMP + "def test_clamp():\n" + CALLS + "    " + tell
    out = check(src)
    assert out.details["tests_passed"] == out.details["tests_total"] == 1, out.message  # the tell holds in the first run
    assert out.status is not StepStatus.VERIFIED, (name, out.details.get("mutation_score"))


# ------------------------------------------------------------------ 2. processes that write the report

FORGE = '''
import json, os, sys


def forge(tests):
    fd = next(int(n) for n in os.listdir("/proc/self/fd")
              if int(n) > 2 and os.readlink(f"/proc/self/fd/{n}").startswith("pipe:"))
    items = [{"id": f"artifact.py::{t}", "name": t, "cls": None, "property": False} for t in tests]
    events = [{"ev": "collected", "items": items}]
    events += [{"ev": "test", "id": i["id"], "when": "call", "outcome": "passed"} for i in items]
    events.append({"ev": "finish", "exitstatus": 0})
    os.write(fd, "".join(json.dumps(e) + "\\n" for e in events).encode())
'''
WRONG_ADD = "def add(a, b):\n    return a - b\n\n\ndef test_add():\n    assert add(1, 2) == 3\n"


def test_an_artifact_cannot_exec_into_a_program_that_writes_the_report():
    src = FORGE + ("os.execv(sys.executable, [sys.executable, '-c', " + repr(FORGE + "forge(['test_add'])\n") + "])\n"
                   + WRONG_ADD)
    out = check(src, level="quick")
    assert out.status is StepStatus.FAILED, out.message
    assert "Operation not permitted" in out.message


def test_an_artifact_cannot_fork_a_child_that_writes_the_report_after_it():
    src = FORGE + ("import time\nif os.fork() == 0:\n    os.setsid()\n    time.sleep(0.3)\n    forge(['test_add'])\n"
                   "    os._exit(0)\nos._exit(0)\n" + WRONG_ADD)
    out = check(src, level="quick")
    assert out.status is StepStatus.FAILED, out.message


@pytest.mark.parametrize("start", [
    "import subprocess\nsubprocess.run(['/bin/true'])\n",
    "import multiprocessing\nmultiprocessing.Process(target=print).start()\n",
    "import os\nos.posix_spawn('/bin/true', ['true'], {})\n",
])
def test_no_process_of_any_kind_can_be_started(start):
    out = check("def add(a, b):\n    return a + b\n\n\ndef test_add():\n    " + start.replace("\n", "\n    ")
                + "assert add(1, 2) == 3\n", level="quick")
    assert out.status is StepStatus.FAILED and "not permitted" in out.message, out.message


def test_threads_still_work():
    src = ("import threading\n\ndef add(a, b):\n    return a + b\n\n\ndef test_add():\n    out = []\n"
           "    t = threading.Thread(target=lambda: out.append(add(1, 2)))\n    t.start()\n    t.join()\n"
           "    assert out == [3]\n")
    assert check(src, level="quick").status is StepStatus.VERIFIED


# ------------------------------------------------------------------ 3. the property profile

PROPERTY = "from hypothesis import Phase, assume, example, given, settings, strategies as st\n\n\n" + \
    "def double(x):\n    return 2 * x\n\n\n"


@pytest.mark.parametrize(("name", "decorators", "body"), [
    ("max_examples=1", "@settings(max_examples=1)\n", "assert double(x) >= x\n"),
    ("explicit examples only", "@settings(phases=[Phase.explicit])\n@example(3)\n", "assert double(x) >= x\n"),
    ("a pinned seed and one example", "@settings(max_examples=1, derandomize=False)\n", "assert double(x) >= x\n"),
    ("assume() rejects nearly everything", "", "assume(x == 0)\n    assert double(x) == x\n"),
])
def test_a_test_cannot_weaken_the_property_profile(name, decorators, body):
    src = PROPERTY + decorators + "@given(st.integers())\ndef test_double(x):\n    " + body
    out = check(src, level="quick")
    assert out.status is StepStatus.FAILED, (name, out.message)


def test_patching_hypothesis_at_run_time_leaves_no_statistics_and_fails():
    src = PROPERTY + ("core = __import__('hypothesis' + '.core', fromlist=['x'])\n"
                      "setattr(core, 'note_statistics', lambda stats: None)\n\n\n"
                      "@given(st.integers())\ndef test_double(x):\n    assert double(x) == x + x\n")
    out = check(src, level="quick")
    assert out.status is StepStatus.FAILED and "no generated examples" in out.message, out.message


def test_setting_up_a_profile_is_refused_with_a_reason():
    src = PROPERTY + ("settings.register_profile('weak', max_examples=1)\nsettings.load_profile('weak')\n\n\n"
                      "@given(st.integers())\ndef test_double(x):\n    assert double(x) == 2 * x\n")
    out = check(src, level="quick")
    assert out.status is StepStatus.FAILED and out.message.startswith("refused:") and "profile" in out.message


def test_an_honest_property_with_its_own_settings_still_verifies():
    src = PROPERTY + ("@settings(max_examples=500, deadline=None)\n@given(st.integers())\n@example(0)\n"
                      "def test_double(x):\n    assert double(x) == x + x\n\n\n@given(st.booleans())\n"
                      "def test_small_space(b):\n    assert double(int(b)) in (0, 2)\n")
    out = check(src, level="quick")
    assert out.status is StepStatus.VERIFIED, out.message
    assert "harness profile" in out.details["property_profile"]


# ------------------------------------------------------------------ 4. the step's own examples and claims


def test_code_that_contradicts_the_step_text_fails_though_its_tests_agree_with_it():
    src = SMALLEST_AS_LARGEST + "def test_largest():\n    assert largest([3, 1, 2]) == 1\n    assert largest([5]) == 5\n"
    out = check(src, context=ctx("`largest(xs)` returns the largest element of the list."))
    assert out.status is StepStatus.FAILED, out.message
    assert "returns the largest element" in out.message and out.error_kind == "unaligned"


def test_the_questions_examples_run_against_a_supplied_artifact():
    question = 'def largest(xs):\n    """The largest element.\n    >>> largest([3, 1, 2])\n    3\n    """\n'
    src = SMALLEST_AS_LARGEST + "def test_largest():\n    assert largest([3, 1, 2]) == 1\n"
    out = check(src, level="quick", context=ctx("Here is the code.", question))
    assert out.status is StepStatus.FAILED and "question's example `largest([3, 1, 2])`" in out.message, out.message


def test_step_examples_kill_mutants_and_are_the_evidence():
    # The author's one test kills little; the step's example and claim do the rest.
    src = LARGEST + "def test_largest():\n    assert isinstance(largest([7, 2]), int)\n"
    step = "`largest(xs)` returns the largest element.\n>>> largest([3, 1, 2])\n3"
    out = check(src, context=ctx(step))
    assert out.status is StepStatus.VERIFIED, out.message
    evidence = out.evidence
    assert evidence.kind == "examples" and evidence.formaliser == "offline_reader"
    assert "largest([3, 1, 2]) → 3" in evidence.aligned_claim and "max(x)" in evidence.aligned_claim
    assert check(src).status is StepStatus.UNSUPPORTED  # without the step's checks the same tests are too weak


def test_author_tests_only_still_verify_and_say_so():
    src = LARGEST + ("def test_largest():\n    assert largest([3, 1, 2]) == 3\n    assert largest([-1, -5]) == -1\n"
                     "    assert largest([1, 4, 2]) == 4\n")
    out = check(src, context=ctx("We scan once, keeping the best so far."))
    assert out.status is StepStatus.VERIFIED, out.message
    assert out.evidence.kind == "author_tests"
    assert "def largest(xs): author's tests only" in out.evidence.aligned_claim


def test_a_step_example_for_a_function_the_artifact_lacks_is_unsupported():
    out = check(LARGEST + "def test_largest():\n    assert largest([1]) == 1\n", level="quick",
                context=ctx(">>> smallest([3, 1])\n1"))
    assert out.status is StepStatus.UNSUPPORTED and "smallest" in out.message


# ------------------------------------------------------------------ 5. the gate


def _translation(src: str) -> StepTranslation:
    return StepTranslation(step_id=1, original_content="", formal_representation=src, language=ArtifactLanguage.PYTHON)


def test_the_gate_accepts_the_checkers_evidence_for_its_step():
    src = LARGEST + "def test_largest():\n    assert largest([3, 1, 2]) == 3\n    assert largest([-1, -5]) == -1\n"
    # a prose step about code the chain wrote before it (an ancestor's)
    context = ctx("`largest` returns the largest element.").model_copy(
        update={"ancestors": [ReasoningStep(step_id=0, content=f"```python\n{LARGEST}```")]})
    out = gate(context, _translation(src), check(src, context=context), LIMITS)
    assert out.status is StepStatus.VERIFIED and out.evidence.kind == "examples"


def test_a_prose_step_about_code_nobody_in_the_chain_wrote_is_neither_verified_nor_refuted():
    # the attack: the step's prose describes one function (index 1 of the ascending sort: the second smallest),
    # the supplied artifact holds another that the question's examples pass; the verdict would be the artifact's
    question = ("Write second_largest(xs).\n>>> second_largest([3, 1, 2])\n2\n"
                ">>> second_largest([10, 40, 30, 20])\n30")
    src = "def second_largest(xs):\n    return sorted(xs)[-2]\n"
    context = ctx("Sort the list ascending and return `sorted(xs)[1]`, the second smallest value.", question)
    out = gate(context, _translation(src), check(src, context=context), LIMITS)
    assert out.status is StepStatus.UNSUPPORTED and "writes no code" in out.message
    wrong = "def second_largest(xs):\n    return sorted(xs)[0]\n"  # refuted by the examples: the artifact, not the step
    out = gate(context, _translation(wrong), check(wrong, context=context), LIMITS)
    assert out.status is StepStatus.UNSUPPORTED and "writes no code" in out.message


def test_author_tests_a_trivial_function_passes_are_no_evidence():
    # `xs[0]` passes both: the tests cannot tell the code from a function that computes nothing
    src = LARGEST + "def test_largest():\n    assert largest([3, 1, 2]) == 3\n    assert largest([-1, -5]) == -1\n"
    out = check(src, context=ctx("We scan once, keeping the best so far."))
    assert out.status is StepStatus.VERIFIED and out.evidence is None
    assert "first item" in out.message
    step = gate(ctx("We scan once, keeping the best so far."), _translation(src), out, LIMITS)
    assert step.status is StepStatus.UNSUPPORTED and step.error_kind == "no_evidence" and "first item" in step.message


def test_the_gate_refuses_a_verdict_reached_without_the_steps_checks():
    src = LARGEST + "def test_largest():\n    assert largest([3, 1, 2]) == 3\n    assert largest([1, 4, 2]) == 4\n"
    verdict = check(src, level="quick")  # no context: author's tests only
    assert verdict.evidence.kind == "author_tests"
    context = ctx(">>> largest([4, 9])\n9").model_copy(
        update={"ancestors": [ReasoningStep(step_id=0, content=f"```python\n{LARGEST}```")]})
    out = gate(context, _translation(src), verdict, LIMITS)
    assert out.status is StepStatus.UNSUPPORTED and "did not run" in (out.message or "")


def test_the_gate_makes_a_verdict_without_evidence_unsupported():
    out = gate(ctx("x"), _translation(LARGEST), CheckOutcome(status=StepStatus.VERIFIED), LIMITS)
    assert out.status is StepStatus.UNSUPPORTED


# ------------------------------------------------------------------ the process filter itself

FILTERED = '''
import os, sys, threading
sys.path.insert(0, {harness!r})
import rf_seccomp
rf_seccomp.install()
out = []
t = threading.Thread(target=lambda: out.append(1))
t.start()
t.join()
for name, start in [("fork", os.fork), ("exec", lambda: os.execv("/bin/true", ["true"]))]:
    try:
        start()
        print(name, "allowed")
    except PermissionError:
        print(name, "refused")
print("threads", out)
'''


@pytest.mark.skipif(__import__("platform").machine() not in ("x86_64", "aarch64"), reason="no filter for this machine")
def test_the_filter_refuses_processes_and_keeps_threads():
    import subprocess
    import sys

    from reasonforge.verify.code.harness_run import HARNESS_DIR

    out = subprocess.run([sys.executable, "-c", FILTERED.format(harness=str(HARNESS_DIR))], capture_output=True,
                         text=True, timeout=60, check=False)
    assert out.stdout.split("\n")[:3] == ["fork refused", "exec refused", "threads [1]"], out.stderr


# ---- the text's examples are the tests; the implementation must compute them -------------------------------------
EVEN_QUESTION = ("Write sum_even(xs) that returns the sum of the even numbers in the list xs.\n>>> sum_even([1, 2, 3, 4])\n6\n"
                 ">>> sum_even([5, 8, 10])\n18")


def _even(code):
    from reasonforge.pipeline.run import verify_chain
    from reasonforge.types import VerifyRequest

    req = VerifyRequest.model_validate({
        "original_query": EVEN_QUESTION, "domain": "code", "proof_level": "standard",
        "reasoning_chain": [{"step_id": 1, "content": f"sum_even(xs) adds up the elements of xs divisible by 2:\n"
                                                      f"```python\n{code}```"}],
        "translations": [{"step_id": 1, "language": "python", "formal_representation": code}]})
    return verify_chain(req).step_verdicts[0]


def test_an_implementation_without_tests_is_checked_on_the_texts_examples():
    step = _even("def sum_even(xs):\n    return sum(x for x in xs if x % 2 == 0)\n")
    assert step.status.value == "verified" and step.evidence.kind == "examples"
    wrong = _even("def sum_even(xs):\n    return sum(x for x in xs if x % 2 == 1)\n")
    assert wrong.status.value == "failed" and "should give 6, but it returned 4" in wrong.error_message


def test_an_implementation_that_does_not_compute_the_examples_is_unsupported():
    constant = _even("def sum_even(xs):\n    return 6\n")
    assert constant.status.value == "failed"  # a constant cannot give both examples
    lookup = _even("def sum_even(xs):\n    if xs == [1, 2, 3, 4]:\n        return 6\n    if xs == [5, 8, 10]:\n"
                   "        return 18\n    return 0\n")
    assert lookup.status.value == "unsupported" and "example's own input" in lookup.error_message
    base_case = _even("def sum_even(xs):\n    if xs == []:\n        return 0\n    return sum(x for x in xs if x % 2 == 0)\n")
    assert base_case.status.value == "verified"  # comparing with an empty list is a base case, not a lookup


def test_an_ancestors_tests_are_not_this_steps_evidence():
    from reasonforge.pipeline.run import verify_chain
    from reasonforge.types import VerifyRequest

    first = ("`double(x)` doubles x:\n```python\ndef double(x):\n    return 2 * x\n\n\ndef test_double():\n"
             "    assert double(3) == 6\n```")
    artifact = "def double(x):\n    return 2 * x\n\n\ndef test_double():\n    assert double(3) == 6\n"
    req = VerifyRequest.model_validate({
        "original_query": "", "domain": "code", "proof_level": "standard",
        "reasoning_chain": [{"step_id": 1, "content": first},
                            {"step_id": 2, "content": "So double never overflows and runs in constant memory."}],
        "translations": [{"step_id": 1, "language": "python", "formal_representation": artifact},
                         {"step_id": 2, "language": "python", "formal_representation": artifact}]})
    verdict = verify_chain(req)
    # its own code block: the author's tests, so its own evidence; the dependant's no more than that
    assert verdict.step_verdicts[0].evidence.supplied_by == "author"
    second = verdict.step_verdicts[1]
    assert second.status.value != "verified" or second.evidence.kind == "author_tests"
    assert verdict.overall.value != "VERIFIED"


# --- the artifact must run the step's code ----------------------------------------------------------------------

_QUESTION = ('Write most_common_key(counts): the key of the dict `counts` with the largest count.\n'
             '>>> most_common_key({"a": 3, "b": 1})\n\'a\'\n>>> most_common_key({"x": 2, "y": 5})\n\'y\'')
_WRONG = "def most_common_key(counts):\n    return min(counts, key=counts.get)\n"
_RIGHT = "def most_common_key(counts):\n    return max(counts, key=counts.get)\n"


def _supplied(step_code: str, artifact: str):
    request = VerifyRequest(original_query=_QUESTION, domain=Domain.CODE, proof_level=ProofLevel.QUICK,
                            reasoning_chain=[ReasoningStep(step_id=1, content=f"```python\n{step_code}```")],
                            translations=[{"step_id": 1, "language": "python", "formal_representation": artifact}])
    return verify_chain(request).step_verdicts[0]


@pytest.mark.parametrize("artifact", [
    _RIGHT,  # other code in place of the step's
    _WRONG + "\nmost_common_key = lambda counts: max(counts, key=counts.get)\n",  # the step's, then rebound
    _WRONG + "\nif True:\n    def most_common_key(counts):\n        return max(counts, key=counts.get)\n",
    _WRONG + "\nglobals()['most_common_key'] = lambda counts: max(counts, key=counts.get)\n",
    _WRONG + "\nimport sys\nsetattr(sys.modules[__name__], 'most_common_key', lambda c: max(c, key=c.get))\n",
    _WRONG + "\ndef _swap():\n    global most_common_key\n    most_common_key = lambda c: max(c, key=c.get)\n\n_swap()\n",
    "from collections import Counter\n\ndef helper(c):\n    return max(c, key=c.get)\n\nmost_common_key = helper\n",
    _WRONG + "\n[(most_common_key := lambda c: max(c, key=c.get))]\n",
    _WRONG + "\ndef _other(c):\n    return max(c, key=c.get)\n\nmost_common_key.__code__ = _other.__code__\n",
    _WRONG + "\nmatch 1:\n    case 1:\n        def most_common_key(c):\n            return max(c, key=c.get)\n",
    _WRONG + "\nclass Base:\n    def __init_subclass__(cls):\n        g = globals()\n"
             "        g['most_common_key'] = lambda c: max(c, key=c.get)\n\nclass Child(Base):\n    pass\n",
    _WRONG + "\nfor most_common_key in [lambda c: max(c, key=c.get)]:\n    pass\n",
], ids=["replaced", "rebound", "redefined-in-if", "globals", "sys-modules", "global-statement", "alias", "walrus",
        "code-object", "match-case", "init-subclass", "loop-target"])
def test_an_artifact_that_runs_other_code_than_the_steps_proves_nothing(artifact):
    """The step's code returns the minimum; each artifact makes the question's examples pass with other code. The
    examples are the question's (evidence the author cannot supply), so only alignment stands between this and
    VERIFIED."""
    step = _supplied(_WRONG, artifact)
    assert step.status is StepStatus.UNSUPPORTED and step.error_kind is ErrorKind.UNALIGNED, step.error_message


@pytest.mark.parametrize("extra", ["from collections import *", "import builtins as b", "import importlib",
                                   "from sys import modules"])
def test_an_artifact_that_could_reach_around_the_steps_code_proves_nothing_even_when_that_code_is_right(extra):
    """What such a line would do at import cannot be read off the artifact, so the verdict cannot be tied to the
    step's code: unsupported, never failed."""
    step = _supplied(_RIGHT, f"{_RIGHT}\n{extra}\n")
    assert step.status is StepStatus.UNSUPPORTED and step.error_kind is ErrorKind.UNALIGNED, step.error_message


@pytest.mark.parametrize(("step_code", "artifact"), [
    # the step binds its function by assignment, not `def`: the artifact's `def` is other code
    ("most_common_key = lambda counts: min(counts, key=counts.get)\n", _RIGHT),
    # the step's function uses a name it imports; the artifact binds that name to something else
    (("from builtins import min as smallest\n\ndef most_common_key(counts):\n"
      "    return smallest(counts, key=counts.get)\n"),
     ("from builtins import min as smallest\n\ndef most_common_key(counts):\n"
      "    return smallest(counts, key=counts.get)\n\nsmallest = max  # type: ignore\n")),
], ids=["lambda", "import"])
def test_every_name_the_steps_code_binds_is_bound_by_the_steps_own_statement(step_code, artifact):
    step = _supplied(step_code, artifact)
    assert step.status is StepStatus.UNSUPPORTED and step.error_kind is ErrorKind.UNALIGNED, step.error_message


def test_what_the_steps_own_code_does_at_its_top_level_is_the_steps():
    """An import of `sys` or a `getattr` the step's code writes is the step's code, not a reach around it."""
    code = "import sys\n\nLIMIT = getattr(sys, 'maxsize')\n\n" + _RIGHT
    assert _supplied(code, code).status is StepStatus.VERIFIED


def test_the_steps_own_code_with_tests_added_is_verified_and_its_wrong_code_is_refuted():
    test = "\n\ndef test_more():\n    assert most_common_key({'p': 1, 'q': 9}) == 'q'\n"
    assert _supplied(_RIGHT, _RIGHT + test).status is StepStatus.VERIFIED
    assert _supplied(_WRONG, _WRONG + test).status is StepStatus.FAILED  # the question's example fails it
