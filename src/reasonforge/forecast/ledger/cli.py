"""`reasonforge forecast reasoning …`: build a market's ledger, grade explanations against it, render audits.

    reasonforge forecast reasoning build-ledger MARKET.json --corpus IDX --out L.json
    reasonforge forecast reasoning grade --ledger L.json --forecasts F.jsonl [--json] [--html OUT.html]
    reasonforge forecast reasoning audit --ledgers DIR --forecasts DIR --out DIR
    reasonforge forecast reasoning rehash L.json     # accept a hand-written or edited ledger explicitly

Exit codes: 0 ok (an excluded, thin ledger is a normal outcome, reported with its reason), 2 input error.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from reasonforge.boundary.files import DOCUMENT_JSON
from reasonforge.boundary.jsontext import load_json
from reasonforge.cli_errors import ReasonForgeTyper
from reasonforge.errors import InputError
from reasonforge.forecast.numbers import fixed

app = ReasonForgeTyper(name="reasoning", help="Reasoning-trajectory scoring: ledgers of later events, key events, "
                       "0–4 grades of forecasters' explanations.", no_args_is_help=True, add_completion=False,
                       pretty_exceptions_enable=False)

REPORT_KEYS = ("market_id", "excluded", "key_events", "scores", "details")

JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object.")]
GraderOpt = Annotated[str, typer.Option("--grader", help="offline (default: local embeddings, no network) or an "
                                        "OpenAI-compatible base URL / model name for the LLM grader.")]
ModelOpt = Annotated[str | None, typer.Option("--model", help="Model id for the LLM grader (default: first of "
                                              "/models).")]
KeyEnvOpt = Annotated[str, typer.Option("--api-key-env", help="Environment variable holding the API key.")]
SeedOpt = Annotated[int, typer.Option("--seed", help="Seed for the LLM grader's event order.")]


def make_grader(spec: str, *, model: str | None = None, api_key_env: str = "OPENAI_API_KEY", seed: int = 0) -> Any:
    """`offline` → OfflineGrader; anything else is an OpenAI-compatible base URL or model name → LLMGrader."""
    from reasonforge.forecast.ledger.grade import OfflineGrader
    from reasonforge.forecast.ledger.llm_grader import LLMGrader

    if not spec.strip():
        raise InputError("--grader is empty; give offline or an OpenAI-compatible base URL", field="grader")
    if spec.strip().lower() == "offline":
        return OfflineGrader()
    return LLMGrader(spec.strip(), model=model, api_key_env=api_key_env, seed=seed)


def report_json(report: Any) -> dict[str, Any]:
    """The GradeReport as the CLI's `--json` object: exactly market_id, excluded, key_events, scores, details."""
    return report.model_dump(mode="json", include=set(REPORT_KEYS))


def _exclusion_reason(ledger: Any) -> str:
    from reasonforge.forecast.ledger.models import MIN_DEVELOPMENTS, counted_developments

    # The count the rule uses (distinct, in the window), not the raw list a hand-written file may pad.
    return (f"thin_ledger: {len(counted_developments(ledger))} distinct development(s) in the "
            f"{ledger.window_days}-day window after "
            f"{ledger.day_zero}; at least {MIN_DEVELOPMENTS} are needed, so the market gets no reasoning score "
            "for this window")


def _default_ledger_path(market_path: Path) -> Path:
    return market_path.with_name(f"{market_path.stem}.ledger.json")


def _is_forecaster_file(path: Path) -> bool:
    """True when the first row is the ledger's own `{forecaster, reasoning}` shape, not a predictions row."""
    try:
        with path.open("rb") as handle:
            for raw in handle:
                if raw.strip():
                    row = load_json(raw[:1_048_576], what=str(path), limits=DOCUMENT_JSON)
                    return isinstance(row, dict) and "forecaster" in row and "id" not in row
    except (OSError, InputError):
        pass  # the reader that follows names the problem with file:line
    return False


def read_forecasts(path: Path, market_id: str) -> list[Any]:
    """The forecasts to grade for one market: a predictions file's rows whose `id` is the market (forecaster:
    `model`, text: `reasoning` or the reply before its PROBABILITY line), or a `{forecaster, reasoning}` file."""
    from reasonforge.forecast.ledger.models import Forecast, load_forecasts
    from reasonforge.forecast.predictions import read_predictions_file

    if _is_forecaster_file(path):
        return load_forecasts(path)
    loaded = read_predictions_file(path)
    for note in loaded.notes:
        Console(stderr=True).print(f"[yellow]note:[/] {escape(note)}", highlight=False, soft_wrap=True)
    rows = [row for row in loaded.rows if row.id == market_id]
    if not rows:
        ids = sorted({row.id for row in loaded.rows})
        shown = ", ".join(ids[:5]) + (f", … ({len(ids)} ids)" if len(ids) > 5 else "")
        raise InputError(f"{path}: no prediction row has id '{market_id}', the ledger's market (ids there: {shown}); "
                         "give each forecaster a row with that id", field="forecasts")
    forecasts = []
    for row in rows:
        name = row.model or row.run
        if name is None:
            raise InputError(f"{path}: the row for '{market_id}' names no forecaster; add \"model\": NAME",
                             field="forecasts")
        forecasts.append(Forecast(forecaster=name, reasoning=row.explanation()))
    return forecasts


@app.command("build-ledger")
def build_ledger_cmd(
        market: Annotated[Path, typer.Argument(help="Market JSON: market_id, title, day_zero, price_path "
                                               "[{date, price}], optional description and news [{date, text, "
                                               "source, ref}].")],
        corpus: Annotated[Path | None, typer.Option("--corpus", help="Dated corpus index directory "
                                                    "(`reasonforge corpus ingest`).")] = None,
        window: Annotated[int, typer.Option("--window", min=1, help="Days after day zero the ledger covers.")] = 14,
        out: Annotated[Path | None, typer.Option("--out", help="Where to store the ledger (default: "
                                                 "MARKET.ledger.json beside the market file).")] = None,
        as_json: JsonOpt = False) -> None:
    """Build and store the market's ledger of dated developments; say if it is excluded and why."""
    from reasonforge.forecast.agentic.corpus import DatedCorpus
    from reasonforge.forecast.ledger.build import build_ledger
    from reasonforge.forecast.ledger.models import load_market, save_ledger

    parsed = load_market(market)
    index = None
    if corpus is not None:
        if not corpus.is_dir():
            raise InputError(f"--corpus {corpus} is not a directory; build one with `reasonforge corpus "
                             "ingest`", field="corpus")
        index = DatedCorpus.open(corpus, create=False)
    ledger = build_ledger(parsed, corpus=index, window_days=window)
    target = out if out is not None else _default_ledger_path(market)
    try:
        save_ledger(ledger, target)
    except OSError as exc:
        raise InputError(f"cannot write the ledger to {target}: {exc.strerror}; choose a writable --out",
                         field="out") from None
    if as_json:
        sys.stdout.write(json.dumps({"market_id": ledger.market_id, "path": str(target),
                                     "content_hash": ledger.content_hash(), "developments": len(ledger.developments),
                                     "excluded": ledger.excluded, "queries": ledger.queries}) + "\n")
        return
    console = Console()
    console.print(f"[bold]{escape(ledger.market_id)}[/]: {escape(ledger.title)}", highlight=False)
    console.print(f"window {ledger.day_zero} + {ledger.window_days} days · {len(ledger.developments)} "
                  f"development(s) · queries: {escape('; '.join(ledger.queries) or '-')}", highlight=False)
    for dev in ledger.developments:
        source = f" [{escape(dev.source)}]" if dev.source else ""
        console.print(f"  {dev.date}  {escape(dev.text[:140])}{source}", highlight=False, soft_wrap=True)
    if ledger.excluded:
        console.print(f"[yellow]excluded[/] {escape(_exclusion_reason(ledger))}", highlight=False, soft_wrap=True)
    console.print(f"saved {escape(str(target))} (sha256 {ledger.content_hash()[:12]}…)", highlight=False)


def _cell(value: float | None) -> str:
    if value is None:
        return "-"
    return str(value) if isinstance(value, int) else fixed(value, 2)


def _print_report(report: Any, ledger: Any, console: Console) -> None:
    console.print(f"[bold]{escape(report.market_id)}[/]: {escape(ledger.title)}", highlight=False)
    if report.excluded:
        console.print(f"[yellow]excluded[/] {escape(_exclusion_reason(ledger))}", highlight=False, soft_wrap=True)
        return
    console.print(f"key events ({len(report.key_events)}):", highlight=False)
    for event in report.key_events:
        console.print(f"  {event.date}  {escape(event.text[:140])}", highlight=False, soft_wrap=True)
    table = Table(title="reasoning scores (0–4)")
    for column in ("forecaster", "argument", "anticipation", "total", "note"):
        table.add_column(column, justify="right" if column in ("argument", "anticipation", "total") else "left")
    ranked = sorted(report.details.values(), key=lambda g: (g.total is None, -(g.total or 0.0), g.forecaster))
    for grade in ranked:
        note = "imputed (25th percentile of the others)" if grade.imputed else grade.reason
        table.add_row(escape(grade.forecaster), _cell(grade.argument), _cell(grade.anticipation),
                      _cell(grade.total), escape(note[:90]))
    console.print(table)


@app.command()
def grade(ledger: Annotated[Path, typer.Option("--ledger", help="Stored ledger JSON (build-ledger --out).")],
          forecasts: Annotated[Path, typer.Option("--forecasts", help="Predictions JSONL (rows with id = the "
                                                  "ledger's market; forecaster = model) or one {forecaster, "
                                                  "reasoning} object per line.")],
          as_json: JsonOpt = False,
          grader: GraderOpt = "offline",
          model: ModelOpt = None,
          api_key_env: KeyEnvOpt = "OPENAI_API_KEY",
          seed: SeedOpt = 0,
          html: Annotated[Path | None, typer.Option("--html", help="Also write the audit page (HTML) here.")] = None,
          audit_json: Annotated[Path | None, typer.Option("--audit-json", help="Also write the audit record (JSON) "
                                                          "here.")] = None) -> None:
    """Grade every forecaster's explanation against the same ledger; print scores, or the exclusion and why."""
    from reasonforge.forecast.ledger.audit import audit_record, render_html
    from reasonforge.forecast.ledger.grade import grade_market
    from reasonforge.forecast.ledger.models import load_ledger

    stored = load_ledger(ledger)
    rows = read_forecasts(forecasts, stored.market_id)
    report = grade_market(stored, rows, make_grader(grader, model=model, api_key_env=api_key_env, seed=seed))
    record = audit_record(stored, rows, report)
    for path, text in ((html, lambda: render_html(record)),
                       (audit_json, lambda: record.model_dump_json(indent=2) + "\n")):
        if path is None:
            continue
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text(), encoding="utf-8")
        except OSError as exc:
            raise InputError(f"cannot write {path}: {exc.strerror}; choose a writable path", field="out") from None
    if as_json:
        sys.stdout.write(json.dumps(report_json(report), ensure_ascii=False) + "\n")
        return
    _print_report(report, stored, Console())


def _pairs(ledgers: Path, forecasts: Path) -> list[tuple[Path, Path]]:
    from reasonforge.forecast.ledger.audit import safe_name

    if not ledgers.is_dir():
        raise InputError(f"--ledgers {ledgers} is not a directory of ledger JSON files", field="ledgers")
    if not forecasts.is_dir():
        raise InputError(f"--forecasts {forecasts} is not a directory of <market_id>.jsonl files", field="forecasts")
    pairs = []
    for path in sorted(ledgers.glob("*.json")):
        stem = path.name.removesuffix(".json").removesuffix(".ledger")
        candidates = [forecasts / f"{stem}.jsonl", forecasts / f"{safe_name(stem)}.jsonl"]
        match = next((c for c in candidates if c.is_file()), None)
        if match is None:
            raise InputError(f"no forecasts for ledger {path.name}: expected {candidates[0]}", field="forecasts")
        pairs.append((path, match))
    if not pairs:
        raise InputError(f"--ledgers {ledgers} holds no *.json ledgers", field="ledgers")
    return pairs


@app.command()
def audit(ledgers: Annotated[Path, typer.Option("--ledgers", help="Directory of ledger JSON files.")],
          forecasts: Annotated[Path, typer.Option("--forecasts", help="Directory of <name>.jsonl forecasts, one per "
                                                  "ledger <name>.json (or <name>.ledger.json).")],
          out: Annotated[Path, typer.Option("--out", help="Directory for <market>.json, <market>.html and "
                                            "index.html.")],
          grader: GraderOpt = "offline",
          model: ModelOpt = None,
          api_key_env: KeyEnvOpt = "OPENAI_API_KEY",
          seed: SeedOpt = 0,
          as_json: JsonOpt = False) -> None:
    """Grade and render many markets: one audit JSON and HTML page per ledger, plus an index page."""
    from reasonforge.forecast.ledger.audit import (
        audit_record,
        render_index,
        write_audit,
    )
    from reasonforge.forecast.ledger.grade import grade_market
    from reasonforge.forecast.ledger.models import load_ledger

    pairs = _pairs(ledgers, forecasts)
    chosen = make_grader(grader, model=model, api_key_env=api_key_env, seed=seed)
    records, pages = [], {}
    for ledger_path, forecast_path in pairs:
        stored = load_ledger(ledger_path)
        rows = read_forecasts(forecast_path, stored.market_id)
        record = audit_record(stored, rows, grade_market(stored, rows, chosen))
        if record.market_id in pages:
            raise InputError(f"market {record.market_id!r} appears in two ledgers; keep one", field="ledgers")
        _, html_path = write_audit(record, out)
        records.append(record)
        pages[record.market_id] = html_path.name
    try:
        (out / "index.html").write_text(render_index(records, pages), encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot write {out / 'index.html'}: {exc.strerror}", field="out") from None
    if as_json:
        sys.stdout.write(json.dumps({"out": str(out), "markets": [report_json(r.report) for r in records]},
                                    ensure_ascii=False) + "\n")
        return
    console = Console()
    for record in records:
        report = record.report
        if report.excluded:
            console.print(f"{escape(record.market_id)}: [yellow]excluded[/] "
                          f"{escape(_exclusion_reason(record.ledger))}", highlight=False, soft_wrap=True)
        else:
            scores = ", ".join(f"{escape(k)} {fixed(v, 2)}" for k, v in sorted(report.scores.items()))
            console.print(f"{escape(record.market_id)}: {scores}", highlight=False, soft_wrap=True)
    console.print(f"wrote {len(records)} audit page(s) and index.html to {escape(str(out))}", highlight=False)


@app.command()
def rehash(ledger: Annotated[Path, typer.Argument(help="Ledger JSON written or edited by hand.")],
           as_json: JsonOpt = False) -> None:
    """Accept a hand-written or edited ledger: re-derive its exclusion, record its content hash, say so."""
    from reasonforge.forecast.ledger.models import rehash_ledger

    done = rehash_ledger(ledger)
    if as_json:
        sys.stdout.write(done.model_dump_json() + "\n")
        return
    console = Console()
    if not done.changed:
        console.print(f"{escape(done.path)}: content_hash {done.content_hash[:12]}… already matches its content; "
                      "nothing written", highlight=False, soft_wrap=True)
        return
    before = "no content_hash" if done.previous_hash is None else f"content_hash {done.previous_hash[:12]}…"
    console.print(f"rehashed {escape(done.path)}: {before} → {done.content_hash[:12]}… ({done.developments} "
                  f"distinct development(s) in the window{'; excluded as thin_ledger' if done.excluded else ''}); "
                  "it will now be graded as it stands", highlight=False, soft_wrap=True)
