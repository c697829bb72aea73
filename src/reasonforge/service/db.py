"""The service's SQL store: one declarative base for every table and an engine per database URL."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.orm import DeclarativeBase, sessionmaker


class Base(DeclarativeBase):
    """Declarative base shared by the job, account and webhook tables."""


def make_engine(url: str) -> Engine:
    """An engine for `url`; SQLite files get WAL and a busy timeout so API and workers can share them."""
    if url.startswith("sqlite"):
        path = url.split("///", 1)[-1]
        if path and path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30})

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_conn, _record) -> None:
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA busy_timeout=30000")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.close()

        return engine
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url.removeprefix("postgresql://")
    return create_engine(url, pool_pre_ping=True, pool_size=10, max_overflow=20)


def make_sessionmaker(engine: Engine) -> sessionmaker:
    """Sessions that keep loaded attributes after commit (rows are read after the transaction)."""
    return sessionmaker(engine, expire_on_commit=False)


def create_tables(engine: Engine) -> None:
    """Create every table registered on `Base` (idempotent)."""
    Base.metadata.create_all(engine)
