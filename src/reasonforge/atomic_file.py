"""Crash-safe file replacement: readers see the old contents or the new, never half a file."""

from __future__ import annotations

import contextlib
import os
import threading
from pathlib import Path


def write_atomic(path: Path, data: bytes) -> None:
    """Replace `path` with `data`: temporary file in the same folder, fsync, os.replace, fsync of the folder.

    Raises OSError (the temporary file is removed); the temporary name carries the process and thread,
    so concurrent writers never share one.
    """
    path = Path(path)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        with open(temporary, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except OSError:
        with contextlib.suppress(OSError):
            temporary.unlink(missing_ok=True)
        raise
    try:
        folder = os.open(path.parent, os.O_RDONLY)
    except OSError:
        return  # some filesystems do not open folders; the file itself is already synced
    try:
        with contextlib.suppress(OSError):
            os.fsync(folder)  # makes the rename itself durable
    finally:
        os.close(folder)
