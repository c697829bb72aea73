"""Real PostgreSQL, Redis and `reasonforge serve`/`worker` processes on loopback, for tests and benchmarks.

Plain context managers with no pytest dependency: `conftest.py` wraps them in fixtures and
`benchmarks/api_load.py` uses them directly. Every process listens on 127.0.0.1 only, on a port the
kernel just handed out, and dies with the Python thread that started it (parent-death signal), so a
crashed test run leaves no server behind. PostgreSQL refuses to run as root, so when we are root the
database and Redis run as an unprivileged system user in a world-traversable temporary directory.
"""

from __future__ import annotations

import contextlib
import glob
import itertools
import os
import pwd
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import httpx

INSTALL_HINT = (
    "run `make install` (it installs Debian's postgresql and redis-server packages)"
)
START_TIMEOUT_S = 60.0
STOP_TIMEOUT_S = 15.0
_PORT_ATTEMPTS = 3
_NAME_RE = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")
_KEY_RE = re.compile(r"\brf_[A-Za-z0-9_\-]+")


class ServerUnavailable(RuntimeError):
    """A server could not be started; the message says why and how to fix it."""


# ---------------------------------------------------------------------------------------------
# processes


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago (callers retry if someone takes it first)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass(frozen=True)
class RunAs:
    """The account a server process runs under: ourselves, or an unprivileged user when we are root."""

    uid: int
    gid: int
    name: str

    def prefix(self) -> list[str]:
        """argv prefix: drop to this account (when it is not us) and die with the parent thread."""
        if shutil.which("setpriv") is None and self.uid == os.geteuid():
            return []  # util-linux absent: run directly, without the parent-death safety net
        argv = ["setpriv"]
        if self.uid != os.geteuid():
            argv += [f"--reuid={self.uid}", f"--regid={self.gid}", "--clear-groups"]
        return [*argv, "--pdeathsig", "TERM", "--"]

    def own(self, path: Path) -> None:
        """Hand `path` to this account (no-op when it is already ours)."""
        if self.uid != os.geteuid():
            os.chown(path, self.uid, self.gid)


def current_account() -> RunAs:
    """The account we run as (service processes stay with it: they need our venv and home)."""
    return RunAs(os.geteuid(), os.getegid(), pwd.getpwuid(os.geteuid()).pw_name)


def unprivileged_account() -> RunAs:
    """Ourselves unless root; as root, the `postgres` system user when present, else `nobody`."""
    if os.geteuid() != 0:
        return current_account()
    if shutil.which("setpriv") is None:
        raise ServerUnavailable(
            "`setpriv` (util-linux) is needed to drop root privileges; " + INSTALL_HINT
        )
    for name in ("postgres", "nobody"):
        with contextlib.suppress(KeyError):
            entry = pwd.getpwnam(name)
            return RunAs(entry.pw_uid, entry.pw_gid, name)
    raise ServerUnavailable(
        "no unprivileged account (`postgres` or `nobody`) to run the test servers as"
    )


def _private_dir(prefix: str, account: RunAs) -> Path:
    """A fresh temp dir the account owns, mode 0700 (the parent temp dir is world-traversable)."""
    path = Path(tempfile.mkdtemp(prefix=prefix))
    account.own(path)
    return path


def log_tail(path: Path, chars: int = 3000) -> str:
    """The end of a log file, for error messages."""
    try:
        return path.read_text(errors="replace")[-chars:]
    except OSError:
        return ""


def stop_process(
    proc: subprocess.Popen, sig: int = signal.SIGTERM, *, group: bool = False
) -> None:
    """Send `sig`, wait, then SIGKILL what is left; `group` signals the whole process group."""

    def send(s: int) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, s) if group else proc.send_signal(s)

    if proc.poll() is None:
        send(sig)
        try:
            proc.wait(STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            send(signal.SIGKILL)
            proc.wait(STOP_TIMEOUT_S)
    if group:
        send(
            signal.SIGKILL
        )  # children the leader left behind (job processes, pool workers)


class _Exited(ServerUnavailable):
    """The process died while starting (often: the port was taken in the meantime)."""


def _wait_ready(
    probe,
    proc: subprocess.Popen,
    what: str,
    log: Path,
    timeout: float = START_TIMEOUT_S,
) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise _Exited(
                f"{what} exited with code {proc.returncode} during start-up:\n{log_tail(log)}"
            )
        if probe():
            return
        time.sleep(0.1)
    raise ServerUnavailable(
        f"{what} did not become ready within {timeout:.0f} s:\n{log_tail(log)}"
    )


def _address_in_use(message: str) -> bool:
    return "in use" in message.lower()


# ---------------------------------------------------------------------------------------------
# PostgreSQL


def postgres_bindir() -> Path:
    """The directory holding `initdb` and `postgres`: Debian's newest /usr/lib/postgresql/<ver>/bin, else PATH."""

    def version(path: str) -> tuple[int, ...]:
        return tuple(int(p) for p in re.findall(r"\d+", Path(path).parent.name))

    for candidate in sorted(
        glob.glob("/usr/lib/postgresql/*/bin"), key=version, reverse=True
    ):
        if os.access(Path(candidate, "initdb"), os.X_OK) and os.access(
            Path(candidate, "postgres"), os.X_OK
        ):
            return Path(candidate)
    initdb = shutil.which("initdb")
    if initdb and shutil.which("postgres"):
        return Path(initdb).resolve().parent
    raise ServerUnavailable(
        "PostgreSQL server binaries (initdb, postgres) not found; " + INSTALL_HINT
    )


@dataclass
class PostgresServer:
    """A running PostgreSQL cluster on 127.0.0.1 with one password-protected superuser."""

    port: int
    user: str
    password: str
    data_dir: Path
    process: subprocess.Popen
    argv: list[str] = field(default_factory=list)
    log: Path | None = None
    _names: Iterator[int] = field(default_factory=itertools.count)

    def restart(self, down_s: float = 1.0) -> None:
        """Crash and restart the server on the same port and data: an immediate shutdown (SIGQUIT: no checkpoint,
        crash recovery at the next start), `down_s` seconds down, then the same command until it accepts logins."""
        if not self.argv or self.log is None:
            raise ServerUnavailable("this PostgresServer was not started by running_postgres; cannot restart it")
        stop_process(self.process, signal.SIGQUIT)
        time.sleep(down_s)
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(
                self.argv, cwd=self.log.parent, stdout=out, stderr=subprocess.STDOUT, env=_plain_env()
            )
        _wait_ready(lambda: _pg_accepts(self.port, self.user, self.password), self.process, "postgres", self.log)

    def url(self, database: str = "postgres") -> str:
        """SQLAlchemy URL (psycopg 3 driver) of `database` on this server."""
        return f"postgresql+psycopg://{self.user}:{self.password}@127.0.0.1:{self.port}/{database}"

    def create_database(self, name: str | None = None) -> str:
        """Create an empty database (a fresh unique name by default) and return its URL."""
        import psycopg  # the service's own driver; imported late so Redis-only users need not load it

        name = name or f"rf_{next(self._names)}_{secrets.token_hex(3)}"
        if not _NAME_RE.match(name):
            raise ValueError(
                f"database name {name!r}: use lower-case letters, digits and _ only"
            )
        dsn = f"host=127.0.0.1 port={self.port} user={self.user} password={self.password} dbname=postgres"
        with psycopg.connect(dsn, autocommit=True, connect_timeout=10) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)


def _pg_accepts(port: int, user: str, password: str) -> bool:
    import psycopg

    dsn = f"host=127.0.0.1 port={port} user={user} password={password} dbname=postgres connect_timeout=2"
    try:
        with psycopg.connect(dsn):
            return True
    except psycopg.OperationalError:
        return False


@contextlib.contextmanager
def running_postgres(*, fast: bool = True) -> Iterator[PostgresServer]:
    """initdb into a temp dir, run `postgres` on a free loopback port, remove everything afterwards.

    `fast` turns off fsync and synchronous commit: right for throwaway test data, wrong for measuring
    a production-like database (benchmarks pass `fast=False`).
    """
    bindir = postgres_bindir()
    account = unprivileged_account()
    root = _private_dir("rf-pg-", account)
    try:
        data, user, password = root / "data", "reasonforge", secrets.token_urlsafe(18)
        pwfile = root / "pw"
        pwfile.write_text(password + "\n")
        pwfile.chmod(0o600)
        account.own(pwfile)
        init_log = root / "initdb.log"
        with init_log.open("wb") as out:
            rc = subprocess.run(
                [
                    *account.prefix(),
                    str(bindir / "initdb"),
                    "-D",
                    str(data),
                    "-U",
                    user,
                    f"--pwfile={pwfile}",
                    "--auth=scram-sha-256",
                    "-E",
                    "UTF8",
                    "--no-locale",
                    "--no-sync",
                ],
                cwd=root,
                stdout=out,
                stderr=subprocess.STDOUT,
                env=_plain_env(),
                check=False,
            ).returncode
        pwfile.unlink()
        if rc != 0:
            raise ServerUnavailable(f"initdb failed (exit {rc}):\n{log_tail(init_log)}")
        settings = {
            "listen_addresses": "127.0.0.1",
            "unix_socket_directories": str(root),
            "max_connections": "300",
            "shared_buffers": "64MB",
            "log_min_messages": "warning",
        }
        if fast:
            settings |= {
                "fsync": "off",
                "synchronous_commit": "off",
                "full_page_writes": "off",
            }
        log = root / "postgres.log"
        for attempt in range(_PORT_ATTEMPTS):
            port = free_port()
            argv = [
                *account.prefix(),
                str(bindir / "postgres"),
                "-D",
                str(data),
                "-p",
                str(port),
            ]
            argv += [a for k, v in settings.items() for a in ("-c", f"{k}={v}")]
            with log.open("ab") as out:
                proc = subprocess.Popen(
                    argv,
                    cwd=root,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    env=_plain_env(),
                )
            try:
                _wait_ready(
                    lambda p=port: _pg_accepts(p, user, password), proc, "postgres", log
                )
                break
            except _Exited as exc:
                if attempt + 1 == _PORT_ATTEMPTS or not _address_in_use(str(exc)):
                    raise
        server = PostgresServer(
            port=port, user=user, password=password, data_dir=data, process=proc, argv=argv, log=log
        )
        try:
            yield server
        finally:
            stop_process(server.process, signal.SIGINT)  # SIGINT = PostgreSQL's fast shutdown (of the latest start)
    finally:
        shutil.rmtree(root, ignore_errors=True)


# ---------------------------------------------------------------------------------------------
# Redis


@dataclass
class RedisServer:
    """A running redis-server on 127.0.0.1 with a password and no persistence."""

    port: int
    password: str
    databases: int
    process: subprocess.Popen
    _next_db: Iterator[int] = field(default_factory=lambda: itertools.count(1))

    def url(self, db: int = 0) -> str:
        """redis:// URL of logical database `db`."""
        return f"redis://:{self.password}@127.0.0.1:{self.port}/{db}"

    def allocate_db(self) -> str:
        """URL of a logical database no earlier caller got (db 0 stays with `url()`)."""
        db = next(self._next_db)
        if db >= self.databases:
            raise ServerUnavailable(
                f"all {self.databases} Redis databases are in use; raise `databases`"
            )
        return self.url(db)


def _redis_answers(port: int, password: str) -> bool:
    import redis
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    # One try per probe: the client's default retries with backoff would slow start-up detection.
    client = redis.Redis(
        host="127.0.0.1",
        port=port,
        password=password,
        socket_timeout=2,
        retry=Retry(NoBackoff(), 0),
    )
    try:
        return bool(client.ping())
    except redis.RedisError:
        return False


@contextlib.contextmanager
def running_redis(*, databases: int = 256) -> Iterator[RedisServer]:
    """redis-server on a free loopback port, RDB and AOF off, shut down and removed afterwards."""
    binary = shutil.which("redis-server")
    if binary is None:
        raise ServerUnavailable("redis-server not found on PATH; " + INSTALL_HINT)
    account = unprivileged_account()
    root = _private_dir("rf-redis-", account)
    try:
        password = secrets.token_urlsafe(18)
        log = root / "redis.log"
        for attempt in range(_PORT_ATTEMPTS):
            port = free_port()
            # The password goes in a 0600 config file, not argv, where `ps` would show it.
            conf = root / "redis.conf"
            conf.write_text(
                f'bind 127.0.0.1\nport {port}\nrequirepass {password}\nsave ""\nappendonly no\n'
                f"dir {root}\ndatabases {databases}\ndaemonize no\nloglevel warning\nprotected-mode yes\n"
            )
            conf.chmod(0o600)
            account.own(conf)
            with log.open("ab") as out:
                proc = subprocess.Popen(
                    [*account.prefix(), binary, str(conf)],
                    cwd=root,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    env=_plain_env(),
                )
            try:
                _wait_ready(
                    lambda p=port: _redis_answers(p, password),
                    proc,
                    "redis-server",
                    log,
                )
                break
            except _Exited as exc:
                if attempt + 1 == _PORT_ATTEMPTS or not _address_in_use(str(exc)):
                    raise
        server = RedisServer(
            port=port, password=password, databases=databases, process=proc
        )
        try:
            yield server
        finally:
            stop_process(proc)
    finally:
        shutil.rmtree(root, ignore_errors=True)


# ---------------------------------------------------------------------------------------------
# the ReasonForge service


def reasonforge_argv() -> list[str]:
    """How to run the `reasonforge` CLI of this interpreter's installation."""
    script = Path(sys.executable).with_name("reasonforge")
    if script.exists():
        return [str(script)]
    return [
        sys.executable,
        "-c",
        "import sys; from reasonforge.cli import app; sys.argv[0] = 'reasonforge'; app()",
    ]


def _plain_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The parent environment without any REASONFORGE_* settings a developer may have exported."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("REASONFORGE_")}
    env["PYTHONUNBUFFERED"] = "1"
    env["REASONFORGE_BUILD_KEYS_AT_START"] = "false"  # tests that issue certificates bring the small keys
    return env | dict(extra or {})


@dataclass
class ServiceHandle:
    """A running `reasonforge serve` (and its Celery workers when scaled out) plus one API key."""

    base_url: str
    api_key: str
    home: Path
    env: dict[str, str]
    server: subprocess.Popen
    workers: list[subprocess.Popen] = field(default_factory=list)
    worker_args: tuple[str, ...] = ()

    @property
    def scaled(self) -> bool:
        """True when jobs run on Celery workers (PostgreSQL + Redis)."""
        return self.env.get("REASONFORGE_QUEUE") == "celery"

    @property
    def headers(self) -> dict[str, str]:
        """The Authorization header for this handle's key."""
        return {"Authorization": f"Bearer {self.api_key}"}

    def cli(self, *args: str, timeout: float = 120.0) -> subprocess.CompletedProcess:
        """Run `reasonforge ARGS` against this service's settings (same home, database, queue)."""
        return subprocess.run(
            [*reasonforge_argv(), *args],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )

    def create_key(self, name: str, *extra: str) -> str:
        """A new API key from `reasonforge keys create --name NAME EXTRA...`."""
        done = self.cli("keys", "create", "--name", name, *extra)
        found = _KEY_RE.search(done.stdout)
        if done.returncode != 0 or found is None:
            raise ServerUnavailable(
                f"`reasonforge keys create --name {name} {' '.join(extra)}` exited {done.returncode} "
                f"without printing an rf_ key:\n{done.stdout[-2000:]}{done.stderr[-2000:]}"
            )
        return found.group(0)

    def start_worker(self) -> subprocess.Popen:
        """Start one more `reasonforge worker` in its own process group; logs to home/worker-N.log."""
        log = self.home / f"worker-{len(self.workers)}.log"
        with log.open("ab") as out:
            proc = subprocess.Popen(
                [
                    *current_account().prefix(),
                    *reasonforge_argv(),
                    "worker",
                    *self.worker_args,
                ],
                env=self.env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        self.workers.append(proc)
        return proc

    def kill_worker(self, index: int = 0, sig: int = signal.SIGKILL) -> None:
        """Signal worker `index` and its pool children (the whole process group), then reap it."""
        proc = self.workers[index]
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, sig)
        if sig in (signal.SIGKILL, signal.SIGTERM, signal.SIGINT, signal.SIGQUIT):
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(STOP_TIMEOUT_S)

    def restart_server(self, sig: int = signal.SIGKILL, down_s: float = 0.5) -> None:
        """Stop `reasonforge serve` with `sig` (its whole process group: in-process workers and job processes die
        with it), wait `down_s`, and start it again on the same port, home and settings until it is healthy."""
        stop_process(self.server, sig, group=True)
        time.sleep(down_s)
        log = self.home / "serve.log"
        self.server = _start_serve(int(self.base_url.rsplit(":", 1)[1]), self.env, log)
        _wait_ready(lambda: _healthy(self.base_url), self.server, "reasonforge serve", log)

    def log(self, name: str = "serve") -> str:
        """Tail of `serve.log` or `worker-N.log` under home, for assertion messages."""
        return log_tail(self.home / f"{name}.log")


def _start_serve(port: int, env: Mapping[str, str], log: Path) -> subprocess.Popen:
    """`reasonforge serve` on 127.0.0.1:`port` in its own process group, appending to `log`."""
    with log.open("ab") as out:
        return subprocess.Popen(
            [*current_account().prefix(), *reasonforge_argv(), "serve", "--host", "127.0.0.1", "--port", str(port)],
            env=dict(env),
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def _healthy(base_url: str) -> bool:
    try:
        return httpx.get(f"{base_url}/healthz", timeout=2.0).status_code == 200
    except httpx.HTTPError:
        return False


def service_env(
    home: Path,
    port: int,
    *,
    database_url: str | None = None,
    redis_url: str | None = None,
    env: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """Environment for serve/worker/keys: embedded by default; PostgreSQL + Celery when both URLs are given."""
    if (database_url is None) != (redis_url is None):
        raise ValueError(
            "scaled-out mode needs both database_url (PostgreSQL) and redis_url"
        )
    settings = {
        "REASONFORGE_HOME": str(home),
        "REASONFORGE_PUBLIC_BASE_URL": f"http://127.0.0.1:{port}",
    }
    if database_url is not None:
        settings |= {
            "REASONFORGE_DATABASE_URL": database_url,
            "REASONFORGE_QUEUE": "celery",
            "REASONFORGE_REDIS_URL": redis_url,
        }
    return _plain_env({**settings, **dict(env or {})})


@contextlib.contextmanager
def running_service(
    home: Path,
    *,
    database_url: str | None = None,
    redis_url: str | None = None,
    workers: int = 1,
    env: Mapping[str, str] | None = None,
    key_args: Sequence[str] = (),
    worker_args: Sequence[str] = (),
) -> Iterator[ServiceHandle]:
    """`reasonforge serve` on a free loopback port with `home` as REASONFORGE_HOME, plus an API key.

    Embedded (SQLite under home, in-process workers) unless `database_url` and `redis_url` are given:
    then the service runs scaled out on them and `workers` `reasonforge worker` processes are started.
    `env` adds or overrides REASONFORGE_* settings; `key_args` go to `keys create` (e.g. a tier).
    """
    home.mkdir(parents=True, exist_ok=True)
    log = home / "serve.log"
    handle: ServiceHandle | None = None
    try:
        for attempt in range(_PORT_ATTEMPTS):
            port = free_port()
            base_url = f"http://127.0.0.1:{port}"
            full_env = service_env(
                home, port, database_url=database_url, redis_url=redis_url, env=env
            )
            server = _start_serve(port, full_env, log)
            handle = ServiceHandle(
                base_url=base_url,
                api_key="",
                home=home,
                env=full_env,
                server=server,
                worker_args=tuple(worker_args),
            )
            try:
                _wait_ready(
                    lambda u=base_url: _healthy(u), server, "reasonforge serve", log
                )
                break
            except _Exited as exc:
                if attempt + 1 == _PORT_ATTEMPTS or not _address_in_use(str(exc)):
                    raise
        # The key and the workers come after the server is healthy: it has created the tables by
        # then, so no two processes race to create them on PostgreSQL.
        handle.api_key = handle.create_key("test", *key_args)
        if handle.scaled:
            for _ in range(workers):
                handle.start_worker()
        yield handle
    finally:
        if handle is not None:
            for proc in handle.workers:
                stop_process(proc, group=True)
            stop_process(handle.server, group=True)
