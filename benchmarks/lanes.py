"""Lanes: how long quick maths jobs take when they are sent right after slow code jobs, with the quick lane
(`quick_workers=1`) against without it (`quick_workers=0`), in one run on the embedded service.

    python benchmarks/lanes.py [--code 2] [--quick 10] [--sleep 6] [--json]

Each arm starts an app (SQLite store under a fresh home, `workers=1`), submits `--code` code chains whose example
sleeps `--sleep` seconds in the sandbox, then `--quick` three-step quick maths chains, and measures from the first
quick submission until every quick job is complete; "alone" is the same quick jobs with nothing before them. The
ratio is without lanes over with lanes.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from fastapi.testclient import TestClient
from pydantic import BaseModel

from reasonforge.service import create_app
from reasonforge.service.accounts import Tier, create_key
from reasonforge.service.settings import ServiceSettings

DONE = {"complete", "failed", "cancelled"}


class LanesReport(BaseModel):
    """Seconds until every quick job is done, per arm."""

    code_jobs: int
    quick_jobs: int
    alone_s: float
    without_lanes_s: float
    with_lanes_s: float
    ratio: float  # without lanes / with lanes


def code_chain(seconds: float) -> dict:
    """A one-step code chain whose example sleeps in the sandbox (a job that holds its worker for seconds)."""
    code = f"import time\n\ndef slow_double(x: int) -> int:\n    time.sleep({seconds})\n    return 2 * x\n"
    return {"original_query": "Double a number, slowly.", "domain": "code", "proof_level": "quick",
            "generate_certificate": False,
            "reasoning_chain": [{"step_id": 1, "content": f"```python\n{code}```\n>>> slow_double(2)\n4"}]}


def maths_chain(n: int) -> dict:
    """A three-step closed-arithmetic chain (milliseconds to verify)."""
    return {"original_query": f"Let n = {n}. What is n + 1 and 2n?", "domain": "mathematics", "proof_level": "quick",
            "generate_certificate": False,
            "reasoning_chain": [{"step_id": 1, "content": f"Let n = {n}"},
                                {"step_id": 2, "content": f"So n + 1 = {n + 1}"},
                                {"step_id": 3, "content": f"Then 2 * n = {2 * n}"}]}


def _wait(client: TestClient, headers: dict[str, str], task_ids: list[str]) -> None:
    for task_id in task_ids:
        while client.get(f"/v1/verify/{task_id}", params={"wait": 30}, headers=headers).json()["status"] not in DONE:
            pass


def run_arm(quick_workers: int, code: int, quick: int, sleep_s: float) -> float:
    """Seconds from the first quick submission until every quick job is done."""
    with tempfile.TemporaryDirectory() as home:
        settings = ServiceSettings(home=Path(home), rate_limit_per_minute=1_000_000, workers=1,
                                   quick_workers=quick_workers, build_keys_at_start=False)
        app = create_app(settings)
        with TestClient(app) as client:
            with app.state.rf.jobs.sessionmaker() as session:
                key, _ = create_key(session, "lanes", tier=Tier.PRO)
            headers = {"Authorization": f"Bearer {key}"}
            slow = [client.post("/v1/verify", json=code_chain(sleep_s), headers=headers).json()["task_id"]
                    for _ in range(code)]
            started = time.perf_counter()
            fast = [client.post("/v1/verify", json=maths_chain(n + 3), headers=headers).json()["task_id"]
                    for n in range(quick)]
            _wait(client, headers, fast)
            elapsed = time.perf_counter() - started
            _wait(client, headers, slow)
    return round(elapsed, 2)


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--code", type=int, default=2, help="code jobs sent first")
    parser.add_argument("--quick", type=int, default=10, help="quick maths jobs sent after them")
    parser.add_argument("--sleep", type=float, default=6.0, help="seconds each code job's example sleeps")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    alone = run_arm(1, 0, args.quick, args.sleep)
    without = run_arm(0, args.code, args.quick, args.sleep)
    with_lanes = run_arm(1, args.code, args.quick, args.sleep)
    report = LanesReport(code_jobs=args.code, quick_jobs=args.quick, alone_s=alone, without_lanes_s=without,
                         with_lanes_s=with_lanes, ratio=round(without / with_lanes, 2) if with_lanes else 0.0)
    if args.json:
        print(report.model_dump_json(indent=2))
    else:
        print(f"{args.quick} quick jobs after {args.code} code jobs: {without:.2f} s without lanes, "
              f"{with_lanes:.2f} s with the quick lane ({report.ratio}x); {alone:.2f} s alone")
    return 0


if __name__ == "__main__":
    sys.exit(main())
