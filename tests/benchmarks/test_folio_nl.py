"""The FOLIO natural-language benchmark, replayed from a recording of the 0.5B model: the figures are consistent with
the rows listed, the labels are Z3's on what the model wrote, and bad input is a clear exit 2."""

import json
import subprocess
import sys
from pathlib import Path

from reasonforge.lang.logic import parse_fol_artifact
from reasonforge.verify.logic import classify

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "folio_nl.py"
RECORDING = Path(__file__).resolve().parent / "recordings" / "folio-nl"


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, check=False,
                          timeout=600, cwd=ROOT)


def test_a_replayed_run_reports_consistent_figures():
    out = _run("--replay", str(RECORDING), "--sample", "3", "--seed", "0", "--json")
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["rows"] == 3 and report["anchor_linc_gpt4"] == 0.725
    assert report["correct"] == 3 - len(report["wrong"])
    assert report["accuracy"] == round(report["correct"] / 3, 4)
    assert sum(sum(row.values()) for row in report["confusion"].values()) == 3
    assert sum(report["confusion"][gold].get(gold, 0) for gold in ("True", "False", "Uncertain")) == report["correct"]
    assert report["compiled"] <= 3 and report["first_attempt_compile_rate"] <= report["compile_rate"]
    for row in (r for r in report["wrong"] if r["label"] != "untranslated"):  # Z3's label of what the model wrote
        parsed = parse_fol_artifact(row["artifact"])
        assert classify(parsed.premises, parsed.conclusion).label == row["label"] != row["gold"]
    again = _run("--replay", str(RECORDING), "--sample", "3", "--seed", "0", "--json")
    assert json.loads(again.stdout) | {"seconds_per_row": 0} == report | {"seconds_per_row": 0}


def test_bad_input_is_exit_2_naming_it(tmp_path):
    missing = _run("--data", "no/such.jsonl", "--replay", str(RECORDING))
    assert missing.returncode == 2 and "no/such.jsonl" in missing.stderr and "Traceback" not in missing.stderr
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"premises": ["All cats purr."], "conclusion": "Tom purrs."}\n', encoding="utf-8")
    unlabelled = _run("--data", str(bad), "--replay", str(RECORDING))
    assert unlabelled.returncode == 2 and "line 1" in unlabelled.stderr and "Traceback" not in unlabelled.stderr
    unrecorded = _run("--replay", str(RECORDING), "--sample", "3", "--seed", "1")
    assert unrecorded.returncode == 2 and "no recorded reply" in unrecorded.stderr and "Traceback" not in unrecorded.stderr
