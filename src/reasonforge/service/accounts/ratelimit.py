"""Per-key rate limits: a token bucket in memory, or in Redis when several API processes share it."""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from typing import Protocol
from urllib.parse import urlsplit, urlunsplit

import redis

from reasonforge.errors import InputError
from reasonforge.service.errors import RateLimitedError, ServiceError
from reasonforge.service.settings import QueueKind, ServiceSettings


class RateLimiterUnavailableError(ServiceError):
    """The shared rate-limit store cannot be reached; requests are refused rather than left unlimited."""

    code = "rate_limiter_unavailable"
    status_code = 503


class RateLimiter(Protocol):
    """`check(key_id)` spends one request or raises RateLimitedError with Retry-After."""

    def check(self, key_id: str) -> None:
        """Spend one token of `key_id`'s bucket or raise RateLimitedError."""


def _limited(key_id: str, per_minute: int, retry_after_s: float) -> RateLimitedError:
    wait = max(1, math.ceil(retry_after_s))
    return RateLimitedError(
        f"rate limit of {per_minute} requests per minute exceeded for key rf_{key_id}; retry in {wait} s",
        retry_after_s=wait,
    )


class InMemoryRateLimiter:
    """Token bucket per key (capacity `per_minute`, refilled continuously), for one API process."""

    def __init__(
        self, per_minute: int, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        if per_minute < 1:
            raise ValueError("per_minute must be at least 1")
        self.per_minute = per_minute
        self._rate = per_minute / 60.0
        self._clock = clock
        self._lock = threading.Lock()
        self._buckets: dict[
            str, tuple[float, float]
        ] = {}  # key -> (tokens, last refill time)

    def check(self, key_id: str) -> None:
        """Spend one token of `key_id`'s bucket or raise RateLimitedError."""
        with self._lock:
            now = self._clock()
            tokens, last = self._buckets.get(key_id, (float(self.per_minute), now))
            tokens = min(float(self.per_minute), tokens + (now - last) * self._rate)
            if tokens >= 1.0:
                self._buckets[key_id] = (tokens - 1.0, now)
                self._forget_full(now)
                return
            self._buckets[key_id] = (tokens, now)
        raise _limited(key_id, self.per_minute, (1.0 - tokens) / self._rate)

    def _forget_full(self, now: float) -> None:
        # A bucket idle for a full minute is full again: dropping it loses nothing and bounds memory.
        if len(self._buckets) > 10_000:
            idle = 60.0
            self._buckets = {
                k: v for k, v in self._buckets.items() if now - v[1] < idle
            }


# Atomic token bucket; the Redis server's clock is the only clock, so API hosts need not agree.
_BUCKET_LUA = """
local capacity = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local state = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local tokens = tonumber(state[1])
local ts = tonumber(state[2])
if tokens == nil or ts == nil then
  tokens = capacity
  ts = now
end
tokens = math.min(capacity, tokens + math.max(0, now - ts) * rate)
local wait = 0
if tokens >= 1 then
  tokens = tokens - 1
else
  wait = math.ceil((1 - tokens) / rate)
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'ts', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(capacity / rate) + 1000)
return wait
"""


class RedisRateLimiter:
    """The same token bucket kept in Redis and updated by one Lua script, shared by every API process."""

    def __init__(
        self,
        redis_url: str,
        per_minute: int,
        *,
        namespace: str = "reasonforge:ratelimit",
    ) -> None:
        if per_minute < 1:
            raise ValueError("per_minute must be at least 1")
        self.per_minute = per_minute
        self._rate_per_ms = per_minute / 60_000.0
        self._namespace = namespace
        self._where = redact_url(redis_url)
        try:
            self._client = redis.Redis.from_url(
                redis_url, socket_timeout=2.0, socket_connect_timeout=2.0
            )
        except ValueError as exc:
            raise InputError(
                f"REASONFORGE_REDIS_URL {self._where!r} is not a Redis URL ({exc}); use redis://host:port/db",
                field="redis_url",
            ) from exc
        self._script = self._client.register_script(_BUCKET_LUA)

    def check(self, key_id: str) -> None:
        """Spend one token of `key_id`'s bucket or raise RateLimitedError."""
        try:
            wait_ms = int(
                self._script(
                    keys=[f"{self._namespace}:{key_id}"],
                    args=[self.per_minute, self._rate_per_ms],
                )
            )
        except redis.RedisError as exc:
            raise RateLimiterUnavailableError(
                f"the rate-limit store at {self._where} is unreachable ({exc.__class__.__name__}); "
                "check REASONFORGE_REDIS_URL and that redis-server is running"
            ) from exc
        if wait_ms > 0:
            raise _limited(key_id, self.per_minute, wait_ms / 1000.0)

    def close(self) -> None:
        """Close the Redis connection pool."""
        self._client.close()


def make_rate_limiter(settings: ServiceSettings) -> RateLimiter:
    """Redis-backed when the service is scaled out (queue=celery), in memory otherwise."""
    if settings.queue == QueueKind.CELERY:
        return RedisRateLimiter(settings.redis_url, settings.rate_limit_per_minute)
    return InMemoryRateLimiter(settings.rate_limit_per_minute)


def redact_url(url: str) -> str:
    """`url` without its password, for error messages."""
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    userinfo, _, hostport = parts.netloc.rpartition("@")
    user = userinfo.partition(":")[0]
    return urlunsplit(parts._replace(netloc=f"{user}:***@{hostport}"))
