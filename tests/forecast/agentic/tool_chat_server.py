"""A loopback server speaking OpenAI `/v1/chat/completions` with `tools` / `tool_calls`, and `/v1/models`.

Replies are built from the recorded gpt-4o envelopes in `tests/translate/data/llm/` (see its SOURCE.md):
`openai_chat_tool_calls.json` (an assistant turn with `tool_calls` and `content: null`,
`finish_reason: "tool_calls"`) and `openai_chat_json_mode.json` (a plain text turn); only the message
changes. A *policy* — any callable from the request body to `(status, body, headers)` — decides each
answer, so a scripted "model" can react to the tool results it was sent. Every request body is recorded.
"""

from __future__ import annotations

import copy
import json
import re
import threading
from collections.abc import Callable, Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Self

LLM_DATA = Path(__file__).resolve().parents[2] / "translate" / "data" / "llm"
Reply = tuple[int, Any, dict[str, str]]
Policy = Callable[[dict[str, Any]], Reply]


def recorded(name: str) -> dict[str, Any]:
    """A recorded payload (fresh copy)."""
    return json.loads((LLM_DATA / f"{name}.json").read_text(encoding="utf-8"))


def text_reply(content: str | None) -> Reply:
    """The recorded text completion with its content replaced."""
    body = recorded("openai_chat_json_mode")
    body["choices"][0]["message"]["content"] = content
    return 200, body, {}


def tool_calls_reply(calls: Iterable[tuple[str, str | dict[str, Any]]], content: str | None = None) -> Reply:
    """The recorded tool-call completion carrying `calls` (name, arguments); dict arguments are JSON-encoded,
    string arguments are sent verbatim (so a test can send broken JSON, as models sometimes do)."""
    body = recorded("openai_chat_tool_calls")
    template = body["choices"][0]["message"]["tool_calls"][0]
    message = body["choices"][0]["message"]
    message["content"] = content
    message["tool_calls"] = []
    for i, (name, arguments) in enumerate(calls):
        call = copy.deepcopy(template)
        call["id"] = f"{template['id'][:-3]}{i:03d}"
        call["function"] = {"name": name, "arguments": arguments if isinstance(arguments, str) else
                            json.dumps(arguments)}
        message["tool_calls"].append(call)
    return 200, body, {}


def error_reply(status: int) -> Reply:
    """A recorded OpenAI error body (429 rate limit or 400 invalid request) with its status."""
    name = "openai_error_429" if status == 429 else "openai_error_400"
    return status, recorded(name), {"Retry-After": "0"} if status == 429 else {}


def outcomes_of(body: dict[str, Any]) -> list[str]:
    """The numbered outcome lines of the user prompt."""
    user = next(m["content"] for m in body["messages"] if m["role"] == "user")
    return re.findall(r"^\s+\d+\. (.+)$", user, flags=re.MULTILINE)


def forecast_date_of(body: dict[str, Any]) -> str:
    """The `Forecast date:` line of the user prompt."""
    user = next(m["content"] for m in body["messages"] if m["role"] == "user")
    return re.search(r"^Forecast date: (.+)$", user, flags=re.MULTILINE).group(1).strip()


def final_answer(body: dict[str, Any], probs: list[float] | None = None) -> str:
    """A strict final answer for the question in `body` (uniform unless given), with a notebook when asked."""
    n = len(outcomes_of(body))
    probs = probs or [1.0 / n] * n
    answer: dict[str, Any] = {"probabilities": probs}
    if '"notebook"' in body["messages"][0]["content"]:
        answer["notebook"] = {"beliefs": probs, "key_evidence": ["scripted"], "open_questions": [],
                              "updated_at": forecast_date_of(body)}
    return json.dumps(answer)


def tool_turns(body: dict[str, Any]) -> int:
    """How many assistant turns with tool calls the conversation already holds."""
    return sum(1 for m in body["messages"] if m["role"] == "assistant" and m.get("tool_calls"))


class Researcher:
    """A scripted model: search (each query), read every hit id seen plus `extra_reads`, run `code`, answer.

    It answers without tools as soon as the request offers none (the agent's final, budget-spent request).
    """

    def __init__(self, queries: list[str], extra_reads: Iterable[str] = (), code: str | None = "print(6 * 7)",
                 probs: list[float] | None = None) -> None:
        self.queries = queries
        self.extra_reads = list(extra_reads)
        self.code = code
        self.probs = probs

    def __call__(self, body: dict[str, Any]) -> Reply:
        """The next turn, given the conversation so far."""
        stages = (["search"] if self.queries else []) + (["read"] if self.queries or self.extra_reads else []) + (
            ["compute"] if self.code else [])
        turn = tool_turns(body)
        if not body.get("tools") or turn >= len(stages):
            return text_reply(final_answer(body, self.probs))
        if stages[turn] == "search":
            return tool_calls_reply([("search", {"query": q, "k": 5}) for q in self.queries])
        if stages[turn] == "read":
            seen = [m["content"] for m in body["messages"] if m["role"] == "tool"]
            ids = list(dict.fromkeys(re.findall(r"id=(\S+) \|", "\n".join(seen))))
            return tool_calls_reply([("read", {"doc_id": i}) for i in ids + self.extra_reads])
        return tool_calls_reply([("compute", {"code": self.code})])


class ToolChatServer:
    """Threaded loopback server; `policy(body)` answers each POST to /v1/chat/completions."""

    def __init__(self, policy: Policy, model_id: str = "scripted-researcher") -> None:
        self.policy = policy
        self.model_id = model_id
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def _send(self, status: int, body: Any, headers: dict[str, str]) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for key, value in headers.items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                if self.path.split("?")[0] == "/v1/models":
                    self._send(200, {"object": "list", "data": [{"id": server.model_id, "object": "model",
                                                                  "created": 1769747652, "owned_by": "test"}]}, {})
                else:
                    self._send(404, {"error": {"message": "not found", "type": "invalid_request_error"}}, {})

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                body = json.loads(raw)
                with server.lock:
                    server.requests.append(body)
                    server.headers.append(dict(self.headers))
                if self.path.split("?")[0] != "/v1/chat/completions":
                    self._send(404, {"error": {"message": "not found", "type": "invalid_request_error"}}, {})
                    return
                status, reply, headers = server.policy(body)
                if status == 200:
                    reply["model"] = body.get("model", reply["model"])
                self._send(status, reply, headers)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def sent_messages(self, roles: tuple[str, ...] = ("system", "user", "tool")) -> list[str]:
        """Every message text the agent sent with one of `roles` (the environment's words, not the model's)."""
        return [m.get("content") or "" for body in self.requests for m in body["messages"] if m["role"] in roles]

    def __enter__(self) -> Self:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
