"""The server's pages in a real browser: the verdict page (each step, the DAG) and the dashboard, a clean console."""

from __future__ import annotations

import base64
import time
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


def _basic(key: str) -> dict[str, str]:
    """The header a browser sends for a page: HTTP Basic with the key as the password."""
    return {"Authorization": "Basic " + base64.b64encode(f"x:{key}".encode()).decode()}


def test_an_admin_key_reads_any_keys_verdict_page_and_report(embedded_service) -> None:
    """Two keys beside the submitter: one with the default scopes gets 404 on the submitter's verdict, one with the
    admin scope (which sees every key's jobs on the dashboard) reads the page and the report."""
    svc = embedded_service
    chain = {"original_query": "Let n = 5. What is n + 1?", "claimed_answer": "6", "domain": "mathematics",
             "proof_level": "quick", "generate_certificate": False,
             "reasoning_chain": [{"step_id": 1, "content": "Let n = 5"}, {"step_id": 2, "content": "So n + 1 = 6"}]}
    with httpx.Client(base_url=svc.base_url, headers=svc.headers, timeout=120) as client:
        task = client.post("/v1/verify", json=chain).json()["task_id"]
        assert client.get(f"/v1/verify/{task}", params={"wait": 60}).json()["status"] == "complete"
    admin, other = svc.create_key("admin-reader", "--scope", "admin"), svc.create_key("other-reader")
    with httpx.Client(base_url=svc.base_url, timeout=120) as client:
        refused = client.get(f"/verdicts/{task}", headers=_basic(other))
        assert refused.status_code == 404 and "no task" in refused.text
        assert client.get(f"/v1/verify/{task}/report.pdf", headers={"Authorization": f"Bearer {other}"}
                          ).status_code == 404
        report = client.get(f"/v1/verify/{task}/report.pdf", headers={"Authorization": f"Bearer {admin}"})
        assert report.status_code == 200 and report.content.startswith(b"%PDF")
    with chromium(extra_headers=_basic(admin)) as driver:
        driver.get(f"{svc.base_url}/verdicts/{task}")
        assert driver.find_element(By.ID, "overall").text == "VERIFIED"
        assert "So n + 1 = 6" in driver.find_element(By.ID, "step-2").text
        assert console_errors(driver) == []


def test_a_running_jobs_page_shows_each_steps_progress(embedded_service) -> None:
    """Three independent code steps whose tests take a while: while the job runs, its page lists the steps in
    checking order, those done as checked, one as being checked now, the rest waiting; then the verdict."""
    svc = embedded_service
    steps = [{"step_id": sid, "dependencies": [], "content": (
        f"f{sid} returns {sid}:\n```python\nimport time\n\ndef f{sid}() -> int:\n    return {sid}\n\n\n"
        f"def test_f{sid}() -> None:\n    time.sleep(1.5)\n    assert f{sid}() == {sid}\n```")}
        for sid in (1, 2, 3)]
    chain = {"original_query": "Write f1, f2 and f3.", "domain": "code", "proof_level": "quick",
             "generate_certificate": False, "reasoning_chain": steps}
    with httpx.Client(base_url=svc.base_url, headers=svc.headers, timeout=120) as client:
        task = client.post("/v1/verify", json=chain).json()["task_id"]
    seen: list[tuple[str, ...]] = []
    phases: list[str] = []
    with chromium(extra_headers=svc.headers) as driver:
        for _ in range(600):
            driver.get(f"{svc.base_url}/verdicts/{task}")
            if driver.find_elements(By.ID, "overall"):
                break
            states = tuple(r.get_attribute("data-state") for r in driver.find_elements(By.CSS_SELECTOR, "tr.step"))
            assert len(states) == 3, driver.page_source[:2000]
            if "checking" in states:
                seen.append(states)
                phases.append(driver.find_element(By.ID, "phase").text)
                if states[1:] == ("checking", "waiting") and not driver.find_elements(By.ID, "overall"):
                    screenshot(driver, "job-running")
            time.sleep(0.2)
        assert driver.find_elements(By.ID, "overall"), "the job did not finish"
        assert console_errors(driver) == []
    # a step being checked, with the steps before it checked and those after it waiting
    assert ("checked", "checking", "waiting") in seen or ("checked", "checked", "checking") in seen, seen
    assert all(s.index("checking") == s.count("checked") for s in seen), seen
    assert any(p.startswith(("Checking step 2 (2 of 3)", "Checking step 3 (3 of 3)")) for p in phases), phases
