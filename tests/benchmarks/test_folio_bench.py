"""The FOLIO benchmark on the repo slice: gold FOL checked by Z3 must reproduce the gold labels."""

import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("folio_bench", ROOT / "benchmarks" / "folio.py")
folio = importlib.util.module_from_spec(_spec)
sys.modules["folio_bench"] = folio  # pydantic resolves the report's annotations through sys.modules
_spec.loader.exec_module(folio)


@pytest.fixture(scope="module")
def strict():
    return folio.run_folio()


def test_agreement_with_gold_labels(strict):
    assert strict.rows == 134
    assert strict.agreement_rate >= 0.92, folio.render(strict)
    assert [issue.row for issue in strict.parse_failures] == [2, 60]
    assert all(issue.message.startswith("line ") for issue in strict.parse_failures)
    assert strict.vacuous == [] and strict.unknown == []


def test_the_agreement_check_can_fail(tmp_path):
    # Same rows with every gold label rotated: the benchmark must notice.
    rotate = {"True": "False", "False": "Uncertain", "Uncertain": "True"}
    rows = [json.loads(line) for line in folio.DEFAULT_DATA.read_text(encoding="utf-8").splitlines()]
    wrong = tmp_path / "wrong.jsonl"
    wrong.write_text("".join(json.dumps({**row, "label": rotate[row["label"]]}) + "\n" for row in rows), encoding="utf-8")
    assert folio.run_folio(wrong).agreement_rate < 0.2


def test_lenient_repairs_are_reported_per_row():
    lenient = folio.run_folio(lenient=True)
    assert lenient.parse_failures == []
    assert [issue.row for issue in lenient.repairs] == [2, 60]
    assert lenient.agreement >= 125


def test_train_format_reports_satisfiability_and_vacuous_sets():
    report = folio.run_folio(ROOT / "data" / "folio" / "folio-train.slice.jsonl")
    assert report.format == "train" and report.premise_sets == 8
    assert len(report.parse_failures) == 3 and report.satisfiable == 3
    assert [issue.message.split(":")[0] for issue in report.vacuous] == ["story 7", "story 214"]


def test_cli_json(capsys):
    assert folio.main(["--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["agreement"] == 124 and data["median_ms"] > 0 and data["baseline_ms"] > 0


def test_malformed_rows_are_reported_not_fatal(tmp_path):
    data = tmp_path / "bad.jsonl"
    good = {"premises-FOL": ["∀x (P(x) → Q(x))", "P(a)"], "conclusion-FOL": "Q(a)", "label": "True"}
    data.write_text("\n".join([json.dumps(good), "not json", json.dumps({"premises-FOL": 3}), "[1]"]) + "\n",
                    encoding="utf-8")
    report = folio.run_folio(data)
    assert report.agreement == 1 and [issue.row for issue in report.parse_failures] == [1, 2, 3]
