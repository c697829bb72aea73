"""How every command reports bad input: one red `error:` line on stderr and exit code 2.

Commands raise a ReasonForgeError and let it escape: every app built as `ReasonForgeTyper` turns it into
that line, so no command needs its own `except ReasonForgeError` and none ever shows a traceback for one.
The line shows no credential: URL userinfo, bearer tokens and the environment's keys are scrubbed from it.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import typer
from rich.console import Console
from rich.markup import escape
from typer.core import TyperCommand, TyperGroup

from reasonforge.boundary.secrets import env_secrets, scrub
from reasonforge.errors import InputError, ReasonForgeError

EXIT_INPUT_ERROR = 2


def fail(message: str) -> typer.Exit:
    """Print `message` (scrubbed of credentials) as an error on stderr and return the exit (code 2) to raise."""
    shown = scrub(message, env_secrets())
    Console(stderr=True).print(f"[bold red]error:[/] {escape(shown)}", highlight=False, soft_wrap=True)
    return typer.Exit(EXIT_INPUT_ERROR)


def require_finite(flag: str, value: float | None, what: str = "number") -> None:
    """Refuse NaN and infinity for a numeric option: they pass typer's min/max bounds."""
    if value is not None and not math.isfinite(value):
        raise InputError(f"{flag} must be a finite {what}, got {value}", field=flag.lstrip("-"))


@contextmanager
def _reported() -> Iterator[None]:
    """Turn a ReasonForgeError into the `fail` line and exit 2."""
    try:
        yield
    except ReasonForgeError as exc:
        raise fail(exc.message) from None


if TYPE_CHECKING:
    # Typer's classes share a base from the click it vendors, which it gives no public name; checked against it,
    # the mixin's `super()` calls resolve and its overrides must keep the base's signatures. At run time the
    # mixin stays a plain class, so the method order is the Typer class's with the mixin in front.
    from typer._click import Command as _Command
    from typer._click import Context as _Context
else:
    _Command = object


class _Reporting(_Command):
    """Mixed in before a Typer command class: a ReasonForgeError from parsing or running it becomes `fail`."""

    # make_context too: option callbacks and the root's own argument parsing run there, before invoke.
    def make_context(self, info_name: str | None, args: list[str], parent: _Context | None = None,
                     **extra: Any) -> _Context:
        """Parse the arguments, reporting a ReasonForgeError raised while doing so."""
        with _reported():
            return super().make_context(info_name, args, parent, **extra)

    def invoke(self, ctx: _Context) -> Any:
        """Run the command (a group: the chosen subcommand), reporting a ReasonForgeError that escapes it."""
        with _reported():
            return super().invoke(ctx)


class ReportingGroup(_Reporting, TyperGroup):
    """A group that reports a ReasonForgeError from any command below it, so a whole app is covered at its root."""


class ReportingCommand(_Reporting, TyperCommand):
    """A command that reports a ReasonForgeError itself: a one-command app invoked directly has no group above it."""


class ReasonForgeTyper(typer.Typer):
    """A Typer app whose groups and commands report a ReasonForgeError as `fail` does, however it is invoked."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("cls", ReportingGroup)
        super().__init__(**kwargs)

    def command(self, name: str | None = None, *, cls: type[TyperCommand] | None = None, **kwargs: Any) -> Any:
        """`typer.Typer.command`, with ReportingCommand as the default class."""
        return super().command(name, cls=cls or ReportingCommand, **kwargs)
