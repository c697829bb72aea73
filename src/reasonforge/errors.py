"""Errors with messages a user can act on; the CLI prints them and exits 2."""

from __future__ import annotations


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
