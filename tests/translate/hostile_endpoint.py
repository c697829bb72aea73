"""A loopback model endpoint that answers as a hostile or broken server would.

Every request (any method, any path) is answered by the server's current `Script`: a status, a content type and
a body sent whole, or trickled (`trickle_s` between bytes, the body repeated forever when `endless`), optionally
after trickling the status line itself, or a body that echoes the request's headers (a server that puts our
Authorization header into its error message). Every request's path and headers are recorded.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self


@dataclass
class Script:
    """How to answer: whole or trickled, what status and body."""

    body: bytes = b"{}"
    status: int = 200
    content_type: str = "application/json"
    trickle_s: float = 0.0  # seconds between bytes; 0 sends the body at once
    endless: bool = False  # with trickle_s: keep sending (the body again and again) until the client hangs up
    trickle_head: bool = False  # trickle the status line and headers too
    echo_headers: bool = False  # the body is a JSON error quoting every request header
    announce_length: bool = True  # send Content-Length (else the body runs until the connection closes)
    extra_headers: dict[str, str] = field(default_factory=dict)


class HostileEndpoint:
    """`with HostileEndpoint(Script(...)) as server:` then point a backend at `server.url + "/v1"`."""

    def __init__(self, script: Script | None = None) -> None:
        self.script = script or Script()
        self.requests: list[dict[str, Any]] = []
        self.bytes_sent = 0
        self.lock = threading.Lock()
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *_args: Any) -> None:
                pass

            def _answer(self) -> None:
                self.close_connection = True  # one answer per connection ("Connection: close")
                length = int(self.headers.get("Content-Length") or 0)
                sent = self.rfile.read(length) if length else b""
                with endpoint.lock:
                    endpoint.requests.append({"path": self.path, "headers": dict(self.headers), "body": sent})
                    script = endpoint.script
                body = script.body
                if script.echo_headers:
                    body = json.dumps({"error": {"type": "invalid_request_error", "message": "you sent: " + "; ".join(
                        f"{k}: {v}" for k, v in self.headers.items())}}).encode()
                head = (f"HTTP/1.1 {script.status} X\r\nContent-Type: {script.content_type}\r\n"
                        + "".join(f"{k}: {v}\r\n" for k, v in script.extra_headers.items())
                        + (f"Content-Length: {len(body) * (1000 if script.endless else 1)}\r\n"
                           if script.announce_length else "")
                        + "Connection: close\r\n\r\n").encode()
                try:
                    if script.trickle_head:
                        self._trickle(head, script)
                    else:
                        self.wfile.write(head)
                        self.wfile.flush()
                    if script.trickle_s <= 0:
                        self.wfile.write(body)
                        self.wfile.flush()
                        return
                    while True:
                        self._trickle(body, script)
                        if not script.endless:
                            return
                except (TimeoutError, BrokenPipeError, ConnectionResetError):
                    return

            def _trickle(self, data: bytes, script: Script) -> None:
                for index in range(len(data)):
                    self.wfile.write(data[index:index + 1])
                    self.wfile.flush()
                    with endpoint.lock:
                        endpoint.bytes_sent += 1
                    time.sleep(script.trickle_s or 0.05)

            do_GET = do_POST = _answer

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> Self:
        self.thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
