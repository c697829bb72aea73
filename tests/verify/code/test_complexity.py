"""Complexity claims: parsing, locating the claimed function, the slope fit, and real sandboxed timings."""

from __future__ import annotations

import math

import pytest

from reasonforge.types import CheckLimits, ProofLevel, StepStatus
from reasonforge.verify import sandbox as sb
from reasonforge.verify.code.complexity import Claim, find_claim, fit_claim, parse_big_o

needs_sandbox = pytest.mark.skipif(sb.unavailable_reason() is not None, reason=f"sandbox unavailable: {sb.unavailable_reason()}")


@pytest.mark.parametrize(("text", "power", "logp"), [
    ("O(1)", 0, 0), ("O(log n)", 0, 1), ("runs in O(n) time", 1, 0), ("O(n log n)", 1, 1),
    ("O(n²)", 2, 0), ("O(n^2)", 2, 0), ("O(n**2)", 2, 0), ("O(n^3)", 3, 0),
    ("each update is O(1), so counting takes O(n) time", 1, 0),
])
def test_parse_big_o(text, power, logp):
    claim = parse_big_o(text)
    assert claim is not None and (claim.power, claim.log_power) == (power, logp)


def test_parse_big_o_rejects_other_text():
    assert parse_big_o("no claim here") is None
    assert parse_big_o("O(2^n)") is None


def test_find_claim_locates_the_function():
    src = "def helper(x):\n    return x\n\n# complexity: O(n)\ndef main(xs):\n    return sum(xs)\n"
    assert find_claim(src) == Claim("O(n)", 1.0, 0, "main")
    inside = "def main(xs):\n    # complexity: O(n log n)\n    return sorted(xs)\n"
    assert find_claim(inside).function == "main"
    named = "def a(x):\n    return x\n\ndef b(x):\n    return x\n# complexity: a O(1)\n"
    assert find_claim(named).function == "a"
    assert find_claim("def f(x):\n    return x  # cheap\n") is None


def _points(exponent, log_power=0, noise=0.0):
    out = []
    for k in range(6, 16):
        n = 2 ** k
        t = 1e-7 * n ** exponent * (math.log(n) ** log_power) * (1 + noise * (-1) ** k)
        out.append([n, t, t * 0.02])
    return out


def test_fit_accepts_matching_and_faster_growth():
    assert fit_claim(Claim("O(n)", 1, 0, "f"), _points(1)).verdict == "consistent"
    assert fit_claim(Claim("O(n log n)", 1, 1, "f"), _points(1, 1)).verdict == "consistent"
    assert fit_claim(Claim("O(n)", 1, 0, "f"), _points(1, 1)).verdict == "consistent"  # log factor within margin
    assert fit_claim(Claim("O(n^2)", 2, 0, "f"), _points(1)).verdict == "consistent"  # faster than claimed is fine
    assert fit_claim(Claim("O(n)", 1, 0, "f"), _points(1, noise=0.3)).verdict == "consistent"


def test_fit_rejects_a_clear_violation():
    fit = fit_claim(Claim("O(n)", 1, 0, "f"), _points(2))
    assert fit.verdict == "violation" and "claims O(n)" in fit.message and abs(fit.slope - 2) < 0.01
    assert fit_claim(Claim("O(1)", 0, 0, "f"), _points(1)).verdict == "violation"


def test_fit_with_too_few_points_is_inconclusive():
    assert fit_claim(Claim("O(n)", 1, 0, "f"), _points(2)[:3]).verdict == "inconclusive"


QUADRATIC = '''
# complexity: O(n)
def count_pairs(xs):
    c = 0
    for a in xs:
        for b in xs:
            if a < b:
                c += 1
    return c

def test_count_pairs():
    assert count_pairs([1, 2, 3]) == 3
    assert count_pairs([]) == 0
    assert count_pairs([2, 2]) == 0
    assert count_pairs([3, 1]) == 1
'''


@pytest.mark.slow
@needs_sandbox
def test_quadratic_code_claimed_linear_fails_in_the_sandbox():
    from reasonforge.verify.code.pytest_checker import PythonTestsChecker

    out = PythonTestsChecker().check(QUADRATIC, level=ProofLevel.STANDARD, limits=CheckLimits())
    assert out.status is StepStatus.FAILED, out.message
    fit = out.details["complexity_fit"]
    assert fit["verdict"] == "violation" and fit["slope"] > 1.6
    assert "claims O(n)" in out.message


@pytest.mark.slow
@needs_sandbox
def test_quadratic_code_claimed_quadratic_passes_with_evidence():
    from reasonforge.verify.code.pytest_checker import PythonTestsChecker

    src = QUADRATIC.replace("O(n)", "O(n^2)")
    out = PythonTestsChecker().check(src, level=ProofLevel.STANDARD, limits=CheckLimits())
    assert out.status is StepStatus.VERIFIED, out.message
    assert out.details["complexity_fit"]["verdict"] == "consistent"
    assert len(out.details["complexity_fit"]["points"]) >= 4


@pytest.mark.slow
@needs_sandbox
def test_int_parameter_gets_n_and_a_custom_builder_is_used():
    from reasonforge.verify.code.pytest_checker import PythonTestsChecker

    src = ('# complexity: O(n)\ndef total(n: int) -> int:\n    s = 0\n    for i in range(n):\n        s += i\n    return s\n\n'
           'def test_total():\n    assert total(4) == 6\n    assert total(0) == 0\n    assert total(1) == 0\n')
    out = PythonTestsChecker().check(src, level=ProofLevel.STANDARD, limits=CheckLimits())
    assert out.status is StepStatus.VERIFIED, out.message
    assert out.details["complexity_fit"]["verdict"] == "consistent"
    unmeasurable = src.replace("# complexity: O(n)\ndef total(n: int) -> int:", "# complexity: O(n)\ndef total(n):")
    bad = PythonTestsChecker().check(unmeasurable, level=ProofLevel.STANDARD, limits=CheckLimits())
    assert bad.status is StepStatus.ERROR and "complexity_input" in bad.message


# ------------------------------------------------------------------ what the timing child reports, and whose


def _stream(token, points=2, by="default"):
    events = [{"t": token, "k": 0, "ev": "inputs", "by": by}]
    events += [{"t": token, "k": 1 + i, "ev": "point", "n": 64 * 2 ** i, "median_s": 1e-5 * 2 ** i, "mad_s": 1e-7,
                "min_s": 1e-5 * 2 ** i, "loops": 4} for i in range(points)]
    events.append({"t": token, "k": 1 + points, "ev": "complexity_done", "count": points})
    return events


def test_read_measurement_accepts_only_the_runs_own_stream():
    from reasonforge.verify.code.complexity import read_measurement

    good = read_measurement(_stream("ab" * 16), "ab" * 16)
    assert good.tampered is None and good.complete and good.by == "default" and len(good.points) == 2
    forged = _stream("ab" * 16)
    forged.insert(2, {"ev": "point", "n": 128, "median_s": 1e-5, "mad_s": 0.0, "min_s": 1e-5})  # no token
    assert read_measurement(forged, "ab" * 16).tampered is not None
    assert read_measurement(_stream("cd" * 16), "ab" * 16).tampered is not None  # another run's token
    replayed = _stream("ab" * 16)
    replayed.insert(2, dict(replayed[1]))  # the same line twice
    assert "replayed" in read_measurement(replayed, "ab" * 16).tampered
    hooked = _stream("ab" * 16)[:2] + [{"ev": "tamper", "m": "00"}]
    assert read_measurement(hooked, "ab" * 16).tampered is not None
    assert read_measurement(_stream("ab" * 16, by="artifact"), "ab" * 16).by == "artifact"


def test_input_kind_is_read_from_the_signature():
    from reasonforge.verify.code.complexity import input_kind

    assert input_kind("def f(n: int):\n    return n\n", "f") == "int"
    assert input_kind("def f(s: 'str'):\n    return s\n", "f") == "str"
    assert input_kind("def f(xs):\n    return xs\n", "f") == "list"
    assert input_kind("def f(n: int, k: int):\n    return n\n", "f") == "list"


INSERTION = '''
# complexity: O(n log n)
def sort_list(xs):
    out = list(xs)
    for i in range(1, len(out)):
        j = i
        while j > 0 and out[j - 1] > out[j]:
            out[j - 1], out[j] = out[j], out[j - 1]
            j -= 1
    return out


def test_sort_list():
    assert sort_list([3, 1, 2]) == [1, 2, 3]
    assert sort_list([5, -1, 4, 0]) == [-1, 0, 4, 5]
    assert sort_list([]) == []
    assert sort_list([2, 2, 1]) == [1, 2, 2]
    assert sort_list([1, 2, 3]) == [1, 2, 3]
'''

# the artifact, seeing it is imported by the timing child, replaces the clock every timing reads
PATCHED_CLOCK = ("import itertools\nimport sys\nimport time\n\n"
                 "if (getattr(sys.modules.get('__main__'), '__file__', '') or '').endswith('rf_child_complexity.py'):\n"
                 "    time.perf_counter = itertools.count(0.0, 0.04).__next__\n")

# the artifact writes a whole stream of linear timings on every descriptor the events could go to, then ends
FORGED_STREAM = '''import json
import os
import sys

if (getattr(sys.modules.get('__main__'), '__file__', '') or '').endswith('rf_child_complexity.py'):
    _pts = [[64 * 2 ** k, 1e-5 * 2 ** k, 1e-8, 1e-5 * 2 ** k] for k in range(8)]
    _lines = [{"ev": "point", "n": p[0], "median_s": p[1], "mad_s": p[2], "min_s": p[3], "loops": 1} for p in _pts]
    _lines.append({"ev": "complexity_done", "points": _pts, "elapsed_s": 1.0})
    _data = "".join(json.dumps(e) + "\\n" for e in _lines).encode()
    for _fd in range(3, 64):
        try:
            os.write(_fd, _data)
        except OSError:
            pass
    os._exit(0)
'''

# the artifact looks for the token (or anything) in the frames that call it
FRAME_WALK = '''import sys

def _peek():
    try:
        frame = sys._getframe(1)
        while frame is not None:
            frame.f_locals
            frame = frame.f_back
    except Exception:
        pass

_peek()
'''


@pytest.mark.slow
@needs_sandbox
@pytest.mark.parametrize("prefix", [PATCHED_CLOCK, FORGED_STREAM, FRAME_WALK], ids=["clock", "forged", "frames"])
def test_the_artifact_cannot_forge_its_timings(prefix):
    from reasonforge.verify.code.pytest_checker import PythonTestsChecker

    out = PythonTestsChecker().check(prefix + INSERTION, level=ProofLevel.STANDARD, limits=CheckLimits())
    assert out.status is not StepStatus.VERIFIED, out.message
    fit = out.details.get("complexity_fit", {})
    assert fit.get("verdict") in ("violation", "void"), fit


@pytest.mark.slow
@needs_sandbox
def test_inputs_the_artifact_builds_confirm_nothing_but_still_refute():
    from reasonforge.verify.code.pytest_checker import PythonTestsChecker

    best_case = INSERTION + "\n\ncomplexity_input = lambda n: (list(range(n)),)\n"
    out = PythonTestsChecker().check(best_case, level=ProofLevel.STANDARD, limits=CheckLimits())
    assert out.status is StepStatus.UNSUPPORTED, out.message
    assert "timed only on inputs the artifact builds" in out.message
    assert out.details["complexity_fit"]["inputs"] == "artifact"
    worst_case = INSERTION + "\n\ncomplexity_input = lambda n: (list(range(n, 0, -1)),)\n"
    refuted = PythonTestsChecker().check(worst_case, level=ProofLevel.STANDARD, limits=CheckLimits())
    assert refuted.status is StepStatus.FAILED, refuted.message
    assert "claims O(n log n)" in refuted.message


@pytest.mark.slow
@needs_sandbox
def test_an_honest_n_log_n_sort_on_default_inputs_is_verified():
    from reasonforge.verify.code.pytest_checker import PythonTestsChecker

    src = INSERTION.replace('''    out = list(xs)
    for i in range(1, len(out)):
        j = i
        while j > 0 and out[j - 1] > out[j]:
            out[j - 1], out[j] = out[j], out[j - 1]
            j -= 1
    return out''', "    return sorted(xs)").replace("def sort_list(xs):", "def sort_list(xs: List[int]) -> List[int]:")
    src = "from typing import List\n" + src  # typing, which calls sys._getframe when first imported, is allowed
    out = PythonTestsChecker().check(src, level=ProofLevel.STANDARD, limits=CheckLimits())
    assert out.status is StepStatus.VERIFIED, out.message
    assert out.details["complexity_fit"]["verdict"] == "consistent"
    assert out.details["complexity_fit"]["inputs"] == "default"
