"""Model backends for the translation engine: OpenAI-compatible Chat Completions and Anthropic Messages (httpx, async).

`ModelSettings` is the boundary: built from arguments, from `--model URL_OR_NAME`, or from the environment
(`REASONFORGE_MODEL_BASE_URL`, `REASONFORGE_MODEL`, `REASONFORGE_MODEL_API_KEY`, `ANTHROPIC_API_KEY`).
A backend turns a `ChatRequest` into a `ChatReply` (text, reasoning, forced-tool arguments, refusal,
truncation, token usage) and raises `ModelError` for everything else. Retries with exponential backoff
and jitter on transport errors, 408/409/429/5xx/529 (honouring `Retry-After`), and a per-backend concurrency limit.

Every reply is read by a strict, bounded reader: the whole call (connecting, every read, every retry and the waits
between them) runs under one deadline, `timeout_s`, so a server that trickles its reply a byte at a time ends
there; the body is capped at `max_reply_bytes` (announced or read), decoded as bounded JSON (`boundary.jsontext`:
depth, repeated keys, NaN, oversized numbers) and then read field by field, each field of the type the wire format
gives it or the whole reply is one `ModelError` naming the field (`choices[0].message.tool_calls[0].function is a
string, not an object`). A reply the endpoint streams although no stream was asked for is refused the same way.

No credential leaves: the key is sent as a header only, the base URL's userinfo and secret query parameters are
stripped from the `Spec` and from `describe()`, and every error message is scrubbed of the key, the URL's
credentials and any header value a server echoes back (`boundary.secrets`).
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import random
import time
import weakref
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Literal, Protocol

import httpx
from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError

from reasonforge.boundary.http import DeadlineExceededError, Exchanged, ReplyTooLargeError, exchange
from reasonforge.boundary.jsontext import JsonLimits, load_json
from reasonforge.boundary.secrets import redact_url, scrub, url_secrets
from reasonforge.errors import InputError, ReasonForgeError
from reasonforge.registry import Spec

__all__ = [
    "AnthropicBackend",
    "ChatMessage",
    "ChatReply",
    "ChatRequest",
    "ModelBackend",
    "ModelError",
    "ModelSettings",
    "OpenAIChatBackend",
    "TokenUsage",
    "complete_samples",
    "make_backend",
    "only_reply",
    "settings_from_env",
]

BACKEND_VERSION = "1.0"
DEFAULT_OPENAI_URL = "https://api.openai.com/v1"
DEFAULT_ANTHROPIC_URL = "https://api.anthropic.com"
RETRYABLE_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504, 529})
MAX_REPLY_BYTES = 8 * 1024 * 1024  # a 4096-token reply is about 16 KiB of JSON; tool schemas and logprobs add little
MAX_TOKEN_COUNT = 10**12  # a usage count above this is not a count
# A reply's JSON: deeper than any wire format needs (logprobs nest 6 levels), integers as long as a token count
# or a timestamp can be; what passes is then read field by field.
REPLY_JSON = JsonLimits(max_depth=64, max_integer_digits=20, max_number_chars=64,
                        integer_hint="no field of a model reply holds an integer that long",
                        depth_hint="no model reply nests that deep")
TOOL_NAME = "submit_translation"
Provider = Literal["openai", "anthropic", "local"]
Sleep = Callable[[float], Awaitable[None]]


class ModelError(ReasonForgeError):
    """The endpoint could not give an answer: HTTP error, bad JSON, unknown payload, or retries exhausted."""

    code = "model_error"

    def __init__(self, message: str, *, status: int | None = None, provider_type: str | None = None,
                 retryable: bool = False) -> None:
        super().__init__(scrub(message), field="model")  # a URL's userinfo, a bearer token: never in a message
        self.status = status
        self.provider_type = provider_type
        self.retryable = retryable


class ModelSettings(BaseModel):
    """Where and how to call a model (pydantic: the CLI, the API and the engine share it)."""

    model_config = ConfigDict(extra="forbid")

    provider: Provider = "openai"
    base_url: str = DEFAULT_OPENAI_URL
    model: str = Field(default="", description="Model name; empty: the first id served at {base_url}/models.")
    api_key: SecretStr | None = None
    timeout_s: float = Field(default=120.0, gt=0, le=86_400, allow_inf_nan=False, description=(
        "The deadline of one model call: connecting, every read, every retry and the waits between tries."))
    max_reply_bytes: int = Field(default=MAX_REPLY_BYTES, ge=1024, description="The largest reply body read.")
    max_retries: int = Field(default=4, ge=0, le=20)
    backoff_s: float = Field(default=1.0, ge=0)
    max_backoff_s: float = Field(default=60.0, ge=0)
    concurrency: int = Field(default=4, ge=1, le=256)
    max_tokens: int = Field(default=4096, ge=1)
    temperature: float | None = Field(default=0.0, ge=0.0, le=2.0)
    json_mode: bool = Field(default=False, description="Ask for one JSON object (OpenAI response_format, "
                                                       "Anthropic forced tool) instead of a fenced block.")
    thinking_budget: int | None = Field(default=None, ge=1024, description="Anthropic extended thinking budget.")
    retry_temperature: float = Field(default=0.8, ge=0.0, le=2.0, description=(
        "Temperature of repair attempts after the first (each with its own seed): at the first temperature a "
        "model gives the same reply back."))
    grammar: bool = Field(default=False, description="Send the reply's GBNF grammar (llama.cpp servers decode "
                                                     "under it; other servers refuse the field).")
    model_path: str | None = Field(default=None, description="provider local: the GGUF file to load in process.")
    threads: int = Field(default=2, ge=1, le=256, description="provider local: CPU threads.")
    context_tokens: int = Field(default=8192, ge=512, description="provider local: the context window.")
    prompt_cache: bool = Field(default=True, description=(
        "provider local: keep evaluated prompts in the context's memory and evaluate only what a new prompt does "
        "not share with one of them; off, every reply reads its whole prompt (the speed baseline)."))
    anthropic_version: str = "2023-06-01"

    def describe(self) -> str:
        """`provider:model @ base_url`, without secrets (the URL's userinfo and secret parameters are stripped)."""
        return f"{self.provider}:{self.model or '(discovered)'} @ {redact_url(self.base_url)}"

    def secrets(self) -> set[str]:
        """The credentials these settings hold (the key, the base URL's userinfo): what no message may show."""
        out = url_secrets(self.base_url)
        if self.api_key is not None and self.api_key.get_secret_value().strip():
            out.add(self.api_key.get_secret_value().strip())
        return out


def settings_from_env(model: str | None = None, env: Mapping[str, str] | None = None,
                      **overrides: Any) -> ModelSettings | None:
    """Settings for `--model URL_OR_NAME` or the environment; None when no model is configured.

    `local` or `local:NAME` is a model installed on this machine (`local_model`), run in process. A URL is an
    OpenAI-compatible server (vLLM, Ollama, llama.cpp, hosted), its model name from
    REASONFORGE_MODEL or discovered. `anthropic:NAME` (or a `claude…` name with no base URL set) is the
    Anthropic Messages API (key ANTHROPIC_API_KEY); `openai:NAME` or any other name is Chat Completions at
    REASONFORGE_MODEL_BASE_URL (default OpenAI's), key REASONFORGE_MODEL_API_KEY (or OPENAI_API_KEY)."""
    env = os.environ if env is None else env
    base_url = env.get("REASONFORGE_MODEL_BASE_URL", "").strip()
    name = (model or "").strip() or env.get("REASONFORGE_MODEL", "").strip()
    if not name and not base_url:
        return None
    if name == "local" or name.startswith("local:"):
        from reasonforge.translate.local_model import DEFAULT_LOCAL_MODEL, local_settings

        wanted = name.partition(":")[2] or DEFAULT_LOCAL_MODEL
        # the deadline and the prompt cache apply to the local model too (over its own defaults)
        tuned = {k: v for k, v in _tuning(env).items() if k in ("timeout_s", "prompt_cache")}
        try:
            local = local_settings(wanted, **{**tuned, **overrides})
        except ValidationError as exc:
            raise _tuning_error(exc) from None
        if local is None:
            raise ModelError(f"the local model {wanted} is not installed; run `make model` (or "
                             f"`reasonforge model install {wanted}`)")
        return local
    if name.startswith(("http://", "https://")):
        base_url, name = name, env.get("REASONFORGE_MODEL", "").strip() if model else ""
    provider: Provider = "openai"
    if name.startswith("anthropic:") or (name.startswith("claude") and not base_url):
        provider, name = "anthropic", name.removeprefix("anthropic:")
    name = name.removeprefix("openai:")
    if provider == "anthropic":
        key = env.get("ANTHROPIC_API_KEY") or env.get("REASONFORGE_MODEL_API_KEY")
        base = base_url or DEFAULT_ANTHROPIC_URL
    else:
        key = env.get("REASONFORGE_MODEL_API_KEY") or env.get("OPENAI_API_KEY")
        base = base_url or DEFAULT_OPENAI_URL
    values: dict[str, Any] = {"provider": provider, "base_url": base.rstrip("/"), "model": name,
                              "api_key": SecretStr(key) if key else None, **_tuning(env)}
    values.update(overrides)
    try:
        return ModelSettings(**values)
    except ValidationError as exc:
        raise _tuning_error(exc) from None


def _tuning_error(exc: ValidationError) -> InputError:
    """The settings' first validation problem, named by the variable that set it (the value shown only when the
    field holds no credential)."""
    error = exc.errors()[0]
    field = str(error["loc"][0]) if error["loc"] else "model"
    variable = next((v for v, f in _TUNING.items() if f == field), field)
    shown = "" if field in ("api_key", "base_url") else f" (got {error.get('input')!r})"
    return InputError(f"{variable}: {error['msg']}{shown}", field=variable)


_TUNING = {"REASONFORGE_MODEL_MAX_TOKENS": "max_tokens", "REASONFORGE_MODEL_TIMEOUT_S": "timeout_s",
           "REASONFORGE_MODEL_CONCURRENCY": "concurrency", "REASONFORGE_MODEL_GRAMMAR": "grammar",
           "REASONFORGE_MODEL_PROMPT_CACHE": "prompt_cache"}
_SWITCHES = frozenset({"grammar", "prompt_cache"})


def _tuning(env: Mapping[str, str]) -> dict[str, Any]:
    """The REASONFORGE_MODEL_* tuning variables that are set (validated by ModelSettings: a bad one is named)."""
    out: dict[str, Any] = {}
    for variable, field in _TUNING.items():
        raw = env.get(variable, "").strip()
        if raw:
            out[field] = raw.lower() in ("1", "true", "yes", "on") if field in _SWITCHES else raw
    return out


class ChatMessage(BaseModel):
    """One turn of the conversation (the system prompt travels separately)."""

    role: Literal["user", "assistant"]
    content: str


class ChatRequest(BaseModel):
    """What the engine asks: a system prompt, the turns, and optionally a JSON schema for structured output."""

    system: str
    messages: list[ChatMessage]
    json_schema: dict[str, Any] | None = None
    max_tokens: int | None = None
    grammar: str | None = Field(default=None, description="GBNF grammar of the reply, for backends that decode "
                                                          "under one (llama.cpp); others ignore it.")
    attempt: int = Field(default=1, ge=1, description="Which attempt of the repair loop this is: a retry samples "
                                                      "differently, or it would get the same reply back.")


class TokenUsage(BaseModel):
    """Tokens billed for one or more calls (reasoning tokens are part of output tokens where reported)."""

    input_tokens: int = 0
    output_tokens: int = 0
    reasoning_tokens: int = 0
    cached_tokens: int = Field(default=0, description="Input tokens a prompt cache served (part of input_tokens).")

    def __add__(self, other: TokenUsage) -> TokenUsage:
        return TokenUsage(input_tokens=self.input_tokens + other.input_tokens,
                          output_tokens=self.output_tokens + other.output_tokens,
                          reasoning_tokens=self.reasoning_tokens + other.reasoning_tokens,
                          cached_tokens=self.cached_tokens + other.cached_tokens)

    @property
    def total(self) -> int:
        """Input plus output tokens."""
        return self.input_tokens + self.output_tokens


class ChatReply(BaseModel):
    """A decoded answer; what it means is for `parsers` to decide."""

    text: str | None = None
    reasoning: str | None = None
    tool_arguments: dict[str, Any] | None = None
    refusal: str | None = None
    finish_reason: str | None = None
    truncated: bool = False
    usage: TokenUsage = Field(default_factory=TokenUsage)
    model: str = ""
    response_id: str | None = None
    elapsed_ms: float = 0.0
    http_attempts: int = 1


class ModelBackend(Protocol):
    """Anything that answers chat requests (the two HTTP backends, or a test double)."""

    spec: Spec

    async def complete(self, request: ChatRequest) -> ChatReply:
        """Answer one request or raise `ModelError`."""
        ...


def make_backend(settings: ModelSettings, **kwargs: Any) -> ModelBackend:
    """The backend for `settings.provider`."""
    if settings.provider == "anthropic":
        return AnthropicBackend(settings, **kwargs)
    if settings.provider == "local":
        from reasonforge.translate.local_model import LocalModelBackend

        return LocalModelBackend(settings)
    return OpenAIChatBackend(settings, **kwargs)


def only_reply(replies: Sequence[ChatReply | ModelError]) -> ChatReply:
    """The one reply of a one-attempt `complete_samples`, or its error raised: `complete` for a backend that
    answers in samples."""
    [reply] = replies
    if isinstance(reply, ModelError):
        raise reply
    return reply


async def complete_samples(backend: ModelBackend, request: ChatRequest,
                           attempts: Sequence[int]) -> list[ChatReply | ModelError]:
    """One reply (or the error that stood in its way) per attempt number, all answering `request`: a backend that
    decodes several samples of one prompt together (the local model) is asked once; others once per attempt."""
    together = getattr(backend, "complete_samples", None)
    if together is not None:
        return list(await together(request, attempts))
    out: list[ChatReply | ModelError] = []
    for attempt in attempts:
        try:
            out.append(await backend.complete(request.model_copy(update={"attempt": attempt})))
        except ModelError as exc:
            out.append(exc)
    return out


def sampling(settings: ModelSettings, attempt: int) -> tuple[float | None, int | None]:
    """(temperature, seed) for an attempt: the configured temperature first, then `retry_temperature` with the
    attempt number as seed, so a retry cannot return the same reply by construction."""
    if attempt <= 1:
        return settings.temperature, None
    return max(settings.temperature or 0.0, settings.retry_temperature), attempt


class _HttpBackend:
    """Shared HTTP plumbing: one client per call, retries with backoff under the call's deadline, a concurrency
    limit per event loop, every reply read whole, bounded and as JSON, every message scrubbed of credentials."""

    name = "http"

    def __init__(self, settings: ModelSettings, *, transport: httpx.AsyncBaseTransport | None = None,
                 sleep: Sleep | None = None, rng: random.Random | None = None) -> None:
        self.settings = settings
        self._transport = transport
        self._sleep = sleep or asyncio.sleep
        self._rng = rng or random.Random(0)  # jitter only spreads retries; seeded so runs are repeatable
        # An asyncio.Semaphore binds to the loop that first waits on it; the sync engine API runs one loop
        # per chain, so keep one semaphore per live loop.
        self._limits: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = (
            weakref.WeakKeyDictionary())
        self.spec = Spec(name=self.name, version=BACKEND_VERSION, args={
            "base_url": redact_url(settings.base_url), "model": settings.model, "temperature": settings.temperature,
            "max_tokens": settings.max_tokens, "json_mode": settings.json_mode,
            "thinking_budget": settings.thinking_budget})

    def _semaphore(self) -> asyncio.Semaphore:
        loop = asyncio.get_running_loop()
        if loop not in self._limits:
            self._limits[loop] = asyncio.Semaphore(self.settings.concurrency)
        return self._limits[loop]

    def _headers(self) -> dict[str, str]:
        raise NotImplementedError

    def _client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(timeout=self.settings.timeout_s, headers=self._headers(), transport=self._transport)

    def _error(self, message: str, **kwargs: Any) -> ModelError:
        """A ModelError whose message shows none of this backend's credentials, even where a server echoed them."""
        return ModelError(scrub(message, self.settings.secrets()), **kwargs)

    async def _request(self, method: str, url: str, body: dict[str, Any] | None = None) -> tuple[dict[str, Any], int]:
        """The decoded JSON body of a successful call and how many HTTP tries it took, all within the deadline."""
        shown = redact_url(url)
        last = ""
        tries = self.settings.max_retries + 1
        timeout = self.settings.timeout_s
        async with self._semaphore(), self._client() as client:
            loop = asyncio.get_running_loop()
            deadline = loop.time() + timeout  # from when this call may send: a queued call has not started
            for attempt in range(tries):
                left = deadline - loop.time()
                if left <= 0:
                    break
                wait = 0.0
                try:
                    reply = await exchange(client, method, url, json=body, deadline_s=left,
                                           max_bytes=self.settings.max_reply_bytes)
                except DeadlineExceededError:
                    raise self._error(f"{shown} sent no whole reply within the deadline of {timeout:g} s "
                                      f"(REASONFORGE_MODEL_TIMEOUT_S; try {attempt + 1} of {tries}"
                                      f"{', after: ' + last if last else ''})", retryable=True) from None
                except ReplyTooLargeError as exc:
                    raise self._error(f"{shown}: {exc.message}; a model reply is far smaller") from None
                except httpx.TransportError as exc:
                    last = f"{type(exc).__name__}: {exc}"
                    wait = self._backoff(attempt)
                except (httpx.HTTPError, httpx.InvalidURL) as exc:  # a body that does not decode, a bad URL
                    raise self._error(f"{shown}: {type(exc).__name__}: {exc}") from None
                else:
                    if reply.status_code in RETRYABLE_STATUS:
                        last = self._describe_error(reply)
                        wait = self._retry_wait(reply, attempt)
                    elif reply.status_code >= 400:
                        kind, _ = self._error_fields(reply)
                        raise self._error(self._describe_error(reply), status=reply.status_code, provider_type=kind)
                    else:
                        return self._json(reply, shown), attempt + 1
                if attempt + 1 < tries:
                    if wait >= deadline - loop.time():
                        break  # the wait alone would pass the deadline: give up now with what went wrong
                    await self._sleep(wait)
        made = attempt + 1
        cut = "" if made == tries else f" of {tries}, at the deadline of {timeout:g} s"
        raise self._error(f"gave up after {made} {'try' if made == 1 else 'tries'}{cut}: {last}", retryable=True)

    def _json(self, reply: Exchanged, shown: str) -> dict[str, Any]:
        """The reply's body as a JSON object, read by the bounded reader."""
        if reply.content_type == "text/event-stream":
            raise self._error(f"{shown} streamed its reply (text/event-stream) though no stream was asked for; "
                              "point the backend at a server that answers with one JSON object")
        try:
            data = load_json(reply.body, what="the reply", limits=REPLY_JSON)
        except InputError as exc:
            raise self._error(f"{shown} answered {reply.status_code} with a body that is not one bounded JSON "
                              f"object: {exc.message} ({_snippet(reply.body)})", status=reply.status_code) from None
        if not isinstance(data, dict):
            raise self._error(f"{shown} answered with JSON that is {_kind(data)}, not an object: "
                              f"{_snippet(reply.body)}", status=reply.status_code)
        return data

    def _backoff(self, attempt: int) -> float:
        base = self.settings.backoff_s * 2**attempt * self._rng.uniform(0.5, 1.5)
        return min(base, self.settings.max_backoff_s)

    def _retry_wait(self, reply: Exchanged, attempt: int) -> float:
        """`retry-after-ms` / `Retry-After` seconds when the server sends them (capped), else backoff."""
        for header, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
            value = reply.headers.get(header)
            if value is not None:
                try:
                    wait = float(value) * scale
                except ValueError:
                    continue  # an HTTP date: fall back to our own backoff
                if not math.isnan(wait):
                    return min(max(wait, 0.0), self.settings.max_backoff_s)
        return self._backoff(attempt)

    @staticmethod
    def _error_fields(reply: Exchanged) -> tuple[str | None, str]:
        """(error type, message) from an OpenAI `{error: {type, message}}` or Anthropic `{type: error, error}` body."""
        try:
            data = load_json(reply.body, what="the error body", limits=REPLY_JSON)
        except InputError:
            return None, _snippet(reply.body, 300)
        error = data.get("error") if isinstance(data, dict) else None
        if isinstance(error, dict):
            kind = error.get("type") or error.get("code")
            shown_kind = str(kind)[:80] if isinstance(kind, (str, int)) and not isinstance(kind, bool) else None
            message = error.get("message", "")
            return shown_kind, (message if isinstance(message, str) else json.dumps(message))[:300]
        if isinstance(error, str):
            return None, error[:300]
        return None, json.dumps(data)[:300]

    def _describe_error(self, reply: Exchanged) -> str:
        kind, message = self._error_fields(reply)
        label = f" {kind}" if kind else ""
        return f"HTTP {reply.status_code}{label}: {message}".rstrip(": ")


def _snippet(body: bytes, limit: int = 200) -> str:
    """The start of a body, as printable text."""
    return repr(body[:limit].decode("utf-8", "replace")) + ("…" if len(body) > limit else "")


class OpenAIChatBackend(_HttpBackend):
    """`POST {base_url}/chat/completions`, the OpenAI wire format that vLLM, Ollama and llama.cpp also serve."""

    name = "openai-chat"

    def __init__(self, settings: ModelSettings, **kwargs: Any) -> None:
        super().__init__(settings, **kwargs)
        self._model = settings.model

    def _headers(self) -> dict[str, str]:
        key = self.settings.api_key.get_secret_value() if self.settings.api_key else None
        return {"Authorization": f"Bearer {key}"} if key else {}

    async def model_name(self) -> str:
        """The configured model, or the first one `{base_url}/models` lists."""
        if not self._model:
            data, _ = await self._request("GET", f"{self.settings.base_url}/models")
            models = data.get("data")
            if not isinstance(models, list) or not models or not isinstance(models[0], dict) or "id" not in models[0]:
                raise ModelError(f"{self.settings.base_url}/models lists no model; set REASONFORGE_MODEL")
            self._model = str(models[0]["id"])
        return self._model

    async def complete(self, request: ChatRequest) -> ChatReply:
        """One Chat Completions call."""
        started = time.perf_counter()
        model = await self.model_name()
        # OpenAI's own API wants max_completion_tokens (reasoning models refuse max_tokens); servers that
        # mimic it (vLLM, Ollama, llama.cpp) all read max_tokens.
        limit_field = "max_completion_tokens" if "api.openai.com" in self.settings.base_url else "max_tokens"
        body: dict[str, Any] = {
            "model": model,
            "messages": [{"role": "system", "content": request.system},
                         *({"role": m.role, "content": m.content} for m in request.messages)],
            limit_field: request.max_tokens or self.settings.max_tokens,
        }
        temperature, seed = sampling(self.settings, request.attempt)
        if temperature is not None:
            body["temperature"] = temperature
        if seed is not None:
            body["seed"] = seed
        if request.json_schema is not None and self.settings.json_mode:
            body["response_format"] = {"type": "json_object"}
        elif request.grammar is not None and self.settings.grammar:
            body["grammar"] = request.grammar
        url = f"{self.settings.base_url}/chat/completions"
        try:
            data, tries = await self._request("POST", url, body)
        except ModelError as exc:
            # Reasoning models accept only their default temperature: resend once without it.
            if exc.status != 400 or "temperature" not in exc.message.lower() or "temperature" not in body:
                raise
            body.pop("temperature")
            data, tries = await self._request("POST", url, body)
            tries += 1
        reply = decode_openai_chat(data)
        return reply.model_copy(update={"elapsed_ms": round((time.perf_counter() - started) * 1000, 1),
                                        "http_attempts": tries})


def _kind(value: Any) -> str:
    """What a JSON value is, for a message: `a string`, `an array`, `null`."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object" if isinstance(value, dict) else type(value).__name__


class _Wire:
    """Typed reads of one decoded reply: each field is absent, null, or of the type its wire format gives it;
    anything else is the one `ModelError` that names the field's path and what the format expects."""

    def __init__(self, expected: str) -> None:
        self.expected = expected  # "an OpenAI chat.completion object", for the message

    def fail(self, where: str, problem: str) -> ModelError:
        """The error for a reply whose field at `where` is not what the format says."""
        return ModelError(f"the reply's {where} {problem}; expected {self.expected}")

    def object(self, value: Any, where: str, *, required: bool = False) -> Mapping[str, Any]:
        """An object field (empty when absent or null and not required)."""
        if isinstance(value, dict):
            return value
        if value is None and not required:
            return {}
        raise self.fail(where, f"is {_kind(value)}, not an object")

    def array(self, value: Any, where: str) -> list[Any]:
        """An array field (empty when absent or null)."""
        if isinstance(value, list):
            return value
        if value is None:
            return []
        raise self.fail(where, f"is {_kind(value)}, not an array")

    def text(self, value: Any, where: str) -> str | None:
        """A string field (None when absent or null)."""
        if value is None or isinstance(value, str):
            return value
        raise self.fail(where, f"is {_kind(value)}, not a string")

    def count(self, value: Any, where: str) -> int:
        """A token count: a JSON integer from 0 to MAX_TOKEN_COUNT (0 when absent or null)."""
        if value is None:
            return 0
        if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_TOKEN_COUNT:
            return value
        shown = json.dumps(value)[:40] if isinstance(value, (int, float, str)) else _kind(value)
        raise self.fail(where, f"is {shown}, not a token count (an integer from 0 to {MAX_TOKEN_COUNT})")

    def identifier(self, value: Any, where: str) -> str | None:
        """An id: a string or an integer, shown as text (None when absent or null)."""
        if isinstance(value, int) and not isinstance(value, bool):
            return str(value)
        return self.text(value, where)


_CHAT = "an OpenAI chat.completion object"


def _tool_arguments(raw: Any, wire: _Wire, where: str) -> tuple[dict[str, Any] | None, str | None]:
    """(arguments, text to parse instead) of a tool call's `function.arguments`: a JSON object, or text holding
    one; text that is not one bounded JSON object goes to the parser as text, which reports it."""
    if raw is None:
        return None, None
    if isinstance(raw, dict):
        return raw, None
    text = wire.text(raw, where)
    assert text is not None
    try:
        decoded = load_json(text, what=where, limits=REPLY_JSON)
    except InputError:
        return None, text
    return (decoded, None) if isinstance(decoded, dict) else (None, text)


def decode_openai_chat(data: Mapping[str, Any]) -> ChatReply:
    """A `chat.completion` object as a `ChatReply` (DeepSeek/vLLM `reasoning_content` included); any field of the
    wrong type is one `ModelError` naming it."""
    wire = _Wire(_CHAT)
    if not isinstance(data, Mapping):
        raise wire.fail("the body", f"is {_kind(data)}, not an object")
    choices = wire.array(data.get("choices"), "choices")
    if not choices:
        keys = ", ".join(sorted(str(key)[:40] for key in list(data)[:20])) or "none"
        raise wire.fail("choices", f"is missing or empty (keys: {keys})")
    choice = wire.object(choices[0], "choices[0]", required=True)
    message = wire.object(choice.get("message"), "choices[0].message", required=True)
    where = "choices[0].message"
    content = message.get("content")
    text: str | None
    if isinstance(content, list):  # some servers send content parts
        parts = []
        for index, part in enumerate(content):
            part = wire.object(part, f"{where}.content[{index}]", required=True)
            parts.append(wire.text(part.get("text"), f"{where}.content[{index}].text") or "")
        text = "".join(parts)
    else:
        text = wire.text(content, f"{where}.content")
    reasoning = (wire.text(message.get("reasoning_content"), f"{where}.reasoning_content")
                 or wire.text(message.get("reasoning"), f"{where}.reasoning"))
    tool_arguments = None
    calls = wire.array(message.get("tool_calls"), f"{where}.tool_calls")
    if calls:
        call = wire.object(calls[0], f"{where}.tool_calls[0]", required=True)
        function = wire.object(call.get("function"), f"{where}.tool_calls[0].function", required=True)
        tool_arguments, raw_text = _tool_arguments(function.get("arguments"), wire,
                                                   f"{where}.tool_calls[0].function.arguments")
        if raw_text is not None:
            text = raw_text  # the parser reports the broken JSON
    usage = wire.object(data.get("usage"), "usage")
    details = wire.object(usage.get("completion_tokens_details"), "usage.completion_tokens_details")
    finish = wire.text(choice.get("finish_reason"), "choices[0].finish_reason")
    return ChatReply(
        text=text,
        reasoning=reasoning,
        tool_arguments=tool_arguments,
        refusal=wire.text(message.get("refusal"), f"{where}.refusal"),
        finish_reason=finish,
        truncated=finish == "length",
        usage=TokenUsage(input_tokens=wire.count(usage.get("prompt_tokens"), "usage.prompt_tokens"),
                         output_tokens=wire.count(usage.get("completion_tokens"), "usage.completion_tokens"),
                         reasoning_tokens=wire.count(details.get("reasoning_tokens"),
                                                     "usage.completion_tokens_details.reasoning_tokens")),
        model=wire.text(data.get("model"), "model") or "",
        response_id=wire.identifier(data.get("id"), "id"),
    )


class AnthropicBackend(_HttpBackend):
    """`POST {base_url}/v1/messages` (Anthropic Messages), extended thinking and forced tool use optional."""

    name = "anthropic-messages"

    def _headers(self) -> dict[str, str]:
        headers = {"anthropic-version": self.settings.anthropic_version}
        if self.settings.api_key:
            headers["x-api-key"] = self.settings.api_key.get_secret_value()
        return headers

    async def complete(self, request: ChatRequest) -> ChatReply:
        """One Messages call."""
        if not self.settings.model:
            raise ModelError("the Anthropic backend needs a model name (anthropic:NAME or REASONFORGE_MODEL)")
        started = time.perf_counter()
        body: dict[str, Any] = {
            "model": self.settings.model,
            "max_tokens": request.max_tokens or self.settings.max_tokens,
            "system": request.system,
            "messages": [{"role": m.role, "content": m.content} for m in request.messages],
        }
        thinking = self.settings.thinking_budget
        if thinking:
            body["thinking"] = {"type": "enabled", "budget_tokens": thinking}
            body["max_tokens"] = max(body["max_tokens"], thinking + 1024)
        elif (temperature := sampling(self.settings, request.attempt)[0]) is not None:
            body["temperature"] = min(temperature, 1.0)  # the API refuses temperature with thinking, and above 1
        if request.json_schema is not None and self.settings.json_mode:
            body["tools"] = [{"name": TOOL_NAME, "description": "Submit the translated step.",
                              "input_schema": request.json_schema}]
            # Forcing a tool is refused while thinking is on; then the model is asked (auto) to call it.
            body["tool_choice"] = {"type": "auto"} if thinking else {"type": "tool", "name": TOOL_NAME}
        base = self.settings.base_url.removesuffix("/v1")
        data, tries = await self._request("POST", f"{base}/v1/messages", body)
        reply = decode_anthropic_message(data)
        return reply.model_copy(update={"elapsed_ms": round((time.perf_counter() - started) * 1000, 1),
                                        "http_attempts": tries})


def decode_anthropic_message(data: Mapping[str, Any]) -> ChatReply:
    """A Messages API `message` object as a `ChatReply` (thinking blocks become `reasoning`); any field of the
    wrong type is one `ModelError` naming it. Block types this reader does not know (redacted thinking, server
    tools) are skipped."""
    wire = _Wire("an Anthropic message ({type: message, content: [...]})")
    if not isinstance(data, Mapping):
        raise wire.fail("the body", f"is {_kind(data)}, not an object")
    kind = data.get("type")
    if kind != "message":
        shown = json.dumps(kind)[:40] if isinstance(kind, (str, int, float)) or kind is None else _kind(kind)
        raise wire.fail("type", f"is {shown}, not \"message\"")
    content = data.get("content")
    if not isinstance(content, list):
        raise wire.fail("content", f"is {_kind(content)}, not an array")
    texts: list[str] = []
    thoughts: list[str] = []
    tool_arguments = None
    for index, block in enumerate(content):
        block = wire.object(block, f"content[{index}]", required=True)
        block_type = wire.text(block.get("type"), f"content[{index}].type")
        if block_type == "text":
            texts.append(wire.text(block.get("text"), f"content[{index}].text") or "")
        elif block_type == "thinking":
            thoughts.append(wire.text(block.get("thinking"), f"content[{index}].thinking") or "")
        elif block_type == "tool_use":
            given = wire.object(block.get("input"), f"content[{index}].input", required=True)
            if tool_arguments is None:
                tool_arguments = dict(given)
    usage = wire.object(data.get("usage"), "usage")
    stop = wire.text(data.get("stop_reason"), "stop_reason")
    text = "\n".join(texts) if texts else None
    return ChatReply(
        text=text,
        reasoning="\n\n".join(thoughts) if thoughts else None,
        tool_arguments=tool_arguments,
        refusal=(text or "the model stopped with stop_reason 'refusal'") if stop == "refusal" else None,
        finish_reason=stop,
        truncated=stop == "max_tokens",
        usage=TokenUsage(input_tokens=wire.count(usage.get("input_tokens"), "usage.input_tokens"),
                         output_tokens=wire.count(usage.get("output_tokens"), "usage.output_tokens")),
        model=wire.text(data.get("model"), "model") or "",
        response_id=wire.identifier(data.get("id"), "id"),
    )
