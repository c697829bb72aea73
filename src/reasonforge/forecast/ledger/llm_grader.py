"""Grade a reasoning with a model behind an OpenAI-compatible chat-completions endpoint.

The model gets a fixed rubric, the reasoning and the key events (in a seeded random order, so position
bias does not systematically favour the first event) and must answer with JSON only:
`{"argument": 0|1|2, "events": [{"id": "E1", "anticipated": true, "evidence": "quote"}]}`. The reply is
validated (parseable JSON, argument in range, exactly one decision per event id); an invalid reply is sent
back once with the problem named, and if the second reply is invalid too the grade carries the error and
no score (`argument=None`) — a score is never invented.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import random
import re

import httpx

from reasonforge.boundary.jsontext import JsonLimits, load_json
from reasonforge.errors import InputError
from reasonforge.forecast.ledger.grade import Assessment, EventDecision
from reasonforge.forecast.ledger.models import Development
from reasonforge.forecast.runner import (
    ModelSpec,
    RunConfig,
    chat,
    discover_model,
    require_key,
    resolve_model,
)

_REPLY_JSON = JsonLimits(max_depth=8)  # a grade is an object of a few fields and a list of events

RUBRIC = """You grade a forecaster's reasoning, written on day zero, against events that happened later.

1. argument (0, 1 or 2): does the text connect its evidence to its probability?
   0 = no connection: a list of facts or headlines, or a number with no reasons.
   1 = some reasoning: at least one fact is linked to the outcome, but loosely or without saying how it
       moves the probability.
   2 = explicit: names concrete drivers and says how each raises or lowers the probability or likelihood.
2. events: for EVERY later event listed, decide whether the reasoning anticipated its substance (named the
   development or the driver behind it before it happened). Mentioning the topic is not enough. Quote the
   shortest passage of the reasoning that anticipates it as "evidence" ("" when not anticipated).

Answer with one JSON object and nothing else:
{"argument": 0, "events": [{"id": "E1", "anticipated": false, "evidence": ""}]}"""


class GraderReplyError(ValueError):
    """The model's reply is not a valid grading (bad JSON, missing events, out-of-range grade)."""


def event_ids(events: list[Development]) -> dict[str, Development]:
    """Stable ids E1..En in the given (canonical) order."""
    return {f"E{i}": event for i, event in enumerate(events, start=1)}


def build_prompt(reasoning: str, events: list[Development], seed: int) -> str:
    """The user message: the reasoning and the events, shuffled with a seed tied to this reasoning."""
    ids = list(event_ids(events).items())
    digest = hashlib.sha256(reasoning.encode("utf-8")).hexdigest()[:16]
    random.Random(f"{seed}:{digest}").shuffle(ids)
    lines = [f"- {eid} ({event.date.isoformat()}): {event.text}" for eid, event in ids]
    return ("REASONING (written on day zero):\n<<<\n" + reasoning + "\n>>>\n\nLATER EVENTS:\n"
            + ("\n".join(lines) if lines else "(none)"))


def parse_reply(content: str, events: list[Development]) -> Assessment:
    """Validate a reply into an Assessment; raises GraderReplyError naming what is wrong."""
    text = content.strip()
    fenced = re.fullmatch(r"```(?:json)?\s*(.*?)\s*```", text, re.DOTALL)
    if fenced:
        text = fenced.group(1)
    try:
        data = load_json(text, what="the reply", limits=_REPLY_JSON)  # a model wrote it: bounded before decoding
    except InputError as exc:
        raise GraderReplyError(f"reply is not valid JSON ({exc.message}): {content[:120]!r}") from None
    if not isinstance(data, dict):
        raise GraderReplyError("reply must be a JSON object with 'argument' and 'events'")
    argument = data.get("argument")
    if isinstance(argument, bool) or not isinstance(argument, int) or argument not in (0, 1, 2):
        raise GraderReplyError(f"'argument' must be 0, 1 or 2, got {argument!r}")
    ids = event_ids(events)
    raw = data.get("events")
    if not isinstance(raw, list):
        raise GraderReplyError("'events' must be a list of {id, anticipated, evidence}")
    decided: dict[str, EventDecision] = {}
    for item in raw:
        if not isinstance(item, dict) or item.get("id") not in ids:
            raise GraderReplyError(f"unknown or malformed event entry {str(item)[:80]}; ids are {', '.join(ids)}")
        if not isinstance(item.get("anticipated"), bool):
            raise GraderReplyError(f"event {item['id']}: 'anticipated' must be true or false")
        if item["id"] in decided:
            raise GraderReplyError(f"event {item['id']} is decided twice")
        evidence = item.get("evidence") or ""
        decided[item["id"]] = EventDecision(event=ids[item["id"]], anticipated=item["anticipated"],
                                            similarity=None, matched_text=str(evidence))
    missing = [eid for eid in ids if eid not in decided]
    if missing:
        raise GraderReplyError(f"no decision for event(s) {', '.join(missing)}")
    return Assessment(argument=argument, events=[decided[eid] for eid in ids], reason=f"LLM argument grade {argument}")


class LLMGrader:
    """Rubric grading by a chat model: a base URL (model from `model` or /models) or a model name."""

    def __init__(self, base_url_or_name: str, model: str | None = None, api_key_env: str = "OPENAI_API_KEY",
                 seed: int = 0, timeout_s: float = 120.0) -> None:
        if not base_url_or_name.strip():
            raise InputError("--grader needs `offline`, a base URL or a model name", field="grader")
        self.seed = seed
        self.timeout_s = timeout_s
        self.api_key = os.environ.get(api_key_env)
        self.spec: ModelSpec = resolve_model(base_url_or_name, model_name=model, api_key=self.api_key or "")
        if self.spec.baseline is not None:
            raise InputError(f"'{base_url_or_name}' is a forecasting baseline, not a grader model; pass a base URL "
                             "or a chat model name", field="grader")
        # no key for a hosted endpoint: stop before any forecaster is graded, not with one 401 per forecaster
        require_key(self.spec, api_key_env)
        self.api_key_env = api_key_env
        self.config = RunConfig(temperature=0.0, max_retries=2, timeout_s=timeout_s, backoff_s=0.5)
        self.name = f"llm:{self.spec.name or self.spec.base_url}"

    async def _ask(self, messages: list[dict[str, str]]) -> str:
        if not self.spec.name:
            self.spec = self.spec.model_copy(update={"name": await discover_model(self.spec, self.timeout_s)})
            self.name = f"llm:{self.spec.name}"
        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        async with httpx.AsyncClient(timeout=self.timeout_s, headers=headers) as client:
            return await chat(client, self.spec, messages, self.config, key_variable=self.api_key_env)

    def grade(self, reasoning: str, events: list[Development]) -> Assessment:
        """Ask the model; one retry on an invalid reply (then argument=None with the problem as reason).

        An endpoint that cannot answer (unreachable, refused key, timeout) raises `EndpointError`: the whole
        grading stops with that one-line message rather than scoring every forecaster as a failed request."""
        messages = [{"role": "system", "content": RUBRIC},
                    {"role": "user", "content": build_prompt(reasoning, events, self.seed)}]
        problem = ""
        for _attempt in range(2):
            content = asyncio.run(self._ask(messages))
            try:
                return parse_reply(content, events)
            except GraderReplyError as exc:
                problem = str(exc)
                messages = messages + [{"role": "assistant", "content": content},
                                       {"role": "user", "content": f"Your answer was invalid: {problem}. "
                                                                   "Answer again with the JSON object only."}]
        return Assessment(argument=None, reason=f"LLM grader gave an invalid reply twice, no score: {problem}")
