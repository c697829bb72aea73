"""`reasonforge subnet localnet|simulate`: JSON lines per epoch, the simulation report, usage errors as exit 2."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from reasonforge.cli import app

runner = CliRunner()


def _miner_processes(chain_path: Path, timeout_s: float = 5.0) -> list[int]:
    """Processes still running with `chain_path` on their command line (miners), after up to `timeout_s`."""
    deadline = time.monotonic() + timeout_s
    while True:
        found = []
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit() and int(entry.name) != os.getpid():
                try:
                    if str(chain_path).encode() in (entry / "cmdline").read_bytes():
                        found.append(int(entry.name))
                except OSError:
                    continue
        if not found or time.monotonic() > deadline:
            return found
        time.sleep(0.2)


@pytest.mark.slow
def test_localnet_json_queries_every_miner_and_sets_weights_every_epoch(tmp_path: Path) -> None:
    folder = tmp_path / "net"
    result = runner.invoke(app, ["subnet", "localnet", "--miners", "3", "--epochs", "2", "--json", "--dir", str(folder),
                                 "--domains", "logic,mathematics"])  # the committed traps hold no logic one
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    assert [line["epoch"] for line in lines] == [1, 2]
    manifest = json.loads((folder / "localnet.json").read_text(encoding="utf-8"))
    uids = sorted(str(m["uid"]) for m in manifest["miners"])
    for line in lines:
        assert sorted(line["weights"]) == uids and sorted(line["cts"]) == uids
        assert line["queried"] == dict.fromkeys(uids, line["tasks"])  # every miner got every task
        assert line["answered"] == dict.fromkeys(uids, line["tasks"])
        assert line["set_weights"]["success"], line["set_weights"]
        assert sum(line["weights"].values()) == pytest.approx(1.0)
        assert sorted(line["profile"].values()) == ["honest", "lazy", "vacuous"]
        by_profile = {line["profile"][uid]: uid for uid in uids}
        assert line["weights"][by_profile["honest"]] > line["weights"][by_profile["vacuous"]]
        assert line["notified"] == 3
    assert _miner_processes(folder / "chain.json") == []


def test_simulate_json_reports_every_profile_and_plots(tmp_path: Path) -> None:
    plot = tmp_path / "rewards.png"
    result = runner.invoke(app, ["subnet", "simulate", "--epochs", "30", "--seed", "1", "--json", "--plot", str(plot)])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    profiles = report["profiles"]
    assert set(profiles) == {"elite", "honest", "lazy", "copycat", "vacuous", "timeout_gamer", "sybil"}
    assert all(isinstance(p["total_reward"], float) for p in profiles.values())
    assert profiles["elite"]["total_reward"] > profiles["vacuous"]["total_reward"]
    assert report["epochs"] == 30 and report["seed"] == 1
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_simulate_table_names_the_profiles() -> None:
    result = runner.invoke(app, ["subnet", "simulate", "--epochs", "5"], env={"COLUMNS": "160"})
    assert result.exit_code == 0, result.output
    for name in ("elite", "honest", "vacuous", "trap accuracy"):
        assert name in result.stdout


@pytest.mark.parametrize(("args", "message"), [
    (["localnet", "--tasks", "2", "--traps", "3"], "--traps (3) cannot exceed --tasks (2)"),
    (["localnet", "--resume"], "--resume needs a --dir"),
    (["localnet", "--domains", "poetry"], "unknown domain(s) poetry"),
    (["simulate", "--epochs", "0"], "--epochs: must be at least 1, not 0"),
])
def test_usage_errors_exit_2_with_a_message(args: list[str], message: str) -> None:
    result = runner.invoke(app, ["subnet", *args])
    assert result.exit_code == 2
    assert message in result.output


def test_localnet_folder_that_cannot_be_made_is_an_input_error(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    result = runner.invoke(app, ["subnet", "localnet", "--miners", "1", "--epochs", "1", "--dir", str(blocker / "net")])
    assert result.exit_code == 2, result.output
    assert "cannot use" in result.output and "localnet folder" in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
