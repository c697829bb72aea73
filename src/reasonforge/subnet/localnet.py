"""A whole subnet on this machine: one validator in process, N miner processes on loopback, a file-backed chain.

`Localnet` (a context manager) keeps everything in one folder: `chain.json` (the InMemoryChain snapshot all
processes share), `validator-state.json` (the validator's resumable state), `localnet.json` (which miners this
net has, so a rerun reuses the same keys and profiles) and `miner-<i>.log` (each miner's output). It registers
the validator (permit + stake) and the miners (uids in order), starts each miner with
`python -m reasonforge.subnet.miner` on a free loopback port, waits for its /health, and stops every miner on
exit (SIGTERM, then SIGKILL), also after Ctrl-C or an error; a miner also exits by itself when the localnet
process is gone. `run(epochs)` runs epochs until `epochs` are complete in total, so rerunning on the same
folder resumes from the saved state (a pending epoch is finished first) without losing or repeating an epoch.
Between epochs the chain is advanced past the weights rate limit.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from types import TracebackType
from typing import IO, Self

import httpx
from pydantic import BaseModel, ConfigDict

from reasonforge.boundary.files import json_model
from reasonforge.errors import InputError
from reasonforge.incentive import DEFAULT_INCENTIVE, IncentiveSettings
from reasonforge.subnet.chain import Endpoint, InMemoryChain
from reasonforge.subnet.errors import SubnetError
from reasonforge.subnet.keys import Identity
from reasonforge.subnet.miner import MinerProfile
from reasonforge.subnet.state import EpochReport, ValidatorState
from reasonforge.subnet.tasks import TaskSource
from reasonforge.subnet.validator import ProofLayerValidator
from reasonforge.types import CheckLimits, Domain, ProofLevel

__all__ = ["Localnet", "LocalnetError", "LocalnetMiner", "profile_mix"]

NETUID = 1
VALIDATOR_SEED = "//reasonforge-localnet-validator"
VALIDATOR_STAKE = 1000.0
MINER_STAKE = 10.0
WEIGHTS_RATE_LIMIT = 10
HEALTH_TIMEOUT_S = 90.0  # miners import bittensor, FastAPI and the checkers: slow on a busy 2-core machine
STOP_TIMEOUT_S = 5.0


class LocalnetError(SubnetError):
    """The localnet cannot start or continue (a miner died, a folder of another shape, ...)."""

    code = "localnet_error"


class LocalnetMiner(BaseModel):
    """One miner of the localnet: its key seed, profile and uid."""

    model_config = ConfigDict(extra="forbid")

    index: int
    seed: str
    profile: MinerProfile
    uid: int
    hotkey: str


class _Manifest(BaseModel):
    """`localnet.json`: the miners this folder's net was created with."""

    model_config = ConfigDict(extra="forbid")

    seed: int
    miners: list[LocalnetMiner]


def profile_mix(miners: int) -> list[MinerProfile]:
    """Profiles for `miners` miners: one vacuous and one lazy among honest ones (as many as fit, honest first)."""
    if miners < 1:
        raise LocalnetError(f"a localnet needs at least 1 miner, got {miners}")
    honest: list[MinerProfile] = ["honest"]
    if miners == 1:
        return honest
    if miners == 2:
        return [*honest, "vacuous"]
    return [*honest * (miners - 2), "lazy", "vacuous"]


def _free_port() -> int:
    """A loopback port the kernel says is free now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class _Process:
    """A started miner process with its log file."""

    def __init__(self, miner: LocalnetMiner, port: int, popen: subprocess.Popen[bytes], log: IO[bytes],
                 log_path: Path) -> None:
        self.miner = miner
        self.port = port
        self.popen = popen
        self.log = log
        self.log_path = log_path

    def tail(self, lines: int = 15) -> str:
        """The end of the miner's log."""
        try:
            text = self.log_path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return "(no log)"
        return "\n".join(text.splitlines()[-lines:]) or "(empty log)"


class Localnet:
    """One validator (in process) and N miner processes on a file-backed InMemoryChain in `directory`."""

    def __init__(self, directory: Path, *, miners: int = 6, seed: int = 0, tasks_per_epoch: int = 3,
                 traps_per_epoch: int = 1, proof_level: ProofLevel = ProofLevel.QUICK,
                 domains: Sequence[Domain | str] | None = None, timeout_seconds: int = 60,
                 settings: IncentiveSettings = DEFAULT_INCENTIVE, limits: CheckLimits | None = None,
                 log: Callable[[str], None] | None = None) -> None:
        self.directory = Path(directory)
        self.count = miners
        self.seed = seed
        self.tasks = TaskSource(seed, secret=hashlib.sha256(f"{VALIDATOR_SEED}:{seed}".encode()).digest(),
                                tasks_per_epoch=tasks_per_epoch, traps_per_epoch=traps_per_epoch,
                                proof_level=proof_level, domains=domains, timeout_seconds=timeout_seconds)
        self.settings = settings
        self.limits = limits
        self.log = log or (lambda _message: None)
        self.chain_path = self.directory / "chain.json"
        self.state_path = self.directory / "validator-state.json"
        self.manifest_path = self.directory / "localnet.json"
        self.identity = Identity.from_seed(VALIDATOR_SEED)
        self.chain: InMemoryChain | None = None
        self.miners: list[LocalnetMiner] = []
        self._processes: list[_Process] = []

    # ---- lifecycle -------------------------------------------------------------------------------

    def __enter__(self) -> Self:
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.stop()

    @property
    def resuming(self) -> bool:
        """Whether this folder already holds a localnet (its state is continued)."""
        return self.manifest_path.exists()

    def completed_epochs(self) -> int:
        """Epochs completed so far according to the saved validator state."""
        return ValidatorState.load(self.state_path, hotkey=self.identity.hotkey).last_completed_epoch

    def start(self) -> None:
        """Register the validator and the miners, start the miner processes and wait until they answer."""
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise LocalnetError(f"cannot use {self.directory} as the localnet folder: {exc.strerror or exc}; "
                                "give --dir a new or earlier localnet directory") from None
        self.chain = InMemoryChain(NETUID, weights_rate_limit=WEIGHTS_RATE_LIMIT, path=self.chain_path)
        self.chain.register(self.identity.hotkey, VALIDATOR_STAKE, validator_permit=True)
        self.miners = self._load_or_create_miners(self.chain)
        for miner in self.miners:
            port = _free_port()
            self.chain.register(miner.hotkey, MINER_STAKE, endpoint=Endpoint(host="127.0.0.1", port=port))
            self._processes.append(self._spawn(miner, port))
        self.log(f"started {len(self._processes)} miners; waiting for them to answer /health")
        for process in self._processes:
            self._wait_healthy(process)

    def _load_or_create_miners(self, chain: InMemoryChain) -> list[LocalnetMiner]:
        if self.manifest_path.exists():
            try:
                manifest = json_model(self.manifest_path, _Manifest, what="localnet manifest", field="dir")
            except InputError as exc:
                raise LocalnetError(f"{self.manifest_path} is unreadable ({exc.message}); use another --dir") from None
            if len(manifest.miners) != self.count:
                raise LocalnetError(f"{self.directory} holds a localnet of {len(manifest.miners)} miners; rerun with "
                                    f"--miners {len(manifest.miners)} to resume it, or use another --dir")
            return manifest.miners
        miners = []
        for index, profile in enumerate(profile_mix(self.count)):
            seed = f"//reasonforge-localnet-miner-{index}"
            hotkey = Identity.from_seed(seed).hotkey
            uid = chain.register(hotkey, MINER_STAKE)
            miners.append(LocalnetMiner(index=index, seed=seed, profile=profile, uid=uid, hotkey=hotkey))
        manifest = _Manifest(seed=self.seed, miners=miners)
        self.manifest_path.write_text(manifest.model_dump_json(indent=1) + "\n", encoding="utf-8")
        return miners

    def _spawn(self, miner: LocalnetMiner, port: int) -> _Process:
        log_path = self.directory / f"miner-{miner.index}.log"
        log = open(log_path, "ab")  # noqa: SIM115 - closed in stop()
        argv = [sys.executable, "-m", "reasonforge.subnet.miner", "--seed", miner.seed, "--host", "127.0.0.1",
                "--port", str(port), "--chain", str(self.chain_path), "--stake", str(MINER_STAKE),
                "--netuid", str(NETUID), "--profile", miner.profile, "--parent-pid", str(os.getpid())]
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        # Own session: a Ctrl-C in the terminal reaches only the localnet, which then stops the miners in order.
        popen = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, env=env,
                                 start_new_session=True)
        return _Process(miner, port, popen, log, log_path)

    def _wait_healthy(self, process: _Process) -> None:
        url = f"http://127.0.0.1:{process.port}/health"
        deadline = time.monotonic() + HEALTH_TIMEOUT_S
        while time.monotonic() < deadline:
            if process.popen.poll() is not None:
                raise LocalnetError(f"miner {process.miner.index} (uid {process.miner.uid}) exited with code "
                                    f"{process.popen.returncode} before answering; its log "
                                    f"{process.log_path} ends with:\n{process.tail()}")
            with contextlib.suppress(httpx.HTTPError):
                answer = httpx.get(url, timeout=1.0, trust_env=False)
                if answer.status_code == 200 and answer.json().get("hotkey") == process.miner.hotkey:
                    return
            time.sleep(0.1)
        raise LocalnetError(f"miner {process.miner.index} did not answer {url} within {HEALTH_TIMEOUT_S:g} s; its log "
                            f"{process.log_path} ends with:\n{process.tail()}")

    def stop(self) -> None:
        """Stop every miner process (SIGTERM, then SIGKILL after a grace period) and close the logs."""
        for process in self._processes:
            if process.popen.poll() is None:
                process.popen.terminate()
        deadline = time.monotonic() + STOP_TIMEOUT_S
        for process in self._processes:
            try:
                process.popen.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                process.popen.kill()
                process.popen.wait()
            process.log.close()
        self._processes = []

    @property
    def pids(self) -> list[int]:
        """Process ids of the running miners."""
        return [p.popen.pid for p in self._processes]

    def profile_of(self, uid: int) -> str:
        """The profile of the miner at `uid` ('?' when not one of this net's miners)."""
        return next((m.profile for m in self.miners if m.uid == uid), "?")

    # ---- epochs ----------------------------------------------------------------------------------

    async def run(self, epochs: int, on_report: Callable[[EpochReport], None] | None = None) -> list[EpochReport]:
        """Run epochs until `epochs` are complete in total (resuming a saved state); the reports of this run."""
        if self.chain is None:
            raise LocalnetError("the localnet is not started; use it as `with Localnet(...) as net:`")
        chain = self.chain
        async with ProofLayerValidator(self.identity, chain, self.tasks, self.state_path, self.settings,
                                       limits=self.limits) as validator:
            remaining = max(0, epochs - validator.state.last_completed_epoch)
            if validator.state.pending is not None and remaining == 0:
                remaining = 1  # a scored epoch whose weights never reached the chain is always finished

            def advance(_epoch: int) -> None:
                chain.advance(WEIGHTS_RATE_LIMIT + 1)  # past the rate limit since the last weights

            for process in self._processes:
                if process.popen.poll() is not None:
                    raise LocalnetError(f"miner {process.miner.index} exited (code {process.popen.returncode}); "
                                        f"its log {process.log_path} ends with:\n{process.tail()}")
            return await validator.run(remaining, before_epoch=advance, on_report=on_report)
