"""Tiers and the credits ledger: free quota (402), pro allowance then balance, enterprise unmetered,
idempotent charges per task, monthly usage, and quota checks that hold under concurrency."""

from __future__ import annotations

import threading
from datetime import UTC, datetime

import pytest

from reasonforge.errors import InputError
from reasonforge.service.accounts import (
    CreditEntryRow,
    Tier,
    authenticate,
    create_key,
    grant_credits,
    reserve_credits,
    revoke_key,
    usage,
)
from reasonforge.service.errors import (
    ConflictError,
    PaymentRequiredError,
    UnauthorizedError,
)

MAY = datetime(2026, 5, 14, 12, 0, tzinfo=UTC)
JUNE = datetime(2026, 6, 1, 0, 0, tzinfo=UTC)


def _principal(sessions, tier):
    with sessions() as s:
        plaintext, _ = create_key(s, f"{tier}-user", tier=tier)
        return authenticate(s, f"Bearer {plaintext}")


def _reserve(
    sessions, principal, task_id, level="quick", steps=10, certificate=False, now=MAY
):
    with sessions() as s:
        return reserve_credits(
            s,
            principal,
            task_id=task_id,
            proof_level=level,
            steps_total=steps,
            certificate=certificate,
            now=now,
        )


def test_free_tier_gets_50_quick_verifications_a_month_then_402(sessions):
    free = _principal(sessions, Tier.FREE)
    for i in range(50):
        assert _reserve(sessions, free, f"t{i}") == 0.30  # list price: 0.10 + 10 × 0.02
    with pytest.raises(PaymentRequiredError) as info:
        _reserve(sessions, free, "t50")
    err = info.value
    assert err.status_code == 402 and err.body()["error"]["code"] == "payment_required"
    assert (
        "50 quick verifications for 2026-05 are used up" in err.message
        and "2026-06-01" in err.message
    )
    # A new month brings a new allowance.
    assert _reserve(sessions, free, "t-june", now=JUNE) == 0.30
    with sessions() as s:
        may = usage(s, free.key_id, month="2026-05")
    assert (may.verifications, may.included_used, may.included_limit) == (50, 50, 50)
    assert (
        may.quoted_credits == 15.00
        and may.charged_credits == 0
        and may.balance_credits == 0
    )


@pytest.mark.parametrize("level", ["standard", "formal"])
def test_free_tier_refuses_other_levels_with_a_message_saying_what_it_allows(
    sessions, level
):
    free = _principal(sessions, Tier.FREE)
    with pytest.raises(PaymentRequiredError) as info:
        _reserve(sessions, free, "t1", level=level)
    assert (
        "free tier allows quick verifications only (50 a month)" in info.value.message
    )
    assert repr(level) in info.value.message and info.value.field == "proof_level"
    with sessions() as s:
        assert (
            usage(s, free.key_id, month="2026-05").verifications == 0
        )  # nothing was charged


def test_pro_tier_uses_its_allowance_then_the_credit_balance(sessions):
    pro = _principal(sessions, Tier.PRO)
    # Formal is never included: with no balance it is refused, naming the cost and the fix.
    with pytest.raises(PaymentRequiredError) as info:
        _reserve(sessions, pro, "f1", level="formal", certificate=True)
    assert (
        "costs 8.00 credits" in info.value.message
        and "keys grant" in info.value.message
    )
    with sessions() as s:
        assert grant_credits(s, pro.key_id, "10") == 10.00
    assert _reserve(sessions, pro, "f1", level="formal", certificate=True) == 8.00
    assert (
        _reserve(sessions, pro, "s1", level="standard") == 1.50
    )  # included: balance untouched
    with sessions() as s:
        report = usage(s, pro.key_id, month="2026-05")
    assert report.balance_credits == 2.00 and report.charged_credits == 8.00
    assert report.included_used == 1 and report.included_limit == 500
    assert report.quoted_credits == 9.50 and report.verifications == 2


def test_pro_tier_pays_from_the_balance_after_500_included(sessions):
    pro = _principal(sessions, Tier.PRO)
    with sessions() as s:
        # 499 earlier standard jobs this month, written straight to the ledger to save time ...
        s.add_all(
            CreditEntryRow(
                key_id=pro.key_id,
                kind="charge",
                task_id=f"s{i}",
                month="2026-05",
                proof_level="standard",
                steps_total=1,
                certificate=False,
                included=True,
                quoted_cents=60,
                amount_cents=0,
            )
            for i in range(1, 500)
        )
        s.commit()
        # ... and the 500th through the real path, committed by the caller with its job row.
        cost = reserve_credits(
            s,
            pro,
            task_id="s0",
            proof_level="standard",
            steps_total=1,
            certificate=False,
            now=MAY,
            commit=False,
        )
        s.commit()
    assert cost == 0.60
    with pytest.raises(
        PaymentRequiredError, match="500 included verifications for 2026-05 are used"
    ):
        _reserve(sessions, pro, "s500", level="standard", steps=1)
    with sessions() as s:
        grant_credits(s, pro.key_id, 1)
    assert _reserve(sessions, pro, "s500", level="standard", steps=1) == 0.60
    with sessions() as s:
        report = usage(s, pro.key_id, month="2026-05")
    assert report.included_used == 500 and report.verifications == 501
    assert report.balance_credits == 0.40


def test_enterprise_is_unmetered_but_recorded(sessions):
    ent = _principal(sessions, Tier.ENTERPRISE)
    for i in range(3):
        assert (
            _reserve(sessions, ent, f"e{i}", level="formal", certificate=True) == 8.00
        )
    with sessions() as s:
        report = usage(s, ent.key_id, month="2026-05")
    assert report.verifications == 3 and report.quoted_credits == 24.00
    assert report.charged_credits == 0 and report.balance_credits == 0


def test_a_task_is_charged_once(sessions):
    pro = _principal(sessions, Tier.PRO)
    with sessions() as s:
        grant_credits(s, pro.key_id, 20)
    assert _reserve(sessions, pro, "job-1", level="formal", certificate=True) == 8.00
    # A retried submission (at-least-once delivery) returns the first charge, even if its
    # parameters were to differ, and the balance is debited once.
    assert _reserve(sessions, pro, "job-1", level="formal", certificate=True) == 8.00
    assert _reserve(sessions, pro, "job-1", level="quick") == 8.00
    with sessions() as s:
        report = usage(s, pro.key_id, month="2026-05")
    assert report.verifications == 1 and report.balance_credits == 12.00
    other = _principal(sessions, Tier.ENTERPRISE)
    with pytest.raises(ConflictError, match="another key"):
        _reserve(sessions, other, "job-1")


def test_revoked_key_cannot_be_charged(sessions):
    free = _principal(sessions, Tier.FREE)
    with sessions() as s:
        revoke_key(s, free.key_id)
    with pytest.raises(UnauthorizedError, match="revoked"):
        _reserve(sessions, free, "t1")


def test_failed_reservation_leaves_the_session_usable(sessions):
    free = _principal(sessions, Tier.FREE)
    with sessions() as s:
        with pytest.raises(PaymentRequiredError):
            reserve_credits(
                s,
                free,
                task_id="x",
                proof_level="formal",
                steps_total=1,
                certificate=False,
            )
        # The lock taken for the check was released: the same session can go on charging.
        assert (
            reserve_credits(
                s,
                free,
                task_id="y",
                proof_level="quick",
                steps_total=1,
                certificate=False,
            )
            == 0.12
        )


def test_concurrent_reservations_never_exceed_the_quota(sessions):
    free = _principal(sessions, Tier.FREE)
    outcomes: list[str] = []
    lock = threading.Lock()
    start = threading.Barrier(8)

    def worker(n: int) -> None:
        start.wait()
        for i in range(10):
            try:
                _reserve(sessions, free, f"w{n}-{i}")
                result = "ok"
            except PaymentRequiredError:
                result = "402"
            with lock:
                outcomes.append(result)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert outcomes.count("ok") == 50 and outcomes.count("402") == 30
    with sessions() as s:
        assert usage(s, free.key_id, month="2026-05").verifications == 50


@pytest.mark.parametrize("amount", ["0", "-5", "1.234", "nan", "lots"])
def test_bad_grants_are_input_errors(sessions, amount):
    pro = _principal(sessions, Tier.PRO)
    with sessions() as s, pytest.raises(InputError):
        grant_credits(s, pro.key_id, amount)


def test_usage_month_must_be_well_formed(sessions):
    pro = _principal(sessions, Tier.PRO)
    with sessions() as s, pytest.raises(InputError, match="2026-05"):
        usage(s, pro.key_id, month="May")
