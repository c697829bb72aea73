"""benchmarks/rewards.py on a tiny slice: the report's shape, both scorers' agreement with right and wrong, and a
second pass answered wholly by the verdict cache."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_rewards_benchmark_reports_speed_agreement_and_the_cache(tmp_path):
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "rewards.py"), "--rows", "10", "--jobs", "2",
                          "--json"], capture_output=True, text=True, timeout=600, cwd=ROOT / "benchmarks")
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["rows"] == 10 and report["jobs"] == 2
    assert report["wrong_given_zero"] == 1.0 and report["math_verify_wrong_rejected"] == 1.0
    assert report["right_rewarded"] == 1.0
    assert report["reasonforge_per_s"] > 0 and report["math_verify_per_s"] > 0
    assert sum(report["outcomes"].values()) == 10


def test_a_missing_data_file_is_refused(tmp_path):
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "rewards.py"), "--data", str(tmp_path / "x")],
                         capture_output=True, text=True, timeout=120, cwd=ROOT / "benchmarks")
    assert out.returncode == 2 and "no such file" in out.stderr
