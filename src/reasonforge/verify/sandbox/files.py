"""Host-side file plumbing for the sandbox: files in, collected files out, capped output pumping."""

from __future__ import annotations

import os
import selectors
import stat
import time
from collections.abc import Mapping, Sequence
from pathlib import PurePosixPath

_CHUNK = 1 << 16


def safe_relpath(name: str) -> PurePosixPath:
    """A relative path with no `..`, no absolute root and no empty parts, or ValueError."""
    p = PurePosixPath(name)
    if not name or p.is_absolute() or any(part in ("..", "") for part in p.parts) or p == PurePosixPath("."):
        raise ValueError(f"sandbox file path must be relative and stay inside the work dir: {name!r}")
    return p


def write_files(root: str, files: Mapping[str, str | bytes], uid: int | None, gid: int | None) -> None:
    """Write `files` under `root` (creating parents); chown to the sandbox uid so the code may edit them."""
    for name, content in files.items():
        rel = safe_relpath(name)
        data = content.encode("utf-8") if isinstance(content, str) else bytes(content)
        cur = root
        for part in rel.parts[:-1]:
            cur = os.path.join(cur, part)
            if not os.path.isdir(cur):
                os.mkdir(cur, 0o755)
                if uid is not None:
                    os.chown(cur, uid, gid if gid is not None else -1)
        path = os.path.join(root, *rel.parts)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o644)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            if uid is not None:
                os.fchown(fd, uid, gid if gid is not None else -1)
        finally:
            os.close(fd)


def collect_files(root: str, names: Sequence[str], cap: int) -> tuple[dict[str, bytes], dict[str, str]]:
    """Read regular files back from `root`, never following a symlink at any component (the code may plant one)."""
    got: dict[str, bytes] = {}
    errors: dict[str, str] = {}
    for name in names:
        try:
            got[name] = _read_nofollow(root, safe_relpath(name), cap)
        except (OSError, ValueError) as exc:
            errors[name] = _describe(exc)
    return got, errors


def _describe(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.errno is not None:
        return f"{os.strerror(exc.errno)}" + (" (symlink refused)" if exc.errno == 40 else "")
    return str(exc)


def _read_nofollow(root: str, rel: PurePosixPath, cap: int) -> bytes:
    dirfd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    try:
        for part in rel.parts[:-1]:
            nxt = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=dirfd)
            os.close(dirfd)
            dirfd = nxt
        # O_NONBLOCK: a planted FIFO must not hang the verifier; O_NOFOLLOW: a planted symlink fails (ELOOP).
        fd = os.open(rel.parts[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=dirfd)
    finally:
        os.close(dirfd)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise ValueError("not a regular file")
        if st.st_size > cap:
            raise ValueError(f"larger than the collect cap ({st.st_size} > {cap} bytes)")
        chunks, total = [], 0
        while total <= cap:
            b = os.read(fd, min(_CHUNK, cap + 1 - total))
            if not b:
                break
            chunks.append(b)
            total += len(b)
        if total > cap:
            raise ValueError(f"larger than the collect cap ({cap} bytes)")
        return b"".join(chunks)
    finally:
        os.close(fd)


class OutputPump:
    """Drains stdout/stderr concurrently, keeping at most `cap` bytes of each and discarding the rest.

    Draining (rather than stopping reading) keeps a chatty program from blocking on a full pipe.
    """

    def __init__(self, fds: Mapping[str, int], cap: int) -> None:
        self.cap = cap
        self.data: dict[str, bytearray] = {k: bytearray() for k in fds}
        self.truncated = False
        self._sel = selectors.DefaultSelector()
        for key, fd in fds.items():
            os.set_blocking(fd, False)
            self._sel.register(fd, selectors.EVENT_READ, key)

    @property
    def open(self) -> bool:
        """Whether any stream is still open."""
        return bool(self._sel.get_map())

    def add_waiter(self, fd: int) -> None:
        """Wake the pump when `fd` becomes readable (a pidfd: the process exited)."""
        self._sel.register(fd, selectors.EVENT_READ, None)

    def remove_waiter(self, fd: int) -> None:
        """Stop watching a waiter fd."""
        try:
            self._sel.unregister(fd)
        except (KeyError, ValueError):
            pass

    def pump(self, until: float) -> bool:
        """Read until every stream hits EOF or a waiter fires or `until` (monotonic); True iff a waiter fired."""
        while self._sel.get_map():
            timeout = until - time.monotonic()
            if timeout <= 0:
                return False
            for key, _ in self._sel.select(timeout):
                if key.data is None:
                    return True
                self._read(key)
        return False

    def _read(self, key: selectors.SelectorKey) -> None:
        try:
            chunk = os.read(key.fd, _CHUNK)
        except BlockingIOError:
            return
        if not chunk:
            self._sel.unregister(key.fd)
            os.close(key.fd)
            return
        buf = self.data[key.data]
        room = self.cap - len(buf)
        if room > 0:
            buf += chunk[:room]
        if len(chunk) > max(room, 0):
            self.truncated = True

    def close(self) -> None:
        """Close every stream still open."""
        for key in list(self._sel.get_map().values()):
            self._sel.unregister(key.fd)
            if key.data is not None:
                os.close(key.fd)
        self._sel.close()
