"""`GET /dashboard`: the service at a glance, for the team that runs it (admin keys only).

Everything is read from the store at request time, over a bounded window (the last `WINDOW_DAYS` days, at most
`MAX_JOBS` finished jobs, newest first), so every API process shows the same figures however many workers ran
the jobs. The miner leaderboard reads the validator's state file (`REASONFORGE_VALIDATOR_STATE`); the forecast
leaderboard, the score certificates registered on the service's ForecastRegistry. The page is
server-rendered HTML and SVG with no script, reloads itself every 30 s, and escapes everything it shows."""

from __future__ import annotations

import json
import statistics
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from html import escape
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError
from sqlalchemy import select
from sqlalchemy.orm import sessionmaker

from reasonforge.certificate.forecast_records import UNDEFINED_PPM
from reasonforge.service.jobs.tables import ForecastRevealRow, JobRow
from reasonforge.service.work import FINISHED, work_facts
from reasonforge.types import JobStatus

__all__ = ["DASHBOARD_CSP", "MAX_JOBS", "WINDOW_DAYS", "Dashboard", "ForecastRow", "dashboard_page", "gather"]

WINDOW_DAYS = 14
MAX_JOBS = 20_000
MAX_STATE_BYTES = 64 * 1024 * 1024
DASHBOARD_CSP = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'"
VERDICTS = ("VERIFIED", "PARTIAL", "FAILED")


@dataclass
class CheckerRow:
    """Latency of one checker over the window."""

    checker: str
    steps: int
    median_ms: float
    p95_ms: float


@dataclass
class MinerRow:
    """One miner in the validator's latest completed epoch."""

    uid: int
    hotkey: str
    rank: int | None
    cts: float
    epoch_score: float
    weight: float
    streak: int
    trap_accuracy: float | None


@dataclass
class ForecastRow:
    """One score certificate registered on the ForecastRegistry: a forecaster's certified scores on a question set."""

    certificate_id: str
    forecaster: str
    scope: str
    scored: int
    brier: float | None
    log_loss: float | None
    market_skill: float | None

    @classmethod
    def from_ppm(cls, certificate_id: str, forecaster: str, scope: str, scored: int, brier_ppm: int,
                 log_loss_ppm: int, market_skill_ppm: int) -> ForecastRow:
        """A row from the registry's parts-per-million integers."""
        def value(ppm: int) -> float | None:
            return None if ppm == UNDEFINED_PPM else ppm / 1e6

        return cls(certificate_id, forecaster, scope, scored, value(brier_ppm), value(log_loss_ppm),
                   value(market_skill_ppm))


@dataclass
class Dashboard:
    """What the page shows."""

    days: list[str]
    volume: dict[tuple[str, str], list[int]] = field(default_factory=dict)  # (domain, level) -> jobs per day
    verified: dict[tuple[str, str], list[int]] = field(default_factory=dict)
    verdicts: Counter = field(default_factory=Counter)
    first_failure: Counter = field(default_factory=Counter)  # 1-based position -> refuted chains
    checkers: list[CheckerRow] = field(default_factory=list)
    failed_jobs: int = 0
    jobs_read: int = 0
    truncated: bool = False
    miners: list[MinerRow] = field(default_factory=list)
    miners_note: str = ""
    epoch: int | None = None
    forecasts: list[ForecastRow] = field(default_factory=list)
    forecasts_note: str = ""
    reliability: list[tuple[int, float, float]] = field(default_factory=list)  # per bin: count, mean p, frequency
    reveals: int = 0


class _Entry(BaseModel):
    model_config = ConfigDict(extra="ignore")
    cts: list[float] = []
    epoch_score: float = 0.0
    trap_scores: list[float] = []
    rank: int | None = None
    weight: float = 0.0


class _Miner(BaseModel):
    model_config = ConfigDict(extra="ignore")
    hotkey: str
    streak: int = 0
    history: dict[int, _Entry] = {}


class _State(BaseModel):
    """The fields of the validator state file (subnet/state.py, version 1) the leaderboard reads."""

    model_config = ConfigDict(extra="ignore")
    version: int
    last_completed_epoch: int = 0
    miners: dict[int, _Miner] = {}


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _miners(path: Path | None, board: Dashboard) -> None:
    if path is None:
        board.miners_note = "No validator state configured (set REASONFORGE_VALIDATOR_STATE to its file)."
        return
    try:
        if path.stat().st_size > MAX_STATE_BYTES:
            raise ValueError(f"over {MAX_STATE_BYTES} bytes")
        state = _State.model_validate_json(path.read_bytes())
    except (OSError, ValueError, ValidationError) as exc:
        board.miners_note = f"The validator state {path} cannot be read: {str(exc).splitlines()[0][:200]}"
        return
    epoch = state.last_completed_epoch
    board.epoch = epoch or None
    for uid, miner in state.miners.items():
        entry = miner.history.get(epoch)
        if entry is None:
            continue
        traps = [t for e in miner.history.values() for t in e.trap_scores]
        board.miners.append(MinerRow(uid=uid, hotkey=miner.hotkey, rank=entry.rank,
                                     cts=statistics.fmean(entry.cts) if entry.cts else 0.0,
                                     epoch_score=entry.epoch_score, weight=entry.weight, streak=miner.streak,
                                     trap_accuracy=statistics.fmean(traps) if traps else None))
    board.miners.sort(key=lambda m: (m.rank is None, m.rank or 0, -m.epoch_score))
    if not board.miners:
        board.miners_note = "The validator has completed no epoch yet."


RELIABILITY_BINS = 10


def _reliability(sm: sessionmaker, board: Dashboard) -> None:
    """Ten probability bins over the newest MAX_JOBS scored reveals: how often what was forecast happened."""
    with sm() as session:
        rows = session.execute(select(ForecastRevealRow.probability_ppm, ForecastRevealRow.outcome)
                               .order_by(ForecastRevealRow.created_at.desc()).limit(MAX_JOBS)).all()
    board.reveals = len(rows)
    bins: list[list[float]] = [[0, 0.0, 0.0] for _ in range(RELIABILITY_BINS)]
    for ppm, outcome in rows:
        p = ppm / 1e6
        b = bins[min(int(p * RELIABILITY_BINS), RELIABILITY_BINS - 1)]
        b[0] += 1
        b[1] += p
        b[2] += outcome
    board.reliability = [(int(n), total_p / n, hits / n) for n, total_p, hits in bins if n]


def _reliability_svg(points: list[tuple[int, float, float]], size: int = 260) -> str:
    """Observed frequency against forecast probability, one dot per bin (area ~ forecasts), the diagonal."""
    pad, span = 30, size - 40
    top = max((n for n, _, _ in points), default=1)
    parts = [(f'<svg xmlns="http://www.w3.org/2000/svg" class="reliability" role="img" width="{size}" '
             f'height="{size}" aria-label="reliability diagram">'),
             f'<rect x="{pad}" y="10" width="{span}" height="{span}" fill="none" stroke="#ccc"/>',
             f'<line x1="{pad}" y1="{10 + span}" x2="{pad + span}" y2="10" stroke="#999" stroke-dasharray="4 3"/>',
             f'<text x="{pad}" y="{size - 8}" font-size="11" fill="#666">forecast 0 → 1</text>',
             '<text x="4" y="20" font-size="11" fill="#666">1</text>']
    for n, mean_p, freq in points:
        x, y = pad + mean_p * span, 10 + (1 - freq) * span
        radius = 3 + 7 * (n / top) ** 0.5
        parts.append(f'<circle class="bin" data-n="{n}" data-p="{mean_p:.3f}" data-freq="{freq:.3f}" cx="{x:.1f}" '
                     f'cy="{y:.1f}" r="{radius:.1f}" fill="#3b6fb6" fill-opacity="0.7"><title>{n} forecasts, mean '
                     f"{mean_p:.2f}: happened {freq:.0%}</title></circle>")
    parts.append("</svg>")
    return "".join(parts)


def gather(sm: sessionmaker, *, validator_state: Path | None = None, now: datetime | None = None,
           forecasts: tuple[list[ForecastRow], str] = ([], "")) -> Dashboard:
    """The figures of the last WINDOW_DAYS days (at most MAX_JOBS finished jobs), the miner leaderboard, and the
    forecast leaderboard (rows read from the registry by the caller, or a note saying why there are none)."""
    now = now or datetime.now(UTC)
    first_day = (now - timedelta(days=WINDOW_DAYS - 1)).date()
    days = [(first_day + timedelta(days=i)).isoformat() for i in range(WINDOW_DAYS)]
    board = Dashboard(days=days)
    since = datetime(first_day.year, first_day.month, first_day.day, tzinfo=UTC).timestamp()
    with sm() as session:
        rows = session.execute(
            select(JobRow.finished_at, JobRow.status, JobRow.verdict_json)
            .where(JobRow.finished_at >= since, JobRow.status.in_(FINISHED))
            .order_by(JobRow.finished_at.desc())
            .limit(MAX_JOBS + 1)
        ).all()
    board.truncated = len(rows) > MAX_JOBS
    rows = rows[:MAX_JOBS]
    board.jobs_read = len(rows)
    latencies: dict[str, list[float]] = defaultdict(list)
    index = {day: i for i, day in enumerate(days)}
    for finished_at, status, verdict_json in rows:
        if status == JobStatus.FAILED.value or not verdict_json:
            board.failed_jobs += 1
            continue
        facts = work_facts(json.loads(verdict_json))
        day = datetime.fromtimestamp(finished_at, UTC).date().isoformat()
        key = (facts.domain, facts.level)
        volume = board.volume.setdefault(key, [0] * len(days))
        verified = board.verified.setdefault(key, [0] * len(days))
        if day in index:
            volume[index[day]] += 1
            verified[index[day]] += facts.overall == "VERIFIED"
        board.verdicts[facts.overall] += 1
        for checker, seconds in facts.shown_checker_seconds:
            latencies[checker].append(seconds * 1000)
        if facts.first_failure is not None:
            board.first_failure[facts.first_failure] += 1
    board.checkers = sorted((CheckerRow(name, len(ms), statistics.median(ms), _percentile(ms, 0.95))
                             for name, ms in latencies.items()), key=lambda r: -r.steps)
    _miners(validator_state, board)
    _reliability(sm, board)
    rows, board.forecasts_note = forecasts
    board.forecasts = sorted(rows, key=lambda r: (r.brier is None, r.brier if r.brier is not None else 0.0))
    return board


_STYLE = """
body{font-family:system-ui,sans-serif;max-width:70rem;margin:1.5rem auto;padding:0 1rem;color:#1b1b1b}
h1{font-size:1.4rem} h2{font-size:1.1rem;margin-top:1.6rem;border-bottom:1px solid #ddd}
table{border-collapse:collapse} td,th{text-align:left;padding:.3rem .6rem;border-bottom:1px solid #eee}
th{color:#555;font-weight:600} td.num{text-align:right;font-variant-numeric:tabular-nums} .muted{color:#666}
.cards{display:flex;gap:1rem;flex-wrap:wrap} .card{border:1px solid #ddd;border-radius:.4rem;padding:.6rem 1rem}
.card b{display:block;font-size:1.5rem} .key{font-size:.85rem} .key i{display:inline-block;width:.8rem;height:.8rem;
margin:0 .25rem 0 .6rem;vertical-align:-.1rem} .pair{display:grid;grid-template-columns:repeat(auto-fit,minmax(24rem,1fr));
gap:0 2.5rem} .notes p{margin:.25rem 0}
"""
_BLUE, _GREEN, _RED = "#3b6fb6", "#106b21", "#a11111"


def _short_day(day: str) -> str:
    """'2026-12-07' as '7 Dec' (the full date is in the bar's tooltip)."""
    date = datetime.fromisoformat(day)
    return f"{date.day} {date.strftime('%b')}"


def _daily(volume: list[int], verified: list[int], days: list[str]) -> str:
    """A per-day chart of one domain and level: a bar per day (a tick on the baseline when none), its VERIFIED
    part in green; the days' tooltips give the counts."""
    top, bar, gap, height = max(volume, default=0) or 1, 12, 4, 40
    width = len(days) * (bar + gap)
    parts = [(f'<svg xmlns="http://www.w3.org/2000/svg" class="daily" role="img" width="{width}" '
             f'height="{height + 2}" aria-label="verifications per day">'),
             f'<line x1="0" y1="{height + 0.5}" x2="{width - gap}" y2="{height + 0.5}" stroke="#bbb"/>']
    for i, (n, ok, day) in enumerate(zip(volume, verified, days, strict=True)):
        h, g, x = round(n / top * height), round(ok / top * height), i * (bar + gap)
        parts.append(f'<g class="day" data-day="{day}" data-n="{n}" data-verified="{ok}"><title>{day}: {n} '
                     f'verifications, {ok} VERIFIED</title><rect x="{x}" y="{height - h}" width="{bar}" height="{h}" '
                     f'fill="{_BLUE}"/><rect x="{x}" y="{height - g}" width="{bar}" height="{g}" fill="{_GREEN}"/>'
                     f'<rect x="{x}" y="0" width="{bar}" height="{height}" fill="transparent"/></g>')
    parts.append("</svg>")
    return "".join(parts)


def _bars(values: list[int], labels: list[str], *, title: str, colour: str = _BLUE, width: int = 560,
          shown: list[str] | None = None, parts: list[int] | None = None, part_colour: str = _GREEN) -> str:
    """A bar chart as SVG (values ≥ 0): one bar per label, each with its own label under it (`shown`, default the
    labels) and its value over it; `parts` draws a part of each bar in `part_colour` (stacked at its foot)."""
    top = max(values, default=0) or 1
    count = max(len(values), 1)
    slot = min(56, (width - 10) // count)
    bar_w, height, foot = max(6, round(slot * 0.7)), 110, 34
    chart_w = 10 + count * slot
    every = max(1, -(-len(values) * 38 // max(chart_w, 1)))  # labels about 38 px wide: every k-th when crowded
    out = [(f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" role="img" aria-label="{escape(title)}" '
            f'width="{chart_w}" height="{height + foot}">'),
           f'<line x1="4" y1="{height + 14.5}" x2="{chart_w - 4}" y2="{height + 14.5}" stroke="#bbb"/>']
    for i, (value, label) in enumerate(zip(values, labels, strict=True)):
        h = round(value / top * height)
        x = 10 + i * slot
        text = (shown or labels)[i]
        part = parts[i] if parts is not None else 0
        g = round(part / top * height)
        out.append(f'<g class="bar" data-label="{escape(label)}" data-value="{value}"><title>{escape(label)}: '
                   f'{value}{f", {part} VERIFIED" if parts is not None else ""}</title>'
                   f'<rect x="{x}" y="{height - h + 14}" width="{bar_w}" height="{h}" fill="{colour}"/>'
                   + (f'<rect x="{x}" y="{height - g + 14}" width="{bar_w}" height="{g}" fill="{part_colour}"/>'
                      if g else "")
                   + (f'<text x="{x + bar_w / 2:.1f}" y="{height - h + 10}" font-size="11" fill="#333" '
                      f'text-anchor="middle">{value}</text>' if value else "") + "</g>")
        if i % every == 0:
            out.append(f'<text class="label" x="{x + bar_w / 2:.1f}" y="{height + 29}" font-size="11" fill="#666" '
                       f'text-anchor="middle">{escape(text)}</text>')
    out.append("</svg>")
    return "".join(out)


def _number(value: float | None) -> str:
    return "–" if value is None else f"{value:.4f}"


def dashboard_page(board: Dashboard) -> str:
    """The whole dashboard document."""
    total = sum(board.verdicts.values())
    rate = f"{board.verdicts['VERIFIED'] / total:.0%}" if total else "–"
    cards = "".join(f'<div class="card"><span class="muted">{escape(name)}</span><b id="{key}">{escape(value)}</b></div>'
                    for key, name, value in (
                        ("total", f"verifications, last {WINDOW_DAYS} days", str(total)),
                        *((v.lower(), v, str(board.verdicts[v])) for v in VERDICTS),
                        ("rate", "share VERIFIED", rate),
                        ("failed-jobs", "jobs that could not be verified", str(board.failed_jobs))))
    per_day = [sum(v[i] for v in board.volume.values()) for i in range(len(board.days))]
    verified_per_day = [sum(v[i] for v in board.verified.values()) for i in range(len(board.days))]
    key = (f'<p class="key muted"><i style="background:{_BLUE}"></i>verifications<i style="background:{_GREEN}">'
           "</i>of them VERIFIED</p>")
    rows = "".join(
        f'<tr class="volume" data-domain="{escape(domain)}" data-level="{escape(level)}"><td>{escape(domain)}</td>'
        f'<td>{escape(level)}</td><td class="num">{sum(v)}</td><td class="num">'
        f'{sum(board.verified[(domain, level)]) / sum(v):.0%}</td>'
        f"<td>{_daily(v, board.verified[(domain, level)], board.days)}</td></tr>"
        for (domain, level), v in sorted(board.volume.items()) if sum(v))
    failures = sorted(board.first_failure)
    checker_rows = "".join(
        f'<tr class="checker"><td>{escape(c.checker)}</td><td class="num">{c.steps}</td><td class="num">'
        f'{c.median_ms:.1f}</td><td class="num">{c.p95_ms:.1f}</td></tr>' for c in board.checkers)
    miner_rows = "".join(
        f'<tr class="miner"><td class="num">{m.rank if m.rank is not None else "–"}</td><td class="num">{m.uid}</td>'
        f"<td><code>{escape(m.hotkey[:16])}</code></td><td class=num>{m.cts:.3f}</td>"
        f"<td class=num>{m.epoch_score:.3f}</td><td class=num>{m.weight:.3f}</td><td class=num>{m.streak}</td>"
        f"<td class=num>{f'{m.trap_accuracy:.0%}' if m.trap_accuracy is not None else '–'}</td></tr>"
        for m in board.miners)
    forecast_rows = "".join(
        f'<tr class="forecaster"><td><code>{escape(f.forecaster)}</code></td><td><code>{escape(f.scope[:12])}…</code>'
        f"</td><td class=num>{f.scored}</td><td class=num>{_number(f.brier)}</td><td class=num>{_number(f.log_loss)}"
        f"</td><td class=num>{_number(f.market_skill)}</td><td><code>{escape(f.certificate_id[:18])}…</code></td></tr>"
        for f in board.forecasts)
    note = (f'<p class="muted">Only the newest {MAX_JOBS:,} finished jobs of the window are counted.</p>'
            if board.truncated else "")
    leaderboards = (
        "<h2>Miner leaderboard" + (f" (epoch {board.epoch})" if board.epoch else "") + "</h2>"
        f"<table id=miners><tr><th>rank</th><th>uid</th><th>hotkey</th><th>mean CTS</th><th>epoch score</th>"
        f"<th>weight</th><th>streak</th><th>trap accuracy</th></tr>{miner_rows}</table>" if miner_rows else "")
    leaderboards += (
        "<h2>Forecast leaderboard (certified on the registry)</h2>"
        f"<table id=forecasts><tr><th>forecaster</th><th>question set</th><th>scored</th><th>Brier</th>"
        f"<th>log loss</th><th>market skill</th><th>certificate</th></tr>{forecast_rows}</table>"
        '<p class="muted">Scores of revealed forecasts that were committed before each cutoff, signed by the '
        "validators and checked by the contract (best Brier first).</p>" if forecast_rows else "")
    # empty leaderboards are a line each under one heading, not two sections of a heading and a note
    miners_note = f'<p class="muted" id="miners-note">Miners: {escape(board.miners_note)}</p>'
    forecasts_note = f'<p class="muted" id="forecasts-note">Forecasters: {escape(board.forecasts_note)}</p>'
    if not (miner_rows or forecast_rows):
        leaderboards = f'<h2>Leaderboards</h2><div class="notes">{miners_note}{forecasts_note}</div>'
    elif not miner_rows:
        leaderboards = f"<h2>Miner leaderboard</h2>{miners_note}{leaderboards}"
    elif not forecast_rows:
        leaderboards += f"<h2>Forecast leaderboard</h2>{forecasts_note}"
    failing = (_bars([board.first_failure[k] for k in range(1, failures[-1] + 1)],
                     [f"step {k}" for k in range(1, failures[-1] + 1)], title="first failing step", colour=_RED,
                     width=380) if failures else '<p class="muted">No chain was refuted in the window.</p>')
    latency = (f"<table id=checkers><tr><th>checker</th><th>steps</th><th>median ms</th><th>p95 ms</th></tr>"
               f"{checker_rows}</table>" if checker_rows else '<p class="muted">No checker ran in the window.</p>')
    body = (
        "<h1>ReasonForge dashboard</h1>"
        f'<p class="muted">The last {WINDOW_DAYS} days from the job store ({board.jobs_read:,} finished jobs); '
        "this page reloads every 30 seconds.</p>"
        f'<div class="cards">{cards}</div>{note}'
        "<h2>Verifications per day</h2>"
        + (_bars(per_day, board.days, title="verifications per day", width=680,
                 shown=[_short_day(d) for d in board.days], parts=verified_per_day) + key
           if total else '<p class="muted">No verification finished in the window.</p>')
        + "<h2>By domain and level</h2>"
        + (f"<table id=volume><tr><th>domain</th><th>level</th><th>verifications</th><th>VERIFIED</th>"
           f"<th>per day, {_short_day(board.days[0])} to {_short_day(board.days[-1])}</th></tr>{rows}"
           "</table>" if rows else '<p class="muted">No verification finished in the window.</p>')
        + f'<div class="pair"><section><h2>Where refuted chains first fail</h2>{failing}</section>'
        f"<section><h2>Checker latency</h2>{latency}</section></div>"
        + leaderboards
        + (f"<h3>Reliability of the scored reveals ({board.reveals:,})</h3>{_reliability_svg(board.reliability)}"
           '<p class="muted">Dots on the dashed diagonal: things forecast at p happened a fraction p of the time.</p>'
           if board.reliability else "")
        + "<h2>Certificate lookup</h2>"
        '<form method="get" action="/dashboard/certificate"><input name="id" size="70" required '
        'pattern="0x[0-9a-f]{64}" placeholder="0x… (64 hex digits)"> <button type="submit">Open</button></form>'
    )
    return ("<!doctype html><html lang=en><head><meta charset=utf-8><meta http-equiv=refresh content=30>"
            '<meta name=viewport content="width=device-width, initial-scale=1"><title>ReasonForge dashboard</title>'
            f"<style>{_STYLE}</style></head><body>{body}</body></html>")
