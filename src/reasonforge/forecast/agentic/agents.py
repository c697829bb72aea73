"""Forecasting agents for dated episodes: offline baselines and an OpenAI-compatible tool-calling agent.

An agent gets, per forecast date, only the question's public view (`Question.public_view(as_of)`: no
outcome, no resolution date), the date, a `Toolbox` bound to that date, and (memory on) the previous
date's validated notebook. It returns the final answer text in the strict format of `rewards`:
`{"probabilities": [...], "notebook": {...}}` (notebook only when memory is on). Scoring happens outside.

- `UniformAgent`: 1/n, no tools.
- `MarketAgent`: the latest market price in the view when there is one, else 1/n.
- `RetrievalHeuristicAgent`: searches with the question's keywords and each outcome's name, reads the
  top documents, and forecasts with `readers.BaseRateReader` (stated base rates + dated evidence); memory on,
  it averages that forecast with
  the notebook's beliefs (evidence from earlier dates is not thrown away).
- `ToolCallingAgent`: a chat loop against `/chat/completions` with `tools`, executing the model's
  `tool_calls` through the toolbox until it answers without tool calls or the budget is spent (then it is
  asked once for the final answer without tools).
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any, Protocol, runtime_checkable

import httpx
from pydantic import BaseModel, Field

from reasonforge.errors import InputError
from reasonforge.forecast.agentic.corpus import Document
from reasonforge.forecast.agentic.readers import (
    STOPWORDS,
    BaseRateReader,
    Reader,
    tokens,
)
from reasonforge.forecast.agentic.records import (
    PUBLIC_FIELDS,
    Notebook,
    Question,
    as_utc,
)
from reasonforge.forecast.agentic.rewards import normalise, parse_forecast
from reasonforge.forecast.agentic.tools import READ, SEARCH, Toolbox

MAX_NOTE_CHARS = 300


class AgentReply(BaseModel):
    """An agent's answer at one date: the final reply text (strict JSON) and what went wrong on the way."""

    raw: str
    errors: list[str] = Field(default_factory=list)
    turns: int = Field(default=0, ge=0, description="model calls made (0 for offline agents)")


@runtime_checkable
class Agent(Protocol):
    """Anything that forecasts a question's public view at a date with a toolbox (and an optional notebook).

    The episode adds `"memory": true|false` to the view: when true the answer must carry a notebook, also on
    the first date (where `notebook` is None).
    """

    name: str

    def forecast(self, question_view: dict[str, Any], as_of: datetime, toolbox: Toolbox,
                 notebook: Notebook | None) -> AgentReply:
        """The final answer for this date."""
        ...


def answer_json(probs: Sequence[float], notebook: Notebook | None = None) -> str:
    """The strict final-answer text: `{"probabilities": [...]}` plus the notebook when given."""
    body: dict[str, Any] = {"probabilities": [round(float(p), 6) for p in probs]}
    if notebook is not None:
        body["notebook"] = notebook.model_dump(mode="json")
    return json.dumps(body)


def _rounded(probs: Sequence[float]) -> list[float]:
    """Rounded to 6 decimals, with the last entry absorbing rounding so the mass stays 1 ± 1e-6."""
    values = [round(float(p), 6) for p in probs]
    values[-1] = round(1.0 - sum(values[:-1]), 6)
    return values if values[-1] >= 0 else [round(float(p), 6) for p in normalise(probs)]


def _notebook(probs: Sequence[float], as_of: datetime, evidence: Sequence[str], note: str | None = None) -> Notebook:
    return Notebook(beliefs=list(probs), key_evidence=[e[:MAX_NOTE_CHARS] for e in evidence][:10],
                    open_questions=[note[:MAX_NOTE_CHARS]] if note else [], updated_at=as_utc(as_of, "as_of"))


def _n_outcomes(view: dict[str, Any]) -> int:
    outcomes = view.get("outcomes")
    if not isinstance(outcomes, list) or len(outcomes) < 2:
        raise InputError("the question view has no outcome list; pass Question.public_view(as_of)", field="outcomes")
    return len(outcomes)


class UniformAgent:
    """1/n on every outcome; uses no tools."""

    name = "uniform"

    def forecast(self, question_view: dict[str, Any], as_of: datetime, toolbox: Toolbox,
                 notebook: Notebook | None) -> AgentReply:
        """Uniform probabilities (and, memory on, a notebook holding them)."""
        n = _n_outcomes(question_view)
        probs = _rounded([1.0 / n] * n)
        memo = _notebook(probs, as_of, []) if question_view.get("memory") else None
        return AgentReply(raw=answer_json(probs, memo))


class MarketAgent:
    """The market price published by the date (in the view as `market_price`), else uniform; no tools."""

    name = "market"

    def forecast(self, question_view: dict[str, Any], as_of: datetime, toolbox: Toolbox,
                 notebook: Notebook | None) -> AgentReply:
        """The latest visible market vector, or 1/n when the question has no market."""
        n = _n_outcomes(question_view)
        price = question_view.get("market_price")
        probs = _rounded(normalise(price) if isinstance(price, list) and len(price) == n else [1.0 / n] * n)
        memo = _notebook(probs, as_of, []) if question_view.get("memory") else None
        return AgentReply(raw=answer_json(probs, memo))


def public_question(view: dict[str, Any], as_of: datetime) -> Question:
    """A `Question` holding only the public view's fields, for tool-free readers.

    The agent does not know the schedule or resolution date; they are set to `as_of` (+1 s) so the model
    validates. Readers use only public fields (outcomes, text), never these.
    """
    fields = {name: view[name] for name in PUBLIC_FIELDS if name in view}
    as_of = as_utc(as_of, "as_of")
    return Question.model_validate({**fields, "forecast_dates": [as_of],
                                    "resolution_date": as_of + timedelta(seconds=1)})


_QUOTED = re.compile(r"[“\"]([^”\"]{3,120})[”\"]")
_GENERIC = frozenset({"none of these", "yes", "no"})


def search_queries(view: dict[str, Any], max_keywords: int = 12) -> list[str]:
    """The question's quoted names and keywords, then each distinctive outcome name (deduplicated)."""
    text = str(view.get("question", ""))
    queries = [m.strip() for m in _QUOTED.findall(text)]
    words = [w for w in tokens(_QUOTED.sub(" ", text)) if len(w) >= 3 and w not in STOPWORDS and not w.isdigit()]
    keywords = " ".join(dict.fromkeys(words[:max_keywords]))
    if keywords:
        queries.append(keywords)
    for outcome in view.get("outcomes", []):
        if outcome.strip().casefold() not in _GENERIC and any(ch.isalpha() for ch in outcome):
            name = " ".join(queries[:1] + [outcome]) if queries else outcome
            queries.append(name)
    return list(dict.fromkeys(q for q in queries if q))


class RetrievalHeuristicAgent:
    """Search (question keywords, outcome names) → read the top documents → reader forecast (BaseRateReader).

    Memory on, the forecast is the mean of this date's reader forecast and the notebook's beliefs.
    """

    def __init__(self, reader: Reader | None = None, *, k: int = 5, reads: int = 6, name: str = "retrieval") -> None:
        self.reader = reader or BaseRateReader()
        self.k = k
        self.reads = reads
        self.name = name

    def forecast(self, question_view: dict[str, Any], as_of: datetime, toolbox: Toolbox,
                 notebook: Notebook | None) -> AgentReply:
        """Search, read, read the evidence with the reader; errors from tools are recorded, not raised."""
        n = _n_outcomes(question_view)
        errors: list[str] = []
        ranked: dict[str, int] = {}  # doc id → best rank over all queries
        for query in search_queries(question_view):
            if toolbox.exhausted:
                break
            result = toolbox.call(SEARCH, {"query": query[:500], "k": self.k})
            if not result.ok:
                errors.append(f"search {query!r}: {result.content[:200]}")
            for rank, doc_id in enumerate(result.doc_ids):
                ranked[doc_id] = min(rank, ranked.get(doc_id, rank))
        docs: list[Document] = []
        for doc_id in sorted(ranked, key=lambda d: (ranked[d], d))[:self.reads]:
            if toolbox.exhausted:
                break
            result = toolbox.call(READ, {"doc_id": doc_id})
            if result.ok:
                docs.append(toolbox.documents[doc_id])
            else:
                errors.append(f"read {doc_id!r}: {result.content[:200]}")
        probs = self.reader.forecast(public_question(question_view, as_of), as_of, docs)
        if notebook is not None and len(notebook.beliefs) == n:
            probs = [(a + b) / 2.0 for a, b in zip(probs, notebook.beliefs, strict=True)]
        probs = _rounded(normalise(probs))
        memo = None
        if question_view.get("memory"):
            memo = _notebook(probs, as_of, [f"{d.id} ({d.published_at.date().isoformat()}): {d.title}" for d in docs])
        return AgentReply(raw=answer_json(probs, memo), errors=errors)


# --- the OpenAI-compatible tool-calling agent -----------------------------------------------------------------

SYSTEM_PROMPT = """You are a careful forecaster. You answer a question with mutually exclusive outcomes by giving
a probability for each outcome. Your forecast is scored with a strictly proper scoring rule against what
actually happens, so report your honest beliefs: avoid both false certainty and reflexive uniform splits.

It is {as_of} now. You can only see news published up to this moment; anything later does not exist yet
for you. Tools: `search` (keywords over the dated news archive), `read` (a document by id) and{compute}.
Work like this: read the question and its resolution criteria precisely; start from a base rate for the
reference class; search for targeted evidence and read the most relevant documents; update; then answer.
You have a budget of {rounds} tool rounds and {calls} tool calls for this date.

When you are done, reply with ONLY this JSON object and nothing else (no prose, no code fences):
{answer}
with one probability per outcome, in the order the outcomes are listed, summing to 1."""

MEMORY_NOTE = """
This question is asked on several dates. Your belief notebook from the previous date is below; build on it,
revise it with new evidence, and return an updated notebook in your answer (updated_at = the current time)."""

RETRY_PROMPT = ("Your answer could not be used ({errors}). Reply with ONLY the JSON object {answer}, nothing else.")
FINAL_PROMPT = ("The tool budget for this date is spent (or you stopped calling tools). Give your final answer "
                "now: ONLY the JSON object {answer}, nothing else.")


def _answer_shape(n: int, memory: bool) -> str:
    probs = ", ".join(f"p{i + 1}" for i in range(n))
    if not memory:
        return '{"probabilities": [' + probs + ']}'
    return ('{"probabilities": [' + probs + '], "notebook": {"beliefs": [' + probs + '], "key_evidence": '
            '["<short evidence notes with document ids>"], "open_questions": ["<what to check next time>"], '
            '"updated_at": "<current time, ISO 8601>"}}')


def user_prompt(view: dict[str, Any], notebook: Notebook | None, memory: bool) -> str:
    """The question as the model sees it: the public view (and the notebook when memory is on)."""
    lines = [f"Question: {view['question']}", "Outcomes:"]
    lines += [f"  {i + 1}. {outcome}" for i, outcome in enumerate(view["outcomes"])]
    for key, label in (("resolution_criteria", "Resolution criteria"), ("background", "Background")):
        if view.get(key):
            lines.append(f"{label}: {view[key]}")
    if "market_price" in view:
        lines.append(f"Latest market probabilities: {view['market_price']}")
    lines.append(f"Forecast date: {view.get('as_of', '')}")
    if memory:
        lines.append(MEMORY_NOTE.strip())
        lines.append("Notebook: " + (notebook.model_dump_json() if notebook else "(empty: this is the first date)"))
    return "\n".join(lines)


class ChatError(RuntimeError):
    """The endpoint did not give a usable chat completion after retries."""


def _discover(spec: Any, timeout_s: float) -> str:
    """The first model id at `{base_url}/models`; an unreachable endpoint is an EndpointError (exit 2)."""
    import asyncio

    from reasonforge.forecast.runner import discover_model

    return asyncio.run(discover_model(spec, timeout_s))


class ToolCallingAgent:
    """A model behind an OpenAI-compatible `/chat/completions` endpoint, researching with the toolbox.

    `base_url_or_name` is a base URL (`http…/v1`; model id from `model` or the endpoint's `/models`) or a
    model name (sent to $OPENAI_BASE_URL or OpenAI). The API key is read from the environment variable
    `api_key_env` (none sent when unset). `memory` asks for the notebook in the answer. The final answer is
    checked with `rewards.parse_forecast`; with `format_retries` > 0 an unusable one is sent back with the
    parser's errors for another try (default 0: the first answer is scored as given, as in AlphaBet).
    """

    def __init__(self, base_url_or_name: str, model: str | None = None, api_key_env: str = "OPENAI_API_KEY", *,
                 memory: bool = False, temperature: float | None = None, max_tokens: int | None = None,
                 timeout_s: float = 120.0, max_retries: int = 4, backoff_s: float = 1.0,
                 format_retries: int = 0, name: str | None = None) -> None:
        from reasonforge.forecast.runner import resolve_model

        spec = resolve_model(base_url_or_name, model_name=model, api_key=os.environ.get(api_key_env) or "")
        if spec.baseline is not None or not spec.base_url:
            raise InputError(f"{base_url_or_name!r} is not a model endpoint; give a base URL or a model name",
                             field="model")
        if not spec.name:  # a bare URL: ask the endpoint which model it serves (its id names the records)
            spec = spec.model_copy(update={"name": _discover(spec, timeout_s)})
        self.spec = spec
        self.memory = memory
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.timeout_s = timeout_s
        self.max_retries = max_retries
        self.backoff_s = backoff_s
        self.format_retries = format_retries
        self.name = name or spec.name
        self.requests = 0

    def _chat(self, client: httpx.Client, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None
              ) -> dict[str, Any]:
        """One completion's message (retries 429/5xx/transport errors with backoff, honouring Retry-After)."""
        from reasonforge.forecast.runner import ChatRetry, chat_body, chat_retry

        body = chat_body(self.spec.name, messages, temperature=self.temperature, max_tokens=self.max_tokens,
                         tools=tools)
        last = ""
        for attempt in range(self.max_retries + 1):
            self.requests += 1
            outcome: httpx.Response | httpx.TransportError
            try:
                outcome = client.post(f"{self.spec.base_url}/chat/completions", json=body)
            except httpx.TransportError as exc:
                outcome = exc
            response = chat_retry(outcome, attempt, self.backoff_s)
            if isinstance(response, ChatRetry):
                last = response.problem
                time.sleep(response.wait_s)
                continue
            if response.status_code >= 400:
                raise ChatError(f"HTTP {response.status_code}: {response.text[:300]}")
            try:
                message = response.json()["choices"][0]["message"]
            except (ValueError, KeyError, IndexError, TypeError):
                raise ChatError(f"response has no choices[0].message: {response.text[:200]}") from None
            if not isinstance(message, dict):
                raise ChatError(f"choices[0].message is not an object: {str(message)[:200]}")
            return message
        raise ChatError(f"gave up after {self.max_retries + 1} tries ({last})")

    def forecast(self, question_view: dict[str, Any], as_of: datetime, toolbox: Toolbox,
                 notebook: Notebook | None) -> AgentReply:
        """Run the tool loop for this date and return the model's final answer text."""
        n = _n_outcomes(question_view)
        memory = self.memory or bool(question_view.get("memory"))
        shape = _answer_shape(n, memory)
        compute = " `compute` (run Python)" if toolbox.compute_enabled else " no others"
        system = SYSTEM_PROMPT.format(
            as_of=as_utc(as_of).strftime("%Y-%m-%d %H:%M:%S UTC"), answer=shape, rounds=toolbox.budget.max_rounds,
            calls=toolbox.budget.max_calls, compute=compute)
        messages: list[dict[str, Any]] = [{"role": "system", "content": system},
                                          {"role": "user", "content": user_prompt(question_view, notebook, memory)}]
        tools = toolbox.schemas()
        headers = {"Authorization": f"Bearer {self.spec.api_key}"} if self.spec.api_key else {}
        turns = 0
        try:
            with httpx.Client(timeout=self.timeout_s, headers=headers) as client:
                raw = None
                while not toolbox.exhausted:
                    message = self._chat(client, messages, tools)
                    turns += 1
                    calls = message.get("tool_calls") or []
                    if not calls:
                        raw = str(message.get("content") or "")
                        break
                    messages.append({"role": "assistant", "content": message.get("content"), "tool_calls": calls})
                    messages.extend(self._run_calls(toolbox, calls))
                if raw is None:
                    messages.append({"role": "user", "content": FINAL_PROMPT.format(answer=shape)})
                    raw = str(self._chat(client, messages, None).get("content") or "")
                    turns += 1
                for _ in range(self.format_retries):
                    problems = parse_forecast(raw, n).errors
                    if not problems:
                        break
                    # Optional repair turn (off by default: the paper scores the first answer as given).
                    messages += [{"role": "assistant", "content": raw},
                                 {"role": "user", "content": RETRY_PROMPT.format(errors="; ".join(problems),
                                                                                 answer=shape)}]
                    raw = str(self._chat(client, messages, None).get("content") or "")
                    turns += 1
                return AgentReply(raw=raw, turns=turns)
        except ChatError as exc:
            return AgentReply(raw="", errors=[f"model endpoint: {exc}"], turns=turns)

    @staticmethod
    def _run_calls(toolbox: Toolbox, calls: list[Any]) -> list[dict[str, Any]]:
        """Execute one assistant turn's tool calls as one round; one `tool` message per call id."""
        batch: list[tuple[str, str | dict[str, Any]]] = []
        ids: list[str] = []
        for i, call in enumerate(calls):
            function = call.get("function") if isinstance(call, dict) else None
            name = function.get("name") if isinstance(function, dict) else None
            arguments = function.get("arguments", "") if isinstance(function, dict) else ""
            batch.append((name if isinstance(name, str) else "<missing>",
                          arguments if isinstance(arguments, str | dict) else json.dumps(arguments)))
            ids.append(str(call.get("id") if isinstance(call, dict) and call.get("id") else f"call_{i}"))
        results = toolbox.call_batch(batch)
        return [{"role": "tool", "tool_call_id": call_id, "content": result.content}
                for call_id, result in zip(ids, results, strict=True)]
