"""A loopback server speaking the OpenAI `/v1/chat/completions` and `/v1/models` protocol."""

from __future__ import annotations

import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Self


class FakeOpenAI:
    """Answers each question with a fixed probability; can fail the first N calls with 429 or 500."""

    def __init__(self, reply: str = "Thinking it over.\nPROBABILITY: 0.3", fail_first: int = 0, status: int = 429):
        self.reply = reply
        self.fail_first = fail_first
        self.status = status
        self.requests: list[dict] = []
        self.lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _send(self, status, body, headers=None):
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                if self.path == "/v1/models":
                    self._send(200, {"object": "list", "data": [{"id": "fake-forecaster", "object": "model",
                                                                  "created": 1700000000, "owned_by": "test"}]})
                else:
                    self._send(404, {"error": {"message": "not found", "type": "invalid_request_error"}})

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with fake.lock:
                    fake.requests.append(body)
                    failing = fake.fail_first > 0
                    fake.fail_first -= 1
                if failing:
                    self._send(fake.status, {"error": {"message": "slow down", "type": "rate_limit_error"}},
                               {"Retry-After": "0"})
                    return
                question = body["messages"][-1]["content"]
                reply = fake.reply
                if "NO-ANSWER" in question:
                    reply = "I cannot say."
                self._send(200, {
                    "id": "chatcmpl-test", "object": "chat.completion", "created": int(time.time()),
                    "model": body["model"],
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": reply}, "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": len(re.findall(r"\w+", question)), "completion_tokens": 8,
                              "total_tokens": len(re.findall(r"\w+", question)) + 8},
                })

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> Self:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()
