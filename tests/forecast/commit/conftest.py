"""Session fixtures: ForecastRegistry compiled once (cached under .pytest_cache), one in-process devnode."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from web3 import Web3

from reasonforge.certificate import devnode
from reasonforge.certificate import forecast_registry as fr
from reasonforge.certificate.validators import ValidatorSet, generate
from reasonforge.forecast.commit import validator_addresses
from reasonforge.forecast.dataset import ForecastItem

from certhelpers import require_node_tools


@pytest.fixture(scope="session")
def compiled(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> fr.CompiledForecastRegistry:
    """ForecastRegistry compiled by solc-js (skips without Node and the npm packages)."""
    require_node_tools()
    cache = getattr(request.config, "cache", None)
    out = Path(cache.mkdir("reasonforge-forecast-registry")) if cache else tmp_path_factory.mktemp("contracts")
    return fr.compile_forecast_registry(out)


@pytest.fixture(scope="session")
def node() -> Iterator[str]:
    """A loopback devnode URL for the session."""
    server, url = devnode.start()
    yield url
    devnode.stop(server)


@pytest.fixture(scope="session")
def w3(node: str) -> Web3:
    """A web3 connection to the devnode."""
    return fr.connect(node)


@pytest.fixture(scope="session")
def vset() -> ValidatorSet:
    """Five validators, threshold three."""
    return generate(5, threshold=3)


@pytest.fixture
def registry(w3: Web3, compiled: fr.CompiledForecastRegistry, vset: ValidatorSet) -> fr.ForecastDeployment:
    """A fresh ForecastRegistry per test, trusting vset."""
    return fr.deploy(w3, compiled, validator_addresses(vset), vset.threshold)


def make_item(item_id: str, cutoff: datetime, outcome: int, market: float) -> ForecastItem:
    """One binary item."""
    return ForecastItem(id=item_id, question=f"Will {item_id} happen?", cutoff=cutoff,
                        resolved_at=cutoff + timedelta(days=30), outcome=outcome, market_price=market, source="test")


@pytest.fixture
def items() -> list[ForecastItem]:
    """Six items with cutoffs far ahead of the devnode's clock, and one whose cutoff has passed."""
    future = datetime(2099, 1, 1, tzinfo=UTC)
    rows = [make_item(f"q{i}", future + timedelta(days=i), i % 2, 0.3 + 0.1 * i) for i in range(6)]
    rows.append(make_item("past", datetime(2020, 1, 1, tzinfo=UTC), 1, 0.6))
    return rows
