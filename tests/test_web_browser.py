"""The web page in a real headless browser (Debian's chromium and chromium-driver, selenium).

Skips when chromium, chromedriver, selenium or the web extra is missing. Loads the page, enters
a position and reads the hint table (checked against the engine), plays a few moves of a game
against gbot, and saves a screenshot (docs/web.png when GBOT_SCREENSHOT=1, else a temp dir).
"""

from __future__ import annotations

import os
import shutil
import socket
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("starlette")
uvicorn = pytest.importorskip("uvicorn")
webdriver = pytest.importorskip("selenium.webdriver")

from selenium.common.exceptions import WebDriverException  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

import gbot  # noqa: E402
from gbot.adapters.web.app import create_app  # noqa: E402
from gbot.adapters.web.service import Service  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def _browser() -> tuple[str, str] | None:
    chrome = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver") or (
        "/usr/bin/chromedriver" if os.path.exists("/usr/bin/chromedriver") else None)
    return (chrome, driver) if chrome and driver else None


pytestmark = pytest.mark.skipif(_browser() is None, reason="chromium/chromedriver not installed")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    port = _free_port()
    app = create_app(Service(), warm=True)
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
    srv = uvicorn.Server(config)
    th = threading.Thread(target=srv.run, daemon=True)
    th.start()
    deadline = time.monotonic() + 120
    while not srv.started:
        if time.monotonic() > deadline or not th.is_alive():
            pytest.fail("uvicorn did not start")
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    th.join(10)


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    found = _browser()
    assert found is not None
    chrome, driver_path = found
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service as ChromeService

    profile = tempfile.mkdtemp(prefix="gbot-chromium-")
    opts = Options()
    opts.binary_location = chrome
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--window-size=1280,900",
                 f"--user-data-dir={profile}"):
        opts.add_argument(flag)
    try:
        drv = webdriver.Chrome(service=ChromeService(executable_path=driver_path), options=opts)
    except WebDriverException as exc:
        shutil.rmtree(profile, ignore_errors=True)
        pytest.skip(f"chromium does not start here: {exc.msg}")
    drv.set_page_load_timeout(60)
    yield drv
    drv.quit()
    shutil.rmtree(profile, ignore_errors=True)


def _wait(drv: object, cond: object, timeout: float = 60) -> object:
    return WebDriverWait(drv, timeout).until(cond)  # type: ignore[arg-type]


def _rows(drv: object) -> list[tuple[str, str]]:
    rows = drv.find_elements(By.CSS_SELECTOR, "#hints tbody tr.hint")  # type: ignore[attr-defined]
    return [(r.get_attribute("data-move"), r.find_elements(By.TAG_NAME, "td")[2].text)
            for r in rows]


def test_page_shows_the_engines_hint_and_cube(server: str, browser: object) -> None:
    drv = browser
    drv.get(server + "/")  # type: ignore[attr-defined]
    _wait(drv, lambda d: d.find_element(By.ID, "board").get_attribute("data-board"))
    start = gbot.Position.initial()
    assert drv.find_element(By.ID, "board").get_attribute("data-board") == \
        ",".join(str(int(v)) for v in start.board)  # type: ignore[attr-defined]

    pid = "4HPwATDgc/ABMA"   # the start; with 6-2 gnubg and gbot agree on the candidates
    box = drv.find_element(By.ID, "position")  # type: ignore[attr-defined]
    box.clear()
    box.send_keys(pid)
    dice = drv.find_element(By.ID, "dice")  # type: ignore[attr-defined]
    dice.clear()
    dice.send_keys("62")
    drv.find_element(By.ID, "go").click()  # type: ignore[attr-defined]
    _wait(drv, lambda d: len(_rows(d)) == 10)
    hints = gbot.Evaluator().hint(gbot.Position.from_id(pid), (6, 2), ply=0, n=10)
    shown = _rows(drv)
    assert [m for m, _ in shown] == [h.play.notation for h in hints]
    assert [float(e) for _, e in shown] == pytest.approx([h.equity for h in hints], abs=6e-4)
    cube = drv.find_element(By.ID, "cube")  # type: ignore[attr-defined]
    _wait(drv, lambda d: d.find_element(By.ID, "cube").get_attribute("data-action"))
    assert cube.get_attribute("data-action") == "no_double"

    # a malformed position gets the server's one-line message on the page
    box.clear()
    box.send_keys("not a position")
    drv.find_element(By.ID, "go").click()  # type: ignore[attr-defined]
    _wait(drv, lambda d: d.find_element(By.ID, "error").text)
    assert "Position ID" in drv.find_element(By.ID, "error").text  # type: ignore[attr-defined]


def test_play_a_few_moves_against_gbot(server: str, browser: object) -> None:
    drv = browser
    drv.get(server + "/")  # type: ignore[attr-defined]
    _wait(drv, lambda d: d.find_element(By.ID, "board").get_attribute("data-board"))
    drv.find_element(By.ID, "newgame").click()  # type: ignore[attr-defined]
    moves = 0
    deadline = time.monotonic() + 120
    while moves < 4 and time.monotonic() < deadline:
        _wait(drv, lambda d: "your move" in d.find_element(By.ID, "status").text
              or "game over" in d.find_element(By.ID, "status").text)
        if "game over" in drv.find_element(By.ID, "status").text:  # type: ignore[attr-defined]
            break
        rows = drv.find_elements(By.CSS_SELECTOR, "#hints tbody tr.hint.playable")  # type: ignore[attr-defined]
        assert rows, "the legal plays are listed"
        before = len(drv.find_elements(By.CSS_SELECTOR, "#gamelog li"))  # type: ignore[attr-defined]
        pick = rows[-1] if moves % 2 else rows[0]
        move = pick.get_attribute("data-move")
        pick.click()
        # my play and gbot's answer are logged, then it is my turn again
        _wait(drv, lambda d, n=before: len(d.find_elements(By.CSS_SELECTOR, "#gamelog li"))
              >= n + 2)
        log = [li.text for li in drv.find_elements(By.CSS_SELECTOR, "#gamelog li")]  # type: ignore[attr-defined]
        assert any(line.endswith(": " + move) and line.startswith("you roll") for line in log)
        assert log[before + 1].startswith("gbot rolls") or log[before + 1].startswith("you win")
        moves += 1
    _wait(drv, lambda d: "your move" in d.find_element(By.ID, "status").text
          or "game over" in d.find_element(By.ID, "status").text)
    assert moves >= 4 or "game over" in drv.find_element(By.ID, "status").text  # type: ignore[attr-defined]
    assert drv.find_element(By.ID, "error").text == ""  # type: ignore[attr-defined]
    board = [int(v) for v in drv.find_element(  # type: ignore[attr-defined]
        By.ID, "board").get_attribute("data-board").split(",")]
    gbot.Position(board)   # the drawn board is a legal position
    out = (ROOT / "docs" / "web.png" if os.environ.get("GBOT_SCREENSHOT") == "1"
           else Path(tempfile.gettempdir()) / "gbot-web.png")
    assert drv.save_screenshot(str(out))  # type: ignore[attr-defined]
