"""The chain as validators and miners see it: a metagraph to read, weights to set.

`Chain` is the protocol; `BittensorChain` talks to a real subtensor through the bittensor SDK and
`InMemoryChain` is a local stand-in with the same rules (registration, validator permits, weights
rate limit, the SDK's own max-upscaled u16 weight quantisation), optionally persisted to a JSON
file so several processes (a validator, its miners, a restarted validator) share one chain.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import math
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Protocol, TypeVar

from bittensor.intents import normalize
from bittensor.intents.weights import clip_to_max_weight
from bittensor.result import BittensorError
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from reasonforge.atomic_file import write_atomic
from reasonforge.boundary.files import json_model
from reasonforge.errors import InputError
from reasonforge.subnet.errors import ChainStateError, ChainUnavailable
from reasonforge.subnet.keys import Identity

_T = TypeVar("_T")
SNAPSHOT_VERSION = 1


class Endpoint(BaseModel):
    """Where a neuron serves HTTP."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    host: str = Field(min_length=1, max_length=253)
    port: int = Field(ge=1, le=65535)

    def url(self) -> str:
        """Base URL, e.g. http://127.0.0.1:8091 (IPv6 hosts in brackets)."""
        host = f"[{self.host}]" if ":" in self.host and not self.host.startswith("[") else self.host
        return f"http://{host}:{self.port}"


class Neuron(BaseModel):
    """One registered hotkey: its uid, stake, permit and served endpoint."""

    uid: int
    hotkey: str
    stake: float
    validator_permit: bool
    endpoint: Endpoint | None = None


class Metagraph(BaseModel):
    """A subnet's neurons at one block, ordered by uid."""

    netuid: int
    block: int
    neurons: list[Neuron]

    def by_uid(self, uid: int) -> Neuron | None:
        """The neuron at `uid`, or None."""
        return next((n for n in self.neurons if n.uid == uid), None)

    def by_hotkey(self, hotkey: str) -> Neuron | None:
        """The neuron registered under `hotkey`, or None."""
        return next((n for n in self.neurons if n.hotkey == hotkey), None)

    @property
    def uids(self) -> list[int]:
        """Every uid, ascending."""
        return [n.uid for n in self.neurons]


class SetWeightsResult(BaseModel):
    """Outcome of a set_weights call; refusals are `success=False` with the reason, never exceptions."""

    success: bool
    message: str
    block: int


class Chain(Protocol):
    """What the subnet layer needs from a chain."""

    def metagraph(self) -> Metagraph:
        """The current metagraph of this chain's subnet."""
        ...

    def set_weights(self, identity: Identity, uids: Sequence[int], weights: Sequence[float]) -> SetWeightsResult:
        """Set `identity`'s weights on the subnet (relative values; the chain normalises them)."""
        ...


# ---------------------------------------------------------------------------------------------
# in-memory chain


class _NeuronState(BaseModel):
    """A neuron as the in-memory chain stores it, with its weight row and last weight block."""

    model_config = ConfigDict(extra="forbid")

    uid: int
    hotkey: str
    stake: float
    validator_permit: bool
    endpoint: Endpoint | None = None
    last_update: int | None = None
    weights: dict[int, int] = Field(default_factory=dict, description="uid -> u16 value, as the SDK emits them")


class _ChainState(BaseModel):
    """Everything InMemoryChain persists."""

    model_config = ConfigDict(extra="forbid")

    version: int = SNAPSHOT_VERSION
    netuid: int
    advanced: int = Field(default=0, description="Blocks added by advance().")
    genesis_unix: float = Field(description="Wall-clock start, for chains whose blocks also follow the clock.")
    neurons: list[_NeuronState] = Field(default_factory=list)


class InMemoryChain:
    """A local chain with bittensor's rules: register, serve, metagraph, rate-limited set_weights.

    Blocks: the block number is the sum of explicit `advance(blocks)` calls plus, when `block_time_s`
    is set, one block per `block_time_s` seconds since the chain was created (bittensor's 12 s in
    real time; localnets pass something small or advance explicitly after each epoch).

    Persistence: with `path`, the chain state (neurons, weights, blocks) lives in that JSON file and
    every operation is a read-modify-write under an exclusive `fcntl` lock on `<path>.lock`, written
    atomically (temporary file + os.replace), so miner processes registering endpoints and a
    (restarted) validator setting weights all see one chain. Hyperparameters (`weights_rate_limit`,
    `max_weight_limit`, `block_time_s`) are this process's configuration and are not persisted.
    """

    def __init__(
        self,
        netuid: int = 1,
        *,
        weights_rate_limit: int = 100,
        path: Path | None = None,
        block_time_s: float | None = None,
        max_weight_limit: float = 1.0,
    ) -> None:
        if weights_rate_limit < 0:
            raise ChainStateError(f"weights_rate_limit must be >= 0 blocks, got {weights_rate_limit}")
        if block_time_s is not None and not block_time_s > 0:
            raise ChainStateError(f"block_time_s must be > 0 seconds (or None to advance by hand), got {block_time_s}")
        if not 0 < max_weight_limit <= 1:
            raise ChainStateError(f"max_weight_limit is a share of the total in (0, 1], got {max_weight_limit}")
        self.netuid = netuid
        self.weights_rate_limit = weights_rate_limit
        self.block_time_s = block_time_s
        self.max_weight_limit = max_weight_limit
        self.path = Path(path) if path is not None else None
        self._lock = threading.Lock()
        self._state = _ChainState(netuid=netuid, genesis_unix=time.time())
        self._transact(lambda state: None, write=True)  # create or check the snapshot now

    # -- chain operations ------------------------------------------------------------------

    def register(
        self, hotkey: str, stake: float, validator_permit: bool = False, endpoint: Endpoint | None = None
    ) -> int:
        """Register `hotkey` and return its uid; registering it again updates stake, permit and endpoint."""
        if not hotkey:
            raise ChainStateError("cannot register an empty hotkey")
        if not (math.isfinite(stake) and stake >= 0):
            raise ChainStateError(f"stake must be a finite number >= 0, got {stake!r}")

        def apply(state: _ChainState) -> int:
            for neuron in state.neurons:
                if neuron.hotkey == hotkey:
                    neuron.stake, neuron.validator_permit = float(stake), validator_permit
                    neuron.endpoint = endpoint if endpoint is not None else neuron.endpoint
                    return neuron.uid
            uid = len(state.neurons)
            state.neurons.append(
                _NeuronState(
                    uid=uid, hotkey=hotkey, stake=float(stake), validator_permit=validator_permit, endpoint=endpoint
                )
            )
            return uid

        return self._transact(apply, write=True)

    def serve(self, hotkey: str | Identity, endpoint: Endpoint) -> None:
        """Publish the endpoint a registered hotkey serves on (bittensor's serve_axon)."""
        address = hotkey.hotkey if isinstance(hotkey, Identity) else hotkey

        def apply(state: _ChainState) -> None:
            self._neuron(state, address).endpoint = endpoint

        self._transact(apply, write=True)

    def advance(self, blocks: int = 1) -> int:
        """Move the chain forward by `blocks` and return the new block number."""
        if blocks < 0:
            raise ChainStateError(f"cannot advance by a negative number of blocks ({blocks})")

        def apply(state: _ChainState) -> int:
            state.advanced += blocks
            return self._block(state)

        return self._transact(apply, write=True)

    @property
    def block(self) -> int:
        """The current block number."""
        return self._transact(self._block, write=False)

    def metagraph(self) -> Metagraph:
        """Every registered neuron at the current block."""

        def read(state: _ChainState) -> Metagraph:
            neurons = [
                Neuron(
                    uid=n.uid, hotkey=n.hotkey, stake=n.stake, validator_permit=n.validator_permit, endpoint=n.endpoint
                )
                for n in state.neurons
            ]
            return Metagraph(netuid=state.netuid, block=self._block(state), neurons=neurons)

        return self._transact(read, write=False)

    def set_weights(self, identity: Identity, uids: Sequence[int], weights: Sequence[float]) -> SetWeightsResult:
        """Store `identity`'s weights as the chain would: checked, clipped, max-upscaled to u16, rate-limited."""

        def apply(state: _ChainState) -> SetWeightsResult:
            block = self._block(state)
            refusal = self._refusal(state, identity.hotkey, list(uids), list(weights), block)
            if isinstance(refusal, str):
                return SetWeightsResult(success=False, message=refusal, block=block)
            setter, emitted = refusal
            setter.weights = emitted
            setter.last_update = block
            return SetWeightsResult(
                success=True, message=f"set {len(emitted)} weights on netuid {state.netuid}", block=block
            )

        return self._transact(apply, write=True)

    def weights_of(self, uid: int) -> dict[int, float]:
        """The weights `uid` last set, as stored (u16) and normalised back to floats summing to 1."""

        def read(state: _ChainState) -> dict[int, float]:
            neuron = self._by_uid(state, uid)
            total = sum(neuron.weights.values())
            return {target: value / total for target, value in sorted(neuron.weights.items())} if total else {}

        return self._transact(read, write=False)

    def u16_weights_of(self, uid: int) -> dict[int, int]:
        """The weights `uid` last set exactly as stored: u16 values, the largest max-upscaled to 65535."""
        return self._transact(lambda state: dict(sorted(self._by_uid(state, uid).weights.items())), write=False)

    def last_update(self, uid: int) -> int | None:
        """The block at which `uid` last set weights, or None if it never did."""
        return self._transact(lambda state: self._by_uid(state, uid).last_update, write=False)

    # -- rules ---------------------------------------------------------------------------

    def _refusal(
        self, state: _ChainState, hotkey: str, uids: list[int], weights: list[float], block: int
    ) -> str | tuple[_NeuronState, dict[int, int]]:
        """Why the chain refuses this weight set, or (setter, u16 row) when it accepts it."""
        setter = next((n for n in state.neurons if n.hotkey == hotkey), None)
        if setter is None:
            return f"hotkey {hotkey} is not registered on netuid {state.netuid}"
        if not setter.validator_permit:
            return f"uid {setter.uid} has no validator permit on netuid {state.netuid}; only validators set weights"
        if setter.last_update is not None and block - setter.last_update < self.weights_rate_limit:
            since = block - setter.last_update
            return (
                f"weights on netuid {state.netuid} were last set {since} blocks ago; the rate limit is "
                f"{self.weights_rate_limit} blocks, retry in {self.weights_rate_limit - since} blocks"
            )
        if len(uids) != len(weights):
            return f"uids and weights must be equal length: {len(uids)} vs {len(weights)}"
        if len(set(uids)) != len(uids):
            return "duplicate uids in weights; each uid may appear once"
        known = {n.uid for n in state.neurons}
        unknown = sorted(set(uids) - known)
        if unknown:
            return f"unknown uids {unknown} on netuid {state.netuid} (registered: 0..{len(known) - 1})"
        try:
            values = [float(w) for w in weights]
            if any(not math.isfinite(w) or w < 0 for w in values):
                raise BittensorError("weights must be finite and non-negative")
            if uids != [setter.uid] and self.max_weight_limit < 1 and sum(values) > 0:
                values = clip_to_max_weight(values, self.max_weight_limit)
            out_uids, out_values = normalize(uids, values)  # the SDK's own quantisation
        except BittensorError as exc:
            return str(exc)
        if not out_uids:
            return "all weights are zero; nothing to set"
        return setter, dict(zip(out_uids, out_values, strict=True))

    def _block(self, state: _ChainState) -> int:
        ticks = int((time.time() - state.genesis_unix) / self.block_time_s) if self.block_time_s else 0
        return state.advanced + max(ticks, 0)

    @staticmethod
    def _by_uid(state: _ChainState, uid: int) -> _NeuronState:
        for neuron in state.neurons:
            if neuron.uid == uid:
                return neuron
        raise ChainStateError(f"no uid {uid} on netuid {state.netuid}")

    @staticmethod
    def _neuron(state: _ChainState, hotkey: str) -> _NeuronState:
        for neuron in state.neurons:
            if neuron.hotkey == hotkey:
                return neuron
        raise ChainStateError(f"hotkey {hotkey} is not registered on netuid {state.netuid}; register it first")

    # -- persistence ---------------------------------------------------------------------

    def _transact(self, fn: Callable[[_ChainState], _T], *, write: bool) -> _T:
        """Run `fn` on the current state under the locks; persist afterwards when `write`."""
        with self._lock, self._file_lock(exclusive=write):
            state = self._load() if self.path is not None else self._state
            working = state.model_copy(deep=True)
            result = fn(working)
            if write:
                if self.path is not None:
                    self._save(working)
                self._state = working
            return result

    @contextlib.contextmanager
    def _file_lock(self, *, exclusive: bool) -> Iterator[None]:
        if self.path is None:
            yield
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path.with_name(self.path.name + ".lock"), "a+b") as handle:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
            try:
                yield
            finally:
                fcntl.flock(handle.fileno(), fcntl.LOCK_UN)

    def _load(self) -> _ChainState:
        assert self.path is not None
        if not self.path.exists():
            return self._state
        fix = "delete it to start a fresh chain"
        try:
            state = json_model(self.path, _ChainState, what="chain snapshot", field="chain")
        except InputError as exc:
            raise ChainStateError(f"chain snapshot {self.path} is unreadable ({exc.message}); {fix}") from None
        if state.netuid != self.netuid:
            raise ChainStateError(
                f"chain snapshot {self.path} holds netuid {state.netuid}, not {self.netuid}; use another path or netuid"
            )
        return state

    def _save(self, state: _ChainState) -> None:
        assert self.path is not None
        write_atomic(self.path, json.dumps(state.model_dump(mode="json"), indent=1).encode("utf-8"))


# ---------------------------------------------------------------------------------------------
# real chain


class BittensorChain:
    """A subnet on a real subtensor (finney, test, local, or a ws:// URL) through the bittensor SDK.

    Construction opens no connection; the first `metagraph()` or `set_weights()` does.
    """

    def __init__(self, netuid: int, network: str = "finney") -> None:
        import bittensor

        self.netuid = netuid
        self.network = network
        try:
            self._subtensor = bittensor.Subtensor(network)
        except ValueError as exc:
            raise ChainUnavailable(str(exc)) from None
        self._last_block = 0

    def metagraph(self) -> Metagraph:
        """The subnet's neurons: uid, hotkey, total stake (TAO), validator permit, served axon."""
        try:
            graph = self._subtensor.subnets.metagraph(self.netuid, commitments=False)
        except BittensorError as exc:
            where = f"netuid {self.netuid} on {self.network}"
            raise ChainUnavailable(f"cannot read the metagraph of {where}: {exc}") from None
        if graph is None:
            raise ChainStateError(f"netuid {self.netuid} does not exist on {self.network}")
        self._last_block = int(graph.block)
        neurons = [
            Neuron(
                uid=n.uid,
                hotkey=n.hotkey,
                stake=float(n.total_stake.tao),
                validator_permit=bool(n.validator_permit),
                endpoint=_parse_axon(n.axon),
            )
            for n in graph.neurons
        ]
        return Metagraph(netuid=self.netuid, block=self._last_block, neurons=neurons)

    def set_weights(self, identity: Identity, uids: Sequence[int], weights: Sequence[float]) -> SetWeightsResult:
        """Submit through the SDK's SetWeights intent (it clips, quantises and preflights the rate limit)."""
        import bittensor

        try:
            intent = bittensor.SetWeights(netuid=self.netuid, uids=list(uids), weights=list(weights))
            result = self._subtensor.execute(intent, identity.signer)
        except BittensorError as exc:
            return SetWeightsResult(success=False, message=str(exc), block=self._last_block)
        block = self._last_block
        with contextlib.suppress(BittensorError):
            block = int(self._subtensor.block)
            self._last_block = block
        return SetWeightsResult(success=bool(result.success), message=result.message or "submitted", block=block)

    def serve(self, identity: Identity, endpoint: Endpoint) -> None:
        """Publish `identity`'s endpoint on the subnet (the SDK's ServeAxon intent)."""
        import bittensor

        try:
            intent = bittensor.ServeAxon(netuid=self.netuid, ip=endpoint.host, port=endpoint.port)
            result = self._subtensor.execute(intent, identity.signer)
        except (BittensorError, ValueError) as exc:
            raise ChainUnavailable(f"cannot serve {endpoint.url()} on netuid {self.netuid}: {exc}") from None
        if not result.success:
            raise ChainStateError(f"the chain refused serve_axon for {endpoint.url()}: {result.message}")


def _parse_axon(axon: str | None) -> Endpoint | None:
    """The SDK's "ip:port" / "[v6]:port" axon string as an Endpoint (None when nothing is served)."""
    if not axon:
        return None
    host, _, port = axon.rpartition(":")
    try:
        return Endpoint(host=host.strip("[]"), port=int(port))
    except (ValueError, ValidationError):
        return None
