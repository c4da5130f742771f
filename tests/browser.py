"""Headless Chromium for the tests that look at a page (selenium with Debian's chromium and
chromedriver): where they are, and a driver that skips the test when the browser cannot start."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from typing import Any

import pytest


def browser_paths() -> tuple[str, str] | None:
    """``(chromium, chromedriver)``, or None where either is missing."""
    chrome = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver") or (
        "/usr/bin/chromedriver" if os.path.exists("/usr/bin/chromedriver") else None)
    return (chrome, driver) if chrome and driver else None


@contextlib.contextmanager
def headless_chromium(width: int = 1280, height: int = 900) -> Iterator[Any]:
    """A selenium driver of a headless Chromium with a fresh profile, quit afterwards; skips
    the test where selenium, the browser or its driver is missing or does not start."""
    webdriver = pytest.importorskip("selenium.webdriver")
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    found = browser_paths()
    if found is None:
        pytest.skip("chromium/chromedriver not installed")
    chrome, driver_path = found
    profile = tempfile.mkdtemp(prefix="gbot-chromium-")
    opts = Options()
    opts.binary_location = chrome
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", f"--window-size={width},{height}",
                 f"--user-data-dir={profile}"):
        opts.add_argument(flag)
    try:
        drv = webdriver.Chrome(service=Service(executable_path=driver_path), options=opts)
    except WebDriverException as exc:
        shutil.rmtree(profile, ignore_errors=True)
        pytest.skip(f"chromium does not start here: {exc.msg}")
    drv.set_page_load_timeout(60)
    try:
        yield drv
    finally:
        drv.quit()
        shutil.rmtree(profile, ignore_errors=True)
