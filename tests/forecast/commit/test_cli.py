"""The commit–reveal commands end to end on the devnode, and bad input as one line with exit 2."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from reasonforge.cli import app


@pytest.fixture
def question_set(tmp_path, items):
    path = tmp_path / "questions.jsonl"
    path.write_text("".join(i.model_dump_json() + "\n" for i in items))
    return path


def run(*args: str, home) -> object:
    return CliRunner().invoke(app, ["forecast", *args], env={"REASONFORGE_HOME": str(home)})


def test_commit_register_reveal_score_certify_verify(tmp_path, node, question_set, compiled):
    home = tmp_path / "home"
    preds = tmp_path / "preds.jsonl"
    preds.write_text("".join(json.dumps(r) + "\n" for r in [
        {"id": "q0", "probability": 0.2, "reasoning": "base rates"},
        {"id": "q1", "reply": "Leaning yes.\nPROBABILITY: 0.7"},
        {"id": "past", "probability": 0.9}]))
    deployed = run("deploy-registry", "--rpc", node, "--json", home=home)
    assert deployed.exit_code == 0, deployed.output
    address = json.loads(deployed.output)["address"]
    batch, reveals, cert = tmp_path / "batch.json", tmp_path / "reveal.jsonl", tmp_path / "cert.json"
    assert run("commit", str(preds), "--data", str(question_set), "--out", str(batch), home=home).exit_code == 0
    registered = run("register", str(batch), "--rpc", node, "--registry", address, "--json", home=home)
    assert registered.exit_code == 0, registered.output
    # q0 and q1 close in 2099: a reveal now is refused, naming the cutoff, unless asked for explicitly
    early = run("reveal", str(batch), "--out", str(reveals), "--data", str(question_set), home=home)
    assert early.exit_code == 2 and not reveals.exists(), early.output
    assert "2 of the batch's 3 forecasts" in early.output and "'q0', closes at 2099-01-01T00:00:00Z" in early.output
    assert "--before-cutoff" in early.output and "Traceback" not in early.output
    revealed = run("reveal", str(batch), "--out", str(reveals), "--data", str(question_set), "--before-cutoff",
                   home=home)
    assert revealed.exit_code == 0 and "warning: revealed with --before-cutoff" in revealed.output, revealed.output
    scored = run("score-reveals", str(reveals), "--rpc", node, "--registry", address, "--data", str(question_set),
                 "--certify", str(cert), home=home)
    assert scored.exit_code == 0, scored.output
    assert "scored 2 of 3" in scored.output and "[late]" in scored.output and "[no_forecast]" in scored.output
    offline = run("verify-score", str(cert), "--data", str(question_set), home=home)
    assert offline.exit_code == 0 and offline.output.startswith("valid:"), offline.output
    # Without --data the packaged slice is another question set: say what to pass, exit 2, no Python reprs.
    bare = run("verify-score", str(cert), home=home)
    assert bare.exit_code == 2, bare.output
    assert bare.output.startswith("error: the certificate scores another question set than the packaged")
    assert "--data FILE" in bare.output and "[" not in bare.output and len(bare.output.splitlines()) == 1
    unregistered = run("verify-score", str(cert), "--data", str(question_set), "--rpc", node, home=home)
    assert unregistered.exit_code == 1 and "not registered" in unregistered.output
    assert run("register-score", str(cert), "--rpc", node, home=home).exit_code == 0
    online = run("verify-score", str(cert), "--data", str(question_set), "--rpc", node, home=home)
    assert online.exit_code == 0 and "registered on chain" in online.output, online.output
    body = json.loads(cert.read_text())
    body["body"]["scores"]["brier"] = 0.0
    cert.write_text(json.dumps(body))
    tampered = run("verify-score", str(cert), "--data", str(question_set), home=home)
    assert tampered.exit_code == 1 and "'scores' does not follow" in tampered.output


def test_certify_refuses_an_incomplete_reveal_but_shows_the_scores(tmp_path, node, question_set, compiled):
    home = tmp_path / "home"
    address = json.loads(run("deploy-registry", "--rpc", node, "--json", home=home).output)["address"]
    reveals = tmp_path / "reveal.jsonl"
    for n, p in enumerate((0.1, 0.9)):  # both sides of q0, in two batches
        preds, batch = tmp_path / f"preds{n}.jsonl", tmp_path / f"batch{n}.json"
        preds.write_text(json.dumps({"id": "q0", "probability": p}) + "\n")
        assert run("commit", str(preds), "--data", str(question_set), "--out", str(batch), home=home).exit_code == 0
        assert run("register", str(batch), "--rpc", node, "--registry", address, home=home).exit_code == 0
        if n == 0:  # only the winner (q0 resolves no) is opened
            assert run("reveal", str(batch), "--out", str(reveals), "--before-cutoff", home=home).exit_code == 0
    cert = tmp_path / "cert.json"
    scored = run("score-reveals", str(reveals), "--rpc", node, "--registry", address, "--data", str(question_set),
                 "--certify", str(cert), home=home)
    assert scored.exit_code == 2, scored.output
    assert "scored 1 of 2" in scored.output and "not certifiable" in scored.output
    assert "never revealed" in scored.output and not cert.exists()


@pytest.mark.parametrize(("args", "message"), [
    (["commit", "missing.jsonl", "--out", "b.json"], "does not exist"),
    (["reveal", "missing.json", "--out", "r.jsonl"], "forecast commit"),
    (["score-reveals", "r.jsonl", "--rpc", "ftp://x", "--registry", "0x00"], "does not exist"),
    (["verify-score", "missing.json"], "does not exist"),
    (["register", "b.json", "--rpc", "http://127.0.0.1:9", "--registry", "nonsense"], "does not exist"),
])
def test_bad_input_is_one_line_exit_2(tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    result = run(*args, home=tmp_path)
    assert result.exit_code == 2, result.output
    assert message in result.output and "Traceback" not in result.output


def test_bad_registry_address_and_url(tmp_path, node, question_set, items):
    batch = tmp_path / "b.json"
    preds = tmp_path / "p.jsonl"
    preds.write_text(json.dumps({"id": "q0", "probability": 0.5}) + "\n")
    assert run("commit", str(preds), "--data", str(question_set), "--out", str(batch), home=tmp_path).exit_code == 0
    bad = run("register", str(batch), "--rpc", node, "--registry", "nonsense", home=tmp_path)
    assert bad.exit_code == 2 and "--registry must be" in bad.output
    no_node = run("register", str(batch), "--rpc", "http://127.0.0.1:9", "--registry", "0x" + "11" * 20,
                  home=tmp_path)
    assert no_node.exit_code == 2 and "no EVM node answers" in no_node.output


def test_reveal_after_every_cutoff_needs_no_flag_and_a_foreign_question_set_is_refused(tmp_path, items):
    passed = tmp_path / "passed.jsonl"
    passed.write_text(items[-1].model_dump_json() + "\n")  # only 'past' (cutoff 2020)
    preds, batch, reveals = tmp_path / "p.jsonl", tmp_path / "b.json", tmp_path / "r.jsonl"
    preds.write_text(json.dumps({"id": "past", "probability": 0.8}) + "\n")
    assert run("commit", str(preds), "--data", str(passed), "--out", str(batch), home=tmp_path).exit_code == 0
    done = run("reveal", str(batch), "--out", str(reveals), "--data", str(passed), home=tmp_path)
    assert done.exit_code == 0 and "1 openings of" in done.output and "warning" not in done.output, done.output
    # Without its question set the cutoffs are unknown: refused with what to pass, not revealed blindly.
    reveals.unlink()
    foreign = run("reveal", str(batch), "--out", str(reveals), home=tmp_path)
    assert foreign.exit_code == 2 and "pass the --data file the batch was committed with" in foreign.output
    assert not reveals.exists()
