"""The validator epoch against real miners on loopback: weights on the chain, ranking, and crash-resume."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from reasonforge.subnet.chain import (
    Endpoint,
    InMemoryChain,
    Metagraph,
    SetWeightsResult,
)
from reasonforge.subnet.keys import Identity
from reasonforge.subnet.miner import MinerProfile, TranslatorMiner
from reasonforge.subnet.miner_server import create_miner_app
from reasonforge.subnet.state import ValidatorState
from reasonforge.subnet.tasks import TaskSource
from reasonforge.subnet.validator import ProofLayerValidator, WeightsNotSetError

from subnet_support import endpoint_of, running_miner

VALIDATOR = Identity.from_seed("//test-validator")
PROFILES: tuple[MinerProfile, ...] = ("honest", "lazy", "vacuous")
RATE_LIMIT = 5


@dataclass
class Served:
    profile: MinerProfile
    identity: Identity
    miner: TranslatorMiner
    endpoint: Endpoint


@pytest.fixture(scope="module")
def miners() -> Iterator[list[Served]]:
    """Three real miners (honest, lazy, vacuous) on loopback for the whole module."""
    with contextlib.ExitStack() as stack:
        served = []
        for profile in PROFILES:
            identity = Identity.from_seed(f"//test-validator-miner-{profile}")
            miner = TranslatorMiner(identity, profile=profile)
            url = stack.enter_context(running_miner(create_miner_app(identity, miner.handle_task,
                                                                     miner.handle_result)))
            served.append(Served(profile, identity, miner, endpoint_of(url)))
        yield served


def _chain(miners: Sequence[Served], extra: Sequence[tuple[str, Endpoint]] = (), permit: bool = True
           ) -> tuple[InMemoryChain, dict[str, int]]:
    chain = InMemoryChain(weights_rate_limit=RATE_LIMIT)
    chain.register(VALIDATOR.hotkey, 1000.0, validator_permit=permit)
    uids = {m.profile: chain.register(m.identity.hotkey, 10.0, endpoint=m.endpoint) for m in miners}
    for hotkey, endpoint in extra:
        uids[hotkey] = chain.register(hotkey, 10.0, endpoint=endpoint)
    return chain, uids


def _tasks(seed: int = 0) -> TaskSource:
    # Logic and mathematics (Z3 and SymPy in process, fast); every epoch holds one GSM8K trap. No FOLIO trap is
    # left: a logic step's refutation is the English reader's whatever the artifact, so a vacuous miner reproduced
    # each one, and the trap builder now drops such traps (a trap must test the translation).
    return TaskSource(seed, domains=["logic", "mathematics"], tasks_per_epoch=3, traps_per_epoch=1)


def _advance(chain: InMemoryChain):
    def before(_epoch: int) -> None:
        chain.advance(RATE_LIMIT + 1)
    return before


def test_epoch_sets_weights_ranks_honest_above_vacuous_and_notifies(miners: list[Served], tmp_path: Path) -> None:
    chain, uids = _chain(miners)
    state_path = tmp_path / "state.json"
    before = {m.profile: len(m.miner.results) for m in miners}

    async def main():
        async with ProofLayerValidator(VALIDATOR, chain, _tasks(), state_path) as validator:
            return await validator.run_epoch()

    report = asyncio.run(main())
    assert report.epoch == 1 and report.tasks == 3 and report.traps == 1
    assert report.set_weights is not None and report.set_weights.success
    for uid in uids.values():  # every miner got every task and answered it validly
        assert report.miners[uid].tasks == 3 and report.miners[uid].answered == 3
    honest, lazy, vacuous = (report.miners[uids[p]] for p in PROFILES)
    assert honest.rank == 1 and honest.weight > lazy.weight > vacuous.weight
    # The epoch's trap is a GSM8K solution with step 1's result changed (gsm8k-perturbed:87, four steps): the honest
    # miner refutes step 1 and leaves the three built on it unverified; the vacuous miner's artifacts leave all four
    # unsupported, so it matches the three but never refutes the slip (under the old rules the trap was a FOLIO
    # conclusion, which the vacuous miner "proved", scoring 0.0; the reader now refutes such steps whatever the
    # artifact, so FOLIO traps are gone and the penalty is partial).
    assert honest.trap_score == 1.0 and vacuous.trap_score == 0.75
    assert vacuous.trap_penalty < 1.0 == honest.trap_penalty
    # Its artifacts compile and decide nothing, so none of its translations holds: CTS 0 on every task, no rank,
    # no weight (the seed's CTS paid it for compiling, for completeness and for speed).
    assert vacuous.cts == [0.0, 0.0, 0.0] and vacuous.steps_held == 0 and vacuous.steps_compiled > 0
    assert vacuous.epoch_score == 0.0 and vacuous.rank is None and vacuous.weight == 0.0
    assert honest.epoch_score > lazy.epoch_score > 0.0 and honest.steps_held > lazy.steps_held
    assert honest.streak == 1 and honest.peb > 0
    assert honest.steps_total == lazy.steps_total and lazy.steps_compiled < honest.steps_compiled
    assert sum(report.weights.values()) == pytest.approx(1.0)
    stored = chain.weights_of(chain.metagraph().by_hotkey(VALIDATOR.hotkey).uid)
    for uid, weight in report.weights.items():  # what the chain holds, up to u16 quantisation
        assert stored.get(uid, 0.0) == pytest.approx(weight, abs=1e-4)
    assert report.notified == 3
    for m in miners:
        assert len(m.miner.results) == before[m.profile] + 1
        notice = m.miner.results[-1]
        assert notice.epoch_id == 1 and notice.miner_uid == uids[m.profile]
        assert notice.epoch_score == pytest.approx(report.miners[uids[m.profile]].epoch_score)
    saved = ValidatorState.load(state_path)
    assert saved.last_completed_epoch == 1 and saved.pending is None
    assert saved.miners[uids["honest"]].history[1].cts == honest.cts


class CrashOnce:
    """A chain whose first set_weights dies like a killed process: after scoring, before the chain sees weights."""

    def __init__(self, inner: InMemoryChain) -> None:
        self.inner = inner
        self.crashed = False

    def metagraph(self) -> Metagraph:
        return self.inner.metagraph()

    def set_weights(self, identity: Identity, uids: Sequence[int], weights: Sequence[float]) -> SetWeightsResult:
        if not self.crashed:
            self.crashed = True
            raise RuntimeError("validator killed before set_weights")
        return self.inner.set_weights(identity, uids, weights)


def test_crash_after_scoring_resumes_the_epoch_without_rescoring(miners: list[Served], tmp_path: Path) -> None:
    chain, uids = _chain(miners)
    state_path = tmp_path / "state.json"
    handled = {m.profile: m.miner.tasks_handled for m in miners}

    async def crash():
        async with ProofLayerValidator(VALIDATOR, CrashOnce(chain), _tasks(), state_path) as validator:
            await validator.run_epoch()

    with pytest.raises(RuntimeError, match="killed before set_weights"):
        asyncio.run(crash())
    saved = ValidatorState.load(state_path)
    assert saved.last_completed_epoch == 0 and saved.pending is not None and saved.pending.report.epoch == 1
    scored = saved.pending.report
    validator_uid = chain.metagraph().by_hotkey(VALIDATOR.hotkey).uid
    assert chain.weights_of(validator_uid) == {}  # nothing reached the chain

    async def restart():
        async with ProofLayerValidator(VALIDATOR, chain, _tasks(), state_path) as validator:
            return await validator.run(2, before_epoch=_advance(chain))

    first, second = asyncio.run(restart())
    assert first.epoch == 1 and first.resumed and first.set_weights.success
    assert {uid: m.cts for uid, m in first.miners.items()} == {uid: m.cts for uid, m in scored.miners.items()}
    assert first.weights == scored.weights
    assert second.epoch == 2 and not second.resumed and second.set_weights.success
    for m in miners:  # epoch 1 was not sent again: 3 tasks before the crash, 3 for epoch 2
        assert m.miner.tasks_handled == handled[m.profile] + 6
    final = ValidatorState.load(state_path)
    assert final.last_completed_epoch == 2 and final.pending is None
    assert sorted(final.miners[uids["honest"]].history) == [1, 2]
    assert final.miners[uids["honest"]].streak == 2
    stored = chain.weights_of(validator_uid)
    assert stored[uids["honest"]] == pytest.approx(second.weights[uids["honest"]], abs=1e-4)


def test_refused_weights_keep_the_epoch_pending_until_the_chain_accepts(miners: list[Served], tmp_path: Path) -> None:
    chain, _ = _chain(miners[:1], permit=False)
    state_path = tmp_path / "state.json"

    async def attempt():
        async with ProofLayerValidator(VALIDATOR, chain, _tasks(), state_path) as validator:
            return await validator.run_epoch()

    with pytest.raises(WeightsNotSetError, match="no validator permit.*kept in"):
        asyncio.run(attempt())
    assert ValidatorState.load(state_path).pending is not None
    chain.register(VALIDATOR.hotkey, 1000.0, validator_permit=True)
    report = asyncio.run(attempt())
    assert report.epoch == 1 and report.resumed and report.set_weights.success


@pytest.fixture
def refused_port() -> Iterator[int]:
    """A loopback port that refuses connections: bound, never listening, and held so no other test takes it."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield sock.getsockname()[1]


def test_silent_miner_scores_zero_and_draws_per_task_subsets(
    miners: list[Served], tmp_path: Path, refused_port: int
) -> None:
    dead = Endpoint(host="127.0.0.1", port=refused_port)
    chain, uids = _chain(miners, extra=[("5silent-miner", dead)])

    async def main(per_task: int | None, path: Path):
        async with ProofLayerValidator(VALIDATOR, chain, _tasks(seed=2), path, miners_per_task=per_task) as validator:
            return await validator.run(1, before_epoch=_advance(chain))

    (report,) = asyncio.run(main(None, tmp_path / "all.json"))
    silent = report.miners[uids["5silent-miner"]]
    assert silent.tasks == 3 and silent.answered == 0 and silent.cts == [0.0, 0.0, 0.0]
    assert silent.rank is None and report.weights[uids["5silent-miner"]] == 0.0
    assert report.miners[uids["honest"]].weight > 0
    (subset,) = asyncio.run(main(2, tmp_path / "subset.json"))
    assert sum(m.tasks for m in subset.miners.values()) == 3 * 2
