"""The compliance report: one verdict as a PDF an auditor can file (reportlab).

Every template has the same evidence sections (summary, the query and chain, each step's verdict with its
artifact and checker, the failure analysis with its cascade, the certificate and who signed it, the methodology,
timestamps and a chain of custody of hashes); a regulatory template adds a section mapping them to that
regime's record-keeping and transparency duties. The report is evidence for such an assessment, not one.

Every page's header says whether the verdict is attested (`VerdictView.attestation`): a verdict nothing the reader
trusts vouches for is printed as "VERIFIED (unattested)", never as plain VERIFIED."""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from io import BytesIO
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
        ("Good Machine Learning Practice: the methodology states what each proof level establishes and what it does "
        "not, so the verification's limits are documented with its result."),
    )),
    ReportTemplate.SEC: ("Regulatory context: SEC record-keeping", (
        ("Books and records (Exchange Act Rule 17a-4, Advisers Act Rule 204-2): this report is a self-contained "
        "record of what an AI system reasoned and what was machine-checked, with hashes that detect alteration."),
        ("Supervision: the failure analysis shows where a chain of reasoning broke and which conclusions rest on "
        "the broken step, before they are relied upon."),
    )),
}

_METHODOLOGY = (
    ("What a step's verdict means",
     ("Each step's claim is translated into a formal artifact (SymPy relations, a Coq or Lean 4 theorem, Python "
     "tests, SMT-LIB or first-order logic) and checked by that tool. A step is verified only when its claim, as "
     "formalised, was proven from the question's givens and the claims of the steps it depends on; the "
     "'Claim as formalised' and 'Evidence' lines say what exactly was proven and who formalised it.")),
    ("Quick level",
     ("Mathematics: the relations in each step are checked exactly by SymPy under the bindings of earlier steps. "
     "Code: syntax, types and the artifact's plain assertions. Logic: propositional entailment. It does not "
     "establish that the prose around a relation means what the relation says.")),
    ("Standard level",
     ("Mathematics: the quick level's SymPy check, and each claim with unknowns that SymPy verified as an identity "
     "or left undecided (an inequality, an identity) is also stated as a Coq lemma from the question's givens and "
     "the earlier steps' claims only, and proved in a sandbox with a bounded tactic script; a lemma Coq proves "
     "settles what SymPy left undecided, one it does not prove refutes nothing, and SymPy's own verdicts stand. "
     "Each verified step's 'Proved by' line says which relations Coq proved (with the lemma) and which SymPy did. "
     "Code: unit and property tests with mutation strength. Logic: SMT/FOL entailment by Z3. Tests show behaviour "
     "on the inputs tried, not on every input.")),
    ("Formal level",
     ("Every mathematical step is a theorem checked by Coq (or Lean 4); code contracts are checked symbolically; "
     "logic needs a proof object and solver agreement. Escapes (Admitted, sorry, new axioms) are refused.")),
    ("What no level establishes",
     ("That the question itself is stated correctly, that the formalisation of a step's prose is the only "
     "reasonable reading, or anything about steps marked unsupported or error: those were not proven either way. "
     "A refuted step is false as formalised; the failure analysis names the counterexample or failing test.")),
    ("Statuses",
     ("verified: proven. failed: refuted by its checker. invalidated: depends on a failed step. unsupported: "
     "nothing provable could be read, or independent translations disagreed. error: the checker could not run "
     "(time or memory limit, missing tool); it says nothing about the claim.")),
)


def _styles() -> dict[str, ParagraphStyle]:
    base = getSampleStyleSheet()
    return {
        "title": base["Title"],
        "h2": ParagraphStyle("h2", parent=base["Heading2"], spaceBefore=10, spaceAfter=4),
        "h3": ParagraphStyle("h3", parent=base["Heading3"], spaceBefore=6, spaceAfter=2),
        "body": ParagraphStyle("body", parent=base["BodyText"], fontSize=9.5, leading=12.5),
        "cell": ParagraphStyle("cell", parent=base["BodyText"], fontSize=8.5, leading=10.5),
        "code": ParagraphStyle("code", parent=base["Code"], fontSize=7, leading=8.4, backColor=colors.HexColor(
            "#f5f5f5"), borderPadding=3),
    }


def _p(text: str, style: ParagraphStyle) -> Paragraph:
    """A paragraph of plain text: reportlab reads markup, so everything from a request is escaped first."""
    return Paragraph(escape(text).replace("\n", "<br/>"), style)


def _table(rows: list[tuple[str, str]], st: dict[str, ParagraphStyle], widths=(45 * mm, 125 * mm)) -> Table:
    table = Table([[_p(k, st["cell"]), _p(v, st["cell"])] for k, v in rows], colWidths=list(widths))
    table.setStyle(TableStyle([
        ("VALIGN", (0, 0), (-1, -1), "TOP"),
        ("LINEBELOW", (0, 0), (-1, -1), 0.25, colors.HexColor("#dddddd")),
        ("TEXTCOLOR", (0, 0), (0, -1), colors.HexColor("#555555")),
    ]))
    return table


def _code(text: str, st: dict[str, ParagraphStyle]) -> Preformatted:
    lines = text.splitlines()
    if len(lines) > ARTIFACT_LINES:
        lines = [*lines[:ARTIFACT_LINES], f"… {len(lines) - ARTIFACT_LINES} more line(s) in the verdict JSON"]
    return Preformatted("\n".join(lines), st["code"], maxLineLength=110)


def _dag(view: VerdictView) -> Drawing:
    """The step DAG drawn like the web page's, scaled to the text width."""
    lay = view.layout
    node_w, node_h, gap_x, gap_y = 22, 14, 14, 6
    width = lay.columns * node_w + (lay.columns - 1) * gap_x
    height = lay.rows * node_h + (lay.rows - 1) * gap_y
    scale = min(1.0, (170 * mm) / max(width, 1))
    drawing = Drawing(width * scale + 4, height * scale + 4)

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
                           textAnchor="middle", fontSize=7 * max(scale, 0.6), fillColor=colors.HexColor(stroke)))
    return drawing


def _step_block(step: StepView, st: dict[str, ParagraphStyle]) -> list:
    rows = [("Status", step.status.value), ("Reasoning", step.content)]
    if step.dependencies:
        rows.append(("Depends on", ", ".join(f"step {d}" for d in step.dependencies)))
    if step.aligned_claim:
        rows.append(("Claim as formalised", step.aligned_claim))
    if step.evidence_kind:
        by = ", ".join(x for x in (f"formalised by {step.formaliser}" if step.formaliser else "",
                                   f"supplied by {step.supplied_by}" if step.supplied_by else "") if x)
        rows.append(("Evidence", f"{step.evidence_kind}" + (f" ({by})" if by else "")
                     + (f" — {step.evidence_note}" if step.evidence_note else "")))
    rows += [("Proved by", proof) for proof in step.proved_by]
    rows += [("Assumed", premise) for premise in step.assumptions]
    if step.message:
        rows.append(("Checker message", step.message))
    if step.invalidated_by:
        rows.append(("Invalidated by", ", ".join(f"step {b}" for b in step.invalidated_by)
                     + (f" (its own check: {step.local_status})" if step.local_status else "")))
    if step.counterexample:
        rows.append(("Counterexample", step.counterexample))
    rows += [(f"Failing test {t.test}", f"{t.outcome}: {t.message}") for t in step.failing_tests]
    rows.append(("Checker", step.checker or "none ran"))
    if step.translator:
        rows.append(("Translator", step.translator))
    block = [_p(f"Step {step.step_id}: {step.status.value}", st["h3"]), _table(rows, st)]
    if step.artifact:
        block += [_p(f"Formal artifact ({step.language or 'as supplied'}):", st["cell"]), _code(step.artifact, st)]
    return block


def _page_header(view: VerdictView) -> Callable[[Canvas, object], None]:
    """Draws the attestation line at the top of a page (every page: a page read alone must not mislead)."""
    attestation = view.attestation
    if attestation.attested:
        text = f"Verdict {view.overall_label}, attested: {attestation.standing.value} (see Summary)"
        colour, font = colors.HexColor("#106b21"), "Helvetica"
    else:
        text = (f"UNATTESTED verdict: it claims {view.overall.value}, but nothing this reader trusts vouches for "
                "it (see Summary)")
        colour, font = colors.HexColor("#a11111"), "Helvetica-Bold"

    def draw(canvas: Canvas, _doc: object) -> None:
        canvas.saveState()
        canvas.setFont(font, 8)
        canvas.setFillColor(colour)
        canvas.drawString(18 * mm, A4[1] - 10 * mm, text)
        canvas.restoreState()

    return draw


def compliance_report(view: VerdictView, template: ReportTemplate = ReportTemplate.PLAIN) -> bytes:
    """The PDF for `view` in `template`."""
    st = _styles()
    verdict, request = view.verdict, view.request
    out = BytesIO()
    title = _TITLES[template]
    doc = SimpleDocTemplate(out, pagesize=A4, leftMargin=18 * mm, rightMargin=18 * mm, topMargin=16 * mm,
                            bottomMargin=16 * mm, title=f"{title}: {view.overall_label}", author="ReasonForge",
                            subject=f"task {verdict.task_id}")
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
              _p(f"Question: {request.original_query or '(none given)'}", st["body"]), Spacer(1, 4),
              _table([(f"Step {s.step_id}", s.content) for s in view.steps], st, widths=(20 * mm, 150 * mm))]

    story += [_p("Per-step verdicts", st["h2"]), _dag(view)]
    for step in view.steps:
        story += _step_block(step, st)

    story.append(_p("Failure analysis", st["h2"]))
    report = verdict.failure_report
    if report is None:
        unproven = [s.step_id for s in view.steps if s.status is not StepStatus.VERIFIED]
        story.append(_p("No step was refuted." + (
            f" Not proven either way: step(s) {', '.join(map(str, unproven))} (see their messages above)."
            if unproven else " Every step was verified."), st["body"]))
        if verdict.assumptions:
            story.append(_p("Assumed (premises the steps state that nothing gives, derives or contradicts; the steps "
                            "are valid inferences from them, not proven true):", st["body"]))
            story.append(_table([(f"Step {a.step_id}", a.premise) for a in verdict.assumptions], st))
    else:
        story.append(KeepTogether([_table([
            ("First failing step", f"step {report.failed_step_id}"),
            ("Its reasoning", report.original_reasoning),
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
    for heading, text in _METHODOLOGY:
        story += [_p(heading, st["h3"]), _p(text, st["body"])]

    story += [_p("Timestamps and chain of custody", st["h2"]), _table([
        ("Report generated", view.generated_at),
        ("Verification time", f"{verdict.verification_time_ms} ms"),
        *view.custody,
    ], st, widths=(55 * mm, 115 * mm))]
    header = _page_header(view)
    doc.build(story, onFirstPage=header, onLaterPages=header)
    return out.getvalue()
