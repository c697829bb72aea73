"""The `reasonforge` command: output formats and the 0/1/2 exit-code contract."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

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


# ---- bad input: exit 2, one precise line, no traceback, and stdin read no further than the limit ----------------
def run_bytes(*args, stdin: bytes | None = None):
    return subprocess.run([sys.executable, "-m", "reasonforge.cli", *args], input=stdin, capture_output=True,
                          timeout=120)


def one_step(step_id: str = "1", content: str = '"Socrates is mortal."') -> str:
    return ('{"domain": "logic", "original_query": "All men are mortal. Socrates is a man.", '
            '"reasoning_chain": [{"step_id": ' + step_id + ', "content": ' + content + "}]}")


def assert_input_error(out, words: str) -> None:
    stderr = out.stderr if isinstance(out.stderr, str) else out.stderr.decode("utf-8", "replace")
    assert out.returncode == 2, (out.returncode, stderr[-2000:])
    assert "Traceback" not in stderr and "error:" in stderr and words in stderr, stderr[-2000:]
    assert not out.stdout


@pytest.mark.parametrize(("stdin", "words"), [
    (b"[" * 100_000, "nested more than 32 levels"),
    (one_step("9" * 5000).encode(), "5000 digits"),
    (one_step(content='"Socrates \\ud800 is mortal."').encode(), "lone surrogate"),
    (one_step().replace('"domain": "logic"', '"domain": "logic", "domain": "code"').encode(), 'repeats the key "domain"'),
    (one_step("NaN").encode(), "NaN at line 1"),
    (b"[1, 2]", "not an array"),
    (b"\xef\xbb\xbf" + one_step().encode(), "byte-order mark"),
    (one_step().encode("utf-16"), "UTF-16"),
    (one_step(content='"caf\xe9"').encode("latin-1"), "not UTF-8"),
    (one_step("true").encode(), "got true"),
    (one_step("0").encode(), "0 is the Context"),
    (one_step(content='"\\u200b\\u2060"').encode(), "invisible characters"),
])
def test_bad_requests_on_stdin_exit_2_saying_what_and_where(stdin, words):
    assert_input_error(run_bytes("verify", "-", "--json", stdin=stdin), words)


def test_stdin_is_read_only_up_to_the_limit():
    # An endless stream: reading it all first would never end (the hang guard is run's timeout).
    with subprocess.Popen(["yes", "["], stdout=subprocess.PIPE) as endless:
        try:
            out = subprocess.run([sys.executable, "-m", "reasonforge.cli", "verify", "-"], stdin=endless.stdout,
                                 capture_output=True, timeout=120)
        finally:
            endless.kill()
    assert_input_error(out, "over the limit of 1048576 bytes")


def test_files_over_the_limit_or_unreadable_are_input_errors(tmp_path):
    big = tmp_path / "big.json"
    big.write_bytes(b" " * (1024 * 1024 + 1))
    assert_input_error(run_bytes("verify", str(big)), "over the limit of 1048576 bytes")
    assert_input_error(run_bytes("verify", str(tmp_path)), "is not a file")


def test_translations_for_another_chain_exit_2(tmp_path):
    other = tmp_path / "other.json"
    other.write_text(json.dumps([{"step_id": 9, "language": "fol", "formal_representation": "⊢ P(a)"}]))
    out = run_bytes("verify", str(EXAMPLES / "whale.json"), "--translations", str(other))
    assert_input_error(out, "unknown step 9")
    bad = tmp_path / "bad.json"
    bad.write_text('[{"step_id": 1, "step_id": 9, "language": "fol"}]')
    assert_input_error(run_bytes("verify", str(EXAMPLES / "whale.json"), "--translations", str(bad)), "repeats the key")


def test_ten_thousand_nested_negations_are_a_verdict_not_a_traceback():
    content = json.dumps("Socrates is " + "not " * 10_000 + "mortal.")
    out = run_bytes("verify", "-", "--json", stdin=one_step(content=content).encode())
    assert out.returncode == 3 and b"Traceback" not in out.stderr, out.stderr[-2000:]  # nothing refuted
    [step] = json.loads(out.stdout)["step_verdicts"]
    assert step["status"] == "unsupported" and json.loads(out.stdout)["assurance"] == "unproven"


ANTHROPIC_THINKING = {  # an Anthropic message with a thinking block, as the API returns it
    "id": "msg_1", "type": "message", "role": "assistant", "model": "claude", "stop_reason": "end_turn",
    "content": [
        {"type": "thinking", "thinking": "Every whale is a mammal and Moby is a whale.\n\nSo Moby is a mammal.",
         "signature": "sig"},
        {"type": "text", "text": "Moby is a mammal."},
    ],
}


def test_text_option_verifies_plain_reasoning_and_provider_payloads(tmp_path):
    question = "Every whale is a mammal. Moby is a whale. Is Moby a mammal?"
    reasoning = tmp_path / "reasoning.txt"
    reasoning.write_text("Step 1: Moby is a whale.\nStep 2: So Moby is a mammal.\n", encoding="utf-8")
    out = run("verify", "--text", str(reasoning), "--domain", "logic", "--question", question, "--json")
    assert out.returncode == 0, out.stdout + out.stderr
    verdict = VerificationVerdict.model_validate_json(out.stdout)
    assert verdict.overall.value == "VERIFIED" and verdict.total_steps == 2
    out = run("verify", "--text", "-", "--domain", "logic", "--question", question, "--json",
              stdin=json.dumps(ANTHROPIC_THINKING))
    assert out.returncode == 0, out.stdout + out.stderr
    assert VerificationVerdict.model_validate_json(out.stdout).total_steps == 3  # two thought steps, then the answer
    # The same thinking with a false conclusion: not verified, exit 1.
    wrong = json.loads(json.dumps(ANTHROPIC_THINKING).replace("So Moby is a mammal", "So Moby is a fish"))
    out = run("verify", "--text", "-", "--domain", "logic", "--question", question, stdin=json.dumps(wrong))
    assert out.returncode == 1, out.stdout + out.stderr


def test_text_option_checks_the_visible_answer_after_the_reasoning():
    question = "What is 2 + 3?"
    payload = {"type": "message", "role": "assistant", "content": [
        {"type": "thinking", "thinking": "2 + 3 = 5"}, {"type": "text", "text": "Also 2 + 2 = 5. The answer is 5."}]}
    out = run("verify", "--text", "-", "--domain", "mathematics", "--question", question, "--json",
              stdin=json.dumps(payload))
    assert out.returncode == 1, out.stdout + out.stderr
    verdict = VerificationVerdict.model_validate_json(out.stdout)
    assert [s.status.value for s in verdict.step_verdicts] == ["verified", "failed"] and verdict.claimed_answer == "5"
    # --source reasoning checks the reasoning alone, as asked; the claimed answer is still the response's
    out = run("verify", "--text", "-", "--domain", "mathematics", "--question", question, "--source", "reasoning",
              "--json", stdin=json.dumps(payload))
    verdict = VerificationVerdict.model_validate_json(out.stdout)
    assert verdict.total_steps == 1 and verdict.claimed_answer == "5", out.stdout
    # a heading that claims something is a step; the last answer stated is the one claimed
    out = run("verify", "--text", "-", "--domain", "mathematics", "--question", question, "--json",
              stdin="2 + 3 = 5\n\n## Solution\n\n#### 5\n\n## Hence 2 + 3 = 6, so the answer is 6\n")
    assert out.returncode == 1, out.stdout + out.stderr
    verdict = VerificationVerdict.model_validate_json(out.stdout)
    assert verdict.total_steps == 3 and verdict.claimed_answer == "6"


@pytest.mark.parametrize(("args", "stdin", "words"), [
    (["--text", "-"], "Moby is a whale.", "--text needs --domain"),
    (["x.json", "--text", "-", "--domain", "logic"], "a", "not both"),
    (["--domain", "logic"], None, "give a request FILE"),
    ([str(EXAMPLES / "whale.json"), "--question", "q"], None, "--question goes with --text"),
    (["--text", "-", "--domain", "logic"], '{"choices": [}', "line 1"),
    (["--text", "-", "--domain", "logic"], '{"object": "list"}', "unrecognised response shape"),
    (["--text", "-", "--domain", "logic"], "   \n", "no answer text"),
    (["--text", "-", "--domain", "logic"], '{"type": "message", "role": "assistant", "content": [{"type": "image"}]}',
     "is of type 'image', which is not read"),
    (["--text", "-", "--domain", "logic"], '{"choices": [{"message": {"content": "a"}}, {"message": {"content": "b"}}]}',
     "holds 2 choices"),
    (["--text", "-", "--domain", "chemistry"], "a", "chemistry"),
])
def test_text_option_input_errors_exit_2_saying_what(args, stdin, words):
    out = run("verify", *args, stdin=stdin)
    assert out.returncode == 2, out.stdout + out.stderr
    assert words in out.stderr and "Traceback" not in out.stderr, out.stderr


def test_reference_compares_the_final_value_beside_the_verdict(tmp_path):
    solution = tmp_path / "solution.txt"
    solution.write_text("Natalia sold 48/2 = 24 clips in May.\nNatalia sold 48+24 = 72 clips altogether.\n#### 72\n")
    question = ("Natalia sold clips to 48 of her friends in April, and then she sold half as many clips in May. How "
                "many clips did Natalia sell altogether in April and May?")
    base = ("verify", "--text", str(solution), "--domain", "mathematics", "--question", question)
    right = run(*base, "--reference", "72", "--json")
    wrong = run(*base, "--reference", "#### 73", "--json")
    assert right.returncode == wrong.returncode, wrong.stderr  # the reference changes no status
    assert VerificationVerdict.model_validate_json(right.stdout).answer_matches_reference is True
    assert VerificationVerdict.model_validate_json(wrong.stdout).answer_matches_reference is False
    shown = run(*base, "--reference", "73")
    assert "reference answer 73: does not match" in " ".join(shown.stdout.split())


def test_the_off_by_one_report_prints_values_not_python_reprs():
    from reasonforge.verify import sandbox

    if sandbox.unavailable_reason() is not None:
        pytest.skip(f"sandbox unavailable: {sandbox.unavailable_reason()}")
    example = EXAMPLES / "frequency-count-off-by-one.json"
    out = subprocess.run([sys.executable, "-m", "reasonforge", "verify", str(example)], capture_output=True,
                         text=True, timeout=120, env={**os.environ, "COLUMNS": "200"})
    assert out.returncode == 1, out.stderr
    # step 1 fails: no step before it is valid
    assert "last valid step: none" in out.stdout and "None" not in out.stdout, out.stdout
    # the property's failure, by its values (pytest also names freq.values by the method's address)
    assert "assert 0 == 1" in out.stdout and "built-in" not in out.stdout and "0x" not in out.stdout, out.stdout


_BOX = "│┃┏┓┗┛┡┩└┘┳┻╇┴━─╭╮╰╯"


def _words_shown(text: str) -> list[str]:
    """What a verdict's text output says, word by word: box lines, wrap points and timings left out (a row's
    wrapped lines leave the other cells blank, so the words come in the same order however wide the table is)."""
    text = re.sub(r"\(([a-z]+), ([a-z]+), \d+ ms\)", r"(\1, \2)", text)
    return [w for w in re.findall(rf"[^\s{_BOX}]+", text) if not re.fullmatch(r"\d+\.\d", w)]


def test_the_readmes_first_sample_is_what_the_command_prints():
    readme = (EXAMPLES.parent / "README.md").read_text()
    block = readme[readme.index("```text\n$ ") + len("```text\n$ "):]
    block = block[:block.index("```")]
    command, shown = block.split("\n", 1)
    args = command.split("#")[0].split()
    assert args[0].endswith("reasonforge")
    out = subprocess.run([sys.executable, "-m", "reasonforge", *args[1:]], capture_output=True, text=True,
                         timeout=120, cwd=EXAMPLES.parent, env={**os.environ, "COLUMNS": "100"})
    assert out.returncode == 1, out.stderr
    assert _words_shown(shown) == _words_shown(out.stdout)


def test_the_readmes_json_names_are_the_models_fields_and_the_help_points_to_them():
    from reasonforge.types import FailureDetail, FailureReport, StepResult, StepVerdict, VerifyResponse

    readme = (EXAMPLES.parent / "README.md").read_text()
    section = readme[readme.index("### JSON names"):]
    rows = [line for line in section[:section.index("\n## ")].splitlines() if line.startswith("| `")]
    assert rows, "the README has no JSON names table"
    left_models = (VerificationVerdict, StepVerdict, FailureReport)
    right_models = (VerifyResponse, StepResult, FailureDetail)
    for row in rows:
        left, right = row.split(" | ")[:2]
        for cell, models in ((left, left_models), (right, right_models)):
            for name in re.findall(r"`([a-z_]+)(?:\[\])?(?:\.[a-z_]+)?`", cell):
                assert any(name in m.model_fields for m in models), (name, row)
    names = {row.split(" | ")[0].strip("| `") for row in rows}
    assert {"overall", "step_verdicts[].error_message"} <= names
    shown = run("verify", "--help").stdout
    assert "JSON names" in " ".join(shown.split()) and "step_verdicts its steps" in " ".join(shown.split())
