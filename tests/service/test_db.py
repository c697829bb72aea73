"""The SQLite write gate: a process's writers queue on it instead of meeting SQLite's lock."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest
from sqlalchemy import Column, Integer, MetaData, String, Table, event, insert, select
from sqlalchemy.exc import IntegrityError, OperationalError

from reasonforge.service.db import make_engine

HANG_GUARD_S = 120  # generous: only a deadlock gets near it


def _table(engine):
    meta = MetaData()
    table = Table("t", meta, Column("id", Integer, primary_key=True), Column("name", String, unique=True))
    meta.create_all(engine)
    return table


def _no_busy_wait(engine) -> None:
    """SQLite's own busy handler off: a writer that meets the lock fails at once instead of sleeping."""

    @event.listens_for(engine, "connect")
    def _zero(dbapi_conn, _record) -> None:
        dbapi_conn.execute("PRAGMA busy_timeout=0")


def _run(threads: list[threading.Thread]) -> None:
    for t in threads:
        t.start()
    for t in threads:
        t.join(HANG_GUARD_S)
    assert not any(t.is_alive() for t in threads), "a writer hung"


def test_concurrent_writers_of_one_process_never_meet_the_sqlite_lock(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'gate.db'}")
    _no_busy_wait(engine)
    table = _table(engine)
    errors: list[OperationalError] = []
    barrier = threading.Barrier(12)

    def write(worker: int) -> None:
        barrier.wait()
        try:
            for n in range(40):
                with engine.begin() as conn:  # a read, then writes, then commit: the lock is held throughout
                    conn.execute(select(table.c.id).limit(1)).all()
                    conn.execute(insert(table).values(name=f"{worker}-{n}-a"))
                    conn.execute(insert(table).values(name=f"{worker}-{n}-b"))
        except OperationalError as exc:  # without the gate: "database is locked" at once
            errors.append(exc)

    _run([threading.Thread(target=write, args=(w,)) for w in range(12)])
    assert errors == []
    with engine.connect() as conn:
        assert len(conn.execute(select(table.c.id)).all()) == 12 * 40 * 2
    engine.dispose()


def test_a_failed_write_releases_the_gate(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'gate.db'}")
    table = _table(engine)
    with engine.begin() as conn:
        conn.execute(insert(table).values(name="taken"))
    with pytest.raises(IntegrityError), engine.begin() as conn:
        conn.execute(insert(table).values(name="taken"))
    # A bare statement error without a rollback by SQLAlchemy: the driver's own transaction state decides.
    raw = engine.raw_connection()
    try:
        with pytest.raises(sqlite3.IntegrityError):
            raw.cursor().execute("INSERT INTO t (name) VALUES ('taken')")
        raw.rollback()
    finally:
        raw.close()
    done = threading.Event()

    def write_from_another_thread() -> None:
        with engine.begin() as conn:
            conn.execute(insert(table).values(name="after"))
        done.set()

    _run([threading.Thread(target=write_from_another_thread)])
    assert done.is_set()
    engine.dispose()


def test_a_thread_writing_on_two_connections_fails_like_sqlite_instead_of_deadlocking(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'gate.db'}")
    _no_busy_wait(engine)
    table = _table(engine)
    outcome: list[str] = []

    def nested() -> None:
        with engine.begin() as outer:
            outer.execute(insert(table).values(name="outer"))
            try:
                with engine.begin() as inner:  # SQLite's lock is held by `outer`: it must refuse, not wait
                    inner.execute(insert(table).values(name="inner"))
            except OperationalError as exc:
                outcome.append("locked" if "locked" in str(exc) else str(exc))

    _run([threading.Thread(target=nested)])
    assert outcome == ["locked"]
    with engine.connect() as conn:
        assert [r.name for r in conn.execute(select(table.c.name))] == ["outer"]
    engine.dispose()


def test_a_jobs_table_from_before_lanes_gets_the_column_and_its_rows_are_heavy(tmp_path: Path) -> None:
    from reasonforge.service.db import create_tables
    from reasonforge.service.jobs.tables import JobRow

    engine = make_engine(f"sqlite:///{tmp_path / 'old.db'}")
    create_tables(engine)
    with engine.begin() as conn:  # the table as an earlier version created it, with one queued job in it
        conn.exec_driver_sql("DROP INDEX ix_service_jobs_status_lane_created")
        conn.exec_driver_sql("ALTER TABLE service_jobs DROP COLUMN lane")
        conn.exec_driver_sql(
            "INSERT INTO service_jobs (task_id, owner_key_id, request_json, request_hash, proof_level, steps_total, "
            "status, attempts, enqueued_at, webhook_pending, created_at, updated_at) "
            "VALUES ('t1', 'k', '{}', 'h', 'quick', 1, 'queued', 0, 0, 0, 0, 0)")
    create_tables(engine)
    create_tables(engine)  # idempotent
    with engine.begin() as conn:
        assert conn.execute(select(JobRow.lane)).scalars().all() == ["heavy"]
        indexes = {row[1] for row in conn.exec_driver_sql("PRAGMA index_list('service_jobs')")}
    assert "ix_service_jobs_status_lane_created" in indexes
