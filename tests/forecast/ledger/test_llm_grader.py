"""LLMGrader against a loopback OpenAI-protocol server replaying recorded chat-completions bodies."""

from __future__ import annotations

import json
import re
import threading
from datetime import date, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Self

import pytest

from reasonforge.errors import InputError
from reasonforge.forecast.ledger.grade import grade_market
from reasonforge.forecast.ledger.llm_grader import GraderReplyError, LLMGrader, build_prompt, parse_reply
from reasonforge.forecast.ledger.models import Development, Forecast, Ledger, PricePoint

DATA = Path(__file__).resolve().parent / "data"
NEWS = Path(__file__).resolve().parents[3] / "data" / "wikipedia_cep_2015_09" / "events.jsonl"
IDS = ["56779", "56835", "56879", "56916"]  # key: 13th (E1), 16th (E2), 18th (E3); the 10th is not key
PRICES = [0.30, 0.30, 0.31, 0.33, 0.32, 0.80, 0.80, 0.81, 0.81, 0.55, 0.56]
REASONING = ("Because Bavaria is pressing Berlin, I expect Germany to temporarily reintroduce controls on its "
             "border with Austria, which raises the probability to 0.65; if Hungary seals its border, migrants "
             "will likely be diverted through Serbia and Croatia.")


def ledger() -> Ledger:
    rows = {r["id"]: r for r in map(json.loads, NEWS.read_text(encoding="utf-8").splitlines())}
    devs = [Development(date=rows[i]["date"], text=rows[i]["description"], ref=i) for i in IDS]
    path = [PricePoint(date=date(2015, 9, 8) + timedelta(days=i), price=p) for i, p in enumerate(PRICES)]
    return Ledger(market_id="de-border", title="Will Germany, Croatia or Serbia close a border to migrants?",
                  day_zero=date(2015, 9, 8),
                  developments=devs, price_path=path)


class Replay:
    """Serves the given (status, recorded file name) answers in order and records every request body."""

    def __init__(self, answers: list[tuple[int, str]]):
        self.answers = list(answers)
        self.requests: list[dict[str, Any]] = []
        replay = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _send(self, status: int, body: Any) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.send_header("Retry-After", "0")
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                self._send(200, {"object": "list", "data": [{"id": "gpt-4o-2024-08-06", "object": "model"}]})

            def do_POST(self):
                replay.requests.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
                status, name = replay.answers.pop(0)
                body = (json.loads((DATA / f"{name}.json").read_text(encoding="utf-8")) if status == 200
                        else {"error": {"message": name, "type": "server_error"}})
                self._send(status, body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> Self:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()


def grade(answers: list[tuple[int, str]], seed: int = 0):
    with Replay(answers) as server:
        grader = LLMGrader(server.url, seed=seed)
        report = grade_market(ledger(), [Forecast(forecaster="m1", reasoning=REASONING)], grader)
    assert server.answers == [], "every recorded answer is consumed"
    return report, server.requests


def test_valid_reply_is_scored_with_the_formula():
    report, requests = grade([(200, "llm_grade_valid")])
    g = report.details["m1"]
    assert g.argument == 2 and g.anticipation == pytest.approx(4 / 3) and report.scores["m1"] == pytest.approx(10 / 3)
    assert [d.event.ref for d in g.events] == ["56835", "56879", "56916"]
    assert [d.anticipated for d in g.events] == [True, True, False]
    assert g.events[0].matched_text.startswith("I expect Germany") and g.events[0].similarity is None
    assert requests[0]["model"] == "gpt-4o-2024-08-06"  # discovered from /models
    assert requests[0]["messages"][0]["role"] == "system" and '"argument"' in requests[0]["messages"][0]["content"]
    assert "56779" not in json.dumps(requests) and "Denmark" not in requests[0]["messages"][1]["content"]


def test_fenced_json_is_accepted():
    report, _ = grade([(200, "llm_grade_fenced")])
    assert report.scores["m1"] == pytest.approx(1 + 2 / 3)


@pytest.mark.parametrize("bad", ["llm_grade_malformed", "llm_grade_missing_event", "llm_grade_out_of_range"])
def test_invalid_reply_is_retried_once_with_the_problem(bad):
    report, requests = grade([(200, bad), (200, "llm_grade_valid")])
    assert report.scores["m1"] == pytest.approx(10 / 3)
    feedback = requests[1]["messages"][-1]["content"]
    assert len(requests) == 2 and feedback.startswith("Your answer was invalid")
    assert requests[1]["messages"][-2]["role"] == "assistant"


def test_a_reply_deeper_than_any_grade_or_with_a_key_twice_is_invalid_never_a_crash():
    for reply, why in (('{"argument": ' + "[" * 100_000, "nested more than 8 levels deep"),
                       ('{"argument": 2, "argument": 0, "events": []}', "repeats the key")):
        with pytest.raises(GraderReplyError, match=why):
            parse_reply(reply, [])


def test_two_invalid_replies_give_no_score():
    report, requests = grade([(200, "llm_grade_malformed"), (200, "llm_grade_out_of_range")])
    g = report.details["m1"]
    assert len(requests) == 2 and g.total is None and g.argument is None
    assert "m1" not in report.scores
    assert "invalid reply twice" in g.reason and "'argument' must be 0, 1 or 2" in g.reason


def test_a_failing_endpoint_stops_the_grading_instead_of_scoring_anyone():
    from reasonforge.forecast.runner import EndpointError

    with pytest.raises(EndpointError, match=r"answered HTTP 500.*gave up after 3 tries"):
        grade([(500, "boom")] * 3)


def test_event_order_is_shuffled_with_the_seed():
    events = ledger().developments[1:]
    order = {seed: re.findall(r"- (E\d) ", build_prompt(REASONING, events, seed)) for seed in range(8)}
    assert all(sorted(ids) == ["E1", "E2", "E3"] for ids in order.values())
    assert len({tuple(ids) for ids in order.values()}) > 1
    assert build_prompt(REASONING, events, 3) == build_prompt(REASONING, events, 3)


def test_baseline_name_is_not_a_grader():
    with pytest.raises(InputError, match="baseline"):
        LLMGrader("market")


def test_resolve_grader_picks_offline_or_llm():
    from reasonforge.forecast.ledger import grade as grade_module

    assert grade_module.resolve_grader("offline").name == "offline"
    assert isinstance(grade_module.resolve_grader("http://127.0.0.1:9/v1", model="m"), LLMGrader)
    assert grade_module.LLMGrader is LLMGrader
