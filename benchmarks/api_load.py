"""API load: concurrent clients submit 10-step mathematics verifications to a local server and wait for verdicts.

    python benchmarks/api_load.py [--clients 100] [--per-client 2] [--steps 10] [--rounds 3] [--scaled] [--json]

Starts `reasonforge serve` on a free loopback port: embedded by default (SQLite store, in-process
workers), or with `--scaled` on PostgreSQL + Celery/Redis started on loopback the way the service
tests start them (durable PostgreSQL settings, `--celery-workers` worker processes). Every client
submits its verifications one after another (quick and standard alternate; one chain in five has an
arithmetic slip, so PARTIAL verdicts and cascades travel too) and polls until the verdict. Latency is
submit -> verdict seen by the client. The baseline runs the same chains through `verify_chain` in
this process, one at a time; an API verdict that differs from it counts as an error. Baseline and
API load alternate `--rounds` times on fresh chains against one server, and the ratio is of the
medians.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib.util
import json
import math
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from reasonforge.pipeline.run import verify_chain
from reasonforge.types import VerifyRequest

REPO = Path(__file__).resolve().parents[1]
DONE = {"complete", "failed", "cancelled"}


def _servers():
    """The loopback server launchers the service tests use (one implementation for both)."""
    name = "reasonforge_test_servers"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            name, REPO / "tests" / "service" / "servers.py"
        )
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


@dataclass(frozen=True)
class Polling:
    """How clients wait for a verdict: long-poll `GET /v1/verify/{id}?wait=` for up to `wait_s` per request, or
    (wait_s 0) poll with a backoff growing to `cap_s`."""

    cap_s: float
    wait_s: float


# ---------------------------------------------------------------------------------------------
# workload


def make_chain(index: int, steps: int) -> VerifyRequest:
    """Chain `index`: `steps` arithmetic steps on distinct numbers; every fifth has a slip halfway."""
    if steps < 2:
        raise ValueError("--steps must be at least 2")
    a, b = 3 + index % 17, 4 + (index * 7) % 11
    contents = [f"Let a = {a} and b = {b}.", f"So a + b = {a} + {b} = {a + b}."]
    total = a + b
    for n in range(2, steps):
        k = 2 + (index + n) % 9
        kind = n % 3
        if kind == 0:
            new, text = total * 2, f"Then 2 × {total} = {{}}."
        elif kind == 1:
            new, text = total - k, f"Then {total} - {k} = {{}}."
        else:
            new, text = total + k, f"Then {total} + {k} = {{}}."
        if index % 5 == 4 and n == steps // 2:
            new += 1  # the slip: every later step is invalidated by the cascade
        contents.append(text.format(new))
        total = new
    return VerifyRequest(
        # The index makes every chain's task hash distinct, so no job is a duplicate of another.
        original_query=f"Chain {index}: start from a = {a} and b = {b}; apply the operations in order.",
        claimed_answer=str(total),
        domain="mathematics",
        proof_level="quick" if index % 2 == 0 else "standard",
        generate_certificate=False,
        reasoning_chain=[
            {"step_id": i + 1, "content": c} for i, c in enumerate(contents)
        ],
    )


def request_body(chain: VerifyRequest) -> dict[str, Any]:
    """The JSON body of `POST /v1/verify` for `chain` (unset optional fields left out)."""
    return chain.model_dump(mode="json", exclude_none=True)


# ---------------------------------------------------------------------------------------------
# measurements


@dataclass
class Outcome:
    """One verification as a client saw it."""

    index: int
    latency_s: float = math.nan
    verdict: str | None = None
    steps_verified: int | None = None
    error: str | None = None
    requests: int = 0


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (0..100) by linear interpolation; nan for no values."""
    if not values:
        return math.nan
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100
    lo, hi = math.floor(pos), math.ceil(pos)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def run_direct(
    chains: list[VerifyRequest],
) -> tuple[float, list[float], list[tuple[str, int]]]:
    """Wall seconds, per-chain seconds and (verdict, steps verified) of `verify_chain` one chain at a time."""
    verify_chain(
        make_chain(10_000, 4)
    )  # warm imports and caches, as the server's warm-up does
    times, verdicts = [], []
    started = time.perf_counter()
    for chain in chains:
        t = time.perf_counter()
        v = verify_chain(chain)
        times.append(time.perf_counter() - t)
        verdicts.append((v.overall.value, v.verified_steps))
    return time.perf_counter() - started, times, verdicts


async def _verify_one(
    client: httpx.AsyncClient,
    index: int,
    body: dict,
    polling: Polling,
    timeout_s: float,
) -> Outcome:
    out = Outcome(index)
    started = time.perf_counter()
    try:
        out.requests += 1
        r = await client.post("/v1/verify", json=body)
        if r.status_code != 202:
            out.error = f"submit: HTTP {r.status_code} {r.text[:200]}"
            return out
        task_id = r.json()["task_id"]
        delay = 0.02
        while True:
            out.requests += 1
            left = max(1.0, timeout_s - (time.perf_counter() - started))
            params = {"wait": min(polling.wait_s, left)} if polling.wait_s else None
            r = await client.get(f"/v1/verify/{task_id}", params=params)
            if r.status_code != 200:
                out.error = f"poll: HTTP {r.status_code} {r.text[:200]}"
                return out
            job = r.json()
            if job["status"] in DONE:
                out.latency_s = time.perf_counter() - started
                if job["status"] != "complete":
                    out.error = f"job {task_id} ended {job['status']}"
                out.verdict, out.steps_verified = (
                    job.get("verdict"),
                    job.get("steps_verified"),
                )
                return out
            if time.perf_counter() - started > timeout_s:
                out.error = f"no verdict for {task_id} within {timeout_s:.0f} s (last status {job['status']})"
                return out
            if polling.wait_s:
                continue  # the server held the request until the end or the wait ran out: ask again at once
            # Back off so a hundred idle pollers do not starve the workers of the machine's cores.
            await asyncio.sleep(delay)
            delay = min(delay * 1.5, polling.cap_s)
    except httpx.HTTPError as exc:
        out.error = f"{type(exc).__name__}: {exc}"
        return out


async def run_clients(
    base_url: str,
    key: str,
    chains: list[VerifyRequest],
    clients: int,
    polling: Polling,
    timeout_s: float,
) -> tuple[float, list[Outcome]]:
    """Wall seconds and outcomes of `clients` concurrent clients sharing `chains` round-robin.

    The clients are built before the clock starts: building an httpx client loads the CA bundle into a
    fresh SSL context (tens of milliseconds each), which is the load generator's cost, not the server's."""
    shares: list[list[tuple[int, dict]]] = [[] for _ in range(clients)]
    for i, chain in enumerate(chains):
        shares[i % clients].append((i, request_body(chain)))
    headers = {"Authorization": f"Bearer {key}"}
    async with contextlib.AsyncExitStack() as stack:
        pool = [
            await stack.enter_async_context(
                httpx.AsyncClient(base_url=base_url, headers=headers, timeout=60.0)
            )
            for _ in shares
        ]

        async def one_client(client: httpx.AsyncClient, jobs: list[tuple[int, dict]]) -> list[Outcome]:
            return [await _verify_one(client, i, body, polling, timeout_s) for i, body in jobs]

        started = time.perf_counter()
        results = await asyncio.gather(*(one_client(c, share) for c, share in zip(pool, shares)))
        wall = time.perf_counter() - started
    return wall, [o for group in results for o in group]


@contextmanager
def local_service(scaled: bool, workers: int, celery_workers: int) -> Iterator[Any]:
    """A `reasonforge serve` (plus PostgreSQL, Redis and Celery workers when scaled) and an enterprise key."""
    servers = _servers()
    # The benchmark measures throughput, not the per-key limit, and uses an unmetered key.
    env = {
        "REASONFORGE_WORKERS": str(workers),
        "REASONFORGE_RATE_LIMIT_PER_MINUTE": "100000000",
    }
    with ExitStack() as stack:
        home = Path(
            stack.enter_context(tempfile.TemporaryDirectory(prefix="rf-api-load-"))
        )
        kwargs: dict[str, Any] = {"env": env, "key_args": ["--tier", "enterprise"]}
        if scaled:
            pg = stack.enter_context(servers.running_postgres(fast=False))
            rd = stack.enter_context(servers.running_redis())
            kwargs |= {
                "database_url": pg.create_database("api_load"),
                "redis_url": rd.url(0),
                "workers": celery_workers,
            }
        yield stack.enter_context(servers.running_service(home, **kwargs))


def measure(
    clients: int,
    per_client: int,
    steps: int,
    scaled: bool,
    workers: int,
    celery_workers: int,
    polling: Polling,
    timeout_s: float,
    rounds: int = 3,
) -> dict[str, Any]:
    """Every figure of one run: API throughput and latencies, the in-process baseline, their ratio.

    `rounds` alternate the baseline and the API load on fresh chains; the ratio is of the medians, since
    one round lasts seconds and a shared machine's load moves either figure by a third from one to the next."""
    n = clients * per_client
    per_round: list[dict[str, float]] = []
    outcomes: list[Outcome] = []
    expected: dict[int, tuple[str, int]] = {}
    direct_times: list[float] = []
    with local_service(scaled, workers, celery_workers) as svc:
        # One verification end to end first: the server's and workers' lazy imports are not load.
        warm_wall, warm = asyncio.run(
            run_clients(svc.base_url, svc.api_key, [make_chain(10**6, steps)], 1, polling, timeout_s)
        )
        if warm[0].error:
            raise SystemExit(f"warm-up verification failed: {warm[0].error}\n{svc.log()}")
        for r in range(rounds):
            # Fresh indices each round: every chain (and task hash) is new to the server.
            chains = [make_chain(r * n + i, steps) for i in range(n)]
            direct_wall, times, verdicts = run_direct(chains)
            direct_times += times
            expected.update({r * n + i: v for i, v in enumerate(verdicts)})
            api_wall, got = asyncio.run(
                run_clients(svc.base_url, svc.api_key, chains, clients, polling, timeout_s)
            )
            for o in got:
                o.index += r * n
            outcomes += got
            per_round.append({"api_per_s": n / api_wall, "direct_per_s": n / direct_wall, "api_wall_s": api_wall})
        # Logs die with the temporary home: keep their ends when something went wrong.
        logs = {} if all(o.error is None for o in outcomes) else _log_tails(svc)
    errors = [o for o in outcomes if o.error]
    mismatches = [
        o
        for o in outcomes
        if not o.error and (o.verdict, o.steps_verified) != expected[o.index]
    ]
    latencies = [o.latency_s * 1000 for o in outcomes if not o.error]
    api_per_s = percentile([x["api_per_s"] for x in per_round], 50)
    direct_per_s = percentile([x["direct_per_s"] for x in per_round], 50)
    report = {
        "mode": "scaled (PostgreSQL + Celery/Redis)"
        if scaled
        else "embedded (SQLite + in-process workers)",
        "cpu_count": os.cpu_count(),
        "clients": clients,
        "verifications": n,
        "rounds": rounds,
        "steps_per_chain": steps,
        "levels": "quick/standard alternating",
        "server_workers": workers,
        "celery_workers": celery_workers if scaled else 0,
        "poll_cap_ms": round(polling.cap_s * 1000),
        "long_poll_s": polling.wait_s,
        "api_wall_s": round(percentile([x["api_wall_s"] for x in per_round], 50), 3),
        "api_requests": round(sum(o.requests for o in outcomes) / rounds),
        "api_verifications_per_s": round(api_per_s, 2),
        "api_latency_p50_ms": round(percentile(latencies, 50), 1),
        "api_latency_p99_ms": round(percentile(latencies, 99), 1),
        "api_latency_max_ms": round(max(latencies, default=math.nan), 1),
        "errors": len(errors) + len(mismatches),
        "error_examples": [o.error for o in errors[:3]]
        + [
            f"chain {o.index}: API {o.verdict}/{o.steps_verified}, direct {expected[o.index]}"
            for o in mismatches[:3]
        ],
        "warmup_s": round(warm_wall, 3),
        "direct_verifications_per_s": round(direct_per_s, 2),
        "direct_p50_ms": round(percentile([t * 1000 for t in direct_times], 50), 2),
        "throughput_ratio_api_vs_direct": round(api_per_s / direct_per_s, 4),
        "round_ratios": [round(x["api_per_s"] / x["direct_per_s"], 3) for x in per_round],
        "verdicts": {
            v: sum(1 for e in expected.values() if e[0] == v) // rounds
            for v in sorted({e[0] for e in expected.values()})
        },
    }
    if logs:
        report["log_tails"] = logs
    return report


def _log_tails(svc: Any) -> dict[str, str]:
    names = ["serve", *(f"worker-{i}" for i in range(len(svc.workers)))]
    return {name: svc.log(name) for name in names}


def render(r: dict[str, Any]) -> str:
    """A plain-text report."""
    celery = (
        f", {r['celery_workers']} Celery worker processes"
        if r["celery_workers"]
        else ""
    )
    head = f"API load, {r['mode']}, {r['cpu_count']} CPU cores, {r['server_workers']} server workers{celery}"
    load = (
        f"{r['clients']} concurrent clients, {r['verifications']} verifications of "
        f"{r['steps_per_chain']} steps ({r['levels']}; verdicts {r['verdicts']})"
    )
    api = (
        f"  API:    {r['api_verifications_per_s']:.1f} verifications/s in {r['api_wall_s']:.1f} s; "
        f"submit->verdict p50 {r['api_latency_p50_ms']:.0f} ms, p99 {r['api_latency_p99_ms']:.0f} ms, "
        f"max {r['api_latency_max_ms']:.0f} ms; {r['api_requests']} HTTP requests "
        + (f"(long-poll ?wait={r['long_poll_s']:g})" if r["long_poll_s"] else f"(polling backs off to {r['poll_cap_ms']} ms)")
    )
    direct = (
        f"  direct: {r['direct_verifications_per_s']:.1f} verifications/s "
        f"(verify_chain in process, one at a time; p50 {r['direct_p50_ms']:.1f} ms)"
    )
    ratio = (
        f"  ratio API / direct throughput: {r['throughput_ratio_api_vs_direct']:.3f} "
        f"(medians of {r['rounds']} rounds; each round's ratio {r['round_ratios']})"
    )
    errors = f"  errors: {r['errors']}" + (
        f"  e.g. {r['error_examples']}" if r["errors"] else ""
    )
    logs = "".join(
        f"\n--- {name}.log (end) ---\n{tail}"
        for name, tail in r.get("log_tails", {}).items()
    )
    return f"{head}\n{load}\n{api}\n{direct}\n{ratio}\n{errors}{logs}"


def main(argv: list[str] | None = None) -> int:
    """Parse arguments, run, print a report or JSON; exit 1 when any verification errored."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clients", type=int, default=100)
    ap.add_argument(
        "--per-client",
        type=int,
        default=2,
        help="verifications each client submits in turn",
    )
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument(
        "--scaled",
        action="store_true",
        help="PostgreSQL + Celery on Redis instead of the embedded defaults",
    )
    ap.add_argument(
        "--workers",
        type=int,
        default=os.cpu_count() or 1,
        help="REASONFORGE_WORKERS for the server",
    )
    ap.add_argument(
        "--celery-workers",
        type=int,
        default=os.cpu_count() or 1,
        help="`reasonforge worker` processes, one job at a time each (--scaled)",
    )
    ap.add_argument(
        "--poll-cap-ms",
        type=float,
        default=250.0,
        help="longest wait between two polls of one job",
    )
    ap.add_argument(
        "--wait-s",
        type=float,
        default=30.0,
        help="clients long-poll GET /v1/verify/{id}?wait= this long; 0: poll with backoff (--poll-cap-ms)",
    )
    ap.add_argument(
        "--timeout",
        type=float,
        default=900.0,
        help="seconds a verification may take before it is an error",
    )
    ap.add_argument(
        "--rounds",
        type=int,
        default=3,
        help="baseline and API load alternate this many times on fresh chains (medians reported)",
    )
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    for name, least in (
        ("clients", 1),
        ("per_client", 1),
        ("steps", 2),
        ("workers", 1),
        ("celery_workers", 1),
        ("rounds", 1),
    ):
        if getattr(args, name) < least:
            ap.error(f"--{name.replace('_', '-')} must be at least {least}")
    try:
        r = measure(
            args.clients,
            args.per_client,
            args.steps,
            args.scaled,
            args.workers,
            args.celery_workers,
            Polling(args.poll_cap_ms / 1000, args.wait_s),
            args.timeout,
            args.rounds,
        )
    except _servers().ServerUnavailable as exc:
        print(f"could not start the local service: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(r) if args.json else render(r))
    return 0 if r["errors"] == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
