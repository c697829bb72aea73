"""One unprivileged host uid per concurrent sandbox run, leased through lock files.

RLIMIT_NPROC counts every process of a uid, so sandboxes sharing one uid would starve each other: a
fork bomb in one run would make an innocent concurrent run (say, a mutant's tests) fail to fork.
"""

from __future__ import annotations

import fcntl
import os
import tempfile
import time
from typing import Self

UID_BASE = 1_800_000_000  # far above login, system (<65536) and subordinate-id (100000+) ranges
SLOTS = 64


class UidLease:
    """Holds an exclusive lock on one uid slot for the duration of a run (cross-process safe)."""

    def __init__(self) -> None:
        self.uid = -1
        self._fd = -1

    def __enter__(self) -> Self:
        lock_dir = os.path.join(tempfile.gettempdir(), "reasonforge-sandbox-uids")
        os.makedirs(lock_dir, mode=0o755, exist_ok=True)
        start = (os.getpid() * 7 + int(time.monotonic_ns() // 1000)) % SLOTS
        for i in range(SLOTS):
            slot = (start + i) % SLOTS
            fd = os.open(os.path.join(lock_dir, f"{slot}.lock"), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            self._fd, self.uid = fd, UID_BASE + slot
            return self
        # Every slot busy: queue on one rather than share a uid.
        fd = os.open(os.path.join(lock_dir, f"{start}.lock"), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        fcntl.flock(fd, fcntl.LOCK_EX)
        self._fd, self.uid = fd, UID_BASE + start
        return self

    def __exit__(self, *exc: object) -> None:
        os.close(self._fd)
        self._fd = -1


def processes_of(uid: int, *, zombies: bool = True) -> int:
    """How many processes have real uid `uid` (zombies included unless `zombies=False`)."""
    n = 0
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/status", "rb") as fh:
                for line in fh:
                    if line.startswith(b"State:") and not zombies and line.split()[1] == b"Z":
                        break
                    if line.startswith(b"Uid:"):
                        n += int(line.split()[1]) == uid
                        break
        except OSError:
            continue
    return n


def wait_until_gone(uid: int, timeout: float) -> bool:
    """Wait (bounded) until no live process of `uid` is left.

    Zombies are ignored: bubblewrap's monitor exits without reaping the namespace's init, which
    the host's init reaps later; by then the kernel has already killed and reaped the rest.
    """
    deadline = time.monotonic() + timeout
    while processes_of(uid, zombies=False):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True
