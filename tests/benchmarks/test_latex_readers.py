"""The LaTeX-readers benchmark: per-construct tallies that add up, listed differences, bad --data is exit 2."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "latex_readers.py"


def test_json_on_the_committed_slices_adds_up():
    out = subprocess.run([sys.executable, str(SCRIPT), "--limit", "6", "--json"], capture_output=True, text=True,
                         check=False, timeout=600, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    total = report["total"]
    assert total["relations"] == total["both_alike"] + total["both_differ"] + total["ours_only"] + total["theirs_only"]
    assert total["ours"] == total["both_alike"] + total["both_differ"] + total["ours_only"]
    assert total["relations"] > 0 and total["both_alike"] > 0  # the readers agree on plain arithmetic
    assert sum(report["theirs_only_by_reason"].values()) == total["theirs_only"]
    for construct in report["constructs"].values():
        assert construct["relations"] <= total["relations"]
    assert all(d["source"] and d["theirs"] for d in report["differ"] + report["theirs_only"])


def test_a_missing_data_folder_is_exit_2_naming_it():
    out = subprocess.run([sys.executable, str(SCRIPT), "--data", "no/such"], capture_output=True, text=True,
                         check=False, timeout=120, cwd=ROOT)
    assert out.returncode == 2 and "no/such" in out.stderr and "Traceback" not in out.stderr
