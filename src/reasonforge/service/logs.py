"""How the server and workers log: text for a terminal, or one JSON object per line for a log pipeline, each
record carrying the task id of the job being run (set for the job's whole run, in its thread). No line shows a
credential: every message and traceback is scrubbed of URL userinfo, bearer tokens and the environment's keys
(`boundary.secrets`) as it is formatted."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, datetime
from enum import StrEnum

from reasonforge.boundary.secrets import env_secrets, scrub

__all__ = ["LogFormat", "configure_logging", "job_context"]

_TASK_ID: ContextVar[str | None] = ContextVar("reasonforge_task_id", default=None)
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


class LogFormat(StrEnum):
    """`text` for people, `json` for machines."""

    TEXT = "text"
    JSON = "json"


@contextmanager
def job_context(task_id: str) -> Iterator[None]:
    """Every record logged inside carries `task_id`."""
    token = _TASK_ID.set(task_id)
    try:
        yield
    finally:
        _TASK_ID.reset(token)


class _TaskIdFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "task_id", None) is None:
            record.task_id = _TASK_ID.get()
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per record: ts (UTC, ISO-8601), level, logger, message, task_id, exc (when any); the message
    and traceback scrubbed of `secrets` and of any credential they show."""

    def __init__(self, secrets: frozenset[str] = frozenset()) -> None:
        super().__init__()
        self.secrets = secrets

    def format(self, record: logging.LogRecord) -> str:
        out = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": scrub(record.getMessage(), self.secrets),
            "task_id": getattr(record, "task_id", None),
        }
        if record.exc_info:
            out["exc"] = scrub(self.formatException(record.exc_info), self.secrets)
        return json.dumps(out, ensure_ascii=False)


class TextFormatter(logging.Formatter):
    """`logging.Formatter` whose whole line (message and traceback) is scrubbed of `secrets` and credentials."""

    def __init__(self, fmt: str, secrets: frozenset[str] = frozenset()) -> None:
        super().__init__(fmt)
        self.secrets = secrets

    def format(self, record: logging.LogRecord) -> str:
        return scrub(super().format(record), self.secrets)


def configure_logging(level: str, fmt: LogFormat = LogFormat.TEXT) -> None:
    """Root logging at `level` in `fmt`, with the task id filled in on every handler's records and the credentials
    the environment holds (read now) scrubbed from every line."""
    secrets = env_secrets()
    handler = logging.StreamHandler()
    handler.addFilter(_TaskIdFilter())
    handler.setFormatter(JsonFormatter(secrets) if fmt is LogFormat.JSON else TextFormatter(
        TEXT_FORMAT.replace("%(message)s", "%(message)s%(task_suffix)s"), secrets))
    if fmt is LogFormat.TEXT:
        handler.addFilter(_text_suffix)
    logging.basicConfig(level="DEBUG" if level == "TRACE" else level, handlers=[handler], force=True)


def _text_suffix(record: logging.LogRecord) -> bool:
    task_id = getattr(record, "task_id", None)
    record.task_suffix = f" [task {task_id}]" if task_id else ""
    return True
