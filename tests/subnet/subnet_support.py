"""Shared by the subnet tests: a real miner server on loopback and small task builders.

Plain helpers with no pytest dependency. `running_miner(app)` serves any ASGI app with uvicorn in a
background thread on a port the kernel just handed out (the socket is bound before uvicorn starts,
so no other process can take the port in between), waits until GET /health answers and shuts the
server down on exit.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import uvicorn

from reasonforge.subnet.chain import Endpoint
from reasonforge.subnet.protocol import TranslationTask
from reasonforge.types import ArtifactLanguage, StepTranslation

START_TIMEOUT_S = 15.0
STOP_TIMEOUT_S = 10.0


@contextlib.contextmanager
def running_miner(app: Any, *, health_path: str = "/health") -> Iterator[str]:
    """Serve `app` on 127.0.0.1 in a thread; yield its base URL (http://127.0.0.1:PORT)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(
        app, log_level="warning", access_log=False, timeout_graceful_shutdown=2
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, name=f"miner-{port}", daemon=True)
    thread.start()
    base_url = f"http://127.0.0.1:{port}"
    try:
        _wait_healthy(base_url + health_path, thread)
        yield base_url
    finally:
        server.should_exit = True
        thread.join(STOP_TIMEOUT_S)
        sock.close()


def _wait_healthy(url: str, thread: threading.Thread) -> None:
    """Poll `url` until it answers 200; fail with a clear message if the server died or never came up."""
    deadline = time.monotonic() + START_TIMEOUT_S
    last = "no answer yet"
    while time.monotonic() < deadline:
        if not thread.is_alive():
            raise RuntimeError(f"the miner server thread exited before {url} answered")
        try:
            if httpx.get(url, timeout=1.0, trust_env=False).status_code == 200:
                return
            last = "non-200 answer"
        except httpx.HTTPError as exc:
            last = f"{type(exc).__name__}: {exc}"
        time.sleep(0.02)
    raise RuntimeError(f"{url} did not answer within {START_TIMEOUT_S} s ({last})")


def endpoint_of(base_url: str) -> Endpoint:
    """The Endpoint for a base URL from `running_miner`."""
    host_port = base_url.removeprefix("http://")
    host, _, port = host_port.rpartition(":")
    return Endpoint(host=host, port=int(port))


def arithmetic_task(task_id: str = "task-1", *, timeout_seconds: int = 30, x: int = 3) -> TranslationTask:
    """A two-step mathematics task (`Let x = 3`, `So x + 2 = 5`) at quick level."""
    return TranslationTask(
        task_id=task_id,
        original_query=f"Let x be {x}. What is x + 2?",
        reasoning_chain=[
            {"step_id": 1, "content": f"Let x = {x}"},
            {"step_id": 2, "content": f"So x + 2 = {x + 2}"},
        ],
        domain="mathematics",
        difficulty=2,
        proof_level="quick",
        timeout_seconds=timeout_seconds,
        claimed_answer=str(x + 2),
    )


def sympy_translations(x: int = 3, claimed_sum: int = 5) -> list[StepTranslation]:
    """Quick-level artifacts for `arithmetic_task`: step 2 claims x + 2 = `claimed_sum`."""
    return [
        StepTranslation(step_id=1, language=ArtifactLanguage.SYMPY, formal_representation=f"define x = {x}"),
        StepTranslation(
            step_id=2,
            language=ArtifactLanguage.SYMPY,
            formal_representation=f"let x = {x}\nclaim x + 2 = {claimed_sum}",
            dependencies=[1],
        ),
    ]


async def echo_translator(task: TranslationTask) -> TranslationTask:
    """A miner handler that answers every arithmetic task with correct sympy artifacts."""
    return task.with_submission(sympy_translations(), "COMPILED", translation_time_ms=1)
