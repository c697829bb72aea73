"""The sandbox overhead benchmark runs end to end and reports every figure."""

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from reasonforge.verify.sandbox.runner import unavailable_reason

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("sandbox_overhead_bench", ROOT / "benchmarks" / "sandbox_overhead.py")
bench = importlib.util.module_from_spec(_spec)
sys.modules["sandbox_overhead_bench"] = bench
_spec.loader.exec_module(bench)

_WHY = unavailable_reason()


@pytest.mark.slow
@pytest.mark.skipif(_WHY is not None, reason=f"sandbox unavailable: {_WHY}")
def test_json_report(capsys):
    assert bench.main(["--reps", "1", "--burst", "2", "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert {"plain_pass_ms", "sandboxed_pass_ms", "pass_ratio", "pytest_ratio", "sandboxed_pass_per_s"} <= set(r)
    assert r["sandboxed_pass_ms"] > 0 and r["sandboxed_pass_per_s"] > 0
    assert "pytest ratio" in bench.render(r, 2)
