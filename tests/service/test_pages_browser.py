"""The server's pages in a real browser: the verdict page (each step, the DAG) and the dashboard, a clean console."""

from __future__ import annotations

import base64
from pathlib import Path

import httpx
from browser import chromium, console_errors, screenshot
from selenium.webdriver.common.by import By

from servers import running_service


def test_a_verdict_page_served_live_in_chromium(embedded_service) -> None:
    svc = embedded_service
    chain = {"original_query": "Let n = 4. What is 2n + 1?", "claimed_answer": "9", "domain": "mathematics",
             "proof_level": "quick", "generate_certificate": False,
             "reasoning_chain": [{"step_id": 1, "content": "Let n = 4"}, {"step_id": 2, "content": "So 2n = 8"},
                                 {"step_id": 3, "content": "Then 2n + 1 = 10"}]}
    with httpx.Client(base_url=svc.base_url, headers=svc.headers, timeout=120) as client:
        task = client.post("/v1/verify", json=chain).json()["task_id"]
        done = client.get(f"/v1/verify/{task}", params={"wait": 60}).json()
    assert done["status"] == "complete", done
    with chromium(extra_headers=svc.headers) as driver:
        driver.get(f"{svc.base_url}/verdicts/{task}")
        assert driver.find_element(By.ID, "overall").text == done["verdict"]
        statuses = [s.get_attribute("data-status") for s in driver.find_elements(By.CSS_SELECTOR, "section.step")]
        assert statuses[:2] == ["verified", "verified"] and statuses[2] == "failed"
        assert len(driver.find_elements(By.CSS_SELECTOR, "svg.dag g.node")) == 3
        assert "2n + 1 = 10" in driver.find_element(By.ID, "step-3").text
        assert console_errors(driver) == []
        screenshot(driver, "verdict-live")


def _validator_state(path: Path) -> None:
    """A validator state file as `subnet/state.py` writes it: two miners after epoch 3, one caught by a trap."""
    from reasonforge.subnet.state import EpochEntry, MinerRecord, ValidatorState

    state = ValidatorState(hotkey="validator", last_completed_epoch=3, miners={
        1: MinerRecord(hotkey="5Honest", streak=3, history={3: EpochEntry(cts=[0.9, 0.8], epoch_score=0.85, rank=1,
                                                                          weight=0.7, trap_scores=[1.0])}),
        2: MinerRecord(hotkey="5Vacuous", streak=0, history={3: EpochEntry(cts=[0.2], epoch_score=0.1, rank=2,
                                                                           weight=0.3, trap_scores=[0.0, 1.0])}),
    })
    state.save(path)


def test_the_dashboard_served_live_in_chromium(tmp_path) -> None:
    state = tmp_path / "validator.json"
    _validator_state(state)
    home = tmp_path / "home"
    with running_service(home, env={"REASONFORGE_VALIDATOR_STATE": str(state), "REASONFORGE_BUILD_KEYS_AT_START":
                                    "false"}, key_args=["--scope", "admin", "--scope", "verify"]) as svc:
        with httpx.Client(base_url=svc.base_url, headers=svc.headers, timeout=120) as client:
            for n, answer in ((3, 7), (4, 10)):  # 2n + 1: right, then wrong at step 2
                chain = {"original_query": f"Let n = {n}. What is 2n + 1?", "claimed_answer": str(answer),
                         "domain": "mathematics", "proof_level": "quick", "generate_certificate": False,
                         "reasoning_chain": [{"step_id": 1, "content": f"Let n = {n}"},
                                             {"step_id": 2, "content": f"So 2n + 1 = {answer}"}]}
                task = client.post("/v1/verify", json=chain).json()["task_id"]
                assert client.get(f"/v1/verify/{task}", params={"wait": 60}).json()["status"] == "complete"
            reader = client.get("/dashboard", headers={"Authorization": "Basic " + base64.b64encode(
                b"x:rf_nobody_secret").decode()})
            assert reader.status_code == 401 and reader.headers["www-authenticate"].startswith("Basic")
            lookup = client.get("/dashboard/certificate", params={"id": "0x" + "ab" * 32})
            assert lookup.status_code == 404 and "No such certificate" in lookup.text  # the certificate page's 404
            assert client.get("/dashboard/certificate", params={"id": "nope"}).status_code == 422
            assert client.get("/dashboard/certificate").status_code == 422
        with chromium(extra_headers=svc.headers) as driver:
            driver.get(f"{svc.base_url}/dashboard")
            assert driver.find_element(By.ID, "total").text == "2"
            assert driver.find_element(By.ID, "rate").text == "50%"
            volume = driver.find_elements(By.CSS_SELECTOR, "tr.volume")
            assert [(r.get_attribute("data-domain"), r.get_attribute("data-level")) for r in volume] == [
                ("mathematics", "quick")]
            today = [(d.get_attribute("data-n"), d.get_attribute("data-verified"))
                     for d in volume[0].find_elements(By.CSS_SELECTOR, "svg.daily g.day")][-1]
            assert today == ("2", "1")  # today's bar: two verifications, one VERIFIED
            bars = driver.find_elements(By.CSS_SELECTOR, "svg.chart g.bar")
            assert ("step 2", "1") in [(b.get_attribute("data-label"), b.get_attribute("data-value")) for b in bars]
            assert "sympy-relations" in driver.find_element(By.ID, "checkers").text
            miners = [r.text for r in driver.find_elements(By.CSS_SELECTOR, "tr.miner")]
            assert len(miners) == 2 and "5Honest" in miners[0] and miners[1].endswith("50%")
            assert console_errors(driver) == []
            screenshot(driver, "dashboard")
