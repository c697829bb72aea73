"""cvc5 in a child process that the parent kills on timeout (in process, cvc5 ignored its time limit).

Protocol: the parent writes one JSON object to stdin - `logic`, `script` (declarations and premise
asserts), `conclusion` (the term C), `options`, `timeout_ms` - and reads one JSON line
from stdout with the answers of two checks taken from the cvc5 API: premises ∧ ¬C, then (only when
that is unsat) the premises alone. This file imports nothing from reasonforge, so it can run as
`python -I cvc5_worker.py` and load fast; the address-space limit is set before cvc5 is imported.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass
class Cvc5Answer:
    """What the worker reported (`negated_conclusion`/`premises` are sat|unsat|unknown or None)."""

    negated_conclusion: str | None
    premises: str | None
    reason: str | None
    elapsed_ms: float
    killed: bool = False


class Cvc5Job:
    """A running cvc5 check; start it, do other work (Z3), then collect `result()`."""

    def __init__(self, logic: str, script: str, conclusion: str, *, timeout_s: float, memory_mb: int,
                 options: dict[str, str] | None = None) -> None:
        self.timeout_s = timeout_s
        self.started = time.perf_counter()
        payload = json.dumps({
            "logic": logic, "script": script, "conclusion": conclusion, "options": options or {},
            "timeout_ms": int(timeout_s * 1000),
        })
        # -I: ignore the environment and user site; the worker must not pick up code from the caller's cwd.
        self.proc = subprocess.Popen(
            [sys.executable, "-I", str(Path(__file__).resolve()), str(memory_mb)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, encoding="utf-8", env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")},
        )
        self.payload = payload

    def result(self) -> Cvc5Answer:
        """Wait for the answer until the time limit (plus 1 s for the process to start and load cvc5),
        killing the process when it runs over."""
        remaining = max(0.05, self.timeout_s + 1.0 - (time.perf_counter() - self.started))
        try:
            # Input goes in here (not at start) so communicate() can interleave a large script with output.
            out, err = self.proc.communicate(self.payload, timeout=remaining)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.communicate()
            return Cvc5Answer(None, None, f"cvc5 timed out after {self.timeout_s:g} s (process killed)",
                              self._elapsed(), killed=True)
        lines = [line for line in out.splitlines() if line.strip()]
        if self.proc.returncode != 0 or not lines:
            tail = err.strip().splitlines()[-1:] or [f"exit status {self.proc.returncode}"]
            why = "ran out of memory" if "MemoryError" in err or "std::bad_alloc" in err else "failed"
            return Cvc5Answer(None, None, f"cvc5 {why}: {tail[0][:300]}", self._elapsed(), killed=True)
        data = json.loads(lines[-1])
        return Cvc5Answer(data.get("negated_conclusion"), data.get("premises"), data.get("reason"), self._elapsed())

    def cancel(self) -> None:
        """Kill the process if it is still running."""
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.communicate()

    def _elapsed(self) -> float:
        return round((time.perf_counter() - self.started) * 1000, 3)


def _answer(result: Any) -> str:
    if result.isSat():
        return "sat"
    if result.isUnsat():
        return "unsat"
    return "unknown"


def _run(request: dict[str, Any]) -> dict[str, Any]:
    import cvc5

    tm = cvc5.TermManager()
    solver = cvc5.Solver(tm)
    solver.setOption("incremental", "true")
    solver.setOption("tlimit-per", str(request["timeout_ms"]))
    for key, value in request["options"].items():
        solver.setOption(key, value)
    solver.setLogic(request["logic"])
    symbols = cvc5.SymbolManager(tm)
    parser = cvc5.InputParser(solver, symbols)
    parser.setStringInput(cvc5.InputLanguage.SMT_LIB_2_6, request["script"], "artifact")
    while True:
        command = parser.nextCommand()
        if command.isNull():
            break
        command.invoke(solver, symbols)  # only declarations and asserts reach here; output is discarded
    parser.setStringInput(cvc5.InputLanguage.SMT_LIB_2_6, request["conclusion"], "conclusion")
    conclusion = parser.nextTerm()
    negated = solver.checkSatAssuming(conclusion.notTerm())
    reply: dict[str, Any] = {"negated_conclusion": _answer(negated), "premises": None, "reason": None}
    if negated.isUnknown():
        reply["reason"] = str(negated.getUnknownExplanation())
    elif negated.isUnsat():
        premises = solver.checkSat()
        reply["premises"] = _answer(premises)
        if premises.isUnknown():
            reply["reason"] = str(premises.getUnknownExplanation())
    return reply


def main() -> None:
    """Entry point of the child process."""
    import resource

    memory_mb = int(sys.argv[1]) if len(sys.argv) > 1 else 1024
    limit = memory_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    import cvc5  # noqa: F401 - loaded while the parent is still busy with Z3, before input arrives

    request = json.loads(sys.stdin.read())
    try:
        reply = _run(request)
    except MemoryError:
        reply = {"negated_conclusion": None, "premises": None, "reason": f"cvc5 exceeded {memory_mb} MB"}
    except Exception as exc:  # noqa: BLE001 - any cvc5 failure becomes an `error` outcome upstream
        reply = {"negated_conclusion": None, "premises": None, "reason": f"cvc5 error: {exc}"[:500]}
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
