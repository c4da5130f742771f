"""The web page in a real headless browser (Debian's chromium and chromium-driver, selenium).

Skips when chromium, chromedriver, selenium or the web extra is missing. Loads the page, enters
a position and reads the hint table (checked against the engine), plays a few moves of a game
against gbot, and saves a screenshot (docs/web.png when GBOT_SCREENSHOT=1, else a temp dir).
Then the game's details: the page's Position and Match IDs, errors cleared by a good move, dice
larger first, side labels that fit, hints hidden until asked for, the cube turned by either side,
a resignation, the position box following the game, and code (not backticks) on /docs.
"""

from __future__ import annotations

import os
import re
import socket
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("pydantic")
uvicorn = pytest.importorskip("uvicorn")
webdriver = pytest.importorskip("selenium.webdriver")

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

import gbot  # noqa: E402
from gbot.adapters.web.app import create_app  # noqa: E402
from gbot.adapters.web.service import Service  # noqa: E402
from tests.browser import browser_paths, headless_chromium  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


pytestmark = pytest.mark.skipif(browser_paths() is None,
                                reason="chromium/chromedriver not installed")


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
    with headless_chromium() as drv:
        yield drv


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


def _status(drv: object) -> str:
    return str(drv.find_element(By.ID, "status").text)  # type: ignore[attr-defined]


def _log(drv: object) -> list[str]:
    return [li.text for li in drv.find_elements(By.CSS_SELECTOR, "#gamelog li")]  # type: ignore[attr-defined]


def _error(drv: object) -> str:
    return str(drv.find_element(By.ID, "error").text)  # type: ignore[attr-defined]


def _until_my_move(drv: object, timeout: float = 90) -> str:
    """Answer gbot's questions until the person has a move to make (``"move"``) or the game
    is over (``"over"``): roll when asked to roll or double, take gbot's doubles."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        text = _status(drv)
        if "your move" in text:
            return "move"
        if "game over" in text:
            return "over"
        if "roll or double" in text or "take or pass" in text:
            button = "roll" if "roll or double" in text else "take"
            logged = len(_log(drv))
            drv.find_element(By.ID, button).click()  # type: ignore[attr-defined]
            # the status moves on, or the roll had no play and the log tells it
            _wait(drv, lambda d, t=text, n=logged: _status(d) != t or len(_log(d)) > n
                  or _error(d), timeout=max(1.0, deadline - time.monotonic()))
            assert not _error(drv), _error(drv)
        else:
            time.sleep(0.05)
    raise AssertionError(f"no move for the person within {timeout} s: {_status(drv)!r}")


def _new_game(drv: object, server: str) -> None:
    drv.get(server + "/")  # type: ignore[attr-defined]
    _wait(drv, lambda d: d.find_element(By.ID, "board").get_attribute("data-board"))
    drv.find_element(By.ID, "newgame").click()  # type: ignore[attr-defined]


def test_play_a_few_moves_against_gbot(server: str, browser: object) -> None:
    drv = browser
    drv.get(server + "/")  # type: ignore[attr-defined]
    _wait(drv, lambda d: d.find_element(By.ID, "board").get_attribute("data-board"))
    drv.find_element(By.ID, "newgame").click()  # type: ignore[attr-defined]
    moves = 0
    deadline = time.monotonic() + 120
    while moves < 4 and time.monotonic() < deadline:
        if _until_my_move(drv) == "over":
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
        assert log[before + 1].startswith(("gbot rolls", "gbot doubles", "you win"))
        moves += 1
    _until_my_move(drv)
    assert moves >= 4 or "game over" in drv.find_element(By.ID, "status").text  # type: ignore[attr-defined]
    assert drv.find_element(By.ID, "error").text == ""  # type: ignore[attr-defined]
    board = [int(v) for v in drv.find_element(  # type: ignore[attr-defined]
        By.ID, "board").get_attribute("data-board").split(",")]
    gbot.Position(board)   # the drawn board is a legal position
    out = (ROOT / "docs" / "web.png" if os.environ.get("GBOT_SCREENSHOT") == "1"
           else Path(tempfile.gettempdir()) / "gbot-web.png")
    assert drv.save_screenshot(str(out))  # type: ignore[attr-defined]


def _js(drv: object, script: str, *args: object) -> object:
    return drv.execute_script(script, *args)  # type: ignore[attr-defined]


def test_the_pages_position_and_match_ids_are_gbots(server: str, browser: object) -> None:
    from gbot.game.match import CENTRE, MatchState, Rules

    drv = browser
    drv.get(server + "/")  # type: ignore[attr-defined]
    _wait(drv, lambda d: d.find_element(By.ID, "board").get_attribute("data-board"))
    boards = [gbot.Position.initial(), gbot.Position.from_id("cPfOAAC4O3cAAA"),
              gbot.Position([0, -2, 0, 3, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -5, -4,
                             -3, 0, 0, 0, 2])]
    for pos in boards:
        board = [int(v) for v in pos.board]
        assert _js(drv, "return positionId(arguments[0]);", board) == pos.id()
    cases = [
        ({"cube": 1, "owner": "centre", "onRoll": 1, "toAct": 1, "jacoby": True},
         MatchState(rules=Rules(jacoby=True), player_on_roll=1, player_to_act=1)),
        ({"cube": 4, "owner": 0, "onRoll": 1, "toAct": 1, "jacoby": False, "dice": [2, 6]},
         MatchState(rules=Rules(jacoby=False), cube_value=4, cube_owner=0, player_on_roll=1,
                    player_to_act=1, dice=(6, 2))),
        ({"cube": 2, "owner": 1, "onRoll": 0, "toAct": 1, "jacoby": True, "doubled": True},
         MatchState(rules=Rules(jacoby=True), cube_value=2, cube_owner=1, player_on_roll=0,
                    player_to_act=1, double_offered=True)),
        ({"cube": 1, "owner": "centre", "onRoll": 1, "toAct": 0, "jacoby": True, "resigned": 2},
         MatchState(rules=Rules(jacoby=True), cube_owner=CENTRE, player_on_roll=1,
                    player_to_act=0, resign_offered=2)),
    ]
    for fields, state in cases:
        assert _js(drv, "return matchId(arguments[0]);", fields) == state.match_id(), fields


def _my_move(drv: object, server: str) -> None:
    """A new game, up to the person's first move."""
    for _ in range(5):
        _new_game(drv, server)
        if _until_my_move(drv) == "move":
            return
    raise AssertionError("no move for the person in five games")


def test_an_error_goes_once_a_good_move_is_played(server: str, browser: object) -> None:
    drv = browser
    _my_move(drv, server)
    box = drv.find_element(By.ID, "movetext")  # type: ignore[attr-defined]
    box.send_keys("25/1")
    drv.find_element(By.ID, "playmove").click()  # type: ignore[attr-defined]
    assert "not a legal play here" in drv.find_element(By.ID, "error").text  # type: ignore[attr-defined]
    before = len(_log(drv))
    drv.find_element(By.CSS_SELECTOR, "#hints tbody tr.hint.playable").click()  # type: ignore[attr-defined]
    _wait(drv, lambda d: len(_log(d)) > before)
    assert drv.find_element(By.ID, "error").text == ""  # type: ignore[attr-defined]


def test_dice_are_drawn_and_written_larger_first(server: str, browser: object) -> None:
    drv = browser
    _my_move(drv, server)
    dice = [int(g.get_attribute("data-value"))
            for g in drv.find_elements(By.CSS_SELECTOR, "#board g.die")]  # type: ignore[attr-defined]
    assert len(dice) == 2 and dice[0] >= dice[1]
    status = _status(drv)
    assert status == f"you rolled {dice[0]}{dice[1]}: your move"
    assert drv.find_element(By.ID, "dice").get_attribute("value") == f"{dice[0]}{dice[1]}"  # type: ignore[attr-defined]
    drv.find_element(By.CSS_SELECTOR, "#hints tbody tr.hint.playable").click()  # type: ignore[attr-defined]
    _until_my_move(drv)

    for line in _log(drv):
        for roll in re.findall(r"rolls? (\d)-?(\d)", line):
            assert roll[0] >= roll[1], line
        assert not re.search(r"\d-\d", line), line


def _labels(drv: object) -> list[dict[str, object]]:
    return _js(drv, """
        const svg = document.getElementById("board").getBoundingClientRect();
        return [...document.querySelectorAll("#board text.side")].map((t) => {
          const r = t.getBoundingClientRect();
          return {text: t.textContent, left: r.left, right: r.right, width: r.width,
                  length: t.getComputedTextLength() * svg.width / 600,
                  svgLeft: svg.left, svgRight: svg.right};
        });""")  # type: ignore[return-value]


def test_the_side_labels_fit_on_the_board(server: str, browser: object) -> None:
    drv = browser
    drv.get(server + "/")  # type: ignore[attr-defined]
    _wait(drv, lambda d: d.find_element(By.ID, "board").get_attribute("data-board"))
    labels = _labels(drv)
    assert sorted(str(x["text"]) for x in labels) == ["on roll", "opponent"]
    for x in labels:                      # the whole text lies inside the drawn board
        assert x["svgLeft"] <= x["left"] and x["right"] <= x["svgRight"], x  # type: ignore[operator]
        assert abs(x["width"] - x["length"]) < 2, x  # type: ignore[operator]
    _my_move(drv, server)
    labels = _labels(drv)
    assert sorted(str(x["text"]) for x in labels) == ["gbot", "you"]
    for x in labels:
        assert x["right"] <= x["svgRight"], x  # type: ignore[operator]


def test_hints_are_hidden_in_a_game_until_asked_for(server: str, browser: object) -> None:
    drv = browser
    _my_move(drv, server)
    toggle = drv.find_element(By.ID, "showhints")  # type: ignore[attr-defined]
    assert not toggle.is_selected()
    table = drv.find_element(By.ID, "hints")  # type: ignore[attr-defined]
    rows = drv.find_elements(By.CSS_SELECTOR, "#hints tbody tr.hint")  # type: ignore[attr-defined]
    assert rows and all(len([td for td in r.find_elements(By.TAG_NAME, "td")
                             if td.is_displayed()]) == 2 for r in rows)
    assert not table.find_elements(By.CSS_SELECTOR, "tr.best")
    shown = [r.get_attribute("data-move") for r in rows]
    assert shown == sorted(shown, key=lambda m: [int(t) if t.isdigit() else t for t in
                                                 re.split(r"(\d+)", m)])
    assert "hidden" in drv.find_element(By.ID, "cube").text  # type: ignore[attr-defined]
    toggle.click()
    ranked = drv.find_elements(By.CSS_SELECTOR, "#hints tbody tr.hint")  # type: ignore[attr-defined]
    assert sorted(r.get_attribute("data-move") for r in ranked) == sorted(shown)
    first = ranked[0].find_elements(By.TAG_NAME, "td")
    assert "best" in ranked[0].get_attribute("class") and first[0].text == "1"
    assert first[2].is_displayed() and re.fullmatch(r"[+-]\d\.\d{3}", first[2].text)
    toggle.click()                            # hidden again
    assert "concealed" in table.get_attribute("class")


def test_the_cube_is_drawn_and_can_be_turned(server: str, browser: object) -> None:
    drv = browser
    for _ in range(5):
        _new_game(drv, server)
        _wait(drv, lambda d: any(w in _status(d) for w in ("your move", "roll or double")))
        if "roll or double" in _status(drv):
            break
        drv.find_element(By.CSS_SELECTOR, "#hints tbody tr.hint.playable").click()  # type: ignore[attr-defined]
        _wait(drv, lambda d: any(w in _status(d) for w in
                                 ("your move", "roll or double", "take or pass", "game over")))
        if "roll or double" in _status(drv):
            break
    assert "roll or double" in _status(drv)
    cube = drv.find_element(By.ID, "cubeicon")  # type: ignore[attr-defined]
    assert (cube.get_attribute("data-value"), cube.get_attribute("data-owner")) == ("1", "centre")
    assert cube.text == "64"
    drv.find_element(By.ID, "double").click()  # type: ignore[attr-defined]
    _wait(drv, lambda d: any(line.startswith("you double to 2") for line in _log(d)))
    assert "you double to 2: gbot takes" in _log(drv)     # an early double is a take
    _until_my_move(drv)
    cube = drv.find_element(By.ID, "cubeicon")  # type: ignore[attr-defined]
    assert (cube.get_attribute("data-value"), cube.get_attribute("data-owner")) == ("2", "top")


def test_gbot_doubles_and_the_person_takes(server: str, browser: object) -> None:
    drv = browser
    _my_move(drv, server)
    # gbot on roll in a race it leads by 9 pips: the engine doubles (and the double is a take)
    race = gbot.Position.from_id("cPfOAAC4O3cAAA")
    _js(drv, """game.board = flip(arguments[0]); game.cube = 1; game.owner = "centre";
                guard(gbotTurn)(game.token);""", [int(v) for v in race.board])
    _wait(drv, lambda d: "take or pass" in _status(d))
    assert _status(drv) == "gbot doubles to 2: take or pass?"
    drv.find_element(By.ID, "take").click()  # type: ignore[attr-defined]
    _wait(drv, lambda d: "roll or double" in _status(d) or "game over" in _status(d))
    assert "you take: the cube is 2" in _log(drv)
    cube = drv.find_element(By.ID, "cubeicon")  # type: ignore[attr-defined]
    assert (cube.get_attribute("data-value"), cube.get_attribute("data-owner")) == ("2", "bottom")


def test_the_person_resigns(server: str, browser: object) -> None:
    drv = browser
    _my_move(drv, server)
    drv.find_element(By.ID, "resign").click()  # type: ignore[attr-defined]   # a single game
    _wait(drv, lambda d: "game over" in _status(d))
    assert _log(drv)[-2] == "you resign a single game: gbot accepts"
    assert _status(drv).startswith("game over: gbot wins 1 point (resignation)")


def test_the_position_box_follows_the_game(server: str, browser: object) -> None:
    drv = browser
    _my_move(drv, server)
    drv.find_element(By.CSS_SELECTOR, "#hints tbody tr.hint.playable").click()  # type: ignore[attr-defined]
    if _until_my_move(drv) == "over":
        return
    text = drv.find_element(By.ID, "position").get_attribute("value")  # type: ignore[attr-defined]
    pid, mid = text.split(":")
    drawn = drv.find_element(By.ID, "board").get_attribute("data-board")  # type: ignore[attr-defined]
    assert ",".join(str(int(v)) for v in gbot.Position.from_id(pid).board) == drawn
    from gbot.game.match import MatchState
    state = MatchState.from_match_id(mid)
    assert state.player_on_roll == 1 and state.dice == tuple(
        int(c) for c in drv.find_element(By.ID, "dice").get_attribute("value"))  # type: ignore[attr-defined]


def test_the_api_page_shows_code_not_backticks(server: str, browser: object) -> None:
    drv = browser
    drv.get(server + "/docs")  # type: ignore[attr-defined]
    _wait(drv, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#ops .op")) >= 6)
    text = drv.find_element(By.TAG_NAME, "main").text  # type: ignore[attr-defined]
    assert "`" not in text
    codes = [c.text for c in drv.find_elements(By.CSS_SELECTOR, "#intro code, .op p code")]  # type: ignore[attr-defined]
    assert "GET /move" in codes and "ply" in codes
