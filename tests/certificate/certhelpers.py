"""Helpers shared by the certificate tests."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from reasonforge.certificate import toolchain
from reasonforge.types import VerificationVerdict

HERE = Path(__file__).resolve().parent


def require_node_tools() -> None:
    """Skip when Node or the npm packages are missing (they come from `make install`)."""
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    try:
        toolchain.node_modules()
    except toolchain.ToolchainError as exc:
        pytest.skip(exc.message)


def load_verdict(name: str = "pythagoras") -> VerificationVerdict:
    """A verdict printed by `reasonforge verify --json` for an example chain."""
    return VerificationVerdict.model_validate_json((HERE / f"{name}.verdict.json").read_text())
