"""HumanEval and MBPP drivers on a few slice rows: canonical artifacts verify, mutants fail, --json is one object."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from reasonforge.verify import sandbox as sb

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
@pytest.mark.skipif(sb.unavailable_reason() is not None, reason=f"sandbox unavailable: {sb.unavailable_reason()}")
@pytest.mark.parametrize("name", ["humaneval", "mbpp"])
def test_code_benchmark_json_on_two_tasks(name):
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / f"{name}.py"), "--limit", "2", "--mutants", "2",
                          "--max-mutants", "4", "--json"], capture_output=True, text=True, timeout=240, cwd=ROOT)
    report = json.loads(out.stdout)
    assert report["tasks"] == 2 and report["verified"] == 1.0, report
    assert report["mutants"] == 4 and report["mutants_failed"] >= 0.75, report
    assert report["task_ms"]["median"] > 0


def test_artifacts_are_built_from_rows():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import humaneval
        import mbpp
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    he = humaneval.to_task({"task_id": "HumanEval/x", "prompt": "def f(x):\n", "canonical_solution": "    return x\n",
                            "test": "def check(candidate):\n    assert candidate(1) == 1\n", "entry_point": "f"})
    assert "def test_check():\n    def check(candidate):" in he.artifact and he.artifact.rstrip().endswith("check(f)")
    mb = mbpp.to_task({"task_id": 7, "code": "def g(x):\n  return x", "test_imports": ["import math"],
                       "test_list": ["assert g(1) == 1", "assert g(2) == 2"]})
    assert mb.id == "MBPP/7" and mb.artifact.startswith("import math\n") and "def test_case_2():" in mb.artifact
    compile(he.artifact, "he", "exec")
    compile(mb.artifact, "mb", "exec")
