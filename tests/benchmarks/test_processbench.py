"""The ProcessBench benchmark: --json shape on a tiny slice and the metric."""

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from reasonforge.types import ProofLevel
from reasonforge.verify.coq import unavailable_reason

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))  # the benchmark imports its sibling `_common`
_spec = importlib.util.spec_from_file_location("processbench_bench", ROOT / "benchmarks" / "processbench.py")
processbench = importlib.util.module_from_spec(_spec)
sys.modules["processbench_bench"] = processbench  # pydantic resolves the report's annotations through sys.modules
_spec.loader.exec_module(processbench)


def test_cli_json_on_a_tiny_slice():
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "processbench.py"), "--limit", "8", "--json"],
                         capture_output=True, text=True, check=False, timeout=600, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)  # exactly one JSON object
    assert set(report["subsets"]) == {"gsm8k", "math", "olympiadbench", "omnimath"}  # --limit is round-robin
    for subset in report["subsets"].values():
        assert subset["rows"] == 2 and subset["erroneous"] + subset["correct"] == 2
        assert 0 <= subset["acc_erroneous"] <= 1 and 0 <= subset["acc_correct"] <= 1 and 0 <= subset["f1"] <= 1
    assert 0 <= report["average_f1"] <= 1


def test_f1_is_the_harmonic_mean():
    assert processbench.f1_score(0.5, 1.0) == round(2 / 3, 4)
    assert processbench.f1_score(0.0, 1.0) == 0.0 and processbench.f1_score(0.0, 0.0) == 0.0


def test_prediction_is_the_first_failed_step(tmp_path):
    rows = [
        {"id": "t-0", "problem": "Add.", "steps": ["2 + 2 = 4.", "Then 4 + 4 = 9.", "So 9 + 1 = 10."], "label": 1},
        {"id": "t-1", "problem": "Add.", "steps": ["2 + 2 = 4.", "Then 4 + 4 = 8."], "label": -1},
        {"id": "t-2", "problem": "Add.", "steps": ["It is two.", "Then 4 + 4 = 8."], "label": 0},
    ]
    data = tmp_path / "toy.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    report = processbench.run_processbench(data)
    toy = report.subsets["toy"]
    assert (toy.erroneous, toy.correct) == (2, 1)
    assert toy.acc_erroneous == 0.5 and toy.acc_correct == 1.0 and toy.f1 == round(2 / 3, 4)
    assert toy.flagged_too_late == 1 and report.average_f1 == toy.f1


def test_false_refutations_are_listed_and_jobs_and_samples_change_nothing(tmp_path):
    rows = [
        {"id": "t-0", "problem": "Add.", "steps": ["2 + 2 = 5.", "Then 5 + 1 = 6.", "So 6 + 1 = 8."], "label": 2},
        {"id": "t-1", "problem": "Add.", "steps": ["2 + 2 = 4.", "Then 4 + 4 = 9."], "label": -1},
        {"id": "t-2", "problem": "Add.", "steps": ["2 + 2 = 4.", "Then 4 + 4 = 9."], "label": 1},
    ]
    data = tmp_path / "toy.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    report = processbench.run_processbench(data)
    listed = [(m.id, m.predicted) for m in report.false_refutations]
    assert listed == [("t-0", 0), ("t-1", 1)]  # before the label, and in an error-free row; t-2 is a hit
    assert "2 + 2 = 5" in report.false_refutations[0].message
    assert report.false_refutation_rate == round(2 / 3, 4)
    parallel = processbench.run_processbench(data, jobs=2)
    assert parallel.false_refutations == report.false_refutations and parallel.subsets["toy"].f1 == report.subsets["toy"].f1
    sampled = processbench.run_processbench(data, sample=2, seed=1)
    assert sampled.subsets["toy"].rows == 2
    assert sampled.model_dump(exclude={"elapsed_s", "seconds_per_step", "subsets"}) == processbench.run_processbench(
        data, sample=2, seed=1).model_dump(exclude={"elapsed_s", "seconds_per_step", "subsets"})


@pytest.mark.skipif(unavailable_reason() is not None, reason="the key lemmas need coqc and the sandbox")
def test_at_the_standard_level_the_report_counts_what_coq_proved(tmp_path):
    rows = [{"id": "t-0", "problem": "Show that x^2 + 1 >= 2x.",
             "steps": ["$(x-1)^2 = x^2 - 2x + 1$.", "So x^2 + 1 >= 2x."], "label": -1}]
    data = tmp_path / "toy.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    report = processbench.run_processbench(data, level=ProofLevel.STANDARD)
    assert report.level == "standard" and report.lemmas_attempted == report.lemmas_proved == 2
    assert report.coq_steps == 2 and report.coq_only_steps == 1  # the inequality only Coq proved
    assert "key lemmas: 2 of 2 proved in Coq" in processbench.render(report)
