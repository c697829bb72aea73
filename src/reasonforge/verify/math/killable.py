"""SymPy work in a process that can be killed: a wall-clock deadline and an address-space limit bound it from any
thread of the caller (SymPy has no deadline of its own, and `math-verify`'s SIGALRM timeouts work only in a
process's main thread, which a worker process always is)."""

from __future__ import annotations

import functools
import math
import multiprocessing
import resource
import signal
import threading
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Any, Generic, TypeVar

import sympy

__all__ = ["Killed", "Returned", "Stop", "call_killable", "limit_memory", "start_context", "warm_sympy"]

T = TypeVar("T")


def start_context(preload: str) -> (multiprocessing.context.ForkContext | multiprocessing.context.ForkServerContext
                                     | multiprocessing.context.SpawnContext):
    """How to start a worker: fork when this process has a single thread (fast, ~10 ms, and nothing is
    re-imported); from a multi-threaded process (a server), a fork server that preloads `preload`, since forking a
    threaded process can deadlock. (The fork server re-imports the main module of a script, which then needs the
    usual `if __name__ == "__main__":` guard.)"""
    methods = multiprocessing.get_all_start_methods()
    if "fork" in methods and threading.active_count() == 1:
        return multiprocessing.get_context("fork")
    if "forkserver" in methods:
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload([preload])
        return ctx
    return multiprocessing.get_context("spawn")


@functools.cache
def warm_sympy() -> bool:
    """Run simplify and solve once in this process, so forked workers inherit SymPy's lazily imported
    modules and caches instead of paying ~300 ms each."""
    x = sympy.Symbol("x", real=True)
    sympy.simplify(x**2 - 1 - (x - 1) * (x + 1))
    sympy.solve([x**2 - 4], [x], dict=True)
    return True


def _mapped_bytes() -> int:
    """This process's virtual size (Linux), 0 where unknown."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[0]) * resource.getpagesize()
    except (OSError, ValueError, IndexError):
        return 0


def limit_memory(memory_mb: int) -> None:
    """Cap this (worker) process's address space at what it maps now plus `memory_mb`: a forked worker inherits its
    parent's mappings (a server's thread arenas alone can pass 1 GiB), so the budget is what the work may add."""
    try:
        limit = _mapped_bytes() + memory_mb * 1024 * 1024
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        resource.setrlimit(resource.RLIMIT_AS, (limit if hard == resource.RLIM_INFINITY else min(limit, hard), hard))
    except (ValueError, OSError):
        pass  # the wall-clock kill still bounds the work


@dataclass(frozen=True)
class Returned(Generic[T]):
    """What the function returned."""

    value: T


class Stop(str, Enum):
    """Why a worker's function did not return: its deadline passed, its CPU budget was spent, it ran out of memory
    (MemoryError, or the process died, which is what an exhausted address space usually looks like), or it raised."""

    TIMEOUT = "timeout"
    CPU = "cpu"
    MEMORY = "memory"
    CRASH = "crash"


@dataclass(frozen=True)
class Killed:
    """The function did not return: why (`Stop`), with a message for people."""

    why: Stop
    message: str


def _limit_cpu(seconds: float, *, exact: bool = False) -> None:
    """Cap this worker's CPU time: the caller kills it at its deadline, but a worker whose caller died first
    (SIGKILL) must still end on its own. `exact`: the cap is the work's budget, soft and hard alike, so the kernel
    sends SIGKILL when it is spent."""
    try:
        _, hard = resource.getrlimit(resource.RLIMIT_CPU)
        soft = math.ceil(seconds) + (0 if exact else 2)
        soft = soft if hard == resource.RLIM_INFINITY else min(soft, hard)
        resource.setrlimit(resource.RLIMIT_CPU, (soft, soft if exact else hard))
    except (ValueError, OSError):
        pass


def _run(conn: Any, fn: Callable[..., Any], args: tuple[Any, ...], memory_mb: int, timeout_s: float,
         cpu_s: float | None) -> None:
    limit_memory(memory_mb)
    _limit_cpu(cpu_s if cpu_s is not None else timeout_s, exact=cpu_s is not None)
    try:
        result: Returned[Any] | Killed = Returned(fn(*args))
    except MemoryError:
        result = Killed(Stop.MEMORY, f"it ran out of its {memory_mb} MiB memory limit")
    except RecursionError:
        result = Killed(Stop.CRASH, "the expressions are too deeply nested")  # the word callers look for
    except Exception as exc:  # noqa: BLE001 - reported to the caller, not a dead worker
        result = Killed(Stop.CRASH, f"{type(exc).__name__}: {str(exc)[:200]}")
    conn.send(result)
    conn.close()


def call_killable(fn: Callable[..., T], args: tuple[Any, ...], *, timeout_s: float, memory_mb: int = 1024,
                  preload: str = "sympy", warm: Callable[[], object] | None = None,
                  cpu_s: float | None = None) -> Returned[T] | Killed:
    """`fn(*args)` in a worker process, killed after `timeout_s` (plus a fifth of a second for its start) or when it
    maps more than `memory_mb` more than it started with. `fn`, its arguments and its result must pickle (and `fn`
    be importable by name where the worker is not forked); `warm` runs here first when the worker is forked, so
    what it loads is inherited instead of paid per call. `cpu_s`: a budget of CPU seconds, past which the kernel
    kills the worker (SIGKILL; time spent waiting is not counted), besides the wall-clock `timeout_s`."""
    ctx = start_context(preload)
    if warm is not None and ctx.get_start_method() == "fork":
        warm()
    receive, send = ctx.Pipe(duplex=False)
    # not a daemon, so the work may start workers of its own (the reference comparison inside a reward); it is
    # killed below all the same, and bounds its own CPU time should this process die first
    process = ctx.Process(target=_run, args=(send, fn, args, memory_mb, timeout_s, cpu_s), daemon=False)
    process.start()
    send.close()
    try:
        if receive.poll(timeout_s + 0.2):
            result: Returned[T] | Killed = receive.recv()
            return result
        return Killed(Stop.TIMEOUT, f"it did not finish within {timeout_s:g} s")
    except EOFError:
        process.join(timeout=5)
        if cpu_s is not None and process.exitcode in (-signal.SIGKILL, -signal.SIGXCPU):
            return Killed(Stop.CPU, f"it used up its budget of {cpu_s:g} CPU seconds")
        return Killed(Stop.MEMORY, f"the worker process died (exit code {process.exitcode}); it may have exceeded its "
                      "memory limit")
    finally:
        receive.close()
        if process.is_alive():
            process.kill()
        process.join(timeout=5)
