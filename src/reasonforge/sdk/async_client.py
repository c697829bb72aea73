"""`AsyncReasonForge`: the asyncio client, a transport that performs the calls of `core` with httpx.AsyncClient and
websockets' asyncio client; method for method the same as `ReasonForge`, each a coroutine function."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, Self

import httpx

from reasonforge.sdk import protocol
from reasonforge.sdk.core import Calls, Effect, OpenStream, Operation, Pause, Quiet, ReceiveFrame, Send, SendFrame

__all__ = ["AsyncReasonForge"]


class AsyncReasonForge(Calls):
    """Async client for a ReasonForge API: `await verify()` submits a chain and waits for its verdict."""

    def __init__(
        self,
        api_key: str | None = None,
        base_url: str | None = None,
        *,
        timeout: float = 30.0,
        max_retries: int = 2,
        http_client: httpx.AsyncClient | None = None,
    ) -> None:
        super().__init__(api_key, base_url, timeout=timeout, max_retries=max_retries)
        self._owns_client = http_client is None
        self._http = http_client or httpx.AsyncClient(timeout=timeout)

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    async def close(self) -> None:
        """Close the HTTP connection pool (only when this client created it)."""
        if self._owns_client:
            await self._http.aclose()

    def _bind(self, steps: Callable[..., Operation[Any]]) -> Callable[..., Any]:
        async def call(*args: Any, **kwargs: Any) -> Any:
            return await self._run(steps(self, *args, **kwargs))

        return call

    async def _run(self, op: Operation[Any]) -> Any:
        """Perform `op`'s effects, awaiting each, until it returns; the socket it opened is closed at its end."""
        stream = _Stream()
        reply: Any = None
        try:
            while True:
                try:
                    effect = op.send(reply)
                except StopIteration as done:
                    return done.value
                reply = await self._perform(effect, stream)
        finally:
            op.close()
            await stream.close()

    async def _perform(self, effect: Effect, stream: _Stream) -> Any:
        if isinstance(effect, Send):
            protocol.check_open(self._http.is_closed, effect.method, effect.url)
            try:
                return await self._http.request(effect.method, effect.url, json=effect.json, headers=effect.headers)
            except httpx.TransportError as exc:
                return exc
        if isinstance(effect, Pause):
            await asyncio.sleep(effect.seconds)
            return None
        return await stream.perform(effect)


class _Stream:
    """The event socket of one operation (websockets' asyncio client)."""

    def __init__(self) -> None:
        self._socket: Any = None

    async def perform(self, effect: OpenStream | SendFrame | ReceiveFrame) -> Any:
        from websockets.asyncio.client import connect
        from websockets.exceptions import ConnectionClosed, WebSocketException

        if isinstance(effect, OpenStream):
            await self.close()
            try:
                self._socket = await connect(
                    effect.uri, additional_headers=dict(effect.headers), open_timeout=effect.open_timeout_s,
                    max_size=effect.max_frame_bytes, ping_interval=None, user_agent_header=None)
            except (OSError, WebSocketException, TimeoutError):
                return False
            return True
        if self._socket is None:
            return False if isinstance(effect, SendFrame) else Quiet.DROPPED
        try:
            if isinstance(effect, SendFrame):
                await self._socket.send(effect.text)
                return True
            # Cancelling recv() on timeout loses nothing (websockets >= 13 guarantees it).
            return await asyncio.wait_for(self._socket.recv(), timeout=effect.timeout_s)
        except TimeoutError:
            return Quiet.TIMED_OUT
        except (OSError, ConnectionClosed):
            return False if isinstance(effect, SendFrame) else Quiet.DROPPED

    async def close(self) -> None:
        if self._socket is not None:
            socket, self._socket = self._socket, None
            await socket.close()
