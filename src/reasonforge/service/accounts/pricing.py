"""The plan's PRICING table in credits (1 credit = $1): base fee + steps × per-step + certificate fee."""

from __future__ import annotations

from decimal import Decimal

from pydantic import BaseModel

from reasonforge.errors import InputError
from reasonforge.types import ProofLevel


class Price(BaseModel):
    """One row of the plan's PRICING table, exact decimals so sums never drift."""

    per_step: Decimal
    base_fee: Decimal
    certificate_fee: Decimal


PRICING: dict[ProofLevel, Price] = {
    ProofLevel.FORMAL: Price(
        per_step=Decimal("0.50"),
        base_fee=Decimal("2.00"),
        certificate_fee=Decimal("1.00"),
    ),
    ProofLevel.STANDARD: Price(
        per_step=Decimal("0.10"),
        base_fee=Decimal("0.50"),
        certificate_fee=Decimal("0.50"),
    ),
    ProofLevel.QUICK: Price(
        per_step=Decimal("0.02"),
        base_fee=Decimal("0.10"),
        certificate_fee=Decimal("0.25"),
    ),
}

_CENT = Decimal("0.01")


def quote_cents(
    proof_level: ProofLevel | str, steps_total: int, certificate: bool
) -> int:
    """The price in hundredths of a credit (the ledger's unit)."""
    level = _level(proof_level)
    if (
        isinstance(steps_total, bool)
        or not isinstance(steps_total, int)
        or steps_total < 0
    ):
        raise InputError(
            f"steps_total must be a non-negative integer, got {steps_total!r}",
            field="steps_total",
        )
    price = PRICING[level]
    total = (
        price.base_fee
        + price.per_step * steps_total
        + (price.certificate_fee if certificate else Decimal(0))
    )
    return int((total / _CENT).to_integral_value())


def quote_credits(
    proof_level: ProofLevel | str, steps_total: int, certificate: bool
) -> float:
    """Credits a verification costs at list price: base + steps × per_step (+ certificate fee)."""
    return cents_to_credits(quote_cents(proof_level, steps_total, certificate))


def cents_to_credits(cents: int) -> float:
    """Ledger cents as a float credit amount with two decimals."""
    return float(Decimal(cents) * _CENT)


def credits_to_cents(amount: float | str | Decimal) -> int:
    """A credit amount with at most two decimals as ledger cents; anything finer is an error."""
    try:
        value = Decimal(str(amount))
    except ArithmeticError as exc:
        raise InputError(
            f"credit amount {amount!r} is not a number", field="amount"
        ) from exc
    try:
        exact = value.is_finite() and value == value.quantize(_CENT)
    except ArithmeticError:  # quantize cannot represent amounts beyond the decimal context's precision
        exact = False
    if not exact:
        raise InputError(
            f"credit amount {amount!r} must be finite with at most two decimals",
            field="amount",
        )
    return int(value / _CENT)


def _level(proof_level: ProofLevel | str) -> ProofLevel:
    try:
        return ProofLevel(proof_level)
    except ValueError as exc:
        allowed = ", ".join(level.value for level in ProofLevel)
        raise InputError(
            f"unknown proof_level {proof_level!r}; use one of {allowed}",
            field="proof_level",
        ) from exc
