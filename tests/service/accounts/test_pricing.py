"""The plan's PRICING table: base fee + steps × per-step (+ certificate fee), in credits."""

from __future__ import annotations

import pytest

from reasonforge.errors import InputError
from reasonforge.service.accounts import PRICING, quote_credits
from reasonforge.types import ProofLevel


def test_the_plans_worked_example_costs_eight_credits():
    # "10-step mathematical proof, formal level: $2.00 + (10 × $0.50) + $1.00 = $8.00"
    assert quote_credits(ProofLevel.FORMAL, 10, True) == 8.00
    assert quote_credits("formal", 10, False) == 7.00


@pytest.mark.parametrize(
    ("level", "steps", "certificate", "expected"),
    [
        ("standard", 10, True, 0.50 + 1.00 + 0.50),
        ("standard", 10, False, 1.50),
        ("quick", 10, True, 0.10 + 0.20 + 0.25),
        ("quick", 3, False, 0.16),
        ("quick", 0, False, 0.10),
        ("formal", 64, True, 2.00 + 32.00 + 1.00),
    ],
)
def test_every_level_follows_the_table(level, steps, certificate, expected):
    assert quote_credits(level, steps, certificate) == pytest.approx(expected, abs=1e-9)
    # Exact to the cent: no binary-float residue such as 0.30000000000000004.
    assert quote_credits(level, steps, certificate) == round(expected, 2)


def test_table_values_are_the_plans():
    assert {
        lvl.value: (float(p.per_step), float(p.base_fee), float(p.certificate_fee))
        for lvl, p in PRICING.items()
    } == {
        "formal": (0.50, 2.00, 1.00),
        "standard": (0.10, 0.50, 0.50),
        "quick": (0.02, 0.10, 0.25),
    }


@pytest.mark.parametrize(
    ("level", "steps"), [("turbo", 1), ("quick", -1), ("quick", 2.5), ("quick", True)]
)
def test_bad_quotes_are_input_errors(level, steps):
    with pytest.raises(InputError):
        quote_credits(level, steps, False)
