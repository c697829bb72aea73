"""The `reasonforge` command line: verify reasoning chains, print schemas."""

from __future__ import annotations

import json
import sys
from enum import Enum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table

from reasonforge.bench.cli import app as bench_app
from reasonforge.certificate.cli import app as cert_app
from reasonforge.cli_errors import ReasonForgeTyper, fail, require_finite
from reasonforge.errors import InputError
from reasonforge.forecast.agentic.corpus_cli import app as corpus_app
from reasonforge.forecast.cli import app as forecast_app
from reasonforge.service.accounts.cli import keys_app
from reasonforge.service.cli import serve as serve_command
from reasonforge.service.cli import worker as worker_command
from reasonforge.subnet.cli import app as subnet_app
from reasonforge.types import (
    SCHEMA_MODELS,
    ChainLimits,
    CheckLimits,
    Overall,
    ProofLevel,
    Prover,
    StepStatus,
    VerificationVerdict,
)

app = ReasonForgeTyper(
    name="reasonforge",
    help="Machine-checked verdicts on AI reasoning.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

EXIT_VERIFIED, EXIT_NOT_VERIFIED = 0, 1

_STATUS_STYLE = {
    StepStatus.VERIFIED: "green",
    StepStatus.FAILED: "bold red",
    StepStatus.INVALIDATED: "yellow",
    StepStatus.ERROR: "magenta",
    StepStatus.UNSUPPORTED: "dim",
}
_OVERALL_STYLE = {Overall.VERIFIED: "bold green", Overall.PARTIAL: "bold yellow", Overall.FAILED: "bold red"}


class Level(str, Enum):
    quick = "quick"
    standard = "standard"
    formal = "formal"


class ProverChoice(str, Enum):
    coq = "coq"
    lean4 = "lean4"
    auto = "auto"


def _read_source(source: str, what: str, limit: int) -> bytes:
    """The bytes of `source` (a file, or '-' for standard input), reading at most `limit` + 1 of them."""
    if source == "-":
        if sys.stdin is None:
            raise InputError(f"'-' reads the {what} from standard input, but there is none", field=what)
        data = sys.stdin.buffer.read(limit + 1)  # never more: a stream may be endless
        name = "standard input"
    else:
        path = Path(source)
        if not path.is_file():
            raise InputError(f"{what} file '{source}' does not exist or is not a file", field=what)
        try:
            with path.open("rb") as handle:
                data = handle.read(limit + 1)
        except OSError as exc:
            raise InputError(f"{what} file '{source}' cannot be read ({exc.strerror or exc})", field=what) from None
        name = f"'{source}'"
    if len(data) > limit:
        raise InputError(f"the {what} ({name}) is over the limit of {limit} bytes; split the chain", field=what)
    return data


@app.command()
def verify(
    file: Annotated[str, typer.Argument(help="Request JSON (a VerifyRequest); '-' reads standard input.")],
    translations: Annotated[
        str | None, typer.Option("--translations", help="JSON list of StepTranslation to check instead of translating.")
    ] = None,
    level: Annotated[Level | None, typer.Option("--level", help="Override the request's proof_level.")] = None,
    prover: Annotated[
        ProverChoice | None, typer.Option("--prover", help="Override the request's prover for formal mathematics.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print exactly one VerificationVerdict JSON object.")] = False,
    timeout: Annotated[float, typer.Option("--timeout", min=0.001, help="Per-step checker time limit in seconds.")] = 10.0,
) -> None:
    """Verify a reasoning chain. Exit 0 VERIFIED, 1 PARTIAL or FAILED, 2 input error."""
    from reasonforge.chain import parse_request, parse_translations
    from reasonforge.pipeline.run import verify_chain

    require_finite("--timeout", timeout, "number of seconds")
    limit = ChainLimits().max_request_bytes
    request = parse_request(_read_source(file, "request", limit))
    if level is not None:
        request = request.model_copy(update={"proof_level": ProofLevel(level.value)})
    if prover is not None:
        request = request.model_copy(update={"prover": Prover(prover.value)})
    supplied = parse_translations(_read_source(translations, "translations", limit)) if translations else None
    verdict = verify_chain(request, translations=supplied, limits=CheckLimits(timeout_s=timeout))
    if as_json:
        sys.stdout.write(verdict.model_dump_json() + "\n")
    else:
        render_verdict(verdict, Console(), title=file if file != "-" else "stdin")
    raise typer.Exit(EXIT_VERIFIED if verdict.overall is Overall.VERIFIED else EXIT_NOT_VERIFIED)


def render_verdict(verdict: VerificationVerdict, console: Console, title: str = "") -> None:
    """Print the per-step table and the failure report."""
    table = Table(title=title or None, title_justify="left", show_lines=False)
    table.add_column("step", justify="right")
    table.add_column("status")
    table.add_column("checker")
    table.add_column("ms", justify="right")
    table.add_column("message", overflow="fold")
    for sv in verdict.step_verdicts:
        spec = sv.checker_spec
        checker = f"{spec.name.removeprefix('reasonforge.')} {spec.version}".strip() if spec is not None else "-"
        elapsed = sv.details.get("elapsed_ms")
        table.add_row(
            str(sv.step_id),
            f"[{_STATUS_STYLE[sv.status]}]{sv.status.value}[/]",
            checker,
            f"{elapsed:.1f}" if isinstance(elapsed, (int, float)) else "-",
            escape(sv.error_message or ""),
        )
    console.print(table)
    style = _OVERALL_STYLE[verdict.overall]
    console.print(
        f"[{style}]{verdict.overall.value}[/]  {verdict.verified_steps}/{verdict.total_steps} steps verified"
        f"  ({verdict.domain.value}, {verdict.proof_level.value}, {verdict.verification_time_ms} ms)",
        highlight=False,
    )
    console.print(f"[dim]verdict_hash {verdict.verdict_hash}[/]", highlight=False, soft_wrap=True)
    report = verdict.failure_report
    if report is not None:
        lines = [
            f"[bold]step {report.failed_step_id}[/]: {escape(report.original_reasoning)}",
            f"[bold]why[/]: {escape(report.verification_error)}",
        ]
        if report.suggested_fix:
            lines.append(f"[bold]fix[/]: {escape(report.suggested_fix)}")
        impact = ", ".join(map(str, report.cascade_impact)) or "none"
        lines.append(f"[bold]invalidated[/]: {impact}   [bold]last valid step[/]: {report.last_valid_step}")
        lines.append(f"[bold]partial correctness[/]: {report.partial_correctness:.0%}")
        console.print(Panel("\n".join(lines), title="failure report", title_align="left", border_style="red"))


@app.command()
def schema(
    model: Annotated[str | None, typer.Argument(help="One model name, e.g. VerifyRequest; all when omitted.")] = None,
) -> None:
    """Print the JSON Schema of the request and verdict models."""
    models = {m.__name__: m for m in SCHEMA_MODELS}
    if model is not None and model not in models:
        raise fail(f"unknown model '{model}'; choose one of {', '.join(models)}")
    chosen = [models[model]] if model else list(models.values())
    out = {m.__name__: m.model_json_schema() for m in chosen}
    sys.stdout.write(json.dumps(out[model] if model else out, indent=2) + "\n")


app.add_typer(forecast_app, name="forecast")
app.add_typer(corpus_app, name="corpus", help="Dated news corpus: ingest articles, search as of a date, stats.")
app.add_typer(bench_app, name="bench")
app.add_typer(cert_app, name="cert")
app.add_typer(keys_app, name="keys")
app.add_typer(subnet_app, name="subnet")
app.command("serve")(serve_command)
app.command("worker")(worker_command)


if __name__ == "__main__":
    app()
