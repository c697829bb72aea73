"""Loopback endpoints that fail the way real ones do: a closed port, a refused key, a server that never answers."""

from __future__ import annotations

import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Self


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Endpoint:
    """Answers /v1/models and /v1/chat/completions: `ok_first` good replies, then `status` (or silence when
    `status` is None: the handler waits until the server stops, past any short client timeout)."""

    def __init__(self, status: int | None, ok_first: int = 0, reply: str = "PROBABILITY: 0.4"):
        self.status = status
        self.ok_first = ok_first
        self.reply = reply
        self.chats = 0
        self.lock = threading.Lock()
        self.release = threading.Event()
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _send(self, status: int, body: dict) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _fail(self) -> bool:
                if endpoint.status is None:
                    endpoint.release.wait(30)
                    return True
                self._send(endpoint.status, {"error": {"message": "Incorrect API key provided",
                                                       "type": "invalid_request_error"}})
                return True

            def do_GET(self):
                if endpoint.ok_first == 0:
                    self._fail()
                    return
                self._send(200, {"object": "list", "data": [{"id": "stub-model", "object": "model"}]})

            def do_POST(self):
                self.rfile.read(int(self.headers["Content-Length"]))
                with endpoint.lock:
                    endpoint.chats += 1
                    good = endpoint.chats <= endpoint.ok_first
                if not good:
                    self._fail()
                    return
                self._send(200, {"id": "c", "object": "chat.completion", "model": "stub-model",
                                 "choices": [{"index": 0, "finish_reason": "stop",
                                              "message": {"role": "assistant", "content": endpoint.reply}}]})

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.server.block_on_close = False
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> Self:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()
