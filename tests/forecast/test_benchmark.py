"""benchmarks/forecast_scoring.py runs and prints one JSON object (small sizes here; figures in the report)."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_benchmark_json_is_one_object():
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "forecast_scoring.py"), "--items", "3000",
                          "--rounds", "3", "--resamples", "100", "--repeats", "1", "--python-resamples", "2", "--json"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert out.stdout.count("\n") == 1
    assert report["items"] == 3000 and report["questions"] == 1000 and report["resamples"] == 100
    assert report["bootstrap"] == "multinomial"
    assert report["ratio"] > 1 and report["brier_ci"][0] < report["brier"] < report["brier_ci"][1]
