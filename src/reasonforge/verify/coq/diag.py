"""Read the driver's framed output: which files ran, their exit codes, and Coq's errors with their lines."""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["CoqError", "FileRun", "file_runs", "first_error", "resource_problem"]

_LOCATION = re.compile(r'^File "(?:\./)?(?P<file>[^"]+)", line (?P<line>\d+), characters (?P<a>\d+)-(?P<b>\d+):')
_KILLED = (124, 137)  # `timeout` exit codes: its own deadline, or SIGKILL


@dataclass
class FileRun:
    """One `coqc` run as the driver framed it; `rc` None means it never finished (the sandbox stopped)."""

    name: str
    output: str = ""
    rc: int | None = None
    skipped: bool = False
    elapsed_ms: int | None = None


def file_runs(stdout: str, nonce: str) -> dict[str, FileRun]:
    """Every file the driver started, skipped or finished, keyed by file stem (`Step3`)."""
    prefix = f"@@RF {nonce} "
    runs: dict[str, FileRun] = {}
    current: FileRun | None = None
    lines: list[str] = []
    for line in stdout.splitlines():
        if line.startswith(prefix):
            words = line[len(prefix):].split()
            if len(words) >= 2 and words[0] == "begin" and current is None:
                current, lines = FileRun(words[1]), []
                runs[words[1]] = current
                continue
            if len(words) >= 3 and words[0] == "end" and current is not None and words[1] == current.name:
                current.output = "\n".join(lines).strip("\n")
                current.rc = int(words[2]) if words[2].isdigit() else None
                current.elapsed_ms = int(words[3]) if len(words) > 3 and words[3].isdigit() else None
                current = None
                continue
            if len(words) == 2 and words[0] == "skip" and current is None:
                runs[words[1]] = FileRun(words[1], skipped=True)
                continue
        if current is not None:
            lines.append(line)
    if current is not None:  # the run was cut off (wall clock) while this file compiled
        current.output = "\n".join(lines).strip("\n")
    return runs


@dataclass
class CoqError:
    """Coq's first error in a file: 1-based line (None when Coq gave none), column and message."""

    line: int | None
    column: int | None
    message: str


def first_error(output: str) -> CoqError | None:
    """The first `Error:` (with its `File ..., line ...` location when present) in coqc's output."""
    lines = output.splitlines()
    for i, line in enumerate(lines):
        if not line.startswith(("Error:", "Anomaly")):
            continue
        where = _LOCATION.match(lines[i - 1]) if i > 0 else None
        message = [line.removeprefix("Error:").strip()]
        for more in lines[i + 1:]:
            if not more.strip() or _LOCATION.match(more) or more.startswith("@@RF "):
                break
            message.append(more.strip())
        text = " ".join(m for m in message if m)[:1500]
        if where is None:
            return CoqError(None, None, text)
        return CoqError(int(where["line"]), int(where["a"]) + 1, text)
    return None


def resource_problem(run: FileRun, timeout_s: float) -> str | None:
    """Why a run stopped for want of resources (time, memory, stack), or None."""
    if run.rc is None:
        return "the run was stopped by the chain's wall-clock limit before this file finished"
    if run.rc in _KILLED:
        return f"coqc exceeded its time limit ({timeout_s:g} s) and was killed"
    low = run.output.lower()
    if "out of memory" in low or "cannot allocate memory" in low:
        return "coqc ran out of memory"
    if "stack overflow" in low:
        return "coqc overflowed its stack"
    if run.rc >= 128:
        return f"coqc was killed by signal {run.rc - 128} (a resource limit)"
    return None
