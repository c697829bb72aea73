"""verify-batch: a JSONL of chains over a pool, each chain killed past its CPU budget, results appended as they
finish, and a batch killed at any moment resumes losing and repeating nothing."""

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from reasonforge.pipeline.batch import BatchResult, run_batch

SLICE = Path(__file__).resolve().parents[2] / "data" / "gsm8k" / "train.slice.jsonl"


def gold(n: int) -> list[str]:
    rows = []
    for line in SLICE.read_text(encoding="utf-8").splitlines()[:n]:
        row = json.loads(line)
        rows.append(json.dumps({"question": row["question"], "reasoning": re.sub(r"<<[^>]*>>", "", row["answer"]),
                                "reference": row["answer"].rsplit("####", 1)[1].strip()}))
    return rows


def results(out: Path) -> list[BatchResult]:
    return [BatchResult.model_validate_json(line) for line in out.read_text(encoding="utf-8").splitlines()]


def test_every_row_gets_one_result_and_a_rerun_skips_them(tmp_path):
    inp, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    inp.write_text("\n".join(gold(6)) + "\n", encoding="utf-8")
    summary = run_batch(inp, out, jobs=2, cached=False)
    assert (summary.rows, summary.done, summary.errors) == (6, 6, 0)
    got = results(out)
    assert sorted(r.line for r in got) == list(range(1, 7))
    assert all(r.verdict is not None and r.verdict.answer_matches_reference for r in got)
    again = run_batch(inp, out, jobs=2)
    assert (again.skipped, again.done) == (6, 0) and len(results(out)) == 6


def test_bad_rows_are_reported_in_the_output_and_the_rest_verified(tmp_path):
    inp, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    inp.write_text("\n".join([gold(1)[0], "not json", '{"question": "q"}', '[1, 2]',
                              '{"reasoning": "2 + 2 = 4", "colour": "red"}']) + "\n", encoding="utf-8")
    summary = run_batch(inp, out, jobs=1, cached=False)
    assert (summary.done, summary.errors) == (5, 4)
    errors = {r.line: r.error for r in results(out) if r.error}
    assert "not JSON" in errors[2] and "reasoning" in errors[3] and "JSON object" in errors[4]
    assert "colour" in errors[5]


def test_a_chain_past_its_cpu_budget_is_killed_and_said_so(tmp_path):
    inp, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    heavy = {"reasoning": "Then (x + 1)^400 * (x - 1)^400 = (x^2 - 1)^400 + 1.", "question": "Simplify."}
    inp.write_text(json.dumps(heavy) + "\n" + gold(1)[0] + "\n", encoding="utf-8")
    run_batch(inp, out, jobs=2, cpu_s=1.0, cached=False)
    got = {r.line: r for r in results(out)}
    assert got[2].verdict is not None  # the other row is not held up
    assert got[1].verdict is not None or "budget of 1 CPU seconds" in (got[1].error or "")


def test_a_torn_last_line_is_cut_and_its_row_done_again(tmp_path):
    inp, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    inp.write_text("\n".join(gold(3)) + "\n", encoding="utf-8")
    run_batch(inp, out, jobs=1, cached=False)
    lines = out.read_text(encoding="utf-8").splitlines(keepends=True)
    out.write_text("".join(lines[:2]) + lines[2][:40], encoding="utf-8")  # killed while writing the third
    summary = run_batch(inp, out, jobs=1, cached=False)
    assert (summary.skipped, summary.done) == (2, 1)
    assert sorted(r.line for r in results(out)) == [1, 2, 3]


def test_a_batch_killed_with_sigkill_resumes_with_nothing_lost_or_repeated(tmp_path):
    inp, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    inp.write_text("\n".join(gold(40)) + "\n", encoding="utf-8")
    command = [sys.executable, "-m", "reasonforge.cli", "verify-batch", str(inp), "--out", str(out), "--jobs", "2"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and (not out.exists() or len(out.read_bytes().splitlines()) < 5):
        time.sleep(0.05)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    written = len(out.read_bytes().splitlines())
    if written >= 40:
        pytest.skip("the batch finished before it could be killed")
    finished = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert finished.returncode == 0, finished.stdout + finished.stderr
    got = results(out)
    assert sorted(r.line for r in got) == list(range(1, 41))  # each row once: none lost, none repeated
    assert "already in" in finished.stdout


def test_the_command_refuses_what_it_cannot_do(tmp_path):
    def run(*args):
        return subprocess.run([sys.executable, "-m", "reasonforge.cli", "verify-batch", *args], capture_output=True,
                              text=True, timeout=120)

    missing = run(str(tmp_path / "nope.jsonl"), "--out", str(tmp_path / "out.jsonl"))
    assert missing.returncode == 2 and "no such file" in missing.stderr
    inp = tmp_path / "in.jsonl"
    inp.write_text(gold(1)[0] + "\n", encoding="utf-8")
    same = run(str(inp), "--out", str(inp))
    assert same.returncode == 2 and "must not be the input" in same.stderr
    foreign = tmp_path / "foreign.jsonl"
    foreign.write_text('{"something": "else"}\n', encoding="utf-8")
    taken = run(str(inp), "--out", str(foreign))
    assert taken.returncode == 2 and "not a batch output" in taken.stderr
