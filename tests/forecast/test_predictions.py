"""The one predictions format: what the reader accepts, what it refuses (with file:line), and one file going
through eval → score → calibration → probe → reasoning grade."""

import json
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from reasonforge.errors import InputError
from reasonforge.forecast import PredictionRow, read_predictions_file, write_predictions

from openai_server import FakeOpenAI

ROOT = Path(__file__).resolve().parents[2]
MARKET = "eu-relocation-vote"
LEDGER = ROOT / "examples" / "ledger" / "ledgers" / f"{MARKET}.json"
EXAMPLE_FORECASTS = ROOT / "examples" / "ledger" / "forecasts" / f"{MARKET}.jsonl"


def forecast(*args):
    return subprocess.run([sys.executable, "-m", "reasonforge.cli", "forecast", *args], capture_output=True,
                          text=True, timeout=300)


def write(tmp_path, *lines: str) -> Path:
    path = tmp_path / "p.jsonl"
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


@pytest.mark.parametrize(("line", "message"), [
    ('{"id": "a", "probability": true}', "probability: Input should be a valid number"),
    ('{"id": "a", "probability": "0.9"}', "probability: Input should be a valid number"),
    ('{"id": "a", "probability": 1.5}', "less than or equal to 1"),
    ('{"id": "a", "probability": NaN}', "finite number"),
    ('{"id": "a", "probabilty": 0.4}', "probabilty: Extra inputs are not permitted"),
    ('{"id": "a"}', "give exactly one of 'probability' or 'reply'"),
    ('{"id": "a", "probability": 0.4, "reply": "PROBABILITY: 0.4"}', "give exactly one of"),
    ('{"id": "a", "p": 0.4, "probability": 0.4}', "give 'probability' only"),
    ('{"id": "a", "reply": "PROBABILITY: 0.2", "p": 0.9}', "give exactly one of"),  # p is not the reply's parse
    ('{"id": 7, "probability": 0.4}', "id: Input should be a valid string"),
    ('{"id": "a", "probability": 0.4, "created_at": "2026-01-01T00:00:00"}', "needs a UTC offset"),
    ('{"id": "a", "probability": 0.4, "error": "HTTP 500"}', "a failed request"),
    ('["a", 0.4]', "expected a JSON object"),
    ('{"id": "a", "probabilities": [0.5, 0.6]}', "probabilities sum to 1.1, not 1"),
    ('{"id": "a", "probabilities": [1.0]}', "probabilities: List should have at least 2 items"),
    ('{"id": "a", "probabilities": [0.5, true]}', "probabilities.1: Input should be a valid number"),
    ('{"id": "a", "probabilities": [1.5, -0.5]}', "probabilities.0: Input should be less than or equal to 1"),
    ('{"id": "a", "probabilities": [0.5, 0.5], "probability": 0.5}', "give exactly one of"),
    ('{"id": "a", "probabilities": [0.5, 0.5], "outcomes": ["A", "B", "C"]}', "2 probabilities for 3 outcomes"),
    ('{"id": "a", "probabilities": [0.5, 0.5], "outcomes": ["A", "A"]}', "outcomes must be unique"),
    ('{"id": "a", "probability": 0.5, "outcomes": ["A", "B"]}', "give 'probabilities' with it"),
    # once committed silently with the last value (JSON readers disagree on which one counts)
    ('{"id": "a", "probability": 0.1, "probability": 0.9}', 'repeats the key "probability" at line 1, column 33'),
    ('{"id": "a", "id": "b", "probability": 0.1}', 'repeats the key "id"'),
    ('{"id": "a", "reply": "x", "reasoning": ' + "[" * 100_000 + "]" * 100_000 + "}",  # once a RecursionError
     "the row is nested more than 8 levels deep at line 1, column 47 (in reasoning[0][0][0][0][0][0][0])"),
    ('{"id": "a", "probability": 0.1, "model": ' + '{"a": ' * 100_000 + "1" + "}" * 100_000 + "}",
     "nested more than 8 levels deep"),
])
def test_bad_rows_are_refused_with_file_and_line(tmp_path, line, message):
    path = write(tmp_path, '{"id": "ok", "probability": 0.5}', "", line)
    with pytest.raises(InputError) as caught:
        read_predictions_file(path)
    assert caught.value.message.startswith(f"{path}:3: ") and message in caught.value.message


def test_duplicates_oversized_rows_and_bad_bytes_are_refused(tmp_path):
    with pytest.raises(InputError, match=r":2: id 'a' by model 'm' already appears on line 1"):
        read_predictions_file(write(tmp_path, '{"id": "a", "probability": 0.1, "model": "m"}',
                                    '{"id": "a", "probability": 0.9, "model": "m"}'))
    huge = json.dumps({"id": "a", "reply": "x" * 1_100_000})
    with pytest.raises(InputError, match=r":1: row is \d+ bytes, over the 1048576-byte limit"):
        read_predictions_file(write(tmp_path, huge))
    path = tmp_path / "bytes.jsonl"
    path.write_bytes(b'{"id": "a", "probability": 0.1}\n{"id": "caf\xe9", "probability": 0.1}\n')
    with pytest.raises(InputError, match=r"bytes.jsonl:2: not UTF-8 text"):
        read_predictions_file(path)


def test_rows_round_trip_and_old_rows_are_read_with_one_note(tmp_path):
    rows = [PredictionRow(id="a", probability=0.25, model="m", run="r1", reasoning="because",
                          created_at=datetime(2026, 1, 5, tzinfo=UTC)),
            PredictionRow(id="b", reply="thinking\nPROBABILITY: 62%", model="m")]
    path = write_predictions(tmp_path / "w.jsonl", rows)
    assert read_predictions_file(path).rows == rows and read_predictions_file(path).notes == []
    assert [row.value() for row in rows] == [0.25, 0.62] and rows[1].explanation() == "thinking"
    old = write(tmp_path, '{"id": "a", "p": 0.3}', '{"id": "b", "p": 0.6}',  # old CLI rows, old eval rows:
                '{"id": "c", "model": "m", "reply": "PROBABILITY: 0.4", "p": 0.4, "error": null}',
                '{"id": "d", "model": "m", "reply": "no idea", "p": null, "error": null}')
    loaded = read_predictions_file(old)
    assert [row.value() for row in loaded.rows] == [0.3, 0.6, 0.4, None]
    assert loaded.notes == [f"{old}: field 'p' is deprecated (4 row(s)); rename it to 'probability'"]


def test_multiclass_rows_round_trip_and_binary_readers_refuse_them(tmp_path):
    row = PredictionRow(id="q@2015-09-05T00:00:00+00:00", probabilities=[0.2, 0.5, 0.3], outcomes=["A", "B", "C"],
                        model="retrieval", run="run")
    path = write_predictions(tmp_path / "m.jsonl", [PredictionRow(id="b", probability=0.4), row])
    assert read_predictions_file(path).rows[1] == row and row.multiclass and row.value() is None
    with pytest.raises(InputError) as caught:
        read_predictions_file(path, binary="forecast score")
    assert caught.value.message == (f"{path}:2: a multi-class forecast ('probabilities'); `forecast score` reads "
                                    "binary forecasts ('probability' or 'reply') — use `forecast episode analyse` "
                                    "for multi-class runs")


def _items(path: Path, n: int = 40) -> list[str]:
    """A small dataset whose ids include the example ledger's market (so `reasoning grade` finds its row)."""
    start = datetime(2025, 1, 1, tzinfo=UTC)
    ids = [MARKET] + [f"q{i}" for i in range(n - 1)]
    rows = []
    for i, item_id in enumerate(ids):
        cutoff = start + timedelta(days=3 * i)
        rows.append({"id": item_id, "question": f"Will event {item_id} happen?", "cutoff": cutoff.isoformat(),
                     "resolved_at": (cutoff + timedelta(days=7)).isoformat(), "outcome": i % 3 == 0,
                     "market_price": round(0.2 + 0.6 * ((i * 7) % 10) / 10, 2), "source": "test"})
    path.write_text("".join(json.dumps(row).replace("true", "1").replace("false", "0") + "\n" for row in rows))
    return ids


def test_one_predictions_file_goes_through_every_command(tmp_path):
    """Acceptance: eval writes it; score, calibration, probe and reasoning grade all accept it as it is."""
    data, preds = tmp_path / "items.jsonl", tmp_path / "predictions.jsonl"
    ids = _items(data)
    analyst = next(json.loads(line)["reasoning"] for line in EXAMPLE_FORECASTS.read_text().splitlines()
                   if json.loads(line)["forecaster"] == "analyst")
    with FakeOpenAI(reply=f"{analyst}\nPROBABILITY: 0.6") as server:
        ran = forecast("eval", "--model", server.url, "--data", str(data), "--out", str(preds), "--json",
                       "--resamples", "50")
    assert ran.returncode == 0, ran.stderr
    rows = read_predictions_file(preds).rows
    assert sorted(row.id for row in rows) == sorted(ids) and {row.model for row in rows} == {"fake-forecaster"}
    assert json.loads(ran.stdout)["n_missing"] == 0

    scored = forecast("score", str(preds), "--data", str(data), "--json", "--resamples", "50")
    assert scored.returncode == 0, scored.stderr
    metrics = json.loads(scored.stdout)["report"]["all"]["metrics"]
    assert metrics["brier"]["value"] == pytest.approx(sum((0.6 - (i % 3 == 0)) ** 2 for i in range(40)) / 40)
    assert metrics["format_ok"]["value"] == 1.0

    calibration = forecast("calibration", str(preds), "--data", str(data), "--out", str(tmp_path / "c.png"), "--json")
    assert calibration.returncode == 0, calibration.stderr
    assert json.loads(calibration.stdout)["n"] == 40 and (tmp_path / "c.png").read_bytes()[:4] == b"\x89PNG"

    probe = forecast("probe", str(preds), "--data", str(data), "--cutoff", "2025-05-01T00:00:00Z", "--json",
                     "--resamples", "50")
    assert probe.returncode == 0, probe.stderr
    report = json.loads(probe.stdout)
    assert report["before"]["n_items"] + report["after"]["n_items"] == 40 and report["n_missing"] == 0
    assert report["before"]["n_items"] > 0 and report["after"]["n_items"] > 0

    graded = forecast("reasoning", "grade", "--ledger", str(LEDGER), "--forecasts", str(preds), "--json")
    assert graded.returncode == 0, graded.stderr
    result = json.loads(graded.stdout)
    assert result["market_id"] == MARKET and set(result["details"]) == {"fake-forecaster"}
    assert result["scores"]["fake-forecaster"] > 0  # the analyst's argument, read from the reply


def test_probe_scores_only_answered_items_and_reports_the_rest(tmp_path):
    data, preds = tmp_path / "items.jsonl", tmp_path / "p.jsonl"
    ids = _items(data)
    preds.write_text("".join(json.dumps({"id": i, "p": 0.5}) + "\n" for i in ids[:10]))
    out = forecast("probe", str(preds), "--data", str(data), "--cutoff", "2025-02-01T00:00:00Z", "--resamples", "20")
    assert out.returncode == 0, out.stderr
    assert "answered 10, missing 30 (not scored)" in out.stdout
    assert out.stderr.count("field 'p' is deprecated") == 1  # once per file, not per row
    report = json.loads(forecast("probe", str(preds), "--data", str(data), "--cutoff", "2025-02-01T00:00:00Z",
                                 "--json", "--resamples", "20").stdout)
    assert report["before"]["n_items"] + report["after"]["n_items"] == 10 and report["n_missing"] == 30
    strangers = write(tmp_path, '{"id": "not-an-item", "probability": 0.5}')
    for command in (["probe", "--cutoff", "2025-02-01T00:00:00Z"], ["score"], ["calibration"]):
        out = forecast(*command, str(strangers), "--data", str(data))
        assert out.returncode == 2 and "none of the 1 prediction ids" in out.stderr, out.stderr


def test_reasoning_grade_reads_several_forecasters_from_a_predictions_file(tmp_path):
    """The example forecasters rewritten as prediction rows grade exactly as their {forecaster} file does."""
    examples = [json.loads(line) for line in EXAMPLE_FORECASTS.read_text().splitlines()]
    rows = [PredictionRow(id=MARKET, probability=0.5, model=e["forecaster"], reasoning=e.get("reasoning"))
            for e in examples]
    rows.append(PredictionRow(id="other-market", probability=0.5, model="analyst", reasoning="elsewhere"))
    preds = write_predictions(tmp_path / "p.jsonl", rows)
    as_rows = forecast("reasoning", "grade", "--ledger", str(LEDGER), "--forecasts", str(preds), "--json")
    as_file = forecast("reasoning", "grade", "--ledger", str(LEDGER), "--forecasts", str(EXAMPLE_FORECASTS), "--json")
    assert as_rows.returncode == as_file.returncode == 0, as_rows.stderr + as_file.stderr
    assert json.loads(as_rows.stdout) == json.loads(as_file.stdout)
    wrong = write_predictions(tmp_path / "w.jsonl", rows[-1:])
    out = forecast("reasoning", "grade", "--ledger", str(LEDGER), "--forecasts", str(wrong))
    assert out.returncode == 2 and f"no prediction row has id '{MARKET}'" in out.stderr
