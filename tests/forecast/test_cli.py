"""`reasonforge forecast …` end to end: output contracts, exit codes, the acceptance figures."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared" / "data" / "forecastbench_market_resolved" / "questions.jsonl"
STRATEGIES = ["always_0.95", "always_0.05", "always_0.5", "market", "oracle"]


def assert_expected_order(report):
    """Favourite spam is worst, every constant loses to the market, the oracle is perfect; longshot spam
    beats hedging exactly when the base rate b is below 0.275 (1 − [0.9025 b + 0.0025 (1 − b)] > 0.75)."""
    r = {name: row["brier_reward"] for name, row in report["strategies"].items()}
    assert r["always_0.95"] < min(r["always_0.05"], r["always_0.5"])
    assert max(r["always_0.95"], r["always_0.05"], r["always_0.5"]) < r["market"] < r["oracle"] == 1.0
    base_rate = (1 - 0.0025 - r["always_0.05"]) / 0.9
    assert (r["always_0.05"] > r["always_0.5"]) == (base_rate < 0.275)


def run(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "reasonforge.cli", "forecast", *args], capture_output=True, text=True,
                          timeout=300, cwd=cwd)


def test_baselines_json_contract_on_the_default_slice():
    out = run("baselines", "--json")
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["n_items"] == 240 and list(report["strategies"]) == STRATEGIES
    for row in report["strategies"].values():
        assert set(row) == {"brier", "brier_reward", "log_reward"}
    assert_expected_order(report)
    assert report["strategies"]["always_0.5"]["brier_reward"] == 0.75
    assert report["strategies"]["oracle"]["brier"] == 0.0


@pytest.mark.skipif(not SHARED.is_file(), reason="the shared ForecastBench file is not beside this checkout")
def test_acceptance_figures_on_the_shared_file():
    import numpy as np
    out = run("baselines", "--data", str(SHARED), "--json")
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    market = report["strategies"]["market"]
    assert round(market["brier"], 4) == 0.0881 and round(market["brier_reward"], 4) == 0.9119
    assert round(report["band"]["strategies"]["market"]["brier"], 4) == 0.1563 and report["band"]["n_items"] == 713
    # Independent computation straight from the raw rows.
    rows = [json.loads(line) for line in SHARED.read_text().splitlines()]
    p = np.array([float(r["question"]["freeze_datetime_value"]) for r in rows])
    o = np.array([r["resolution"]["resolved_to"] for r in rows])
    band = (p >= 0.05) & (p <= 0.95)
    assert market["brier"] == pytest.approx(np.mean((p - o) ** 2), abs=1e-12)
    assert report["band"]["strategies"]["market"]["brier"] == pytest.approx(np.mean((p[band] - o[band]) ** 2), abs=1e-12)
    assert_expected_order(report)
    assert_expected_order(report["band"])


def test_filters_as_flags():
    out = run("baselines", "--exclude-near-certain", "0.05", "--max-items", "50", "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["n_items"] == 50
    out = run("baselines", "--include-tags", "sports", "--json")
    assert out.returncode == 2 and "no items left" in out.stderr  # ForecastBench rows carry no tags


def test_score_reply_and_p_rows_with_cis(tmp_path):
    from reasonforge.forecast.dataset import load_items
    items = load_items(ROOT / "data" / "forecastbench" / "questions.slice.jsonl").items
    rows = [{"id": it.id, "reply": f"thinking\nPROBABILITY: {round(it.market_price * 100, 1)}%"} for it in items[:100]]
    rows += [{"id": it.id, "p": it.market_price} for it in items[100:239]]
    rows.append({"id": "not-in-data", "p": 0.5})
    path = tmp_path / "pred.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = run("score", str(path), "--json", "--resamples", "200")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["n_missing"] == 1 and result["n_extra"] == 1 and result["n_unparsed"] == 0
    metrics = result["report"]["all"]["metrics"]
    assert set(metrics) >= {"brier_reward", "log_reward", "market_skill", "brier_reward_vs_market", "format_ok",
                            "confidence", "market_correlation"}
    assert metrics["format_ok"]["value"] == pytest.approx(239 / 240)
    assert metrics["market_correlation"]["value"] > 0.99
    assert metrics["brier_reward"]["ci_low"] < metrics["brier_reward"]["value"] < metrics["brier_reward"]["ci_high"]
    assert result["report"]["market_band"]["n_items"] == 98
    human = run("score", str(path), "--resamples", "50")
    assert human.returncode == 0 and "market copying" in human.stdout


def test_input_errors_exit_2_without_traceback(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "x", "reply": "PROBABILITY: 0.5", "probability": 0.5}\n')
    disagreeing = tmp_path / "disagreeing.jsonl"  # an old-style `p` that is not the parse of the reply
    disagreeing.write_text('{"id": "x", "reply": "PROBABILITY: 0.5", "p": 0.9}\n')
    cases = [
        run("baselines", "--data", str(tmp_path / "missing.jsonl")),
        run("baselines", "--exclude-near-certain", "0.7"),
        run("score", str(bad)),
        run("score", str(disagreeing)),
        run("score", str(tmp_path / "missing.jsonl")),
        run("probe", "--cutoff", "yesterday"),
        run("eval", "--model", "market", "--horizons", "abc"),
    ]
    for out in cases:
        assert out.returncode == 2, out.stdout + out.stderr
        assert "error:" in out.stderr and "Traceback" not in out.stderr


def test_calibration_writes_png_and_prints_the_table(tmp_path):
    png = tmp_path / "cal.png"
    out = run("calibration", "--out", str(png))
    assert out.returncode == 0, out.stderr
    assert png.read_bytes()[:4] == b"\x89PNG"
    assert "Murphy" in out.stdout and "ECE" in out.stdout
    out = run("calibration", "--out", str(png), "--json")
    murphy = json.loads(out.stdout)["murphy"]
    assert murphy["reliability"] - murphy["resolution"] + murphy["uncertainty"] == pytest.approx(murphy["brier"])


def test_calibration_counts_missing_apart_from_unparsable(tmp_path):
    from reasonforge.forecast.dataset import load_dataset
    items = load_dataset().items
    rows = [{"id": it.id, "probability": it.market_price} for it in items[:99]]
    rows.append({"id": items[99].id, "reply": "no idea"})
    path = tmp_path / "pred.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = run("calibration", str(path), "--out", str(tmp_path / "c.png"), "--json")
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert (report["n"], report["n_unparsed"], report["n_missing"]) == (99, 1, len(items) - 100)
    text = run("calibration", str(path), "--out", str(tmp_path / "c.png"))
    assert f"answered 100, missing {len(items) - 100} (not scored)" in text.stdout


def test_probe_command():
    out = run("probe", "--cutoff", "2025-06-01T00:00:00Z", "--json", "--resamples", "100")
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["before"]["n_items"] + report["after"]["n_items"] == 240


def test_full_eval_with_the_market_baseline_on_200_items(tmp_path):
    out_file = tmp_path / "market.jsonl"
    out = run("eval", "--model", "market", "--max-items", "200", "--out", str(out_file), "--json")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    report = result["report"]
    assert report["n_items"] == 200 and result["n_missing"] == 0 and result["n_unparsed"] == 0
    metrics = report["all"]["metrics"]
    assert metrics["format_ok"]["value"] == 1.0
    assert metrics["market_skill"]["value"] == pytest.approx(0.0, abs=1e-6)
    assert metrics["brier"]["value"] == pytest.approx(metrics["market_brier"]["value"], abs=1e-9)
    rows = [json.loads(line) for line in out_file.read_text().splitlines()]
    assert len(rows) == 200 and all(r["reply"].startswith("PROBABILITY: ") for r in rows)
    again = run("eval", "--model", "market", "--max-items", "200", "--out", str(out_file), "--json")
    assert again.returncode == 0 and len(out_file.read_text().splitlines()) == 200  # resumed, nothing rewritten


def test_eval_against_an_openai_compatible_endpoint(tmp_path):
    sys.path.insert(0, str(Path(__file__).parent))
    from openai_server import FakeOpenAI
    with FakeOpenAI(reply="PROBABILITY: 0.5") as server:
        out = run("eval", "--model", server.url, "--max-items", "20", "--out", str(tmp_path / "m.jsonl"), "--json",
                  "--resamples", "50")
    assert out.returncode == 0, out.stderr
    metrics = json.loads(out.stdout)["report"]["all"]["metrics"]
    assert metrics["brier_reward"]["value"] == 0.75 and metrics["confidence"]["value"] == 0.0


def test_harvest_command_against_loopback(tmp_path):
    sys.path.insert(0, str(Path(__file__).parent))
    from polymarket_server import FakePolymarket
    with FakePolymarket() as fake:
        out = run("harvest", "--out", str(tmp_path / "h.jsonl"), "--gamma-url", fake.url, "--clob-url", fake.url,
                  "--pages", "3", "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["written"] >= 4  # closedTimes are in the past, so the clock's 'now' is fine


def _assert_input_error(out, message):
    assert out.returncode == 2, (out.stdout, out.stderr)
    assert message in out.stderr, out.stderr
    assert "Traceback" not in out.stderr + out.stdout


def test_files_that_are_not_utf8_name_the_line(tmp_path):
    data = tmp_path / "data.jsonl"
    data.write_bytes(b"\xff\xfe\n")
    _assert_input_error(run("baselines", "--data", str(data)), f"{data}:1: not UTF-8 text")
    _assert_input_error(run("baselines", "--data", str(data), "--lenient"), "not UTF-8 text")
    predictions = tmp_path / "pred.jsonl"
    predictions.write_bytes(b'{"id": "x", "p": 0.5}\n{"id": "caf\xe9", "p": 0.5}\n')
    _assert_input_error(run("score", str(predictions), "--resamples", "10"), f"{predictions}:2: not UTF-8 text")


def test_an_empty_predictions_file_is_an_input_error(tmp_path):
    predictions = tmp_path / "pred.jsonl"
    predictions.write_text("\n")
    _assert_input_error(run("score", str(predictions), "--resamples", "10"), "holds no rows")


def test_unwritable_outputs_are_input_errors(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    _assert_input_error(run("calibration", "--out", str(blocker / "plot.png")), "choose a writable --out")
    _assert_input_error(run("eval", "--model", "always-0.5", "--max-items", "3", "--resamples", "10",
                            "--out", str(blocker / "replies.jsonl")), "choose a writable --out")


def test_eval_rejects_non_finite_options_and_non_http_urls(tmp_path):
    out = tmp_path / "replies.jsonl"
    base = ["eval", "--max-items", "3", "--resamples", "10", "--out", str(out)]
    _assert_input_error(run(*base, "--model", "always-0.5", "--temperature", "nan"), "--temperature must be a finite")
    _assert_input_error(run(*base, "--model", "always-0.5", "--timeout", "inf"), "--timeout must be a finite")
    _assert_input_error(run(*base, "--model", "ftp://example.invalid"), "not http:// or https://")
    assert not out.exists()


def test_harvest_validates_its_options_before_any_request(tmp_path):
    out = tmp_path / "harvest.jsonl"
    offline = ["--gamma-url", "http://127.0.0.1:9", "--clob-url", "http://127.0.0.1:9", "--out", str(out)]
    _assert_input_error(run("harvest", *offline, "--horizons", "-24"), "positive whole hours")
    _assert_input_error(run("harvest", *offline, "--min-volume", "nan"), "--min-volume")
    _assert_input_error(run("harvest", "--gamma-url", "gamma.example", "--out", str(out)),
                        "--gamma-url must be an http:// or https:// URL")
    assert not out.exists()
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    _assert_input_error(run("harvest", *offline[:4], "--out", str(blocker / "h.jsonl")), "choose a writable --out")
    out.write_bytes(b"\xff\xfe\n")
    _assert_input_error(run("harvest", *offline), f"{out}:1: not UTF-8 text")


def test_score_table_prints_a_zero_difference_as_zero_not_minus_zero(tmp_path):
    # The market baseline as `eval --model market` writes it (prices to 4 decimals): market_skill and
    # brier_reward_vs_market are a few millionths below zero, which rounds to 0.0000, not "-0.0000".
    path = tmp_path / "market.jsonl"
    made = run("eval", "--model", "market", "--out", str(path))
    assert made.returncode == 0, made.stderr
    out = subprocess.run([sys.executable, "-m", "reasonforge.cli", "forecast", "score", str(path), "--resamples", "50"],
                         capture_output=True, text=True, timeout=300, env={**os.environ, "COLUMNS": "200"})
    assert out.returncode == 0, out.stderr
    assert "-0.0000" not in out.stdout
    rows = {line.split("│")[1].strip(): line for line in out.stdout.splitlines() if line.count("│") > 2}
    assert "0.0000 [0.0000, 0.0000]" in rows["market_skill"], out.stdout
    assert "0.0000 [0.0000, 0.0000]" in rows["brier_reward_vs_market"], out.stdout
