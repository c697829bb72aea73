"""Compliance reports read back as a person would: every section present in the text poppler extracts, every page
rendered, for a VERIFIED, a PARTIAL and a FAILED verdict in each template."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from browser import ARTIFACTS

from reasonforge.chain import parse_request
from reasonforge.errors import ToolUnavailableError
from reasonforge.pipeline.run import verify_chain
from reasonforge.report import SECTIONS, ReportTemplate, build_view, compliance_report, verdict_page
from reasonforge.types import ProofLevel
from reasonforge.verify.coq import unavailable_reason
from reasonforge.verify.math.relations import CHECKER_VERSION as SYMPY_VERSION

REGIME_HEADINGS = {
    ReportTemplate.PLAIN: None,
    ReportTemplate.EU_AI_ACT: "Regulatory context: EU AI Act",
    ReportTemplate.FDA: "Regulatory context: FDA",
    ReportTemplate.SEC: "Regulatory context: SEC record-keeping",
}


def _tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.fail(f"{name} is not installed (Debian's poppler-utils): run `make install`", pytrace=False)
    return path


def pdf_text(pdf: Path) -> str:
    """The report's text as pdftotext reads it, with the line breaks of wrapped paragraphs undone."""
    out = subprocess.run([_tool("pdftotext"), "-layout", str(pdf), "-"], capture_output=True, text=True, timeout=120,
                         check=True).stdout
    return " ".join(out.split())


@pytest.mark.parametrize("template", list(ReportTemplate), ids=lambda t: t.value)
@pytest.mark.parametrize("overall", ["VERIFIED", "PARTIAL", "FAILED"])
def test_every_section_is_in_the_pdf(verdicts, template, overall, tmp_path) -> None:
    request, verdict = verdicts[overall]
    pdf = tmp_path / "report.pdf"
    pdf.write_bytes(compliance_report(build_view(request, verdict), template))
    text = pdf_text(pdf)
    for section in SECTIONS:
        assert section in text, (section, template, overall)
    heading = REGIME_HEADINGS[template]
    assert (heading in text) if heading else "Regulatory context" not in text
    assert f"Verdict {overall}" in text and verdict.verdict_digest in text and verdict.task_hash in text
    for step in request.reasoning_chain:
        assert f"Step {step.step_id}:" in text
    if overall == "PARTIAL":
        assert "First failing step step 3" in text and "Cascade: invalidated with it step 4" in text
    ARTIFACTS.mkdir(exist_ok=True)
    prefix = ARTIFACTS / f"report-{template.value}-{overall.lower()}"
    subprocess.run([_tool("pdftoppm"), "-r", "50", "-png", str(pdf), str(prefix)], check=True, timeout=120)
    pages = sorted(ARTIFACTS.glob(f"{prefix.name}-*.png"))
    assert pages and all(p.stat().st_size > 2_000 for p in pages)


def test_markup_in_the_request_is_printed_not_interpreted(verdicts, tmp_path) -> None:
    request, _ = verdicts["VERIFIED"]
    hostile = request.model_copy(update={"claimed_answer": "<b>bold</b> <font size=40>big</font> &amp; <para>"})
    pdf = tmp_path / "r.pdf"
    pdf.write_bytes(compliance_report(build_view(hostile, verify_chain(hostile))))
    assert "<b>bold</b> <font size=40>big</font> &amp; <para>" in pdf_text(pdf)


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "reasonforge.cli", *args], capture_output=True, text=True,
                          timeout=300)


def test_report_command_and_its_errors(verdicts, tmp_path) -> None:
    request, verdict = verdicts["PARTIAL"]
    (tmp_path / "v.json").write_text(verdict.model_dump_json())
    (tmp_path / "req.json").write_text(request.model_dump_json())
    out = tmp_path / "r.pdf"
    ok = cli("report", str(tmp_path / "v.json"), "--request", str(tmp_path / "req.json"), "--out", str(out),
             "--template", "sec")
    assert ok.returncode == 0 and "sec report, verdict PARTIAL" in ok.stdout, ok.stderr
    assert "Regulatory context: SEC" in pdf_text(out)
    other, _ = verdicts["VERIFIED"]
    (tmp_path / "other.json").write_text(other.model_dump_json())
    for args, message in [
        (["--request", str(tmp_path / "other.json")], "give the request the verdict was computed from"),
        (["--request", str(tmp_path / "req.json"), "--certificate", str(tmp_path / "req.json")],
         "is not a certificate JSON"),
        (["--request", str(tmp_path / "missing.json")], "does not exist"),
    ]:
        bad = cli("report", str(tmp_path / "v.json"), *args, "--out", str(tmp_path / "x.pdf"))
        assert bad.returncode == 2 and message in bad.stderr and "Traceback" not in bad.stderr, bad.stderr
    (tmp_path / "broken.json").write_text(json.dumps({"task_id": "x"}))
    broken = cli("report", str(tmp_path / "broken.json"), "--request", str(tmp_path / "req.json"), "--out",
                 str(tmp_path / "x.pdf"))
    assert broken.returncode == 2 and "is not a verdict JSON" in broken.stderr


# A maths chain at standard level that SymPy's relation checker alone judges, with a `≤` in its text.
AT_MOST = {"original_query": "Let x = 2 and y = 3x. What is y, and is it ≤ 7?", "claimed_answer": "y = 6",
           "domain": "mathematics", "proof_level": "standard",
           "reasoning_chain": [{"step_id": 1, "content": "y = 3x = 3 · 2 = 6"},
                               {"step_id": 2, "content": "So y = 6 ≤ 7.", "dependencies": [1]}]}


def _fonts(pdf: Path) -> list[list[str]]:
    """pdffonts' rows: name, type …, emb, sub, uni, object id."""
    out = subprocess.run([_tool("pdffonts"), str(pdf)], capture_output=True, text=True, timeout=120,
                         check=True).stdout
    return [line.split() for line in out.splitlines()[2:] if line.strip()]


def test_the_pdf_embeds_a_unicode_font_and_prints_every_symbol(verdicts, tmp_path) -> None:
    """`⊢`, `∀`, `→` (a logic artifact) and `≤` (a step's text) print as themselves, in an embedded TrueType font;
    no base-14 font (which has none of them) is left in the file."""
    logic_request, logic = verdicts["VERIFIED"]
    maths_request = parse_request(AT_MOST)
    for name, request, verdict in (("logic", logic_request, logic),
                                   ("maths", maths_request, verify_chain(maths_request))):
        pdf = tmp_path / f"{name}.pdf"
        pdf.write_bytes(compliance_report(build_view(request, verdict)))
        fonts = _fonts(pdf)
        assert fonts and all(row[1] == "TrueType" and row[-5] == "yes" for row in fonts), fonts
        assert {row[0].split("+")[-1] for row in fonts} >= {"DejaVuSans", "DejaVuSansMono"}, fonts
        text = subprocess.run([_tool("pdftotext"), str(pdf), "-"], capture_output=True, text=True, timeout=120,
                              check=True).stdout
        assert "■" not in text
        wanted = ("⊢ ∀x (Whale(x) → WarmBlooded(x))",) if name == "logic" else ("So y = 6 ≤ 7.",)
        for line in wanted:
            assert line in text, (name, line)


def test_a_missing_font_is_a_clear_error_not_a_fallback(verdicts, tmp_path) -> None:
    request, verdict = verdicts["VERIFIED"]
    with pytest.raises(ToolUnavailableError, match="DejaVuSans.ttf.*fonts-dejavu-core"):
        compliance_report(build_view(request, verdict), font_dirs=(tmp_path,))


def _methodology(text: str) -> str:
    return text.split("Methodology", 1)[1].split("Timestamps and chain of custody")[0]


def test_the_methodology_names_only_the_checkers_and_tools_that_ran(verdicts, tmp_path) -> None:
    """Written from the verdict's steps, never a fixed paragraph: SymPy alone at standard level says nothing of
    Coq or cvc5; a logic verdict names Z3, and cvc5 only at the formal level, where it ran."""
    maths_request = parse_request(AT_MOST)
    whale, _ = verdicts["VERIFIED"]
    formal = whale.model_copy(update={"proof_level": ProofLevel.FORMAL})
    cases = {"maths": maths_request, "logic": whale, "formal": formal}
    said = {}
    for name, request in cases.items():
        verdict = verify_chain(request)
        view = build_view(request, verdict)
        pdf = tmp_path / f"{name}.pdf"
        pdf.write_bytes(compliance_report(view))
        said[name] = _methodology(pdf_text(pdf))
        page = verdict_page(view)
        said[name + "-page"] = page.split('id="methodology"', 1)[1].split("</div>", 1)[0]
    for where in ("", "-page"):
        maths, logic, formal_text = said["maths" + where], said["logic" + where], said["formal" + where]
        assert f"sympy-relations {SYMPY_VERSION}" in maths and "SymPy" in maths and "standard level" in maths
        for absent in ("Coq", "cvc5", "Lean", "Z3", "mutant"):
            assert absent not in maths, (where, absent)
        assert "Z3" in logic and "cvc5" not in logic and "Coq" not in logic and "SymPy" not in logic
        assert "Z3" in formal_text and "cvc5" in formal_text and "formal level" in formal_text


@pytest.mark.skipif(unavailable_reason() is not None, reason="the key lemmas need coqc and the sandbox")
def test_the_report_says_which_relations_coq_proved_and_which_sympy_did(tmp_path) -> None:
    request = parse_request({"original_query": "Show that x^2 + 1 >= 2x.", "domain": "mathematics",
                             "proof_level": "standard", "reasoning_chain": [
                                 {"step_id": 1, "content": "So x^2 + 1 >= 2x."},
                                 {"step_id": 2, "content": "Also 3 + 4 = 7.", "dependencies": []}]})
    pdf = tmp_path / "report.pdf"
    pdf.write_bytes(compliance_report(build_view(request, verify_chain(request)), ReportTemplate.PLAIN))
    text = pdf_text(pdf)
    assert "Proved by x^2 + 1 >= 2*x: Coq, Lemma key_1_1 : forall x : R, x ^ 2 + 1 >= 2 * x. by" in text
    assert "SymPy left it undecided" in text and "Proved by 3 + 4 = 7: SymPy (exact)" in text
    assert "stated as a Coq lemma from the question's givens" in text  # the methodology says what the level did
    view = build_view(request, verify_chain(request))
    assert view.steps[0].checker_tools[-1] == "Coq" and "Coq" not in view.steps[1].checker_tools  # who ran, per step
