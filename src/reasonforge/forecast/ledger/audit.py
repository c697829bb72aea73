"""Audit output per market: the explanations, the ledger, the key events and the grades, as JSON and HTML.

The HTML page is self-contained (inline CSS, no scripts, no external assets) so it can be published as
a public example of how each explanation was graded. Every piece of text that came from a forecaster,
a news source or a grader passes through `html.escape`: explanations are untrusted input.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

from pydantic import BaseModel

from reasonforge.errors import InputError
from reasonforge.forecast.ledger.grade import GradeReport
from reasonforge.forecast.ledger.models import MIN_DEVELOPMENTS, Forecast, Ledger, counted_developments
from reasonforge.forecast.numbers import fixed

_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")

_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;
color:#1d1d1f;line-height:1.45}
h1{font-size:1.5rem;margin-bottom:.2rem}h2{font-size:1.15rem;margin-top:2rem;border-bottom:1px solid #ddd}
.meta{color:#555;font-size:.9rem}table{border-collapse:collapse;width:100%;margin:.5rem 0;font-size:.92rem}
th,td{border:1px solid #ddd;padding:.3rem .5rem;text-align:left;vertical-align:top}th{background:#f5f5f7}
tr.key td{background:#fff8e1}.num{text-align:right;font-variant-numeric:tabular-nums}
.excluded{background:#fdecea;border:1px solid #f5c2bd;padding:.6rem;border-radius:4px}
blockquote{white-space:pre-wrap;background:#f8f8fa;border-left:3px solid #bbb;margin:.4rem 0;padding:.5rem .8rem}
.none{color:#888;font-style:italic}.yes{color:#1b7f3b;font-weight:600}.no{color:#999}
.note{color:#555;font-size:.85rem}
"""


class AuditRecord(BaseModel):
    """Everything needed to audit one market's reasoning grades, as stored in `<market_id>.json`."""

    market_id: str
    title: str
    day_zero: str
    ledger_hash: str
    ledger: Ledger
    explanations: list[Forecast]
    report: GradeReport


def audit_record(ledger: Ledger, forecasts: list[Forecast], report: GradeReport) -> AuditRecord:
    """Bundle a ledger, the original explanations and their grade report into one audit record."""
    if report.market_id != ledger.market_id:
        raise InputError(f"the grade report is for market {report.market_id!r} but the ledger is for "
                         f"{ledger.market_id!r}; grade the forecasts against this ledger", field="report")
    return AuditRecord(market_id=ledger.market_id, title=ledger.title, day_zero=ledger.day_zero.isoformat(),
                       ledger_hash=ledger.content_hash(), ledger=ledger, explanations=list(forecasts),
                       report=report)


def safe_name(market_id: str) -> str:
    """A file-name stem for `market_id` (anything outside [A-Za-z0-9._-] becomes `_`)."""
    stem = _UNSAFE_NAME.sub("_", market_id).strip("._")
    return stem or "market"


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def _fmt(value: float | None, digits: int = 2) -> str:
    return fixed(value, digits, "–")


def _num(value: int | None) -> str:
    return "–" if value is None else str(value)


def _event_key(event: object) -> tuple[str, str, str]:
    return (str(getattr(event, "date", "")), str(getattr(event, "text", "")), str(getattr(event, "ref", "")))


def _ledger_section(record: AuditRecord) -> list[str]:
    keys = {_event_key(e) for e in record.report.key_events}
    out = [f"<h2>Ledger ({len(record.ledger.developments)} developments)</h2>",
           (f'<p class="meta">Window: {record.ledger.window_days} days after day zero {_e(record.day_zero)}. '
           f"Content hash <code>{_e(record.ledger_hash)}</code>.</p>")]
    if record.ledger.queries:
        out.append(f'<p class="meta">Queries: {_e("; ".join(record.ledger.queries))}</p>')
    if not record.ledger.developments:
        out.append('<p class="none">No developments were found in the window.</p>')
        return out
    out.append("<table><tr><th>Date</th><th>Development</th><th>Source</th><th>Key event</th></tr>")
    for dev in record.ledger.developments:
        is_key = _event_key(dev) in keys
        source = dev.source + (f" ({dev.ref})" if dev.ref else "")
        row_class = ' class="key"' if is_key else ""
        out.append(f"<tr{row_class}><td>{_e(dev.date.isoformat())}</td>"
                   f"<td>{_e(dev.text)}</td><td>{_e(source)}</td><td>{'yes' if is_key else ''}</td></tr>")
    out.append("</table>")
    return out


def _price_section(record: AuditRecord) -> list[str]:
    path = record.ledger.price_path
    if not path:
        return []
    out = ["<h2>Price path</h2>", "<table><tr><th>Date</th><th>Price</th><th>Daily change</th></tr>"]
    previous = None
    for point in path:
        change = "" if previous is None else fixed(point.price - previous, 3, sign=True)
        out.append(f'<tr><td>{_e(point.date.isoformat())}</td><td class="num">{point.price:.3f}</td>'
                   f'<td class="num">{change}</td></tr>')
        previous = point.price
    out.append("</table>")
    return out


def _key_events_section(record: AuditRecord) -> list[str]:
    out = ["<h2>Key events</h2>",
           ('<p class="note">Developments dated after day zero within one day of the two largest daily price '
           "moves (or every later development if none is that close). Being close in time to a price move "
           "does not establish that the development caused it.</p>")]
    if not record.report.key_events:
        out.append('<p class="none">None.</p>')
        return out
    out.append("<ul>")
    out += [f"<li>{_e(e.date.isoformat())}: {_e(e.text)}</li>" for e in record.report.key_events]
    out.append("</ul>")
    return out


def _grade_block(forecaster: str, reasoning: str | None, record: AuditRecord) -> list[str]:
    grade = record.report.details.get(forecaster)
    out = [f"<h3>{_e(forecaster)}</h3>"]
    if reasoning is None or not reasoning.strip():
        out.append('<p class="none">No reasoning submitted.</p>')
    else:
        out.append(f"<blockquote>{_e(reasoning)}</blockquote>")
    if grade is None:
        out.append('<p class="none">Not graded (the market is excluded).</p>')
        return out
    imputed = " (imputed: 25th percentile of the other scores on this ledger)" if grade.imputed else ""
    out.append(f"<p><strong>Total {_fmt(grade.total)}</strong> / 4{_e(imputed)} — "
               f"argument {_num(grade.argument)} / 2, "
               f"anticipation {_fmt(grade.anticipation)} / 2. {_e(grade.reason)}</p>")
    if grade.events:
        out.append("<table><tr><th>Key event</th><th>Anticipated</th><th>Similarity</th><th>Matched text</th></tr>")
        for decision in grade.events:
            mark = '<span class="yes">yes</span>' if decision.anticipated else '<span class="no">no</span>'
            matched = _e(decision.matched_text)
            if decision.contradicted_text:
                matched += f'<br><span class="no">denied, no credit:</span> {_e(decision.contradicted_text)}'
            out.append(f"<tr><td>{_e(decision.event.date.isoformat())}: {_e(decision.event.text)}</td><td>{mark}</td>"
                       f'<td class="num">{_fmt(decision.similarity, 3)}</td><td>{matched}</td></tr>')
        out.append("</table>")
    return out


def render_html(record: AuditRecord) -> str:
    """One self-contained HTML page for the market: explanations, ledger, key events, grades (all escaped)."""
    report = record.report
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             '<meta name="viewport" content="width=device-width,initial-scale=1">',
             f"<title>Reasoning audit: {_e(record.title)}</title><style>{_CSS}</style></head><body>",
             f"<h1>{_e(record.title)}</h1>",
             f'<p class="meta">Market <code>{_e(record.market_id)}</code> · day zero {_e(record.day_zero)}</p>']
    if report.excluded:
        parts.append(f'<p class="excluded">Excluded: <strong>{_e(report.excluded)}</strong> — the ledger has '
                     f"{len(counted_developments(record.ledger))} development(s); at least {MIN_DEVELOPMENTS} are needed, "
                     "so this market carries no reasoning score for the window.</p>")
    else:
        parts += ["<h2>Scores</h2>", ("<table><tr><th>Forecaster</th><th>Argument</th><th>Anticipation</th>"
                  "<th>Total (0–4)</th><th>Imputed</th></tr>")]
        ranked = sorted(report.details.values(), key=lambda g: (g.total is None, -(g.total or 0.0), g.forecaster))
        for grade in ranked:
            imp = "yes" if grade.imputed else ""
            parts.append(f'<tr><td>{_e(grade.forecaster)}</td><td class="num">{_num(grade.argument)}</td>'
                         f'<td class="num">{_fmt(grade.anticipation)}</td><td class="num">{_fmt(grade.total)}</td>'
                         f"<td>{imp}</td></tr>")
        parts.append("</table>")
    parts += _key_events_section(record)
    parts.append("<h2>Explanations and grades</h2>")
    for forecast in record.explanations:
        parts += _grade_block(forecast.forecaster, forecast.reasoning, record)
    parts += _ledger_section(record)
    parts += _price_section(record)
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def render_index(records: list[AuditRecord], pages: dict[str, str]) -> str:
    """An index page linking each market's audit page (`pages`: market_id → relative file name)."""
    rows = []
    for record in records:
        status = _e(record.report.excluded) if record.report.excluded else ", ".join(
            f"{_e(k)} {_fmt(v)}" for k, v in sorted(record.report.scores.items()))
        rows.append(f'<tr><td><a href="{_e(pages[record.market_id])}">{_e(record.title)}</a></td>'
                    f"<td>{_e(record.day_zero)}</td><td>{status}</td></tr>")
    return "\n".join(["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
                      f"<title>Reasoning audits</title><style>{_CSS}</style></head><body>",
                      "<h1>Reasoning audits</h1>", "<table><tr><th>Market</th><th>Day zero</th><th>Scores</th></tr>",
                      *rows, "</table></body></html>"]) + "\n"


def write_audit(record: AuditRecord, out_dir: Path) -> tuple[Path, Path]:
    """Write `<market_id>.json` and `<market_id>.html` under `out_dir`; return both paths."""
    out_dir = Path(out_dir)
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        stem = safe_name(record.market_id)
        json_path, html_path = out_dir / f"{stem}.json", out_dir / f"{stem}.html"
        json_path.write_text(record.model_dump_json(indent=2) + "\n", encoding="utf-8")
        html_path.write_text(render_html(record), encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot write the audit into {out_dir}: {exc.strerror}; choose a writable --out",
                         field="out") from None
    return json_path, html_path
