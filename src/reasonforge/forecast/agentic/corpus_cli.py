"""`reasonforge corpus …`: build, search and describe a dated news corpus (a tantivy index on disk).

Exit codes as in the main CLI: 0 ok, 2 input error (a message, no traceback). tantivy loads inside the
commands so `reasonforge --help` stays fast.
"""

from __future__ import annotations

import json
import sys
from enum import Enum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from reasonforge.cli_errors import ReasonForgeTyper, fail

app = ReasonForgeTyper(name="corpus", help="Dated news corpus: ingest articles, search as of a date, stats.",
                       no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False)

MAX_LISTED_ERRORS = 20

IndexOpt = Annotated[Path, typer.Option("--index", help="Directory of the corpus index.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]


class AdapterChoice(str, Enum):
    auto = "auto"
    plain = "plain"
    cep = "cep"


@app.command()
def ingest(file: Annotated[Path, typer.Argument(help="JSONL, JSON array or CSV of articles.")],
           index: IndexOpt,
           adapter: Annotated[AdapterChoice, typer.Option("--adapter", help="Row format: plain {id, title, text, "
                                                          "published_at, source?, url?}; cep = the news sample; "
                                                          "auto picks from the first row.")] = AdapterChoice.auto,
           strict: Annotated[bool, typer.Option("--strict", help="Stop at the first bad row; ingest nothing.")] = False,
           as_json: JsonOpt = False) -> None:
    """Add the file's articles to the index (created if new); duplicates and bad rows are counted, not added."""
    from reasonforge.forecast.agentic.corpus import DatedCorpus, load_articles

    errors: list[str] | None = None if strict else []
    docs = load_articles(file, adapter.value, errors=errors)
    report = DatedCorpus.open(index).ingest(docs)
    row_errors = errors or []
    report = report.model_copy(update={"skipped": report.skipped + len(row_errors),
                                       "errors": row_errors + report.errors})
    if as_json:
        sys.stdout.write(report.model_dump_json() + "\n")
    else:
        Console().print(f"added {report.added}, duplicates {report.duplicates}, skipped {report.skipped}",
                        highlight=False)
        err = Console(stderr=True)
        for message in report.errors[:MAX_LISTED_ERRORS]:
            err.print(f"[yellow]skipped[/] {escape(message)}", highlight=False, soft_wrap=True)
        if len(report.errors) > MAX_LISTED_ERRORS:
            err.print(f"[yellow]… and {len(report.errors) - MAX_LISTED_ERRORS} more[/]", highlight=False)
    if report.skipped and not report.added and not report.duplicates:
        raise fail(f"no usable rows in {file}; first problem: {report.errors[0]}")


@app.command()
def search(query: Annotated[str, typer.Argument(help="Keywords (plain words; query syntax is not interpreted).")],
           index: IndexOpt,
           as_of: Annotated[str, typer.Option("--as-of", help="Only documents published at or before this ISO "
                                              "date/datetime (a bare date is 00:00 UTC; no offset means UTC).")],
           k: Annotated[int, typer.Option("--k", help="Number of hits.")] = 10,
           as_json: JsonOpt = False) -> None:
    """The best-matching documents published by --as-of; JSON: [{id, title, published_at, score, snippet}]."""
    from reasonforge.forecast.agentic.corpus import DatedCorpus, parse_as_of

    hits = DatedCorpus.open(index, create=False).search(query, parse_as_of(as_of), k)
    if as_json:
        sys.stdout.write(json.dumps([hit.model_dump(mode="json") for hit in hits], ensure_ascii=False) + "\n")
        return
    console = Console()
    if not hits:
        console.print(f"no documents published by {as_of} match {query!r}", highlight=False)
        return
    table = Table(title=f"{len(hits)} hit(s) published by {escape(as_of)}", title_justify="left")
    for column in ("score", "published", "id", "title / snippet"):
        table.add_column(column, justify="right" if column == "score" else "left")
    for hit in hits:
        table.add_row(f"{hit.score:.2f}", hit.published_at.strftime("%Y-%m-%d %H:%M"), escape(hit.id),
                      f"[bold]{escape(hit.title)}[/]\n{escape(hit.snippet)}")
    console.print(table)


@app.command()
def stats(index: IndexOpt, as_json: JsonOpt = False) -> None:
    """Number of documents, first and last publication time, documents per source."""
    from reasonforge.forecast.agentic.corpus import DatedCorpus

    result = DatedCorpus.open(index, create=False).stats()
    if as_json:
        sys.stdout.write(result.model_dump_json() + "\n")
        return
    console = Console()
    span = ("-" if result.first is None or result.last is None
            else f"{result.first.isoformat()} … {result.last.isoformat()}")
    console.print(f"documents: {result.documents}\npublished: {span}", highlight=False)
    if result.sources:
        table = Table(title=f"sources ({len(result.sources)})", title_justify="left")
        table.add_column("source")
        table.add_column("documents", justify="right")
        for name, count in list(result.sources.items())[:20]:
            table.add_row(escape(name), str(count))
        console.print(table)
        if len(result.sources) > 20:
            console.print(f"[dim]… and {len(result.sources) - 20} more sources (--json lists all)[/]")

