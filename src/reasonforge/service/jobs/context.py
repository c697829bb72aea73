"""What a job runner needs in one process: settings, an engine and its sessions, a worker id."""

from __future__ import annotations

import logging
import os
import socket
import time
import uuid
import weakref
from dataclasses import dataclass, field

from sqlalchemy import Engine
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import sessionmaker

from reasonforge.service.db import create_tables, make_engine, make_sessionmaker
from reasonforge.service.settings import ServiceSettings

log = logging.getLogger(__name__)


@dataclass
class JobContext:
    """Per-process handles; never shared across a fork (see `ContextHolder`)."""

    settings: ServiceSettings
    engine: Engine
    sessionmaker: sessionmaker
    worker_id: str = field(
        default_factory=lambda: (
            f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        )
    )

    def close(self) -> None:
        """Release the connection pool."""
        self.engine.dispose()


def register_tables() -> None:
    """Import every module that defines tables on `Base`, so `create_tables` creates them all."""
    import reasonforge.service.jobs.tables  # noqa: F401

    for module in ("reasonforge.service.accounts", "reasonforge.service.webhooks"):
        __import__(module)


def make_context(settings: ServiceSettings) -> JobContext:
    """Open the store named by `settings` and create missing tables."""
    register_tables()
    engine = make_engine(settings.resolved_database_url())
    _forget_in_forked_children(engine)
    _create_tables_racing(engine)
    return JobContext(
        settings=settings, engine=engine, sessionmaker=make_sessionmaker(engine)
    )


def _forget_in_forked_children(engine: Engine) -> None:
    """A forked child (Celery prefork) must not use, or close, connections its parent holds."""
    ref = weakref.ref(engine)

    def after_fork() -> None:
        forked = ref()
        if forked is not None:
            forked.dispose(close=False)

    os.register_at_fork(after_in_child=after_fork)


def _create_tables_racing(engine: Engine, tries: int = 5) -> None:
    """API and workers may start together; PostgreSQL's CREATE TABLE can lose such a race: try again."""
    for attempt in range(tries):
        try:
            create_tables(engine)
            return
        except DBAPIError:
            if attempt == tries - 1:
                raise
            log.info("table creation raced another process; retrying")
            time.sleep(0.2 * (attempt + 1))
