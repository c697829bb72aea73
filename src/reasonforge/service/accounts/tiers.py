"""Account tiers and what each one includes (the plan's free / pro / enterprise)."""

from __future__ import annotations

from enum import Enum

from pydantic import BaseModel

from reasonforge.types import ProofLevel


class Tier(str, Enum):
    """A key's plan: what it may run and how it is charged."""

    FREE = "free"
    PRO = "pro"
    ENTERPRISE = "enterprise"


class TierPolicy(BaseModel):
    """Allowed proof levels, the monthly allowance, and whether anything beyond it is charged."""

    allowed_levels: frozenset[ProofLevel]
    included_levels: frozenset[ProofLevel]
    included_per_month: int
    charges_overage: bool
    unmetered: bool = False


_ALL_LEVELS = frozenset(ProofLevel)

TIER_POLICIES: dict[Tier, TierPolicy] = {
    # The plan: "Free tier: 50 quick verifications per month" and nothing else.
    Tier.FREE: TierPolicy(
        allowed_levels=frozenset({ProofLevel.QUICK}),
        included_levels=frozenset({ProofLevel.QUICK}),
        included_per_month=50,
        charges_overage=False,
    ),
    # "Pro tier: 500 standard verifications included"; quick is a lighter standard, so it counts
    # against the same allowance; formal and anything past 500 are paid from the credit balance.
    Tier.PRO: TierPolicy(
        allowed_levels=_ALL_LEVELS,
        included_levels=frozenset({ProofLevel.QUICK, ProofLevel.STANDARD}),
        included_per_month=500,
        charges_overage=True,
    ),
    # "Enterprise tier: custom pricing": usage is recorded at list price and invoiced, never refused.
    Tier.ENTERPRISE: TierPolicy(
        allowed_levels=_ALL_LEVELS,
        included_levels=frozenset(),
        included_per_month=0,
        charges_overage=False,
        unmetered=True,
    ),
}


def policy_for(tier: Tier) -> TierPolicy:
    """The policy of `tier`."""
    return TIER_POLICIES[tier]
