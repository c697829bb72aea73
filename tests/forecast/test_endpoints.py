"""Model endpoints that cannot answer fail with one line naming the endpoint and the fix (exit 2), and lose
nothing already answered: a closed port, a refused key, a server that never answers, no key at all."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from endpoint_servers import Endpoint, closed_port

ROOT = Path(__file__).resolve().parents[2]
LEDGER = ROOT / "examples" / "ledger" / "ledgers" / "eu-relocation-vote.json"
FORECASTS = ROOT / "examples" / "ledger" / "forecasts" / "eu-relocation-vote.jsonl"


def forecast(*args, key: str | None = "test-key"):
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL")}
    if key is not None:
        env["OPENAI_API_KEY"] = key
    return subprocess.run([sys.executable, "-m", "reasonforge.cli", "forecast", *args], capture_output=True,
                          text=True, timeout=300, env=env)


def assert_one_line_error(out, *fragments):
    assert out.returncode == 2, (out.stdout, out.stderr)
    assert "Traceback" not in out.stderr + out.stdout
    lines = [line for line in out.stderr.splitlines() if line.strip()]
    text = " ".join(lines)
    assert lines[0].startswith("error:"), out.stderr
    for fragment in fragments:
        assert fragment in text, out.stderr


def eval_args(model: str, out: Path, *extra: str) -> list[str]:
    return ["eval", "--model", model, "--max-items", "12", "--resamples", "10", "--out", str(out), *extra]


def test_eval_on_a_closed_port_names_the_endpoint(tmp_path):
    url = f"http://127.0.0.1:{closed_port()}/v1"
    assert_one_line_error(forecast(*eval_args(url, tmp_path / "a.jsonl")), f"cannot reach {url}/models",
                          "check the URL and that the server is running")
    out = forecast(*eval_args(url, tmp_path / "b.jsonl", "--model-name", "m", "--retries", "0"))
    assert_one_line_error(out, f"cannot reach {url}/chat/completions", "0 of 12 predictions are saved")
    assert "brier" not in out.stdout  # nothing was scored


def test_eval_with_a_refused_key_says_which_variable_to_set(tmp_path):
    with Endpoint(status=401) as server:
        chat = forecast(*eval_args(server.url, tmp_path / "a.jsonl", "--model-name", "m", "--concurrency", "1"))
        models = forecast(*eval_args(server.url, tmp_path / "b.jsonl"))
    assert_one_line_error(chat, f"{server.url}/chat/completions refused the API key (HTTP 401",
                          "set OPENAI_API_KEY")
    assert server.chats == 1  # a refused key is not retried
    assert_one_line_error(models, f"{server.url}/models refused the API key (HTTP 401")


def test_eval_against_a_server_that_never_answers_times_out(tmp_path):
    with Endpoint(status=None) as server:
        out = forecast(*eval_args(server.url, tmp_path / "a.jsonl", "--model-name", "m", "--timeout", "0.3",
                                  "--retries", "0"))
    assert_one_line_error(out, f"{server.url}/chat/completions did not answer within 0.3 s", "raise --timeout")


def test_eval_without_an_api_key_stops_before_any_item(tmp_path):
    out_file = tmp_path / "gpt.jsonl"
    out = forecast(*eval_args("gpt-4o", out_file), key=None)
    assert_one_line_error(out, "no API key for https://api.openai.com/v1", "set OPENAI_API_KEY")
    assert not out_file.exists() and "brier" not in out.stdout


def test_a_failure_midway_keeps_every_answer_and_the_rerun_resumes(tmp_path):
    out_file = tmp_path / "run.jsonl"
    args = eval_args("", out_file, "--model-name", "stub", "--concurrency", "1", "--json")
    with Endpoint(status=401, ok_first=5) as server:
        args[2] = server.url
        first = forecast(*args)
    assert_one_line_error(first, "refused the API key", f"5 of 12 predictions are saved in {out_file}")
    rows = [json.loads(line) for line in out_file.read_text().splitlines()]
    assert len(rows) == 5 and all(row["reply"] == "PROBABILITY: 0.4" and row["model"] == "stub" for row in rows)
    with Endpoint(status=500, ok_first=100) as server:
        args[2] = server.url
        second = forecast(*args)
    assert second.returncode == 0, second.stderr
    assert "resumed: 5 prediction(s) already in" in second.stderr and server.chats == 7  # only the rest asked
    result = json.loads(second.stdout)
    assert result["n_missing"] == 0 and result["report"]["n_items"] == 12
    assert len(out_file.read_text().splitlines()) == 12


def test_reasoning_grade_with_a_dead_or_refusing_grader(tmp_path):
    base = ["reasoning", "grade", "--ledger", str(LEDGER), "--forecasts", str(FORECASTS)]
    url = f"http://127.0.0.1:{closed_port()}/v1"
    assert_one_line_error(forecast(*base, "--grader", url, "--model", "m"), f"cannot reach {url}/chat/completions")
    with Endpoint(status=401) as server:
        refused = forecast(*base, "--grader", server.url, "--model", "m", "--api-key-env", "GRADER_KEY")
    assert_one_line_error(refused, "refused the API key (HTTP 401", "set GRADER_KEY")
    assert_one_line_error(forecast(*base, "--grader", "gpt-4o", key=None), "no API key", "set OPENAI_API_KEY")


@pytest.mark.parametrize("extra", [[], ["--json"]])
def test_harvest_that_reaches_nothing_exits_2(tmp_path, extra):
    url = f"http://127.0.0.1:{closed_port()}"
    out = forecast("harvest", "--gamma-url", url, "--clob-url", url, "--out", str(tmp_path / "h.jsonl"), *extra)
    assert_one_line_error(out, f"could not harvest from {url}", "Connection refused", "nothing was written")
    assert out.stdout == ""
