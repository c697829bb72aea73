"""Validator state: atomic save, exact round trip, a pending epoch survives, damaged files are never reset."""

from __future__ import annotations

from pathlib import Path

import pytest

from reasonforge.subnet.chain import SetWeightsResult
from reasonforge.subnet.protocol import VerificationResult
from reasonforge.subnet.state import (
    HISTORY_EPOCHS,
    EpochReport,
    MinerEpoch,
    PendingEpoch,
    StateFileError,
    ValidatorState,
)

VALIDATOR = "5validator"


def _report(epoch: int, streak: int = 1) -> EpochReport:
    miners = {
        1: MinerEpoch(uid=1, hotkey="5honest", tasks=3, answered=3, cts=[0.91, 0.9, 0.88], cts_mean=0.8967,
                      epoch_score=1.21, trap_scores=[1.0], trap_score=1.0, rank=1, streak=streak, peb=0.2,
                      weight=0.7, steps_compiled=9, steps_total=9, tao_earned=0.287),
        2: MinerEpoch(uid=2, hotkey="5vacuous", tasks=3, answered=3, cts=[0.76, 0.7, 0.61], cts_mean=0.69,
                      epoch_score=0.5, trap_scores=[0.0], trap_score=0.0, trap_penalty=0.0, rank=2, streak=streak,
                      weight=0.3, steps_compiled=9, steps_total=9, tao_earned=0.123),
    }
    return EpochReport(epoch=epoch, weights={1: 0.7, 2: 0.3}, miners=miners, tasks=3, traps=1, elapsed_s=1.5)


def _pending(epoch: int) -> PendingEpoch:
    result = VerificationResult(epoch_id=epoch, miner_uid=1, tasks_translated=3, steps_compiled=9, steps_total=9,
                                compilation_rate=1.0, epoch_score=1.21, rank=1, tao_earned=0.287)
    return PendingEpoch(report=_report(epoch), results=[result])


def test_missing_file_is_a_fresh_state_for_this_hotkey(tmp_path: Path) -> None:
    state = ValidatorState.load(tmp_path / "state.json", hotkey=VALIDATOR)
    assert state.last_completed_epoch == 0 and state.pending is None and state.next_epoch == 1
    assert state.hotkey == VALIDATOR


def test_round_trip_keeps_pending_epoch_history_and_weights(tmp_path: Path) -> None:
    path = tmp_path / "nested" / "state.json"
    state = ValidatorState(hotkey=VALIDATOR)
    state.complete(_report(1))
    state.pending = _pending(2)
    state.save(path)
    loaded = ValidatorState.load(path, hotkey=VALIDATOR)
    assert loaded == state
    assert loaded.next_epoch == 2 and loaded.pending is not None
    assert loaded.pending.report.miners[1].cts == [0.91, 0.9, 0.88]
    assert loaded.pending.results[0].epoch_id == 2
    assert loaded.miners[2].history[1].trap_scores == [0.0]
    assert loaded.last_weights == {1: 0.7, 2: 0.3}
    assert sorted(p.name for p in path.parent.iterdir()) == ["state.json"]  # no temporary file left behind


def test_complete_folds_the_epoch_in_and_clears_pending(tmp_path: Path) -> None:
    state = ValidatorState(hotkey=VALIDATOR)
    state.pending = _pending(1)
    report = _pending(1).report.model_copy(update={"set_weights": SetWeightsResult(success=True, message="ok",
                                                                                   block=11)})
    state.complete(report)
    assert state.pending is None and state.last_completed_epoch == 1 and state.next_epoch == 2
    assert state.streak(1, "5honest") == 1
    assert state.streak(1, "5someone-else") == 0  # a new hotkey on the uid starts from nothing
    state.complete(_report(2, streak=2).model_copy(update={"miners": {
        1: _report(2).miners[1].model_copy(update={"hotkey": "5newcomer", "streak": 1})}}))
    assert state.miners[1].hotkey == "5newcomer" and list(state.miners[1].history) == [2]


def test_history_is_capped(tmp_path: Path) -> None:
    state = ValidatorState()
    for epoch in range(1, HISTORY_EPOCHS + 6):
        state.complete(_report(epoch))
    assert len(state.miners[1].history) == HISTORY_EPOCHS
    assert min(state.miners[1].history) == 6


@pytest.mark.parametrize("content", [b"", b"{not json", b'{"last_completed_epoch": "three"}', b"\xff\xfe",
                                     b'{"pending": {"report": {"epoch": 0}}}',
                                     pytest.param(b'{"miners": ' * 50_000, id="deep"),
                                     b'{"last_completed_epoch": 3, "last_completed_epoch": 4}'])
def test_damaged_file_is_an_error_and_is_left_untouched(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "state.json"
    path.write_bytes(content)
    with pytest.raises(StateFileError, match=r"state\.json is corrupt.*not reset"):
        ValidatorState.load(path)
    assert path.read_bytes() == content


def test_state_of_another_validator_or_newer_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    ValidatorState(hotkey="5other").save(path)
    with pytest.raises(StateFileError, match="belongs to hotkey 5other"):
        ValidatorState.load(path, hotkey=VALIDATOR)
    path.write_text('{"version": 99}', encoding="utf-8")
    with pytest.raises(StateFileError, match="newer than this"):
        ValidatorState.load(path)


def test_unwritable_folder_is_a_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x", encoding="utf-8")
    with pytest.raises(StateFileError, match="cannot write validator state"):
        ValidatorState().save(blocker / "state.json")
