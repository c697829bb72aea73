"""Fixtures for the SDK tests: one live `reasonforge serve` per session."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from reasonforge.sdk import ReasonForge

from sdk_support import ServiceHandle, live_service, seeded_home


@pytest.fixture(scope="session")
def service(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ServiceHandle]:
    """The embedded service (SQLite, in-process workers) and an enterprise key (all levels).

    Certificates use the reduced circuit: seconds to prove, where the full one takes minutes.
    """
    home = seeded_home(request, tmp_path_factory.mktemp("rf-sdk"))
    env = {"REASONFORGE_CERTIFICATE_CIRCUIT": "small"}
    with live_service(home, env=env, key_args=("--tier", "enterprise")) as handle:
        yield handle


@pytest.fixture
def rf(service: ServiceHandle) -> Iterator[ReasonForge]:
    """A sync client on the live service."""
    with ReasonForge(api_key=service.api_key, base_url=service.base_url) as client:
        yield client
