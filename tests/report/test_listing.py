"""Many verdicts on one page (`reasonforge view`): read from a verify-batch output or a folder of verdicts, counted,
filtered by CSS alone in a real browser, each row linking to its verdict page."""

import json
import subprocess
import sys

import pytest
from browser import chromium, console_errors, screenshot

from reasonforge.errors import InputError
from reasonforge.pipeline import verify_chain
from reasonforge.report.listing import read_results, write_listing
from reasonforge.types import Domain, ProofLevel, VerifyRequest


def chain(n: int, *, wrong: bool = False, reference: str = "") -> VerifyRequest:
    return VerifyRequest(original_query=f"Let n = {n}. What is n + 1?", domain=Domain.MATHEMATICS,
                         proof_level=ProofLevel.QUICK, reference_answer=reference,
                         reasoning_chain=[{"step_id": 1, "content": f"Let n = {n}"},
                                          {"step_id": 2, "content": f"So n + 1 = {n + (2 if wrong else 1)}"}])


@pytest.fixture(scope="module")
def batch_output(tmp_path_factory):
    out = tmp_path_factory.mktemp("results") / "out.jsonl"
    requests = [chain(3), chain(4, wrong=True), chain(5, reference="7"), chain(6, reference="7")]
    lines = []
    for line, request in reversed(list(enumerate(requests, start=1))):  # completion order differs from input order
        verdict = verify_chain(request)
        lines.append(json.dumps({"line": line, "id": f"row-{line}", "row_sha256": "0" * 64,
                                 "request": request.model_dump(mode="json"),
                                 "verdict": verdict.model_dump(mode="json"), "error": None}))
    lines.append(json.dumps({"line": 5, "id": None, "row_sha256": "1" * 64, "verdict": None,
                             "error": "line 5: not JSON"}))
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out


def test_a_batch_output_is_listed_in_input_order_with_its_verdict_pages(batch_output, tmp_path):
    listed = read_results(batch_output)
    assert [item.label for item in listed] == ["row-1", "row-2", "row-3", "row-4", "line 5"]
    assert [item.answer for item in listed[:4]] == ["none", "none", "wrong", "right"]
    assert "is false" in listed[1].why and listed[4].error == "line 5: not JSON"
    index = write_listing(batch_output, tmp_path / "view")
    assert sorted(p.name for p in (tmp_path / "view" / "verdicts").iterdir()) == ["1.html", "2.html", "3.html",
                                                                                  "4.html"]
    page = index.read_text(encoding="utf-8")
    assert "<script" not in page and 'href="verdicts/2.html"' in page


def test_the_filters_hide_rows_by_css_alone_in_a_real_browser(batch_output, tmp_path):
    from selenium.webdriver.common.by import By

    index = write_listing(batch_output, tmp_path / "view")
    with chromium() as driver:
        driver.get(index.as_uri())
        rows = driver.find_elements(By.CSS_SELECTOR, "tr.row")
        assert sum(r.is_displayed() for r in rows) == 5
        driver.find_element(By.CSS_SELECTOR, "label[for=assurance-refuted]").click()
        assert [r.text.split()[1] for r in rows if r.is_displayed()] == ["row-2"]
        driver.find_element(By.CSS_SELECTOR, "label[for=assurance-all]").click()
        driver.find_element(By.CSS_SELECTOR, "label[for=answer-right]").click()
        assert [r.text.split()[1] for r in rows if r.is_displayed()] == ["row-4"]
        screenshot(driver, "verdict-listing")
        driver.find_element(By.LINK_TEXT, "row-4").click()
        assert driver.find_element(By.ID, "overall").text in ("VERIFIED", "PARTIAL")
        assert console_errors(driver) == []


def test_a_folder_of_verdicts_and_bad_input(tmp_path):
    folder = tmp_path / "verdicts"
    folder.mkdir()
    (folder / "a.json").write_text(verify_chain(chain(3)).model_dump_json(indent=2), encoding="utf-8")
    (folder / "b.json").write_text(verify_chain(chain(4, wrong=True)).model_dump_json(), encoding="utf-8")
    assert [item.verdict.overall.value for item in read_results(folder)] == ["VERIFIED", "PARTIAL"]
    (folder / "c.json").write_text('{"hello": 1}', encoding="utf-8")
    with pytest.raises(InputError, match="c.json"):
        read_results(folder)
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(InputError, match="no .json"):
        read_results(empty)
    out = subprocess.run([sys.executable, "-m", "reasonforge.cli", "view", str(folder)], capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 2 and "c.json" in out.stderr


def test_a_partial_chain_whose_steps_are_all_verified_says_what_it_assumed(tmp_path):
    """Every step verified but PARTIAL: the row's reason is the premises nobody gave, not an empty cell."""
    from pathlib import Path

    from reasonforge.chain import parse_request

    request = parse_request((Path(__file__).resolve().parents[2] / "examples" / "whale-assumed.json").read_bytes())
    verdict = verify_chain(request)
    assert verdict.overall.value == "PARTIAL" and all(s.status.value == "verified" for s in verdict.step_verdicts)
    (tmp_path / "v.json").write_text(verdict.model_dump_json(), encoding="utf-8")
    [item] = read_results(tmp_path)
    assert item.why.startswith("proven only from premises nobody gave: ")
    assert all(a.premise in item.why for a in verdict.assumptions)
