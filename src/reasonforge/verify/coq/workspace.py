"""The per-chain Coq workspace (the plan's Context, Step1..N, Chain) and the shell driver that builds it.

Layout, logical path `RF` (`coqc -Q . RF`):
- `Context.v`: the Context translation (the givens) verbatim, then checker lines that make sure each
  name it declares exists.
- `Step<k>.v`: one line `Require Import RF.Context RF.Step<a> ...` importing the Context and every
  ancestor step (transitive dependencies, topological order), then the artifact verbatim, then
  checker lines naming each theorem the artifact states (so the audit can rely on them). Ancestors,
  not only direct dependencies, because DESIGN §3.1 checks a step against the givens plus the claims
  of all its ancestors; Coq loads them anyway when a direct dependency is required, importing them
  only makes their short names usable. Compiler lines are mapped back by subtracting the one line.
- `Chain.v`: `Require`s the Context and every step that compiled (never `Import`s them, so the audit
  prints workspace names qualified as `Context.x`, `Step2.k`) and runs the audit (audit.py).

The driver compiles the files in order, one `coqc` per file, each under its own time limit, and
skips a step whose Context or ancestor did not compile. Everything it prints is framed by markers
carrying a per-run nonce that no artifact can see (Coq has no command that reads a file once `Load`
and `Require` outside the standard library are refused), so an artifact cannot forge a result.
If `Chain.v` itself fails (an audit command the lexer got wrong), the driver audits each step in its
own file instead, so one odd artifact never costs the others their audit.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from reasonforge.verify.coq.audit import audit_head, audit_part, audit_tail

__all__ = ["CONTEXT", "LIBRARY", "OUTPUT_BYTES", "ChainPlan", "StepFile", "Workspace", "existence_checks", "module_of",
           "per_file_workspace"]

LIBRARY = "RF"
CONTEXT = "Context"
CHAIN = "Chain"
_QUALIFIER = f"{LIBRARY}."
_STEP_OUTPUT = 64 * 1024  # bytes of a step's (or the Context's) coqc output kept: its tail
_AUDIT_OUTPUT = 8 * 1024 * 1024  # bytes of the audit's output kept
OUTPUT_BYTES = 16 * 1024 * 1024  # what the sandbox must let through: 64 steps' tails and the audit


def module_of(step_id: int) -> str:
    """The module (file stem) of a step."""
    return f"Step{step_id}"


@dataclass(frozen=True)
class ChainPlan:
    """Everything needed to compile one chain, whatever the mode: texts, names, imports, order, limits."""

    nonce: str
    context: str
    context_assumptions: tuple[str, ...]
    context_definitions: tuple[str, ...]
    context_requires: tuple[str, ...]
    artifacts: Mapping[int, str]
    theorems: Mapping[int, tuple[str, ...]]
    definitions: Mapping[int, tuple[str, ...]]
    imports: Mapping[int, tuple[int, ...]]
    requires: Mapping[int, tuple[str, ...]]
    order: tuple[int, ...]
    timeout_s: float
    env: tuple[tuple[str, str], ...] = ()

    def artifact(self, sid: int) -> str:
        """The step's artifact with a final newline, exactly as both modes embed it."""
        return ensure_newline(self.artifacts[sid])

    def loads(self, sid: int) -> tuple[str, ...]:
        """Standard-library modules compiling this step loads, in the order its own `coqc` would load them:
        the Context's, each ancestor's (topological order), then its own."""
        order = [*self.context_requires]
        for a in (*self.imports.get(sid, ()), sid):
            order += self.requires.get(a, ())
        return tuple(dict.fromkeys(order))


@dataclass(frozen=True)
class StepFile:
    """One step's file: its module, the ancestors it imports, and the lines the checker prepended."""

    step_id: int
    module: str
    imports: tuple[str, ...]
    header_lines: int
    artifact_lines: int


@dataclass
class Workspace:
    """Every file of one chain's per-file workspace plus the driver that compiles it (`sh driver.sh`)."""

    files: dict[str, str] = field(default_factory=dict)
    steps: dict[int, StepFile] = field(default_factory=dict)
    order: list[int] = field(default_factory=list)
    nonce: str = ""

    def driver_argv(self) -> list[str]:
        """The command that runs the driver inside the sandbox."""
        return ["/bin/sh", "driver.sh"]


def existence_checks(qualified: str, names: Sequence[str], *, close: bool = False) -> str:
    """Checker lines after an artifact: `Check @M.x` fails unless x really exists at top level.

    `close` first opens and closes an empty module, which Coq refuses while a proof is open: a file
    whose last proof is unfinished fails there, with the message warm mode gets at its module's `End`."""
    lines = ["Module RFEndOfArtifact. End RFEndOfArtifact.\n"] if close else []
    lines += [f"Check @{qualified}.{name}.\n" for name in names]
    return "\n(* ReasonForge: the artifact is closed and every name the lexer found exists *)\n" + "".join(lines)


def ensure_newline(text: str) -> str:
    """`text` ending with a newline (so the checker's lines never join the artifact's last one)."""
    return text if text.endswith("\n") else text + "\n"


def per_file_workspace(plan: ChainPlan) -> Workspace:
    """Lay out the files of one chain and write the driver (see the module docstring)."""
    ws = Workspace(nonce=plan.nonce, order=list(plan.order))
    ws.files[f"{CONTEXT}.v"] = ensure_newline(plan.context) + existence_checks(
        f"{LIBRARY}.{CONTEXT}", [*plan.context_assumptions, *plan.context_definitions])
    for sid in plan.order:
        module = module_of(sid)
        imports = tuple(module_of(a) for a in plan.imports.get(sid, ()))
        header = "Require Import " + " ".join(f"{LIBRARY}.{m}" for m in (CONTEXT, *imports)) + ".\n"
        artifact = plan.artifact(sid)
        ws.files[f"{module}.v"] = header + artifact + existence_checks(f"{LIBRARY}.{module}", plan.theorems[sid],
                                                                       close=True)
        ws.steps[sid] = StepFile(sid, module, imports, header.count("\n"), artifact.count("\n"))
        ws.files[f"{module}.audit"] = audit_part(plan.nonce, module, plan.theorems[sid], plan.definitions[sid],
                                                 qualifier=_QUALIFIER, load=f"Require {LIBRARY}.{module}.\n")
    ws.files["Chain.head"] = audit_head(plan.nonce, plan.context_assumptions, plan.context_definitions,
                                        qualifier=_QUALIFIER, load=f"Require {LIBRARY}.{CONTEXT}.\n")
    ws.files["Chain.tail"] = audit_tail(plan.nonce, plan.context_assumptions, plan.context_requires,
                                        qualifier=_QUALIFIER)
    ws.files["driver.sh"] = _driver(ws, plan.timeout_s, plan.env)
    return ws


def _driver(ws: Workspace, timeout_s: float, env: Sequence[tuple[str, str]]) -> str:
    limit = max(1, int(timeout_s + 0.999))
    lines = [
        "#!/bin/sh",
        "# Generated by reasonforge.verify.coq: compile the workspace, one coqc per file, framed by markers.",
        f"N={shlex.quote(ws.nonce)}",
        *(f"export {k}={shlex.quote(v)}" for k, v in env),
        "say() { printf '\\n@@RF %s %s\\n' \"$N\" \"$*\"; }",
        "compile() {",
        "  say begin \"$1\"",
        "  t0=$(date +%s%N)",
        f"  timeout -s KILL {limit} coqc -q -w -all -Q . {LIBRARY} \"$1.v\" >\"$1.out\" 2>&1 </dev/null",
        "  rc=$?",
        # Each file's output is capped on its own, so a chatty artifact cannot crowd out the others' results:
        # a step keeps its tail (coqc stops at its first error, so the error is last), the audit all of it.
        f"  case $1 in Step*|Context) tail -c {_STEP_OUTPUT} \"$1.out\";; *) head -c {_AUDIT_OUTPUT} \"$1.out\";; esac",
        "  say end \"$1\" \"$rc\" \"$(( ($(date +%s%N) - t0) / 1000000 ))\"",
        "  return $rc",
        "}",
        f"compile {CONTEXT}",
    ]
    for sid in ws.order:
        step = ws.steps[sid]
        needs = " && ".join(f"[ -f {m}.vo ]" for m in (CONTEXT, *step.imports))
        lines.append(f"if {needs}; then compile {step.module}; else say skip {step.module}; fi")
    lines += [
        f"[ -f {CONTEXT}.vo ] || exit 0",
        f"cp Chain.head {CHAIN}.v",
        *(f"[ -f {ws.steps[sid].module}.vo ] && cat {ws.steps[sid].module}.audit >> {CHAIN}.v" for sid in ws.order),
        f"cat Chain.tail >> {CHAIN}.v",
        f"compile {CHAIN} && exit 0",
        "# The chain audit failed: audit each step on its own so one odd artifact costs only itself.",
    ]
    for sid in ws.order:
        module = ws.steps[sid].module
        lines.append(f"if [ -f {module}.vo ]; then cat Chain.head {module}.audit > Audit{sid}.v; "
                     f"compile Audit{sid}; fi")
    lines += ["cat Chain.head Chain.tail > Probe.v", "compile Probe", "exit 0", ""]
    return "\n".join(lines)
