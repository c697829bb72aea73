"""A long command says what it is doing on a terminal, and nothing on a pipe."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "six-step-chain.json"


def _stderr_of(argv: list[str], *, terminal: bool) -> str:
    env = dict(os.environ, TERM="xterm-256color", COLUMNS="120")
    env.pop("REASONFORGE_NO_PROGRESS", None)
    if not terminal:
        return subprocess.run(argv, capture_output=True, text=True, timeout=300, env=env).stderr
    leader, follower = pty.openpty()
    try:
        proc = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=follower, timeout=300, env=env)
        os.close(follower)
        follower = -1
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the terminal closed: everything was read
                break
            if not chunk:
                break
            chunks.append(chunk)
        assert proc.returncode in (0, 1, 3)
        return b"".join(chunks).decode("utf-8", "replace")
    finally:
        os.close(leader)
        if follower >= 0:
            os.close(follower)


def test_verify_shows_which_step_it_checks_on_a_terminal_only() -> None:
    argv = [sys.executable, "-m", "reasonforge.cli", "verify", str(EXAMPLE)]
    shown = _stderr_of(argv, terminal=True)
    assert "verifying 6 step(s), logic at standard level" in shown and "checking step" in shown, shown[-500:]
    assert _stderr_of(argv, terminal=False) == ""
