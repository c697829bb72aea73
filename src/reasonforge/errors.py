"""Errors with messages a user can act on; the CLI prints them and exits 2."""

from __future__ import annotations

from pathlib import Path


class ReasonForgeError(Exception):
    """Base error: `message` is user-facing, `code` is a stable machine-readable tag."""

    code = "reasonforge_error"

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field

    def to_dict(self) -> dict[str, str | None]:
        """The API error body: `{code, message, field}`."""
        return {"code": self.code, "message": self.message, "field": self.field}


class InputError(ReasonForgeError):
    """The request itself is malformed: names the step and field at fault and how to fix it."""

    code = "input_error"

    def __init__(self, message: str, *, field: str | None = None, step_id: int | None = None) -> None:
        prefix = f"step {step_id}: " if step_id is not None else ""
        super().__init__(prefix + message, field=field)
        self.step_id = step_id


class ArtifactSyntaxError(ReasonForgeError):
    """A formal artifact (FOL, SMT-LIB, ...) does not parse; carries 1-based line and column."""

    code = "artifact_syntax_error"

    def __init__(self, message: str, *, line: int, column: int) -> None:
        super().__init__(f"line {line}, column {column}: {message}")
        self.line = line
        self.column = column


class ToolUnavailableError(ReasonForgeError):
    """An optional external tool (solver, prover) is not installed or cannot start."""

    code = "tool_unavailable"


def not_utf8(path: str | Path, *, field: str | None = None) -> InputError:
    """The InputError for a file that is not UTF-8 text: names the line and byte of the first bad byte."""
    try:
        data = Path(path).read_bytes()
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        where = f"{path}:{line}: not UTF-8 text ({exc.reason} at byte {exc.start})"
    except OSError as exc:
        where = f"{path}: cannot read ({exc.strerror or exc})"
    else:
        where = f"{path}: not UTF-8 text"
    return InputError(f"{where}; save it as UTF-8", field=field)
