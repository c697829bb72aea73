"""Every adversarial case (tests/adversarial/cases) is run and must not get the verdict it was written to obtain."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
from adversarial import load_cases, run_case

CASES = load_cases()


def test_the_corpus_is_large_enough() -> None:
    assert len(CASES) >= 600, f"the corpus holds {len(CASES)} cases; the issue asks for at least 600"


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_case(case: dict) -> None:
    ok, got = run_case(case)
    assert ok, f"{case['source']} ({case.get('why', '')}): {got}"
