"""The credits ledger: tier quotas, balance checks, idempotent per-task charges, monthly usage."""

from __future__ import annotations

from datetime import UTC, datetime

from pydantic import BaseModel
from sqlalchemy import bindparam, func, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from reasonforge.errors import InputError
from reasonforge.service.accounts.keys import KEY_PREFIX, Principal, get_key
from reasonforge.service.accounts.pricing import (
    cents_to_credits,
    credits_to_cents,
    quote_cents,
)
from reasonforge.service.accounts.tables import ApiKeyRow, CreditEntryRow, utcnow
from reasonforge.service.accounts.tiers import Tier, TierPolicy, policy_for
from reasonforge.service.errors import (
    ConflictError,
    PaymentRequiredError,
    UnauthorizedError,
)
from reasonforge.types import ProofLevel

GRANT, CHARGE = "grant", "charge"
# far above any real grant, and small enough that summed balances stay inside the store's 64-bit integers
MAX_GRANT_CENTS = 10**14


class UsageReport(BaseModel):
    """One key's usage in one calendar month (UTC) and its current balance."""

    key_id: str
    tier: Tier
    month: str
    verifications: int
    included_used: int
    included_limit: int
    quoted_credits: float
    charged_credits: float
    balance_credits: float


def month_of(moment: datetime) -> str:
    """The ledger's month key, `YYYY-MM` in UTC."""
    return moment.astimezone(UTC).strftime("%Y-%m")


def reserve_credits(
    session: Session,
    principal: Principal,
    *,
    task_id: str,
    proof_level: ProofLevel | str,
    steps_total: int,
    certificate: bool,
    commit: bool = True,
    now: datetime | None = None,
) -> float:
    """Charge one verification to the key and return its list price in credits (`cost_credits`).

    Free keys may run quick verifications within their monthly allowance; pro keys use their
    allowance, then pay from the credit balance; enterprise keys are recorded, never refused.
    A task is charged at most once: calling again with the same task_id returns the first charge.
    `commit=False` only flushes, so the caller can commit the charge together with its job row.
    """
    if not isinstance(task_id, str) or not task_id or len(task_id) > 64:
        raise InputError(
            "task_id must be a non-empty string of at most 64 characters",
            field="task_id",
        )
    quoted = quote_cents(proof_level, steps_total, certificate)
    level = ProofLevel(proof_level)
    moment = now or utcnow()
    try:
        charged = _charge(
            session,
            principal.key_id,
            task_id,
            level,
            steps_total,
            bool(certificate),
            quoted,
            moment,
        )
    except BaseException:
        # Release the key's lock at once; with commit=False the caller owns the transaction.
        if commit:
            session.rollback()
        raise
    if commit:
        session.commit()
    return cents_to_credits(charged)


def _charge(
    session: Session,
    key_id: str,
    task_id: str,
    level: ProofLevel,
    steps_total: int,
    certificate: bool,
    quoted: int,
    moment: datetime,
) -> int:
    """Insert the charge line (or find the earlier one) and return its quoted cents."""
    tier = _lock_key(session, key_id)
    existing = session.connection().execute(_CHARGE_OF_TASK, {"b_task": task_id}).first()
    if existing is not None:
        if existing.key_id != key_id:
            raise ConflictError(
                f"task {task_id} is already charged to another key", field="task_id"
            )
        return existing.quoted_cents
    included, debit = _decide(
        session, key_id, tier, policy_for(tier), level, quoted, month_of(moment)
    )
    try:
        session.connection().execute(_INSERT_ENTRY, {
            "key_id": key_id, "kind": CHARGE, "task_id": task_id, "month": month_of(moment),
            "proof_level": level.value, "steps_total": steps_total, "certificate": certificate,
            "included": included, "quoted_cents": quoted, "amount_cents": -debit, "created_at": moment,
            "note": None,
        })
    except IntegrityError as exc:
        # Another transaction charged this task between our read and our insert.
        raise ConflictError(
            f"task {task_id} was charged concurrently; retry the request",
            field="task_id",
        ) from exc
    return quoted


def grant_credits(
    session: Session,
    key_id_or_prefix: str,
    amount: float | str,
    *,
    note: str | None = None,
) -> float:
    """Add credits to a key's balance (commits) and return the new balance."""
    cents = credits_to_cents(amount)
    if cents <= 0:
        raise InputError(
            f"grant amount must be positive, got {amount!r}", field="amount"
        )
    if cents > MAX_GRANT_CENTS:
        raise InputError(
            f"grant amount {amount!r} is above the most one grant may add "
            f"({MAX_GRANT_CENTS // 100} credits); grant less",
            field="amount",
        )
    row = get_key(session, key_id_or_prefix)
    moment = utcnow()
    session.add(
        CreditEntryRow(
            key_id=row.key_id,
            kind=GRANT,
            month=month_of(moment),
            amount_cents=cents,
            quoted_cents=0,
            included=False,
            note=note,
            created_at=moment,
        )
    )
    session.commit()
    return cents_to_credits(_balance_cents(session, row.key_id))


def usage(
    session: Session, key_id_or_prefix: str, *, month: str | None = None
) -> UsageReport:
    """Verifications, allowance used and credits of one key in `month` (`YYYY-MM`, default now)."""
    row = get_key(session, key_id_or_prefix)
    month = _check_month(month) if month is not None else month_of(utcnow())
    charges = (
        CreditEntryRow.key_id == row.key_id,
        CreditEntryRow.kind == CHARGE,
        CreditEntryRow.month == month,
    )
    count, quoted, debited = session.execute(
        select(
            func.count(CreditEntryRow.id),
            func.coalesce(func.sum(CreditEntryRow.quoted_cents), 0),
            func.coalesce(func.sum(CreditEntryRow.amount_cents), 0),
        ).where(*charges)
    ).one()
    tier = Tier(row.tier)
    return UsageReport(
        key_id=row.key_id,
        tier=tier,
        month=month,
        verifications=count,
        included_used=_included_used(session, row.key_id, month),
        included_limit=policy_for(tier).included_per_month,
        quoted_credits=cents_to_credits(quoted),
        charged_credits=cents_to_credits(-debited),
        balance_credits=cents_to_credits(_balance_cents(session, row.key_id)),
    )


_LOCK_KEY = (
    update(ApiKeyRow)
    .where(ApiKeyRow.key_id == bindparam("b_key"))
    .values(charge_seq=ApiKeyRow.charge_seq + 1)
    .returning(ApiKeyRow.tier, ApiKeyRow.revoked_at)
)
_CHARGE_OF_TASK = select(CreditEntryRow.key_id, CreditEntryRow.quoted_cents).where(
    CreditEntryRow.task_id == bindparam("b_task")
)
_INSERT_ENTRY = insert(CreditEntryRow)


def _lock_key(session: Session, key_id: str) -> Tier:
    """The key's tier, its row locked for this transaction's charge."""
    # A write first: it serialises concurrent charges of one key on every backend, and on SQLite it
    # takes the write lock before any read, so the transaction never has to upgrade a stale snapshot.
    # Prepared Core statements: this runs inside every submission's write transaction.
    row = session.connection().execute(_LOCK_KEY, {"b_key": key_id}).first()
    if row is None:
        raise UnauthorizedError(
            f"API key {KEY_PREFIX}{key_id} does not exist", field="authorization"
        )
    if row.revoked_at is not None:
        raise UnauthorizedError(
            f"API key {KEY_PREFIX}{key_id} was revoked", field="authorization"
        )
    return Tier(row.tier)


def _decide(
    session: Session,
    key_id: str,
    tier: Tier,
    policy: TierPolicy,
    level: ProofLevel,
    quoted: int,
    month: str,
) -> tuple[bool, int]:
    """(counts against the allowance, cents debited from the balance), or PaymentRequiredError."""
    if level not in policy.allowed_levels:
        allowed = ", ".join(sorted(lv.value for lv in policy.allowed_levels))
        raise PaymentRequiredError(
            f"the {tier.value} tier allows {allowed} verifications only "
            f"({policy.included_per_month} a month); this request asks for proof_level {level.value!r}. "
            f"Resubmit with proof_level 'quick' or use a pro or enterprise key.",
            field="proof_level",
        )
    if policy.unmetered:
        return False, 0
    if level in policy.included_levels:
        used = _included_used(session, key_id, month)
        if used < policy.included_per_month:
            return True, 0
        if not policy.charges_overage:
            raise PaymentRequiredError(
                f"the {tier.value} tier's {policy.included_per_month} {level.value} verifications for {month} "
                f"are used up; the allowance renews on {_next_month(month)}-01 (UTC), or upgrade the key "
                f"to the pro tier",
                field="proof_level",
            )
    balance = _balance_cents(session, key_id)
    if balance < quoted:
        reason = (
            f"the {policy.included_per_month} included verifications for {month} are used"
            if level in policy.included_levels
            else f"{level.value} verifications are not included in the {tier.value} tier"
        )
        raise PaymentRequiredError(
            f"this {level.value} verification costs {cents_to_credits(quoted):.2f} credits ({reason}) and key "
            f"{KEY_PREFIX}{key_id} has {cents_to_credits(balance):.2f}; add credits with "
            f"`reasonforge keys grant {key_id} AMOUNT`",
            field="proof_level",
        )
    return False, quoted


# scalar_one: an aggregate without GROUP BY always returns exactly one row.
def _included_used(session: Session, key_id: str, month: str) -> int:
    return session.execute(
        select(func.count(CreditEntryRow.id)).where(
            CreditEntryRow.key_id == key_id,
            CreditEntryRow.kind == CHARGE,
            CreditEntryRow.month == month,
            CreditEntryRow.included.is_(True),
        )
    ).scalar_one()


def _balance_cents(session: Session, key_id: str) -> int:
    return session.execute(
        select(func.coalesce(func.sum(CreditEntryRow.amount_cents), 0)).where(
            CreditEntryRow.key_id == key_id
        )
    ).scalar_one()


def _check_month(month: str) -> str:
    try:
        datetime.strptime(month, "%Y-%m")
    except (TypeError, ValueError) as exc:
        raise InputError(
            f"month must look like 2026-05, got {month!r}", field="month"
        ) from exc
    return month


def _next_month(month: str) -> str:
    year, mon = (int(part) for part in month.split("-"))
    return f"{year + mon // 12:04d}-{mon % 12 + 1:02d}"
