"""The answer-equivalence benchmark: labelled pairs from same-problem solutions, and the comparers' tallies."""

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
_spec = importlib.util.spec_from_file_location("answer_equivalence_bench", ROOT / "benchmarks" / "answer_equivalence.py")
bench = importlib.util.module_from_spec(_spec)
sys.modules["answer_equivalence_bench"] = bench
_spec.loader.exec_module(bench)


def _row(problem, answer, right):
    return {"problem": problem, "steps": [f"So the answer is $\\boxed{{{answer}}}$."], "final_answer_correct": right}


def test_pairs_are_right_with_right_and_right_with_wrong_per_problem():
    rows = [_row("p", "72", True), _row("p", "72.0", True), _row("p", "70", False), _row("q", "1", False)]
    assert bench.labelled_pairs(rows) == [("72", "72.0", True), ("72", "70", False), ("72.0", "70", False)]


def test_json_on_the_committed_slices():
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "answer_equivalence.py"), "--json"],
                         capture_output=True, text=True, check=False, timeout=600, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert set(report["comparers"]) == {"reader", "math-verify", "reader, then math-verify"}
    for c in report["comparers"].values():
        assert c["correct"] + c["false_equal"] + c["false_differ"] == c["decided"] <= report["pairs"]
    # the policy decides at least what either comparer alone decides
    policy = report["comparers"]["reader, then math-verify"]["decided"]
    assert policy >= max(report["comparers"]["reader"]["decided"], report["comparers"]["math-verify"]["decided"])
