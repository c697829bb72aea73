"""The service's SQL store: one declarative base for every table and an engine per database URL."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

from sqlalchemy import Engine, create_engine, event, inspect, text
from sqlalchemy.orm import DeclarativeBase, sessionmaker


class Base(DeclarativeBase):
    """Declarative base shared by the job, account and webhook tables."""


SQLITE_WAIT_S = 30.0
"""How long a SQLite writer waits for the write lock (the gate, then SQLite's busy handler) before failing."""

_DML = ("INSERT", "UPDATE", "DELETE", "REPLACE")


class WriteGate:
    """One write transaction at a time among one process's connections to a SQLite file.

    SQLite allows one writer; a connection that finds the lock taken sleeps in its busy handler, in steps
    growing to 100 ms, however soon the lock is free again. Under load that sleeping, not the writes, is
    where a job store's time goes. Taking this lock first makes the threads of a process queue and wake
    the moment the writer commits; other processes (a CLI, a second server) still meet SQLite's handler."""

    def __init__(self, wait_s: float = SQLITE_WAIT_S) -> None:
        self._lock = threading.Lock()
        self._holder: int | None = None
        self._wait_s = wait_s

    def enter(self) -> bool:
        """Take the gate for a write transaction about to begin; False when it is not taken (see below)."""
        me = threading.get_ident()
        if self._holder == me:
            # This thread already writes on another connection: waiting here would deadlock it, while
            # SQLite's own lock fails it after its timeout, as it always did.
            return False
        if not self._lock.acquire(timeout=self._wait_s):
            return False  # a writer stuck this long: SQLite's busy timeout decides
        self._holder = me
        return True

    def leave(self) -> None:
        """Release the gate at the end of the write transaction."""
        self._holder = None
        self._lock.release()


def _gated_connection(gate: WriteGate) -> type[sqlite3.Connection]:
    """A sqlite3 connection class whose write transactions hold `gate` from their first statement to their end.

    The driver opens a transaction implicitly before the first INSERT/UPDATE/DELETE/REPLACE (its legacy
    transaction control, which SQLAlchemy keeps), and that is when SQLite takes its write lock: the gate is
    taken at the same statement and released by commit, rollback, close, or a statement that left no
    transaction open."""

    class GatedCursor(sqlite3.Cursor):
        connection: GatedConnection  # only GatedConnection.cursor makes these

        def execute(self, sql, parameters=(), /):
            held = self.connection._gate_before(sql)
            try:
                return super().execute(sql, parameters)
            finally:
                self.connection._gate_after(held)

        def executemany(self, sql, seq_of_parameters, /):
            held = self.connection._gate_before(sql)
            try:
                return super().executemany(sql, seq_of_parameters)
            finally:
                self.connection._gate_after(held)

    class GatedConnection(sqlite3.Connection):
        _holding = False

        def cursor(self, factory=GatedCursor):
            return super().cursor(factory)

        def _gate_before(self, sql: str) -> bool:
            if self._holding or self.in_transaction or not sql.lstrip()[:7].upper().startswith(_DML):
                return False
            self._holding = gate.enter()
            return self._holding

        def _gate_after(self, held: bool) -> None:
            if held and not self.in_transaction:  # autocommitted, or failed and rolled back by SQLite
                self._release()

        def _release(self) -> None:
            if self._holding:
                self._holding = False
                gate.leave()

        def commit(self):
            try:
                return super().commit()
            finally:
                self._release()

        def rollback(self):
            try:
                return super().rollback()
            finally:
                self._release()

        def close(self):
            try:
                return super().close()
            finally:
                self._release()

    return GatedConnection


def make_engine(url: str) -> Engine:
    """An engine for `url`; SQLite files get WAL, a busy timeout and a write gate so API and workers can share them."""
    if url.startswith("sqlite"):
        path = url.split("///", 1)[-1]
        pool: dict = {}
        if path and path != ":memory:" and "///" in url:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            # Every API thread, worker and lease keeper keeps a connection: opening one per request
            # (overflow connections are closed on return) costs its PRAGMAs each time.
            pool = {"pool_size": 64, "max_overflow": 64}
        engine = create_engine(
            url,
            connect_args={
                "check_same_thread": False,
                "timeout": SQLITE_WAIT_S,
                "factory": _gated_connection(WriteGate()),
            },
            **pool,
        )

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_conn, _record) -> None:
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute(f"PRAGMA busy_timeout={int(SQLITE_WAIT_S * 1000)}")
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
    """Create every table registered on `Base` (idempotent), and add the columns that tables created by an earlier
    version lack (`_ADDED_COLUMNS`)."""
    Base.metadata.create_all(engine)
    present = inspect(engine)
    for table, column, ddl in _ADDED_COLUMNS:
        if table in present.get_table_names() and column not in {c["name"] for c in present.get_columns(table)}:
            with engine.begin() as conn:
                conn.execute(text(f"ALTER TABLE {table} ADD COLUMN {column} {ddl}"))
    for table_ in Base.metadata.sorted_tables:  # an index on an added column, which create_all leaves out
        for index in table_.indexes:
            index.create(engine, checkfirst=True)


# (table, column, its DDL) added after the table was first released; constants, never input
_ADDED_COLUMNS = (
    ("service_jobs", "lane", "VARCHAR(8) NOT NULL DEFAULT 'heavy'"),
    ("service_jobs", "progress_json", "TEXT"),
)
