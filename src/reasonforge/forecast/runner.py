"""Run a model (OpenAI-compatible endpoint) or a built-in baseline over items; resumable JSONL output.

Each output row is `{"id", "model", "reply", "p"}` (plus `"error"` when the request failed). A rerun
skips ids that already have a reply, so an interrupted evaluation continues where it stopped;
failed rows are retried. The baselines (`market`, `always-0.5`, `base-rate`) run offline and write
the same rows, so they go through the same parser and scorer as a model.
"""

from __future__ import annotations

import asyncio
import os
import random
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import httpx
import numpy as np
from pydantic import BaseModel, Field

from reasonforge.errors import InputError, not_utf8
from reasonforge.forecast.dataset import ForecastItem
from reasonforge.forecast.env import ForecastEnvironment
from reasonforge.forecast.parse import parse_probability
from reasonforge.forecast.report import Prediction

BASELINES = ("market", "always-0.5", "base-rate")
DEFAULT_BASE_URL = "https://api.openai.com/v1"


class ModelSpec(BaseModel):
    """Where to send requests: an OpenAI-compatible base URL and a model name (or a baseline)."""

    name: str
    base_url: str | None = None
    api_key: str | None = None
    baseline: str | None = None


class EvalRow(BaseModel):
    """One line of the output file."""

    id: str
    model: str
    reply: str | None
    p: float | None
    error: str | None = None


class RunConfig(BaseModel):
    """Request settings for a model run."""

    concurrency: int = Field(default=8, ge=1, le=256)
    max_retries: int = Field(default=4, ge=0)
    timeout_s: float = Field(default=120.0, gt=0)
    temperature: float | None = None
    max_tokens: int | None = Field(default=None, ge=1)
    backoff_s: float = Field(default=1.0, ge=0)


def resolve_model(model: str, *, base_url: str | None = None, model_name: str | None = None,
                  api_key: str | None = None) -> ModelSpec:
    """`market|always-0.5|base-rate`, a base URL (`http…`, model name from --model-name or /models), or a name."""
    if model in BASELINES:
        return ModelSpec(name=model, baseline=model)
    key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY")
    if model.startswith(("http://", "https://")):
        return ModelSpec(name=model_name or "", base_url=model.rstrip("/"), api_key=key)
    if "://" in model:
        raise InputError(f"--model {model!r} is a URL but not http:// or https://; give an OpenAI-compatible base "
                         f"URL, a model name, or one of {', '.join(BASELINES)}", field="model")
    return ModelSpec(name=model, base_url=(base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL).rstrip("/"),
                     api_key=key)


def format_probability(p: float) -> str:
    """A probability as plain decimal text the strict parser accepts (never an exponent)."""
    text = f"{p:.8f}".rstrip("0").rstrip(".")
    return text or "0"


def baseline_forecasts(name: str, items: Sequence[ForecastItem]) -> list[float]:
    """Offline baselines. `base-rate` uses only items resolved before each item's cutoff (no look-ahead),
    Laplace-smoothed: (yes + 1) / (resolved + 2)."""
    if name == "market":
        return [item.market_price for item in items]
    if name == "always-0.5":
        return [0.5] * len(items)
    if name == "base-rate":
        resolved = np.array([item.resolved_at.timestamp() for item in items])
        order = np.argsort(resolved, kind="stable")
        times = resolved[order]
        yes = np.concatenate([[0.0], np.cumsum(np.array([items[i].outcome for i in order], dtype=float))])
        cut = np.array([item.cutoff.timestamp() for item in items])
        seen = np.searchsorted(times, cut, side="left")  # resolved strictly before the cutoff
        return list((yes[seen] + 1.0) / (seen + 2.0))
    raise InputError(f"unknown baseline '{name}'; choose one of {', '.join(BASELINES)}", field="model")


def read_done(path: Path) -> dict[str, EvalRow]:
    """Rows already answered in an output file (rows with an error are not done)."""
    done: dict[str, EvalRow] = {}
    if path.is_file():
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise not_utf8(path, field="out") from None
        for line in text.splitlines():
            if not line.strip():
                continue
            try:
                row = EvalRow.model_validate_json(line)
            except ValueError:
                continue  # a torn last line from an interrupted run is simply redone
            if row.error is None and row.reply is not None:
                done[row.id] = row
    return done


class ChatRetry(BaseModel):
    """A chat call worth trying again: how long to wait first, and what went wrong (for the final error)."""

    wait_s: float
    problem: str


def chat_body(model: str, messages: list[dict[str, Any]], *, temperature: float | None, max_tokens: int | None,
              tools: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """A /chat/completions request body; unset sampling options are left to the server."""
    body: dict[str, Any] = {"model": model, "messages": messages}
    if tools:
        body["tools"] = tools
    if temperature is not None:
        body["temperature"] = temperature
    if max_tokens is not None:
        body["max_tokens"] = max_tokens
    return body


def chat_retry(outcome: httpx.Response | httpx.TransportError, attempt: int,
               backoff_s: float) -> httpx.Response | ChatRetry:
    """After try `attempt` of a chat call: a retry for transport errors, 429 and 5xx (honouring
    Retry-After, at most 120 s), else the response, whose status the caller judges."""
    backoff = backoff_s * 2**attempt * (0.5 + random.random())  # jitter spreads retries of concurrent calls
    if isinstance(outcome, httpx.TransportError):
        return ChatRetry(wait_s=backoff, problem=f"{type(outcome).__name__}: {outcome}")
    if outcome.status_code == 429 or outcome.status_code >= 500:
        try:
            wait = float(outcome.headers.get("Retry-After", backoff))
        except ValueError:
            wait = backoff
        return ChatRetry(wait_s=min(wait, 120.0), problem=f"HTTP {outcome.status_code}: {outcome.text[:200]}")
    return outcome


async def chat(client: httpx.AsyncClient, spec: ModelSpec, messages: list[dict[str, str]], config: RunConfig) -> str:
    """The reply text of one chat completion, retried as `chat_retry` says."""
    body = chat_body(spec.name, messages, temperature=config.temperature, max_tokens=config.max_tokens)
    last = ""
    for attempt in range(config.max_retries + 1):
        outcome: httpx.Response | httpx.TransportError
        try:
            outcome = await client.post(f"{spec.base_url}/chat/completions", json=body)
        except httpx.TransportError as exc:
            outcome = exc
        step = chat_retry(outcome, attempt, config.backoff_s)
        if isinstance(step, ChatRetry):
            last = step.problem
            await asyncio.sleep(step.wait_s)
            continue
        if step.status_code >= 400:
            raise RuntimeError(f"HTTP {step.status_code}: {step.text[:300]}")
        data = step.json()
        try:
            content = data["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            raise RuntimeError(f"response has no choices[0].message.content: {str(data)[:200]}") from None
        return content or ""
    raise RuntimeError(f"gave up after {config.max_retries + 1} tries ({last})")


async def discover_model(spec: ModelSpec, timeout_s: float = 30.0) -> str:
    """The first model id served at `{base_url}/models` (for `--model URL` without a name)."""
    headers = {"Authorization": f"Bearer {spec.api_key}"} if spec.api_key else {}
    async with httpx.AsyncClient(timeout=timeout_s, headers=headers) as client:
        response = await client.get(f"{spec.base_url}/models")
    if response.status_code != 200:
        raise InputError(f"{spec.base_url}/models answered {response.status_code}; pass --model-name", field="model")
    models = response.json().get("data") or []
    if not models:
        raise InputError(f"{spec.base_url}/models lists no model; pass --model-name", field="model")
    return str(models[0]["id"])


async def run_model(env: ForecastEnvironment, spec: ModelSpec, out: Path, config: RunConfig,
                    progress: Callable[[int], None] | None = None) -> int:
    """Query the endpoint for every item not yet answered in `out`; returns how many rows were written."""
    tick = progress or (lambda n: None)
    if spec.baseline is None and not spec.name:
        spec = spec.model_copy(update={"name": await discover_model(spec, config.timeout_s)})
    done = read_done(out)
    todo = [item for item in env.items if item.id not in done]
    tick(len(env.items) - len(todo))
    out.parent.mkdir(parents=True, exist_ok=True)
    if spec.baseline is not None:
        forecasts = dict(zip((i.id for i in env.items), baseline_forecasts(spec.baseline, env.items)))
        with out.open("a", encoding="utf-8") as handle:
            for item in todo:
                reply = f"PROBABILITY: {format_probability(forecasts[item.id])}"
                row = EvalRow(id=item.id, model=spec.name, reply=reply, p=parse_probability(reply))
                handle.write(row.model_dump_json() + "\n")
                tick(1)
        return len(todo)
    headers = {"Authorization": f"Bearer {spec.api_key}"} if spec.api_key else {}
    semaphore = asyncio.Semaphore(config.concurrency)
    lock = asyncio.Lock()
    written = 0
    limits = httpx.Limits(max_connections=config.concurrency, max_keepalive_connections=config.concurrency)
    async with httpx.AsyncClient(timeout=config.timeout_s, headers=headers, limits=limits) as client:
        with out.open("a", encoding="utf-8") as handle:

            async def one(item: ForecastItem) -> None:
                nonlocal written
                async with semaphore:
                    try:
                        reply = await chat(client, spec, env.messages(item), config)
                        row = EvalRow(id=item.id, model=spec.name, reply=reply, p=parse_probability(reply))
                    except RuntimeError as exc:
                        row = EvalRow(id=item.id, model=spec.name, reply=None, p=None, error=str(exc))
                async with lock:  # one writer: rows never interleave
                    handle.write(row.model_dump_json() + "\n")
                    handle.flush()
                    written += 1
                tick(1)

            await asyncio.gather(*(one(item) for item in todo))
    return written


def predictions_from_output(out: Path) -> list[Prediction]:
    """The answered rows of an output file as `forecast score` prediction rows."""
    return [Prediction(id=row.id, reply=row.reply) for row in read_done(out).values()]
