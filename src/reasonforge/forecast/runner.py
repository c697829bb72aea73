"""Run a model (OpenAI-compatible endpoint) or a built-in baseline over items; resumable JSONL output.

The output is a predictions file (`forecast.predictions`): one `{"id", "reply", "model", "created_at"}`
row per answered item, appended and flushed as each reply arrives. A rerun skips ids already in the
file, so an interrupted evaluation continues where it stopped. An endpoint that cannot answer
(unreachable, refused key, missing key, timeout, other HTTP errors) stops the run with an
`EndpointError` naming the endpoint and the fix; nothing already written is lost. The baselines
(`market`, `always-0.5`, `base-rate`) run offline and write the same rows, so they go through the same
parser and scorer as a model.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import httpx
import numpy as np
from pydantic import BaseModel, Field

from reasonforge.errors import InputError, ReasonForgeError
from reasonforge.forecast.dataset import ForecastItem
from reasonforge.forecast.env import ForecastEnvironment
from reasonforge.forecast.predictions import PredictionRow, append_prediction, now_utc, read_predictions_file

BASELINES = ("market", "always-0.5", "base-rate")
DEFAULT_BASE_URL = "https://api.openai.com/v1"


class ModelSpec(BaseModel):
    """Where to send requests: an OpenAI-compatible base URL and a model name (or a baseline)."""

    name: str
    base_url: str | None = None
    api_key: str | None = None
    baseline: str | None = None


class EndpointError(ReasonForgeError):
    """A model endpoint could not answer: names the endpoint, what went wrong and what to do (CLI: exit 2)."""

    code = "endpoint_error"

    def __init__(self, message: str) -> None:
        super().__init__(message, field="model")


class RunSummary(BaseModel):
    """What a run did: rows written now, rows found already answered in the output file."""

    written: int
    resumed: int


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


def drop_torn_tail(path: Path) -> bool:
    """Cut a last line a killed run left half-written (its item is asked again); True when one was cut.

    A complete last row that merely lacks its newline (a hand-written file) is kept and terminated."""
    if not path.is_file() or path.stat().st_size == 0:
        return False
    with path.open("rb+") as handle:
        data = handle.read()
        if data.endswith(b"\n"):
            return False
        start = data.rfind(b"\n") + 1
        try:
            json.loads(data[start:])
        except (ValueError, RecursionError):
            handle.truncate(start)
            return True
        handle.write(b"\n")
    return False


def read_done(path: Path, model: str | None = None) -> dict[str, PredictionRow]:
    """Rows already in an output file, by id; rows by another model are refused (one model per file)."""
    if not path.is_file():
        return {}
    rows = read_predictions_file(path, allow_empty=True).rows
    if model is not None:
        other = next((row for row in rows if row.model != model), None)
        if other is not None:
            raise InputError(f"{path} already holds predictions by model '{other.model}', not '{model}'; choose "
                             "another --out for this model", field="out")
    return {row.id: row for row in rows}


def require_key(spec: ModelSpec, variable: str = "OPENAI_API_KEY") -> None:
    """A hosted OpenAI endpoint without a key can only answer 401: say so before any item is asked."""
    if spec.baseline is None and not spec.api_key and (spec.base_url or "").startswith(DEFAULT_BASE_URL):
        raise EndpointError(f"no API key for {spec.base_url}: set {variable}, or point --base-url / --model at an "
                            "OpenAI-compatible server that needs none")


def endpoint_error(url: str, outcome: httpx.Response | httpx.TransportError, *, timeout_s: float,
                   variable: str = "OPENAI_API_KEY") -> EndpointError:
    """The one-line error for a failed call to `url`: unreachable, timed out, refused key, or another status."""
    if isinstance(outcome, httpx.TimeoutException):
        return EndpointError(f"{url} did not answer within {timeout_s:g} s ({type(outcome).__name__}); check the "
                             "server or raise --timeout")
    if isinstance(outcome, httpx.TransportError):
        return EndpointError(f"cannot reach {url} ({type(outcome).__name__}: {outcome}); check the URL and that "
                             "the server is running")
    status, text = outcome.status_code, " ".join(outcome.text[:200].split())
    if status in (401, 403):
        return EndpointError(f"{url} refused the API key (HTTP {status}: {text}); set {variable} to a key this "
                             "endpoint accepts")
    if status == 404:
        return EndpointError(f"{url} answered HTTP 404 ({text}); check the base URL (it usually ends in /v1) and "
                             "the model name")
    return EndpointError(f"{url} answered HTTP {status} ({text}); check the model name and request options")


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


async def chat(client: httpx.AsyncClient, spec: ModelSpec, messages: list[dict[str, str]], config: RunConfig,
               key_variable: str = "OPENAI_API_KEY") -> str:
    """The reply text of one chat completion, retried as `chat_retry` says; an EndpointError when none came."""
    body = chat_body(spec.name, messages, temperature=config.temperature, max_tokens=config.max_tokens)
    url = f"{spec.base_url}/chat/completions"
    last: httpx.Response | httpx.TransportError | None = None
    for attempt in range(config.max_retries + 1):
        outcome: httpx.Response | httpx.TransportError
        try:
            outcome = await client.post(url, json=body)
        except httpx.TransportError as exc:
            outcome = exc
        step = chat_retry(outcome, attempt, config.backoff_s)
        if isinstance(step, ChatRetry):
            last = outcome
            if attempt < config.max_retries:
                await asyncio.sleep(step.wait_s)
            continue
        if step.status_code >= 400:
            raise endpoint_error(url, step, timeout_s=config.timeout_s, variable=key_variable)
        try:
            content = step.json()["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            raise EndpointError(f"{url} answered without choices[0].message.content ({step.text[:120]!r}); is it "
                                "an OpenAI-compatible chat endpoint?") from None
        if content is not None and not isinstance(content, str):
            raise EndpointError(f"{url} answered with a message content that is not text; is it an "
                                "OpenAI-compatible chat endpoint?")
        return content or ""
    assert last is not None  # the loop runs at least once
    error = endpoint_error(url, last, timeout_s=config.timeout_s, variable=key_variable)
    tries = config.max_retries + 1
    raise EndpointError(f"{error.message} (gave up after {tries} {'try' if tries == 1 else 'tries'})")


async def discover_model(spec: ModelSpec, timeout_s: float = 30.0) -> str:
    """The first model id served at `{base_url}/models` (for `--model URL` without a name)."""
    headers = {"Authorization": f"Bearer {spec.api_key}"} if spec.api_key else {}
    url = f"{spec.base_url}/models"
    try:
        async with httpx.AsyncClient(timeout=timeout_s, headers=headers) as client:
            response = await client.get(url)
    except httpx.TransportError as exc:
        raise endpoint_error(url, exc, timeout_s=timeout_s) from None
    if response.status_code in (401, 403):
        raise endpoint_error(url, response, timeout_s=timeout_s)
    if response.status_code != 200:
        raise EndpointError(f"{url} answered HTTP {response.status_code}; pass the model id (--model-name)")
    try:
        models = response.json().get("data") or []
        return str(models[0]["id"])
    except (ValueError, AttributeError, KeyError, IndexError, TypeError):
        raise EndpointError(f"{url} lists no model; pass the model id (--model-name)") from None


async def run_model(env: ForecastEnvironment, spec: ModelSpec, out: Path, config: RunConfig,
                    progress: Callable[[int], None] | None = None) -> RunSummary:
    """Ask for every item not yet in `out`, appending each prediction as it arrives; an EndpointError stops
    the run (in-flight requests are cancelled) and says how many predictions are saved."""
    tick = progress or (lambda n: None)
    require_key(spec)
    if spec.baseline is None and not spec.name:
        spec = spec.model_copy(update={"name": await discover_model(spec, config.timeout_s)})
    drop_torn_tail(out)
    done = read_done(out, spec.name)
    todo = [item for item in env.items if item.id not in done]
    resumed = len(env.items) - len(todo)
    tick(resumed)
    out.parent.mkdir(parents=True, exist_ok=True)
    written = 0
    with out.open("a", encoding="utf-8") as handle:
        if spec.baseline is not None:
            forecasts = dict(zip((i.id for i in env.items), baseline_forecasts(spec.baseline, env.items)))
            for item in todo:
                reply = f"PROBABILITY: {format_probability(forecasts[item.id])}"
                append_prediction(handle, PredictionRow(id=item.id, reply=reply, model=spec.name, created_at=now_utc()))
                written += 1
                tick(1)
            return RunSummary(written=written, resumed=resumed)
        headers = {"Authorization": f"Bearer {spec.api_key}"} if spec.api_key else {}
        semaphore = asyncio.Semaphore(config.concurrency)
        limits = httpx.Limits(max_connections=config.concurrency, max_keepalive_connections=config.concurrency)

        async def one(client: httpx.AsyncClient, item: ForecastItem) -> None:
            nonlocal written
            async with semaphore:
                reply = await chat(client, spec, env.messages(item), config)
            # single-threaded event loop: a write between awaits never interleaves with another
            append_prediction(handle, PredictionRow(id=item.id, reply=reply, model=spec.name, created_at=now_utc()))
            written += 1
            tick(1)

        try:
            async with (httpx.AsyncClient(timeout=config.timeout_s, headers=headers, limits=limits) as client,
                        asyncio.TaskGroup() as group):
                for item in todo:
                    group.create_task(one(client, item))
        except ExceptionGroup as failures:
            # the first failure cancels the other requests; it is the one worth reporting
            first = failures.exceptions[0]
            if isinstance(first, EndpointError):
                raise EndpointError(f"{first.message}; {resumed + written} of {len(env.items)} predictions are "
                                    f"saved in {out}, rerun the same command to resume") from None
            raise first from None
    return RunSummary(written=written, resumed=resumed)


def predictions_from_output(out: Path) -> list[PredictionRow]:
    """The rows of an output file, as `forecast score` reads them."""
    return read_predictions_file(out).rows
