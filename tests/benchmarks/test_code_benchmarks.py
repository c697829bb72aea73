"""HumanEval and MBPP drivers on a few slice rows: canonical artifacts verify, mutants fail, --json is one object."""

import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from reasonforge.verify import sandbox as sb

ROOT = Path(__file__).resolve().parents[2]


def bench(name: str):
    """A benchmark module imported from benchmarks/ (they import `_code` and `_common` as siblings)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))


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
    humaneval, mbpp = bench("humaneval"), bench("mbpp")
    he = humaneval.to_task({"task_id": "HumanEval/x", "prompt": "def f(x):\n", "canonical_solution": "    return x\n",
                            "test": "def check(candidate):\n    assert candidate(1) == 1\n", "entry_point": "f"})
    assert "def test_check():\n    def check(candidate):" in he.artifact and he.artifact.rstrip().endswith("check(f)")
    mb = mbpp.to_task({"task_id": 7, "code": "def g(x):\n  return x", "test_imports": ["import math"],
                       "test_list": ["assert g(1) == 1", "assert g(2) == 2"]})
    assert mb.id == "MBPP/7" and mb.artifact.startswith("import math\n") and "def test_case_2():" in mb.artifact
    compile(he.artifact, "he", "exec")
    compile(mb.artifact, "mb", "exec")


HE_TEST = ('def check(candidate):\n    assert True, "debugging aid"\n    assert candidate(1) == 2\n'
           '    for x in range(3):\n        assert abs(candidate(x) - (x + 1)) < 1e-6\n')


def test_weaken_keeps_the_calls_and_drops_what_the_asserts_pin_down():
    code = bench("_code")
    vacuous = code.weaken(HE_TEST, "vacuous")
    assert vacuous.count("assert True") == 3 and "candidate(" not in vacuous
    smoke = code.weaken(HE_TEST, "smoke")
    assert "assert" not in smoke and "candidate(1) == 2" in smoke  # evaluated, never asserted
    typed = code.weaken(HE_TEST, "type")
    assert "assert type(candidate(1)) is type(2)" in typed and "< 1e-06) is not None" in typed
    one = code.weaken(HE_TEST, "one")  # the first assert that calls something, not `assert True`
    assert one.count("assert") == 1 and "assert candidate(1) == 2" in one and "abs(" not in one
    for kind in code.WEAK_KINDS:
        compile(code.weaken(HE_TEST, kind), kind, "exec")
    with pytest.raises(ValueError, match="unknown weak-suite kind 'none'"):
        code.weaken(HE_TEST, "none")


def test_weak_artifacts_change_only_the_tests():
    mbpp, humaneval = bench("mbpp"), bench("humaneval")
    row = {"task_id": 7, "code": "def test_pair(x, y):\n    assert x\n    return x + y", "test_imports": [],
           "test_list": ["assert test_pair(1, 2) == 3", "assert test_pair(2, 2) == 4"]}
    weak = mbpp.to_task(row, weak="vacuous").artifact
    assert weak.startswith(row["code"]) and "test_pair(1, 2)" not in weak  # the implementation's assert stays
    assert "def test_case_2():" in mbpp.to_task(row, weak="one").artifact
    he = humaneval.to_task({"task_id": "HumanEval/x", "prompt": "def f(x):\n", "canonical_solution": "    return x + 1\n",
                            "test": HE_TEST, "entry_point": "f"}, weak="smoke").artifact
    assert he.startswith("def f(x):\n    return x + 1\n") and he.rstrip().endswith("check(f)")
    compile(weak, "mb", "exec")
    compile(he, "he", "exec")


def test_decision_is_redecided_at_any_threshold():
    code = bench("_code")
    strong = code.Decision(status="verified", by_mutation=False, score=0.7, values_checked=True)
    low = code.Decision(status="failed", by_mutation=True, score=0.5)
    blind = code.Decision(status="failed", by_mutation=True, score=0.8, values_checked=False)
    broken = code.Decision(status="failed", by_mutation=False, score=None)  # a failing test or all mutants equivalent
    no_sites = code.Decision(status="verified", by_mutation=False, score=None)
    assert strong.verified_at(0.6) and strong.verified_at(0.7) and not strong.verified_at(0.8)
    assert low.verified_at(0.5) and not low.verified_at(0.55)
    assert not blind.verified_at(0.0) and blind.verified_at(0.8, value_check=False)
    assert not broken.verified_at(0.0) and not broken.verified_at(0.0, value_check=False)
    assert no_sites.verified_at(1.0)


def test_ids_select_tasks_and_unknown_ids_are_named():
    code = bench("_code")
    tasks = [code.Task(id=f"MBPP/{k}", artifact="") for k in (2, 3, 559)]
    assert [t.id for t in code.select(tasks, "559, MBPP/2")] == ["MBPP/2", "MBPP/559"]
    assert code.select(tasks, None) == tasks
    with pytest.raises(SystemExit, match="no task with id 4"):
        code.select(tasks, "3,4")


@pytest.mark.slow
@pytest.mark.skipif(sb.unavailable_reason() is not None, reason=f"sandbox unavailable: {sb.unavailable_reason()}")
def test_weak_suites_are_rejected_and_the_study_covers_each_threshold():
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "mbpp.py"), "--ids", "3", "--mutants", "1",
                          "--weak-suites", "--json"], check=False, capture_output=True, text=True, timeout=240, cwd=ROOT)
    report = json.loads(out.stdout)
    assert report["tasks"] == 1 and report["mutation_threshold"] == 0.5
    weak = report["weak"]
    assert set(weak) == {"vacuous", "smoke", "type", "one"}
    assert weak["vacuous"]["rejected"] == 1.0 and weak["smoke"]["rejected"] == 1.0, weak
    study = {(row["threshold"], row["value_check"]): row for row in report["threshold_study"]}
    assert {t for t, _ in study} >= {0.5, 0.6} and {v for _, v in study} == {True, False}
    assert study[(0.5, True)]["canonical_verified"] == report["verified"]
    assert all(row["weak_rejected"]["vacuous"] == 1.0 for row in study.values())


@pytest.mark.slow
@pytest.mark.skipif(sb.unavailable_reason() is not None, reason=f"sandbox unavailable: {sb.unavailable_reason()}")
def test_tasks_as_chains_verify_on_the_question_s_examples_and_never_refute_a_canonical_solution():
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "code_chains.py"), "--limit", "3", "--json"],
                         capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    for name in ("HumanEval", "MBPP"):
        data = report["datasets"][name]
        assert data["tasks"] == 3 and data["refuted"] == 0, data
        assert data["verified"] >= 1, data  # a task whose question shows examples the author did not write
        # the others rest on the artifact's own tests: self_tested, said so
        assert all(o["assurance"] != "refuted" for o in data["others"]), data
