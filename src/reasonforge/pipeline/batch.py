"""Batches: a JSONL file of chains verified over a pool of processes, each chain in a worker the kernel kills when
it has spent its CPU budget (time waiting in the queue is not CPU time, so never counted against a chain), every
result appended to the output JSONL as it finishes. A batch is resumable: rows already in the output are skipped,
so a batch killed at any moment (SIGKILL included) and started again loses and repeats nothing.

A row is a `VerifyRequest` object, or `{"question", "reasoning", "reference"}` (reasoning as a model wrote it,
split into steps; optional `domain`, `claimed_answer`, `id`). Each output line is a `BatchResult`: the row's line
number and id, the sha256 of the row's text (what resuming matches on), and its verdict or the error that kept it
from one.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from reasonforge.chain import parse_request, request_from_reasoning
from reasonforge.errors import InputError, ReasonForgeError
from reasonforge.pipeline.cache import VerdictCache, verify_cached
from reasonforge.types import (
    ChainLimits,
    CheckLimits,
    Domain,
    Overall,
    ProofLevel,
    ReasoningSubmission,
    VerificationVerdict,
    VerifyRequest,
)
from reasonforge.verify.math import Killed, call_killable, warm_sympy

__all__ = ["DEFAULT_CPU_BUDGET_S", "BatchResult", "BatchSummary", "request_of_row", "run_batch"]

DEFAULT_CPU_BUDGET_S = 60.0


class BatchResult(BaseModel):
    """One row's outcome, one line of the output."""

    line: int = Field(description="The row's line number in the input (1-based).")
    id: str | None = None
    row_sha256: str = Field(description="sha256 of the row's text: a resumed batch skips the rows it has.")
    request: VerifyRequest | None = Field(default=None, description=(
        "What was verified (a {question, reasoning} row as split into steps): `reasonforge view` pages it."))
    verdict: VerificationVerdict | None = None
    error: str | None = Field(default=None, description="Why the row has no verdict (a bad row, a spent budget).")
    cpu_budget_s: float = 0.0


class BatchSummary(BaseModel):
    """What a batch did: rows read, skipped (already in the output), verified now per overall, and the rows of the
    output without a verdict (from this run and the runs it resumes)."""

    rows: int = 0
    skipped: int = 0
    done: int = 0
    overall: dict[str, int] = Field(default_factory=dict)
    errors: int = 0
    elapsed_s: float = 0.0


def request_of_row(text: str, *, domain: Domain, level: ProofLevel) -> tuple[VerifyRequest, str | None]:
    """The request a row states and its id (InputError saying what is wrong with it)."""
    try:
        row = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"not JSON ({exc.msg} at column {exc.colno})") from None
    if not isinstance(row, dict):
        raise InputError("a row must be a JSON object: a VerifyRequest or {question, reasoning, reference}")
    row_id = str(row.pop("id")) if "id" in row and "reasoning_chain" not in row else None
    if "reasoning_chain" in row:
        request = parse_request(text.encode("utf-8"))
        return request, request.task_id
    if "reasoning" not in row:
        raise InputError("a row needs \"reasoning_chain\" (a VerifyRequest) or \"reasoning\" (text as a model wrote it)")
    unknown = set(row) - {"question", "reasoning", "reference", "domain", "claimed_answer"}
    if unknown:
        raise InputError(f"unknown field(s) {', '.join(sorted(unknown))}: a row holds question, reasoning, reference, "
                         "domain, claimed_answer and id")
    try:
        submission = ReasoningSubmission(
            reasoning=row["reasoning"], domain=Domain(row.get("domain", domain)),
            original_query=row.get("question", ""), claimed_answer=row.get("claimed_answer"),
            reference_answer=row.get("reference") or "", proof_level=level)
    except (ValidationError, ValueError) as exc:
        raise InputError(f"invalid row: {str(exc).splitlines()[0][:200]}") from None
    return request_from_reasoning(submission), row_id


def _verify(request: VerifyRequest, cache_root: Path | None, check_s: float) -> VerificationVerdict:
    # the cache's folder is named, not read from the environment: a forked server's children have the server's
    return verify_cached(request, VerdictCache(cache_root) if cache_root is not None else None,
                         limits=CheckLimits(timeout_s=check_s))


def _row(line: int, text: str, domain: Domain, level: ProofLevel, cpu_s: float, cache_root: Path | None
         ) -> BatchResult:
    """One row, in a pool worker: read, then verified in a child the kernel kills past `cpu_s` CPU seconds."""
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    result = BatchResult(line=line, row_sha256=digest, cpu_budget_s=cpu_s)
    try:
        request, result.id = request_of_row(text, domain=domain, level=level)
    except ReasonForgeError as exc:
        result.error = f"line {line}: {exc.message}"
        return result
    result.request = request
    done = call_killable(_verify, (request, cache_root, min(10.0, cpu_s)), timeout_s=4 * cpu_s + 30, cpu_s=cpu_s,
                         memory_mb=2048, preload="reasonforge.pipeline.batch", warm=warm_sympy)
    if isinstance(done, Killed):
        result.error = f"line {line}: the chain was not verified: {done.message}"
    else:
        result.verdict = done.value
    return result


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    """(line number, text) of each non-blank line, each read bounded."""
    limit = ChainLimits().max_request_bytes
    with path.open("rb") as f:
        for number, raw in enumerate(iter(lambda: f.readline(limit + 1), b""), start=1):
            if len(raw) > limit and not raw.endswith(b"\n"):
                yield number, ""  # reported as too long below; the rest of the line is skipped
                while (rest := f.readline(limit + 1)) and not rest.endswith(b"\n"):
                    pass
                continue
            text = raw.decode("utf-8", errors="replace").strip()
            if text:
                yield number, text


def _done(out: Path) -> dict[tuple[int, str], bool]:
    """(line, row sha256) of each result already in `out`, and whether it holds a verdict; a last line torn by a
    kill is cut off, so the file stays one JSON object per line."""
    if not out.exists():
        return {}
    data = out.read_bytes()
    keep = data if data.endswith(b"\n") or not data else data[:data.rfind(b"\n") + 1]
    if keep != data:
        with out.open("r+b") as f:
            f.truncate(len(keep))
    done = {}
    for raw in keep.splitlines():
        try:
            record = json.loads(raw)
            done[(int(record["line"]), str(record["row_sha256"]))] = record.get("verdict") is not None
        except (json.JSONDecodeError, KeyError, TypeError, ValueError):
            raise InputError(f"{out} is not a batch output (a line is not a result); choose another --out") from None
    return done


def run_batch(inp: Path, out: Path, *, jobs: int | None = None, cpu_s: float = DEFAULT_CPU_BUDGET_S,
              domain: Domain = Domain.MATHEMATICS, level: ProofLevel = ProofLevel.QUICK, cached: bool = True,
              progress: Callable[[int, int], None] | None = None) -> BatchSummary:
    """Verify every row of `inp` not yet in `out` over `jobs` processes (default: the cores), appending each result
    to `out` as it finishes; `progress(done, total)` after each."""
    started = time.monotonic()
    done = _done(out)
    rows = list(_lines(inp))
    summary = BatchSummary(rows=len(rows))
    todo = [(n, t) for n, t in rows if (n, hashlib.sha256(t.encode("utf-8")).hexdigest()) not in done]
    summary.skipped = len(rows) - len(todo)
    summary.errors = sum(1 for has_verdict in done.values() if not has_verdict)
    jobs = max(1, jobs or os.cpu_count() or 1)
    cache_root = VerdictCache().root if cached else None
    with out.open("a", encoding="utf-8") as sink, ProcessPoolExecutor(max_workers=jobs) as pool:
        pending: set[Future[BatchResult]] = set()
        queue = iter(todo)
        while True:
            while len(pending) < 2 * jobs and (item := next(queue, None)) is not None:
                number, text = item
                if not text:
                    pending.add(pool.submit(_too_long, number))
                    continue
                pending.add(pool.submit(_row, number, text, domain, level, cpu_s, cache_root))
            if not pending:
                break
            finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                result = future.result()
                sink.write(result.model_dump_json() + "\n")
                sink.flush()
                os.fsync(sink.fileno())  # a result written is a result kept, whatever kills the batch next
                summary.done += 1
                if result.verdict is not None:
                    key = result.verdict.overall.value
                    summary.overall[key] = summary.overall.get(key, 0) + 1
                else:
                    summary.errors += 1
                if progress is not None:
                    progress(summary.skipped + summary.done, summary.rows)
    summary.overall = {o.value: summary.overall[o.value] for o in Overall if o.value in summary.overall}
    summary.elapsed_s = round(time.monotonic() - started, 2)
    return summary


def _too_long(line: int) -> BatchResult:
    limit = ChainLimits().max_request_bytes
    return BatchResult(line=line, row_sha256=hashlib.sha256(b"").hexdigest(),
                       error=f"line {line}: longer than {limit} bytes; split the chain or shorten it")
