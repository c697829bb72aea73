"""The validator as a process of its own: miner processes on a shared chain file, epochs scored, state kept."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

HEALTH_WAIT_S = 120.0  # a hang guard: miners answer in a few seconds


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _validator(*args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "reasonforge.subnet.validator_main", *args], capture_output=True,
                          text=True, timeout=timeout)


@pytest.mark.slow
def test_a_validator_process_scores_miner_processes_and_resumes_from_its_state(tmp_path: Path) -> None:
    chain, state = tmp_path / "chain.json", tmp_path / "validator.json"
    miners = []
    try:
        for i in range(2):
            port = _free_port()
            log = (tmp_path / f"miner-{i}.log").open("wb")
            miners.append((port, subprocess.Popen(
                [sys.executable, "-m", "reasonforge.subnet.miner", "--seed", f"//test-miner-{i}", "--port", str(port),
                 "--chain", str(chain), "--stake", "10", "--parent-pid", str(os.getpid())],
                stdout=log, stderr=subprocess.STDOUT, start_new_session=True), log))
            deadline = time.monotonic() + HEALTH_WAIT_S
            while True:
                try:
                    if httpx.get(f"http://127.0.0.1:{port}/health", timeout=1.0, trust_env=False).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                assert time.monotonic() < deadline, (tmp_path / f"miner-{i}.log").read_text()
                time.sleep(0.2)
        common = ["--seed", "//test-validator", "--chain", str(chain), "--state", str(state), "--interval", "0",
                  "--tasks", "2", "--traps", "1", "--domains", "mathematics,logic"]
        first = _validator(*common, "--epochs", "1")
        assert first.returncode == 0, first.stderr[-3000:]
        saved = json.loads(state.read_text())
        assert saved["last_completed_epoch"] == 1 and len(saved["miners"]) == 2 and saved["pending"] is None
        again = _validator(*common, "--epochs", "1")  # a restart continues from the state: epoch 2
        assert again.returncode == 0, again.stderr[-3000:]
        assert json.loads(state.read_text())["last_completed_epoch"] == 2
        assert "epoch 2: 2 miners, 2 tasks (1 traps)" in again.stderr
    finally:
        for _, process, log in miners:
            process.terminate()
            process.wait(timeout=30)
            log.close()


def test_bad_arguments_are_one_line_and_exit_2(tmp_path: Path) -> None:
    missing = _validator("--seed", "//v", "--chain", str(tmp_path / "no" / "chain.json"), "--state",
                         str(tmp_path / "s.json"), timeout=120)
    assert missing.returncode == 2 and "must exist" in missing.stderr and "Traceback" not in missing.stderr
    bad = _validator("--seed", "//v", "--chain", str(tmp_path / "c.json"), "--state", str(tmp_path / "s.json"),
                     "--domains", "biology", timeout=120)
    assert bad.returncode == 2 and "--domains takes a comma list" in bad.stderr
