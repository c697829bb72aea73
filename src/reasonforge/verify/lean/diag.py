"""Reading what Lean 4 prints: diagnostics (three text shapes and JSON) and `#print axioms` reports.

Shapes understood, all seen in real output (tests/verify/lean/data/SOURCE.md):
- `lean`: `File.lean:8:9: warning: declaration uses 'sorry'`, with `-8:17` end positions when asked;
  the message continues on the following lines (indented or not) until the next header.
- `lake build`: `error: File.lean:203:6: (deterministic) timeout at …` and position-less lines such as
  `error: Lean exited with code 1`, between progress lines (`✔ [12/40] Built …`).
- JSON (`lean --json`, one object per line; the REPL's `messages`): `severity` (`information`, `info`,
  `warning`, `error`), `pos` / `endPos` (`line` from 1, `column` from 0), `data`, maybe `fileName`, `kind`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any, Literal

from pydantic import BaseModel

__all__ = [
    "AxiomReport", "Diagnostic", "first_line", "is_resource_limit", "is_sorry_warning", "parse_axioms",
    "parse_json_message", "parse_output",
]

Severity = Literal["error", "warning", "info"]
_SEVERITIES: dict[str, Severity] = {"error": "error", "warning": "warning", "info": "info",
                                    "information": "info", "trace": "info"}

_LEAN_HEADER = re.compile(
    r"^(?P<file>[^\s:][^:\n]*?):(?P<line>\d+):(?P<col>\d+)(?:-(?P<eline>\d+):(?P<ecol>\d+))?: "
    r"(?P<sev>error|warning|info|information)(?:\([^)\n]*\))?:\s?(?P<msg>.*)$")
_LAKE_HEADER = re.compile(
    r"^(?P<sev>error|warning|info): (?P<file>[^\s:][^:\n]*?):(?P<line>\d+):(?P<col>\d+): (?P<msg>.*)$")
_LAKE_LINE = re.compile(r"^(?P<sev>error|warning|info|trace): (?P<msg>.*)$")
_PROGRESS = re.compile(r"^\s*(?:[✔✖⚠ℹ]|\[\d+/\d+\])")
# Lean ≤ 4.21 says `declaration uses 'sorry'`, later `declaration uses `sorry``; Lean 3 said
# `declaration 'x' uses sorry`. The JSON `kind` `hasSorry` says it without words.
_SORRY = re.compile(r"\bdeclaration\b.*?\buses\s+['`‘]?sorry\b")
_RESOURCE = re.compile(
    r"\(deterministic\) timeout|deterministic timeout|maximum number of heartbeats|"
    r"maximum recursion depth has been reached|deep recursion|stack overflow|out of memory", re.IGNORECASE)
_AXIOMS = re.compile(
    r"'(?P<name>[^\n]+?)' (?:depends on axioms: \[(?P<axioms>[^\]]*)\]|(?P<none>does not depend on any axioms))")


class Diagnostic(BaseModel):
    """One Lean message; `line` counts from 1 and `column` from 0, as Lean reports them; None: no position."""

    severity: Severity
    message: str
    line: int | None = None
    column: int | None = None
    end_line: int | None = None
    end_column: int | None = None
    file: str | None = None
    kind: str | None = None


class AxiomReport(BaseModel):
    """One `#print axioms` answer: the constant and the axioms it depends on (empty: none)."""

    name: str
    axioms: list[str]


def _pos(value: Any) -> tuple[int | None, int | None]:
    if isinstance(value, dict) and isinstance(value.get("line"), int):
        column = value.get("column")
        return value["line"], column if isinstance(column, int) else None
    return None, None


def parse_json_message(obj: Any) -> Diagnostic | None:
    """A Diagnostic from one JSON message object (`lean --json` or the REPL), or None if it is not one."""
    if not isinstance(obj, dict) or obj.get("severity") not in _SEVERITIES:
        return None
    line, column = _pos(obj.get("pos"))
    end_line, end_column = _pos(obj.get("endPos"))
    data = obj.get("data")
    caption = obj.get("caption")
    message = data if isinstance(data, str) else ""
    if isinstance(caption, str) and caption:
        message = f"{caption}:\n{message}"
    file_name, kind = obj.get("fileName"), obj.get("kind")
    return Diagnostic(severity=_SEVERITIES[obj["severity"]], message=message, line=line, column=column,
                      end_line=end_line, end_column=end_column,
                      file=file_name if isinstance(file_name, str) else None,
                      kind=kind if isinstance(kind, str) else None)


def _json_line(line: str) -> Diagnostic | None:
    if not line.startswith("{"):
        return None
    try:
        return parse_json_message(json.loads(line))
    except ValueError:
        return None


def parse_output(text: str) -> list[Diagnostic]:
    """Every diagnostic in Lean's or Lake's output, in order (see module doc for the shapes)."""
    found: list[Diagnostic] = []
    body: list[str] | None = None  # continuation lines of the last text-format message

    def close() -> None:
        if body is not None and found:
            found[-1] = found[-1].model_copy(update={"message": "\n".join(body).rstrip()})

    for raw in text.splitlines():
        line = raw.rstrip("\r")
        from_json = _json_line(line)
        if from_json is not None:
            close()
            body = None
            found.append(from_json)
            continue
        m = _LEAN_HEADER.match(line) or _LAKE_HEADER.match(line)
        if m is not None:
            close()
            eline, ecol = m.groupdict().get("eline"), m.groupdict().get("ecol")
            found.append(Diagnostic(severity=_SEVERITIES[m["sev"]], message=m["msg"], line=int(m["line"]),
                                    column=int(m["col"]), end_line=int(eline) if eline else None,
                                    end_column=int(ecol) if ecol else None, file=m["file"]))
            body = [m["msg"]]
        elif (m := _LAKE_LINE.match(line)) is not None:
            close()
            found.append(Diagnostic(severity=_SEVERITIES[m["sev"]], message=m["msg"]))
            body = [m["msg"]]
        elif _PROGRESS.match(line):
            close()
            body = None
        elif body is not None:
            body.append(line)
    close()
    return found


def is_sorry_warning(diag: Diagnostic) -> bool:
    """True for Lean's "declaration uses sorry" report (a warning, but the step proves nothing)."""
    return diag.kind == "hasSorry" or bool(_SORRY.search(diag.message))


def is_resource_limit(diag: Diagnostic) -> bool:
    """True when the message is Lean running out of heartbeats, recursion depth, stack or memory."""
    return diag.severity == "error" and bool(_RESOURCE.search(diag.message))


def first_line(message: str, limit: int = 300) -> str:
    """The first non-empty line of a message, shortened for an error summary."""
    for line in message.splitlines():
        if line.strip():
            return line.strip()[:limit]
    return ""


def parse_axioms(text: str | Iterable[str]) -> list[AxiomReport]:
    """Every `'X' depends on axioms: [...]` / `'X' does not depend on any axioms` answer, in order.

    The axiom list may be wrapped over several lines (long names); names may contain `'`."""
    joined = text if isinstance(text, str) else "\n".join(text)
    reports = []
    for m in _AXIOMS.finditer(joined):
        axioms = [] if m["none"] else [a.strip() for a in m["axioms"].split(",") if a.strip()]
        reports.append(AxiomReport(name=m["name"], axioms=axioms))
    return reports
