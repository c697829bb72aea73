"""A loopback HTTP server answering like gamma `/markets` and CLOB `/prices-history` from the stored files."""

from __future__ import annotations

import json
import threading
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Self
from urllib.parse import parse_qs, urlparse

DATA = Path(__file__).parent / "data" / "polymarket"
INTERVAL_TOO_LONG = {"error": "invalid filters: 'startTs' and 'endTs' interval is too long"}


def _iso(text: str) -> datetime:
    return datetime.fromisoformat(text)


class FakePolymarket:
    """Serves the recorded/assembled responses; counts requests; optional 429 and window limit."""

    def __init__(self, *, max_window_s: int | None = None, rate_limit_first: bool = False) -> None:
        self.markets = json.loads((DATA / "gamma_markets_closed_page0.json").read_text())
        self.series = json.loads((DATA / "clob_prices_history_series.json").read_text())
        self.max_window_s = max_window_s
        self.rate_limit_first = rate_limit_first
        self.log: list[tuple[str, dict[str, str]]] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep test output quiet
                pass

            def do_GET(self):
                url = urlparse(self.path)
                params = {k: v[-1] for k, v in parse_qs(url.query).items()}
                fake.log.append((url.path, params))
                status, body, headers = fake.answer(url.path, params)
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for key, value in headers.items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def answer(self, path: str, params: dict[str, str]) -> tuple[int, object, dict[str, str]]:
        if self.rate_limit_first:
            self.rate_limit_first = False
            return 429, {"error": "Too Many Requests"}, {"Retry-After": "1"}
        if path == "/markets":
            rows = self.markets
            if "end_date_min" in params:
                lo, hi = _iso(params["end_date_min"]), _iso(params["end_date_max"])
                rows = [m for m in rows if lo <= _iso(m["endDate"]) < hi]
            offset, limit = int(params.get("offset", 0)), int(params.get("limit", 100))
            return 200, rows[offset:offset + limit], {}
        if path == "/prices-history":
            start, end = int(params["startTs"]), int(params["endTs"])
            if self.max_window_s is not None and end - start > self.max_window_s:
                return 400, INTERVAL_TOO_LONG, {}
            points = [pt for pt in self.series.get(params["market"], []) if start <= pt["t"] <= end]
            return 200, {"history": points}, {}
        return 404, {"error": "not found"}, {}

    def __enter__(self) -> Self:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()
