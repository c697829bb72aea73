"""Compiling one workspace module with `lean` inside the sandbox, and judging what Lean said.

Each module is one sandboxed run (a fresh tmpfs work dir): the checker hands in the module's source and
the .olean files of what it imports, reads back the new .olean, and takes its verdict only from what the
host sees: the exit status, the wall clock, and Lean's JSON messages on stdout. Artifacts cannot run code
while compiling (lean_lex refuses every way to), so they can neither print those messages nor write a
forged .olean, which matters because Lean trusts an imported .olean without re-checking it. The
toolchain (and a Mathlib project) are bound read-only; `-DmaxHeartbeats` caps Lean's work per declaration.
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel, Field

from reasonforge.types import StepStatus
from reasonforge.verify.lean.diag import Diagnostic, first_line, is_resource_limit, is_sorry_warning, parse_output
from reasonforge.verify.lean.toolchain import LeanToolchain
from reasonforge.verify.lean.workspace import BUILD_DIR, ModuleFile
from reasonforge.verify.sandbox.runner import WORK_DIR, Limits, run_sandboxed

__all__ = ["CompileResult", "Judgement", "compile_module", "judge_messages", "judge_run"]

_KEEP = f"{BUILD_DIR}/ReasonForge/.keep"  # makes the output directory exist before Lean writes into it


class CompileResult(BaseModel):
    """One `lean` run: its messages, exit, limits hit and the .olean it wrote (None: not written)."""

    diagnostics: list[Diagnostic]
    exit_code: int | None
    timed_out: bool = False
    limit: str | None = Field(default=None, description="which sandbox limit stopped it, if any")
    olean: bytes | None = None
    stderr_tail: str = ""
    elapsed_ms: float = 0.0


class Judgement(BaseModel):
    """The verdict on a module from its compile alone; None status: it compiled cleanly."""

    status: StepStatus | None
    message: str | None = None
    messages: list[dict] = Field(default_factory=list, description="Lean's messages, at artifact lines")


def compile_module(toolchain: LeanToolchain, module: ModuleFile, imported: Mapping[str, bytes], limits: Limits,
                   *, max_heartbeats: int, write_olean: bool = True) -> CompileResult:
    """Compile `module` in a fresh sandbox given the .olean bytes of its imports (workspace path → bytes)."""
    search = [*toolchain.lean_path, f"{WORK_DIR}/{BUILD_DIR}"]
    argv = ["/usr/bin/env", "LEAN_PATH=" + ":".join(search), "LEAN_NUM_THREADS=1", toolchain.lean_bin, "--json",
            f"-DmaxHeartbeats={max_heartbeats}", "-R", "."]
    if write_olean:
        argv += ["-o", module.olean]
    argv.append(module.path)
    files: dict[str, str | bytes] = {module.path: module.source, _KEEP: b"", **imported}
    run = run_sandboxed(argv, files, limits, collect=[module.olean] if write_olean else [],
                        extra_ro_binds=toolchain.ro_binds())
    limit = ("wall-clock" if run.timed_out else "CPU time" if run.cpu_exceeded else
             "memory" if run.memory_exceeded else None)
    return CompileResult(diagnostics=parse_output(run.stdout + "\n" + run.stderr), exit_code=run.exit_code,
                         timed_out=run.timed_out, limit=limit, olean=run.files.get(module.olean),
                         stderr_tail=run.stderr.strip()[-600:], elapsed_ms=run.elapsed_ms)


def _located(diag: Diagnostic, module: ModuleFile) -> dict:
    return {"severity": diag.severity, "line": module.artifact_line(diag.line), "column": diag.column,
            "message": diag.message[:2000]}


def judge_messages(diagnostics: list[Diagnostic], module: ModuleFile) -> Judgement:
    """Errors fail the step, resource limits are `error`, `declaration uses sorry` fails it (it is a warning)."""
    shown = [_located(d, module) for d in diagnostics if d.severity != "info"][:20]

    def at(diag: Diagnostic) -> str:
        line = module.artifact_line(diag.line)
        return f"line {line}: " if line is not None else ""

    in_header = [d for d in diagnostics if d.severity == "error" and d.line is not None
                 and module.artifact_line(d.line) is None]
    if in_header:
        return Judgement(status=StepStatus.ERROR, messages=shown,
                         message=f"the checker's imports failed: {first_line(in_header[0].message)}")
    errors = [d for d in diagnostics if d.severity == "error"]
    real = [d for d in errors if not is_resource_limit(d)]
    if real:
        return Judgement(status=StepStatus.FAILED, messages=shown, message=f"{at(real[0])}{first_line(real[0].message)}")
    if errors:
        return Judgement(status=StepStatus.ERROR, messages=shown,
                         message=f"{at(errors[0])}Lean ran out of resources (a limit, not a disproof): "
                                 f"{first_line(errors[0].message)}")
    sorry = next((d for d in diagnostics if is_sorry_warning(d)), None)
    if sorry is not None:
        return Judgement(status=StepStatus.FAILED, messages=shown,
                         message=f"{at(sorry)}{first_line(sorry.message)}: the proof is incomplete")
    return Judgement(status=None, messages=shown)


def judge_run(result: CompileResult, module: ModuleFile, wall_s: float) -> Judgement:
    """Judge a compile: limits first (an `error`), then Lean's messages, then an unexplained exit status."""
    if result.limit is not None:
        verdict = judge_messages(result.diagnostics, module)
        what = f"{wall_s:g} s" if result.timed_out else result.limit
        return Judgement(status=StepStatus.ERROR, messages=verdict.messages,
                         message=f"timeout: Lean did not finish within its {what} limit" if result.timed_out else
                         f"Lean exceeded its {what} limit")
    verdict = judge_messages(result.diagnostics, module)
    if verdict.status is not None:
        return verdict
    if result.exit_code != 0:
        return Judgement(status=StepStatus.ERROR, messages=verdict.messages,
                         message=f"lean exited with status {result.exit_code} without reporting an error: "
                                 f"{result.stderr_tail[-300:] or '(no output)'}")
    return verdict
