"""Chain adapters: InMemoryChain follows bittensor's weight rules; BittensorChain maps SDK failures."""

from __future__ import annotations

import json
import multiprocessing
import socket
import time
from pathlib import Path

import pytest
from bittensor.intents import normalize

from reasonforge.subnet.chain import BittensorChain, Endpoint, InMemoryChain, Metagraph
from reasonforge.subnet.errors import ChainStateError, ChainUnavailable
from reasonforge.subnet.keys import Identity

VALIDATOR = Identity.from_seed("//validator")
MINERS = [Identity.from_seed(f"//miner-{i}") for i in range(4)]


def _chain(**kwargs: object) -> InMemoryChain:
    """A chain with one validator (uid 0) and four miners (uids 1..4)."""
    chain = InMemoryChain(**kwargs)  # type: ignore[arg-type]
    chain.register(VALIDATOR.hotkey, stake=1000.0, validator_permit=True)
    for i, miner in enumerate(MINERS):
        chain.register(miner.hotkey, stake=10.0 + i, endpoint=Endpoint(host="127.0.0.1", port=9000 + i))
    return chain


@pytest.mark.parametrize(
    ("weights", "expected"),
    [
        # Hand-computed: round(w / max * 65535), zeros dropped (the SDK's max-upscaling).
        ([0.1, 0.7, 0.2, 0.0], {1: 9362, 2: 65535, 3: 18724}),
        ([1.0, 1.0, 1.0, 1.0], {1: 65535, 2: 65535, 3: 65535, 4: 65535}),
        ([3.0, 0.0, 0.0, 1.0], {1: 65535, 4: 21845}),
        ([1e-9, 0.5, 0.25, 0.125], {2: 65535, 3: 32768, 4: 16384}),  # 0.25/0.5*65535 = 32767.5 rounds to even
    ],
)
def test_set_weights_stores_the_sdks_u16_values(weights: list[float], expected: dict[int, int]) -> None:
    chain = _chain()
    result = chain.set_weights(VALIDATOR, [1, 2, 3, 4], weights)
    assert result.success, result.message
    assert chain.u16_weights_of(0) == expected
    sdk_uids, sdk_values = normalize([1, 2, 3, 4], weights)
    assert chain.u16_weights_of(0) == dict(zip(sdk_uids, sdk_values, strict=True))
    stored = chain.weights_of(0)
    assert sum(stored.values()) == pytest.approx(1.0)
    total = sum(expected.values())
    assert stored == {uid: pytest.approx(value / total) for uid, value in expected.items()}


def test_rate_limit_refuses_until_enough_blocks_pass() -> None:
    chain = _chain(weights_rate_limit=10)
    first = chain.set_weights(VALIDATOR, [1, 2], [0.5, 0.5])
    assert first.success and first.block == 0
    chain.advance(9)
    second = chain.set_weights(VALIDATOR, [1, 2], [0.9, 0.1])
    assert not second.success
    assert "rate limit is 10 blocks" in second.message and "retry in 1 blocks" in second.message
    assert chain.u16_weights_of(0) == {1: 65535, 2: 65535}  # unchanged
    assert chain.advance() == 10
    third = chain.set_weights(VALIDATOR, [1, 2], [0.9, 0.1])
    assert third.success and third.block == 10
    assert chain.last_update(0) == 10
    assert chain.u16_weights_of(0) == {1: 65535, 2: 7282}


def test_only_registered_validators_may_set_weights() -> None:
    chain = _chain()
    miner = chain.set_weights(MINERS[0], [2], [1.0])
    assert not miner.success and "no validator permit" in miner.message
    stranger = chain.set_weights(Identity.from_seed("//stranger"), [1], [1.0])
    assert not stranger.success and "not registered" in stranger.message
    assert chain.weights_of(1) == {}


@pytest.mark.parametrize(
    ("uids", "weights", "reason"),
    [
        ([1, 2], [1.0], "equal length"),
        ([1, 9], [1.0, 1.0], "unknown uids [9]"),
        ([1, 1], [1.0, 1.0], "duplicate uids"),
        ([1, 2], [float("nan"), 1.0], "finite and non-negative"),
        ([1, 2], [-0.1, 1.0], "finite and non-negative"),
        ([1, 2], [0.0, 0.0], "all weights are zero"),
    ],
)
def test_invalid_weights_are_refused_with_the_reason(uids: list[int], weights: list[float], reason: str) -> None:
    chain = _chain()
    result = chain.set_weights(VALIDATOR, uids, weights)
    assert not result.success
    assert reason in result.message
    assert chain.last_update(0) is None  # a refused set does not start the rate-limit window


def test_max_weight_limit_clips_like_the_sdk() -> None:
    chain = _chain(max_weight_limit=0.5)
    assert chain.set_weights(VALIDATOR, [1, 2, 3], [0.8, 0.1, 0.1]).success
    stored = chain.weights_of(0)
    assert max(stored.values()) == pytest.approx(0.5, abs=1e-4)
    assert stored[2] == pytest.approx(stored[3])


def test_metagraph_lists_neurons_with_stake_permit_endpoint() -> None:
    chain = _chain()
    chain.advance(5)
    graph = chain.metagraph()
    assert isinstance(graph, Metagraph)
    assert graph.netuid == 1 and graph.block == 5
    assert graph.uids == [0, 1, 2, 3, 4]
    validator = graph.by_hotkey(VALIDATOR.hotkey)
    assert validator is not None and validator.validator_permit and validator.endpoint is None
    miner = graph.by_uid(2)
    assert miner is not None and miner.hotkey == MINERS[1].hotkey and miner.stake == 11.0
    assert miner.endpoint is not None and miner.endpoint.url() == "http://127.0.0.1:9001"
    assert graph.by_uid(99) is None


def test_register_again_updates_and_serve_publishes() -> None:
    chain = _chain()
    assert chain.register(MINERS[0].hotkey, stake=50.0) == 1
    chain.serve(MINERS[0], Endpoint(host="::1", port=8080))
    neuron = chain.metagraph().by_uid(1)
    assert neuron is not None and neuron.stake == 50.0
    assert neuron.endpoint is not None and neuron.endpoint.url() == "http://[::1]:8080"
    with pytest.raises(ChainStateError, match="not registered"):
        chain.serve("5Fnobody", Endpoint(host="127.0.0.1", port=1))
    with pytest.raises(ChainStateError, match="finite"):
        chain.register("5Fx", stake=float("nan"))


def test_blocks_follow_the_wall_clock_when_asked() -> None:
    chain = InMemoryChain(block_time_s=0.001)
    first = chain.block
    assert chain.advance(0) >= first
    time.sleep(0.02)
    assert chain.block >= first + 10


def test_persisted_state_reloads_in_a_new_chain(tmp_path: Path) -> None:
    path = tmp_path / "chain.json"
    chain = _chain(path=path, weights_rate_limit=10)
    assert chain.set_weights(VALIDATOR, [1, 2, 3], [0.2, 0.3, 0.5]).success
    chain.advance(4)
    reopened = InMemoryChain(path=path, weights_rate_limit=10)
    assert reopened.metagraph() == chain.metagraph()
    assert reopened.u16_weights_of(0) == chain.u16_weights_of(0)
    assert reopened.block == 4
    # The rate-limit window survives the restart too.
    assert not reopened.set_weights(VALIDATOR, [1], [1.0]).success
    reopened.advance(6)
    assert reopened.set_weights(VALIDATOR, [1], [1.0]).success
    assert chain.u16_weights_of(0) == {1: 65535}  # the first instance reads the shared file
    assert json.loads(path.read_text())["neurons"][0]["last_update"] == 10


def test_persisted_state_refuses_corrupt_or_foreign_snapshots(tmp_path: Path) -> None:
    path = tmp_path / "chain.json"
    _chain(path=path, netuid=7)
    with pytest.raises(ChainStateError, match="holds netuid 7, not 1"):
        InMemoryChain(path=path)
    for damaged in ("{not json", "[" * 100_000, '{"netuid": 7, "netuid": 7}'):
        path.write_text(damaged)
        with pytest.raises(ChainStateError, match="unreadable"):
            InMemoryChain(path=path, netuid=7)


def _register_many(path: str, prefix: str, count: int, start: object) -> None:
    chain = InMemoryChain(path=Path(path))
    start.wait(30)  # type: ignore[attr-defined]  # every process begins together, so their writes interleave
    for i in range(count):
        chain.register(f"{prefix}-{i}", stake=1.0)


@pytest.mark.slow
def test_processes_registering_at_once_lose_no_update(tmp_path: Path) -> None:
    path = tmp_path / "shared.json"
    context = multiprocessing.get_context("spawn")
    start = context.Barrier(3)
    workers = [
        context.Process(target=_register_many, args=(str(path), f"p{n}", 30, start)) for n in range(3)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
        assert worker.exitcode == 0
    graph = InMemoryChain(path=path).metagraph()
    assert len(graph.neurons) == 90
    assert graph.uids == list(range(90))
    assert len({n.hotkey for n in graph.neurons}) == 90


def test_bittensor_chain_unknown_network_is_a_clear_error() -> None:
    with pytest.raises(ChainUnavailable, match="Unknown network 'nowhere'"):
        BittensorChain(netuid=1, network="nowhere")


def test_bittensor_chain_reports_an_unreachable_node() -> None:
    with socket.socket() as sock:  # bound, never listening: refused, and held so no other test takes the port
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        chain = BittensorChain(netuid=1, network=f"ws://127.0.0.1:{port}")
        with pytest.raises(ChainUnavailable, match="cannot read the metagraph of netuid 1"):
            chain.metagraph()
        result = chain.set_weights(VALIDATOR, [0], [1.0])
    assert not result.success and result.message


@pytest.mark.skip(reason="needs a running subtensor node (e.g. a local devnet on ws://127.0.0.1:9944); none here")
def test_bittensor_chain_against_a_live_node() -> None:
    chain = BittensorChain(netuid=1, network="local")
    assert chain.metagraph().netuid == 1
