"""`reasonforge forecast episode run|analyse`: output contracts, resumability, exit codes, and the end-to-end
acceptance loop (corpus → episodes for two agents → rewards, advantages, horizon table, reader swap)."""

import json
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from reasonforge.cli import app
from reasonforge.forecast.agentic.episode import read_records
from reasonforge.forecast.agentic.records import load_questions
from reasonforge.forecast.predictions import read_predictions_file

from agentic_support import NEWS_SAMPLE, REPO, cep_corpus
from tool_chat_server import Researcher, ToolChatServer

QUESTIONS_FILE = REPO / "data" / "agentic" / "questions.jsonl"
runner = CliRunner()


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    path = tmp_path_factory.mktemp("cli")
    cep_corpus(path)
    return path / "cep-index"


def invoke(*args):
    return runner.invoke(app, ["forecast", "episode", *map(str, args)])


def test_run_is_resumable_and_analyse_reports_every_section(index, tmp_path):
    run_dir = tmp_path / "run"
    first = invoke("run", "--questions", QUESTIONS_FILE, "--corpus", index, "--model", "retrieval", "--limit", 3,
                   "--out", run_dir, "--json")
    assert first.exit_code == 0, first.output
    summary = json.loads(first.stdout)
    assert summary["episodes_written"] == 3 and summary["agent"] == "retrieval"
    again = json.loads(invoke("run", "--questions", QUESTIONS_FILE, "--corpus", index, "--model", "retrieval",
                              "--limit", 3, "--out", run_dir, "--json").stdout)
    assert again["episodes_written"] == 0 and again["episodes_skipped"] == 3
    text = invoke("analyse", run_dir)
    assert text.exit_code == 0 and "## Scores by horizon" in text.stdout and "| retrieval | off | <3 |" in text.stdout
    assert "no evidence–reader swap" in text.stdout
    info = json.loads((run_dir / "run.json").read_text(encoding="utf-8"))
    assert info["questions"] == str(QUESTIONS_FILE.resolve()) and len(info["runs"]) == 2
    assert invoke("run", "--questions", QUESTIONS_FILE, "--corpus", index, "--model", "uniform", "--limit", 3,
                  "--out", run_dir, "--memory").exit_code == 0
    both = json.loads(invoke("analyse", run_dir, "--json", "--resamples", 50,
                             "--swap", "uniform+memory,retrieval").stdout)
    assert both["configs"] == [["retrieval", False], ["uniform", True]]
    assert both["swap"]["evidence_labels"] == ["uniform+memory", "retrieval"] and both["swap"]["n_items"] == 9
    bad = invoke("analyse", run_dir, "--swap", "retrieval,nobody")
    assert bad.exit_code == 2 and "have retrieval, uniform+memory" in bad.stderr
    dirs = invoke("analyse", run_dir, "--swap", "runs/retrieval,runs/uniform")  # the old README's command
    assert dirs.exit_code == 2 and "not run directories; run both agents with the same --out" in dirs.stderr


def test_run_writes_one_predictions_file_that_resumes_and_binary_readers_refuse(index, tmp_path):
    run_dir = tmp_path / "run"
    preds = run_dir / "predictions.jsonl"
    args = ("run", "--questions", QUESTIONS_FILE, "--corpus", index, "--limit", 4, "--out", run_dir, "--json")
    for model in ("retrieval", "uniform"):
        done = invoke(*args, "--model", model)
        assert done.exit_code == 0, done.output
    records = read_records(run_dir / "records.jsonl")
    rows = read_predictions_file(preds).rows
    expected = {(f"{r.question_id}@{f.date.isoformat()}", r.agent): f.probs for r in records for f in r.forecasts}
    assert len(expected) > 8 and {(row.id, row.model): row.probabilities for row in rows} == expected
    outcomes = {r.question_id: r.outcomes for r in records}
    assert all(row.outcomes == outcomes[row.id.split("@")[0]] and row.run == "run" for row in rows)
    assert any(len(row.probabilities or []) > 2 for row in rows)  # the shipped questions are mostly multi-class
    assert json.loads(done.stdout)["prediction_rows"] == len(rows)
    before = preds.read_text(encoding="utf-8")
    again = json.loads(invoke(*args, "--model", "retrieval").stdout)
    assert again["episodes_written"] == 0 and preds.read_text(encoding="utf-8") == before
    preds.write_text(before[:-40], encoding="utf-8")  # interrupted mid-row, after its episode was recorded
    more = json.loads(invoke(*args, "--model", "retrieval", "--samples", 2).stdout)
    assert more["episodes_written"] == 4 and len(read_records(run_dir / "records.jsonl")) == 12
    assert preds.read_text(encoding="utf-8") == before  # rebuilt; a second sample adds no row for the same date
    for command in (["score", preds], ["calibration", preds, "--out", tmp_path / "c.png"],
                    ["probe", preds, "--cutoff", "2025-01-01T00:00:00Z"], ["commit", preds, "--out", tmp_path / "b"]):
        refused = runner.invoke(app, ["forecast", *map(str, command)])
        assert refused.exit_code == 2 and "Traceback" not in refused.output
        assert (f"{preds}:1: a multi-class forecast ('probabilities'); `forecast {command[0]}` reads binary "
                "forecasts") in " ".join(refused.stderr.split())
        assert "use `forecast episode analyse` for multi-class runs" in " ".join(refused.stderr.split())


def test_a_model_endpoint_runs_through_the_cli(index, tmp_path, monkeypatch):
    monkeypatch.setenv("RF_TEST_KEY", "sk-cli")
    with ToolChatServer(Researcher(["refugees"], code=None)) as server:
        out = invoke("run", "--questions", QUESTIONS_FILE, "--corpus", index, "--model", server.url, "--limit", 2,
                     "--api-key-env", "RF_TEST_KEY", "--max-rounds", 1, "--out", tmp_path, "--json")
    assert out.exit_code == 0, out.output
    assert json.loads(out.stdout)["agent"] == "scripted-researcher"
    records = read_records(tmp_path / "records.jsonl")
    assert all(f.format_ok and f.tool_rounds == 1 for r in records for f in r.forecasts)
    assert server.headers[0]["Authorization"] == "Bearer sk-cli"
    assert sum("tools" not in body for body in server.requests) == 6  # one budget-spent final ask per date


def test_dates_replace_the_schedule(index, tmp_path):
    out = invoke("run", "--questions", QUESTIONS_FILE, "--corpus", index, "--model", "uniform", "--limit", 2,
                 "--dates", "2015-09-09T23:59:59Z,2015-09-13", "--out", tmp_path, "--json")
    assert out.exit_code == 0, out.output
    records = read_records(tmp_path / "records.jsonl")
    assert [f.date.isoformat() for f in records[0].forecasts] == ["2015-09-09T23:59:59+00:00",
                                                                  "2015-09-13T00:00:00+00:00"]


@pytest.mark.parametrize(("args", "message"), [
    (["--questions", "missing.jsonl"], "cannot read missing.jsonl"),
    (["--corpus", "no-index-here"], "no corpus index at no-index-here"),
    (["--rule", "hinge"], "--rule must be brier or log"),
    (["--dates", "yesterday"], "is not an ISO date"),
    (["--model", "market", "--dates", "2016-01-01"], "no questions to run"),
])
def test_input_errors_exit_2_with_a_message(index, tmp_path, args, message):
    base = {"--questions": str(QUESTIONS_FILE), "--corpus": str(index), "--out": str(tmp_path / "r")}
    for flag, value in zip(args[::2], args[1::2], strict=True):
        base[flag] = value
    flat = [part for pair in base.items() for part in pair]
    result = invoke("run", *flat)
    assert result.exit_code == 2 and message in result.stderr and "Traceback" not in result.output


def test_analyse_of_an_empty_directory_is_an_input_error(tmp_path):
    result = invoke("analyse", tmp_path)
    assert result.exit_code == 2 and "no episode records" in result.stderr


@pytest.mark.slow
def test_end_to_end_acceptance_loop_from_the_news_sample(tmp_path):
    """The acceptance run, smaller: ingest → retrieval and uniform agents over 20 questions × 3 dates →
    rewards, advantages, horizon table and the evidence–reader swap, all through the installed CLI."""

    def cli(*args):
        out = subprocess.run([sys.executable, "-m", "reasonforge.cli", *map(str, args)], capture_output=True,
                             text=True, timeout=120, cwd=tmp_path, check=False)
        assert out.returncode == 0, out.stderr
        return out.stdout

    index, run_dir = tmp_path / "idx", tmp_path / "run"
    cli("corpus", "ingest", NEWS_SAMPLE, "--index", index, "--adapter", "cep")
    for model in ("retrieval", "uniform"):
        cli("forecast", "episode", "run", "--questions", QUESTIONS_FILE, "--corpus", index, "--model", model,
            "--limit", 20, "--out", run_dir)
    report = json.loads(cli("forecast", "episode", "analyse", run_dir, "--json", "--resamples", 200))
    questions = {q.id: q for q in load_questions(QUESTIONS_FILE)[:20]}
    records = read_records(run_dir / "records.jsonl")
    assert len(records) == 40 and {r.question_id for r in records} == set(questions)
    assert all(len(r.forecasts) == 3 and all(f.format_ok for f in r.forecasts) for r in records)
    rows = {(r["agent"], r["bucket"]): r for r in report["horizon"]["rows"]}
    for agent in ("retrieval", "uniform"):
        for bucket in ("<3", "3-7", "7-14", "all"):
            assert rows[(agent, bucket)]["n_questions"] == 20
    assert rows[("uniform", "all")]["n"] == 60
    adv = {a["agent"]: a for a in report["advantages"]}
    assert adv["retrieval"]["grouped"] == adv["uniform"]["grouped"] == 60
    assert adv["retrieval"]["mean_advantage"] == pytest.approx(-adv["uniform"]["mean_advantage"])
    swap = report["swap"]
    assert swap["evidence_labels"] == ["retrieval", "uniform"] and swap["n_items"] == 60
    uniform_reader = [s for s in swap["scores"] if s["reader"] == "uniform"]
    assert uniform_reader[0]["brier"]["value"] == pytest.approx(uniform_reader[1]["brier"]["value"])
    assert {g["kind"] for g in swap["acquisition"] + swap["reporting"]} == {"acquisition", "reporting"}
    # the uniform agent gathers no evidence, the retrieval agent does, all of it dated by each forecast date
    assert all(not f.evidence for r in records if r.agent == "uniform" for f in r.forecasts)
    assert all(f.evidence for r in records if r.agent == "retrieval" for f in r.forecasts)


def test_unreadable_inputs_and_outputs_exit_2_without_a_traceback(index, tmp_path):
    def run_into(out, *extra, questions=QUESTIONS_FILE):
        return invoke("run", "--questions", questions, "--corpus", index, "--model", "uniform", "--limit", 1,
                      "--out", out, *extra)

    def assert_input_error(result, message):
        assert result.exit_code == 2, result.output
        assert message in result.stderr, result.stderr
        assert result.exception is None or isinstance(result.exception, SystemExit)

    latin1 = tmp_path / "latin1.jsonl"
    latin1.write_bytes(QUESTIONS_FILE.read_bytes().split(b"\n")[0] + b"\n{\"id\": \"caf\xe9\"}\n")
    assert_input_error(run_into(tmp_path / "a", questions=latin1), f"{latin1}:2: not UTF-8 text")
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    assert_input_error(run_into(blocker / "run"), "choose a writable --out")
    assert_input_error(run_into(tmp_path / "b", "--timeout", "inf"), "--timeout must be a finite number")
    assert_input_error(invoke("run", "--questions", QUESTIONS_FILE, "--corpus", index, "--model", "ftp://x",
                              "--out", tmp_path / "c"), "not http:// or https://")
    damaged = tmp_path / "damaged"
    damaged.mkdir()
    (damaged / "run.json").write_text("[1, 2]")
    assert_input_error(run_into(damaged), "must hold a JSON object")
    assert not (damaged / "records.jsonl").exists()  # stopped before running any episode
    assert_input_error(invoke("analyse", damaged), "no episode records")
    run_dir = tmp_path / "run"
    assert run_into(run_dir).exit_code == 0
    with (run_dir / "records.jsonl").open("ab") as handle:
        handle.write(b"\xff\n")
    assert_input_error(invoke("analyse", run_dir), "records.jsonl:2: not UTF-8 text")
    (run_dir / "records.jsonl").write_text("")
    (run_dir / "run.json").write_bytes(b"\xff")
    assert_input_error(run_into(run_dir), "run.json:1: not UTF-8 text")
