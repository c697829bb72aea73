"""Model backends for the translation engine: OpenAI-compatible Chat Completions and Anthropic Messages (httpx, async).

`ModelSettings` is the boundary: built from arguments, from `--model URL_OR_NAME`, or from the environment
(`REASONFORGE_MODEL_BASE_URL`, `REASONFORGE_MODEL`, `REASONFORGE_MODEL_API_KEY`, `ANTHROPIC_API_KEY`).
A backend turns a `ChatRequest` into a `ChatReply` (text, reasoning, forced-tool arguments, refusal,
truncation, token usage) and raises `ModelError` for everything else. Retries with exponential backoff
and jitter on transport errors, 408/409/429/5xx/529 (honouring `Retry-After`), a per-backend concurrency
limit, and a timeout per HTTP call. The API key is never put in a `Spec`, a log line or an error message.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import time
import weakref
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Literal, Protocol

import httpx
from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError

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
    "make_backend",
    "settings_from_env",
]

BACKEND_VERSION = "1.0"
DEFAULT_OPENAI_URL = "https://api.openai.com/v1"
DEFAULT_ANTHROPIC_URL = "https://api.anthropic.com"
RETRYABLE_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504, 529})
TOOL_NAME = "submit_translation"
Provider = Literal["openai", "anthropic", "local"]
Sleep = Callable[[float], Awaitable[None]]


class ModelError(ReasonForgeError):
    """The endpoint could not give an answer: HTTP error, bad JSON, unknown payload, or retries exhausted."""

    code = "model_error"

    def __init__(self, message: str, *, status: int | None = None, provider_type: str | None = None,
                 retryable: bool = False) -> None:
        super().__init__(message, field="model")
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
    timeout_s: float = Field(default=120.0, gt=0)
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
    anthropic_version: str = "2023-06-01"

    def describe(self) -> str:
        """`provider:model @ base_url`, without secrets."""
        return f"{self.provider}:{self.model or '(discovered)'} @ {self.base_url}"


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
        local = local_settings(wanted, **overrides)
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
        error = exc.errors()[0]
        field = str(error["loc"][0]) if error["loc"] else "model"
        variable = next((v for v, f in _TUNING.items() if f == field), field)
        raise InputError(f"{variable}: {error['msg']} (got {error.get('input')!r})", field=variable) from None


_TUNING = {"REASONFORGE_MODEL_MAX_TOKENS": "max_tokens", "REASONFORGE_MODEL_TIMEOUT_S": "timeout_s",
           "REASONFORGE_MODEL_CONCURRENCY": "concurrency", "REASONFORGE_MODEL_GRAMMAR": "grammar"}


def _tuning(env: Mapping[str, str]) -> dict[str, Any]:
    """The REASONFORGE_MODEL_* tuning variables that are set (validated by ModelSettings: a bad one is named)."""
    out: dict[str, Any] = {}
    for variable, field in _TUNING.items():
        raw = env.get(variable, "").strip()
        if raw:
            out[field] = raw.lower() in ("1", "true", "yes", "on") if field == "grammar" else raw
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

    def __add__(self, other: TokenUsage) -> TokenUsage:
        return TokenUsage(input_tokens=self.input_tokens + other.input_tokens,
                          output_tokens=self.output_tokens + other.output_tokens,
                          reasoning_tokens=self.reasoning_tokens + other.reasoning_tokens)

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


def sampling(settings: ModelSettings, attempt: int) -> tuple[float | None, int | None]:
    """(temperature, seed) for an attempt: the configured temperature first, then `retry_temperature` with the
    attempt number as seed, so a retry cannot return the same reply by construction."""
    if attempt <= 1:
        return settings.temperature, None
    return max(settings.temperature or 0.0, settings.retry_temperature), attempt


class _HttpBackend:
    """Shared HTTP plumbing: one client per call, retries with backoff, a concurrency limit per event loop."""

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
            "base_url": settings.base_url, "model": settings.model, "temperature": settings.temperature,
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

    async def _request(self, method: str, url: str, body: dict[str, Any] | None = None) -> tuple[dict[str, Any], int]:
        """The decoded JSON body of a successful call and how many HTTP tries it took."""
        last = ""
        tries = self.settings.max_retries + 1
        async with self._semaphore(), self._client() as client:
            for attempt in range(tries):
                try:
                    response = await client.request(method, url, json=body)
                except (httpx.TransportError, httpx.TimeoutException) as exc:
                    last = f"{type(exc).__name__}: {exc}"
                    if attempt + 1 < tries:
                        await self._sleep(self._backoff(attempt))
                    continue
                if response.status_code in RETRYABLE_STATUS:
                    last = self._describe_error(response)
                    if attempt + 1 < tries:
                        await self._sleep(self._retry_wait(response, attempt))
                    continue
                if response.status_code >= 400:
                    kind, _ = self._error_fields(response)
                    raise ModelError(self._describe_error(response), status=response.status_code, provider_type=kind)
                try:
                    data = response.json()
                except ValueError:
                    raise ModelError(f"{url} answered {response.status_code} with a body that is not JSON: "
                                     f"{response.text[:200]!r}", status=response.status_code) from None
                if not isinstance(data, dict):
                    raise ModelError(f"{url} answered with JSON that is not an object: {str(data)[:200]}")
                return data, attempt + 1
        raise ModelError(f"gave up after {tries} tries: {last}", retryable=True)

    def _backoff(self, attempt: int) -> float:
        base = self.settings.backoff_s * 2**attempt * self._rng.uniform(0.5, 1.5)
        return min(base, self.settings.max_backoff_s)

    def _retry_wait(self, response: httpx.Response, attempt: int) -> float:
        """`retry-after-ms` / `Retry-After` seconds when the server sends them (capped), else backoff."""
        for header, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
            value = response.headers.get(header)
            if value is not None:
                try:
                    return min(max(float(value) * scale, 0.0), self.settings.max_backoff_s)
                except ValueError:
                    pass  # an HTTP date: fall back to our own backoff
        return self._backoff(attempt)

    @staticmethod
    def _error_fields(response: httpx.Response) -> tuple[str | None, str]:
        """(error type, message) from an OpenAI `{error: {type, message}}` or Anthropic `{type: error, error}` body."""
        try:
            data = response.json()
        except ValueError:
            return None, response.text[:300]
        error = data.get("error") if isinstance(data, dict) else None
        if isinstance(error, dict):
            kind = error.get("type") or error.get("code")
            return (str(kind) if kind else None), str(error.get("message", ""))[:300]
        if isinstance(error, str):
            return None, error[:300]
        return None, json.dumps(data)[:300]

    def _describe_error(self, response: httpx.Response) -> str:
        kind, message = self._error_fields(response)
        label = f" {kind}" if kind else ""
        return f"HTTP {response.status_code}{label}: {message}".rstrip(": ")


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


def _mapping(value: Any) -> Mapping[str, Any]:
    """`value` when it is a JSON object, else an empty one (payload fields are never trusted to be present)."""
    return value if isinstance(value, Mapping) else {}


def decode_openai_chat(data: Mapping[str, Any]) -> ChatReply:
    """A `chat.completion` object as a `ChatReply` (DeepSeek/vLLM `reasoning_content` included)."""
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise ModelError(f"the response has no choices[0] (keys: {', '.join(sorted(map(str, data)))}); expected an "
                         "OpenAI chat.completion object")
    choice = choices[0]
    message = choice.get("message")
    if not isinstance(message, dict):
        raise ModelError("the response has no choices[0].message; expected an OpenAI chat.completion object")
    text = message.get("content")
    if isinstance(text, list):  # some servers send content parts
        text = "".join(str(p.get("text", "")) for p in text if isinstance(p, dict))
    reasoning = message.get("reasoning_content") or message.get("reasoning")
    tool_arguments = None
    calls = message.get("tool_calls")
    if isinstance(calls, list) and calls:
        raw = (calls[0].get("function") or {}).get("arguments") if isinstance(calls[0], dict) else None
        if isinstance(raw, str):
            try:
                decoded = json.loads(raw)
                tool_arguments = decoded if isinstance(decoded, dict) else None
            except json.JSONDecodeError:
                text = raw  # the parser reports the broken JSON
        elif isinstance(raw, dict):
            tool_arguments = raw
    usage = _mapping(data.get("usage"))
    details = _mapping(usage.get("completion_tokens_details"))
    finish = choice.get("finish_reason")
    return ChatReply(
        text=text if isinstance(text, str) else None,
        reasoning=reasoning if isinstance(reasoning, str) else None,
        tool_arguments=tool_arguments,
        refusal=message.get("refusal") if isinstance(message.get("refusal"), str) else None,
        finish_reason=finish if isinstance(finish, str) else None,
        truncated=finish == "length",
        usage=TokenUsage(input_tokens=int(usage.get("prompt_tokens") or 0),
                         output_tokens=int(usage.get("completion_tokens") or 0),
                         reasoning_tokens=int(details.get("reasoning_tokens") or 0)),
        model=str(data.get("model", "")),
        response_id=str(data["id"]) if data.get("id") is not None else None,
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
    """A Messages API `message` object as a `ChatReply` (thinking blocks become `reasoning`)."""
    content = data.get("content")
    if data.get("type") != "message" or not isinstance(content, list):
        raise ModelError(f"the response is not an Anthropic message (type {data.get('type')!r}); expected "
                         "{type: message, content: [...]}")
    texts: list[str] = []
    thoughts: list[str] = []
    tool_arguments = None
    for block in content:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text" and isinstance(block.get("text"), str):
            texts.append(block["text"])
        elif kind == "thinking" and isinstance(block.get("thinking"), str):
            thoughts.append(block["thinking"])
        elif kind == "tool_use" and tool_arguments is None and isinstance(block.get("input"), dict):
            tool_arguments = block["input"]
    usage = _mapping(data.get("usage"))
    stop = data.get("stop_reason")
    text = "\n".join(texts) if texts else None
    return ChatReply(
        text=text,
        reasoning="\n\n".join(thoughts) if thoughts else None,
        tool_arguments=tool_arguments,
        refusal=(text or "the model stopped with stop_reason 'refusal'") if stop == "refusal" else None,
        finish_reason=stop if isinstance(stop, str) else None,
        truncated=stop == "max_tokens",
        usage=TokenUsage(input_tokens=int(usage.get("input_tokens") or 0),
                         output_tokens=int(usage.get("output_tokens") or 0)),
        model=str(data.get("model", "")),
        response_id=str(data["id"]) if data.get("id") is not None else None,
    )
