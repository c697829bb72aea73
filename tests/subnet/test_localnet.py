"""The localnet: miner processes on loopback, a restart that resumes from the saved state, and no orphans."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from reasonforge.subnet.localnet import Localnet, LocalnetError, profile_mix
from reasonforge.subnet.state import ValidatorState


def _processes_mentioning(text: str) -> list[int]:
    """Live processes (other than this one) whose command line mentions `text`."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
        except OSError:
            continue
        if text in cmdline:
            found.append(int(entry.name))
    return found


def _wait_gone(text: str, timeout_s: float = 15.0) -> list[int]:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        left = _processes_mentioning(text)
        if not left:
            return []
        time.sleep(0.2)
    return _processes_mentioning(text)


def test_profile_mix_puts_one_lazy_and_one_vacuous_among_honest_miners() -> None:
    assert profile_mix(6) == ["honest"] * 4 + ["lazy", "vacuous"]
    assert profile_mix(3) == ["honest", "lazy", "vacuous"]
    assert profile_mix(2) == ["honest", "vacuous"] and profile_mix(1) == ["honest"]
    with pytest.raises(LocalnetError, match="at least 1 miner"):
        profile_mix(0)


def test_folder_of_another_shape_is_refused_before_any_miner_starts(tmp_path: Path) -> None:
    manifest = {"seed": 0, "miners": [{"index": 0, "seed": "//m", "profile": "honest", "uid": 1, "hotkey": "5x"}]}
    (tmp_path / "localnet.json").write_text(json.dumps(manifest), encoding="utf-8")
    net = Localnet(tmp_path, miners=3, domains=["logic", "mathematics"])  # no logic trap is committed
    with pytest.raises(LocalnetError, match="holds a localnet of 1 miners; rerun with --miners 1"), net:
        pass
    assert net.pids == []


def test_damaged_manifest_is_refused_before_any_miner_starts(tmp_path: Path) -> None:
    manifest = {"seed": 0, "miners": [{"index": 0, "seed": "//m", "profile": "honest", "uid": 1, "hotkey": "5x"}]}
    repeated = json.dumps(manifest)[:-1] + ', "seed": 1}'  # which seed? neither: the file is refused
    for damaged in ("[" * 100_000, repeated, '{"seed": 0}'):
        (tmp_path / "localnet.json").write_text(damaged, encoding="utf-8")
        net = Localnet(tmp_path, miners=1, domains=["logic", "mathematics"])
        with pytest.raises(LocalnetError, match="localnet.json is unreadable .*use another --dir"), net:
            pass
        assert net.pids == []


@pytest.mark.slow
def test_killed_localnet_leaves_no_orphans_and_a_rerun_resumes_without_losing_an_epoch(tmp_path: Path) -> None:
    folder = tmp_path / "net"
    argv = [sys.executable, "-m", "reasonforge.cli", "subnet", "localnet", "--miners", "2", "--epochs", "3",
            "--json", "--dir", str(folder), "--domains", "logic,mathematics", "--tasks", "2"]
    # (mathematics too: the committed traps hold no logic trap, and each epoch draws one)
    miners = str(folder / "chain.json")  # on every miner's command line (--chain), not on the localnet's
    first = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = first.stdout.readline()  # epoch 1 is complete once its line is printed
        assert json.loads(line)["epoch"] == 1, first.stderr.read()
        assert len(_processes_mentioning(miners)) == 2  # the two miners are running
        first.send_signal(signal.SIGKILL)  # no cleanup code runs: the miners must notice on their own
        first.wait(10)
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()
    assert _wait_gone(miners) == [], "miner processes outlived the killed localnet"
    saved = ValidatorState.load(folder / "validator-state.json")
    completed = saved.last_completed_epoch
    assert completed >= 1
    epoch_one = {uid: record.history[1] for uid, record in saved.miners.items()}

    second = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
    assert second.returncode == 0, second.stderr
    assert "resuming the localnet" in second.stderr
    lines = [json.loads(line) for line in second.stdout.splitlines()]
    # Whatever epoch the kill interrupted is finished (a pending one is not rescored), then the rest run.
    pending = saved.pending.report.epoch if saved.pending is not None else None
    expected = list(range(completed + 1, 4))
    assert [line["epoch"] for line in lines] == expected
    for line in lines:
        assert line["set_weights"]["success"]
        assert line["resumed"] == (line["epoch"] == pending)
    final = ValidatorState.load(folder / "validator-state.json")
    assert final.last_completed_epoch == 3 and final.pending is None
    for uid, entry in epoch_one.items():  # epoch 1's scores survived the kill and the restart unchanged
        assert final.miners[uid].history[1] == entry
        assert sorted(final.miners[uid].history) == [1, 2, 3]
    assert _wait_gone(miners) == []


@pytest.mark.slow
def test_five_epochs_pay_the_vacuous_miner_nothing_and_equal_work_equal_weight(tmp_path: Path) -> None:
    # honest, honest, lazy, vacuous: the honest miners run one deterministic rule translator, so their CTS
    # differ only by answer-time noise; the vacuous miner's artifacts compile and prove nothing.
    with Localnet(tmp_path / "net", miners=4) as net:
        reports = asyncio.run(net.run(5))
        profile = {m.uid: m.profile for m in net.miners}
    assert [r.epoch for r in reports] == [1, 2, 3, 4, 5]
    vacuous = next(uid for uid, p in profile.items() if p == "vacuous")
    lazy = next(uid for uid, p in profile.items() if p == "lazy")
    honest = sorted(uid for uid, p in profile.items() if p == "honest")
    for report in reports:
        assert report.weights[vacuous] == 0.0 and report.miners[vacuous].cts_mean == 0.0, report.epoch
        assert report.weights[lazy] > 0.0 and sum(report.weights.values()) == pytest.approx(1.0)
        close = [(a, b) for a in honest for b in honest if a < b
                 and abs(report.miners[a].cts_mean - report.miners[b].cts_mean) < 0.001]
        assert close, report.epoch  # the same work, so the same CTS up to timing
        for a, b in close:
            wa, wb = report.weights[a], report.weights[b]
            assert abs(wa - wb) <= 0.01 * max(wa, wb), (report.epoch, wa, wb)
            assert report.miners[a].rank == report.miners[b].rank
