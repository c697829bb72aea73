"""What a command that takes a while shows while it works: a spinner with what it is doing, on standard error,
only when that is a terminal (logs, pipes and CI see nothing, and standard output stays the command's result)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console

__all__ = ["working"]


@contextmanager
def working(title: str) -> Iterator[Callable[[str], None]]:
    """Show `title` with a spinner until the block ends; the block gets a function to say what it does now."""
    console = Console(stderr=True)
    if not console.is_terminal or os.environ.get("REASONFORGE_NO_PROGRESS"):
        yield lambda _message: None
        return
    with console.status(f"{title}…") as status:
        yield lambda message: status.update(f"{title}: {message}…")
