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
def _reported(what: str = "this command", extra: str | None = None) -> Iterator[None]:
    """Turn a ReasonForgeError, or a module that an extra not installed would bring, into the `fail` line and exit 2."""
    try:
        yield
    except ReasonForgeError as exc:
        raise fail(exc.message) from None
    except ModuleNotFoundError as exc:  # a command that reaches a room whose extra is not installed
        line = missing_extra(exc, what, extra)
        if line is None:
            raise
        raise fail(line) from None


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
        names: list[str] = []
        at = ctx
        while at.parent is not None:  # the subcommand's words, however the program itself was started
            names.insert(0, at.info_name or "")
            at = at.parent
        with _reported(f"`{' '.join(['reasonforge', *names])}`", _COMMAND_EXTRA.get(names[0]) if names else None):
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



# The top-level modules `pip install reasonforge` leaves out, each with the extra that brings it (numpy and
# matplotlib come with several; the one named is the smallest that has them).
_EXTRA_OF = {
    **dict.fromkeys(("groth16py", "light_poseidon_python", "py_ecc", "web3", "eth_tester", "eth_account", "eth_abi",
                     "eth_keys", "eth_utils", "eth_typing", "eth"), "certificate"),
    **dict.fromkeys(("fastapi", "starlette", "uvicorn", "sqlalchemy", "psycopg", "celery", "redis",
                     "prometheus_client"), "service"),
    **dict.fromkeys(("bittensor", "bittensor_core", "qrcode"), "subnet"),
    **dict.fromkeys(("tantivy", "safetensors", "tokenizers", "numpy", "matplotlib"), "forecast"),
    "llama_cpp": "model",
}
# The extra each top-level command's room needs, which names the extra better than the module does (numpy under
# `subnet` is the subnet extra's)
_COMMAND_EXTRA = {"forecast": "forecast", "corpus": "forecast", "cert": "certificate", "keys": "service",
                  "serve": "service", "worker": "service", "verdict-key": "service", "subnet": "subnet", "model": "model"}


def missing_extra(exc: ModuleNotFoundError, what: str = "this command", extra: str | None = None) -> str | None:
    """The one line that says which extra to install, when `exc` is a module an extra brings (None when it is
    something else: a bug, which must not be hidden); `extra` when the caller knows it better than the module."""
    top = (exc.name or "").split(".")[0]
    if top not in _EXTRA_OF:
        return None
    extra = extra or _EXTRA_OF[top]
    return (f"{what} needs the {extra} extra ({top} is not installed): run pip install 'reasonforge[{extra}]' "
            "(`make install` installs every extra)")


def add_optional(app: typer.Typer, name: str, module: str, attribute: str, help: str | None = None) -> None:
    """Register `module.attribute` (a Typer app: a group; a function: a command) as `name`, or, when its room's
    dependencies are not installed, a stand-in of that name that says in one line which extra to install."""
    from importlib import import_module

    try:
        target = getattr(import_module(module), attribute)
    except ModuleNotFoundError as exc:
        extra = _COMMAND_EXTRA[name]
        line = missing_extra(exc, f"`reasonforge {name}`", extra)
        if line is None:
            raise
        context = {"allow_extra_args": True, "ignore_unknown_options": True, "help_option_names": []}

        def unavailable() -> None:
            raise fail(line)

        app.command(name, context_settings=context, help=f"Not installed: needs the {extra} extra.",
                    add_help_option=False)(unavailable)
        return
    if isinstance(target, typer.Typer):
        if help:
            app.add_typer(target, name=name, help=help)
        else:  # the group's own help
            app.add_typer(target, name=name)
    else:
        app.command(name)(target)
