"""The step's checks run where the code they judge cannot reach what reports them (issue 33): each known way in,
as an artifact that has read the harness, in a real sandboxed run.

Every artifact here computes the minimum, its own tests agree with it, and it tries to make the question's
examples of the maximum report as passed. The step-check child (harness/rf_child_step.py) never holds an
expected value: whatever an attack changes in it, what it can report is what the code computed, or
nothing, or its own tampering. So each attack ends FAILED (the example reports the truth) or UNSUPPORTED
(the run is void), never VERIFIED. Honest controls sit beside them.
"""

from __future__ import annotations

import pytest

from reasonforge.types import CheckLimits, Domain, ProofLevel, StepContext, StepStatus
from reasonforge.verify import sandbox as sb
from reasonforge.verify.code.pytest_checker import PythonTestsChecker

pytestmark = pytest.mark.skipif(sb.unavailable_reason() is not None, reason=f"sandbox unavailable: {sb.unavailable_reason()}")

LIMITS = CheckLimits(timeout_s=10)
QUESTION = ("Write `largest(xs)`, the largest element of a non-empty list.\n>>> largest([3, 1, 2])\n3\n"
            ">>> largest([-5, -2])\n-2")
PRINTED = "Write `largest(xs)`.\n>>> print(largest([3, 1, 2]))\n3\n>>> print(largest([-5, -2]))\n-2"
MINIMUM = ("\n\ndef largest(xs):\n    return min(xs)\n\n\ndef test_largest():\n    assert largest([3, 1, 2]) == 1\n"
           "    assert largest([4, 9]) == 4\n")
# the forger's table: min's answers on the question's inputs, mapped to the question's
FIX = "{1: 3, -5: -2}"


def check(src: str, question: str = QUESTION, level: str = "quick"):
    src = "# mypy: ignore-errors\n" + src  # the quick level's type check is not what these attacks are about
    context = StepContext(step_id=1, content="Here is `largest`.", original_query=question, domain=Domain.CODE,
                          proof_level=ProofLevel(level), final=True)
    return PythonTestsChecker().check(src, level=ProofLevel(level), limits=LIMITS, context=context)


def test_an_honest_artifact_verifies_on_the_questions_examples():
    out = check("def largest(xs):\n    return max(xs)\n\n\ndef test_largest():\n    assert largest([1, 2]) == 2\n")
    assert out.status is StepStatus.VERIFIED, out.message
    assert (out.evidence.kind, out.evidence.supplied_by) == ("examples", "question")


def test_the_step_checks_still_kill_mutants():
    # the author's one weak test kills little; the question's examples, run in each mutant's own child, do the rest
    src = ("def largest(xs):\n    best = xs[0]\n    for x in xs[1:]:\n        if x > best:\n            best = x\n"
           "    return best\n\n\ndef test_largest():\n    assert isinstance(largest([7, 2]), int)\n")
    out = check(src, level="standard")
    assert out.status is StepStatus.VERIFIED, out.message
    assert out.details["mutants_killed"] >= 1 and out.details["mutation_score"] >= 0.5


PATCHES = {
    # the encoder and the channel
    "marshal.dumps": f"import marshal\n_d = marshal.dumps\nmarshal.dumps = lambda v, *a: _d({FIX}.get(v, v), *a)\n",
    "sys.modules['marshal']": ("import sys, types\n_m = types.ModuleType('marshal')\n_m.dumps = lambda v, *a: b'\\xe9\\x03'"
                               "+ bytes(3)\nsys.modules['marshal'] = _m\n"),
    "os.write": ("import os, marshal\n_w = os.write\ndef _forge(fd, data):\n"
                 "    return _w(fd, data.replace(marshal.dumps(1).hex().encode(), marshal.dumps(3).hex().encode()))\n"
                 "os.write = _forge\n"),
    "json.dumps": ("import json, marshal\n_j = json.dumps\njson.dumps = lambda o, *a, **k: _j(o, *a, **k).replace("
                   "marshal.dumps(1).hex(), marshal.dumps(3).hex())\n"),
    "rf_values.encode": f"import rf_values\n_e = rf_values.encode\nrf_values.encode = lambda v, *a: _e({FIX}.get(v, v), *a)\n",
    # builtins the examples are evaluated with
    "builtins.eval": ("import builtins\n_eval = builtins.eval\ndef _swapped(src, g=None, l=None):\n"
                      "    g = {**g, 'largest': max} if isinstance(g, dict) else g\n    return _eval(src, g, l)\n"
                      "builtins.eval = _swapped\n"),
    "builtins.max via the example's namespace": "import builtins\nbuiltins.largest = max\n",
    "rf_seccomp's ctypes": ("import rf_seccomp\ntry:\n    rf_seccomp.ctypes.memmove(id(1), id(3), 8)\n"
                            "except AttributeError:\n    pass\n"),
    # the harness child's own module
    "__main__'s globals": ("import sys\n_main = sys.modules['__main__']\nif sys.argv[0].endswith('rf_child_step.py'):\n"
                           "    for _name in list(vars(_main)):\n        if not _name.startswith('__'):\n"
                           "            setattr(_main, _name, None)\n"),
    "the hook's defaults": ("import sys\n_hook = getattr(sys.modules['__main__'], '_hook', None)\n"
                            "if _hook is not None:\n    _hook.__defaults__ = (None,) * len(_hook.__defaults__)\n"),
}


@pytest.mark.parametrize("name", sorted(PATCHES))
def test_patching_what_reports_the_values_cannot_make_a_refuting_example_pass(name):
    out = check(PATCHES[name] + MINIMUM)
    refuted = out.status is StepStatus.FAILED and "should give 3, but it returned 1" in out.message
    void = out.status is StepStatus.UNSUPPORTED and "reached into the harness" in out.message
    assert refuted or void, (name, out.status, out.message)


@pytest.mark.parametrize("name", ["builtins.print", "io.StringIO"])
def test_a_printed_example_is_its_value_printed_here(name):
    patch = ("import builtins\n_p = builtins.print\nbuiltins.print = lambda *v, **k: _p(*(" + FIX
             + ".get(x, x) for x in v), **k)\n") if name == "builtins.print" else (
        "import io\nclass _S(io.StringIO):\n    def getvalue(self):\n        return '3\\n'\nio.StringIO = _S\n")
    out = check(patch + MINIMUM, question=PRINTED)
    assert out.status is StepStatus.FAILED and "should give 3" in out.message, out.message


REACH = {
    "gc": "import gc\nfor _o in gc.get_objects():\n    pass\n",
    "sys.setprofile": "import sys\nsys.setprofile(lambda *a: None)\n",
    "sys.settrace": "import sys\nsys.settrace(lambda *a: None)\n",
    "threading.settrace": ("import threading\nthreading.settrace(lambda *a: None)\n_t = threading.Thread(target=len, "
                           "args=([],))\n_t.start()\n_t.join()\n"),
    "ctypes": "import ctypes\nctypes.memmove(id(1), id(3), 8)\n",
    "/proc/self/mem": "_f = open('/proc/self/mem', 'rb')\n",
    "/dev/fd/../mem": "import os\n_d = os.open('/dev', os.O_RDONLY)\nos.open('fd/../mem', os.O_RDWR, dir_fd=_d)\n",
    "a symlink into /proc": "import os\nos.symlink('/proc/self/mem', 'mem')\n",
}


@pytest.mark.parametrize("name", sorted(REACH))
def test_reaching_into_the_childs_frames_or_memory_voids_its_run(name):
    # tried quietly: the attack swallows the refusal and goes on, but the refusal was already reported
    quiet = "try:\n" + "".join(f"    {line}\n" for line in REACH[name].splitlines()) + "except Exception:\n    pass\n"
    out = check(quiet + MINIMUM)
    assert out.status is StepStatus.UNSUPPORTED and "reached into the harness" in out.message, (name, out.message)


FORGE = """
import marshal, os, stat, sys


def _forge():
    # the child's own frame holds what it was sent (ids, compiled calls): find the example's block
    frame, blocks = sys._getframe(0), None
    while frame is not None:
        blocks = frame.f_locals.get("blocks") or blocks
        frame = frame.f_back
    for head, _names, lines in blocks or ():
        if len(lines) == 2 and (3, 1, 2) in lines[0][0].co_consts:
            line = head + b'0,"r":"v","m":"' + marshal.dumps(3).hex().encode() + b'"}\\n'
            for fd in range(3, 64):
                try:
                    if stat.S_ISFIFO(os.fstat(fd).st_mode):
                        os.write(fd, line)
                except OSError:
                    pass


_forge()
"""


def test_forged_lines_on_the_event_pipe_are_a_second_answer_and_fail():
    out = check(FORGE + MINIMUM)
    assert out.status is StepStatus.FAILED and "reported twice" in out.message, out.message


def test_an_artifact_that_ends_the_childs_run_early_is_never_a_pass():
    out = check("import os, sys\nif sys.argv[0].endswith('rf_child_step.py'):\n    os._exit(0)\n" + MINIMUM)
    assert out.status is StepStatus.FAILED and "did not finish" in out.message, out.message
