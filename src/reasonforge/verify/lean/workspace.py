"""The Lean 4 workspace of one chain, as plain text files (the plan's layout, DESIGN §3.1):

    ReasonForge/Context.lean   the checker's imports + the Context (the problem's givens)
    ReasonForge/Step<k>.lean   imports Context and the step modules of k's ancestors, then step k's artifact
    ReasonForge/Chain.lean     imports every step that compiled, then `#print axioms` for each declaration
    lakefile.lean              only with Mathlib: `require mathlib` from the configured project

Compiled modules go to `build/ReasonForge/<Module>.olean`, so `LEAN_PATH=<workdir>/build` finds them.
Every header is written by the checker; artifacts never choose their imports.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from pydantic import BaseModel

from reasonforge.types import ChainStep
from reasonforge.verify.lean.lex import Declaration

__all__ = ["PACKAGE", "ChainFile", "ModuleFile", "chain_file", "context_module", "lakefile", "render_workspace", "step_module",
           "step_name", "toolchain_pin"]

PACKAGE = "ReasonForge"
BUILD_DIR = "build"


class ModuleFile(BaseModel):
    """One module of the workspace: where its source and .olean live and how many header lines precede the artifact."""

    module: str
    path: str
    olean: str
    imports: list[str]
    header_lines: int
    source: str

    def artifact_line(self, line: int | None) -> int | None:
        """The artifact's own line for a line of this file, or None when it falls in the checker's header."""
        if line is None or line <= self.header_lines:
            return None
        return line - self.header_lines


class ChainFile(BaseModel):
    """Chain.lean: which `#print axioms` line asks about which step's declaration."""

    path: str
    source: str
    header_lines: int
    queries: dict[int, tuple[int, str]]  # file line → (step id, declaration name)


def _module(name: str, imports: Sequence[str], body: str) -> ModuleFile:
    header = "".join(f"import {m}\n" for m in imports)
    rel = name.replace(".", "/")
    source = header + body if body.endswith("\n") else header + body + "\n"
    return ModuleFile(module=name, path=f"{rel}.lean", olean=f"{BUILD_DIR}/{rel}.olean", imports=list(imports),
                      header_lines=len(imports), source=source)


def step_name(step_id: int) -> str:
    """Module name of step `step_id`."""
    return f"{PACKAGE}.Step{step_id}"


def context_module(context: str, imports: Sequence[str]) -> ModuleFile:
    """Context.lean: the configured imports (e.g. Mathlib) followed by the Context's text."""
    return _module(f"{PACKAGE}.Context", imports, context)


def step_module(step_id: int, artifact: str, imported_steps: Iterable[int]) -> ModuleFile:
    """Step<k>.lean: imports Context and the given (already compiled) steps, then the artifact."""
    imports = [f"{PACKAGE}.Context"] + [step_name(s) for s in imported_steps]
    return _module(step_name(step_id), imports, artifact)


def chain_file(step_ids: Sequence[int], declarations: dict[int, list[Declaration]]) -> ChainFile:
    """Chain.lean: imports every listed step and asks `#print axioms` about each of their declarations."""
    imports = [f"{PACKAGE}.Context"] + [step_name(s) for s in step_ids]
    lines = [f"import {m}" for m in imports]
    queries: dict[int, tuple[int, str]] = {}
    for sid in step_ids:
        for decl in declarations.get(sid, []):
            lines.append(f"#print axioms {decl.name}")
            queries[len(lines)] = (sid, decl.name)
    return ChainFile(path=f"{PACKAGE}/Chain.lean", source="\n".join(lines) + "\n", header_lines=len(imports),
                     queries=queries)


def lakefile(project: str) -> str:
    """lakefile.lean for a human replaying the check with Mathlib from the configured project."""
    return (
        "import Lake\nopen Lake DSL\n\n"
        f"package {PACKAGE.lower()}\n\n"
        f"require mathlib from {_lean_string(project)}\n\n"
        f"@[default_target]\nlean_lib {PACKAGE}\n"
    )


def _lean_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def toolchain_pin(version_output: str) -> str | None:
    """`leanprover/lean4:v4.9.0` from `lean --version` output, or None if it names no release."""
    m = re.search(r"version (\d+\.\d+\.\d+(?:-rc\d+)?),", version_output)
    return f"leanprover/lean4:v{m.group(1)}" if m else None


def render_workspace(context: str, steps: Sequence[ChainStep], declarations: dict[int, list[Declaration]], *,
                     imports: Sequence[str], project: str | None = None,
                     lean_version: str | None = None) -> dict[str, str]:
    """Every file of the chain's workspace, for a person to replay the check with `lake build`."""
    ctx = context_module(context, imports)
    ids = {s.step_id for s in steps}
    files = {ctx.path: ctx.source}
    for step in steps:
        module = step_module(step.step_id, step.artifact, [a for a in step.ancestors if a in ids])
        files[module.path] = module.source
    chain = chain_file([s.step_id for s in steps], declarations)
    files[chain.path] = chain.source
    files[f"{PACKAGE}.lean"] = "".join(f"import {PACKAGE}.{p.removesuffix('.lean').split('/')[-1]}\n"
                                        for p in files if p.startswith(f"{PACKAGE}/") and not p.endswith("Chain.lean"))
    files["lakefile.lean"] = lakefile(project) if project else (
        f"import Lake\nopen Lake DSL\n\npackage {PACKAGE.lower()}\n\n@[default_target]\nlean_lib {PACKAGE}\n")
    pin = toolchain_pin(lean_version or "")
    if pin:
        files["lean-toolchain"] = pin + "\n"
    return files
