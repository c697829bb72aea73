"""Accounts: API keys, scopes, tiers, the pricing table, the credits ledger and per-key rate limits.

Names load their module on first use, so the `keys` CLI (registered on the main CLI) can take the
light modules (tiers, scopes) without the store's SQLAlchemy and Redis.
"""

from reasonforge.lazy import lazy_exports

_EXPORTS = {
    **dict.fromkeys(("UsageReport", "grant_credits", "reserve_credits", "usage"), "credits"),
    **dict.fromkeys(("ApiKeyRecord", "Principal", "authenticate", "create_key", "get_key", "list_keys",
                     "require_scope", "revoke_key"), "keys"),
    "Scope": "scopes",
    **dict.fromkeys(("PRICING", "Price", "quote_credits"), "pricing"),
    **dict.fromkeys(("InMemoryRateLimiter", "RateLimiter", "RateLimiterUnavailableError", "RedisRateLimiter",
                     "make_rate_limiter"), "ratelimit"),
    **dict.fromkeys(("ApiKeyRow", "CreditEntryRow"), "tables"),
    **dict.fromkeys(("TIER_POLICIES", "Tier", "TierPolicy", "policy_for"), "tiers"),
}

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

__getattr__ = lazy_exports(__name__, _EXPORTS)
