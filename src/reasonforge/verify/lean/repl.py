"""A client for leanprover-community/repl and a pool of warm REPL processes keyed by header.

Protocol (the REPL's README and its test/*.in / *.expected.out files): the client writes one JSON
object, `{"cmd": "...", "env": n}` (no `env`: a fresh environment), followed by a blank line; the REPL
answers with one JSON object, pretty-printed over several lines, followed by a blank line:
`{"env": m, "messages": [{"severity", "pos", "endPos", "data"}], "sorries": [...]}` or, for a bad
request, `{"message": "..."}`. Every command that succeeds yields a new environment id.

Pool (as kimina-lean-server does): importing Mathlib costs seconds, so each process runs its header
(the imports) once and every later command builds on that header's environment. Processes are kept
per header, least recently used first out, restarted when they crash, recycled after `max_uses`
commands (environments accumulate in memory), and killed when a command exceeds its timeout.
The REPL runs whatever command is configured: wrap it in a sandbox there (it executes artifacts).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import selectors
import signal
import subprocess
import tempfile
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from typing import Any, Self

from pydantic import BaseModel, Field

from reasonforge.errors import ReasonForgeError
from reasonforge.verify.lean.diag import Diagnostic, parse_json_message

__all__ = ["LeanReplPool", "ReplCrashed", "ReplError", "ReplProcess", "ReplResponse", "ReplSession", "ReplTimeout"]

log = logging.getLogger(__name__)
_MAX_RESPONSE_BYTES = 64 << 20  # a runaway REPL must not fill our memory


class ReplError(ReasonForgeError):
    """The Lean REPL could not answer."""

    code = "lean_repl_error"


class ReplCrashed(ReplError):
    """The REPL process exited, closed its pipes or wrote something that is not the protocol."""


class ReplTimeout(ReplError):
    """A command ran past its timeout; the process was killed."""


class ReplResponse(BaseModel):
    """One REPL answer: the new environment id, its messages, and the raw object."""

    env: int | None = None
    messages: list[Diagnostic] = Field(default_factory=list)
    error: str | None = Field(default=None, description="the REPL's own complaint (`{\"message\": ...}`)")
    raw: dict[str, Any] = Field(default_factory=dict)

    @classmethod
    def from_raw(cls, raw: dict[str, Any]) -> ReplResponse:
        """Read the protocol object (unknown fields are kept in `raw`)."""
        messages = [d for m in raw.get("messages") or [] if (d := parse_json_message(m)) is not None]
        env = raw.get("env")
        error = raw.get("message")
        return cls(env=env if isinstance(env, int) else None, messages=messages,
                   error=error if isinstance(error, str) else None, raw=raw)


class ReplProcess:
    """One `repl` process speaking the JSON protocol over stdin/stdout."""

    def __init__(self, argv: Sequence[str], *, cwd: str | None = None, env: dict[str, str] | None = None) -> None:
        if not argv:
            raise ValueError("the REPL command is empty")
        self.argv, self.cwd, self.env = list(argv), cwd, env
        self._proc: subprocess.Popen[bytes] | None = None
        self._stderr: Any = None
        self._buffer = b""

    @property
    def alive(self) -> bool:
        """True while the process runs."""
        return self._proc is not None and self._proc.poll() is None

    @property
    def pid(self) -> int | None:
        """The process id, once started."""
        return self._proc.pid if self._proc else None

    def start(self) -> None:
        """Start the process (its own process group, so a kill takes its children too)."""
        # A file, not a pipe: nobody reads stderr while the REPL works, and a full pipe would stall it.
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 - lives as long as the process
        try:
            self._proc = subprocess.Popen(self.argv, cwd=self.cwd, env=self.env, stdin=subprocess.PIPE,
                                          stdout=subprocess.PIPE, stderr=self._stderr, start_new_session=True)
        except OSError as exc:
            raise ReplCrashed(f"cannot start the Lean REPL `{' '.join(self.argv)}`: {exc}") from exc
        os.set_blocking(self._proc.stdout.fileno(), False)  # type: ignore[union-attr]
        self._buffer = b""

    def send(self, request: dict[str, Any], timeout: float) -> dict[str, Any]:
        """Write one request and return the parsed answer; ReplTimeout / ReplCrashed on failure."""
        proc = self._proc
        if proc is None or proc.poll() is not None:
            raise ReplCrashed(f"the Lean REPL is not running{self._exit_note()}")
        payload = (json.dumps(request, ensure_ascii=False) + "\n\n").encode("utf-8")
        try:
            assert proc.stdin is not None
            proc.stdin.write(payload)
            proc.stdin.flush()
        except (BrokenPipeError, OSError) as exc:
            self.close()
            raise ReplCrashed(f"the Lean REPL closed its input{self._exit_note()}") from exc
        text = self._read_answer(time.monotonic() + timeout, timeout)
        try:
            answer = json.loads(text)
        except ValueError as exc:
            self.close()
            raise ReplCrashed(f"the Lean REPL answered with something that is not JSON: {text[:300]!r}") from exc
        if not isinstance(answer, dict):
            self.close()
            raise ReplCrashed(f"the Lean REPL answered with a JSON {type(answer).__name__}, not an object")
        return answer

    def _read_answer(self, deadline: float, timeout: float) -> str:
        # The answer ends at the first blank line after some content (pretty JSON has no blank lines).
        proc = self._proc
        assert proc is not None and proc.stdout is not None
        fd = proc.stdout.fileno()
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_READ)
            while True:
                pending = self._buffer.lstrip(b"\n")
                end = pending.find(b"\n\n")
                if end >= 0:
                    self._buffer = pending[end + 2:]
                    return pending[:end].decode("utf-8", "replace")
                if len(self._buffer) > _MAX_RESPONSE_BYTES:
                    self.close()
                    raise ReplCrashed("the Lean REPL's answer exceeded 64 MiB")
                left = deadline - time.monotonic()
                if left <= 0:
                    self.close()
                    raise ReplTimeout(f"the Lean REPL did not answer within {timeout:g} s; the process was killed")
                if not sel.select(left):
                    continue
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    self.close()
                    raise ReplCrashed(f"the Lean REPL exited before answering{self._exit_note()}")
                self._buffer += chunk

    def _exit_note(self) -> str:
        proc = self._proc
        code = proc.poll() if proc is not None else None
        tail = ""
        if self._stderr is not None:
            try:
                self._stderr.seek(0, os.SEEK_END)
                size = self._stderr.tell()
                self._stderr.seek(max(0, size - 500))
                tail = self._stderr.read().decode("utf-8", "replace").strip()
            except (OSError, ValueError):
                tail = ""
        parts = ([f"exit status {code}"] if code is not None else []) + ([f"stderr: {tail}"] if tail else [])
        return f" ({'; '.join(parts)})" if parts else ""

    def close(self) -> None:
        """Kill the process group and release the pipes (idempotent)."""
        proc = self._proc
        if proc is not None:
            if proc.poll() is None:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(proc.pid, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=5)
            for pipe in (proc.stdin, proc.stdout):
                with contextlib.suppress(OSError):
                    if pipe is not None:
                        pipe.close()


class ReplSession:
    """A REPL process whose header has run: commands build on `header_env` (None: empty header)."""

    def __init__(self, header: str, process: ReplProcess) -> None:
        self.header = header
        self.process = process
        self.header_env: int | None = None
        self.uses = 0
        self.lock = threading.Lock()
        self.ready = False

    def command(self, cmd: str, *, env: int | None, timeout: float) -> ReplResponse:
        """Run `cmd` on environment `env` (None: a fresh one)."""
        request: dict[str, Any] = {"cmd": cmd}
        if env is not None:
            request["env"] = env
        self.uses += 1
        return ReplResponse.from_raw(self.process.send(request, timeout))

    def prepare(self, timeout: float) -> None:
        """Start the process if needed and run the header once."""
        if self.ready and self.process.alive:
            return
        self.process.close()
        self.process.start()
        self.header_env, self.uses, self.ready = None, 0, False
        if self.header.strip():
            answer = self.command(self.header, env=None, timeout=timeout)
            errors = [d.message for d in answer.messages if d.severity == "error"]
            if answer.error or errors or answer.env is None:
                self.process.close()
                raise ReplError(f"the REPL header failed: {answer.error or (errors[0] if errors else 'no env')}")
            self.header_env = answer.env
        self.ready = True


class LeanReplPool:
    """Warm REPL processes keyed by header (see module doc); safe to share between threads."""

    def __init__(self, command: Sequence[str], *, cwd: str | None = None, max_processes: int = 2,
                 max_uses: int = 500, header_timeout: float = 600.0) -> None:
        if max_processes < 1:
            raise ValueError("max_processes must be at least 1")
        self.command, self.cwd = list(command), cwd
        self.max_processes, self.max_uses, self.header_timeout = max_processes, max_uses, header_timeout
        self._sessions: OrderedDict[str, ReplSession] = OrderedDict()
        self._lock = threading.Lock()

    @contextlib.contextmanager
    def session(self, header: str) -> Iterator[ReplSession]:
        """A ready session for `header`, held exclusively until the block ends."""
        with self._lock:
            session = self._sessions.get(header)
            if session is None:
                session = ReplSession(header, ReplProcess(self.command, cwd=self.cwd))
                self._sessions[header] = session
            self._sessions.move_to_end(header)
            self._evict()
        with session.lock:
            session.prepare(self.header_timeout)
            try:
                yield session
            except ReplError:
                session.process.close()  # its environments are gone with it; the next use restarts
                session.ready = False
                raise
            if session.uses >= self.max_uses:
                session.process.close()
                session.ready = False

    def _evict(self) -> None:
        # Oldest idle sessions go first; one in use is skipped and goes once it is idle again.
        for header in list(self._sessions):
            if len(self._sessions) <= self.max_processes:
                return
            victim = self._sessions[header]
            if victim.lock.acquire(blocking=False):
                try:
                    victim.process.close()
                    del self._sessions[header]
                finally:
                    victim.lock.release()

    def run(self, header: str, cmd: str, *, timeout: float) -> ReplResponse:
        """Run one command on the header's environment, restarting a crashed process once."""
        for attempt in (1, 2):
            try:
                with self.session(header) as session:
                    return session.command(cmd, env=session.header_env, timeout=timeout)
            except ReplCrashed:
                if attempt == 2:
                    raise
                log.warning("Lean REPL crashed; restarting it once")
        raise AssertionError("unreachable")

    def close(self) -> None:
        """Kill every process."""
        with self._lock:
            for session in self._sessions.values():
                session.process.close()
            self._sessions.clear()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
