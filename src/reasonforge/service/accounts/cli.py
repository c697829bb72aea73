"""`reasonforge keys …`: create, list, revoke API keys; grant credits; show usage and webhook secrets."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Annotated

import typer
from pydantic import ValidationError
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from reasonforge.cli_errors import ReasonForgeTyper, fail
from reasonforge.service.accounts.scopes import Scope
from reasonforge.service.accounts.tiers import Tier
from reasonforge.service.settings import ServiceSettings

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

# The store (SQLAlchemy, Redis) is imported inside the commands: this app is registered on the main
# CLI, and every `reasonforge` invocation would otherwise pay about half a second to load it.

keys_app = ReasonForgeTyper(
    help="API keys of the verification service: create, list, revoke, credits.",
    no_args_is_help=True,
)
err = Console(stderr=True, highlight=False, soft_wrap=True)


def _settings() -> ServiceSettings:
    try:
        return ServiceSettings()
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(part) for part in first["loc"])
        raise fail(f"bad setting REASONFORGE_{field.upper()}: {first['msg']}") from exc


@contextmanager
def _store(settings: ServiceSettings | None = None) -> Iterator[Session]:
    """A session on the service's store (tables created if needed); store errors end the command."""
    from sqlalchemy.exc import SQLAlchemyError

    from reasonforge.service.accounts.ratelimit import redact_url
    from reasonforge.service.db import create_tables, make_engine, make_sessionmaker

    settings = settings or _settings()
    url = settings.resolved_database_url()
    try:
        engine = make_engine(url)
    except SQLAlchemyError as exc:
        raise fail(f"cannot use the store at {redact_url(url)}: {str(exc).splitlines()[0]}; check "
                   "REASONFORGE_DATABASE_URL (e.g. sqlite:///path/service.db or postgresql://...)") from exc
    except OSError as exc:
        raise fail(f"cannot create the store at {redact_url(url)}: {exc.strerror or exc} ({exc.filename}); "
                   "point REASONFORGE_HOME or REASONFORGE_DATABASE_URL at a writable directory") from exc
    try:
        create_tables(engine)
        with make_sessionmaker(engine)() as session:
            yield session
    except SQLAlchemyError as exc:
        reason = str(getattr(exc, "orig", None) or exc).splitlines()[0]
        raise fail(f"cannot use the store at {redact_url(url)}: {reason}") from exc
    finally:
        engine.dispose()


@keys_app.command("create")
def create_cmd(
    name: Annotated[
        str, typer.Option("--name", "-n", help="Who or what the key is for.")
    ],
    tier: Annotated[
        Tier, typer.Option("--tier", help="Plan: free, pro or enterprise.")
    ] = Tier.FREE,
    scope: Annotated[
        list[Scope] | None,
        typer.Option("--scope", help="Repeat for several (default: verify and read)."),
    ] = None,
) -> None:
    """Create a key and print it on stdout (only the key; it is shown once)."""
    from reasonforge.service.accounts.keys import create_key

    scopes = (
        [s.value for s in scope] if scope else [Scope.VERIFY.value, Scope.READ.value]
    )
    with _store() as session:
        plaintext, record = create_key(session, name, scopes=scopes, tier=tier)
    print(plaintext)
    err.print(
        f"created {record.prefix} ({escape(record.name)}, tier {record.tier.value}, scopes "
        f"{', '.join(record.scopes)}); store it now: only its hash is kept"
    )


@keys_app.command("list")
def list_cmd(
    as_json: Annotated[
        bool, typer.Option("--json", help="One JSON array of key records.")
    ] = False,
) -> None:
    """List every key (never the secrets)."""
    from reasonforge.service.accounts.keys import list_keys

    with _store() as session:
        records = list_keys(session)
    if as_json:
        print(
            json.dumps(
                [{**r.model_dump(mode="json"), "revoked": r.revoked} for r in records]
            )
        )
        return
    table = Table(title=f"{len(records)} API key(s)")
    for column in ("key id", "name", "tier", "scopes", "created (UTC)", "status"):
        table.add_column(column)
    for r in records:
        status = f"revoked {r.revoked_at:%Y-%m-%d %H:%M}" if r.revoked_at else "active"
        table.add_row(
            r.prefix,
            escape(r.name),
            r.tier.value,
            ",".join(r.scopes),
            f"{r.created_at:%Y-%m-%d %H:%M}",
            status,
        )
    Console().print(table)


@keys_app.command("revoke")
def revoke_cmd(
    key_id: Annotated[
        str, typer.Argument(help="Key id or its rf_ prefix (see `keys list`).")
    ],
) -> None:
    """Revoke a key: requests with it get 401 from now on."""
    from reasonforge.service.accounts.keys import revoke_key

    with _store() as session:
        record = revoke_key(session, key_id)
    err.print(
        f"revoked {record.prefix} ({escape(record.name)}) at {record.revoked_at:%Y-%m-%d %H:%M:%S} UTC"
    )


@keys_app.command("grant")
def grant_cmd(
    key_id: Annotated[str, typer.Argument(help="Key id or its rf_ prefix.")],
    amount: Annotated[str, typer.Argument(help="Credits to add, e.g. 25 or 7.50.")],
    note: Annotated[
        str | None, typer.Option("--note", help="Why (kept in the ledger).")
    ] = None,
) -> None:
    """Add credits to a key's balance (paid verifications draw on it)."""
    from reasonforge.service.accounts.credits import grant_credits

    with _store() as session:
        balance = grant_credits(session, key_id, amount, note=note)
    err.print(f"granted {amount} credits; balance {balance:.2f}")


@keys_app.command("usage")
def usage_cmd(
    key_id: Annotated[str, typer.Argument(help="Key id or its rf_ prefix.")],
    month: Annotated[
        str | None, typer.Option("--month", help="YYYY-MM (UTC); default this month.")
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the usage report as JSON.")
    ] = False,
) -> None:
    """A key's verifications, included allowance and credits in one month."""
    from reasonforge.service.accounts.credits import usage

    with _store() as session:
        report = usage(session, key_id, month=month)
    if as_json:
        print(report.model_dump_json())
        return
    table = Table(title=f"rf_{report.key_id} · {report.tier.value} · {report.month}")
    table.add_column("")
    table.add_column("value", justify="right")
    table.add_row("verifications", str(report.verifications))
    table.add_row("included used", f"{report.included_used} / {report.included_limit}")
    table.add_row("list price (credits)", f"{report.quoted_credits:.2f}")
    table.add_row("charged (credits)", f"{report.charged_credits:.2f}")
    table.add_row("balance (credits)", f"{report.balance_credits:.2f}")
    Console().print(table)


@keys_app.command("webhook-secret")
def webhook_secret_cmd(
    key_id: Annotated[str, typer.Argument(help="Key id or its rf_ prefix.")],
) -> None:
    """Print the secret that signs this key's webhooks (give it to the receiving endpoint)."""
    from reasonforge.service.accounts.keys import get_key
    from reasonforge.service.webhooks.signing import key_webhook_secret

    settings = _settings()
    with _store(settings) as session:
        row = get_key(session, key_id)
        key = row.key_id
    print(key_webhook_secret(settings, key).decode("ascii"))
