"""The GSM8K benchmark: --json shape on a tiny slice, perturbations, and the targets on the committed slice."""

import importlib.util
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))  # the benchmark imports its sibling `_common`
_spec = importlib.util.spec_from_file_location("gsm8k_bench", ROOT / "benchmarks" / "gsm8k.py")
gsm8k = importlib.util.module_from_spec(_spec)
sys.modules["gsm8k_bench"] = gsm8k  # pydantic resolves the report's annotations through sys.modules
_spec.loader.exec_module(gsm8k)

# Reference solutions of the slice whose prose states false arithmetic (see data/gsm8k/SOURCE.md); 109's is in a
# sentence with words the reader does not read ("all three girls ate"), so it is unsupported, not refuted.
REFERENCE_ERRORS = {109, 167, 198, 224}
CHECKER_MISSES: set[int] = set()
# Row 168 writes "6*2.5 = $<<6*3=18.00>>18.00": its prose and its annotation disagree, so the step is refused
# (unsupported), not checked on the annotation alone.
AMBIGUOUS_REFERENCE = {168}


def test_cli_json_on_a_tiny_slice():
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "gsm8k.py"), "--limit", "5", "--perturb", "5",
                          "--json"], capture_output=True, text=True, check=False, timeout=300, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)  # exactly one JSON object
    assert report["solutions"] == 5 and report["perturbed"] == 5 and report["steps"] > 10
    assert set(report["targets"]) == {"checkable_verified", "localized", "false_failed_max"}
    assert report["median_ms_per_step"] > 0 and report["data"] == "data/gsm8k/train.slice.jsonl"


def test_perturbation_changes_one_result_and_its_echo():
    answer = "She sold 48/2 = <<48/2=24>>24 clips.\nThen 1,000+2,000 = <<1000+2000=3000>>3,000 more.\n#### 3000"
    seen = set()
    for seed in range(20):
        changed, step = gsm8k.perturb(answer, random.Random(seed))
        before, after = answer.split("\n"), changed.split("\n")
        assert [i for i in range(3) if before[i] != after[i]] == [step - 1]
        line = after[step - 1]
        result = line.split("=")[-1].split(">>")[0]
        assert result not in ("24", "3000") and (result in line.split(">>")[1].replace(",", ""))
        seen.add(step)
    assert seen == {1, 2}
    assert gsm8k.perturb("no annotation here\n#### 1", random.Random(0)) is None


@pytest.mark.slow
def test_targets_on_the_committed_slice():
    report = gsm8k.run_gsm8k(perturbations=300, seed=0)
    assert report.solutions == 300
    assert report.localized >= gsm8k.TARGETS["localized"], gsm8k.render(report)
    # a refutation on a relation false as written is a slip of the reference, caught; any other is a misreading
    assert {issue.row for issue in report.reference_slip_list} <= REFERENCE_ERRORS, gsm8k.render(report)
    assert {issue.row for issue in report.false_failures} == CHECKER_MISSES, gsm8k.render(report)
    assert len(CHECKER_MISSES) / report.solutions <= gsm8k.TARGETS["false_failed_max"]
    # Problem grounding leaves unsupported the steps that compute with world knowledge, a count the question
    # does not state or arithmetic done in the head ("4 letters in Jamie's last name", a round trip's "20 * 2",
    # "8 x 3 pages in an hour"), and every result derived from such a number: a number is grounded by the
    # question or by a derivation from grounded numbers, never by coinciding with one. What it costs on correct
    # reference solutions is bounded apart (56 of the slice's 1084 checkable steps when measured).
    ungrounded = [i for i in report.unverified_checkable if "is not a quantity the question states" in i.message]
    assert len(ungrounded) / report.checkable_steps <= 0.06, gsm8k.render(report)
    unexplained = [i for i in report.unverified_checkable
                   if i.row not in REFERENCE_ERRORS | AMBIGUOUS_REFERENCE and i not in ungrounded]
    assert 1 - len(unexplained) / report.checkable_steps >= 0.99, gsm8k.render(report)
    # Raw: the reference errors' dependants are unsupported too, and the readers refuse what they cannot read
    # exactly (clock times, "20% less than", percent points) rather than checking the rest of the step.
    assert report.checkable_verified >= gsm8k.TARGETS["checkable_verified"]


@pytest.mark.slow
def test_gold_solutions_as_model_text_split_a_step_per_line_and_refute_only_reference_slips():
    report = gsm8k.run_gsm8k(perturbations=0, text=True)
    assert report.split == "text" and report.split_per_line >= 0.98, gsm8k.render(report)  # the rest: joined lines
    assert report.false_failures == [], gsm8k.render(report)
    assert {issue.row for issue in report.reference_slip_list} <= REFERENCE_ERRORS, gsm8k.render(report)
