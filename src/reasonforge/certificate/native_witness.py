"""circom's C++ witness generator: the same witness as the WASM one for about a tenth of the CPU.

At full size (32 steps, 16 validators) the WASM calculator under Node takes about 1.3 CPU-s per
witness (a fresh Node process compiles and tiers up 3.6 MB of WASM each time); the C++ one takes
about 0.13 s and writes a byte-identical .wtns. Its field arithmetic is x86-64 assembly linked
against GMP, so it is built only where those tools exist; elsewhere the WASM path stays in use.
"""

from __future__ import annotations

import platform
import shutil
import subprocess
import sys
from pathlib import Path

from reasonforge.certificate.toolchain import ToolchainError

# Debian packages that provide what the generated code needs (scripts/install-system.sh installs them).
PACKAGES = "g++ nasm libgmp-dev nlohmann-json3-dev"
SOURCE_DIR = "main_c_cpp"  # circom2 --c renames a circuit called main to main_c (a C++ name clash)
BINARY = "main_c"  # circom's main.cpp reads the constants from "<its own path>.dat"
_HEADER_PROBE = "#include <gmp.h>\n#include <nlohmann/json.hpp>\n"


def unavailable_reason() -> str | None:
    """Why the C++ witness generator cannot be built on this host, or None when it can."""
    if sys.platform != "linux" or platform.machine() not in ("x86_64", "AMD64"):
        return f"circom's C++ field arithmetic is x86-64 assembly; this host is {sys.platform}/{platform.machine()}"
    missing = [tool for tool in ("g++", "nasm") if shutil.which(tool) is None]
    if missing:
        return f"{' and '.join(missing)} not installed (Debian packages: {PACKAGES})"
    probe = subprocess.run(
        ["g++", "-E", "-x", "c++", "-", "-o", "/dev/null"], input=_HEADER_PROBE, capture_output=True, text=True,
        check=False,
    )
    if probe.returncode != 0:
        return f"GMP or nlohmann-json headers missing (Debian packages: {PACKAGES})"
    return None


def build(folder: Path, *, timeout: float = 1800) -> Path:
    """Compile the C++ that circom --c wrote under `folder`; return the generator's path."""
    src = folder / SOURCE_DIR
    if not (src / "main.cpp").exists():
        raise ToolchainError(f"{src}: no circom --c output to build")
    # -O0: the generated code spends its time in the assembly field operations, so optimising the
    # C++ halves nothing measurable (0.12 s either way at full size) but doubles the compile time.
    steps = [["nasm", "-felf64", "fr.asm", "-o", "fr_asm.o"]]
    objects = ["fr_asm.o"]
    for unit in ("main", "calcwit", "fr", "main_c"):
        steps.append(["g++", "-c", f"{unit}.cpp", "-std=c++11", "-O0", "-I.", "-o", f"{unit}.o"])
        objects.append(f"{unit}.o")
    # fr.asm carries no .note.GNU-stack section; without -z noexecstack the linker makes the stack executable.
    steps.append(["g++", "-o", BINARY, *objects, "-lgmp", "-Wl,-z,noexecstack"])
    for argv in steps:
        proc = subprocess.run(argv, cwd=src, capture_output=True, text=True, timeout=timeout, check=False)
        if proc.returncode != 0:
            raise ToolchainError(f"building the C++ witness generator: {' '.join(argv)} failed: {proc.stderr[-2000:]}")
    for leftover in src.glob("*.o"):
        leftover.unlink()
    return src / BINARY


def binary(folder: Path) -> Path | None:
    """The built generator for a circuit folder, if there is one."""
    path = folder / SOURCE_DIR / BINARY
    return path if path.exists() and (folder / SOURCE_DIR / f"{BINARY}.dat").exists() else None


def compute(generator: Path, input_json: Path, wtns: Path, *, timeout: float = 300) -> None:
    """Run the generator on an input file; raise with its message when the inputs are rejected."""
    proc = subprocess.run(
        [str(generator), str(input_json), str(wtns)], capture_output=True, text=True, timeout=timeout, check=False
    )
    if proc.returncode != 0 or not wtns.exists():
        message = (proc.stderr.strip() or proc.stdout.strip())[-2000:]
        raise ToolchainError(f"witness generation failed (exit {proc.returncode}): {message}")
