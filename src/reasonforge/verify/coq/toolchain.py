"""Find the installed Coq (`coqc`), its standard library and what the sandbox must bind for it to run.

Nothing here is hard-coded: the library location comes from `coqc -where` and the version from
`coqc -print-version`, so a Coq outside /usr (opam, /opt) works once its directories are bound.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from dataclasses import dataclass

from reasonforge.errors import ToolUnavailableError

__all__ = ["CoqToolchain", "find_coq"]

# Directories the sandbox already shows read-only (see sandbox._bwrap); anything else is bound explicitly.
_SANDBOX_SYSTEM = ("/usr/", "/bin/", "/sbin/", "/lib/", "/lib64/")
# Coq 8.16 locates its plugins with findlib, which reads this file (Debian's path; $OCAMLFIND_CONF wins).
_FINDLIB_CONF = "/etc/ocamlfind.conf"


@dataclass(frozen=True)
class CoqToolchain:
    """A usable Coq: the compiler, its library, its version and the read-only binds it needs in the sandbox."""

    coqc: str
    coqlib: str
    version: str
    binds: tuple[tuple[str, str], ...]
    env: tuple[tuple[str, str], ...]


def _run(argv: list[str]) -> str:
    done = subprocess.run(argv, capture_output=True, text=True, timeout=30, check=False)
    if done.returncode != 0:
        raise ToolUnavailableError(f"`{' '.join(argv)}` failed (exit {done.returncode}): {done.stderr.strip()[:300]}")
    return done.stdout.strip()


@functools.cache
def find_coq(coqc: str | None = None) -> CoqToolchain:
    """Locate `coqc` (PATH, or the given path) and describe it; ToolUnavailableError names the fix."""
    path = shutil.which(coqc or "coqc")
    if path is None:
        raise ToolUnavailableError("coqc is not installed: install the Debian package `coq` (`make install` does) "
                                   "or put a Coq 8.16+ `coqc` on PATH")
    path = os.path.realpath(path)
    try:
        coqlib = os.path.realpath(_run([path, "-where"]))
        version = _run([path, "-print-version"]).split()[0]
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ToolUnavailableError(f"coqc at {path} does not run: {exc}") from exc
    binds: list[tuple[str, str]] = []
    for needed in (os.path.dirname(path), coqlib):
        if not needed.startswith(_SANDBOX_SYSTEM):
            binds.append((needed, needed))
    env: list[tuple[str, str]] = []
    conf = os.environ.get("OCAMLFIND_CONF") or (_FINDLIB_CONF if os.path.exists(_FINDLIB_CONF) else None)
    if conf:
        binds.append((conf, conf))
        env.append(("OCAMLFIND_CONF", conf))
    return CoqToolchain(coqc=path, coqlib=coqlib, version=version, binds=tuple(binds), env=tuple(env))
