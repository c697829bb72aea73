"""`ReasonForge`: the synchronous client, a transport that performs the calls of `core` with httpx.Client and
websockets' blocking client."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Self

import httpx

from reasonforge.sdk import protocol
from reasonforge.sdk.core import (
    Calls,
    Effect,
    OpenStream,
    Operation,
    Pause,
    Quiet,
    ReceiveFrame,
    Send,
    SendFrame,
    WaitVia,
)

__all__ = ["ReasonForge", "WaitVia"]


class ReasonForge(Calls):
    """Client for a ReasonForge API: `verify()` submits a reasoning chain and waits for its verdict."""

    def __init__(
        self,
        api_key: str | None = None,
        base_url: str | None = None,
        *,
        timeout: float = 30.0,
        max_retries: int = 2,
        http_client: httpx.Client | None = None,
    ) -> None:
        super().__init__(api_key, base_url, timeout=timeout, max_retries=max_retries)
        self._owns_client = http_client is None
        self._http = http_client or httpx.Client(timeout=timeout)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the HTTP connection pool (only when this client created it)."""
        if self._owns_client:
            self._http.close()

    def _bind(self, steps: Callable[..., Operation[Any]]) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            return self._run(steps(self, *args, **kwargs))

        return call

    def _run(self, op: Operation[Any]) -> Any:
        """Perform `op`'s effects in this thread until it returns; the socket it opened is closed at its end."""
        stream = _Stream()
        reply: Any = None
        try:
            while True:
                try:
                    effect = op.send(reply)
                except StopIteration as done:
                    return done.value
                reply = self._perform(effect, stream)
        finally:
            op.close()
            stream.close()

    def _perform(self, effect: Effect, stream: _Stream) -> Any:
        if isinstance(effect, Send):
            protocol.check_open(self._http.is_closed, effect.method, effect.url)
            try:
                return self._http.request(effect.method, effect.url, json=effect.json, headers=effect.headers)
            except httpx.TransportError as exc:
                return exc
        if isinstance(effect, Pause):
            time.sleep(effect.seconds)
            return None
        return stream.perform(effect)


class _Stream:
    """The event socket of one operation (websockets' blocking client)."""

    def __init__(self) -> None:
        self._socket: Any = None

    def perform(self, effect: OpenStream | SendFrame | ReceiveFrame) -> Any:
        from websockets.exceptions import ConnectionClosed, WebSocketException
        from websockets.sync.client import connect

        if isinstance(effect, OpenStream):
            self.close()
            try:
                self._socket = connect(
                    effect.uri, additional_headers=dict(effect.headers), open_timeout=effect.open_timeout_s,
                    max_size=effect.max_frame_bytes, ping_interval=None, user_agent_header=None)
            except (OSError, WebSocketException, TimeoutError):
                return False
            return True
        if self._socket is None:
            return False if isinstance(effect, SendFrame) else Quiet.DROPPED
        try:
            if isinstance(effect, SendFrame):
                self._socket.send(effect.text)
                return True
            return self._socket.recv(timeout=effect.timeout_s)
        except TimeoutError:
            return Quiet.TIMED_OUT
        except (OSError, ConnectionClosed):
            return False if isinstance(effect, SendFrame) else Quiet.DROPPED

    def close(self) -> None:
        if self._socket is not None:
            socket, self._socket = self._socket, None
            socket.close()
