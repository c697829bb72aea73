"""`reasonforge bench translate`: offline rule-based run, a model run against the loopback server, data adapters."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from reasonforge.bench.data import detect_format, load_items
from reasonforge.cli import app
from reasonforge.types import Domain

from llm_replay import CHAT, ReplayServer, openai_reply

REPO = Path(__file__).resolve().parents[2]
FOLIO = REPO / "data" / "folio" / "folio-validation.shared.jsonl"
runner = CliRunner()


@pytest.fixture
def no_model(monkeypatch):
    for name in ("REASONFORGE_MODEL", "REASONFORGE_MODEL_BASE_URL", "REASONFORGE_MODEL_API_KEY"):
        monkeypatch.delenv(name, raising=False)


def _json(result):
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_offline_folio_reports_handled_items_and_label_agreement(no_model):
    report = _json(runner.invoke(app, ["bench", "translate", "--domain", "logic", "--data", str(FOLIO), "--json"]))
    assert report["model"] == "no model configured: offline rule-based translators" and report["mode"] == "offline"
    assert report["items"] == 134 and set(report["domains"]) == {"logic"}
    assert {"translated", "compiled", "verified"} <= set(report) and report["translated"] <= report["items"]
    scores = report["scores"]
    assert 0 < scores["handled"] < report["items"]  # the rule-based reader covers only controlled English
    assert scores["label_agreement"] <= scores["handled"] and report["targets"]["label_accuracy_above"] == 0.725


def test_offline_run_says_no_model_is_configured(no_model):
    result = runner.invoke(app, ["bench", "translate", "--data", str(FOLIO), "--limit", "2"])
    assert result.exit_code == 0
    assert "no model configured: offline rule-based translators" in result.output


def test_model_run_against_the_loopback_server(no_model, monkeypatch, tmp_path):
    rows = [{"premises": ["All whales are mammals.", "Moby is a whale."], "conclusion": "Moby is a mammal.",
             "label": "True"},
            {"premises": ["All whales are mammals.", "Moby is a whale."], "conclusion": "Moby is a fish.",
             "label": "Uncertain"}]
    data = tmp_path / "folio.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    premises = "∀x (Whale(x) → Mammal(x))\nWhale(moby)\n"
    with ReplayServer() as server:
        server.queue(CHAT, openai_reply(f"```fol\n{premises}⊢ Mammal(moby\n```"))
        server.queue(CHAT, openai_reply(f"```fol\n{premises}⊢ Mammal(moby)\n```\nCONFIDENCE: 0.9"))
        server.queue(CHAT, openai_reply(f"```fol\n{premises}⊢ Fish(moby)\n```"))
        monkeypatch.setenv("REASONFORGE_MODEL_BASE_URL", f"{server.url}/v1")
        monkeypatch.setenv("REASONFORGE_MODEL", "gpt-4o")
        report = _json(runner.invoke(app, ["bench", "translate", "--domain", "logic", "--data", str(data),
                                           "--concurrency", "1", "--json"]))
    assert report["mode"] == "model" and report["model"].startswith("openai:gpt-4o @ http://127.0.0.1:")
    assert (report["items"], report["translated"], report["compiled"], report["verified"]) == (2, 2, 2, 1)
    assert report["first_attempt_compile_rate"] == 0.5 and report["attempts_per_step"] == 1.5
    assert report["repair_attempts_per_step"] == 0.5
    assert report["tokens_per_step"] == 222.0  # 3 replies × 148 tokens (the recorded usage) over 2 steps
    assert report["scores"]["label_accuracy"] == 1.0 and report["domains"]["logic"]["compile_rate"] == 1.0


def test_domain_must_match_the_data(no_model):
    result = runner.invoke(app, ["bench", "translate", "--domain", "code", "--data", str(FOLIO)])
    assert result.exit_code == 2 and "does not match the data" in result.output


def test_unknown_rows_and_missing_files_are_input_errors(no_model, tmp_path):
    odd = tmp_path / "odd.jsonl"
    odd.write_text('{"question": "q", "answer": 1}\n')
    result = runner.invoke(app, ["bench", "translate", "--data", str(odd)])
    assert result.exit_code == 2 and "unrecognised data row (keys: answer, question)" in result.output
    result = runner.invoke(app, ["bench", "translate", "--data", str(tmp_path / "none.jsonl")])
    assert result.exit_code == 2 and "does not exist" in result.output


def test_adapters_build_the_expected_chains():
    fmt, items = load_items(REPO / "data" / "processbench", limit=4)
    assert fmt == "processbench" and len({i.subset for i in items}) == min(4, len(items))
    assert items[0].request.domain is Domain.MATHEMATICS and isinstance(items[0].gold, int)
    fmt, items = load_items(REPO / "data" / "humaneval" / "HumanEval.slice.jsonl", limit=1)
    content = items[0].request.reasoning_chain[0].content
    assert fmt == "humaneval" and content.count("```python") == 2 and "def test_check():" in content
    fmt, items = load_items(REPO / "data" / "mbpp-sanitized" / "sanitized-mbpp.slice.jsonl", limit=1)
    assert fmt == "mbpp" and "def test_case_1():" in items[0].request.reasoning_chain[0].content
    assert detect_format({"reasoning_chain": [], "domain": "logic"}) == "chains"


@pytest.mark.slow  # a few seconds: two MBPP tasks in the sandbox
def test_offline_code_benchmark_runs_the_dataset_tests(no_model):
    report = _json(runner.invoke(app, ["bench", "translate", "--domain", "code", "--limit", "2", "--json",
                                       "--data", str(REPO / "data" / "mbpp-sanitized" / "sanitized-mbpp.slice.jsonl")]))
    if report["verified"] == 0 and "sandbox" in json.dumps(report["misses"]):
        pytest.skip("sandbox unavailable")
    assert report["scores"]["tests_pass"] == 2 and report["verified"] == 2


def test_data_that_is_not_utf8_or_a_non_finite_timeout_is_an_input_error(no_model, tmp_path):
    data = tmp_path / "folio.jsonl"
    data.write_bytes(FOLIO.read_bytes().split(b"\n")[0] + b"\n\xff\n")
    result = runner.invoke(app, ["bench", "translate", "--data", str(data)])
    assert result.exit_code == 2 and f"{data}:2: not UTF-8 text" in result.output, result.output
    result = runner.invoke(app, ["bench", "translate", "--data", str(FOLIO), "--limit", "1", "--timeout", "inf"])
    assert result.exit_code == 2 and "--timeout must be a finite number" in result.output, result.output


WHALES = [{"premises": ["All whales are mammals.", "Moby is a whale."], "conclusion": "Moby is a mammal.",
           "label": "True"}]
MOBY = "```fol\n∀x (Whale(x) → Mammal(x))\nWhale(moby)\n⊢ Mammal(moby)\n```"


def test_the_translator_options_are_verifys(no_model, monkeypatch, tmp_path):
    data = tmp_path / "folio.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in WHALES))
    with ReplayServer() as server:
        monkeypatch.setenv("REASONFORGE_MODEL_BASE_URL", f"{server.url}/v1")
        monkeypatch.setenv("REASONFORGE_MODEL", "gpt-4o")
        # rules: the configured model is never asked
        report = _json(runner.invoke(app, ["bench", "translate", "--data", str(data), "--translator", "rules",
                                           "--json"]))
        assert report["mode"] == "offline" and server.posted(CHAT) == []
        # ensemble: the rules and the model, agreed per step; the model's translation for the compile figures is
        # the ensemble's own (asked once, remembered)
        server.queue(CHAT, openai_reply(MOBY))
        report = _json(runner.invoke(app, ["bench", "translate", "--data", str(data), "--translator", "ensemble",
                                           "--agree", "2", "--json"]))
        assert len(server.posted(CHAT)) == 1
    assert report["mode"] == "model" and (report["items"], report["verified"]) == (1, 1)
    assert report["first_attempt_compile_rate"] == 1.0


def test_translator_options_that_contradict_each_other_are_input_errors(no_model, monkeypatch, tmp_path):
    monkeypatch.setenv("REASONFORGE_MODEL_DIR", str(tmp_path))  # no model installed either
    data = tmp_path / "folio.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in WHALES))
    for args, said in ((["--translator", "rules", "--samples", "2"], "--translator rules has none"),
                       (["--translator", "rules", "--replay", str(tmp_path)], "--translator rules has none"),
                       (["--translator", "model"], "no model endpoint is configured"),
                       (["--samples", "2"], "no model is configured"),
                       (["--translator", "ensemble", "--agree", "3", "--replay", str(REPO / "tests" / "translate" /
                                                                                    "recordings" / "gsm8k-0")],
                        "agree must be between 1 and 2")):
        result = runner.invoke(app, ["bench", "translate", "--data", str(data), *args])
        assert result.exit_code == 2, (args, result.output)
        assert said in result.output and "Traceback" not in result.output
