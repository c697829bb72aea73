"""Locating and running the Node tools (circom2, snarkjs, solc) installed by `npm ci`."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from reasonforge.errors import ReasonForgeError


class ToolchainError(ReasonForgeError):
    """A Node tool is missing or failed."""

    code = "certificate_toolchain_error"


def node_modules() -> Path:
    """The node_modules folder: $REASONFORGE_NODE_MODULES, else the nearest one above this package or cwd."""
    env = os.environ.get("REASONFORGE_NODE_MODULES")
    if env:
        return Path(env)
    for start in (Path(__file__).resolve().parent, Path.cwd().resolve()):
        for folder in (start, *start.parents):
            candidate = folder / "node_modules"
            if (candidate / "circom2").is_dir():
                return candidate
    raise ToolchainError(
        "node_modules with circom2 not found: run `make install` (npm ci) at the repository root "
        "or set REASONFORGE_NODE_MODULES"
    )


def node() -> str:
    """Path of the node executable."""
    found = shutil.which("node")
    if not found:
        raise ToolchainError("node is not installed: install Debian's nodejs (scripts/install-system.sh)")
    return found


def run_node(script: Path, args: list[str], *, cwd: Path, timeout: float = 900) -> str:
    """Run a Node script; return stdout or raise with its stderr."""
    proc = subprocess.run(
        [node(), str(script), *args], cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False
    )
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip()[-2000:]
        raise ToolchainError(f"{script.name} {' '.join(args[:2])} failed (exit {proc.returncode}): {tail}")
    return proc.stdout


def bin_script(package: str, relative: str) -> Path:
    """A package's entry script inside node_modules."""
    path = node_modules() / package / relative
    if not path.exists():
        raise ToolchainError(f"{package} is missing from {node_modules()}: run `npm ci`")
    return path
