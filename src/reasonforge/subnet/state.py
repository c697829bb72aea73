"""Validator state that survives restarts: completed epochs, streaks, score history, weights, a pending epoch.

The epoch protocol (see `validator.py`) writes the scored epoch as `pending` BEFORE calling set_weights, and
clears it after. A validator that crashes in between finds the pending epoch on restart and finishes it
(sets its weights, notifies the miners) instead of scoring a new one, so no epoch's scores are lost or
counted twice. Files are written atomically (temporary file, fsync, os.replace, fsync of the folder); a file
that cannot be read is an error, never a silent reset to epoch 1.
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from reasonforge.atomic_file import write_atomic
from reasonforge.boundary.files import DOCUMENT_JSON, read_limited
from reasonforge.boundary.jsontext import load_json
from reasonforge.errors import InputError
from reasonforge.subnet.chain import SetWeightsResult
from reasonforge.subnet.errors import SubnetError
from reasonforge.subnet.protocol import VerificationResult

__all__ = ["HISTORY_EPOCHS", "STATE_VERSION", "EpochEntry", "EpochReport", "MinerEpoch", "MinerRecord",
           "PendingEpoch", "StateFileError", "ValidatorState"]

STATE_VERSION = 1
MAX_STATE_BYTES = 64 * 1024 * 1024  # streaks and scores of every miner of a subnet: well under a megabyte in practice
HISTORY_EPOCHS = 256
"""Epochs of score history kept per miner (older ones are dropped so the file stays small)."""


class StateFileError(SubnetError):
    """The validator state file cannot be used (unreadable, corrupt, another validator's, newer version)."""

    code = "state_file_error"


class MinerEpoch(BaseModel):
    """One miner's epoch: per-task CTS, epoch score, trap results, rank, streak, PEB and weight."""

    model_config = ConfigDict(extra="forbid")

    uid: int
    hotkey: str
    tasks: int = Field(ge=0, description="Tasks dispatched to this miner.")
    answered: int = Field(ge=0, description="Tasks answered with a valid, hash-consistent submission.")
    cts: list[float] = Field(default_factory=list, description="CTS per dispatched task, in task order.")
    cts_mean: float = 0.0
    epoch_score: float = 0.0
    trap_scores: list[float] = Field(default_factory=list)
    trap_score: float | None = Field(default=None, description="Mean trap score; None when no trap was dispatched.")
    trap_penalty: float = 1.0
    rank: int | None = None
    streak: int = 0
    peb: float = 0.0
    weight: float = 0.0
    steps_compiled: int = 0
    steps_held: int = Field(default=0, description="Translated steps whose verdict held (what the CTS counts).")
    steps_total: int = 0
    tao_earned: float = 0.0


class EpochReport(BaseModel):
    """What an epoch produced: weights, every miner's figures, the set_weights outcome."""

    model_config = ConfigDict(extra="forbid")

    epoch: int = Field(ge=1)
    weights: dict[int, float] = Field(default_factory=dict, description="uid -> normalised weight.")
    miners: dict[int, MinerEpoch] = Field(default_factory=dict)
    tasks: int = 0
    traps: int = 0
    set_weights: SetWeightsResult | None = None
    notified: int = Field(default=0, description="Miners that acknowledged their VerificationResult.")
    resumed: bool = Field(default=False, description="Finished after a restart from the saved pending epoch.")
    elapsed_s: float = 0.0

    @property
    def cts(self) -> dict[int, float]:
        """uid -> mean CTS this epoch."""
        return {uid: m.cts_mean for uid, m in self.miners.items()}


class EpochEntry(BaseModel):
    """One epoch of one miner's history."""

    model_config = ConfigDict(extra="forbid")

    cts: list[float] = Field(default_factory=list)
    epoch_score: float = 0.0
    trap_scores: list[float] = Field(default_factory=list)
    rank: int | None = None
    weight: float = 0.0


class MinerRecord(BaseModel):
    """A miner as the validator remembers it (reset when another hotkey takes over its uid)."""

    model_config = ConfigDict(extra="forbid")

    hotkey: str
    streak: int = Field(default=0, ge=0)
    history: dict[int, EpochEntry] = Field(default_factory=dict, description="epoch -> entry, newest kept.")


class PendingEpoch(BaseModel):
    """An epoch scored and saved whose weights are not on chain yet, with the notices to send after."""

    model_config = ConfigDict(extra="forbid")

    report: EpochReport
    results: list[VerificationResult] = Field(default_factory=list)


class ValidatorState(BaseModel):
    """Everything a validator persists between epochs and across restarts."""

    model_config = ConfigDict(extra="forbid")

    version: int = STATE_VERSION
    hotkey: str = Field(default="", description="The validator hotkey this state belongs to.")
    last_completed_epoch: int = Field(default=0, ge=0)
    miners: dict[int, MinerRecord] = Field(default_factory=dict)
    last_weights: dict[int, float] = Field(default_factory=dict)
    pending: PendingEpoch | None = None

    @property
    def next_epoch(self) -> int:
        """The epoch to run next: the pending one, else the one after the last completed."""
        return self.pending.report.epoch if self.pending is not None else self.last_completed_epoch + 1

    def streak(self, uid: int, hotkey: str) -> int:
        """`uid`'s streak, 0 when unknown or when another hotkey now holds the uid."""
        record = self.miners.get(uid)
        return record.streak if record is not None and record.hotkey == hotkey else 0

    def complete(self, report: EpochReport) -> None:
        """Fold a finished epoch in: streaks, history, last weights, the epoch counter; clear `pending`."""
        for uid, miner in report.miners.items():
            record = self.miners.get(uid)
            if record is None or record.hotkey != miner.hotkey:
                record = self.miners[uid] = MinerRecord(hotkey=miner.hotkey)
            record.streak = miner.streak
            record.history[report.epoch] = EpochEntry(cts=miner.cts, epoch_score=miner.epoch_score,
                                                      trap_scores=miner.trap_scores, rank=miner.rank,
                                                      weight=miner.weight)
            for old in sorted(record.history)[:-HISTORY_EPOCHS]:
                del record.history[old]
        self.last_weights = dict(report.weights)
        self.last_completed_epoch = max(self.last_completed_epoch, report.epoch)
        self.pending = None

    def save(self, path: Path) -> None:
        """Write atomically: temporary file in the same folder, fsync, os.replace, fsync of the folder."""
        path = Path(path)
        payload = json.dumps(self.model_dump(mode="json"), indent=1, sort_keys=True).encode("utf-8")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(path, payload)
        except OSError as exc:
            raise StateFileError(f"cannot write validator state {path}: {exc.strerror or exc}; check the folder "
                                 "exists and is writable") from None

    @classmethod
    def load(cls, path: Path, *, hotkey: str | None = None) -> ValidatorState:
        """The saved state, or a fresh one when `path` does not exist; a damaged file raises StateFileError.

        With `hotkey`, a state saved by another validator hotkey is refused (its streaks and pending weights
        are that validator's)."""
        path = Path(path)
        keep = ("it was not reset; restore it from a backup, or move it aside to start again from epoch 1 "
                "(the miners' streaks and any pending epoch would be lost)")
        if not path.exists():
            return cls(hotkey=hotkey or "")
        try:
            raw = load_json(read_limited(path, what="validator state", field="state", max_bytes=MAX_STATE_BYTES),
                            what="the file", limits=DOCUMENT_JSON)
        except InputError as exc:
            raise StateFileError(f"validator state {path} is corrupt ({exc}); {keep}") from None
        if isinstance(raw, dict) and isinstance(raw.get("version"), int) and raw["version"] > STATE_VERSION:
            raise StateFileError(f"validator state {path} has version {raw['version']}, newer than this "
                                 f"reasonforge understands ({STATE_VERSION}); upgrade reasonforge")
        try:
            state = cls.model_validate(raw)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "top level"
            raise StateFileError(f"validator state {path} is corrupt (at {where}: {first['msg']}); {keep}") from None
        if hotkey and state.hotkey and state.hotkey != hotkey:
            raise StateFileError(f"validator state {path} belongs to hotkey {state.hotkey}, not {hotkey}; "
                                 "use that validator's hotkey or another state file")
        if hotkey and not state.hotkey:
            state.hotkey = hotkey
        return state
