"""The model-solutions benchmark: tiers nest, the figures are consistent, bad --data is a clear exit 2."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "model_solutions.py"


def test_json_on_the_committed_slice_has_nested_tiers():
    out = subprocess.run([sys.executable, str(SCRIPT), "--json"], capture_output=True, text=True,
                         check=False, timeout=600, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)  # exactly one JSON object
    assert report["rows"] == 60 and report["translator"] == "rules"
    arithmetic, grounded, verified = report["arithmetic"], report["grounded"], report["verified"]
    # each tier is a stricter verdict than the one before: it can only lose chains
    assert arithmetic["chains"] >= grounded["chains"] >= verified["chains"]
    assert arithmetic["chains"] > 0  # the slice has solutions whose arithmetic all holds
    for tier in (arithmetic, grounded, verified):
        assert tier["right"] <= tier["chains"] and tier["right"] <= report["right_answers"]
        if tier["chains"]:
            assert tier["precision"] == round(tier["right"] / tier["chains"], 4)
    assert 0 <= report["first_error_f1"] <= 1 and report["seconds_per_step"] > 0
    assert 0 <= report["wrong_refuted"] <= 1 and 0 <= report["right_refuted"] <= 1
    assert report["right_refuted"] == round(len(report["right_refuted_ids"]) / report["right_answers"], 4)


def test_a_missing_data_file_is_exit_2_naming_it():
    out = subprocess.run([sys.executable, str(SCRIPT), "--data", "no/such.jsonl"], capture_output=True, text=True,
                         check=False, timeout=120, cwd=ROOT)
    assert out.returncode == 2 and "no/such.jsonl" in out.stderr and "Traceback" not in out.stderr


def test_a_seeded_sample_holds_as_many_wrong_solutions_as_right_ones():
    out = subprocess.run([sys.executable, str(SCRIPT), "--sample", "5", "--seed", "3", "--json"], capture_output=True,
                         text=True, check=False, timeout=600, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["rows"] == 10 and report["right_answers"] == 5
    again = subprocess.run([sys.executable, str(SCRIPT), "--sample", "5", "--seed", "3", "--json"],
                           capture_output=True, text=True, check=False, timeout=600, cwd=ROOT)
    assert json.loads(again.stdout)["right_refuted_ids"] == report["right_refuted_ids"]
