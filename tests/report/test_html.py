"""The verdict page: everything from the request is text, never markup; a browser shows each step, its status and
the DAG, with nothing in its console."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from browser import chromium, console_errors, screenshot
from selenium.webdriver.common.by import By

from reasonforge.chain import parse_request
from reasonforge.pipeline.run import verify_chain
from reasonforge.report import build_view, verdict_page

WHALE = Path(__file__).resolve().parents[2] / "examples" / "whale.json"
HOSTILE = '</title></svg><script>alert(1)</script><img src=x onerror=alert(2)>{{ 7*7 }}"\''


def test_request_text_cannot_inject_markup() -> None:
    """A chain written to break out of every context the page puts text in: title, table cells, code, the SVG."""
    request = parse_request({
        "original_query": HOSTILE, "claimed_answer": HOSTILE, "domain": "mathematics", "proof_level": "quick",
        "reasoning_chain": [{"step_id": 1, "content": f"Let x = 2. {HOSTILE}"},
                            {"step_id": 2, "content": f"So x + 1 = 4 {HOSTILE}", "dependencies": [1]}]})
    page = verdict_page(build_view(request, verify_chain(request)))
    assert "<script" not in page and "onerror=alert" not in page.replace("onerror=alert(2)&gt;", "")
    assert "<img" not in page and "{{ 7*7 }}" in page.replace("&#34;", '"')  # shown as text, not evaluated
    assert page.count("&lt;script&gt;alert(1)&lt;/script&gt;") >= 3
    # the only tags are the page's own
    tags = set(re.findall(r"<([a-zA-Z][a-zA-Z0-9]*)", page))
    assert tags <= {"html", "head", "meta", "title", "style", "body", "header", "h1", "h2", "h3", "p", "span", "strong",
                    "table", "tr", "th", "td", "code", "div", "svg", "defs", "marker", "path", "line", "a", "g",
                    "rect", "text", "section", "details", "summary", "pre", "br"}, tags


def test_the_page_in_a_browser_shows_each_step_the_dag_and_the_cascade(verdicts, tmp_path) -> None:
    request, verdict = verdicts["PARTIAL"]
    path = tmp_path / "verdict.html"
    path.write_text(verdict_page(build_view(request, verdict)), encoding="utf-8")
    with chromium() as driver:
        driver.get(path.as_uri())
        assert driver.find_element(By.ID, "overall").text == "PARTIAL"
        sections = driver.find_elements(By.CSS_SELECTOR, "section.step")
        assert [s.get_attribute("data-status") for s in sections] == ["verified", "verified", "failed", "invalidated"]
        assert "27 + 2*12 = 53 is false" in sections[2].text and "Why not verified" in sections[2].text
        nodes = driver.find_elements(By.CSS_SELECTOR, "svg.dag g.node")
        assert [n.get_attribute("data-step") for n in nodes] == ["1", "2", "3", "4"]
        cascade = driver.find_elements(By.CSS_SELECTOR, "svg.dag line.cascade")
        assert [(c.get_attribute("data-from"), c.get_attribute("data-to")) for c in cascade] == [("3", "4")]
        assert driver.find_element(By.ID, "failure").is_displayed()
        assert "The first failing step is step 3" in driver.find_element(By.ID, "failure").text
        assert console_errors(driver) == []
        assert screenshot(driver, "verdict-partial").stat().st_size > 10_000


def test_cli_writes_the_page_beside_the_verdict(tmp_path) -> None:
    out = tmp_path / "page.html"
    run = subprocess.run([sys.executable, "-m", "reasonforge.cli", "verify", str(WHALE), "--html", str(out)],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert 'id="overall">VERIFIED<' in out.read_text(encoding="utf-8")
    missing = subprocess.run([sys.executable, "-m", "reasonforge.cli", "verify", str(WHALE), "--html",
                              str(tmp_path / "no" / "page.html")], capture_output=True, text=True, timeout=300)
    assert missing.returncode == 2 and "does not exist" in missing.stderr and "Traceback" not in missing.stderr


def test_step_text_is_monospace_with_code_blocks_and_each_step_shows_its_own_tests(verdicts, tmp_path) -> None:
    """A code chain: each step's text in a monospace face, its ```python fences drawn as code blocks (no backticks
    shown); under step 2 only step 2's failing test, step 1's named as step 1's (its artifact includes step 1's
    code and tests, so they fail in its run too)."""
    request, verdict = verdicts["FAILED"]
    path = tmp_path / "verdict.html"
    path.write_text(verdict_page(build_view(request, verdict)), encoding="utf-8")
    with chromium() as driver:
        driver.get(path.as_uri())
        for sid in (1, 2):
            reasoning = driver.find_element(By.CSS_SELECTOR, f"#step-{sid} td.reasoning")
            assert "```" not in reasoning.text and reasoning.find_elements(By.CSS_SELECTOR, ".hl pre")
            for block in reasoning.find_elements(By.CSS_SELECTOR, "pre"):
                assert "monospace" in block.value_of_css_property("font-family"), sid
        assert "def count_frequencies" in driver.find_element(By.CSS_SELECTOR, "#step-1 td.reasoning .hl").text
        shown = [c.text for c in driver.find_elements(By.CSS_SELECTOR, "#step-2 .failing > code")]
        assert shown == ["artifact.py::test_counts_sum_to_length"], shown
        others = driver.find_element(By.CSS_SELECTOR, "#step-2 .others")
        assert "artifact.py::test_step1_example_1" in others.text and "step 1" in others.text
        assert not driver.find_elements(By.CSS_SELECTOR, "#step-1 .others")
        assert console_errors(driver) == []
        screenshot(driver, "verdict-failed")


def test_the_page_speaks_a_readers_words(verdicts, tmp_path) -> None:
    """No internal ids: who formalised a claim and the checker are named as a reader understands them, the checker
    by its display name (the one the CLI and the dashboard use), with the tools that ran and only those."""
    request, verdict = verdicts["VERIFIED"]
    page = verdict_page(build_view(request, verdict))
    path = tmp_path / "verdict.html"
    path.write_text(page, encoding="utf-8")
    with chromium() as driver:
        driver.get(path.as_uri())
        text = driver.find_element(By.TAG_NAME, "body").text
        step = driver.find_element(By.ID, "step-1").text
    for internal in ("offline_reader", "formalised by", "supplied by proof", "reasonforge.fol", "cvc5"):
        assert internal not in text, internal
    assert "read from the step's text by the rules" in step
    assert f"{verdict.step_verdicts[0].checker_spec.display_name} · ran Z3" in step
    assert "failed" not in driver_legend(page)


def driver_legend(page: str) -> str:
    """The status legend under the DAG (only the statuses the verdict has)."""
    return page.split('<p class="legend">', 1)[1].split("</p>", 1)[0]
