"""The sandbox's Python environment: a venv on Debian's own python3 with what the code checker runs inside the
sandbox (tests, properties, coverage, types, contracts), in a place the sandbox's unprivileged uid can read.

The sandbox binds the venv read-only and runs it as nobody, so it can use neither an interpreter under root's
home (where pyenv and the project's own venv may live) nor a venv below a directory nobody cannot traverse.
Where it goes (`default_location`): REASONFORGE_SANDBOX_VENV; else a source checkout's `.sandbox-venv` (what
`make install` builds, linked to /opt when the checkout is not traversable); else, for a `pip install`,
/opt/reasonforge/sandbox-venv as root and ~/.reasonforge/sandbox-venv otherwise. `reasonforge sandbox install`
builds it; building is idempotent (instant when its stamp records the same requirements).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from reasonforge.errors import ReasonForgeError

__all__ = ["REQUIREMENTS", "VENV_ENV", "SandboxEnvError", "build_sandbox_env", "default_location", "find_sandbox_env"]

VENV_ENV = "REASONFORGE_SANDBOX_VENV"
REQUIREMENTS = ("pytest>=8", "hypothesis>=6.100", "coverage>=7", "mypy>=1.10", "crosshair-tool>=0.0.70")
BASE_PYTHON = Path("/usr/bin/python3")  # Debian's, readable by every uid
SHARED = Path("/opt/reasonforge/sandbox-venv")
_NOBODY = "65534"
_STAMP = ".installed"
_PIP_TIMEOUT_S = 1800


class SandboxEnvError(ReasonForgeError):
    """The sandbox's environment cannot be built here; the message says what to do instead."""


def _checkout() -> Path | None:
    """The source checkout this package runs from (an editable install), or None for an installed wheel."""
    root = Path(__file__).resolve().parents[4]
    return root if (root / "pyproject.toml").is_file() and (root / "src" / "reasonforge").is_dir() else None


def _home() -> Path:
    return Path(os.environ.get("REASONFORGE_HOME") or Path.home() / ".reasonforge")


def _is_root() -> bool:
    return os.geteuid() == 0


def default_location() -> Path:
    """Where the sandbox's venv is looked for and built (module docstring)."""
    if env := os.environ.get(VENV_ENV):
        return Path(env)
    if (checkout := _checkout()) is not None:
        return checkout / ".sandbox-venv"
    return SHARED if _is_root() else _home() / "sandbox-venv"


def find_sandbox_env() -> Path | None:
    """The built venv (resolved: a checkout's link to /opt is followed), or None."""
    path = default_location()
    return path.resolve() if (path / "bin" / "python").exists() else None


def _traversable_by_nobody(path: Path) -> bool:
    """Whether the sandbox's uid can reach `path` (only root can ask the question by switching to it)."""
    if not _is_root() or shutil.which("setpriv") is None:
        return all(os.stat(p).st_mode & 0o001 for p in (path, *path.parents) if p.exists())
    probe = ["setpriv", f"--reuid={_NOBODY}", f"--regid={_NOBODY}", "--clear-groups", "test", "-x", str(path)]
    return subprocess.run(probe, capture_output=True, check=False).returncode == 0


def build_sandbox_env(path: Path | None = None) -> Path:
    """Build (or find up to date) the sandbox's venv at `path` (default: `default_location`); the venv's path.
    As root, a place nobody cannot traverse gets a link to /opt/reasonforge/sandbox-venv instead."""
    path = (Path(path) if path is not None else default_location()).absolute()
    if not BASE_PYTHON.exists():
        raise SandboxEnvError(f"{BASE_PYTHON} is missing: the sandbox runs Debian's python3 (apt-get install "
                              "python3 python3-venv)")
    path.parent.mkdir(parents=True, exist_ok=True)
    real = path
    if not _traversable_by_nobody(path.parent.resolve()):
        if not _is_root():
            raise SandboxEnvError(f"the sandbox's user cannot reach {path.parent}: set {VENV_ENV} to a path every "
                                  "user can traverse (a directory under /opt or /srv, say) and run this again")
        SHARED.parent.mkdir(parents=True, exist_ok=True)
        SHARED.parent.chmod(0o755)
        if path.is_symlink() or path.exists():
            if not path.is_symlink():
                shutil.rmtree(path)
            path.unlink(missing_ok=True)
        path.symlink_to(SHARED)
        real = SHARED
    stamp = real / _STAMP
    wanted = " ".join(REQUIREMENTS)
    if (real / "bin" / "python").exists() and stamp.is_file() and stamp.read_text().strip() == wanted:
        return real
    old_umask = os.umask(0o022)
    try:
        if not (real / "bin" / "python").exists():
            _run([str(BASE_PYTHON), "-m", "venv", str(real)], "create the venv")
        _run([str(real / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check",
              *REQUIREMENTS], "install the sandbox's requirements")
        _readable_by_all(real)
        stamp.write_text(wanted + "\n")
    finally:
        os.umask(old_umask)
    return real


def _readable_by_all(root: Path) -> None:
    """`chmod -R a+rX`: every file readable, every directory and executable traversable or runnable by all."""
    for item in (root, *root.rglob("*")):
        if item.is_symlink():
            continue
        mode = item.stat().st_mode
        item.chmod(mode | 0o444 | (0o111 if item.is_dir() or mode & 0o100 else 0))


def _run(argv: list[str], what: str) -> None:
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=_PIP_TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired:
        raise SandboxEnvError(f"could not {what}: no answer in {_PIP_TIMEOUT_S} s") from None
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        raise SandboxEnvError(f"could not {what} ({' '.join(argv[:3])} …): {' / '.join(tail)}")


if __name__ == "__main__":  # `make install`: python -m reasonforge.verify.sandbox.environment [PATH]
    try:
        print(build_sandbox_env(Path(sys.argv[1]) if len(sys.argv) > 1 else None))
    except SandboxEnvError as exc:
        print(f"error: {exc.message}", file=sys.stderr)
        sys.exit(1)
