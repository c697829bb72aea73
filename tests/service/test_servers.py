"""The loopback PostgreSQL and Redis fixtures really serve, and clean up after themselves."""

from __future__ import annotations

import socket
import time

import httpx
import pytest
import redis
from redis.backoff import NoBackoff
from redis.retry import Retry
from sqlalchemy import Column, Integer, String, Table, insert, select, text
from sqlalchemy.orm import DeclarativeBase

from reasonforge.service.db import make_engine

import servers
from servers import (
    PostgresServer,
    RedisServer,
    ServerUnavailable,
    ServiceHandle,
    free_port,
    postgres_bindir,
    running_redis,
    running_service,
)


class _Scratch(DeclarativeBase):
    """A private metadata, so this test's table never joins the service's own schema."""


_notes = Table(
    "infra_notes",
    _Scratch.metadata,
    Column("id", Integer, primary_key=True),
    Column("body", String(40)),
)


def test_postgres_round_trip_through_sqlalchemy_and_psycopg(postgres_url: str) -> None:
    assert (
        postgres_url.startswith("postgresql+psycopg://")
        and "@127.0.0.1:" in postgres_url
    )
    engine = make_engine(postgres_url)
    try:
        with engine.begin() as conn:
            assert (
                conn.execute(text("select version()"))
                .scalar_one()
                .startswith("PostgreSQL")
            )
            assert (
                conn.execute(text("select current_database()")).scalar_one()
                == "reasonforge"
            )
            _Scratch.metadata.drop_all(conn)
            _Scratch.metadata.create_all(conn)
            conn.execute(
                insert(_notes),
                [{"id": 1, "body": "first"}, {"id": 2, "body": "zweite ✓"}],
            )
        with engine.connect() as conn:
            assert conn.execute(
                select(_notes.c.body).order_by(_notes.c.id)
            ).scalars().all() == ["first", "zweite ✓"]
            assert conn.dialect.driver == "psycopg"
    finally:
        engine.dispose()


def test_postgres_listens_on_loopback_only_and_needs_the_password(
    postgres_server: PostgresServer,
) -> None:
    import psycopg

    listening = psycopg.connect(
        f"host=127.0.0.1 port={postgres_server.port} user={postgres_server.user} "
        f"password={postgres_server.password} dbname=postgres"
    )
    with listening as conn:
        assert conn.execute("show listen_addresses").fetchone()[0] == "127.0.0.1"
    with pytest.raises(
        psycopg.OperationalError, match="password authentication failed"
    ):
        psycopg.connect(
            f"host=127.0.0.1 port={postgres_server.port} user={postgres_server.user} "
            "password=wrong dbname=postgres"
        )


def test_fresh_databases_are_empty_and_distinct(
    postgres_server: PostgresServer, fresh_postgres_url: str
) -> None:
    other = postgres_server.create_database()
    assert other != fresh_postgres_url
    engine = make_engine(fresh_postgres_url)
    try:
        with engine.connect() as conn:
            count = conn.execute(
                text(
                    "select count(*) from information_schema.tables where table_schema='public'"
                )
            )
            assert count.scalar_one() == 0
    finally:
        engine.dispose()
    with pytest.raises(ValueError, match="lower-case"):
        postgres_server.create_database("Robert'); DROP TABLE x;--")


def test_redis_ping_set_get(redis_url: str) -> None:
    client = redis.Redis.from_url(redis_url)
    assert client.ping() is True
    client.set("infra:greeting", "hello ✓")
    assert client.get("infra:greeting").decode() == "hello ✓"
    assert (
        client.config_get("save")["save"] == ""
        and client.config_get("appendonly")["appendonly"] == "no"
    )
    assert client.config_get("bind")["bind"] == "127.0.0.1"


def test_redis_requires_the_password(redis_server: RedisServer) -> None:
    with pytest.raises(redis.AuthenticationError):
        redis.Redis(
            host="127.0.0.1", port=redis_server.port, retry=Retry(NoBackoff(), 0)
        ).ping()


def test_fresh_redis_databases_are_isolated(
    redis_url: str, fresh_redis_url: str
) -> None:
    assert fresh_redis_url != redis_url
    shared, fresh = (
        redis.Redis.from_url(redis_url),
        redis.Redis.from_url(fresh_redis_url),
    )
    shared.set("infra:isolated", "shared")
    assert fresh.get("infra:isolated") is None


def test_redis_stops_and_frees_its_port() -> None:
    with running_redis(databases=2) as server:
        port, proc = server.port, server.process
        assert redis.Redis.from_url(server.url()).ping()
        server.allocate_db()
        with pytest.raises(ServerUnavailable, match="databases are in use"):
            server.allocate_db()
    assert proc.poll() is not None
    with socket.socket() as s:
        assert s.connect_ex(("127.0.0.1", port)) != 0


def test_helpers_find_binaries_and_ports() -> None:
    assert (postgres_bindir() / "initdb").exists()
    assert 1024 < free_port() < 65536


_TINY_CHAIN = {
    "original_query": "Let a = 2 and b = 5.",
    "claimed_answer": "7",
    "domain": "mathematics",
    "proof_level": "quick",
    "generate_certificate": False,
    "reasoning_chain": [
        {"step_id": 1, "content": "Let a = 2 and b = 5."},
        {"step_id": 2, "content": "So a + b = 2 + 5 = 7."},
    ],
}


@pytest.mark.slow
def test_service_fixture_serves_a_verification_with_its_key(
    service: ServiceHandle,
) -> None:
    assert service.api_key.startswith("rf_")
    assert httpx.get(f"{service.base_url}/healthz", timeout=10).status_code == 200
    refused = httpx.post(f"{service.base_url}/v1/verify", json=_TINY_CHAIN, timeout=10)
    assert refused.status_code == 401, refused.text
    with httpx.Client(
        base_url=service.base_url, headers=service.headers, timeout=10
    ) as client:
        submitted = client.post("/v1/verify", json=_TINY_CHAIN)
        assert submitted.status_code == 202, submitted.text
        task_id = submitted.json()["task_id"]
        deadline = time.monotonic() + 120
        while (job := client.get(f"/v1/verify/{task_id}").json())["status"] not in (
            "complete",
            "failed",
        ):
            assert time.monotonic() < deadline, (
                f"no verdict in 120 s: {job}\n{service.log()}"
            )
            time.sleep(0.1)
    assert (job["status"], job["verdict"], job["steps_verified"]) == (
        "complete",
        "VERIFIED",
        2,
    ), job
    if service.scaled:
        assert service.env["REASONFORGE_DATABASE_URL"].startswith(
            "postgresql+psycopg://"
        )
        assert len(service.workers) == 1 and service.workers[0].poll() is None


@pytest.mark.slow
def test_service_processes_are_gone_after_the_context(tmp_path) -> None:
    with running_service(tmp_path / "home") as handle:
        server = handle.server
        assert httpx.get(f"{handle.base_url}/healthz", timeout=10).status_code == 200
    assert server.poll() is not None
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"{handle.base_url}/healthz", timeout=2)
    assert (tmp_path / "home" / "serve.log").exists()


def test_missing_binaries_name_make_install(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty directory: nothing to find
    monkeypatch.setattr(servers.glob, "glob", lambda pattern: [])
    with pytest.raises(ServerUnavailable, match=r"initdb, postgres.*make install"):
        postgres_bindir()
    with (
        pytest.raises(ServerUnavailable, match=r"redis-server not found.*make install"),
        running_redis(),
    ):
        pass
