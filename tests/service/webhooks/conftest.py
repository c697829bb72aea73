"""Webhook fixtures: stores of both kinds and a real HTTP receiver on loopback."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from sqlalchemy.orm import sessionmaker

from reasonforge.service.db import create_tables, make_engine, make_sessionmaker


@pytest.fixture(params=["sqlite", "postgres"])
def sessions(request, tmp_path) -> Iterator[sessionmaker]:
    """A sessionmaker on a fresh SQLite file or PostgreSQL database, tables created."""
    url = (
        f"sqlite:///{tmp_path / 'service.db'}"
        if request.param == "sqlite"
        else request.getfixturevalue("fresh_postgres_url")
    )
    engine = make_engine(url)
    create_tables(engine)
    yield make_sessionmaker(engine)
    engine.dispose()


@dataclass
class Received:
    """One request as the receiver saw it."""

    path: str
    headers: dict[str, str]
    body: bytes
    at: float


@dataclass
class Receiver:
    """A loopback HTTP server answering from a script: (status, headers) per request, then 200."""

    port: int
    script: list[tuple[int, dict[str, str]]] = field(default_factory=list)
    requests: list[Received] = field(default_factory=list)

    def url(self, path: str = "/hook") -> str:
        return f"http://127.0.0.1:{self.port}{path}"


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    """Start a receiver on a free loopback port; stopped when the test ends."""
    state = Receiver(port=0)
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            with lock:
                state.requests.append(
                    Received(
                        self.path, dict(self.headers.items()), body, time.monotonic()
                    )
                )
                status, headers = state.script.pop(0) if state.script else (200, {})
            payload = f"status {status}".encode()
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield state
    server.shutdown()
    server.server_close()
