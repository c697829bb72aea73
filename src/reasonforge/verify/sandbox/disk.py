"""A watchdog on the sandbox's writable work dir: its total size and file count are capped.

RLIMIT_FSIZE caps one file, not how many a program writes, and the work dir lives on the host's disk
(it must, so results can be collected after the namespace is gone). The guard walks the tree every
`interval_s` and kills the run's process group once the total allocated size or the number of entries
passes its cap; between two walks a program can overshoot by what it writes in one interval."""

from __future__ import annotations

import os
import signal
import stat
import threading
from typing import Self


def tree_usage(root: str, max_entries: int) -> tuple[int, int]:
    """(allocated bytes, entries) under `root`, never following symlinks; stops counting past `max_entries`."""
    total, entries = 0, 0
    stack = [root]
    while stack:
        try:
            with os.scandir(stack.pop()) as it:
                for entry in it:
                    entries += 1
                    if entries > max_entries:
                        return total, entries
                    try:
                        st = entry.stat(follow_symlinks=False)
                    except OSError:
                        continue  # deleted between listing and stat
                    total += st.st_blocks * 512
                    if stat.S_ISDIR(st.st_mode):
                        stack.append(entry.path)
        except OSError:
            continue
    return total, entries


class WorkDirGuard:
    """Kills process group `pgid` when `root` grows past `max_bytes` or `max_entries` (see module doc)."""

    def __init__(self, root: str, pgid: int, max_bytes: int, max_entries: int, interval_s: float = 0.05) -> None:
        self.root, self.pgid = root, pgid
        self.max_bytes, self.max_entries, self.interval_s = max_bytes, max_entries, interval_s
        self.exceeded: str | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True, name="sandbox-workdir-guard")

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _watch(self) -> None:
        while not self._stop.wait(self.interval_s):
            size, entries = tree_usage(self.root, self.max_entries)
            if size > self.max_bytes or entries > self.max_entries:
                self.exceeded = (f"the work dir grew past {self.max_bytes >> 20} MiB" if size > self.max_bytes
                                 else f"the work dir holds more than {self.max_entries} files")
                try:
                    os.killpg(self.pgid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
                return
