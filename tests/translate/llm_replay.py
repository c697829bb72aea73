"""A loopback HTTP server that speaks the real OpenAI and Anthropic endpoints and replays recorded responses.

`POST /v1/chat/completions`, `POST /v1/messages` and `GET /v1/models` answer from per-endpoint queues of
(status, JSON body, headers); every request is recorded with its headers and JSON body. Bodies are
built from the recorded envelopes in `data/llm/` (see its SOURCE.md): only the message text changes.
"""

from __future__ import annotations

import copy
import json
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Self

DATA = Path(__file__).resolve().parent / "data" / "llm"
CHAT = "/v1/chat/completions"
MESSAGES = "/v1/messages"
MODELS = "/v1/models"
OVERLAP_WAIT_S = 2.0


def field_paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every field path in a decoded JSON value (the root, `()`, first)."""
    out = [path]
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else []
    for key, item in items:
        out += field_paths(item, (*path, key))
    return out


def replaced(body: Any, path: tuple[Any, ...], value: Any) -> Any:
    """A copy of `body` with the field at `path` (from `field_paths`) set to `value`; `()` replaces it whole."""
    if not path:
        return value
    out = copy.deepcopy(body)
    holder = out
    for part in path[:-1]:
        holder = holder[part]
    holder[path[-1]] = value
    return out


def recorded(name: str) -> dict[str, Any]:
    """A recorded payload from data/llm (a fresh copy)."""
    return json.loads((DATA / f"{name}.json").read_text(encoding="utf-8"))


def openai_reply(content: str | None, *, finish_reason: str = "stop", refusal: str | None = None,
                 reasoning_content: str | None = None) -> dict[str, Any]:
    """The recorded gpt-4o chat.completion with its message content replaced."""
    body = recorded("openai_chat_json_mode")
    message = body["choices"][0]["message"]
    message["content"] = content
    message["refusal"] = refusal
    if reasoning_content is not None:
        message["reasoning_content"] = reasoning_content
    body["choices"][0]["finish_reason"] = finish_reason
    return body


def anthropic_reply(text: str | None = None, *, thinking: str | None = None, tool_input: dict | None = None,
                    stop_reason: str = "end_turn") -> dict[str, Any]:
    """The recorded Claude message (thinking + text) with its blocks replaced."""
    body = recorded("anthropic_thinking")
    signature = body["content"][0]["signature"]
    blocks: list[dict[str, Any]] = []
    if thinking is not None:
        blocks.append({"signature": signature, "thinking": thinking, "type": "thinking"})
    if text is not None:
        blocks.append({"text": text, "type": "text"})
    if tool_input is not None:
        tool = copy.deepcopy(recorded("anthropic_tool_use")["content"][0])
        tool["name"], tool["input"] = "submit_translation", tool_input
        blocks.append(tool)
    body["content"] = blocks
    body["stop_reason"] = stop_reason
    return body


class ReplayServer:
    """Threaded loopback server; `queue(path, body, status, headers)` scripts the next answer on `path`."""

    def __init__(self, delay_s: float = 0.0, overlap: int = 0) -> None:
        self.delay_s = delay_s  # hold each answer this long, so concurrent requests overlap
        # Hold each answer (up to OVERLAP_WAIT_S) until this many requests were in flight at once: a fixed
        # delay alone lets a slow scheduler start the second request after the first has answered.
        self.overlap = overlap
        self.in_flight = 0
        self.max_in_flight = 0
        self.scripts: dict[str, deque[tuple[int, Any, dict[str, str]]]] = {}
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        self.arrived = threading.Condition(self.lock)
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                path = self.path.split("?")[0]
                with server.lock:
                    server.in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server.in_flight)
                    server.requests.append({"method": self.command, "path": path, "headers": dict(self.headers),
                                            "body": json.loads(raw) if raw else None})
                    script = server.scripts.get(path)
                    step = script.popleft() if script else None
                    server.arrived.notify_all()
                    if not server.arrived.wait_for(lambda: server.max_in_flight >= server.overlap, OVERLAP_WAIT_S):
                        server.overlap = 0  # the client does not overlap requests: answer the rest at once
                if step is None:
                    step = (500, {"error": {"message": f"replay script for {path} is exhausted",
                                            "type": "server_error"}}, {})
                status, body, headers = step
                time.sleep(server.delay_s)
                with server.lock:
                    server.in_flight -= 1
                data = body if isinstance(body, bytes) else json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for key, value in headers.items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)

            do_GET = _answer
            do_POST = _answer

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def queue(self, path: str, body: Any, status: int = 200, headers: dict[str, str] | None = None) -> ReplayServer:
        """Append one scripted answer for `path`."""
        with self.lock:
            self.scripts.setdefault(path, deque()).append((status, body, headers or {}))
        return self

    def posted(self, path: str) -> list[dict[str, Any]]:
        """The JSON bodies POSTed to `path`, in order."""
        return [r["body"] for r in self.requests if r["path"] == path and r["method"] == "POST"]

    def __enter__(self) -> Self:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
