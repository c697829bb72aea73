"""`reasonforge forecast …`: baselines, score, calibration, probe, eval, harvest.

Exit codes as in the main CLI: 0 ok, 2 input error (a message, no traceback). Heavy modules
(NumPy, httpx, matplotlib) load inside the commands so `reasonforge --help` stays fast.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from reasonforge.cli_errors import ReasonForgeTyper, fail, require_finite
from reasonforge.errors import InputError
from reasonforge.forecast.agentic.episode_cli import app as episode_app
from reasonforge.forecast.commit.cli import add_commands as add_commit_commands
from reasonforge.forecast.ledger.cli import app as reasoning_app
from reasonforge.forecast.numbers import fixed

app = ReasonForgeTyper(name="forecast",
                       help="Forecast evaluation: proper scores against settled outcomes and the market.",
                       no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False)

app.add_typer(episode_app, name="episode", help="Multi-date agentic forecasting episodes: run agents, analyse runs.")
app.add_typer(reasoning_app, name="reasoning", help="Reasoning-trajectory scoring: ledgers, key events, 0–4 grades.")

EXIT_OK = 0

DataOpt = Annotated[Path | None, typer.Option("--data", help="JSONL of ForecastBench or ForecastItem rows (default: the packaged ForecastBench slice).")]
HorizonsOpt = Annotated[list[str] | None, typer.Option("--horizons", help="Keep these horizons in hours (comma list or repeated).")]
MinVolumeOpt = Annotated[float, typer.Option("--min-volume", help="Drop markets thinner than this (USD).")]
NearCertainOpt = Annotated[float, typer.Option("--exclude-near-certain", help="Drop items priced within this of 0 or 1.")]
IncludeTagsOpt = Annotated[list[str] | None, typer.Option("--include-tags", help="Keep items with one of these tags.")]
ExcludeTagsOpt = Annotated[list[str] | None, typer.Option("--exclude-tags", help="Drop items with any of these tags.")]
MaxItemsOpt = Annotated[int | None, typer.Option("--max-items", help="Keep the earliest N items by cutoff.")]
LenientOpt = Annotated[bool, typer.Option("--lenient", help="Skip invalid rows (reported with file:line) instead of stopping.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object.")]
ResamplesOpt = Annotated[int, typer.Option("--resamples", min=0, help="Bootstrap resamples (by question).")]
SeedOpt = Annotated[int, typer.Option("--seed", help="Bootstrap seed.")]


def _unwritable(path: Path, exc: OSError, flag: str) -> InputError:
    """The InputError for an output path that cannot be written."""
    return InputError(f"cannot write {path}: {exc.strerror or exc}; choose a writable {flag}", field=flag.lstrip("-"))


def _split(values: list[str] | None) -> list[str] | None:
    if not values:
        return None
    return [part.strip() for value in values for part in value.split(",") if part.strip()]


def _items(data, horizons, min_volume, exclude_near_certain, include_tags, exclude_tags, max_items, lenient):
    from pydantic import ValidationError

    from reasonforge.forecast.dataset import ForecastFilters, load_dataset

    try:
        hours = [float(h) for h in _split(horizons) or []] or None
    except ValueError:
        raise InputError(f"--horizons takes hours as numbers, got {horizons}", field="horizons") from None
    try:
        filters = ForecastFilters(horizons=hours, min_volume=min_volume, exclude_near_certain=exclude_near_certain,
                                  include_tags=_split(include_tags), exclude_tags=_split(exclude_tags),
                                  max_items=max_items)
    except ValidationError as exc:
        first = exc.errors()[0]
        raise InputError(f"--{str(first['loc'][0]).replace('_', '-')}: {first['msg']}", field="filters") from None
    loaded = load_dataset(data, filters, lenient=lenient)
    for issue in loaded.issues:
        Console(stderr=True).print(f"[yellow]skipped[/] {escape(str(issue))}", highlight=False, soft_wrap=True)
    if not loaded.items:
        raise InputError("no items left after the filters; loosen them or check --data", field="filters")
    return loaded.items


def _fmt(x: float | None, digits: int = 4) -> str:
    return fixed(x, digits)


@app.command()
def baselines(data: DataOpt = None, horizons: HorizonsOpt = None, min_volume: MinVolumeOpt = 0.0,
              exclude_near_certain: NearCertainOpt = 0.0, include_tags: IncludeTagsOpt = None,
              exclude_tags: ExcludeTagsOpt = None, max_items: MaxItemsOpt = None, lenient: LenientOpt = False,
              as_json: JsonOpt = False) -> None:
    """Degenerate strategies (always 0.95 / 0.05 / 0.5, market, oracle) on all items and the 0.05–0.95 band."""
    from reasonforge.forecast.report import baselines as run

    report = run(_items(data, horizons, min_volume, exclude_near_certain, include_tags, exclude_tags,
                        max_items, lenient))
    if as_json:
        sys.stdout.write(report.model_dump_json() + "\n")
        return
    console = Console()
    for title, table_data in ((f"all items (n={report.n_items})", report),
                              (f"market band 0.05–0.95 (n={report.band.n_items})", report.band)):
        table = Table(title=title, title_justify="left")
        for col in ("strategy", "Brier", "Brier reward", "log reward"):
            table.add_column(col, justify="right" if col != "strategy" else "left")
        for name, row in table_data.strategies.items():
            table.add_row(name, _fmt(row.brier), _fmt(row.brier_reward), _fmt(row.log_reward))
        console.print(table)
    console.print("[dim]0.75 is the reward for having no opinion (always 0.5); a model below it is worse than useless.[/]")


def read_predictions(path: Path, items=None, command: str = "forecast score"):
    """The rows of a predictions file; its notes (a deprecated field) go to stderr once. With `items`, a file
    none of whose ids is an item is an InputError: scoring it would only report every item missing. These
    readers score binary items, so a multi-class row is refused, naming `command`."""
    from reasonforge.forecast.predictions import read_predictions_file

    loaded = read_predictions_file(path, binary=command)
    for note in loaded.notes:
        Console(stderr=True).print(f"[yellow]note:[/] {escape(note)}", highlight=False, soft_wrap=True)
    if items is not None:
        wanted = {item.id for item in items}
        if not any(row.id in wanted for row in loaded.rows):
            raise InputError(f"none of the {len(loaded.rows)} prediction ids in {path} is an item of the data "
                             f"(first: '{loaded.rows[0].id}'); check --data and the filters", field="predictions")
    return loaded.rows


def _scored(predictions: Path, items, resamples: int, seed: int):
    from reasonforge.forecast.report import score_predictions

    return score_predictions(items, read_predictions(predictions, items), resamples=resamples, seed=seed,
                             source=str(predictions))


def render_score(result, console: Console) -> None:
    """The metrics table (all items and market band, with CIs)."""
    report = result.report
    table = Table(title=f"{result.predictions or 'predictions'}: {report.n_items} items, {report.n_questions} questions "
                        f"({report.resamples} {report.bootstrap} bootstrap resamples by question)", title_justify="left")
    table.add_column("metric")
    for label in (f"all (n={report.all.n_items})", f"band {report.band[0]}–{report.band[1]} (n={report.market_band.n_items})"):
        table.add_column(label, justify="right")
    for name, value in report.all.metrics.items():
        band_value = report.market_band.metrics[name]
        cells = [f"{_fmt(v.value)} [{_fmt(v.ci_low)}, {_fmt(v.ci_high)}]" for v in (value, band_value)]
        table.add_row(name + (" (weight 1)" if name == "brier_reward" else ""), *cells)
    console.print(table)
    console.print(f"missing predictions: {result.n_missing}, unparsable: {result.n_unparsed}, "
                  f"ignored (ids not in the data): {result.n_extra}", highlight=False)
    corr = report.all.metrics["market_correlation"].value
    if corr is not None and corr > 0.97:
        console.print(f"[yellow]correlation with the market price is {fixed(corr, 3)}: this looks like market copying[/]")


@app.command()
def score(predictions: Annotated[Path, typer.Argument(help="Predictions JSONL: {id, probability} or {id, reply} rows.")],
          data: DataOpt = None, horizons: HorizonsOpt = None, min_volume: MinVolumeOpt = 0.0,
          exclude_near_certain: NearCertainOpt = 0.0, include_tags: IncludeTagsOpt = None,
          exclude_tags: ExcludeTagsOpt = None, max_items: MaxItemsOpt = None, lenient: LenientOpt = False,
          resamples: ResamplesOpt = 1000, seed: SeedOpt = 0, as_json: JsonOpt = False) -> None:
    """Every metric with bootstrap 95 % CIs on all items and on the 0.05–0.95 market band."""
    items = _items(data, horizons, min_volume, exclude_near_certain, include_tags, exclude_tags, max_items, lenient)
    result = _scored(predictions, items, resamples, seed)
    if as_json:
        sys.stdout.write(result.model_dump_json() + "\n")
    else:
        render_score(result, Console())


@app.command()
def calibration(predictions: Annotated[Path | None, typer.Argument(help="Predictions JSONL (default: the market price).")] = None,
                data: DataOpt = None, horizons: HorizonsOpt = None, min_volume: MinVolumeOpt = 0.0,
                exclude_near_certain: NearCertainOpt = 0.0, include_tags: IncludeTagsOpt = None,
                exclude_tags: ExcludeTagsOpt = None, max_items: MaxItemsOpt = None, lenient: LenientOpt = False,
                out: Annotated[Path, typer.Option("--out", help="PNG to write.")] = Path("forecast-calibration.png"),
                bins: Annotated[int, typer.Option("--bins", min=2, max=100, help="Probability bins of the diagram.")] = 10, as_json: JsonOpt = False) -> None:
    """Reliability diagram (PNG), Murphy decomposition and ECE; the market is drawn for reference."""
    from reasonforge.forecast.calibration import calibration_report, plot_reliability
    from reasonforge.forecast.dataset import item_arrays
    from reasonforge.forecast.report import probabilities

    items = _items(data, horizons, min_volume, exclude_near_certain, include_tags, exclude_tags, max_items, lenient)
    n_missing = 0
    rows = None
    if predictions:
        # the market reference is drawn on the same answered items, so the two curves compare like with like
        rows, items, n_missing = _answered(predictions, items, "forecast calibration")
    arrays = item_arrays(items)
    p = probabilities(items, rows) if rows is not None else arrays.market
    report = calibration_report(p, arrays.outcome, bins, n_missing=n_missing)
    market = calibration_report(arrays.market, arrays.outcome, bins) if predictions else None
    label = predictions.name if predictions else "market price"
    try:
        report.plot = str(plot_reliability(report, out, title=f"Reliability: {label}", label=label, reference=market))
    except OSError as exc:
        raise _unwritable(out, exc, "--out") from None
    if as_json:
        sys.stdout.write(report.model_dump_json() + "\n")
        return
    console = Console()
    table = Table(title=f"reliability of {label} ({report.n} forecasts, {report.n_unparsed} unparsable)", title_justify="left")
    for col in ("bin", "n", "mean forecast", "observed rate"):
        table.add_column(col, justify="right")
    for b in report.bins:
        table.add_row(f"[{b.lo:.1f}, {b.hi:.1f})", str(b.n), _fmt(b.mean_forecast), _fmt(b.observed_rate))
    console.print(table)
    m = report.murphy
    if m is not None:
        console.print(f"Murphy: reliability {_fmt(m.reliability)} − resolution {_fmt(m.resolution)} + uncertainty "
                      f"{_fmt(m.uncertainty)} = {_fmt(m.recomposed)} (Brier {_fmt(m.brier)})", highlight=False)
    console.print(f"ECE ({bins} bins): {_fmt(report.ece)}   plot: {report.plot}", highlight=False)
    if predictions:
        console.print(f"answered {len(items)}, missing {report.n_missing} (not scored)", highlight=False)


def _answered(predictions: Path, items: list, command: str) -> tuple[list, list, int]:
    """The rows of `predictions`, the items they answer, and how many items they leave unanswered: an unanswered
    item states no forecast (it is not an unparsable one), so it is left out and counted, never scored."""
    rows = read_predictions(predictions, items, command)
    ids = {row.id for row in rows}
    answered = [item for item in items if item.id in ids]
    return rows, answered, len(items) - len(answered)


@app.command()
def probe(cutoff: Annotated[str, typer.Option("--cutoff", help="Model training cutoff, ISO-8601 UTC (e.g. 2026-08-25T00:00:00Z).")],
          predictions: Annotated[Path | None, typer.Argument(help="Predictions JSONL (default: the market).")] = None,
          data: DataOpt = None, lenient: LenientOpt = False, resamples: ResamplesOpt = 1000, seed: SeedOpt = 0,
          as_json: JsonOpt = False) -> None:
    """Contamination probe: model and market Brier on events resolved before / after the cutoff."""
    from reasonforge.forecast.probe import contamination_probe
    from reasonforge.forecast.report import probabilities

    items = _items(data, None, 0.0, 0.0, None, None, None, lenient)
    n_missing = 0
    p = None
    if predictions:
        # a missing prediction is no evidence of recall either way: only answered items are probed
        rows, items, n_missing = _answered(predictions, items, "forecast probe")
        p = probabilities(items, rows)
    report = contamination_probe(cutoff, items, p, model=predictions.name if predictions else "", resamples=resamples,
                                 seed=seed, n_missing=n_missing)
    if as_json:
        sys.stdout.write(report.model_dump_json() + "\n")
        return
    table = Table(title=f"contamination probe at {report.cutoff.isoformat()} ({report.model})", title_justify="left")
    for col in ("half", "items", "model Brier [95% CI]", "market Brier [95% CI]", "model − market"):
        table.add_column(col, justify="right")
    for name, half in (("resolved before", report.before), ("resolved after", report.after)):
        cells = [f"{_fmt(c.value)} [{_fmt(c.ci_low)}, {_fmt(c.ci_high)}]" for c in (half.model_brier, half.market_brier, half.gap)]
        table.add_row(name, str(half.n_items), *cells)
    Console().print(table)
    Console().print(f"answered {report.before.n_items + report.after.n_items}, missing {report.n_missing} "
                    "(not scored)", highlight=False)
    s = report.recall_signal
    Console().print(f"recall signal (gap before − gap after): {_fmt(s.value)} [{_fmt(s.ci_low)}, {_fmt(s.ci_high)}]; "
                    "clearly negative means the model does better on what it may remember", highlight=False)


@app.command("eval")
def eval_(model: Annotated[str, typer.Option("--model", help="market | always-0.5 | base-rate | a model name | an OpenAI-compatible base URL.")],
          data: DataOpt = None, horizons: HorizonsOpt = None, min_volume: MinVolumeOpt = 0.0,
          exclude_near_certain: NearCertainOpt = 0.0, include_tags: IncludeTagsOpt = None,
          exclude_tags: ExcludeTagsOpt = None, max_items: MaxItemsOpt = None, lenient: LenientOpt = False,
          out: Annotated[Path | None, typer.Option("--out", help="Predictions JSONL, appended as replies arrive (resumable; default forecast-eval-<model>.jsonl).")] = None,
          model_name: Annotated[str | None, typer.Option("--model-name", help="Model id when --model is a URL (default: first of /models).")] = None,
          base_url: Annotated[str | None, typer.Option("--base-url", help="Endpoint for a model name (default $OPENAI_BASE_URL or OpenAI).")] = None,
          concurrency: Annotated[int, typer.Option("--concurrency", min=1, max=256, help="Requests in flight.")] = 8,
          retries: Annotated[int, typer.Option("--retries", min=0, help="Retries of a failed request.")] = 4,
          timeout: Annotated[float, typer.Option("--timeout", min=0.1, help="Seconds per request.")] = 120.0,
          temperature: Annotated[float | None, typer.Option("--temperature", help="Sampling temperature sent with each request (default: the server's).")] = None,
          max_tokens: Annotated[int | None, typer.Option("--max-tokens", min=1, help="Reply token limit sent with each request (default: the server's).")] = None,
          resamples: ResamplesOpt = 1000, seed: SeedOpt = 0, as_json: JsonOpt = False) -> None:
    """Run a model (or a built-in baseline) over the items, append each reply to the predictions file, then score it."""
    import asyncio
    import re

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    from reasonforge.forecast.env import ENV_NAME, ForecastEnvironment
    from reasonforge.forecast.report import score_predictions
    from reasonforge.forecast.runner import RunConfig, predictions_from_output, resolve_model, run_model

    require_finite("--timeout", timeout)
    require_finite("--temperature", temperature)
    items = _items(data, horizons, min_volume, exclude_near_certain, include_tags, exclude_tags, max_items, lenient)
    spec = resolve_model(model, base_url=base_url, model_name=model_name)
    path = out or Path(f"forecast-eval-{re.sub(r'[^A-Za-z0-9_.-]+', '-', model).strip('-')}.jsonl")
    env = ForecastEnvironment(name=ENV_NAME, items=items)
    config = RunConfig(concurrency=concurrency, max_retries=retries, timeout_s=timeout, temperature=temperature,
                       max_tokens=max_tokens)
    err = Console(stderr=True)
    with Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                  console=err, disable=as_json or not err.is_terminal, transient=True) as bar:
        task = bar.add_task(spec.name or model, total=len(items))
        try:
            summary = asyncio.run(run_model(env, spec, path, config, progress=lambda n: bar.advance(task, n)))
        except OSError as exc:
            raise _unwritable(path, exc, "--out") from None
    if summary.resumed:
        err.print(f"resumed: {summary.resumed} prediction(s) already in {escape(str(path))}, "
                  f"{summary.written} new", highlight=False)
    result = score_predictions(items, predictions_from_output(path), resamples=resamples, seed=seed, source=str(path))
    if as_json:
        sys.stdout.write(result.model_dump_json() + "\n")
    else:
        render_score(result, Console())


@app.command()
def harvest(out: Annotated[Path, typer.Option("--out", help="Cumulative JSONL of harvested items.")] = Path("polymarket-harvest.jsonl"),
            back_days: Annotated[int | None, typer.Option("--back-days", min=1, help="Backfill: walk this many one-day end-date windows.")] = None,
            pages: Annotated[int, typer.Option("--pages", min=1, help="Pages per scan (recent) or per day (backfill).")] = 30,
            page_size: Annotated[int, typer.Option("--page-size", min=1, max=500, help="Markets per page.")] = 100,
            min_volume: MinVolumeOpt = 0.0, horizons: HorizonsOpt = None,
            max_stale_min: Annotated[float, typer.Option("--max-stale-min", min=0.001, help="Reject a cutoff whose last trade is older.")] = 60.0,
            gamma_url: Annotated[str, typer.Option("--gamma-url", help="Polymarket's market listing API.")] = "https://gamma-api.polymarket.com",
            clob_url: Annotated[str, typer.Option("--clob-url", help="Polymarket's price history API.")] = "https://clob.polymarket.com",
            as_json: JsonOpt = False) -> None:
    """Harvest resolved Yes/No Polymarket markets with the last traded price at 24/72/168 h before settlement."""
    from pydantic import ValidationError
    from rich.progress import Progress, SpinnerColumn, TextColumn

    from reasonforge.forecast.harvest import DEFAULT_HORIZONS, HarvestConfig, Harvester
    from reasonforge.forecast.polymarket import PolymarketClient

    try:
        hours = [int(h) for h in _split(horizons) or []] or list(DEFAULT_HORIZONS)
    except ValueError:
        raise fail(f"--horizons takes whole hours, got {horizons}") from None
    if any(h <= 0 for h in hours):
        raise fail(f"--horizons takes positive whole hours before settlement, got {horizons}")
    for flag, url in (("--gamma-url", gamma_url), ("--clob-url", clob_url)):
        if not url.startswith(("http://", "https://")):
            raise fail(f"{flag} must be an http:// or https:// URL, got {url!r}")
    try:
        config = HarvestConfig(out=out, mode="backfill" if back_days else "recent", horizons=hours,
                               min_volume=min_volume, max_stale_min=max_stale_min, pages=pages, page_size=page_size,
                               back_days=back_days or 30)
    except ValidationError as exc:
        first = exc.errors()[0]
        raise fail(f"--{str(first['loc'][0]).replace('_', '-')}: {first['msg']}") from None
    err = Console(stderr=True)
    try:
        with PolymarketClient(gamma_url, clob_url) as client, Progress(
                SpinnerColumn(), TextColumn("{task.description}: {task.completed} markets scanned"), console=err,
                disable=as_json or not err.is_terminal, transient=True) as bar:
            task = bar.add_task(f"harvest ({config.mode})")
            summary = Harvester(client, config, progress=lambda n: bar.advance(task, n)).run()
    except OSError as exc:
        raise _unwritable(out, exc, "--out") from None
    if summary.stopped_early and not summary.scanned and not summary.written:
        # nothing harvested because the source never answered: a failure, not an empty success
        raise fail(f"could not harvest from {gamma_url}: {summary.stopped_early}; check the network and "
                   "--gamma-url / --clob-url, then rerun (nothing was written)")
    if as_json:
        sys.stdout.write(summary.model_dump_json() + "\n")
        return
    console = Console()
    console.print(f"scanned {summary.scanned} markets, wrote {summary.written} items to {out} "
                  f"({summary.already_present} already present; {summary.requests} requests, "
                  f"{summary.rate_limited} rate-limited)", highlight=False)
    for reason, count in summary.rejected.items():
        console.print(f"  rejected {count:>6}  {reason}", highlight=False)
    if summary.stopped_early:
        console.print(f"[yellow]stopped early:[/] {escape(summary.stopped_early)} (rerun to resume)")


# After the scoring commands, so `forecast --help` lists them in the order of the workflow.
add_commit_commands(app)  # commit | register | reveal | score-reveals | register-score | verify-score | deploy-registry
