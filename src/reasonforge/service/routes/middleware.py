"""Request-size limit: 413 before anything parses a body that is too large."""

from __future__ import annotations

import json

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from reasonforge.service.errors import (
    BadRequestError,
    PayloadTooLargeError,
    ServiceError,
)


async def send_error(send: Send, error: ServiceError) -> None:
    """Answer with `error` straight from ASGI (no app involved)."""
    body = json.dumps(error.body()).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
    ]
    headers += [(k.lower().encode(), v.encode()) for k, v in error.headers.items()]
    await send(
        {"type": "http.response.start", "status": error.status_code, "headers": headers}
    )
    await send({"type": "http.response.body", "body": body})


def _too_large(limit: int, size: str) -> PayloadTooLargeError:
    return PayloadTooLargeError(
        f"request body is {size}, over the limit of {limit} bytes; send a smaller chain "
        f"(split it) or raise REASONFORGE_MAX_BODY_BYTES on the server",
        field="body",
    )


class BodyLimitMiddleware:
    """Rejects by Content-Length at once, and counts streamed (chunked) bodies as they arrive.

    The whole body is read here (at most `limit` bytes are ever held) and replayed to the app, so
    an oversized chunked upload is refused before the app has seen a byte of it.
    """

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None:
            try:
                length = int(declared)
                if length < 0:
                    raise ValueError
            except ValueError:
                await send_error(
                    send,
                    BadRequestError(
                        "Content-Length is not a non-negative integer", field="body"
                    ),
                )
                return
            if length > self.limit:
                await send_error(send, _too_large(self.limit, f"{length} bytes"))
                return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.limit:
                await send_error(
                    send, _too_large(self.limit, f"over {self.limit} bytes (streamed)")
                )
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)
