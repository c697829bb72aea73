"""One HTTP exchange with a server we do not control, bounded in time and size.

httpx's timeouts bound each network operation, not the exchange: a server that sends one byte a second never
trips a read timeout, and a server that sends a gigabyte is read whole. `exchange` bounds both: everything from
connecting to the last byte of the body runs under one deadline (a `DeadlineExceededError` when it passes,
wherever the exchange is), and the body is read in chunks and refused (`ReplyTooLargeError`) as soon as it, or the
length the server announces, passes `max_bytes`.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import httpx

from reasonforge.errors import ReasonForgeError

__all__ = ["DeadlineExceededError", "Exchanged", "ReplyTooLargeError", "exchange"]


class DeadlineExceededError(ReasonForgeError):
    """The exchange (connect, send, every read) did not finish by its deadline."""

    code = "deadline_exceeded"


class ReplyTooLargeError(ReasonForgeError):
    """The server's body is (or says it will be) over the size the reader accepts."""

    code = "reply_too_large"


@dataclass(frozen=True)
class Exchanged:
    """A whole reply: its status, headers and body (at most `max_bytes`)."""

    status_code: int
    headers: httpx.Headers
    body: bytes

    @property
    def content_type(self) -> str:
        """The media type, lower case, without parameters."""
        return self.headers.get("content-type", "").partition(";")[0].strip().lower()


async def exchange(client: httpx.AsyncClient, method: str, url: str, *, json: Any = None, deadline_s: float,
                   max_bytes: int) -> Exchanged:
    """Send one request and read its whole reply within `deadline_s` seconds from now and `max_bytes` bytes.

    Raises httpx's transport errors as they come, `DeadlineExceededError` and `ReplyTooLargeError`."""
    try:
        async with asyncio.timeout(deadline_s):
            async with client.stream(method, url, json=json) as response:
                announced = response.headers.get("content-length", "")
                if announced.isdigit() and int(announced) > max_bytes:
                    raise ReplyTooLargeError(f"the reply announces {announced} bytes, over the limit of {max_bytes}")
                chunks: list[bytes] = []
                size = 0
                async for chunk in response.aiter_bytes():
                    size += len(chunk)
                    if size > max_bytes:
                        raise ReplyTooLargeError(f"the reply is over the limit of {max_bytes} bytes")
                    chunks.append(chunk)
                return Exchanged(response.status_code, response.headers, b"".join(chunks))
    except TimeoutError:
        raise DeadlineExceededError(f"no whole reply within the deadline of {deadline_s:g} s") from None
