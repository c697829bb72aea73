"""The dashboard drawn from a job store, looked at in Chromium: a bar and a label per day, a per-day column one can
read, checkers by the name the CLI and the verdict page use, and empty leaderboards kept to a line each."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from itertools import pairwise
from pathlib import Path

from browser import chromium, console_errors, screenshot
from selenium.webdriver.common.by import By

from reasonforge.chain import parse_request
from reasonforge.pipeline.run import verify_chain
from reasonforge.service.dashboard import WINDOW_DAYS, dashboard_page, gather
from reasonforge.service.db import create_tables, make_engine, make_sessionmaker
from reasonforge.service.jobs.tables import JobRow
from reasonforge.verify.math.relations import CHECKER_VERSION as SYMPY_VERSION

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
NOW = datetime(2026, 3, 14, 12, 0, tzinfo=UTC)


def _store(path: Path, jobs: list[tuple[int, str]]):
    """A SQLite job store holding one finished job per (days ago, example chain)."""
    engine = make_engine(f"sqlite:///{path}")
    create_tables(engine)
    sm = make_sessionmaker(engine)
    verdicts = {name: verify_chain(parse_request((EXAMPLES / f"{name}.json").read_bytes()))
                for name in {name for _, name in jobs}}
    with sm.begin() as session:
        for i, (ago, name) in enumerate(jobs):
            verdict, at = verdicts[name], (NOW - timedelta(days=ago, hours=1)).timestamp()
            session.add(JobRow(task_id=f"t{i}", owner_key_id="k", request_json="{}", request_hash="h",
                               proof_level=verdict.proof_level.value, steps_total=verdict.total_steps,
                               status="complete", enqueued_at=at, verdict_json=verdict.model_dump_json(),
                               overall=verdict.overall.value, created_at=at, updated_at=at, finished_at=at))
    return sm


def test_the_dashboard_has_a_bar_and_a_label_per_day_and_compact_empty_leaderboards(tmp_path) -> None:
    sm = _store(tmp_path / "jobs.sqlite", [(0, "whale"), (0, "arithmetic-slip"), (2, "whale"), (5, "whale")])
    board = gather(sm, now=NOW, forecasts=([], "No ForecastRegistry configured."))
    page = tmp_path / "dashboard.html"
    page.write_text(dashboard_page(board), encoding="utf-8")
    with chromium() as driver:
        driver.get(page.as_uri())
        chart = driver.find_element(By.CSS_SELECTOR, "svg.chart[aria-label='verifications per day']")
        bars = chart.find_elements(By.CSS_SELECTOR, "g.bar")
        labels = chart.find_elements(By.CSS_SELECTOR, "text.label")
        assert len(bars) == len(labels) == WINDOW_DAYS
        assert [b.get_attribute("data-value") for b in bars][-6:] == ["1", "0", "0", "1", "0", "2"]
        assert labels[-1].text == "14 Mar" and len({label.text for label in labels}) == WINDOW_DAYS
        # each label under its own bar, none on top of another
        centres = [label.rect["x"] + label.rect["width"] / 2 for label in labels]
        assert all(b - a > labels[0].rect["width"] for a, b in pairwise(centres))
        daily = driver.find_elements(By.CSS_SELECTOR, "tr.volume svg.daily")
        assert daily and all(svg.rect["width"] >= 200 and svg.rect["height"] >= 36 for svg in daily)
        checkers = driver.find_element(By.ID, "checkers").text
        assert "fol 1.0.0" in checkers and f"sympy-relations {SYMPY_VERSION}" in checkers and "reasonforge." not in checkers
        headings = [h.text for h in driver.find_elements(By.TAG_NAME, "h2")]
        assert "Leaderboards" in headings and not any("leaderboard" in h for h in headings), headings
        notes = driver.find_elements(By.CSS_SELECTOR, ".notes p")
        assert [n.get_attribute("id") for n in notes] == ["miners-note", "forecasts-note"]
        lookup = next(h for h in driver.find_elements(By.TAG_NAME, "h2") if h.text == "Certificate lookup")
        board_heading = next(h for h in driver.find_elements(By.TAG_NAME, "h2") if h.text == "Leaderboards")
        assert lookup.rect["y"] - board_heading.rect["y"] < 120  # a heading and two lines, not two sections
        assert console_errors(driver) == []
        screenshot(driver, "dashboard-empty-leaderboards")
