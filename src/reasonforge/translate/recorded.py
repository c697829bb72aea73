"""A model's replies recorded once and replayed deterministically: the same run against any endpoint, hosted or
local, without it.

`RecordingBackend` wraps a backend and writes every reply (or the error that stood in its place) to a directory,
one file per request under the SHA-256 of the request (system prompt, turns, schema, grammar, token limit, attempt);
the backend's spec and settings are written beside them, since the prompts a translator writes depend on them
(a reply grammar leaves out the metadata lines). `ReplayBackend` answers from such a directory alone: the same
spec, the same settings, the same replies (k samples asked together are answered one recorded attempt at a time,
`llm.complete_samples`), and a request that was never recorded is one `ModelError` that says
the prompt changed since the recording and how to record again. A test or a benchmark run with `--replay DIR` (or
REASONFORGE_MODEL_REPLAY) needs no model at all.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from reasonforge.atomic_file import write_atomic
from reasonforge.boundary.secrets import redact_url
from reasonforge.errors import InputError
from reasonforge.registry import Spec
from reasonforge.translate.llm import ChatReply, ChatRequest, ModelBackend, ModelError, ModelSettings, complete_samples

__all__ = ["RECORD_ENV", "REPLAY_ENV", "RecordingBackend", "RememberingBackend", "ReplayBackend", "recorded",
           "request_key"]

RECORD_ENV = "REASONFORGE_MODEL_RECORD"
REPLAY_ENV = "REASONFORGE_MODEL_REPLAY"
_BACKEND_FILE = "backend.json"
_REPLIES = "replies"
_MAX_RECORD_BYTES = 16 * 1024 * 1024  # a reply file holds one request and one reply: far less than this


def request_key(request: ChatRequest) -> str:
    """The recording's name for `request`: the SHA-256 of its canonical JSON."""
    canonical = json.dumps(request.model_dump(mode="json"), sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class RecordingBackend:
    """`inner`, with every reply written to `directory`."""

    def __init__(self, inner: ModelBackend, directory: Path) -> None:
        self.inner, self.directory, self.spec = inner, Path(directory), inner.spec
        self.settings: ModelSettings | None = getattr(inner, "settings", None)
        try:
            (self.directory / _REPLIES).mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise InputError(f"cannot record model replies in {self.directory}: {exc.strerror}; choose a folder "
                             "you can write to", field="record") from None
        about: dict[str, Any] = {"spec": self.spec.model_dump(mode="json")}
        if self.settings is not None:
            # no key, no credentials in the URL, no local path: a recording is meant to be shared
            kept = self.settings.model_dump(mode="json", exclude={"api_key", "model_path"})
            base = redact_url(self.settings.base_url)
            kept["base_url"] = f"file://{Path(base[len('file://'):]).name}" if base.startswith("file://") else base
            about["settings"] = kept
        write_atomic(self.directory / _BACKEND_FILE, json.dumps(about, indent=1).encode("utf-8"))

    def _write(self, request: ChatRequest, reply: ChatReply | ModelError) -> None:
        entry: dict[str, Any] = {"request": request.model_dump(mode="json")}
        if isinstance(reply, ModelError):
            entry["error"] = reply.message
        else:
            entry["reply"] = reply.model_dump(mode="json")
        path = self.directory / _REPLIES / f"{request_key(request)}.json"
        write_atomic(path, json.dumps(entry, ensure_ascii=False).encode("utf-8"))

    async def complete(self, request: ChatRequest) -> ChatReply:
        """The inner backend's reply, recorded."""
        try:
            reply = await self.inner.complete(request)
        except ModelError as exc:
            self._write(request, exc)
            raise
        self._write(request, reply)
        return reply

    async def complete_samples(self, request: ChatRequest, attempts: Sequence[int]) -> list[ChatReply | ModelError]:
        """The inner backend's replies to each attempt (decoded together where it can), each recorded."""
        replies = await complete_samples(self.inner, request, attempts)
        for attempt, reply in zip(attempts, replies, strict=True):
            self._write(request.model_copy(update={"attempt": attempt}), reply)
        return replies


class RememberingBackend:
    """`inner`, each reply kept in memory for one run: a request asked again (the same prompt, attempt and seed)
    is answered with the reply it got, without the model. A benchmark that translates a chain for its compile
    figures and again inside an ensemble pays the model once. Errors are not kept: a request that failed is
    asked again."""

    def __init__(self, inner: ModelBackend) -> None:
        self.inner, self.spec = inner, inner.spec
        self.settings: ModelSettings | None = getattr(inner, "settings", None)
        self._kept: dict[str, ChatReply] = {}

    async def complete(self, request: ChatRequest) -> ChatReply:
        """The reply `request` got before, else the inner backend's."""
        key = request_key(request)
        if key not in self._kept:
            self._kept[key] = await self.inner.complete(request)
        return self._kept[key]

    async def complete_samples(self, request: ChatRequest, attempts: Sequence[int]) -> list[ChatReply | ModelError]:
        """Each attempt's reply from before, the others from the inner backend (decoded together where it can)."""
        keys = {attempt: request_key(request.model_copy(update={"attempt": attempt})) for attempt in attempts}
        missing = [attempt for attempt in attempts if keys[attempt] not in self._kept]
        fresh: dict[int, ChatReply | ModelError] = {}
        if missing:
            fresh = dict(zip(missing, await complete_samples(self.inner, request, missing), strict=True))
            for attempt, reply in fresh.items():
                if not isinstance(reply, ModelError):
                    self._kept[keys[attempt]] = reply
        return [fresh[attempt] if attempt in fresh else self._kept[keys[attempt]] for attempt in attempts]


class ReplayBackend:
    """The replies recorded in `directory`, as the backend that made them would give them."""

    def __init__(self, directory: Path) -> None:
        self.directory = Path(directory)
        about = _read_json(self.directory / _BACKEND_FILE, f"{self.directory} holds no model recording (no "
                           f"{_BACKEND_FILE}): record one first with --record {self.directory}")
        try:
            self.spec = Spec.model_validate(about.get("spec"))
            self.settings = ModelSettings.model_validate(about["settings"]) if "settings" in about else None
        except ValidationError as exc:
            raise InputError(f"{self.directory / _BACKEND_FILE} is not a recording's description: "
                             f"{exc.errors()[0]['msg']}; record again with --record", field="replay") from None

    async def complete(self, request: ChatRequest) -> ChatReply:
        """The recorded reply to `request`, or its recorded error, raised."""
        path = self.directory / _REPLIES / f"{request_key(request)}.json"
        if not path.is_file():
            raise ModelError(f"no recorded reply in {self.directory} for this request (attempt {request.attempt}, "
                             f"key {request_key(request)[:12]}): the prompt differs from every one recorded; record "
                             f"again with --record {self.directory}")
        entry = _read_json(path, f"{path} cannot be read")
        if "error" in entry:
            raise ModelError(str(entry["error"]))
        try:
            return ChatReply.model_validate(entry.get("reply"))
        except ValidationError as exc:
            raise ModelError(f"{path} is not a recorded reply: {exc.errors()[0]['msg']}") from None


def _read_json(path: Path, missing: str) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            raw = handle.read(_MAX_RECORD_BYTES + 1)
    except OSError:
        raise InputError(missing, field="replay") from None
    if len(raw) > _MAX_RECORD_BYTES:
        raise InputError(f"{path} is larger than any recording ({_MAX_RECORD_BYTES} bytes)", field="replay")
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise InputError(f"{path} is not JSON ({exc}); record again with --record", field="replay") from None
    if not isinstance(data, dict):
        raise InputError(f"{path} is not a recording (a JSON object)", field="replay")
    return data


def recorded(make: Callable[[], ModelBackend | None], *, record: str | Path | None = None,
             replay: str | Path | None = None, env: Mapping[str, str] | None = None) -> ModelBackend | None:
    """The backend `make()` builds, as asked: the recording in `replay` instead (`make` is never called: a replay
    needs no model), or recording into `record` (each defaulting to REASONFORGE_MODEL_REPLAY /
    REASONFORGE_MODEL_RECORD in `env`); both at once is an error."""
    env = env if env is not None else {}
    replay = replay or env.get(REPLAY_ENV, "").strip() or None
    record = record or env.get(RECORD_ENV, "").strip() or None
    if replay and record:
        raise InputError("record or replay model replies, not both (--record and --replay, or "
                         f"{RECORD_ENV} and {REPLAY_ENV})", field="replay")
    if replay:
        return ReplayBackend(Path(replay))
    backend = make()
    if record and backend is not None:
        return RecordingBackend(backend, Path(record))
    return backend
