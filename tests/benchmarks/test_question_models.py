"""The question-models benchmark, replayed from a recording of the 0.5B model: the figures are consistent with the
problems listed, the prompts' worked examples are never sampled, and bad input is a clear exit 2."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "question_models.py"
RECORDING = Path(__file__).resolve().parent / "recordings" / "question-models"


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, check=False,
                          timeout=600, cwd=ROOT)


def test_a_replayed_run_reports_consistent_figures():
    out = _run("--replay", str(RECORDING), "--sample", "3", "--seed", "0", "--json")
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["problems"] == 3 and report["samples"] == 3 and report["required"] == 2
    assert report["agreed_right"] <= report["agreed"] <= report["problems"]
    assert report["program_right"] <= 3 and report["problem_right"] <= 3
    assert report["precision"] == (round(report["agreed_right"] / report["agreed"], 4) if report["agreed"] else None)
    assert len(report["wrong_agreements"]) == report["agreed"] - report["agreed_right"]
    assert sum(report["rejected"].values()) <= 3 * 2 * 3  # at most every formalisation, each once
    again = _run("--replay", str(RECORDING), "--sample", "3", "--seed", "0", "--json")
    assert json.loads(again.stdout) | {"seconds_per_problem": 0} == report | {"seconds_per_problem": 0}


def test_the_worked_examples_are_never_in_the_sample(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    import question_models
    from question_models import DEFAULT_DATA, sample

    rows = question_models.read_rows(DEFAULT_DATA)
    chosen = sample(rows, len(rows), 0)
    questions = {r["question"] for r in chosen}
    assert len(chosen) == len(rows) - 6  # the six problems the prompts show (all in the slice's first rows)
    assert not any(q.startswith(("Natalia sold clips", "Weng earns", "Betty is saving", "Mark has a garden",
                                 "James writes a 3-page", "A deep-sea monster")) for q in questions)


def test_bad_input_is_exit_2_naming_it(tmp_path):
    missing = _run("--data", "no/such.jsonl", "--replay", str(RECORDING))
    assert missing.returncode == 2 and "no/such.jsonl" in missing.stderr and "Traceback" not in missing.stderr
    empty = _run("--replay", str(tmp_path))
    assert empty.returncode == 2 and "Traceback" not in empty.stderr
    unrecorded = _run("--replay", str(RECORDING), "--sample", "3", "--seed", "1")
    assert unrecorded.returncode == 2 and "no recorded reply" in unrecorded.stderr and "Traceback" not in unrecorded.stderr
