"""What a finished job's verdict says about the work done, read from its stored JSON: the figures the metrics and
the dashboard both count, read one way."""

from __future__ import annotations

from dataclasses import dataclass, field

from reasonforge.types import ErrorKind, JobStatus, Spec

__all__ = ["FINISHED", "KILL_REASONS", "WorkFacts", "work_facts"]

KILL_REASONS = tuple(kind.value for kind in (ErrorKind.TIMEOUT, ErrorKind.MEMORY, ErrorKind.TOO_LARGE, ErrorKind.CRASH))
"""Step error kinds that mean a limit stopped the check (or the checked code) rather than a judgement."""
FINISHED = (JobStatus.COMPLETE.value, JobStatus.FAILED.value)
"""Job statuses whose work is done: complete (a verdict) or failed (none could be had)."""


@dataclass
class WorkFacts:
    """One verdict's domain, level and overall verdict, each checker's time on each step (by spec name, as the
    metrics label it, and by the display name people are shown, `Spec.display_name`), the kills, and the 1-based
    position of the first failing step (None when nothing was refuted)."""

    domain: str
    level: str
    overall: str
    checker_seconds: list[tuple[str, float]] = field(default_factory=list)
    shown_checker_seconds: list[tuple[str, float]] = field(default_factory=list)
    kills: list[str] = field(default_factory=list)
    first_failure: int | None = None


def work_facts(verdict: dict) -> WorkFacts:
    """The facts of a verdict as stored (`VerificationVerdict` JSON, parsed)."""
    facts = WorkFacts(str(verdict.get("domain")), str(verdict.get("proof_level")), str(verdict.get("overall")))
    steps = verdict.get("step_verdicts") or []
    for step in steps:
        details = step.get("details") or {}
        spec, elapsed = step.get("checker_spec"), details.get("elapsed_ms")
        if isinstance(spec, dict) and isinstance(elapsed, (int, float)):
            name = str(spec.get("name", "unknown"))
            facts.checker_seconds.append((name, elapsed / 1000))
            shown = Spec(name=name, version=str(spec.get("version", ""))).display_name
            facts.shown_checker_seconds.append((shown, elapsed / 1000))
        if step.get("error_kind") in KILL_REASONS:
            facts.kills.append(step["error_kind"])
    report = verdict.get("failure_report")
    if isinstance(report, dict):
        ids = [step.get("step_id") for step in steps]
        if report.get("failed_step_id") in ids:
            facts.first_failure = ids.index(report["failed_step_id"]) + 1
    return facts
