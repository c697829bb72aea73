"""The bubblewrap sandbox every piece of untrusted code runs in (DESIGN §3.4)."""

from reasonforge.verify.sandbox.environment import SandboxEnvError, build_sandbox_env
from reasonforge.verify.sandbox.runner import (
    INNER_UID,
    WORK_DIR,
    Limits,
    SandboxResult,
    SandboxUnavailable,
    run_sandboxed,
    sandbox_python,
    sandbox_venv,
    unavailable_reason,
)

__all__ = [
    "INNER_UID", "WORK_DIR", "Limits", "SandboxEnvError", "SandboxResult", "SandboxUnavailable", "build_sandbox_env",
    "run_sandboxed", "sandbox_python", "sandbox_venv", "unavailable_reason",
]
