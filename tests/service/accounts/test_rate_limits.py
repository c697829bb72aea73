"""Per-key rate limits: 429 with Retry-After, in memory and shared through a real redis-server."""

from __future__ import annotations

import socket
import threading

import pytest

from reasonforge.service.accounts import (
    InMemoryRateLimiter,
    RateLimiterUnavailableError,
    RedisRateLimiter,
    make_rate_limiter,
)
from reasonforge.service.errors import RateLimitedError
from reasonforge.service.settings import ServiceSettings


class Clock:
    """A clock the test moves by hand, so refill maths is checked exactly."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_in_memory_bucket_allows_the_rate_then_429_with_retry_after():
    clock = Clock()
    limiter = InMemoryRateLimiter(6, clock=clock)  # 6 a minute: one token every 10 s
    for _ in range(6):
        limiter.check("abc")
    with pytest.raises(RateLimitedError) as info:
        limiter.check("abc")
    err = info.value
    assert (
        err.status_code == 429
        and err.headers == {"Retry-After": "10"}
        and err.retry_after_s == 10
    )
    assert "6 requests per minute" in err.message and "rf_abc" in err.message
    limiter.check("other")  # buckets are per key
    clock.now += 4
    with pytest.raises(RateLimitedError) as info:
        limiter.check("abc")
    assert info.value.retry_after_s == 6
    clock.now += 6
    limiter.check("abc")
    clock.now += 600  # a long pause refills only up to the capacity
    for _ in range(6):
        limiter.check("abc")
    with pytest.raises(RateLimitedError):
        limiter.check("abc")


def test_in_memory_bucket_is_thread_safe():
    limiter = InMemoryRateLimiter(50, clock=Clock())
    allowed = []

    def hammer() -> None:
        for _ in range(20):
            try:
                limiter.check("k")
                allowed.append(1)
            except RateLimitedError:
                pass

    threads = [threading.Thread(target=hammer) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(allowed) == 50


def test_redis_bucket_is_shared_by_api_processes(fresh_redis_url):
    first = RedisRateLimiter(fresh_redis_url, 4)
    second = RedisRateLimiter(fresh_redis_url, 4)  # another API process, same Redis
    try:
        for limiter in (first, second, first, second):
            limiter.check("abc")
        for limiter in (first, second):
            with pytest.raises(RateLimitedError) as info:
                limiter.check("abc")
            # One token every 15 s; Redis' clock has moved a little since the bucket emptied.
            assert 1 <= info.value.retry_after_s <= 15
            assert info.value.headers["Retry-After"] == str(info.value.retry_after_s)
        second.check("xyz")
    finally:
        first.close()
        second.close()


def test_redis_bucket_is_atomic_under_concurrency(fresh_redis_url):
    limiters = [RedisRateLimiter(fresh_redis_url, 30) for _ in range(4)]
    allowed = []

    def hammer(limiter: RedisRateLimiter) -> None:
        for _ in range(25):
            try:
                limiter.check("busy")
                allowed.append(1)
            except RateLimitedError:
                pass

    threads = [
        threading.Thread(target=hammer, args=(lim,))
        for lim in limiters
        for _ in range(2)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for lim in limiters:
        lim.close()
    # 200 attempts within well under 2 s: the 30-token bucket plus at most one refilled token.
    assert 30 <= len(allowed) <= 31


def test_unreachable_redis_is_a_503_not_an_unlimited_service():
    with socket.socket() as sock:  # bound, never listening: refused, and held so no other test takes the port
        sock.bind(("127.0.0.1", 0))
        limiter = RedisRateLimiter(f"redis://:hunter2@127.0.0.1:{sock.getsockname()[1]}/0", 10)
        with pytest.raises(RateLimiterUnavailableError) as info:
            limiter.check("abc")
    assert info.value.status_code == 503 and "unreachable" in info.value.message
    assert "hunter2" not in info.value.message  # the password is redacted


def test_factory_follows_the_queue_setting(fresh_redis_url):
    embedded = make_rate_limiter(ServiceSettings(rate_limit_per_minute=7))
    assert isinstance(embedded, InMemoryRateLimiter) and embedded.per_minute == 7
    scaled = make_rate_limiter(
        ServiceSettings(
            queue="celery", redis_url=fresh_redis_url, rate_limit_per_minute=2
        )
    )
    assert isinstance(scaled, RedisRateLimiter)
    scaled.check("k")
    scaled.check("k")
    with pytest.raises(RateLimitedError):
        scaled.check("k")
    scaled.close()
