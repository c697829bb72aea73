"""Account tests run on both stores: a SQLite file and a real PostgreSQL database on loopback."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy.orm import sessionmaker

from reasonforge.service.db import create_tables, make_engine, make_sessionmaker


@pytest.fixture(params=["sqlite", "postgres"])
def database_url(request, tmp_path) -> str:
    """A fresh, empty store of each kind."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'service.db'}"
    return request.getfixturevalue("fresh_postgres_url")


@pytest.fixture
def sessions(database_url: str) -> Iterator[sessionmaker]:
    """A sessionmaker on the store with every table created."""
    engine = make_engine(database_url)
    create_tables(engine)
    yield make_sessionmaker(engine)
    engine.dispose()
