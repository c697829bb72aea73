"""ForecastRegistry on the devnode: commit records, refusals, and ecrecover-checked signatures."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from eth_utils import to_checksum_address
from web3 import Web3

from reasonforge.certificate import devnode, ecdsa
from reasonforge.certificate import forecast_registry as fr
from reasonforge.certificate.validators import generate

from certhelpers import require_node_tools

SCOPE = "0x" + "ab" * 32


def root(n: int) -> str:
    return "0x" + n.to_bytes(32, "big").hex()


@pytest.fixture(scope="module")
def compiled(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> fr.CompiledForecastRegistry:
    require_node_tools()
    cache = getattr(request.config, "cache", None)
    out = Path(cache.mkdir("reasonforge-forecast-registry")) if cache else tmp_path_factory.mktemp("contracts")
    return fr.compile_forecast_registry(out)


@pytest.fixture(scope="module")
def w3() -> Iterator[Web3]:
    server, url = devnode.start()
    yield fr.connect(url)
    devnode.stop(server)


@pytest.fixture(scope="module")
def keys() -> list[bytes]:
    return sorted((ecdsa.signing_key(v) for v in generate(3, threshold=2).validators),
                  key=lambda k: int(ecdsa.address_of(k), 16))


@pytest.fixture
def deployment(w3, compiled, keys) -> fr.ForecastDeployment:
    return fr.deploy(w3, compiled, [ecdsa.address_of(k) for k in keys], 2)


def test_commit_records_committer_block_time_count_and_scope(w3, compiled, deployment):
    first = fr.commit(w3, compiled, deployment.address, root(1), 10, SCOPE, w3.eth.accounts[3])
    second = fr.commit(w3, compiled, deployment.address, root(2), 5, SCOPE, w3.eth.accounts[3])
    assert first.batch.committer == to_checksum_address(w3.eth.accounts[3]) and first.batch.count == 10
    assert first.batch.timestamp == w3.eth.get_block(first.block_number)["timestamp"]
    assert fr.roots_of(w3, compiled, deployment.address, w3.eth.accounts[3], SCOPE) == [root(1), root(2)]
    assert fr.roots_of(w3, compiled, deployment.address, w3.eth.accounts[4], SCOPE) == []
    assert first.gas_used < 150_000 and second.batch.scope == SCOPE


@pytest.mark.parametrize(("value", "count", "error"), [(0, 1, "ZeroRoot"), (7, 0, "EmptyBatch")])
def test_commit_refuses_a_zero_root_and_an_empty_batch(w3, compiled, deployment, value, count, error):
    with pytest.raises(fr.RegistryError, match=error):
        fr.commit(w3, compiled, deployment.address, root(value), count, SCOPE)


def test_unknown_root_reads_as_none(w3, compiled, deployment):
    assert fr.batch_of(w3, compiled, deployment.address, root(99)) is None


def test_deploy_refuses_a_threshold_above_the_set(w3, compiled, keys):
    with pytest.raises(fr.RegistryError, match="threshold"):
        fr.deploy(w3, compiled, [ecdsa.address_of(k) for k in keys], 4)


def test_high_s_signature_is_refused_by_both_sides(w3, compiled, deployment, keys):
    fr.commit(w3, compiled, deployment.address, root(5), 1, SCOPE)
    score = fr.OnChainScore(forecaster=w3.eth.accounts[0], scope=SCOPE, resolution_digest=SCOPE, body_digest=SCOPE,
                            scored=1, excluded=0, unrevealed=0, brier_ppm=1, log_loss_ppm=1, market_skill_ppm=0)
    cert_id = fr.score_certificate_id(w3, compiled, deployment.address, score, [root(5)])
    sigs = [ecdsa.sign_digest(k, bytes.fromhex(cert_id[2:])) for k in keys[:2]]
    raw = bytes.fromhex(sigs[0][2:])
    s = int.from_bytes(raw[32:64], "big")
    flipped = "0x" + (raw[:32] + (ecdsa.SECP256K1_N - s).to_bytes(32, "big") + bytes([55 - raw[64]])).hex()
    assert ecdsa.recover(bytes.fromhex(cert_id[2:]), flipped) is None
    with pytest.raises(fr.RegistryError, match="BadSignature"):
        fr.register_score(w3, compiled, deployment.address, score, [root(5)], [flipped, sigs[1]])
    fr.register_score(w3, compiled, deployment.address, score, [root(5)], sigs)
    assert fr.score_of(w3, compiled, deployment.address, cert_id) == score
