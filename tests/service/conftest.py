"""Fixtures for the service suite: real PostgreSQL and Redis on loopback and live `reasonforge serve` processes.

Under pytest-xdist each worker process starts its own PostgreSQL and Redis (session scope is per
worker): a second or two each, no file locks, no teardown shared between processes, and tests on
different workers never see each other's rows. Within one worker, `fresh_postgres_url` and
`fresh_redis_url` give a test its own empty database. A missing server binary fails the test with a
message pointing at `make install`; nothing is skipped.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

import pytest

from servers import (
    PostgresServer,
    RedisServer,
    ServerUnavailable,
    ServiceHandle,
    running_postgres,
    running_redis,
    running_service,
)


@contextlib.contextmanager
def _or_fail() -> Iterator[None]:
    """Turn a server that cannot start into a test failure with its own message (no traceback)."""
    try:
        yield
    except ServerUnavailable as exc:
        pytest.fail(str(exc), pytrace=False)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """A PostgreSQL cluster for this test process."""
    with _or_fail(), running_postgres() as server:
        yield server


@pytest.fixture(scope="session")
def postgres_url(postgres_server: PostgresServer) -> str:
    """SQLAlchemy URL of a database shared by the tests of this process."""
    with _or_fail():
        return postgres_server.create_database("reasonforge")


@pytest.fixture
def fresh_postgres_url(postgres_server: PostgresServer) -> str:
    """SQLAlchemy URL of a new, empty database for one test."""
    with _or_fail():
        return postgres_server.create_database()


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    """A redis-server for this test process."""
    with _or_fail(), running_redis() as server:
        yield server


@pytest.fixture(scope="session")
def redis_url(redis_server: RedisServer) -> str:
    """redis:// URL of logical database 0, shared by the tests of this process."""
    return redis_server.url(0)


@pytest.fixture
def fresh_redis_url(redis_server: RedisServer) -> str:
    """redis:// URL of a logical database no other test of this process uses."""
    with _or_fail():
        return redis_server.allocate_db()


ServiceFactory = Callable[..., ServiceHandle]


@pytest.fixture
def service_factory(request, tmp_path_factory) -> Iterator[ServiceFactory]:
    """`start(scaled=False, **running_service_kwargs)`: live services stopped when the test ends.

    Scaled-out services get their own PostgreSQL database and Redis database; extra keyword
    arguments (env, workers, key_args, worker_args) go to `servers.running_service`.
    """
    with contextlib.ExitStack() as stack:

        def start(*, scaled: bool = False, **kwargs) -> ServiceHandle:
            home = tmp_path_factory.mktemp("rf-home")
            with _or_fail():
                # PostgreSQL and Redis start only when a test first asks for scaled-out mode.
                if scaled:
                    kwargs.setdefault(
                        "database_url",
                        request.getfixturevalue("postgres_server").create_database(),
                    )
                    kwargs.setdefault(
                        "redis_url",
                        request.getfixturevalue("redis_server").allocate_db(),
                    )
                return stack.enter_context(running_service(home, **kwargs))

        yield start


# The shared services serve many tests through one API key, whose polling would drain the default
# 120 requests a minute; rate limiting has its own tests on their own apps.
SHARED_ENV = {"REASONFORGE_RATE_LIMIT_PER_MINUTE": "1000000"}


@pytest.fixture(scope="session")
def embedded_service(tmp_path_factory) -> Iterator[ServiceHandle]:
    """`reasonforge serve` on the embedded defaults (SQLite under a temp home, in-process workers)."""
    with _or_fail(), running_service(tmp_path_factory.mktemp("rf-embedded"), env=SHARED_ENV) as handle:
        yield handle


@pytest.fixture(scope="session")
def scaled_service(
    tmp_path_factory, postgres_server, redis_server
) -> Iterator[ServiceHandle]:
    """`reasonforge serve` on PostgreSQL + Celery/Redis with one `reasonforge worker`."""
    with _or_fail():
        database_url, redis_url = (
            postgres_server.create_database(),
            redis_server.allocate_db(),
        )
        with running_service(
            tmp_path_factory.mktemp("rf-scaled"),
            database_url=database_url,
            redis_url=redis_url,
            env=SHARED_ENV,
        ) as handle:
            yield handle


@pytest.fixture(scope="session", params=["embedded", "scaled"])
def service(request) -> ServiceHandle:
    """Each test that takes it runs twice: against the embedded and the scaled-out service."""
    return request.getfixturevalue(f"{request.param}_service")
