"""A loopback JSON-RPC node over eth-tester + py-evm, for tests and local development."""

from __future__ import annotations

import ast
import json
import threading
from collections.abc import Callable, Mapping
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any

from web3 import EthereumTesterProvider, Web3


def _handler(request: Callable[[str, Any], Mapping[str, object]]) -> type[BaseHTTPRequestHandler]:
    """A request handler bound to one in-process chain (no module-level state)."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            calls = body if isinstance(body, list) else [body]
            replies = [self._one(call) for call in calls]
            data = json.dumps(_wire(replies if isinstance(body, list) else replies[0])).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _one(self, call: dict) -> dict:
            try:
                response = dict(request(call["method"], call.get("params", [])))
            except Exception as exc:  # noqa: BLE001 (any failure becomes a JSON-RPC error, as on real nodes)
                data = _revert_data(exc)
                return {
                    "jsonrpc": "2.0",
                    "id": call.get("id"),
                    "error": {
                        "code": 3,
                        "message": f"execution reverted: {type(exc).__name__}",
                        "data": "0x" + data.hex(),
                    },
                }
            response["id"] = call.get("id")
            response["jsonrpc"] = "2.0"
            return response

        def log_message(self, format: str, *args: object) -> None:  # quiet
            return

    return Handler


def _revert_data(exc: Exception) -> bytes:
    """eth-tester reports revert data as the str() of a bytes object; recover the bytes."""
    for arg in exc.args:
        if isinstance(arg, bytes):
            return arg
        starts = [i for i in (arg.find("b'"), arg.find('b"')) if i >= 0] if isinstance(arg, str) else []
        if starts:
            start = min(starts)
            try:
                value = ast.literal_eval(arg[start:])
            except (ValueError, SyntaxError):
                continue
            if isinstance(value, bytes):
                return value
    return b""


def _wire(value: Any) -> Any:
    """Python results back to JSON-RPC wire form: quantities and bytes as 0x-hex."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        return hex(value)
    if isinstance(value, (bytes, bytearray)):
        return "0x" + bytes(value).hex()
    if isinstance(value, dict) or hasattr(value, "items"):
        return {k: (v if k in ("id", "jsonrpc", "error") else _wire(v)) for k, v in dict(value).items()}
    if isinstance(value, (list, tuple)):
        return [_wire(v) for v in value]
    return value


def start(host: str = "127.0.0.1", port: int = 0) -> tuple[HTTPServer, str]:
    """Start a single-threaded node in a daemon thread; returns the server and its URL."""
    # Single-threaded on purpose: eth-tester's chain is not safe for concurrent requests.
    # The provider's own middleware turns wire-format params into what eth-tester expects.
    w3 = Web3(EthereumTesterProvider())
    server = HTTPServer((host, port), _handler(w3.provider.request_func(w3, w3.middleware_onion)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://{host}:{server.server_address[1]}"


def stop(server: HTTPServer) -> None:
    """Stop serving and close the socket."""
    server.shutdown()
    server.server_close()
