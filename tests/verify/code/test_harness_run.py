"""What a failing test run reports, from real sandboxed runs of the harness."""

from __future__ import annotations

import pytest

from reasonforge.types import CheckLimits, ProofLevel, StepStatus
from reasonforge.verify import sandbox as sb
from reasonforge.verify.code.pytest_checker import PythonTestsChecker

pytestmark = pytest.mark.skipif(sb.unavailable_reason() is not None,
                                reason=f"sandbox unavailable: {sb.unavailable_reason()}")

# The off-by-one example's property: pytest explains `freq.values()` by the bound method's repr, at an address
SKIPS_THE_FIRST = '''
from hypothesis import given, strategies as st


def count_frequencies(arr: list[int]) -> dict[int, int]:
    freq: dict[int, int] = {}
    for x in arr[1:]:
        freq[x] = freq.get(x, 0) + 1
    return freq


@given(st.lists(st.integers(min_value=-10, max_value=10), min_size=1))
def test_counts_sum_to_length(arr):
    freq = count_frequencies(arr)
    assert sum(freq.values()) == len(arr)
'''


def test_a_failing_assertion_is_reported_by_its_values_not_by_object_addresses():
    out = PythonTestsChecker().check(SKIPS_THE_FIRST, level=ProofLevel.STANDARD, limits=CheckLimits(timeout_s=8))
    assert out.status is StepStatus.FAILED
    assert "assert 0 == 1" in out.message and "sum(dict_values([]))" in out.message, out.message
    assert " at 0x" not in out.message and "<built-in method" not in out.message, out.message


def test_the_staged_harness_ships_the_audit_hook_both_children_import():
    from pathlib import Path

    from reasonforge.verify.code.harness_run import staged_harness

    with staged_harness() as staged:
        names = {p.name for p in Path(staged).glob("*.py")}
    assert {"rf_guard.py", "rf_child_step.py", "rf_child_complexity.py", "rf_seccomp.py"} <= names
