"""The `lean4` chain checker: every step of a chain compiled as one Lean 4 workspace (DESIGN §3.3).

For each chain:
1. Lex the Context and every step (lean_lex): `sorry`, `native_decide`, `implemented_by`, new axioms in
   steps, `#` commands, compile-time code (`elab`, `macro`, `run_cmd` …) and imports are refused before
   Lean runs; a step redeclaring a name another step declares fails (the chain could not import both).
2. Compile Context.lean, then each Step<k>.lean in topological order, importing the Context and the
   steps it builds on (lean_workspace), each in its own sandbox (lean_compile). Errors fail the step;
   `declaration uses sorry` (a warning) fails it; heartbeat/time/memory limits make it `error`. A step
   whose ancestor did not pass is not compiled (`error`; the cascade marks it invalidated if that
   ancestor failed).
3. Chain.lean, written by the checker, imports every compiled step and runs `#print axioms` on each of
   their declarations. Allowed: propext, Classical.choice, Quot.sound and the Context's own axioms;
   `sorryAx` or `Lean.ofReduceBool` (native code) fail the step.
With `LeanSettings.repl` (or a `LeanReplPool` passed in) steps 2-3 run in a warm leanprover-community/repl
instead, one command per step on the environment of the header + Context + its ancestors.
Without a toolchain every step is `error` with NOT_INSTALLED (and `prover: auto` picks Coq).

A step that passes all of this is still not `verified`: this checker does not read theorem statements, so
it cannot tell whether a theorem states what the step's text claims, nor whether the Context's axioms are
givens of the question (DESIGN §3.1; the Coq checker does both). Such a step is `unsupported`
(ErrorKind.UNALIGNED) with `checker_status: verified`, so the compile and axiom audit stay visible and no
unrelated theorem (`theorem t : True := trivial` under "2 + 2 = 5") is ever reported as a proof of the step.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from pydantic import BaseModel

from reasonforge.errors import ReasonForgeError, ToolUnavailableError
from reasonforge.registry import Spec, checkers
from reasonforge.types import (
    ArtifactLanguage,
    ChainStep,
    CheckLimits,
    CheckOutcome,
    ErrorKind,
    ProofLevel,
    StepStatus,
)
from reasonforge.verify.lean.compile import Judgement, compile_module, judge_messages, judge_run
from reasonforge.verify.lean.diag import AxiomReport, Diagnostic, first_line, parse_axioms
from reasonforge.verify.lean.lex import Declaration, scan_artifact
from reasonforge.verify.lean.repl import LeanReplPool, ReplError, ReplSession, ReplTimeout
from reasonforge.verify.lean.toolchain import NOT_INSTALLED, LeanSettings, LeanToolchain, discover
from reasonforge.verify.lean.workspace import (
    ChainFile,
    ModuleFile,
    chain_file,
    context_module,
    render_workspace,
    step_module,
    step_name,
)
from reasonforge.verify.sandbox.runner import Limits, SandboxUnavailable

__all__ = ["ALLOWED_AXIOMS", "CHECKER_VERSION", "NOT_INSTALLED", "LeanChecker", "LeanSettings", "judge_axioms"]

CHECKER_VERSION = "2.0.0"
ALLOWED_AXIOMS = ("propext", "Classical.choice", "Quot.sound")
_NATIVE = {"Lean.ofReduceBool", "Lean.ofReduceNat", "Lean.trustCompiler"}


class _Plan(BaseModel):
    """What lexing found: refused steps, each step's printable declarations, the Context's axioms."""

    rejected: dict[int, CheckOutcome]
    printable: dict[int, list[Declaration]]
    context_axioms: list[str]
    context_error: str | None = None
    lean_ids: set[int]


def judge_axioms(step_id: int, declarations: Sequence[Declaration], reports: dict[str, list[str]],
                 context_axioms: Sequence[str]) -> CheckOutcome:
    """The step's outcome from `#print axioms` answers for its declarations (name → axioms)."""
    allowed = set(ALLOWED_AXIOMS) | set(context_axioms)
    used = {d.name: reports[d.name] for d in declarations if d.name in reports}
    details: dict[str, Any] = {"axioms": used}
    missing = [d.name for d in declarations if d.name not in reports]
    if missing:
        return CheckOutcome(status=StepStatus.ERROR, details=details,
                            message=f"Lean gave no `#print axioms` answer for `{missing[0]}` (step {step_id})")
    for name, axioms in used.items():
        if "sorryAx" in axioms:
            return CheckOutcome(status=StepStatus.FAILED, details=details,
                                message=f"`{name}` depends on sorryAx: a `sorry` reached the proof")
        native = sorted(set(axioms) & _NATIVE)
        if native:
            return CheckOutcome(status=StepStatus.FAILED, details=details,
                                message=f"`{name}` depends on {', '.join(native)}: it trusts compiled code "
                                        "(native_decide) instead of the kernel")
        extra = [a for a in axioms if a not in allowed]
        if extra:
            return CheckOutcome(status=StepStatus.FAILED, details=details,
                                message=f"`{name}` depends on axiom(s) {', '.join(extra)}, which are neither "
                                        f"{', '.join(ALLOWED_AXIOMS)} nor the Context's axioms")
    return CheckOutcome(status=StepStatus.VERIFIED, details=details)


UNALIGNED_MESSAGE = ("the Lean 4 proof compiles and uses no forbidden axiom, but this checker does not read theorem "
                     "statements: nothing confirms the theorem states the step's claim or that the Context's axioms "
                     "are givens of the question, so the step is not verified (use prover 'coq' for an aligned check)")


def _unaligned(outcome: CheckOutcome) -> CheckOutcome:
    """A compiled, audited step as what it is without alignment: unsupported, the checker's verdict kept."""
    if outcome.status is not StepStatus.VERIFIED:
        return outcome
    return outcome.downgraded(StepStatus.UNSUPPORTED, ErrorKind.UNALIGNED, UNALIGNED_MESSAGE)


def _plan(steps: Sequence[ChainStep], context: str) -> _Plan:
    context_report = scan_artifact(context, is_context=True)
    context_error = None
    if context_report.violations:
        context_error = f"the Context is refused: {context_report.violations[0].describe()}"
    seen = {d.name: "the Context" for d in context_report.declarations if d.parts}
    rejected: dict[int, CheckOutcome] = {}
    printable: dict[int, list[Declaration]] = {}
    for step in steps:
        report = scan_artifact(step.artifact)
        names = [d for d in report.declarations if d.parts]
        clash = next((d for d in names if d.name in seen), None)
        if report.violations:
            found = report.violations
            rejected[step.step_id] = CheckOutcome(
                status=StepStatus.FAILED, message=found[0].describe(), error_kind=ErrorKind.REFUSED,
                details={"refused": [v.model_dump() for v in found[:20]]})
        elif clash is not None:
            rejected[step.step_id] = CheckOutcome(
                status=StepStatus.FAILED, error_kind=ErrorKind.REFUSED,
                message=f"line {clash.line}: declares `{clash.name}`, which {seen[clash.name]} already declares; "
                        "rename it (the chain imports every step together)")
        for d in names:
            seen.setdefault(d.name, f"step {step.step_id}")
        printable[step.step_id] = report.checkable
    return _Plan(rejected=rejected, printable=printable, context_axioms=context_report.axioms,
                 context_error=context_error, lean_ids={s.step_id for s in steps})


def _all(steps: Sequence[ChainStep], status: StepStatus, message: str) -> dict[int, CheckOutcome]:
    return {s.step_id: CheckOutcome(status=status, message=message) for s in steps}


def _repl_module(step_id: int, text: str) -> ModuleFile:
    # REPL positions are relative to the command itself: no header lines to subtract.
    return ModuleFile(module=step_name(step_id), path="", olean="", imports=[], header_lines=0, source=text)


def _blocked(step: ChainStep, plan: _Plan, passed: Callable[[int], bool]) -> CheckOutcome | None:
    failed = [a for a in step.ancestors if a in plan.lean_ids and not passed(a)]
    if not failed:
        return None
    return CheckOutcome(status=StepStatus.ERROR, error_kind=ErrorKind.NOT_CHECKED,
                        message=f"not checked: it builds on step {', '.join(map(str, failed))}, which did not pass")


@checkers.checker(ArtifactLanguage.LEAN4)
class LeanChecker:
    """Checks a chain's `lean4` artifacts as one Lean 4 workspace (see module doc)."""

    def __init__(self, settings: LeanSettings | None = None, *, toolchain: LeanToolchain | None = None,
                 pool: LeanReplPool | None = None) -> None:
        # Cheap on purpose: the registry builds a checker per lookup; Lean is located on first use.
        self.settings = settings if settings is not None else LeanSettings.from_env()
        self._toolchain = toolchain
        self._pool = pool
        self.spec = Spec(name="lean4", version=CHECKER_VERSION, args={
            "imports": list(self.settings.header_imports), "max_heartbeats": self.settings.max_heartbeats,
            "backend": "repl" if self._uses_repl else "compile", "allowed_axioms": list(ALLOWED_AXIOMS)})

    @property
    def _uses_repl(self) -> bool:
        return self._pool is not None or self.settings.repl is not None

    def check_chain(self, steps: Sequence[ChainStep], *, context: str, level: ProofLevel,
                    limits: CheckLimits) -> dict[int, CheckOutcome]:
        """Return each step's own status, keyed by step id (see module doc)."""
        started = time.perf_counter()
        plan = _plan(steps, context)
        if plan.context_error:
            return _all(steps, StepStatus.ERROR, plan.context_error)
        outcomes = dict(plan.rejected)
        todo = [s for s in steps if s.step_id not in outcomes]
        if todo:
            backend = self._check_repl if self._uses_repl else self._check_compiled
            outcomes.update(backend(todo, plan, context, limits))
        base = {"checker": "lean4", "level": ProofLevel(level).value,
                "chain_ms": round((time.perf_counter() - started) * 1000, 1)}
        if self._toolchain is not None:
            base["lean_version"] = self._toolchain.version
        return {s.step_id: _unaligned(outcomes[s.step_id].model_copy(
                    update={"details": {**base, **outcomes[s.step_id].details}}))
                for s in steps if s.step_id in outcomes}

    def workspace(self, steps: Sequence[ChainStep], *, context: str) -> dict[str, str]:
        """The chain's workspace files (Context, steps, Chain, lakefile), for replaying the check with `lake build`."""
        project = self.settings.project
        return render_workspace(context, steps, _plan(steps, context).printable, imports=self.settings.header_imports,
                                project=str(project) if project is not None else None,
                                lean_version=self._toolchain.version if self._toolchain is not None else None)

    # ---------------------------------------------------------------------------------- limits

    def _wall(self, limits: CheckLimits) -> float:
        return max(limits.timeout_s, self.settings.min_wall_s)

    def _limits(self, limits: CheckLimits) -> Limits:
        wall = self._wall(limits)
        # CPU above wall: Lean runs a few threads; the wall clock is the binding limit.
        return Limits(cpu_s=wall * 2, wall_s=wall, memory_mb=max(limits.memory_mb, self.settings.min_memory_mb),
                      collect_bytes=64 << 20)

    # ------------------------------------------------------------------------------ compile backend

    def _check_compiled(self, steps: Sequence[ChainStep], plan: _Plan, context: str,
                        limits: CheckLimits) -> dict[int, CheckOutcome]:
        try:
            if self._toolchain is None:
                self._toolchain = discover(self.settings)
        except ToolUnavailableError as exc:
            return _all(steps, StepStatus.ERROR, exc.message)
        toolchain = self._toolchain
        if toolchain is None:
            return _all(steps, StepStatus.ERROR, NOT_INSTALLED)
        try:
            return self._compile_chain(toolchain, steps, plan, context, limits)
        except SandboxUnavailable as exc:
            return _all(steps, StepStatus.ERROR, exc.message)

    def _compile_chain(self, toolchain: LeanToolchain, steps: Sequence[ChainStep], plan: _Plan, context: str,
                       limits: CheckLimits) -> dict[int, CheckOutcome]:
        box, wall, beats = self._limits(limits), self._wall(limits), self.settings.max_heartbeats
        ctx = context_module(context, self.settings.header_imports)
        run = compile_module(toolchain, ctx, {}, box, max_heartbeats=beats)
        verdict = judge_run(run, ctx, wall)
        if verdict.status is not None or run.olean is None:
            return _all(steps, StepStatus.ERROR,
                        f"the Context does not compile: {verdict.message or 'Lean wrote no .olean'}")
        oleans: dict[str, bytes] = {ctx.olean: run.olean}
        compiled: dict[int, ModuleFile] = {}
        notes: dict[int, dict[str, Any]] = {}
        outcomes: dict[int, CheckOutcome] = {}
        for step in steps:
            blocked = _blocked(step, plan, lambda a: a in compiled)
            if blocked is not None:
                outcomes[step.step_id] = blocked
                continue
            deps = [a for a in step.ancestors if a in plan.lean_ids]
            module = step_module(step.step_id, step.artifact, deps)
            imported = {ctx.olean: run.olean, **{compiled[a].olean: oleans[compiled[a].olean] for a in deps}}
            result = compile_module(toolchain, module, imported, box, max_heartbeats=beats)
            verdict = judge_run(result, module, wall)
            details = {"module": module.module, "lean_messages": verdict.messages, "compile_ms": result.elapsed_ms}
            if verdict.status is not None:
                outcomes[step.step_id] = CheckOutcome(status=verdict.status, message=verdict.message, details=details)
            elif result.olean is None:
                outcomes[step.step_id] = CheckOutcome(status=StepStatus.ERROR, details=details,
                                                      message="Lean reported success but wrote no .olean")
            else:
                compiled[step.step_id], oleans[module.olean], notes[step.step_id] = module, result.olean, details
        if compiled:
            outcomes.update(self._chain_axioms(toolchain, compiled, oleans, plan, notes, box, wall))
        return outcomes

    def _chain_axioms(self, toolchain: LeanToolchain, compiled: dict[int, ModuleFile], oleans: dict[str, bytes],
                      plan: _Plan, notes: dict[int, dict[str, Any]], box: Limits,
                      wall: float) -> dict[int, CheckOutcome]:
        chain = chain_file(list(compiled), {sid: plan.printable[sid] for sid in compiled})
        module = ModuleFile(module="ReasonForge.Chain", path=chain.path, olean="", imports=[],
                            header_lines=chain.header_lines, source=chain.source)
        result = compile_module(toolchain, module, oleans, box, max_heartbeats=self.settings.max_heartbeats,
                                write_olean=False)
        if result.limit is not None:
            return {sid: CheckOutcome(status=StepStatus.ERROR, details=notes[sid],
                                      message=f"timeout: the axiom check did not finish within {wall:g} s")
                    for sid in compiled}
        answers, problems = _chain_answers(result.diagnostics, chain)
        outcomes = {}
        for sid in compiled:
            if problems.get(sid) or problems.get(None):
                problem = problems.get(sid) or problems[None]
                outcomes[sid] = CheckOutcome(status=StepStatus.ERROR, details=notes[sid], message=problem)
                continue
            outcome = judge_axioms(sid, plan.printable[sid], answers.get(sid, {}), plan.context_axioms)
            outcomes[sid] = outcome.model_copy(update={"details": {**notes[sid], **outcome.details}})
        return outcomes

    # --------------------------------------------------------------------------------- REPL backend

    def _check_repl(self, steps: Sequence[ChainStep], plan: _Plan, context: str,
                    limits: CheckLimits) -> dict[int, CheckOutcome]:
        pool = self._pool
        owned = pool is None
        if pool is None:
            assert self.settings.repl is not None
            project = self.settings.project
            pool = LeanReplPool(self.settings.repl, cwd=str(project) if project else None,
                                max_processes=self.settings.repl_processes)
        header = "".join(f"import {m}\n" for m in self.settings.header_imports)
        try:
            with pool.session(header) as session:
                return _ReplRun(session, plan, self._wall(limits)).check(steps, context)
        except ReplError as exc:
            return _all(steps, StepStatus.ERROR, f"the Lean REPL failed: {exc.message}")
        finally:
            if owned:
                pool.close()


def _chain_answers(diagnostics: Sequence[Diagnostic], chain: ChainFile) -> tuple[dict[int, dict[str, list[str]]], dict[int | None, str]]:
    """Axiom answers per step from Chain.lean's messages, matched by the `#print axioms` line they answer."""
    answers: dict[int, dict[str, list[str]]] = {}
    problems: dict[int | None, str] = {}
    by_name = {name: sid for sid, name in chain.queries.values()}
    for diag in diagnostics:
        query = chain.queries.get(diag.line) if diag.line is not None else None
        if diag.severity == "error":
            if query is not None:
                problems.setdefault(query[0], f"could not ask Lean about `{query[1]}`: {first_line(diag.message)}")
            else:
                problems.setdefault(None, "the steps compile alone but not together: " + first_line(diag.message))
            continue
        for report in parse_axioms(diag.message):
            # Matched by position when Lean gives one (JSON); by name otherwise.
            sid = query[0] if query is not None else by_name.get(report.name)
            if sid is not None:
                name = query[1] if query is not None else report.name
                answers.setdefault(sid, {})[name] = report.axioms
    return answers, problems


class _ReplRun:
    """One chain checked on a warm REPL session: environments per prefix of ancestors, cached."""

    def __init__(self, session: ReplSession, plan: _Plan, wall: float) -> None:
        self.session, self.plan, self.wall = session, plan, wall
        self.envs: dict[tuple[int, ...], int | None] = {}
        self.artifacts: dict[int, str] = {}
        self.passed: set[int] = set()

    def check(self, steps: Sequence[ChainStep], context: str) -> dict[int, CheckOutcome]:
        """Outcomes for every step; a crash or timeout leaves the rest `error`."""
        base = self.session.header_env
        if context.strip():
            answer = self.session.command(context, env=base, timeout=self.wall)
            verdict = judge_messages(answer.messages, _repl_module(0, context))
            if verdict.status is not None or answer.env is None:
                return _all(steps, StepStatus.ERROR, f"the Context does not compile: "
                            f"{verdict.message or answer.error or 'the REPL returned no environment'}")
            base = answer.env
        self.envs[()] = base
        self.artifacts = {s.step_id: s.artifact for s in steps}
        outcomes: dict[int, CheckOutcome] = {}
        for index, step in enumerate(steps):
            try:
                outcomes[step.step_id] = self._step(step)
            except ReplError as exc:
                # The process is gone with its environments; the pool restarts it on next use.
                timeout = isinstance(exc, ReplTimeout)
                outcomes[step.step_id] = CheckOutcome(status=StepStatus.ERROR,
                                                      message=("timeout: " if timeout else "") + exc.message)
                what = "timed out" if timeout else "failed"
                outcomes.update(_all(steps[index + 1:], StepStatus.ERROR,
                                     f"not checked: the Lean REPL {what} on step {step.step_id}"))
                break
        return outcomes

    def _env(self, prefix: tuple[int, ...]) -> int | None:
        if prefix not in self.envs:
            parent = self._env(prefix[:-1])
            answer = self.session.command(self.artifacts[prefix[-1]], env=parent, timeout=self.wall)
            if answer.env is None or any(d.severity == "error" for d in answer.messages):
                raise ReasonForgeError(f"step {prefix[-1]} did not replay cleanly on the REPL")
            self.envs[prefix] = answer.env
        return self.envs[prefix]

    def _step(self, step: ChainStep) -> CheckOutcome:
        blocked = _blocked(step, self.plan, lambda a: a in self.passed)
        if blocked is not None:
            return blocked
        deps = tuple(a for a in step.ancestors if a in self.plan.lean_ids)
        try:
            env = self._env(deps)
        except ReplError:
            raise
        except ReasonForgeError as exc:
            return CheckOutcome(status=StepStatus.ERROR, message=exc.message)
        answer = self.session.command(step.artifact, env=env, timeout=self.wall)
        verdict: Judgement = judge_messages(answer.messages, _repl_module(step.step_id, step.artifact))
        details: dict[str, Any] = {"backend": "repl", "lean_messages": verdict.messages}
        if verdict.status is not None:
            return CheckOutcome(status=verdict.status, message=verdict.message, details=details)
        if answer.error or answer.env is None:
            return CheckOutcome(status=StepStatus.ERROR, details=details,
                                message=f"the Lean REPL refused the step: {answer.error or 'no environment returned'}")
        self.envs[deps + (step.step_id,)] = answer.env
        reports: dict[str, list[str]] = {}
        for decl in self.plan.printable.get(step.step_id, []):
            # One command per declaration, issued by the checker: its answer cannot be the artifact's output.
            reply = self.session.command(f"#print axioms {decl.name}", env=answer.env, timeout=self.wall)
            errors = [d for d in reply.messages if d.severity == "error"]
            if errors:
                return CheckOutcome(status=StepStatus.ERROR, details=details,
                                    message=f"could not ask Lean about `{decl.name}`: {first_line(errors[0].message)}")
            found: list[AxiomReport] = [r for d in reply.messages for r in parse_axioms(d.message)]
            if found:
                reports[decl.name] = found[0].axioms
        outcome = judge_axioms(step.step_id, self.plan.printable.get(step.step_id, []), reports,
                               self.plan.context_axioms)
        if outcome.status is StepStatus.VERIFIED:
            self.passed.add(step.step_id)
        return outcome.model_copy(update={"details": {**details, **outcome.details}})
