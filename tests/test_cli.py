"""The `reasonforge` command: output formats and the 0/1/2 exit-code contract."""

import json
import subprocess
import sys
from pathlib import Path

from reasonforge import VerificationVerdict

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def run(*args, stdin=None):
    return subprocess.run(
        [sys.executable, "-m", "reasonforge.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_verified_chain_exits_0_and_json_is_one_verdict():
    out = run("verify", str(EXAMPLES / "whale.json"), "--json")
    assert out.returncode == 0, out.stderr
    verdict = VerificationVerdict.model_validate_json(out.stdout)
    assert verdict.overall.value == "VERIFIED"
    assert out.stdout.count("\n") == 1


def test_failing_chain_exits_1_and_prints_table_and_report():
    out = run("verify", str(EXAMPLES / "six-step-chain.json"))
    assert out.returncode == 1, out.stderr
    assert "invalidated" in out.stdout and "failure report" in out.stdout and "PARTIAL" in out.stdout


def test_stdin_and_level_override():
    text = (EXAMPLES / "affirming-the-consequent.json").read_text()
    out = run("verify", "-", "--json", "--level", "formal", stdin=text)
    assert out.returncode == 1, out.stderr
    verdict = json.loads(out.stdout)
    assert verdict["proof_level"] == "formal"
    assert verdict["failure_report"]["failed_step_id"] == 2


def test_translations_option():
    out = run(
        "verify",
        str(EXAMPLES / "whale-smtlib.json"),
        "--translations",
        str(EXAMPLES / "whale-smtlib.translations.json"),
        "--json",
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["step_verdicts"][0]["details"]["language"] == "smtlib"


def test_input_errors_exit_2_without_traceback():
    cases = [
        ("verify", "-", '{"domain": "logic", "reasoning_chain": [}'),
        ("verify", "no-such-file.json", None),
        ("verify", "-", '{"domain": "logic", "reasoning_chain": [{"step_id": 1, "content": "a", "dependencies": [1]}]}'),
    ]
    for *args, stdin in cases:
        out = run(*args, stdin=stdin)
        assert out.returncode == 2, (args, out.stdout, out.stderr)
        assert "Traceback" not in out.stderr and "error:" in out.stderr
        assert out.stdout == ""


def test_schema_prints_every_model_and_rejects_unknown():
    out = run("schema")
    assert out.returncode == 0
    schemas = json.loads(out.stdout)
    assert {"VerifyRequest", "ReasoningStep", "StepTranslation", "StepVerdict", "VerificationVerdict", "FailureReport"} <= set(schemas)
    one = json.loads(run("schema", "VerifyRequest").stdout)
    assert "reasoning_chain" in one["properties"]
    bad = run("schema", "Nope")
    assert bad.returncode == 2 and "unknown model" in bad.stderr


def test_non_finite_timeout_is_an_input_error_not_a_crashed_checker():
    out = run("verify", str(EXAMPLES / "whale.json"), "--timeout", "inf")
    assert out.returncode == 2, out.stdout
    assert "--timeout must be a finite number" in out.stderr and "Traceback" not in out.stderr + out.stdout


def test_unknown_log_level_is_a_usage_error_before_serving():
    for command, accepted in (("serve", "trace"), ("worker", "debug")):
        out = run(command, "--log-level", "loud")
        assert out.returncode == 2, (command, out.stderr)
        assert "unknown --log-level 'loud'" in out.stderr and accepted in out.stderr
        assert "Traceback" not in out.stderr
