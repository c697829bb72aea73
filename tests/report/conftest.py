"""Verdicts of the shipped examples, one of each overall verdict, computed once per session."""

from __future__ import annotations

from pathlib import Path

import pytest

from reasonforge.chain import parse_request
from reasonforge.pipeline.run import verify_chain
from reasonforge.types import VerificationVerdict, VerifyRequest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
# One chain per overall verdict: VERIFIED (logic), PARTIAL (an arithmetic slip and its cascade), FAILED (code).
CHAINS = {"VERIFIED": "whale.json", "PARTIAL": "arithmetic-slip.json", "FAILED": "frequency-count-off-by-one.json"}


@pytest.fixture(scope="session")
def verdicts() -> dict[str, tuple[VerifyRequest, VerificationVerdict]]:
    """overall → (request, verdict) of its example chain."""
    out = {}
    for overall, name in CHAINS.items():
        request = parse_request((EXAMPLES / name).read_bytes())
        verdict = verify_chain(request)
        assert verdict.overall.value == overall, (name, verdict.overall)
        out[overall] = (request, verdict)
    return out
