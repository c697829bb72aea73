"""Accounts: API keys, scopes, tiers, the pricing table, the credits ledger and per-key rate limits."""

from reasonforge.service.accounts.credits import (
    UsageReport,
    grant_credits,
    reserve_credits,
    usage,
)
from reasonforge.service.accounts.keys import (
    ApiKeyRecord,
    Principal,
    Scope,
    authenticate,
    create_key,
    get_key,
    list_keys,
    require_scope,
    revoke_key,
)
from reasonforge.service.accounts.pricing import PRICING, Price, quote_credits
from reasonforge.service.accounts.ratelimit import (
    InMemoryRateLimiter,
    RateLimiter,
    RateLimiterUnavailableError,
    RedisRateLimiter,
    make_rate_limiter,
)
from reasonforge.service.accounts.tables import ApiKeyRow, CreditEntryRow
from reasonforge.service.accounts.tiers import (
    TIER_POLICIES,
    Tier,
    TierPolicy,
    policy_for,
)

__all__ = [
    "PRICING",
    "TIER_POLICIES",
    "ApiKeyRecord",
    "ApiKeyRow",
    "CreditEntryRow",
    "InMemoryRateLimiter",
    "Price",
    "Principal",
    "RateLimiter",
    "RateLimiterUnavailableError",
    "RedisRateLimiter",
    "Scope",
    "Tier",
    "TierPolicy",
    "UsageReport",
    "authenticate",
    "create_key",
    "get_key",
    "grant_credits",
    "list_keys",
    "make_rate_limiter",
    "policy_for",
    "quote_credits",
    "require_scope",
    "reserve_credits",
    "revoke_key",
    "usage",
]
