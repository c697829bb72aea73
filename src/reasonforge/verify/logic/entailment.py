"""The entailment decision shared by the `fol`, `smtlib` and `propositional` checkers.

`premises ⊢ C` is verified iff the premises are satisfiable AND premises ∧ ¬C is unsat; the verifier
negates C itself. Every decision gets a fresh Z3 context (about 1.4 ms), so decisions may run on
several threads. Limits: `timeout_s` is the Z3 solver `timeout` (one deadline shared by both Z3
checks) and the wall-clock kill of the cvc5 process; `memory_mb` is Z3's per-solver `max_memory`
(measured on Z3's allocator, which is process-wide, so approximate under concurrency; the exact
global `memory_max_size` would be process state) and RLIMIT_AS for the cvc5 process.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, Protocol

import z3
from pydantic import BaseModel, Field

from reasonforge.types import CheckLimits
from reasonforge.verify.logic.cvc5_worker import Cvc5Answer, Cvc5Job

Goal = Literal["premises", "not_c", "c"]  # what to load: premises alone, with ¬C, or with C
_PROOF_CAP = 2_000  # proof nodes counted before stopping (z3py walks cost ~0.1 ms per node)


class SolverRun(BaseModel):
    """One solver's answers: premises ∧ ¬C first, then premises alone (only when the first is unsat)."""

    solver: Literal["z3", "cvc5"]
    negated_conclusion: Literal["sat", "unsat", "unknown"] | None = None
    premises: Literal["sat", "unsat", "unknown"] | None = None
    reason: str | None = None
    elapsed_ms: float = 0.0

    def verdict(self) -> str:
        """entailed | not_entailed | vacuous | unknown, from this solver alone."""
        if self.negated_conclusion == "sat":
            return "not_entailed"
        if self.negated_conclusion == "unsat" and self.premises == "sat":
            return "entailed"
        if self.negated_conclusion == "unsat" and self.premises == "unsat":
            return "vacuous"
        return "unknown"


class EntailmentResult(BaseModel):
    """Outcome of `premises ⊢ conclusion` with the evidence behind it."""

    status: Literal["entailed", "not_entailed", "vacuous", "unknown", "disagreement"]
    message: str
    runs: list[SolverRun]
    logic: str | None = None
    counterexample: dict[str, Any] | None = None
    unsat_core: list[int] | None = Field(default=None, description="0-based indices of contradictory premises")
    proof: dict[str, Any] | None = None
    elapsed_ms: float = 0.0


class Encoded(Protocol):
    """A problem built in one Z3 context."""

    def load(self, solver: Any, goal: Goal) -> None:
        """Assert the premises, plus ¬C or C as `goal` says."""

    def premise_terms(self) -> list[Any]:
        """The premises as Z3 terms (used only to extract an unsat core)."""

    def explain(self, model: Any) -> dict[str, Any]:
        """A small JSON-serialisable counterexample from a model of premises ∧ ¬C."""


@dataclass(frozen=True)
class Cvc5Input:
    """The same problem as SMT-LIB text for the cvc5 worker."""

    logic: str
    script: str  # declarations and premise asserts
    conclusion: str  # the term C
    options: dict[str, str]


@dataclass
class Problem:
    """Something Z3 can encode in a given context, and cvc5 can read as text."""

    encode: Callable[[Any], Encoded]
    cvc5_input: Callable[[], Cvc5Input]
    logic: str | None = None  # reported in details when known without extra work
    # Z3's bare SMT kernel skips the preprocessing tactics: 2.4x faster on FOLIO, and those tactics only
    # pay off on arithmetic/bit-vector problems (so SMT-LIB artifacts keep the default solver).
    simple_solver: bool = False


@dataclass
class _Z3Result:
    run: SolverRun
    message: str
    counterexample: dict[str, Any] | None = None
    core: list[int] | None = None
    proof: dict[str, Any] | None = None


def decide(problem: Problem, *, limits: CheckLimits, cross_check: bool = False, proof: bool = False,
           counterexample: bool = True) -> EntailmentResult:
    """Decide `premises ⊢ C` with Z3 (and cvc5 when `cross_check`, which must then agree) within `limits`."""
    started = time.perf_counter()
    ctx = z3.Context(proof=True) if proof else z3.Context()
    encoded = problem.encode(ctx)
    job: Cvc5Job | None = None
    logic = problem.logic
    if cross_check:
        spec = problem.cvc5_input()
        logic = spec.logic
        # Started before Z3 runs so the process start-up overlaps with Z3's work.
        job = Cvc5Job(spec.logic, spec.script, spec.conclusion, timeout_s=limits.timeout_s,
                      memory_mb=limits.memory_mb, options=spec.options)
    try:
        result = z3_decide(ctx, encoded, limits, want_proof=proof, explain=counterexample,
                           simple=problem.simple_solver)
    except BaseException:
        if job is not None:
            job.cancel()
        raise
    runs = [result.run]
    status = result.run.verdict()
    message = result.message
    if job is not None and status == "unknown":
        job.cancel()  # the step is an error whatever cvc5 says; do not wait for it
    elif job is not None:
        run = _cvc5_run(job.result())
        runs.append(run)
        other = run.verdict()
        if other == "unknown":
            status, message = "unknown", f"cvc5 gave no answer ({run.reason or 'unknown'}); Z3 said {status}"
        elif other != status:
            status = "disagreement"
            message = f"solvers disagree: Z3 says {_describe(runs[0])}, cvc5 says {_describe(run)}"
    return to_result(result, status, message, runs, logic, started)


def to_result(z: _Z3Result, status: str, message: str, runs: list[SolverRun], logic: str | None,
              started: float) -> EntailmentResult:
    """Package a Z3 run (and the final status) as an EntailmentResult."""
    return EntailmentResult(
        status=status,  # type: ignore[arg-type]
        message=message,
        runs=runs,
        logic=logic,
        counterexample=z.counterexample if status == "not_entailed" else None,
        unsat_core=z.core if status == "vacuous" else None,
        proof=z.proof,
        elapsed_ms=ms_since(started),
    )


def z3_decide(ctx: Any, encoded: Encoded, limits: CheckLimits, *, want_proof: bool, explain: bool, simple: bool,
              target: Literal["not_c", "c"] = "not_c", premises_known: str | None = None) -> _Z3Result:
    """Z3 alone: premises ∧ ¬C (or ∧ C when `target` is "c"), then the premises unless already known."""
    deadline = time.perf_counter() + limits.timeout_s
    run = SolverRun(solver="z3")
    started = time.perf_counter()

    def solver() -> Any:
        s = z3.SimpleSolver(ctx=ctx) if simple else z3.Solver(ctx=ctx)
        s.set("timeout", max(1, int((deadline - time.perf_counter()) * 1000)))
        s.set("max_memory", limits.memory_mb)
        return s

    def unknown_reason(s: Any) -> str:
        reason = s.reason_unknown()
        if reason in ("timeout", "canceled") or time.perf_counter() >= deadline:
            return f"z3 timed out after {limits.timeout_s:.1f} s"
        if "memory" in reason:
            return f"z3 exceeded the memory limit of {limits.memory_mb} MB ({reason})"
        return f"z3 returned unknown: {reason}"

    s = solver()
    encoded.load(s, target)
    answer = s.check()
    run.negated_conclusion = str(answer)  # type: ignore[assignment]
    if answer == z3.unknown:
        run.reason = unknown_reason(s)
        run.elapsed_ms = ms_since(started)
        return _Z3Result(run, run.reason)
    if answer == z3.sat:
        run.elapsed_ms = ms_since(started)
        return _Z3Result(run, "the conclusion does not follow: Z3 found a model of the premises in which it is false",
                         counterexample=encoded.explain(s.model()) if explain else None)
    refutation = s.proof() if want_proof else None
    if premises_known is None:
        s2 = solver()
        encoded.load(s2, "premises")
        answer = s2.check()
        run.premises = str(answer)  # type: ignore[assignment]
        if answer == z3.unknown:
            run.reason = unknown_reason(s2)
    else:
        run.premises = premises_known  # type: ignore[assignment]
    run.elapsed_ms = ms_since(started)
    # Summarised after the solver runs so that walking a large proof never eats the solver's time.
    proof = proof_summary(refutation) if refutation is not None else None
    if run.premises == "unknown":
        return _Z3Result(run, f"could not establish that the premises are consistent: {run.reason}", proof=proof)
    if run.premises == "sat":
        return _Z3Result(run, "the premises entail the conclusion", proof=proof)
    return _Z3Result(run, "the premises are contradictory (unsatisfiable), so the step proves nothing (vacuous)",
                     core=_core(ctx, encoded, solver), proof=proof)


def _core(ctx: Any, encoded: Encoded, solver: Callable[[], Any]) -> list[int] | None:
    # Only computed for vacuous steps, so its cost never touches the common path.
    premises = encoded.premise_terms()
    s = solver()
    s.set("core.minimize", True)
    marks = [z3.Bool(f"premise!{i}", ctx) for i in range(len(premises))]
    for mark, premise in zip(marks, premises):
        s.assert_and_track(premise, mark)
    if s.check() != z3.unsat:
        return None
    index = {m.get_id(): i for i, m in enumerate(marks)}
    return sorted(index[m.get_id()] for m in s.unsat_core() if m.get_id() in index)


def proof_summary(proof: Any) -> dict[str, Any]:
    """The rule at the root of a Z3 proof and how many distinct steps it has (counted up to a cap)."""
    seen: set[int] = set()
    stack = [proof]
    while stack and len(seen) < _PROOF_CAP:
        node = stack.pop()
        if node.get_id() in seen:
            continue
        seen.add(node.get_id())
        if z3.is_app(node):
            stack.extend(c for c in node.children() if c.sort().kind() == z3.Z3_UNKNOWN_SORT)
    return {"produced": True, "rule": proof.decl().name(), "steps": len(seen),
            "steps_capped": len(seen) >= _PROOF_CAP}


def _cvc5_run(answer: Cvc5Answer) -> SolverRun:
    reason = answer.reason
    if reason and "TIMEOUT" in reason:
        reason = f"cvc5 timed out ({reason})"
    return SolverRun(solver="cvc5", negated_conclusion=answer.negated_conclusion,  # type: ignore[arg-type]
                     premises=answer.premises, reason=reason, elapsed_ms=answer.elapsed_ms)  # type: ignore[arg-type]


def _describe(run: SolverRun) -> str:
    return f"{run.verdict()} (premises ∧ ¬C: {run.negated_conclusion}, premises: {run.premises})"


def ms_since(started: float) -> float:
    """Milliseconds since `started` (a perf_counter value), rounded to µs."""
    return round((time.perf_counter() - started) * 1000, 3)
