"""Fault drill: the service and its workers under concurrent clients while a worker is SIGKILLed, the database is
restarted and the model endpoint stalls; every acknowledged job must end exactly once.

    python benchmarks/fault_drill.py [--store sqlite|postgres|both] [--clients 100] [--jobs 200] [--model-jobs 4]
                                     [--seed 7] [--json]

Everything runs on loopback and is stopped at the end. `sqlite` is the embedded service (SQLite store, in-process
workers feeding job processes); `postgres` the scaled one (PostgreSQL + Celery/Redis, `reasonforge worker`
processes). Clients submit quick mathematics chains (api_load's chains, one in five with a slip) plus a few chains
with `translator: model`, whose endpoint is a loopback server that trickles its reply forever (the model's
deadline must end those calls). Each job carries an Idempotency-Key; a client retries a refused or broken submit
with the same key and long-polls until the job ends, every wait bounded by `--timeout`. The faults, in order, once
the clients have seen a share of the jobs end:

- worker killed: SIGKILL to a process running a job (sqlite: a job process of the server; postgres: a worker's
  whole process group, then a replacement worker is started);
- database restarted: sqlite: the server that owns the database file is SIGKILLed and started again on the same
  port and file; postgres: an immediate shutdown (SIGQUIT, crash recovery at the next start) and a restart.

Figures, read from the clients and from the job tables afterwards: submitted (keys acknowledged), completed,
failed (with reasons), retried (jobs with more than one attempt), lost (acknowledged but absent or unfinished:
must be 0), duplicated (a key given two task ids, a job row no key owns, or a job completed twice: must be 0),
wrong (a mathematics verdict other than the expected one) and the p99 of submit -> end as the client saw it.
Exit 1 when anything was lost, duplicated or wrong, or a fault could not be injected.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import select

from reasonforge.service.db import make_engine, make_sessionmaker
from reasonforge.service.jobs.tables import JobEventRow, JobRow
from reasonforge.types import ProofLevel

REPO = Path(__file__).resolve().parents[1]
TERMINAL = {"complete", "failed", "cancelled"}
STORES = ("sqlite", "postgres")
MODEL_DEADLINE_S = 2.0
"""REASONFORGE_MODEL_TIMEOUT_S for the drill: the stalled endpoint's calls must end by this deadline."""
FAULT_SHARES = (0.2, 0.5)
"""The worker is killed once the clients have seen this share of the jobs end, the database restarted at the next."""


def _load(name: str, relative: str) -> Any:
    """A helper module from the repository (the test servers, the API load chains), loaded once by path."""
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, REPO / relative)
        if spec is None or spec.loader is None:
            raise ImportError(relative)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def _servers() -> Any:
    return _load("reasonforge_test_servers", "tests/service/servers.py")


def _hostile() -> Any:
    return _load("reasonforge_hostile_endpoint", "tests/translate/hostile_endpoint.py")


def _api_load() -> Any:
    return _load("api_load_bench", "benchmarks/api_load.py")


# ---------------------------------------------------------------------------------------------
# workload


@dataclass(frozen=True)
class Job:
    """One submission: its Idempotency-Key, body, and the verdict expected (None: model-backed, any end)."""

    key: str
    body: dict[str, Any]
    expected: str | None


def workload(jobs: int, model_jobs: int, seed: int) -> list[Job]:
    """`jobs` quick 4-step mathematics chains and `model_jobs` chains for the model translator, shuffled by `seed`."""
    api_load = _api_load()
    out = []
    for i in range(jobs):
        chain = api_load.make_chain(seed * 100_000 + i, 4).model_copy(update={"proof_level": ProofLevel.QUICK})
        body = api_load.request_body(chain)
        out.append(Job(f"drill-{seed}-{i}", body, "PARTIAL" if (seed * 100_000 + i) % 5 == 4 else "VERIFIED"))
    for i in range(model_jobs):
        chain = api_load.make_chain(seed * 100_000 + jobs + i, 4)
        body = api_load.request_body(chain) | {"translator": "model"}
        out.append(Job(f"drill-{seed}-model-{i}", body, None))
    random.Random(seed).shuffle(out)
    return out


# ---------------------------------------------------------------------------------------------
# clients


@dataclass
class Seen:
    """One job as its client saw it."""

    job: Job
    task_ids: set[str] = field(default_factory=set)
    status: str | None = None
    latency_s: float | None = None
    submits: int = 0
    error: str | None = None


@dataclass
class Progress:
    """Jobs the clients have seen end (read by the fault thread)."""

    ended: int = 0


RETRY_STATUSES = {429, 500, 502, 503, 504}


async def _backoff(tries: int) -> None:
    await asyncio.sleep(min(0.1 * 2**tries, 2.0))


async def _one(client: httpx.AsyncClient, seen: Seen, progress: Progress, deadline: float) -> None:
    started = time.monotonic()
    task_id: str | None = None
    tries = 0
    while task_id is None:
        if time.monotonic() > deadline:
            seen.error = "no submission was acknowledged before the drill's deadline"
            return
        seen.submits += 1
        try:
            r = await client.post("/v1/verify", json=seen.job.body, headers={"Idempotency-Key": seen.job.key})
        except httpx.TransportError:
            r = None
        if r is not None and r.status_code in (200, 202):
            task_id = r.json()["task_id"]
            seen.task_ids.add(task_id)
        elif r is not None and r.status_code not in RETRY_STATUSES:
            seen.error = f"submit: HTTP {r.status_code} {r.text[:200]}"
            return
        else:
            tries += 1
            await _backoff(tries)
    tries = 0
    while time.monotonic() < deadline:
        try:
            r = await client.get(f"/v1/verify/{task_id}", params={"wait": 10})
        except httpx.TransportError:
            r = None
        if r is None or r.status_code in RETRY_STATUSES:
            tries += 1
            await _backoff(tries)
            continue
        if r.status_code != 200:
            seen.error = f"poll: HTTP {r.status_code} {r.text[:200]}"
            return
        tries = 0
        body = r.json()
        if body["status"] in TERMINAL:
            seen.status, seen.latency_s = body["status"], time.monotonic() - started
            progress.ended += 1
            return
    seen.error = f"task {task_id} did not end before the drill's deadline"


async def run_clients(base_url: str, key: str, jobs: list[Job], clients: int, progress: Progress,
                      timeout_s: float) -> list[Seen]:
    """`clients` concurrent clients, each taking its share of `jobs` one after another."""
    seen = [Seen(job) for job in jobs]
    deadline = time.monotonic() + timeout_s
    limits = httpx.Limits(max_connections=clients + 8, max_keepalive_connections=clients + 8)
    async with httpx.AsyncClient(base_url=base_url, headers={"Authorization": f"Bearer {key}"},
                                 timeout=httpx.Timeout(30.0, connect=5.0), limits=limits) as client:

        async def one_client(share: list[Seen]) -> None:
            for s in share:
                await _one(client, s, progress, deadline)

        await asyncio.gather(*(one_client(seen[c::clients]) for c in range(clients)))
    return seen


# ---------------------------------------------------------------------------------------------
# faults


def _children(pid: int) -> list[int]:
    """The child processes of `pid` (Linux /proc)."""
    out: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            out += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            pass
    return out


def _job_processes(server_pid: int) -> list[int]:
    """The server's job processes (multiprocessing spawn children; not its resource tracker)."""
    found = []
    for child in _children(server_pid):
        try:
            if b"spawn_main" in Path(f"/proc/{child}/cmdline").read_bytes():
                found.append(child)
        except OSError:
            pass
    return found


def _busy_worker(svc: Any, sm: Any) -> int | None:
    """The index of a live Celery worker holding a running job, else of any live one."""
    with sm() as session:
        owners = session.scalars(select(JobRow.lease_owner).where(
            JobRow.status.in_(("translating", "verifying")))).all()
    holding = {int(o.split(":")[1]) for o in owners if o and o.count(":") >= 2}
    alive = [i for i, p in enumerate(svc.workers) if p.poll() is None]
    busy = [i for i in alive if svc.workers[i].pid in holding]
    return (busy or alive or [None])[0]


def kill_a_worker(store: str, svc: Any, sm: Any) -> str:
    """SIGKILL one worker; what was killed."""
    if store == "sqlite":
        pids = _job_processes(svc.server.pid)
        if not pids:
            raise RuntimeError("the server has no job process to kill")
        os.kill(pids[0], signal.SIGKILL)
        return f"SIGKILL job process {pids[0]} of the server"
    index = _busy_worker(svc, sm)
    if index is None:
        raise RuntimeError("no live worker to kill")
    pid = svc.workers[index].pid
    svc.kill_worker(index, signal.SIGKILL)
    svc.start_worker()
    return f"SIGKILL worker {pid} (process group), replacement started"


def restart_database(store: str, svc: Any, pg: Any) -> str:
    """Restart the store; what was done."""
    if store == "sqlite":
        svc.restart_server(signal.SIGKILL, down_s=1.0)
        return "SIGKILL the server owning the SQLite file, restarted on the same port and file"
    pg.restart(down_s=2.0)
    return "PostgreSQL immediate shutdown (SIGQUIT), 2 s down, restarted (crash recovery)"


def inject_faults(store: str, svc: Any, sm: Any, pg: Any, progress: Progress, total: int, deadline: float,
                  log: list[dict[str, Any]], done: threading.Event) -> None:
    """Inject the worker kill and the database restart as the clients pass FAULT_SHARES of the jobs."""
    started = time.monotonic()
    for share, name in zip(FAULT_SHARES, ("worker killed", "database restarted"), strict=True):
        while progress.ended < share * total and time.monotonic() < deadline and not done.is_set():
            time.sleep(0.05)
        if progress.ended < share * total:
            log.append({"fault": name, "error": f"the clients never passed {share:.0%} of the jobs"})
            return
        try:
            what = (kill_a_worker(store, svc, sm) if name == "worker killed" else restart_database(store, svc, pg))
            log.append({"fault": name, "at_s": round(time.monotonic() - started, 2), "ended_before": progress.ended,
                        "what": what})
        except (OSError, RuntimeError, subprocess.SubprocessError) as exc:  # a fault not injected: the drill fails
            log.append({"fault": name, "error": f"{type(exc).__name__}: {exc}"})


# ---------------------------------------------------------------------------------------------
# the service


@contextmanager
def drill_service(store: str, workers: int, stall_url: str) -> Iterator[tuple[Any, Any, str]]:
    """The service (and PostgreSQL, Redis and Celery workers for `postgres`), its PostgresServer (or None) and the
    database URL."""
    servers = _servers()
    env = {
        "REASONFORGE_WORKERS": str(workers),
        "REASONFORGE_RATE_LIMIT_PER_MINUTE": "100000000",
        # Short leases and sweeps, so a killed worker's job is retried within seconds, not minutes.
        "REASONFORGE_LEASE_SECONDS": "3",
        "REASONFORGE_SWEEP_INTERVAL_S": "0.5",
        "REASONFORGE_RESEND_AFTER_S": "10",
        "REASONFORGE_MAX_ATTEMPTS": "5",
        "REASONFORGE_STOP_GRACE_S": "2",
        # Chains that name no translator use the rules; the model-backed ones meet the stalled endpoint.
        "REASONFORGE_TRANSLATOR": "rules",
        "REASONFORGE_MODEL_BASE_URL": stall_url + "/v1",
        "REASONFORGE_MODEL": "drill-stalled",
        "REASONFORGE_MODEL_API_KEY": "drill-not-a-secret",
        "REASONFORGE_MODEL_TIMEOUT_S": str(MODEL_DEADLINE_S),
    }
    with ExitStack() as stack:
        home = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="rf-fault-drill-")))
        kwargs: dict[str, Any] = {"env": env, "key_args": ["--tier", "enterprise"]}
        pg = None
        if store == "postgres":
            pg = stack.enter_context(servers.running_postgres(fast=False))
            rd = stack.enter_context(servers.running_redis())
            kwargs |= {"database_url": pg.create_database("fault_drill"), "redis_url": rd.url(0), "workers": workers,
                       "worker_args": ["--pool=threads", "--concurrency=1"]}
        svc = stack.enter_context(servers.running_service(home, **kwargs))
        url = svc.env.get("REASONFORGE_DATABASE_URL") or f"sqlite:///{home / 'service.db'}"
        yield svc, pg, url


# ---------------------------------------------------------------------------------------------
# the drill


def tally(seen: list[Seen], sm: Any) -> dict[str, Any]:
    """The figures, from the clients' view and the job tables."""
    with sm() as session:
        rows = session.scalars(select(JobRow)).all()
        completions = Counter(session.scalars(select(JobEventRow.task_id).where(JobEventRow.status == "complete")))
    by_id = {r.task_id: r for r in rows}
    acknowledged = [s for s in seen if s.task_ids]
    keys = {s.job.key for s in seen}
    lost = [s for s in acknowledged
            if len(s.task_ids) == 1 and (next(iter(s.task_ids)) not in by_id
                                         or by_id[next(iter(s.task_ids))].status not in TERMINAL)]
    two_ids = [s for s in seen if len(s.task_ids) > 1]
    per_key = Counter(r.idempotency_key for r in rows)
    orphans = [f"{r.task_id} (key {r.idempotency_key})" for r in rows
               if r.idempotency_key not in keys or per_key[r.idempotency_key] > 1]
    twice = [t for t, n in completions.items() if n > 1]
    wrong = []
    for s in acknowledged:
        row = by_id.get(next(iter(s.task_ids)))
        if s.job.expected is not None and row is not None and row.status in TERMINAL and row.overall != s.job.expected:
            wrong.append(f"{s.job.key}: {row.status} {row.overall}, expected {s.job.expected} ({row.error})")
    reasons = Counter((r.error or "")[:120] for r in rows if r.status == "failed")
    latencies = sorted(s.latency_s for s in seen if s.latency_s is not None)
    percentile = _api_load().percentile
    return {
        "submitted": len(acknowledged),
        "unacknowledged": len(seen) - len(acknowledged),
        "completed": sum(r.status == "complete" for r in rows),
        "failed": sum(r.status == "failed" for r in rows),
        "failed_reasons": dict(reasons.most_common(3)),
        "retried": sum(r.attempts > 1 for r in rows),
        "client_resubmits": sum(max(0, s.submits - 1) for s in seen),
        "lost": len(lost),
        "duplicated": len(two_ids) + len(orphans) + len(twice),
        "wrong": len(wrong),
        "latency_p50_ms": round(percentile(latencies, 50) * 1000, 1) if latencies else None,
        "latency_p99_ms": round(percentile(latencies, 99) * 1000, 1) if latencies else None,
        "examples": [s.error for s in seen if s.error][:3] + [s.job.key for s in lost[:3]] + wrong[:3]
        + [f"{s.job.key}: task ids {sorted(s.task_ids)}" for s in two_ids[:3]] + orphans[:3]
        + [f"{t} completed {completions[t]} times" for t in twice[:3]],
    }


def drill(store: str, clients: int, jobs: int, model_jobs: int, seed: int, workers: int,
          timeout_s: float, keep_logs: Path | None = None) -> dict[str, Any]:
    """One drill against one store: every figure, the faults injected, and log tails when something went wrong."""
    work = workload(jobs, model_jobs, seed)
    progress = Progress()
    faults: list[dict[str, Any]] = []
    stalled = _hostile().HostileEndpoint(_hostile().Script(body=b'{"choices": []}', trickle_s=0.5, endless=True))
    with stalled as stall, drill_service(store, workers, stall.url) as (svc, pg, url):
        engine = make_engine(url)
        sm = make_sessionmaker(engine)
        done = threading.Event()
        deadline = time.monotonic() + timeout_s
        seen: list[Seen] = []

        def clients_run() -> None:
            try:
                seen.extend(asyncio.run(run_clients(svc.base_url, svc.api_key, work, clients, progress, timeout_s)))
            finally:
                done.set()

        # The clients run on a thread of their own and the faults on this one: the servers a fault restarts die
        # with the thread that started them (parent-death signal), which must outlive the drill.
        load = threading.Thread(target=clients_run, name="fault-drill-clients")
        started = time.monotonic()
        load.start()
        inject_faults(store, svc, sm, pg, progress, len(work), deadline, faults, done)
        load.join()
        wall = time.monotonic() - started
        figures = tally(seen, sm)
        engine.dispose()
        model_calls = len(stall.requests)
        injected = [f for f in faults if "error" not in f]
        bad = bool(figures["lost"] or figures["duplicated"] or figures["wrong"] or figures["unacknowledged"]
                   or len(injected) < len(FAULT_SHARES))
        names = ["serve", *(f"worker-{i}" for i in range(len(svc.workers)))]
        logs = {name: svc.log(name) for name in names} if bad else {}
        if keep_logs is not None:
            keep_logs.mkdir(parents=True, exist_ok=True)
            for log in svc.home.glob("*.log"):
                shutil.copy(log, keep_logs / f"{store}-{log.name}")
    report = {
        "store": store,
        "mode": "embedded (SQLite + in-process workers)" if store == "sqlite"
        else "scaled (PostgreSQL + Celery/Redis workers)",
        "cpu_count": os.cpu_count(),
        "clients": clients,
        "jobs": len(work),
        "model_jobs": model_jobs,
        "seed": seed,
        "workers": workers,
        "wall_s": round(wall, 1),
        **figures,
        "model_endpoint": f"stalls (trickles forever); {model_calls} calls, deadline {MODEL_DEADLINE_S:g} s each",
        "faults": faults,
        "ok": not bad,
    }
    if logs:
        report["log_tails"] = logs
    return report


def render(r: dict[str, Any]) -> str:
    """A plain-text report of one drill."""
    lines = [
        (f"Fault drill, {r['mode']}, {r['cpu_count']} CPU cores, {r['workers']} workers: {r['clients']} concurrent "
         f"clients, {r['jobs']} jobs ({r['model_jobs']} model-backed), seed {r['seed']}, {r['wall_s']:.0f} s"),
        *(f"  fault: {f['fault']}: " + (f"{f['what']} at {f['at_s']:.1f} s ({f['ended_before']} jobs ended before)"
                                        if "what" in f else f"NOT INJECTED: {f['error']}") for f in r["faults"]),
        f"  model endpoint: {r['model_endpoint']}",
        (f"  submitted {r['submitted']}, completed {r['completed']}, failed {r['failed']}, retried {r['retried']} "
         f"(client resubmits {r['client_resubmits']}), lost {r['lost']}, duplicated {r['duplicated']}, "
         f"wrong verdicts {r['wrong']}, p99 latency {r['latency_p99_ms']} ms (p50 {r['latency_p50_ms']} ms)"),
    ]
    if r["failed_reasons"]:
        lines.append(f"  failed because: {r['failed_reasons']}")
    if r["unacknowledged"]:
        lines.append(f"  never acknowledged: {r['unacknowledged']}")
    if r["examples"]:
        lines.append(f"  e.g. {r['examples']}")
    lines.append("  OK: nothing lost, nothing duplicated" if r["ok"] else "  FAILED")
    lines += [f"--- {name}.log (end) ---\n{tail}" for name, tail in r.get("log_tails", {}).items()]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Parse arguments, run the drill on each store asked for, print reports or JSON; exit 1 unless every drill held."""
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--store", choices=[*STORES, "both"], default="both")
    ap.add_argument("--clients", type=int, default=100)
    ap.add_argument("--jobs", type=int, default=200, help="quick mathematics jobs")
    ap.add_argument("--model-jobs", type=int, default=4, help="jobs whose translator is the stalled model endpoint")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--workers", type=int, default=2, help="job processes (sqlite) or Celery workers (postgres)")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds the clients may take in all")
    ap.add_argument("--keep-logs", type=Path, help="copy the service's and workers' logs into this folder")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    for name, least in (("clients", 1), ("jobs", 1), ("model_jobs", 0), ("workers", 1), ("seed", 0)):
        if getattr(args, name) < least:
            ap.error(f"--{name.replace('_', '-')} must be at least {least}")
    if args.timeout <= 0:
        ap.error("--timeout must be positive")
    reports = []
    for store in STORES if args.store == "both" else (args.store,):
        try:
            reports.append(drill(store, args.clients, args.jobs, args.model_jobs, args.seed, args.workers,
                                 args.timeout, args.keep_logs))
        except _servers().ServerUnavailable as exc:
            print(f"could not start the local service ({store}): {exc}", file=sys.stderr)
            return 2
        if not args.json:
            print(render(reports[-1]), flush=True)
    if args.json:
        print(json.dumps(reports))
    return 0 if all(r["ok"] for r in reports) else 1


if __name__ == "__main__":
    raise SystemExit(main())
