"""How a chain's Coq workspace is compiled: `per-file` (one `coqc` per file) or `warm` (one `coqc` per chain).

Measured on the good suite (benchmarks/coq_latency.py), most of a cold step is not the step: it is
starting `coqc` and loading the standard library it requires (ZArith, Lia: ~0.5 s on an idle core),
and the process does it again for every file. `warm` compiles the whole chain in ONE `coqc` process
and one sandbox, from a single generated file that mirrors the per-file workspace exactly:

    Module Context. <Context.v> End Context.            checks that its names exist
    Module Step1. Import Context. <artifact> End Step1.  checks, then Step1's audit (as in Chain.v)
    Reset rf_before_Step1.                               (only when the next step does not descend from it)
    Module Step2. Import Context. <artifact> End Step2.  ...

Same guarantees as per-file:
- Isolation: before each step the document is `Reset` to a state holding exactly the Context and the
  step's ancestors (ancestors missing from the state are re-checked), so a step sees what its
  per-file `Require Import` would show it and nothing of unrelated steps (their hints, instances,
  options are rolled back with them). `Reset` is refused in artifacts, and so are modules, `End`
  without a matching `Section`, global options and the `Timeout` prefix, so an artifact cannot
  leave its module or touch the next one. Options set inside a module end with it (as with a file).
- Limits: `Set Default Timeout` bounds every command (artifacts may not change it), `-time` gives each
  step's own compile time, and a step over its time limit is an error and its dependants are skipped,
  as when its own `coqc` is killed in per-file mode. The process has the chain's wall clock.
- Results: the same nonce-framed audit; output is cut into per-file runs with lines renumbered as
  in the per-file files, so the verdicts, messages and error lines are those of per-file mode.
- Failures: `coqc` stops at the first error, so the step holding it is recorded as failed and a new
  process continues with the remaining steps (a failure costs one more start). Anything unexpected (a
  crash outside any step, no progress) falls back to per-file mode for the steps left.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from reasonforge.errors import ReasonForgeError
from reasonforge.types import CheckLimits
from reasonforge.verify.coq.audit import audit_head, audit_part, audit_tail, mark
from reasonforge.verify.coq.diag import FileRun, file_runs
from reasonforge.verify.coq.toolchain import CoqToolchain
from reasonforge.verify.coq.workspace import CONTEXT, OUTPUT_BYTES, ChainPlan, Workspace, existence_checks, module_of

__all__ = ["compile_workspace"]

_TIME_LINE = re.compile(r"^Chars (\d+) - (\d+) \[.*\] ([\d.]+) secs \(.*\)$")
_LOCATION = re.compile(r'^File "(?:\./)?[^"]+", line (\d+), characters (\d+)-(\d+):$')
_COMBINED = "Chain.v"


def compile_workspace(plan: ChainPlan, ws: Workspace, tool: CoqToolchain, limits: CheckLimits, *, mode: str,
                      unsafe_no_sandbox: bool = False) -> dict[str, FileRun]:
    """Every file's run, as the per-file layout names and numbers them (ReasonForgeError if nothing can run)."""
    if mode == "per-file":
        return _per_file(ws, tool, limits, len(plan.order), unsafe_no_sandbox)
    if mode != "warm":
        raise ReasonForgeError(f"unknown Coq compile mode '{mode}' (use 'warm' or 'per-file')", field="mode")
    return _warm(plan, ws, tool, limits, unsafe_no_sandbox)


def _run(argv: list[str], files: dict[str, str], tool: CoqToolchain, limits: CheckLimits, wall_s: float,
         unsafe: bool, memory_mb: int | None = None):
    from reasonforge.verify import sandbox

    box = sandbox.Limits(wall_s=wall_s, cpu_s=wall_s, memory_mb=memory_mb or limits.memory_mb,
                         output_bytes=OUTPUT_BYTES, processes=64)
    try:
        return sandbox.run_sandboxed(argv, files, box, extra_ro_binds=list(tool.binds), unsafe_no_sandbox=unsafe)
    except sandbox.SandboxUnavailable as exc:
        raise ReasonForgeError(f"the sandbox is unavailable, and Coq artifacts are never compiled outside it: "
                               f"{exc.message}") from exc


def _per_file(ws: Workspace, tool: CoqToolchain, limits: CheckLimits, n_steps: int, unsafe: bool) -> dict[str, FileRun]:
    files = 2 * n_steps + 3  # Context, steps, Chain, and the per-step audit fallback
    # Each coqc has its own time limit inside the driver; the wall clock only bounds the whole run.
    result = _run(ws.driver_argv(), ws.files, tool, limits, limits.timeout_s * files + 15, unsafe)
    return file_runs(result.stdout, ws.nonce)


# ------------------------------------------------------------------------------------------- warm
@dataclass
class _Segment:
    """A stretch of the combined file that stands for one per-file file (`Step3`, `Audit3`, `Context`, ...)."""

    name: str
    first_line: int  # first line of the stretch in the combined file
    last_line: int
    body_line: int = 0  # combined-file line that is line 1 of the per-file file (its header)
    body_lines: int = 0  # header + artifact lines, as in the per-file file
    byte_start: int = 0  # the module's extent, for -time sums
    byte_end: int = 0
    sid: int | None = None


class _Writer:
    def __init__(self) -> None:
        self.parts: list[str] = []
        self.lines = 0
        self.bytes = 0

    def add(self, text: str) -> None:
        self.parts.append(text)
        self.lines += text.count("\n")
        self.bytes += len(text.encode())

    @property
    def next_line(self) -> int:
        return self.lines + 1


def _render(plan: ChainPlan, pending: list[int], preload: tuple[str, ...], head: bool,
            probe: bool) -> tuple[str, list[_Segment]]:
    """The combined file for the steps still to compile, with the Context audit (`head`) and `probe` if still due."""
    w = _Writer()
    segs: list[_Segment] = []
    timeout = max(1, int(plan.timeout_s + 0.999))
    w.add(f"(* ReasonForge warm chain {plan.nonce[:8]} *)\nSet Default Timeout {timeout}.\n")
    if preload:
        # Exactly the libraries each of these steps' own coqc would load, in the same order (steps are
        # grouped by that list): loaded once, before any `Reset` point, so never unloaded and reloaded.
        w.add(f"Require {' '.join(preload)}.\n")
    ctx = _Segment(CONTEXT, w.next_line, 0)
    w.add(mark(plan.nonce, f"begin {CONTEXT}"))
    ctx.byte_start = w.bytes
    w.add(f"Module {CONTEXT}.\n")
    ctx.body_line = w.next_line
    context = plan.context if plan.context.endswith("\n") or not plan.context else plan.context + "\n"
    w.add(context)
    ctx.body_lines = context.count("\n")
    w.add(f"End {CONTEXT}.\n")
    ctx.byte_end = w.bytes
    w.add(existence_checks(CONTEXT, [*plan.context_assumptions, *plan.context_definitions]))
    w.add(mark(plan.nonce, f"end {CONTEXT} 0"))
    ctx.last_line = w.lines
    segs.append(ctx)
    if head:
        seg = _Segment("Head", w.next_line, 0)
        w.add(mark(plan.nonce, "begin Head"))
        w.add(audit_head(plan.nonce, plan.context_assumptions, plan.context_definitions, qualifier=""))
        w.add(mark(plan.nonce, "end Head 0"))
        seg.last_line = w.lines
        segs.append(seg)
    stack: list[int] = []
    for sid in pending:
        needed = list(plan.imports.get(sid, ()))
        cut = next((i for i, s in enumerate(stack) if s not in needed), None)
        if cut is not None:
            w.add(f"Reset rf_before_{module_of(stack[cut])}.\n")
            del stack[cut:]
        for a in needed:
            if a not in stack:
                replay = _Segment(f"Replay{a}", w.next_line, 0, sid=a)
                _module(w, plan, a)
                replay.last_line = w.lines
                segs.append(replay)
                stack.append(a)
        step = _Segment(module_of(sid), w.next_line, 0, sid=sid)
        w.add(mark(plan.nonce, f"begin {module_of(sid)}"))
        step.byte_start = w.bytes
        step.body_line = _module(w, plan, sid)
        step.byte_end = w.bytes
        step.body_lines = 1 + plan.artifact(sid).count("\n")
        w.add(existence_checks(module_of(sid), plan.theorems[sid]))
        w.add(mark(plan.nonce, f"end {module_of(sid)} 0"))
        step.last_line = w.lines
        segs.append(step)
        stack.append(sid)
        audit = _Segment(f"Audit{sid}", w.next_line, 0, sid=sid)
        w.add(mark(plan.nonce, f"begin Audit{sid}"))
        w.add(audit_part(plan.nonce, module_of(sid), plan.theorems[sid], plan.definitions[sid], qualifier=""))
        w.add(mark(plan.nonce, f"end Audit{sid} 0"))
        audit.last_line = w.lines
        segs.append(audit)
    if probe:  # last: it loads Lia at top level, which no step may see
        if stack:
            w.add(f"Reset rf_before_{module_of(stack[0])}.\n")
        seg = _Segment("Probe", w.next_line, 0)
        w.add(mark(plan.nonce, "begin Probe"))
        w.add(audit_tail(plan.nonce, plan.context_assumptions, plan.context_requires, qualifier=""))
        w.add(mark(plan.nonce, "end Probe 0"))
        seg.last_line = w.lines
        segs.append(seg)
    return "".join(w.parts), segs


def _module(w: _Writer, plan: ChainPlan, sid: int) -> int:
    """Write one step's module; returns the combined-file line of its import line (per-file line 1)."""
    module = module_of(sid)
    w.add(f"Definition rf_before_{module} := tt.\nModule {module}.\n")
    header_line = w.next_line
    w.add("Import " + " ".join([CONTEXT, *(module_of(a) for a in plan.imports.get(sid, ()))]) + ".\n")
    w.add(plan.artifact(sid))
    w.add(f"End {module}.\n")
    return header_line


def _renumber(error_lines: list[str], seg: _Segment) -> str:
    """Coq's error, with the combined file's line turned into the per-file file's line (or dropped)."""
    out = []
    for line in error_lines:
        m = _LOCATION.match(line)
        if m is None:
            out.append(line)
            continue
        n = int(m.group(1))
        if seg.body_line and seg.body_line <= n < seg.body_line + seg.body_lines:
            out.append(f'File "./{seg.name}.v", line {n - seg.body_line + 1}, characters {m.group(2)}-{m.group(3)}:')
        elif seg.body_line and n > seg.body_line + seg.body_lines:  # past `End`: the checker's own lines
            out.append(f'File "./{seg.name}.v", line {seg.body_lines + 3}, characters {m.group(2)}-{m.group(3)}:')
        # else: the module's own `End` line (e.g. a proof left open): no line, as per-file reports it
    return "\n".join(out)


def _segment_of(line: int, segs: list[_Segment]) -> _Segment | None:
    return next((s for s in segs if s.first_line <= line <= s.last_line), None)


def _step_times(stdout: str, segs: list[_Segment]) -> dict[str, float]:
    """Seconds each step's module took, summed from coqc's `-time` lines."""
    times: dict[str, float] = {}
    for line in stdout.splitlines():
        m = _TIME_LINE.match(line)
        if m is None:
            continue
        start = int(m.group(1))
        for s in segs:
            if s.byte_start <= start < s.byte_end and s.name.startswith("Step"):
                times[s.name] = times.get(s.name, 0.0) + float(m.group(3))
    return times


def _resource_crash(stderr: str) -> bool:
    low = stderr.lower()
    return "out of memory" in low or "stack overflow" in low


def _warm(plan: ChainPlan, ws: Workspace, tool: CoqToolchain, limits: CheckLimits, unsafe: bool) -> dict[str, FileRun]:
    # One process per group of steps that load the same standard-library modules (usually one group: the
    # Context's libraries), so each process preloads exactly what its steps' own coqc would load.
    groups: dict[tuple[str, ...], list[int]] = {}
    for sid in plan.order:
        groups.setdefault(plan.loads(sid), []).append(sid)
    runs: dict[str, FileRun] = {}
    for preload, group in groups.items():
        _skip_descendants(plan, runs)
        pending = [sid for sid in group if module_of(sid) not in runs]
        if not pending and "Probe" in runs:
            continue
        if not _rounds(plan, pending, preload, tool, limits, unsafe, runs):
            fallback = _per_file(ws, tool, limits, len(plan.order), unsafe)
            kept = {k: v for k, v in runs.items() if v.rc == 0 or v.skipped or k.startswith("Step")}
            return {**fallback, **kept}
        if CONTEXT in runs and runs[CONTEXT].rc != 0:
            return runs
    return runs


def _skip_descendants(plan: ChainPlan, runs: dict[str, FileRun]) -> None:
    """A step whose ancestor did not compile is skipped, as the per-file driver skips it."""
    for sid in plan.order:
        broken = [a for a in plan.imports.get(sid, ()) if module_of(a) in runs and runs[module_of(a)].rc != 0]
        if broken and not runs.get(module_of(sid), FileRun("")).skipped:
            runs[module_of(sid)] = FileRun(module_of(sid), skipped=True)
            runs.pop(f"Audit{sid}", None)


def _rounds(plan: ChainPlan, pending: list[int], preload: tuple[str, ...], tool: CoqToolchain, limits: CheckLimits,
            unsafe: bool, runs: dict[str, FileRun]) -> bool:
    """Compile `pending` in as few processes as failures allow, filling `runs`; False when per-file must decide."""
    while pending or "Probe" not in runs:
        text, segs = _render(plan, pending, preload, head="Head" not in runs, probe="Probe" not in runs)
        budget = limits.timeout_s * (2 * len(pending) + 3) + 15
        # One process holds the whole chain (and, for `Reset`, its earlier states): twice a file's memory.
        result = _run(["coqc", "-q", "-w", "-all", "-time", "-async-proofs-cache", "force", _COMBINED],
                      {_COMBINED: text}, tool, limits, budget, unsafe, memory_mb=2 * limits.memory_mb)
        stdout = "\n".join(ln for ln in result.stdout.splitlines() if not _TIME_LINE.match(ln))
        got = file_runs(stdout, plan.nonce)
        times = _step_times(result.stdout, segs)
        errors = result.stderr.splitlines()
        located = next((i for i, ln in enumerate(errors) if _LOCATION.match(ln)), None)
        failed_at = None
        if located is not None:
            m = _LOCATION.match(errors[located])
            failed_at = _segment_of(int(m.group(1)), segs) if m else None
        progress, trusted = False, True
        for seg in segs:
            run = got.get(seg.name)
            if run is None or seg.name.startswith("Replay") or seg.name in runs:
                if seg is failed_at and seg.name.startswith("Replay"):
                    trusted = False  # a step that compiled before failed again: do not trust this process
                continue
            if run.rc == 0:
                run.elapsed_ms = round(1000 * times[seg.name]) if seg.name in times else None
                if seg.name.startswith("Step") and times.get(seg.name, 0.0) > plan.timeout_s:
                    run.rc = 124  # over its own limit: as if its coqc had been killed
                runs[seg.name], progress = run, True
            elif seg is failed_at and _resource_crash(result.stderr):
                trusted = False  # memory and stack belong to the whole process: per-file mode decides
            elif seg is failed_at:
                message = _renumber(errors[located:], seg) if located is not None else result.stderr
                rc = 124 if "Timeout!" in result.stderr else 1
                runs[seg.name] = FileRun(seg.name, output=(run.output + "\n" + message).strip("\n"), rc=rc)
                progress = True
            else:
                # Begun, never ended, no located error: the process died (wall clock, memory, crash). The
                # cause may be the whole process rather than this step: per-file mode, with a limit per
                # file, decides it.
                trusted = False
        if result.output_truncated:
            trusted = False  # a chatty artifact may have crowded out results: per-file caps each file alone
        if CONTEXT in runs and runs[CONTEXT].rc != 0:
            return True
        _skip_descendants(plan, runs)
        pending = [sid for sid in pending if module_of(sid) not in runs]
        if not (progress and trusted):
            return False
    return True
