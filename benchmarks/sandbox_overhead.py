"""Sandbox overhead: sandboxed vs plain `python -c pass` and pytest on a small file, and programs/second.

    python benchmarks/sandbox_overhead.py [--reps 20] [--jobs 2] [--burst 40] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from reasonforge.verify.sandbox.runner import run_sandboxed, sandbox_python, unavailable_reason

SMALL_TEST = """
def add(a, b):
    return a + b


def test_add():
    assert add(2, 3) == 5


def test_add_negative():
    assert add(-1, 1) == 0
"""
PYTEST_ARGS = ["-m", "pytest", "-q", "-p", "no:cacheprovider", "test_small.py"]


def _paired_ms(plain: Callable[[], None], boxed: Callable[[], None], reps: int) -> tuple[float, float]:
    """Median ms of each; runs alternate so a busy machine's load falls on both alike."""
    plain()  # warm the page cache and the interpreter's imports
    boxed()
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(reps):
        for fn, acc in ((plain, times[0]), (boxed, times[1])):
            t = time.perf_counter()
            fn()
            acc.append((time.perf_counter() - t) * 1000)
    return statistics.median(times[0]), statistics.median(times[1])


def _plain(argv: list[str], cwd: str) -> None:
    subprocess.run(argv, cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _sandboxed(argv: list[str]) -> None:
    r = run_sandboxed(argv, {"test_small.py": SMALL_TEST})
    if r.exit_code != 0:
        raise SystemExit(f"sandboxed run failed: {r.stdout}{r.stderr}")


def _per_second(fn: Callable[[], None], jobs: int, burst: int) -> float:
    with ThreadPoolExecutor(jobs) as pool:
        t = time.perf_counter()
        list(pool.map(lambda _: fn(), range(burst)))
        return burst / (time.perf_counter() - t)


def measure(reps: int, jobs: int, burst: int) -> dict[str, float]:
    """All figures, in ms and runs per second."""
    py = sandbox_python()
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "test_small.py").write_text(SMALL_TEST)
        pass_argv, pytest_argv = [py, "-c", "pass"], [py, *PYTEST_ARGS]
        out: dict[str, float] = {}
        out["plain_pass_ms"], out["sandboxed_pass_ms"] = _paired_ms(
            lambda: _plain(pass_argv, tmp), lambda: _sandboxed(pass_argv), reps)
        out["plain_pytest_ms"], out["sandboxed_pytest_ms"] = _paired_ms(
            lambda: _plain(pytest_argv, tmp), lambda: _sandboxed(pytest_argv), reps)
        out |= {
            "plain_pass_per_s": _per_second(lambda: _plain(pass_argv, tmp), jobs, burst),
            "sandboxed_pass_per_s": _per_second(lambda: _sandboxed(pass_argv), jobs, burst),
            "sandboxed_pytest_per_s": _per_second(lambda: _sandboxed(pytest_argv), jobs, max(2, burst // 4)),
        }
    out["pass_ratio"] = out["sandboxed_pass_ms"] / out["plain_pass_ms"]
    out["pytest_ratio"] = out["sandboxed_pytest_ms"] / out["plain_pytest_ms"]
    out["added_ms"] = out["sandboxed_pass_ms"] - out["plain_pass_ms"]
    out["meets_target"] = float(out["pytest_ratio"] <= 1.5)
    return {k: round(v, 3) for k, v in out.items()}


def render(r: dict[str, float], jobs: int) -> str:
    """A plain-text table of the figures."""
    rows = [
        ("python -c pass", f"{r['plain_pass_ms']:.1f} ms", f"{r['sandboxed_pass_ms']:.1f} ms", f"{r['pass_ratio']:.2f}x"),
        ("pytest, small file", f"{r['plain_pytest_ms']:.1f} ms", f"{r['sandboxed_pytest_ms']:.1f} ms",
         f"{r['pytest_ratio']:.2f}x"),
        (f"pass runs/s, {jobs} jobs", f"{r['plain_pass_per_s']:.1f}", f"{r['sandboxed_pass_per_s']:.1f}", ""),
        (f"pytest runs/s, {jobs} jobs", "", f"{r['sandboxed_pytest_per_s']:.1f}", ""),
    ]
    head = ("", "plain", "sandboxed", "ratio")
    widths = [max(len(row[i]) for row in [head, *rows]) for i in range(4)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths)) for row in [head, *rows]]
    verdict = "meets" if r["meets_target"] else "MISSES"
    lines.append(f"added latency per run: {r['added_ms']:.1f} ms; pytest ratio {verdict} the 1.5x target")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Parse arguments, measure, print a table or JSON."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--burst", type=int, default=40, help="runs per throughput measurement")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    why = unavailable_reason()
    if why:
        print(f"sandbox unavailable: {why}", file=sys.stderr)
        return 2
    r = measure(args.reps, args.jobs, args.burst)
    print(json.dumps(r) if args.json else render(r, args.jobs))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
