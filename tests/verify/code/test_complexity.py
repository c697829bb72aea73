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
