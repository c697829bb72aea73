"""Shared by the SDK tests: example chains and a live `reasonforge serve` from the service suite's helpers."""

from __future__ import annotations

import contextlib
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

# One way to start the service for every suite: tests/service/servers.py (plain context managers).
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "service"))

from servers import ServerUnavailable, ServiceHandle, running_service

PYTHAGORAS = {
    "reasoning_chain": [
        {"step_id": 1, "content": "Let x = 3 and y = 4"},
        {"step_id": 2, "content": "By Pythagorean theorem, x² + y² = z²"},
        {"step_id": 3, "content": "So z² = 9 + 16 = 25"},
        {"step_id": 4, "content": "Therefore z = 5"},
    ],
    "domain": "mathematics",
    "original_query": "Find the hypotenuse of a right triangle with legs 3 and 4",
    "claimed_answer": "z = 5",
}

PENCILS = {
    "reasoning_chain": [
        "Three packs of 12 pencils hold 3 × 12 = 36 pencils.",
        "After giving away 9 he has 36 - 9 = 27 pencils.",
        "Two more packs bring him to 27 + 2 × 12 = 53 pencils.",
        "So Tom has 53 pencils.",
    ],
    "domain": "mathematics",
    "original_query": "Tom buys 3 packs of 12 pencils, gives away 9 pencils, then buys 2 more packs. "
    "How many pencils does he have?",
    "claimed_answer": "53",
}


@contextlib.contextmanager
def live_service(home: Path, **kwargs) -> Iterator[ServiceHandle]:
    """`running_service`, with a start-up failure reported as a test failure with its reason."""
    try:
        with running_service(home, **kwargs) as handle:
            yield handle
    except ServerUnavailable as exc:
        pytest.fail(str(exc), pytrace=False)


def seeded_home(request: pytest.FixtureRequest, home: Path) -> Path:
    """`home` holding the reduced certificate circuit's keys, built once and cached across runs.

    The cache is the certificate suite's own, so `make test` compiles and sets it up only once.
    """
    from reasonforge.certificate.params import SMALL
    from reasonforge.certificate.prover import ensure_keys

    cache = getattr(request.config, "cache", None)
    base = (
        Path(cache.mkdir("reasonforge-certificate"))
        if cache
        else home.parent / "certificate-cache"
    )
    keys = ensure_keys(SMALL, base / "home" / "certificate" / "keys")
    shutil.copytree(keys.folder, home / "certificate" / "keys" / SMALL.name)
    return home
