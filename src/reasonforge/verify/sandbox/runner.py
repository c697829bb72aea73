"""Run untrusted programs under bubblewrap + rlimits (DESIGN §3.4): no network, read-only system,
fresh work dir, empty environment, unprivileged uid, wall-clock kill, capped output.

    from reasonforge.verify.sandbox.runner import run_sandboxed, Limits, sandbox_python
    r = run_sandboxed([sandbox_python(), "-m", "pytest", "-q"], {"test_x.py": src}, Limits(wall_s=20))
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import shutil
import signal as _signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO

from pydantic import BaseModel, ConfigDict, Field

from reasonforge.errors import ReasonForgeError
from reasonforge.verify.sandbox.disk import WorkDirGuard
from reasonforge.verify.sandbox.environment import default_location, find_sandbox_env
from reasonforge.verify.sandbox.files import OutputPump, collect_files, write_files
from reasonforge.verify.sandbox.uids import UidLease, processes_of, wait_until_gone

log = logging.getLogger(__name__)

WORK_DIR = "/sandbox"  # the program's cwd and HOME inside the sandbox
INNER_UID = 65534  # "nobody" as the program sees itself
_MIB = 1 << 20
_MEMORY_SIGNS = re.compile(rb"MemoryError|Cannot allocate memory|std::bad_alloc|out of memory", re.IGNORECASE)
_HOST_PATH = "/usr/local/bin:/usr/bin:/bin"


class SandboxUnavailable(ReasonForgeError):
    """This host cannot create the sandbox's namespaces (or lacks bubblewrap); untrusted code must not run."""

    code = "sandbox_unavailable"


class Limits(BaseModel):
    """Resource limits for one run; rlimits apply per process, the wall clock to the whole run."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    cpu_s: float = Field(default=10, gt=0)
    wall_s: float = Field(default=30, gt=0)
    memory_mb: int = Field(default=1024, gt=0, description="address space per process")
    processes: int = Field(default=256, gt=0)
    file_size_mb: int = Field(default=64, gt=0)
    open_files: int = Field(default=256, gt=0)
    output_bytes: int = Field(default=_MIB, gt=0, description="cap on each of stdout and stderr")
    collect_bytes: int = Field(default=16 * _MIB, gt=0, description="cap on each collected file")
    tmp_mb: int = Field(default=256, gt=0, description="size of the private /tmp tmpfs")
    work_mb: int = Field(default=256, gt=0, description="total size of the writable work dir")
    work_files: int = Field(default=10_000, gt=0, description="files and directories in the work dir")


class SandboxResult(BaseModel):
    """What a sandboxed run did; `signal` is set (and `exit_code` None) when the program died by a signal.

    The program controls its own exit status and stderr, so `exit_code` (an exit status 128+N reads as
    signal N, as bubblewrap reports it), `memory_exceeded` (MemoryError signatures in stderr) are its
    word; `timed_out` and `cpu_exceeded` (SIGXCPU, or SIGKILL after the CPU limit) are the host's.
    Results that matter must travel on a channel the program cannot forge.
    """

    exit_code: int | None
    signal: int | None = None
    stdout: str = ""
    stderr: str = ""
    output_truncated: bool = False
    timed_out: bool = False
    memory_exceeded: bool = False
    cpu_exceeded: bool = False
    disk_exceeded: bool = False
    elapsed_ms: float = 0.0
    files: dict[str, bytes] = Field(default_factory=dict)
    collect_errors: dict[str, str] = Field(default_factory=dict)
    sandboxed: bool = True

    @property
    def ok(self) -> bool:
        """Exited 0 within every limit."""
        return self.exit_code == 0 and not (self.timed_out or self.memory_exceeded or self.cpu_exceeded
                                            or self.disk_exceeded)


def sandbox_venv() -> Path | None:
    """The world-readable venv the sandbox binds read-only, if built (`environment.find_sandbox_env`)."""
    return find_sandbox_env()


def sandbox_python() -> str:
    """Path of the interpreter (with pytest and hypothesis) as seen inside the sandbox."""
    venv = sandbox_venv()
    if venv is None:
        raise SandboxUnavailable(f"the sandbox's Python environment is missing ({default_location()}): run "
                                 "`reasonforge sandbox install` once (or `make install` in a checkout)")
    # Bound at the same path inside, so console-script shebangs work too.
    return str(venv / "bin" / "python")


class _Availability:
    """Probes once per process whether namespaces can be created here; thread-safe, result cached."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._error: str | None = None
        self._checked = False

    def require(self) -> None:
        """Raise SandboxUnavailable unless a trivial sandboxed run works on this host."""
        with self._lock:
            if not self._checked:
                self._error = self._probe()
                self._checked = True
        if self._error:
            raise SandboxUnavailable(self._error)

    @staticmethod
    def _probe() -> str | None:
        missing = [t for t in ("bwrap", "prlimit", "setpriv") if shutil.which(t, path=_HOST_PATH) is None]
        if missing:
            return f"sandbox tools missing: {', '.join(missing)} (install Debian 'bubblewrap' and 'util-linux')"
        try:
            r = _run(["/bin/true"], {}, Limits(wall_s=20), (), None, ())
        except OSError as exc:
            return f"cannot start bubblewrap: {exc}"
        if r.exit_code != 0:
            return ("bubblewrap cannot create namespaces on this host, so untrusted code will not run "
                    f"(pass unsafe_no_sandbox=True only for trusted local code): {r.stderr.strip()[:500]}")
        return None


_AVAILABILITY = _Availability()


def unavailable_reason() -> str | None:
    """Why sandboxed runs cannot happen on this host (no namespaces, no venv), or None when they can."""
    try:
        _AVAILABILITY.require()
        sandbox_python()
    except SandboxUnavailable as exc:
        return exc.message
    return None


def run_sandboxed(
    argv: Sequence[str],
    files: Mapping[str, str | bytes],
    limits: Limits | None = None,
    *,
    collect: Sequence[str] = (),
    stdin: bytes | None = None,
    extra_ro_binds: Sequence[tuple[str, str]] = (),
    unsafe_no_sandbox: bool = False,
) -> SandboxResult:
    """Run `argv` in a fresh sandbox whose cwd holds `files`; read back `collect`ed paths afterwards."""
    if not argv:
        raise ValueError("argv must not be empty")
    limits = limits or Limits()
    if unsafe_no_sandbox:
        log.warning("running %s WITHOUT a sandbox (rlimits only): trusted local code only", argv[0])
    else:
        _AVAILABILITY.require()
    return _run(list(argv), files, limits, collect, stdin, extra_ro_binds, unsafe=unsafe_no_sandbox)


def _run(
    argv: list[str],
    files: Mapping[str, str | bytes],
    limits: Limits,
    collect: Sequence[str],
    stdin: bytes | None,
    extra_ro_binds: Sequence[tuple[str, str]],
    *,
    unsafe: bool = False,
) -> SandboxResult:
    as_root = os.geteuid() == 0
    lease = UidLease() if (as_root and not unsafe) else None
    with lease or contextlib.nullcontext():
        uid = lease.uid if lease else None
        host_dir = tempfile.mkdtemp(prefix="reasonforge-sbx-")
        try:
            if uid is not None:
                os.chown(host_dir, uid, uid)
            write_files(host_dir, files, uid, uid)
            if unsafe:
                cmd = _prlimit(limits) + ["--"] + argv
                env = _inner_env(host_dir)
                cwd = host_dir
            else:
                cmd = _outer(uid, limits) + _bwrap(host_dir, extra_ro_binds, limits) + ["--"] + argv
                env, cwd = {"PATH": _HOST_PATH}, "/"
            result = _execute(cmd, env, cwd, limits, stdin, sandboxed=not unsafe, work_dir=host_dir)
            if uid is not None:
                # The pid namespace is torn down asynchronously after its init exits. Waiting for it
                # means nothing of the run is alive when we collect files or return, and the uid goes
                # back to the pool without dying processes that would count toward its RLIMIT_NPROC.
                wait_until_gone(uid, 5.0)
            result.files, result.collect_errors = collect_files(host_dir, collect, limits.collect_bytes)
            return result
        finally:
            shutil.rmtree(host_dir, ignore_errors=True)  # rmtree does not follow planted symlinks


def _outer(uid: int | None, limits: Limits) -> list[str]:
    # Drop to the leased uid *before* prlimit: as root, RLIMIT_NPROC is not enforced at all.
    cmd = []
    if uid is not None:
        cmd = ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--inh-caps=-all",
               "--bounding-set=-all", "--no-new-privs"]
    extra = processes_of(os.getuid()) if uid is None else 0  # not root: own processes count too
    return cmd + _prlimit(limits, extra)


def _prlimit(limits: Limits, extra_procs: int = 0) -> list[str]:
    cpu = max(1, int(limits.cpu_s + 0.999))
    return [
        "prlimit",
        f"--cpu={cpu}:{cpu + 1}",  # SIGXCPU at the soft limit, SIGKILL a second later
        f"--as={limits.memory_mb * _MIB}",
        f"--nproc={limits.processes + extra_procs}",
        f"--fsize={limits.file_size_mb * _MIB}",
        f"--nofile={limits.open_files}",
        "--core=0",
    ]


def _bwrap(host_dir: str, extra_ro_binds: Sequence[tuple[str, str]], limits: Limits) -> list[str]:
    cmd = ["bwrap", "--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent",
           "--new-session", "--cap-drop", "ALL", "--hostname", "sandbox", "--clearenv"]
    for k, v in _inner_env(WORK_DIR).items():
        cmd += ["--setenv", k, v]
    cmd += ["--ro-bind", "/usr", "/usr"]
    for top in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        if os.path.islink(top):  # merged-/usr systems: recreate the symlink instead of binding
            cmd += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            cmd += ["--ro-bind", top, top]
    # Only the dynamic linker's cache from /etc: no passwd, shadow, resolv.conf or hosts.
    for etc in ("/etc/ld.so.cache",):
        if os.path.exists(etc):
            cmd += ["--ro-bind", etc, etc]
    cmd += ["--proc", "/proc", "--dev", "/dev", "--size", str(limits.tmp_mb * _MIB), "--tmpfs", "/tmp"]
    venv = sandbox_venv()
    if venv is not None:
        cmd += ["--ro-bind", str(venv), str(venv)]
    for src, dest in extra_ro_binds:
        cmd += ["--ro-bind", src, dest]
    cmd += ["--bind", host_dir, WORK_DIR, "--chdir", WORK_DIR, "--uid", str(INNER_UID), "--gid", str(INNER_UID)]
    # bwrap's root is an uncapped tmpfs: left writable, a program could fill host memory through it.
    return cmd + ["--remount-ro", "/"]


def _inner_env(home: str) -> dict[str, str]:
    venv = sandbox_venv()
    path = (f"{venv}/bin:" if venv else "") + _HOST_PATH
    return {"PATH": path, "HOME": home, "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1", "PYTHONHASHSEED": "0"}


def _execute(cmd: list[str], env: dict[str, str], cwd: str, limits: Limits, stdin: bytes | None,
             *, sandboxed: bool, work_dir: str) -> SandboxResult:
    start = time.monotonic()
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=cwd,
                            start_new_session=True, close_fds=True)
    assert proc.stdout is not None and proc.stderr is not None
    if stdin is not None:
        threading.Thread(target=_feed, args=(proc.stdin, stdin), daemon=True).start()
    # The pump owns (and closes) its own copies of the fds; the file objects go now.
    pump = OutputPump({"stdout": os.dup(proc.stdout.fileno()), "stderr": os.dup(proc.stderr.fileno())},
                      limits.output_bytes)
    proc.stdout.close()
    proc.stderr.close()
    pidfd = os.pidfd_open(proc.pid)
    pump.add_waiter(pidfd)
    deadline = start + limits.wall_s
    timed_out = False
    guard = WorkDirGuard(work_dir, proc.pid, limits.work_mb * _MIB, limits.work_files)
    try:
        with guard:
            exited = pump.pump(deadline)
        if not exited and time.monotonic() >= deadline:
            timed_out = True
            _killpg(proc.pid)
        # Drain what is left briefly; in sandboxed mode the namespace's death closes every pipe.
        pump.remove_waiter(pidfd)
        pump.pump(time.monotonic() + (2.0 if sandboxed else 0.5))
        _, status = os.waitpid(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        if not sandboxed:
            _killpg(proc.pid)  # unsafe mode: leftover children of the group go too
    finally:
        os.close(pidfd)
        pump.close()
    elapsed_ms = (time.monotonic() - start) * 1000
    exit_code, sig = _decode(status, sandboxed)
    stderr = bytes(pump.data["stderr"])
    # The soft CPU limit sends SIGXCPU; a program ignoring it gets SIGKILL at the hard limit a second
    # later (rusage can't tell us the CPU time: bubblewrap's monitor does not reap the namespace).
    cpu_exceeded = sig == _signal.SIGXCPU or (sig == _signal.SIGKILL and elapsed_ms >= 1000 * limits.cpu_s)
    memory_exceeded = bool(_MEMORY_SIGNS.search(stderr[-65536:]))
    return SandboxResult(
        exit_code=exit_code, signal=sig,
        stdout=bytes(pump.data["stdout"]).decode("utf-8", "replace"), stderr=stderr.decode("utf-8", "replace"),
        output_truncated=pump.truncated, timed_out=timed_out, memory_exceeded=memory_exceeded and not timed_out,
        cpu_exceeded=cpu_exceeded and not timed_out, disk_exceeded=guard.exceeded is not None, elapsed_ms=round(elapsed_ms, 2), sandboxed=sandboxed,
    )


def _decode(status: int, sandboxed: bool) -> tuple[int | None, int | None]:
    if os.WIFSIGNALED(status):
        return None, os.WTERMSIG(status)
    code = os.WEXITSTATUS(status)
    # bubblewrap reports a child killed by signal N as exit status 128 + N.
    if sandboxed and 128 < code <= 128 + 64:
        return None, code - 128
    return code, None


def _killpg(pgid: int) -> None:
    try:
        os.killpg(pgid, _signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _feed(pipe: IO[bytes], data: bytes) -> None:
    try:
        pipe.write(data)
    except (BrokenPipeError, OSError):
        pass
    finally:
        try:
            pipe.close()
        except OSError:
            pass
