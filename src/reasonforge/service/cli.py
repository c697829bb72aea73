"""`reasonforge serve` (the API on uvicorn), `reasonforge worker` (a Celery worker) and `reasonforge verdict-key`
(the public key the service signs its verdicts with).

Settings come from REASONFORGE_* environment variables (see `reasonforge.service.settings`).
"""

from __future__ import annotations

import os
from typing import Annotated

import typer

from reasonforge.cli_errors import fail
from reasonforge.service.logs import configure_logging

_LOG_LEVELS = ("CRITICAL", "ERROR", "WARNING", "INFO", "DEBUG")


def _log_level(value: str, allowed: tuple[str, ...] = _LOG_LEVELS) -> str:
    """The --log-level in upper case; an unknown level is a usage error naming the accepted ones."""
    level = value.strip().upper()
    if level not in allowed:
        raise fail(f"unknown --log-level {value!r}; use one of {', '.join(a.lower() for a in allowed)}")
    return level


def _log_format(value: str):
    """The --log-format as a LogFormat; an unknown one is a usage error."""
    from reasonforge.service.logs import LogFormat

    try:
        return LogFormat(value.strip().lower())
    except ValueError:
        raise fail(f"unknown --log-format {value!r}; use text or json") from None


def _settings(**overrides: object):
    from pydantic import ValidationError

    from reasonforge.service.settings import ServiceSettings

    try:
        settings = ServiceSettings()
    except ValidationError as exc:
        first = exc.errors()[0]
        name = "REASONFORGE_" + "_".join(str(p) for p in first["loc"]).upper()
        raise fail(f"{name}: {first['msg']}") from None
    return settings.model_copy(
        update={k: v for k, v in overrides.items() if v is not None}
    )


def serve(
    host: Annotated[
        str, typer.Option("--host", help="Interface to listen on.")
    ] = "127.0.0.1",
    port: Annotated[
        int, typer.Option("--port", min=1, max=65535, help="TCP port.")
    ] = 8000,
    workers: Annotated[
        int | None,
        typer.Option(
            "--workers",
            min=1,
            help="In-process job workers (default REASONFORGE_WORKERS).",
        ),
    ] = None,
    log_level: Annotated[
        str, typer.Option("--log-level", help="uvicorn log level.")
    ] = "info",
    log_format: Annotated[
        str,
        typer.Option("--log-format", envvar="REASONFORGE_LOG_FORMAT",
                     help="text, or json (one object per line, with the task id of the job logging)."),
    ] = "text",
) -> None:
    """Run the verification API (embedded defaults: SQLite under REASONFORGE_HOME, in-process workers)."""
    import uvicorn

    from reasonforge.service.app import create_app

    # certificate_url must point at this server unless a public URL was configured.
    base = (
        None
        if os.environ.get("REASONFORGE_PUBLIC_BASE_URL")
        else f"http://{host}:{port}"
    )
    level = _log_level(log_level, (*_LOG_LEVELS, "TRACE"))  # trace is uvicorn's own level, below DEBUG
    settings = _settings(workers=workers, public_base_url=base)
    configure_logging(level, _log_format(log_format))
    app = create_app(settings)
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level=log_level.lower(),
        timeout_graceful_shutdown=30,
        log_config=None,  # uvicorn's loggers go through the root handler configured above (text or JSON)
    )

    class Server(uvicorn.Server):
        async def shutdown(self, sockets=None) -> None:
            # uvicorn waits for open requests before the app's own shutdown: release long-polls first, or each
            # would hold the stop for up to a minute.
            app.state.rf.hub.closing()
            await super().shutdown(sockets)

    Server(config).run()


def worker(
    pool: Annotated[
        str,
        typer.Option(
            "--pool", help="Celery pool: solo (one job at a time) or threads."
        ),
    ] = "solo",
    concurrency: Annotated[
        int | None,
        typer.Option(
            "--concurrency",
            min=1,
            help="Jobs at once with --pool threads (default REASONFORGE_WORKERS).",
        ),
    ] = None,
    log_level: Annotated[
        str, typer.Option("--log-level", help="Celery log level.")
    ] = "INFO",
    log_format: Annotated[
        str,
        typer.Option("--log-format", envvar="REASONFORGE_LOG_FORMAT",
                     help="text, or json (one object per line, with the task id of the job logging)."),
    ] = "text",
) -> None:
    """Run a Celery worker for REASONFORGE_QUEUE=celery (any number, on any machines sharing the DB and Redis)."""
    from reasonforge.service.worker import parse_pool, run_worker

    level = _log_level(log_level)
    configure_logging(level, _log_format(log_format))
    run_worker(
        _settings(),
        pool=parse_pool(pool),
        concurrency=concurrency,
        loglevel=level,
    )


def verdict_key() -> None:
    """Print the public key this service signs every verdict with (the key file is created, as `serve` would on
    first start, when there is none). Readers pass it to `reasonforge report --trust`; the private key never
    leaves its file (REASONFORGE_VERDICT_SIGNING_KEY, default under REASONFORGE_HOME)."""
    from reasonforge.service.verdict_key import ensure_verdict_key

    typer.echo(ensure_verdict_key(_settings()))
