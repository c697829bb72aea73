"""Debian's Chromium, headless, driven through its own WebDriver (chromium-driver): what a person's browser shows."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
"""Screenshots the browser tests take, kept for a person to look at (not committed)."""


@contextmanager
def chromium(extra_headers: dict[str, str] | None = None) -> Iterator:
    """A headless Chromium session; `extra_headers` go with every request (an API key for the service's pages)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    binary, driver_path = shutil.which("chromium"), shutil.which("chromedriver")
    if binary is None or driver_path is None:
        pytest.fail("chromium and chromium-driver are not installed: run `make install`", pytrace=False)
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--window-size=1200,1600", "--no-first-run", "--disable-extensions"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    try:
        driver.set_page_load_timeout(60)
        if extra_headers:
            driver.execute_cdp_cmd("Network.enable", {})
            driver.execute_cdp_cmd("Network.setExtraHTTPHeaders", {"headers": extra_headers})
        yield driver
    finally:
        driver.quit()


def console_errors(driver) -> list[str]:
    """Errors the page logged to the console (script errors, refused resources, CSP violations)."""
    return [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


def screenshot(driver, name: str) -> Path:
    """Save the whole page as test-artifacts/NAME.png and return the path."""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    driver.set_window_size(1200, 800)  # a page shorter than the window would be measured as tall as the window
    height = driver.execute_script("return document.documentElement.scrollHeight")
    # the window's own frame is part of its size: without it the page's foot is cut off
    frame = driver.execute_script("return window.outerHeight - window.innerHeight")
    driver.set_window_size(1200, min(max(height + frame, 800), 8000))
    driver.save_screenshot(str(path))
    return path
