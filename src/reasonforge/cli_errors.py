"""How every command reports bad input: one red `error:` line on stderr and exit code 2.

Commands raise a ReasonForgeError and let it escape: every app built as `ReasonForgeTyper` turns it into
that line, so no command needs its own `except ReasonForgeError` and none ever shows a traceback for one.
The parser's own usage errors (an unknown option or command, a bad choice or number, a missing argument) become
the same line, in plain words: what is wrong, in which command, and how to put it right.
The line shows no credential: URL userinfo, bearer tokens and the environment's keys are scrubbed from it.

Help is click's plain layout, at most 80 columns: option names are never cut, flags show no value, and the
command lists give each command's first sentence whole.
"""

from __future__ import annotations

import importlib
import math
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import typer
from pydantic import ValidationError
from rich.console import Console
from rich.markup import escape
from typer.core import TyperArgument, TyperCommand, TyperGroup

from reasonforge.boundary.secrets import env_secrets, scrub
from reasonforge.errors import InputError, ReasonForgeError

# the click Typer parses with: its own copy (typer._click) in recent Typer, the click package in older ones
_parser = importlib.import_module(typer.BadParameter.__module__)
if TYPE_CHECKING:
    from typer._click.exceptions import BadParameter, MissingParameter, NoSuchOption, UsageError
else:
    BadParameter, MissingParameter, NoSuchOption, UsageError = (
        _parser.BadParameter, _parser.MissingParameter, _parser.NoSuchOption, _parser.UsageError)
# click 8.2+ asks for a group's help, given no command, by raising this usage error: it is not one to restate
_HELP_INSTEAD: tuple[type[Exception], ...] = tuple(
    kind for kind in (getattr(_parser, "NoArgsIsHelpError", None),) if kind is not None)

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


def _article(noun: str) -> str:
    return f"an {noun}" if noun[:1] in "aeiou" else f"a {noun}"


def _words(text: str) -> str:
    """A library's sentence as the middle of ours: no trailing full stop, no capital after the colon."""
    text = text.strip().removeprefix("Value error, ").rstrip(".")
    return text[:1].lower() + text[1:] if text[:2] != text[:2].upper() else text


def _param_name(param: Any) -> str:
    """An option by its longest flag, an argument by its metavar (its name in capitals when it has none)."""
    if isinstance(param, TyperArgument):
        return param.metavar or (param.name or "").upper()
    opts = [o for o in getattr(param, "opts", ()) if o.startswith("-")]
    return max(opts, key=len) if opts else str(getattr(param, "name", "value"))


def _choices(param: Any) -> list[str]:
    """The values a choice parameter takes ([] for any other parameter)."""
    descriptor = getattr(param, "type_descriptor", None)
    if descriptor is None or not descriptor.is_choice:
        return []
    return [str(getattr(choice, "value", choice)) for choice in descriptor.choices or ()]


_BOUNDS = {"greater_than_equal": ("ge", "at least"), "less_than_equal": ("le", "at most"),
           "greater_than": ("gt", "more than"), "less_than": ("lt", "less than")}


def _bad_value(exc: BadParameter, name: str) -> tuple[str, str | None]:
    """What is wrong with a parameter's value, and how to fix it when the what does not say."""
    choices = _choices(exc.param)
    cause = exc.__cause__
    first = cause.errors()[0] if isinstance(cause, ValidationError) and cause.errors() else None
    given = first.get("input") if first is not None else None
    if choices and given is not None:
        noun = name.lstrip("-").replace("-", " ")
        return f"{given!r} is not {_article(noun)}", f"use one of: {', '.join(choices)}"
    if first is not None:
        kind = first.get("type", "")
        if kind in _BOUNDS:
            key, words = _BOUNDS[kind]
            return f"must be {words} {first.get('ctx', {}).get(key)}, not {given}", None
        if kind == "int_parsing":
            return f"{given!r} is not a whole number", None
        if kind == "float_parsing":
            return f"{given!r} is not a number", None
        if kind == "bool_parsing":
            return f"{given!r} is not true or false", None
        return _words(str(first.get("msg", exc.message))), None
    return _words(_PATH_PROBLEM.sub(_path_problem, exc.message)), None


# Typer's words for a path of the wrong kind, e.g. "dir 'x' is a file."
_PATH_PROBLEM = re.compile(r"^(?P<kind>file|dir|path) (?P<path>'.*') is a (?P<found>file|directory)\.?$")


def _path_problem(match: re.Match[str]) -> str:
    wanted = {"file": "a file", "dir": "a folder"}.get(match["kind"], "another kind of path")
    found = "a folder" if match["found"] == "directory" else "a file"
    return f"{match['path']} is {found}, not {wanted}"


def _shown(value: Any) -> str:
    text = repr(value) if isinstance(value, str) else str(value)
    return text if len(text) <= 80 else text[:77] + "…"


def validation_message(exc: ValidationError) -> str:
    """The first problem pydantic found in a document, in plain words: the field (as a dotted path), what is wrong
    with its value and, for a field of a few values, which ones it takes."""
    errors = exc.errors()
    if not errors:
        return _words(str(exc))
    first = errors[0]
    where = ".".join(str(part) for part in first.get("loc", ())) or "the document"
    kind, given, ctx = first.get("type", ""), first.get("input"), first.get("ctx") or {}
    if kind == "missing":
        return f"{where} is missing"
    if kind == "extra_forbidden":
        return f"{where} is not a field it has"
    if kind in ("literal_error", "enum") and "expected" in ctx:
        return f"{where}: {_shown(given)} is not one of {ctx['expected']}"
    if kind == "string_pattern_mismatch":
        return f"{where}: {_shown(given)} does not have the form it takes (pattern {ctx.get('pattern')})"
    if kind in _BOUNDS:
        key, words = _BOUNDS[kind]
        return f"{where}: must be {words} {ctx.get(key)}, not {_shown(given)}"
    if kind in ("int_parsing", "int_type", "int_from_float"):
        return f"{where}: {_shown(given)} is not a whole number"
    return f"{where}: {_words(str(first.get('msg', '')))}"


def usage_message(exc: UsageError, where: str = "reasonforge") -> str:
    """A usage error as one line: what is wrong, in which command (`where` when the error does not say), and how
    to put it right."""
    where = exc.ctx.command_path if exc.ctx is not None else where
    help_hint = f"`{where} --help` shows what it takes"
    if isinstance(exc, NoSuchOption):
        close = sorted(exc.possibilities or ())
        how = f"did you mean {' or '.join(close)}?" if close else f"`{where} --help` lists its options"
        return f"{where}: no such option {exc.option_name}; {how}"
    if isinstance(exc, MissingParameter) and exc.param is not None:
        name = _param_name(exc.param)
        kind = "argument" if isinstance(exc.param, TyperArgument) else "option"
        return f"{where}: the {kind} {name} is missing; {help_hint}"
    if isinstance(exc, BadParameter) and exc.param is not None:
        name = _param_name(exc.param)
        what, fix = _bad_value(exc, name)
        return f"{where}: {name}: {what}; {fix or help_hint}"
    text = _words(exc.message)
    if text.startswith("no such command"):  # Typer's own "Did you mean 'x'?" follows, when it found one
        if ". Did you mean" in text:
            return f"{where}: {text.replace('. Did you mean', '; did you mean')}"
        return f"{where}: {text}; `{where} --help` lists its commands"
    return f"{where}: {text}; {help_hint}"


@contextmanager
def _reported(what: str = "this command", extra: str | None = None, where: str = "reasonforge") -> Iterator[None]:
    """Turn a ReasonForgeError, a usage error of the parser, or a module that an extra not installed would bring,
    into the `fail` line and exit 2."""
    try:
        yield
    except ReasonForgeError as exc:
        raise fail(exc.message) from None
    except _HELP_INSTEAD:
        raise
    except UsageError as exc:
        raise fail(usage_message(exc, where)) from None
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
    from typer._click import HelpFormatter as _HelpFormatter
else:
    _Command = object


class _Reporting(_Command):
    """Mixed in before a Typer command class: a ReasonForgeError from parsing or running it becomes `fail`."""

    # make_context too: option callbacks and the root's own argument parsing run there, before invoke.
    def make_context(self, info_name: str | None, args: list[str], parent: _Context | None = None,
                     **extra: Any) -> _Context:
        """Parse the arguments, reporting a ReasonForgeError or a usage error raised while doing so."""
        where = " ".join(part for part in (parent.command_path if parent else "", info_name or "") if part)
        with _reported(where=where or "reasonforge"):
            return super().make_context(info_name, args, parent, **extra)

    def invoke(self, ctx: _Context) -> Any:
        """Run the command (a group: the chosen subcommand), reporting a ReasonForgeError or usage error that escapes
        it."""
        names: list[str] = []
        at = ctx
        while at.parent is not None:  # the subcommand's words, however the program itself was started
            names.insert(0, at.info_name or "")
            at = at.parent
        with _reported(f"`{' '.join(['reasonforge', *names])}`", _COMMAND_EXTRA.get(names[0]) if names else None,
                       ctx.command_path):
            return super().invoke(ctx)

    def collect_usage_pieces(self, ctx: _Context) -> list[str]:
        """The usage line: [OPTIONS], then each argument as NAME when it is required and [NAME] when it is not."""
        pieces = ["[OPTIONS]"] if any(not isinstance(p, TyperArgument) for p in self.get_params(ctx)) else []
        for param in self.get_params(ctx):
            if isinstance(param, TyperArgument):
                name = _param_name(param) + ("..." if param.nargs != 1 else "")
                pieces.append(name if param.required else f"[{name}]")
        return pieces

    def format_options(self, ctx: _Context, formatter: _HelpFormatter) -> None:
        """The Arguments and Options sections: each argument by its usage name, each option with its value's type
        (none for a flag) in words a reader needs: `<int>` and a range beside the help, not `<int range>`."""
        arguments: list[tuple[str, str]] = []
        options: list[tuple[str, str]] = []
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is None:
                continue
            names, text = record
            if isinstance(param, TyperArgument):
                choices = _choices(param)
                arguments.append((_param_name(param) + (f" <{'|'.join(choices)}>" if choices else ""), text))
            else:
                options.append((_tidy_types(names), text))
        for title, rows in (("Arguments", arguments), ("Options", options)):
            if rows:
                with formatter.section(title):
                    formatter.write_dl(rows)


_LIST_TYPE = re.compile(r"<list\[(?P<item>[^\]]+)\]>")
_RANGE_TYPE = re.compile(r"<(?P<kind>int|float) range>")


def _tidy_types(names: str) -> str:
    """Typer's type labels in an option's names column without Python's spelling: a repeatable option shows the
    type of one value (`<str>`, not `<list[str]>`); a bounded number its type (the bounds are in its help)."""
    return _RANGE_TYPE.sub(r"<\g<kind>>", _LIST_TYPE.sub(r"<\g<item>>", names))


class ReportingGroup(_Reporting, TyperGroup):
    """A group that reports a ReasonForgeError from any command below it, so a whole app is covered at its root."""

    def collect_usage_pieces(self, ctx: _Context) -> list[str]:
        """The group's own usage, then COMMAND [ARGS]..."""
        return [*super().collect_usage_pieces(ctx), self.subcommand_metavar or "COMMAND [ARGS]..."]

    def format_options(self, ctx: _Context, formatter: _HelpFormatter) -> None:
        """The options, then the commands."""
        super().format_options(ctx, formatter)
        self.format_commands(ctx, formatter)

    def format_commands(self, ctx: _Context, formatter: _HelpFormatter) -> None:
        """The Commands section: each command's first sentence, whole (wrapped, never cut with '...')."""
        rows = []
        for name in self.list_commands(ctx):
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                rows.append((name, command.get_short_help_str(limit=_WHOLE)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


_WHOLE = 10_000  # a short help this long is never cut: the first sentence comes whole


class ReportingCommand(_Reporting, TyperCommand):
    """A command that reports a ReasonForgeError itself: a one-command app invoked directly has no group above it."""


class ReasonForgeTyper(typer.Typer):
    """A Typer app whose groups and commands report a ReasonForgeError as `fail` does, however it is invoked."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("cls", ReportingGroup)
        # click's plain help, not Rich's panels: Rich cuts long option names to fit its table at 80 columns
        kwargs.setdefault("rich_markup_mode", None)
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
