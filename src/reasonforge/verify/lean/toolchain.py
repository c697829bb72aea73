"""Where Lean 4 lives on this host and how the checker is configured to use it.

`LeanSettings` is the boundary: built from arguments or from the environment (`REASONFORGE_LEAN_*`), never
from hard-coded paths. `discover` asks the toolchain itself (`lean --print-prefix`, `lean --version`, and
with a Mathlib project `lake env printenv LEAN_PATH`) and returns what the sandbox must bind read-only.
These probes run only trusted binaries on trusted directories, outside the sandbox, once per checker.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from reasonforge.errors import ToolUnavailableError

__all__ = ["NOT_INSTALLED", "LeanSettings", "LeanToolchain", "discover"]

NOT_INSTALLED = "lean not installed; install a Lean 4 toolchain (elan) or use prover coq"
_PROBE_TIMEOUT_S = 120.0  # `lake env` may elaborate the project's lakefile the first time


class LeanSettings(BaseModel):
    """How to run Lean: which binary, an optional Mathlib project, an optional warm REPL, and limits.

    The toolchain and project must be readable by the sandbox's unprivileged user (like the sandbox venv)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    lean: str = Field(default="lean", description="the `lean` command or path (elan's shim is fine)")
    project: Path | None = Field(default=None, description="a Lake project with Mathlib built; enables `import Mathlib`")
    imports: tuple[str, ...] | None = Field(default=None, description="modules every Context imports; "
                                            "default: Mathlib with a project, none without")
    repl: tuple[str, ...] | None = Field(default=None, description="command starting leanprover-community/repl "
                                         "(e.g. `lake env repl`, run in `project`); enables warm reuse")
    repl_processes: int = Field(default=2, gt=0, description="warm REPL processes kept (one per header)")
    max_heartbeats: int = Field(default=200_000, ge=0, description="Lean's per-declaration work limit")
    min_wall_s: float = Field(default=20.0, gt=0, description="floor on a module's wall-clock limit "
                              "(Lean's start-up; importing Mathlib alone takes seconds)")
    min_memory_mb: int = Field(default=4096, gt=0, description="floor on address space: Lean maps every "
                               "imported .olean, gigabytes with Mathlib")

    @property
    def header_imports(self) -> tuple[str, ...]:
        """The imports written at the top of Context.lean."""
        if self.imports is not None:
            return self.imports
        return ("Mathlib",) if self.project is not None else ()

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> LeanSettings:
        """Settings from REASONFORGE_LEAN, _LEAN_PROJECT, _LEAN_IMPORTS (comma-separated), _LEAN_REPL (a command line)."""
        env = os.environ if environ is None else environ
        values: dict[str, object] = {}
        if env.get("REASONFORGE_LEAN"):
            values["lean"] = env["REASONFORGE_LEAN"]
        if env.get("REASONFORGE_LEAN_PROJECT"):
            values["project"] = Path(env["REASONFORGE_LEAN_PROJECT"])
        if "REASONFORGE_LEAN_IMPORTS" in env:
            values["imports"] = tuple(m.strip() for m in env["REASONFORGE_LEAN_IMPORTS"].split(",") if m.strip())
        if env.get("REASONFORGE_LEAN_REPL"):
            values["repl"] = tuple(shlex.split(env["REASONFORGE_LEAN_REPL"]))
        return cls.model_validate(values)


class LeanToolchain(BaseModel):
    """A located toolchain: the real `lean` binary (not elan's shim), its prefix, version and search path."""

    model_config = ConfigDict(frozen=True)

    lean_bin: str
    prefix: str
    version: str
    lean_path: tuple[str, ...] = ()
    binds: tuple[str, ...] = ()

    def ro_binds(self) -> list[tuple[str, str]]:
        """(host, sandbox) pairs to bind read-only: the same path inside as outside."""
        return [(path, path) for path in self.binds]


def _probe(argv: list[str], cwd: Path | None, what: str) -> str:
    try:
        done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=_PROBE_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ToolUnavailableError(f"{what} failed: {exc}") from exc
    if done.returncode != 0:
        raise ToolUnavailableError(f"{what} exited with status {done.returncode}: {done.stderr.strip()[:500]}")
    return done.stdout.strip()


def _under(path: str, root: str) -> bool:
    return Path(path).resolve().is_relative_to(Path(root).resolve())


def discover(settings: LeanSettings) -> LeanToolchain | None:
    """Locate Lean for `settings`; None when `lean` is not installed, ToolUnavailableError when it is broken."""
    exe = shutil.which(settings.lean)
    if exe is None:
        return None
    project = settings.project
    if project is not None and not (project / "lakefile.lean").exists() and not (project / "lakefile.toml").exists():
        raise ToolUnavailableError(f"the configured Lean project {project} has no lakefile.lean or lakefile.toml")
    # Run in the project so elan picks the project's pinned toolchain (its lean-toolchain file).
    prefix = Path(_probe([exe, "--print-prefix"], project, "`lean --print-prefix`"))
    lean_bin = prefix / "bin" / "lean"
    if not lean_bin.exists():
        lean_bin = Path(exe).resolve()
    version = _probe([str(lean_bin), "--version"], project, "`lean --version`")
    lean_path: tuple[str, ...] = ()
    binds = [str(prefix)]
    if project is not None:
        lake = shutil.which("lake") or str(prefix / "bin" / "lake")
        printed = _probe([lake, "env", "printenv", "LEAN_PATH"], project, "`lake env printenv LEAN_PATH`")
        lean_path = tuple(p for p in printed.split(os.pathsep) if p)
        binds.append(str(project.resolve()))
        # Packages usually live under the project, but Lake allows a packages dir elsewhere.
        binds += [p for p in lean_path if Path(p).is_dir() and not any(_under(p, b) for b in binds)]
    return LeanToolchain(lean_bin=str(lean_bin), prefix=str(prefix), version=version, lean_path=lean_path,
                         binds=tuple(binds))
