"""The compliance report: one verdict as a PDF an auditor can file (reportlab).

Every template has the same evidence sections (summary, the query and chain, each step's verdict with its
artifact and checker, the failure analysis with its cascade, the certificate and who signed it, the methodology,
timestamps and a chain of custody of hashes); a regulatory template adds a section mapping them to that
regime's record-keeping and transparency duties. The report is evidence for such an assessment, not one.

It prints in DejaVu Sans and DejaVu Sans Mono, embedded (`fonts`): a step's text and code, test output and
artifacts in the monospace face, so formulas (⊢, ∀, →, ≤) print as written and code keeps its indentation.

Every page's header says whether the verdict is attested (`VerdictView.attestation`): a verdict nothing the reader
trusts vouches for is printed as "VERIFIED (unattested)", never as plain VERIFIED."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from enum import StrEnum
from io import BytesIO
from pathlib import Path
from xml.sax.saxutils import escape

from reportlab.graphics.shapes import Drawing, Line, Polygon, Rect, String
from reportlab.lib import colors
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle, getSampleStyleSheet
from reportlab.lib.units import mm
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import (
    KeepTogether,
    Paragraph,
    Preformatted,
    SimpleDocTemplate,
    Spacer,
    Table,
    TableStyle,
)

from reasonforge.report.dag import STATUS_COLOURS
from reasonforge.report.fonts import FONT_DIRS, ReportFonts, report_fonts
from reasonforge.report.text import PartKind, text_parts
from reasonforge.report.view import StepView, VerdictView
from reasonforge.types import StepStatus

__all__ = ["SECTIONS", "ReportTemplate", "compliance_report"]

ARTIFACT_LINES = 60
"""Lines of one artifact printed; the verdict JSON (whose digest the report lists) holds the rest."""


class ReportTemplate(StrEnum):
    """Which regime the report is framed for."""

    PLAIN = "plain"
    EU_AI_ACT = "eu_ai_act"
    FDA = "fda"
    SEC = "sec"


SECTIONS = ("Summary", "Original query and reasoning chain", "Per-step verdicts", "Failure analysis",
            "Certificate and validators", "Methodology", "Timestamps and chain of custody")
"""The sections every report has, in order (a regulatory template adds its own after the summary)."""

_TITLES = {
    ReportTemplate.PLAIN: "Verification report",
    ReportTemplate.EU_AI_ACT: "Verification report — EU AI Act record",
    ReportTemplate.FDA: "Verification report — FDA record",
    ReportTemplate.SEC: "Verification report — SEC record",
}

# (heading, paragraphs) per regulatory template: which duty each part of this report documents.
_REGIMES: dict[ReportTemplate, tuple[str, tuple[str, ...]]] = {
    ReportTemplate.EU_AI_ACT: ("Regulatory context: EU AI Act (Regulation (EU) 2024/1689)", (
        ("Article 12 (record-keeping): the chain of custody lists the hashes that identify the task, every formal "
        "artifact, the verdict and its certificate, so this record can be matched to the system's logs."),
        ("Article 13 (transparency and information to deployers): each step shows what was checked, by which tool "
        "and version, and what the check does not establish (see Methodology)."),
        ("Article 14 (human oversight): the failure analysis names the first failing step, why it failed and which "
        "later steps it invalidates, so a person can decide what to correct."),
        ("Article 15 (accuracy and robustness): the verdict is reproducible — the checkers' specifications and the "
        "artifacts' hashes are recorded, and the certificate can be re-checked offline."),
    )),
    ReportTemplate.FDA: ("Regulatory context: FDA", (
        ("21 CFR Part 11 (electronic records): the record is identified by content hashes; the certificate's "
        "validator signatures bind the verdict digest, and any later change to the verdict changes that digest."),
        ("Audit trail: the timestamps and the chain of custody let a reviewer tie this verification to the "
        "reasoning it checked and to the tools that checked it."),
        ("Good Machine Learning Practice: the methodology states what the checks that ran for this verdict "
        "establish and what they do not, so the verification's limits are documented with its result."),
    )),
    ReportTemplate.SEC: ("Regulatory context: SEC record-keeping", (
        ("Books and records (Exchange Act Rule 17a-4, Advisers Act Rule 204-2): this report is a self-contained "
        "record of what an AI system reasoned and what was machine-checked, with hashes that detect alteration."),
        ("Supervision: the failure analysis shows where a chain of reasoning broke and which conclusions rest on "
        "the broken step, before they are relied upon."),
    )),
}

_MONO_ADVANCE = 0.602  # DejaVu Sans Mono's advance width, in ems: how many characters fit a line
_TEXT_WIDTH = 174 * mm  # A4 less the margins


def _styles(fonts: ReportFonts) -> dict[str, ParagraphStyle]:
    base = getSampleStyleSheet()
    sans, bold, mono = fonts.sans, fonts.bold, fonts.mono
    return {
        "title": ParagraphStyle("title", parent=base["Title"], fontName=bold),
        "h2": ParagraphStyle("h2", parent=base["Heading2"], fontName=bold, spaceBefore=10, spaceAfter=4,
                             keepWithNext=1),
        "h3": ParagraphStyle("h3", parent=base["Heading3"], fontName=bold, fontSize=10.5, spaceBefore=8,
                             spaceAfter=3, keepWithNext=1),
        "h4": ParagraphStyle("h4", parent=base["BodyText"], fontName=bold, fontSize=8.5, leading=10.5,
                             spaceBefore=4, spaceAfter=1, textColor=colors.HexColor("#555555"), keepWithNext=1),
        "hash": ParagraphStyle("hash", parent=base["BodyText"], fontName=mono, fontSize=7.5, leading=10.5),
        "body": ParagraphStyle("body", parent=base["BodyText"], fontName=sans, fontSize=9.5, leading=12.5),
        "cell": ParagraphStyle("cell", parent=base["BodyText"], fontName=sans, fontSize=8.5, leading=10.5),
        "muted": ParagraphStyle("muted", parent=base["BodyText"], fontName=sans, fontSize=7.5, leading=9.5,
                                textColor=colors.HexColor("#666666")),
        "prose": ParagraphStyle("prose", parent=base["Code"], fontName=mono, fontSize=7.5, leading=9.5,
                                leftIndent=0, spaceBefore=1, spaceAfter=2),
        "code": ParagraphStyle("code", parent=base["Code"], fontName=mono, fontSize=7, leading=8.6,
                               backColor=colors.HexColor("#eef1f6"), borderPadding=3, leftIndent=3, rightIndent=3,
                               spaceBefore=3, spaceAfter=5),
    }


def _p(text: str, style: ParagraphStyle) -> Paragraph:
    """A paragraph of plain text: reportlab reads markup, so everything from a request is escaped first."""
    return Paragraph(escape(text).replace("\n", "<br/>"), style)


def _table(rows: list[tuple[str, str]], st: dict[str, ParagraphStyle], widths=(50 * mm, 124 * mm),
           values: str = "cell") -> Table:
    table = Table([[_p(k, st["cell"]), _p(v, st[values])] for k, v in rows], colWidths=list(widths))
    table.setStyle(TableStyle([
        ("FONTNAME", (0, 0), (-1, -1), st["cell"].fontName),  # a table's own default is a base-14 font
        ("VALIGN", (0, 0), (-1, -1), "TOP"),
        ("LINEBELOW", (0, 0), (-1, -1), 0.25, colors.HexColor("#dddddd")),
        ("TEXTCOLOR", (0, 0), (0, -1), colors.HexColor("#555555")),
    ]))
    return table


def _wrapped(text: str, style: ParagraphStyle, width: float) -> str:
    """`text` with each line longer than `width` allows wrapped at a space (cut only inside a word longer than a
    line), the lines it continues on indented like it (monospace: every character is as wide)."""
    columns = max(20, int((width - style.leftIndent - style.rightIndent) / (style.fontSize * _MONO_ADVANCE)))
    out: list[str] = []
    for line in text.expandtabs(4).splitlines() or [""]:
        if len(line) <= columns:
            out.append(line)
            continue
        indent = " " * min(len(line) - len(line.lstrip(" ")) + 2, columns // 2)
        out += textwrap.wrap(line, width=columns, subsequent_indent=indent, break_on_hyphens=False) or [line]
    return "\n".join(out)


def _mono(text: str, style: ParagraphStyle, width: float = _TEXT_WIDTH, *,
          max_lines: int | None = None) -> Preformatted:
    """Monospace text as written (its line breaks and indentation kept), wrapped to `width`; splits across pages."""
    lines = text.splitlines()
    if max_lines is not None and len(lines) > max_lines:
        lines = [*lines[:max_lines], f"… {len(lines) - max_lines} more line(s) in the verdict JSON"]
    return Preformatted(_wrapped("\n".join(lines), style, width), style)


def _code(text: str, st: dict[str, ParagraphStyle]) -> Preformatted:
    return _mono(text, st["code"], max_lines=ARTIFACT_LINES)


def _reasoning(text: str, st: dict[str, ParagraphStyle], width: float = _TEXT_WIDTH) -> list:
    """A step's text: its prose and its fenced code blocks, both monospace, the code on a shaded ground."""
    return [_mono(part.text, st["code" if part.kind is PartKind.CODE else "prose"], width)
            for part in text_parts(text)] or [_p("(empty)", st["muted"])]


def _dag(view: VerdictView, fonts: ReportFonts) -> Drawing:
    """The step DAG drawn like the web page's, scaled to the text width."""
    lay = view.layout
    node_w, node_h, gap_x, gap_y = 22, 14, 14, 6
    width = lay.columns * node_w + (lay.columns - 1) * gap_x
    height = lay.rows * node_h + (lay.rows - 1) * gap_y
    scale = min(1.0, (170 * mm) / max(width, 1))
    drawing = Drawing(width * scale + 4, height * scale + 4, initialFontName=fonts.sans)

    def box(sid: int) -> tuple[float, float]:
        column, row = lay.position[sid]
        return 2 + column * (node_w + gap_x) * scale, 2 + (height - (row + 1) * node_h - row * gap_y) * scale

    for dep, sid in lay.edges:
        (x1, y1), (x2, y2) = box(dep), box(sid)
        bad = (dep, sid) in lay.cascade
        colour = colors.HexColor("#a11111" if bad else "#777777")
        a, b = (x1 + node_w * scale, y1 + node_h * scale / 2), (x2, y2 + node_h * scale / 2)
        drawing.add(Line(*a, *b, strokeColor=colour, strokeWidth=1.4 if bad else 0.7,
                         strokeDashArray=[3, 2] if bad else None))
        drawing.add(Polygon([b[0], b[1], b[0] - 3, b[1] + 1.6, b[0] - 3, b[1] - 1.6], fillColor=colour,
                            strokeColor=colour, strokeWidth=0))
    for step in view.steps:
        x, y = box(step.step_id)
        fill, stroke = STATUS_COLOURS[step.status]
        drawing.add(Rect(x, y, node_w * scale, node_h * scale, rx=3, ry=3, fillColor=colors.HexColor(fill),
                         strokeColor=colors.HexColor(stroke), strokeWidth=1.6 if step.status is StepStatus.FAILED
                         else 0.8))
        drawing.add(String(x + node_w * scale / 2, y + node_h * scale / 2 - 2.5, str(step.step_id),
                           textAnchor="middle", fontName=fonts.sans, fontSize=7 * max(scale, 0.6),
                           fillColor=colors.HexColor(stroke)))
    return drawing


def _step_block(step: StepView, st: dict[str, ParagraphStyle]) -> list:
    """One step's verdict: a table of its short facts, then its text, messages, tests and artifact as blocks that
    may run over a page."""
    rows = [("Status", step.status.value)]
    if step.dependencies:
        rows.append(("Depends on", ", ".join(f"step {d}" for d in step.dependencies)))
    if step.evidence_kind:
        rows.append(("Evidence", step.evidence_text + (f" ({step.evidence_by})" if step.evidence_by else "")
                     + (f" — {step.evidence_note}" if step.evidence_note else "")))
    rows += [("Proved by", proof) for proof in step.proved_by]
    rows += [("Assumed", premise) for premise in step.assumptions]
    if step.invalidated_by:
        rows.append(("Invalidated by", ", ".join(f"step {b}" for b in step.invalidated_by)
                     + (f" (its own check: {step.local_status})" if step.local_status else "")))
    checker = step.checker or "none ran"
    if step.checker_tools:
        checker += f"; ran {', '.join(step.checker_tools)}"
    if step.elapsed_ms is not None:
        checker += f"; {step.elapsed_ms:.1f} ms"
    rows.append(("Checker", checker))
    if step.checker_settings:
        rows.append(("Checker settings", step.checker_settings))
    if step.translator:
        rows.append(("Translator", step.translator))
    block: list = [KeepTogether([_p(f"Step {step.step_id}: {step.status.value}", st["h3"]), _table(rows, st)])]
    block += [_p("Reasoning", st["h4"]), *_reasoning(step.content, st)]
    if step.aligned_claim:
        block += [_p("Claim as formalised", st["h4"]), _mono(step.aligned_claim, st["prose"])]
    if step.message:
        block += [_p("Checker message", st["h4"]), _mono(step.message, st["prose"])]
    if step.counterexample:
        block += [_p("Counterexample", st["h4"]), _mono(step.counterexample, st["prose"])]
    for test in step.failing_tests:
        block += [_p(f"Failing test {test.test} ({test.outcome})", st["h4"]), _mono(test.message, st["prose"])]
    if step.other_failures:
        block.append(_p("Also failing in this step's run, written in the steps it uses (shown there): " + ", ".join(
            f"{o.test} (step {o.step_id})" for o in step.other_failures), st["muted"]))
    if step.artifact:
        block += [_p(f"Formal artifact ({step.language or 'as supplied'})", st["h4"]), _code(step.artifact, st)]
    return block


def _page_header(view: VerdictView, fonts: ReportFonts) -> Callable[[Canvas, object], None]:
    """Draws the attestation line at the top of a page and the page number at its foot (every page: a page read
    alone must not mislead)."""
    attestation = view.attestation
    if attestation.attested:
        text = f"Verdict {view.overall_label}, attested: {attestation.standing.value} (see Summary)"
        colour, font = colors.HexColor("#106b21"), fonts.sans
    else:
        text = (f"UNATTESTED verdict: it claims {view.overall.value}, but nothing this reader trusts vouches for "
                "it (see Summary)")
        colour, font = colors.HexColor("#a11111"), fonts.bold

    def draw(canvas: Canvas, _doc: object) -> None:
        canvas.saveState()
        canvas.setFont(font, 8)
        canvas.setFillColor(colour)
        canvas.drawString(18 * mm, A4[1] - 10 * mm, text)
        canvas.setFont(fonts.sans, 7.5)
        canvas.setFillColor(colors.HexColor("#777777"))
        canvas.drawRightString(A4[0] - 18 * mm, 9 * mm, f"task {view.verdict.task_id} · page {canvas.getPageNumber()}")
        canvas.restoreState()

    return draw


def compliance_report(view: VerdictView, template: ReportTemplate = ReportTemplate.PLAIN, *,
                      font_dirs: tuple[Path, ...] = FONT_DIRS) -> bytes:
    """The PDF for `view` in `template`; ToolUnavailableError when the DejaVu fonts are not in `font_dirs`."""
    fonts = report_fonts(font_dirs)
    st = _styles(fonts)
    verdict, request = view.verdict, view.request
    out = BytesIO()
    title = _TITLES[template]
    doc = SimpleDocTemplate(out, pagesize=A4, leftMargin=18 * mm, rightMargin=18 * mm, topMargin=16 * mm,
                            bottomMargin=16 * mm, title=f"{title}: {view.overall_label}", author="ReasonForge",
                            subject=f"task {verdict.task_id}",
                            initialFontName=fonts.sans)  # not even an unused base-14 font in the file
    story: list = [_p(title, st["title"])]

    story += [_p("Summary", st["h2"]), _table([
        ("Verdict", view.overall_label),
        ("Attestation", view.attestation.headline),
        ("Assurance", f"{verdict.assurance.value}: {view.assurance_text}" if verdict.assurance else "not stated"),
        ("Steps verified", f"{verdict.verified_steps} of {verdict.total_steps}"),
        ("Domain / proof level", f"{verdict.domain.value} / {verdict.proof_level.value}"),
        ("Task id", verdict.task_id),
        ("Claimed answer", request.claimed_answer or "(none given)"),
    ], st)]
    if template in _REGIMES:
        heading, paragraphs = _REGIMES[template]
        story += [_p(heading, st["h2"]), *(_p(text, st["body"]) for text in paragraphs)]

    story += [_p("Original query and reasoning chain", st["h2"]),
              _p(f"Question: {request.original_query or '(none given)'}", st["body"]), Spacer(1, 4)]
    for step in view.steps:
        uses = f" (uses {', '.join(map(str, step.dependencies))})" if step.dependencies else ""
        story += [_p(f"Step {step.step_id}{uses}", st["h4"]), *_reasoning(step.content, st)]

    story += [_p("Per-step verdicts", st["h2"]), _dag(view, fonts)]
    for step in view.steps:
        story += _step_block(step, st)

    heading = _p("Failure analysis", st["h2"])
    report = verdict.failure_report
    if report is None:
        story.append(heading)
        unproven = [s.step_id for s in view.steps if s.status is not StepStatus.VERIFIED]
        story.append(_p("No step was refuted." + (
            f" Not proven either way: step(s) {', '.join(map(str, unproven))} (see their messages above)."
            if unproven else " Every step was verified."), st["body"]))
        if verdict.assumptions:
            story.append(_p("Assumed (premises the steps state that nothing gives, derives or contradicts; the steps "
                            "are valid inferences from them, not proven true):", st["body"]))
            story.append(_table([(f"Step {a.step_id}", a.premise) for a in verdict.assumptions], st))
    else:
        story.append(KeepTogether([heading, _table([  # the heading goes to the next page with its table
            ("First failing step", (f"step {report.failed_step_id} (its text and artifact are under "
                                    "Per-step verdicts)")),
            ("Why it failed", report.verification_error),
            ("Suggested fix", report.suggested_fix or "-"),
            ("Cascade: invalidated with it", ", ".join(f"step {s}" for s in report.cascade_impact) or
             "no later step depends on it"),
            ("Last valid step", f"step {report.last_valid_step}" if report.last_valid_step is not None else "none"),
            ("Partial correctness", f"{report.partial_correctness:.0%} of the steps verified"),
            *((f"Assumed (step {a.step_id})", a.premise) for a in report.assumptions),
        ], st)]))

    story.append(_p("Certificate and validators", st["h2"]))
    cert = view.certified
    if cert is None:
        story.append(_p("No certificate was given with this verdict. The hashes below identify it but do not "
                        "authenticate it (anyone who edits a verdict can recompute them): what vouches for it, if "
                        "anything, is the attestation in the Summary.", st["body"]))
    else:
        rows = [("Certificate id", cert.certificate_id), ("Issued", cert.issued_at),
                ("Validator participation", cert.validators)]
        rows += [(f"Validator {i}", key) for i, key in enumerate(cert.attesters, start=1)]
        rows.append(("Registry", f"chain {cert.chain_id}, contract {cert.registry_address}, transaction "
                                 f"{cert.tx_hash}" + (f", block {cert.block_number}" if cert.block_number else "")
                     if cert.tx_hash else "not registered on chain"))
        if cert.insecure_development_key:
            rows.append(("Warning", ("proved with development keys from a single-party setup: whoever ran that setup "
                                    "could forge proofs")))
        story += [_table(rows, st), _p("Re-check it offline with `reasonforge cert verify certificate.json`.",
                                       st["body"])]

    story.append(_p("Methodology", st["h2"]))
    for paragraph in view.methodology:
        story += [_p(paragraph.heading, st["h3"]), _p(paragraph.text, st["body"])]

    story += [_p("Timestamps and chain of custody", st["h2"]), _table([
        ("Report generated", view.generated_at),
        ("Verification time", f"{verdict.verification_time_ms} ms"),
        *view.custody,
    ], st, widths=(50 * mm, 124 * mm), values="hash")]
    header = _page_header(view, fonts)
    doc.build(story, onFirstPage=header, onLaterPages=header)
    return out.getvalue()
