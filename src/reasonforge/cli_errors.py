"""How every command reports bad input: one red `error:` line on stderr and exit code 2."""

from __future__ import annotations

import math

import typer
from rich.console import Console
from rich.markup import escape

from reasonforge.errors import InputError

EXIT_INPUT_ERROR = 2


def fail(message: str) -> typer.Exit:
    """Print `message` as an error on stderr and return the exit (code 2) for the caller to raise."""
    Console(stderr=True).print(f"[bold red]error:[/] {escape(message)}", highlight=False, soft_wrap=True)
    return typer.Exit(EXIT_INPUT_ERROR)


def require_finite(flag: str, value: float | None, what: str = "number") -> None:
    """Refuse NaN and infinity for a numeric option: they pass typer's min/max bounds."""
    if value is not None and not math.isfinite(value):
        raise InputError(f"{flag} must be a finite {what}, got {value}", field=flag.lstrip("-"))
