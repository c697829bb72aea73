"""Session fixtures: one reduced-size circuit build + setup, cached across runs under .pytest_cache."""

from __future__ import annotations

from pathlib import Path

import pytest

from reasonforge.certificate.issue import Issuer
from reasonforge.certificate.params import SMALL
from reasonforge.certificate.prover import Prover, ensure_keys

from certhelpers import load_verdict, require_node_tools


@pytest.fixture(scope="session")
def cert_home(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data dir whose circuit keys persist between runs (the first, cold run compiles and sets up)."""
    require_node_tools()
    cache = getattr(request.config, "cache", None)  # absent under -p no:cacheprovider: build afresh
    base = Path(cache.mkdir("reasonforge-certificate")) if cache else tmp_path_factory.mktemp("certificate")
    home = base / "home"
    ensure_keys(SMALL, home / "certificate" / "keys")
    return home


@pytest.fixture(scope="session")
def prover(cert_home: Path) -> Prover:
    """Loaded proving key for the reduced circuit."""
    return Prover(ensure_keys(SMALL, cert_home / "certificate" / "keys"))


@pytest.fixture(scope="session")
def vk_json(prover: Prover) -> str:
    """The reduced circuit's verification key."""
    return prover.verification_key_json


@pytest.fixture(scope="session")
def issuer(cert_home: Path) -> Issuer:
    """The reduced circuit's issuer, keys loaded once for the session (as a service holds one)."""
    return Issuer(cert_home, SMALL)


@pytest.fixture(scope="session")
def issued(issuer: Issuer):
    """One certificate (and its opening) for the pythagoras verdict."""
    return issuer.issue(load_verdict(), timestamp=1_767_000_000)
