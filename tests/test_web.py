"""The HTTP API (gbot.adapters.web): wildbg's routes, gbot's native routes, limits and bad input.

Oracles: the engine and evaluator called in process (the API must report what they decide),
the rules core (every listed play is a legal play, each exactly once), last-roll cube
decisions worked out by enumerating the 36 rolls, and the notation parsers.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
import warnings
from dataclasses import replace
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("pydantic")
httpx = pytest.importorskip("httpx")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

with warnings.catch_warnings():          # starlette's note about httpx's successor
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient  # noqa: E402

import gbot  # noqa: E402
from gbot.adapters.web.app import create_app  # noqa: E402
from gbot.adapters.web.openapi import openapi_document  # noqa: E402
from gbot.adapters.web.service import Service, play_steps  # noqa: E402
from gbot.engine.engine import Engine, cubeless_equity  # noqa: E402
from gbot.game.match import MatchState, Rules  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


START = "4HPwATDgc/ABMA"
START_QUERY = "p24=2&p13=5&p8=3&p6=5&p1=-2&p12=-5&p17=-3&p19=-5"
RULES = Rules(jacoby=True, beavers=True)


@pytest.fixture(scope="module")
def service() -> Service:
    return Service(rules=RULES)


@pytest.fixture(scope="module")
def client(service: Service) -> Any:
    # warm: the networks and kernels are loaded before the first request; a generous time
    # bound, since a loaded build machine is slow
    with TestClient(create_app(service, warm=True, timeout=300)) as c:
        yield c


def _query(board: Any) -> str:
    return "&".join(f"p{i}={int(v)}" for i, v in enumerate(board) if v)


def _engine(service: Service, rules: Rules = RULES, ply: int = 0) -> Engine:
    return Engine(evaluator=service.evaluator(rules.caucasian), ply=ply, rules=rules)


def _steps_of(play: gbot.Play) -> list[dict[str, int]]:
    return play_steps(play)


# --- wildbg: GET /move ------------------------------------------------------------------------


def test_move_lists_every_legal_play_once_engine_choice_first(client: Any,
                                                               service: Service) -> None:
    r = client.get(f"/move?die1=3&die2=1&{START_QUERY}")
    assert r.status_code == 200
    assert r.headers["content-type"] == "application/json"
    moves = r.json()["moves"]
    pos = gbot.Position.initial()
    legal = pos.legal_plays((3, 1))
    assert len(moves) == len(legal) == 16
    by_steps = {str(_steps_of(p)): p for p in legal}
    assert len(by_steps) == len(legal)
    assert sorted(str(m["play"]) for m in moves) == sorted(by_steps)
    best = _engine(service).choose_play(pos, (3, 1))
    assert best is not None and moves[0]["play"] == _steps_of(best)
    assert best.notation == "8/5 6/5"          # gnubg's and every bot's opening 31
    assert moves[0]["play"] == [{"from": 8, "to": 5}, {"from": 6, "to": 5}]
    hints = {h.play.notation: h for h in service.evaluator().hint(pos, (3, 1), n=None)}
    for m in moves:
        h = hints[by_steps[str(m["play"])].notation]
        p = m["probabilities"]
        assert set(p) == {"win", "winG", "winBg", "loseG", "loseBg"}
        assert [p["win"], p["winG"], p["winBg"], p["loseG"], p["loseBg"]] == \
            pytest.approx(list(h.probabilities), abs=1e-9)
        assert 0 <= p["winBg"] <= p["winG"] <= p["win"] <= 1


def test_move_doubles_bear_off_and_bar_steps(client: Any) -> None:
    # x: one checker on the bar and two on the 3-point; o: blots far away
    r = client.get("/move?die1=4&die2=4&p25=1&p3=2&p10=-1&p0=-1")
    assert r.status_code == 200
    moves = r.json()["moves"]
    pos = gbot.Position([-1, 0, 0, 2, 0, 0, 0, 0, 0, 0, -1] + [0] * 14 + [1])
    assert len(moves) == len(pos.legal_plays((4, 4)))
    for m in moves:
        steps = m["play"]
        assert steps[0] == {"from": 25, "to": 21}      # enter first
        assert all(s["from"] - s["to"] <= 4 for s in steps)
        assert [s["from"] for s in steps] == sorted((s["from"] for s in steps), reverse=True)
        assert len(steps) == 4


def test_move_without_a_legal_play_is_one_empty_play(client: Any, service: Service) -> None:
    # x on the bar against o's closed board (o holds x's points 19..24)
    q = "p25=1&p5=14&" + "&".join(f"p{i}=-2" for i in range(19, 25)) + "&p12=-3"
    moves = client.get(f"/move?die1=6&die2=5&{q}").json()["moves"]
    assert len(moves) == 1 and moves[0]["play"] == []
    board = [0] * 26
    board[25], board[5], board[12] = 1, 14, -3
    for i in range(19, 25):
        board[i] = -2
    opp = _engine(service).probabilities(gbot.Position(board).swapped())
    assert moves[0]["probabilities"]["win"] == pytest.approx(1 - opp[0])
    assert moves[0]["probabilities"]["loseG"] == pytest.approx(opp[1])


def test_move_match_play_follows_the_engine_with_the_score(client: Any,
                                                           service: Service) -> None:
    pos = gbot.Position.initial()
    for xa, oa in ((1, 1), (2, 5), (5, 2), (7, 7)):
        state = MatchState(match_length=max(xa, oa), score=(max(xa, oa) - xa, max(xa, oa) - oa),
                           crawford_done=1 in (xa, oa), rules=RULES)
        for dice in ((6, 4), (5, 2), (4, 3)):
            r = client.get(f"/move?die1={dice[0]}&die2={dice[1]}&{START_QUERY}"
                           f"&x_away={xa}&o_away={oa}")
            assert r.status_code == 200, r.text
            best = _engine(service).choose_play(pos, dice, state)
            assert best is not None
            assert r.json()["moves"][0]["play"] == _steps_of(best)


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.integers(-16, 16), min_size=26, max_size=26),
       st.integers(0, 7), st.integers(0, 7))
def test_move_any_query_is_answered_or_refused_never_crashes(client: Any, pts: list[int],
                                                             d1: int, d2: int) -> None:
    r = client.get(f"/move?die1={d1}&die2={d2}&" + _query(pts))
    assert r.status_code in (200, 400), r.text
    body = r.json()
    if r.status_code == 400:
        assert set(body) == {"message"} and "\n" not in body["message"] and body["message"]
    else:
        pos = gbot.Position(pts)
        assert len(body["moves"]) == max(1, len(pos.legal_plays((d1, d2))))


# --- wildbg: GET /eval ----------------------------------------------------------------------------


def test_eval_start(client: Any, service: Service) -> None:
    body = client.get(f"/eval?{START_QUERY}").json()
    assert body["cube"] == {"double": False, "accept": True}
    p = _engine(service).probabilities(gbot.Position.initial())
    got = body["probabilities"]
    assert [got[k] for k in ("win", "winG", "winBg", "loseG", "loseBg")] == pytest.approx(list(p))


def _last_roll_win(board: list[int]) -> float:
    """x's chance to bear off all its checkers with one roll, from the rules core."""
    pos = gbot.Position(board)
    wins = 0
    for a in range(1, 7):
        for b in range(1, 7):
            wins += any(p.position.checkers_off()[0] == 15 for p in pos.legal_plays((a, b)))
    return wins / 36


@pytest.mark.parametrize(("x_points", "expect"), [
    ({1: 2}, (True, False)),          # certain: double, pass
    ({6: 1, 5: 1}, None),             # worked out below
    ({6: 2}, (False, True)),          # only 33, 44, 55, 66 work: no double, take
])
def test_eval_last_roll_cube_decisions(client: Any, x_points: dict[int, int],
                                       expect: tuple[bool, bool] | None) -> None:
    board = [0] * 26
    for pt, n in x_points.items():
        board[pt] = n
    board[24] = -1            # o bears off its last checker next turn: x's roll is the last
    p = _last_roll_win(board)
    # money, no gammons possible: double when p > 1/2, the opponent takes when p <= 3/4
    want = (p > 0.5, p <= 0.75)
    if expect is not None:
        assert want == expect
    assert abs(p - 0.5) > 0.05 and abs(p - 0.75) > 0.05
    body = client.get("/eval?" + _query(board)).json()
    assert (body["cube"]["double"], body["cube"]["accept"]) == want, p
    assert body["probabilities"]["win"] == pytest.approx(p, abs=0.02)


def test_eval_crawford_game_never_doubles(client: Any) -> None:
    board = [0] * 26
    board[1] = 2
    board[24] = -1
    q = _query(board)
    assert client.get(f"/eval?{q}&x_away=2&o_away=1").json()["cube"]["double"] is True
    body = client.get(f"/eval?{q}&x_away=2&o_away=1&crawford=true").json()
    assert body["cube"]["double"] is False


# --- bad input ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("path", "fragment"), [
    ("/move?die1=7&die2=1&" + START_QUERY, "between 1 and 6"),
    ("/move?die1=0&die2=1&" + START_QUERY, "between 1 and 6"),
    ("/move?die2=1&" + START_QUERY, "die1 is required: an integer between 1 and 6"),
    ("/move?die1=x&die2=1&" + START_QUERY, "die1 must be an integer"),
    ("/move?die1=3&die2=1&p24=3&p13=5&p8=3&p6=5&p1=-2", "16 checkers"),
    ("/eval?p24=16", "between -15 and 15"),
    ("/eval?p0=2&p5=-2", "p0 must be an integer between -15 and 0, got 2"),
    ("/eval?p25=-1&p5=1", "p25 must be an integer between 0 and 15, got -1"),
    ("/eval?" + START_QUERY + "&x_away=3", "both 0"),
    ("/eval?" + START_QUERY + "&x_away=3&o_away=999", "o_away must be an integer between 0 and 64"),
    ("/eval?" + START_QUERY + "&x_away=3&o_away=4&crawford=true", "1 away"),
    ("/eval?p5=1", "game is over"),
    ("/move?die1=3&die2=1&p5=99999999999", "integer"),
])
def test_wildbg_bad_input_is_a_400_with_one_line(client: Any, path: str, fragment: str) -> None:
    r = client.get(path)
    assert r.status_code == 400, r.text
    msg = r.json()["message"]
    assert fragment in msg and "\n" not in msg


@pytest.mark.parametrize(("body", "fragment"), [
    ({"position": "garbage"}, "Position ID"),
    ({"position": "4HPwATDgc/ABM@"}, "Position ID"),
    ({"position": ""}, "non-empty"),
    ({"position": 12}, "non-empty string"),
    ({}, "non-empty string"),
    ({"position": START, "dice": "71"}, "between 1 and 6"),
    ({"position": START, "dice": [3]}, "two dice"),
    ({"position": START, "ply": 3}, "ply must be an integer between 0 and 2"),
    ({"position": START, "ply": True}, "integer"),
    ({"position": START, "count": 0}, "count"),
    ({"position": START, "rules": {"cube_cap": 3}}, "rules.cube_cap must be one of 0, 2, 4"),
    ({"position": START, "rules": {"end_mode": "doubles"}}, "rules.end_mode must be one of"),
    ({"position": START, "rules": {"jacoby": "yes"}}, "true or false"),
    ({"position": START, "rules": {"gammon": True}}, "unknown field 'gammon' in rules"),
    ({"position": START, "turbo": 1}, "unknown field"),
    ({"position": "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:99:10"}, "above 64"),
    ({"position": START + ":cAkAcAkAcAkA"}, "above 64"),
    ({"position": "x" * 500}, "at most"),
])
def test_native_bad_input_is_a_400_with_one_line(client: Any, body: dict[str, Any],
                                                 fragment: str) -> None:
    for path in ("/hint", "/eval", "/cube"):
        r = client.post(path, json=body)
        assert r.status_code == 400, (path, r.text)
        msg = r.json()["message"]
        assert fragment in msg and "\n" not in msg, msg


def test_bodies_that_are_not_json_objects_or_too_big(client: Any) -> None:
    assert client.post("/hint", content=b"{not json").status_code == 400
    assert "JSON object" in client.post("/hint", json=[1, 2]).json()["message"]
    assert "empty" in client.post("/hint", content=b"").json()["message"]
    huge = b'{"position": "' + b" " * 100_000 + b'"}'
    r = client.post("/hint", content=huge)
    assert r.status_code == 413 and "at most" in r.json()["message"]

    def chunks() -> Any:        # no Content-Length: the limit holds while reading
        for _ in range(100):
            yield b" " * 1000

    r = client.post("/hint", content=chunks())
    assert r.status_code == 413
    assert client.get("/nowhere").status_code == 404
    assert "not allowed" in client.delete("/hint").json()["message"]
    assert client.get("/move?" + "p1=0&" * 1000).status_code == 400


# --- native routes ----------------------------------------------------------------------------


def test_hint_matches_the_evaluator_and_engine(client: Any, service: Service) -> None:
    pos = gbot.Position.from_id("sGfwATDgc/ABMA")
    r = client.post("/hint", json={"position": pos.id(), "dice": [6, 4], "count": 5})
    body = r.json()
    hints = service.evaluator().hint(pos, (6, 4), ply=0, n=5)
    assert [p["move"] for p in body["plays"]] == [h.play.notation for h in hints]
    assert [p["equity"] for p in body["plays"]] == pytest.approx([h.equity for h in hints])
    assert body["best"] == _engine(service).choose_play(pos, (6, 4)).notation  # type: ignore[union-attr]
    assert body["legal_plays"] == len(pos.legal_plays((6, 4)))
    first = body["plays"][0]
    assert first["next_position_id"] == hints[0].play.position.swapped().id()
    assert first["board_after"] == [int(v) for v in hints[0].play.position.board]
    assert body["board"] == [int(v) for v in pos.board]
    assert body["deciding"] == "move"
    everything = client.post("/hint", json={"position": pos.id(), "dice": "64",
                                            "count": None}).json()
    assert len(everything["plays"]) == body["legal_plays"]


def test_hint_one_ply(client: Any, service: Service) -> None:
    pos = gbot.Position.initial()
    body = client.post("/hint", json={"position": START, "dice": "52", "ply": 1}).json()
    hints = service.evaluator().hint(pos, (5, 2), ply=1, n=5)
    assert [p["move"] for p in body["plays"]] == [h.play.notation for h in hints]
    assert body["plays"][0]["ply"] == 1 and body["ply"] == 1


def test_hint_is_what_gbot_hint_shows(client: Any, service: Service) -> None:
    from gbot.engine.hints import play_hints

    pos = gbot.Position.initial()
    for state, q in ((MatchState(rules=RULES), START),
                     (gbot.MatchState.from_match_id("cAkgAAAAAAAA", RULES),
                      START + ":cAkgAAAAAAAA")):
        st = replace(state, dice=(4, 2), player_to_act=state.player_on_roll)
        want = play_hints(_engine(service), pos, (4, 2), st, n=None)
        body = client.post("/hint", json={"position": q, "dice": "42", "count": None}).json()
        assert [p["move"] for p in body["plays"]] == [h.play.notation for h in want]
        assert [p["cubeful_equity"] for p in body["plays"]] == \
            pytest.approx([h.cubeful for h in want])
        assert [p["chosen"] for p in body["plays"]] == [h.chosen for h in want]
        assert body["plays"][0]["chosen"] and body["best"] == want[0].play.notation


def test_hint_without_dice_is_the_cube_decision(client: Any, service: Service) -> None:
    from gbot.engine.hints import cube_hint

    xgid = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"
    body = client.post("/hint", json={"position": xgid}).json()
    assert "plays" not in body and body["deciding"] == "double"
    pos, state = gbot.parse_xgid(xgid)
    eng = _engine(service, state.rules)
    h = cube_hint(eng, pos, state)
    assert h.ply in (0, eng.cube_ply)      # the look-ahead, or the static screen's verdict
    d = gbot.cube_decision(pos, state, ply=h.ply, evaluator=service.evaluator())
    assert body["cube"]["action"] == h.action == d.action
    assert body["cube"]["response"] == h.response == d.response
    assert body["cube"]["words"] == h.words
    assert body["cube"]["equities"]["no_double"] == pytest.approx(d.equities[0])


def test_a_pending_double_gets_the_takers_figures(client: Any, service: Service) -> None:
    from gbot.engine.hints import take_hint

    # gnubg board line: the opponent (gnubg) has doubled gbot
    line = ("board:gnubg:gbot:5:0:0:-1:4:2:0:-1:2:2:0:1:1:2:0:-2:0:0:1:0:0:0:-2:0:-2:-2:-2:"
            "-3:0:1:0:0:0:0:1:1:1:1:1:-1:0:25:0:0:0:0:0:0:0:1")   # from a referee transcript
    body = client.post("/cube", json={"position": line}).json()
    assert body["deciding"] == "take"
    fb = gbot.parse_fibs_board(line)
    state = fb.match_state(RULES)
    doubler = gbot.Position(state.board)
    t = take_hint(_engine(service), doubler, state)
    assert body["take"]["answer"] == t.answer
    assert body["take"]["take"] == pytest.approx(t.take)


def test_eval_native_matches_the_engine(client: Any, service: Service) -> None:
    from gbot.engine.hints import cube_hint

    pid = "4HPwATDgc/ABMA"
    body = client.post("/eval", json={"position": pid + ":cAkAAAAAAAAA"}).json()
    pos = gbot.Position.from_id(pid)
    state = gbot.MatchState.from_match_id("cAkAAAAAAAAA", RULES)
    eng = _engine(service)
    p = eng.probabilities(pos)
    assert body["probabilities"]["win"] == pytest.approx(p[0])
    assert body["cubeless_equity"] == pytest.approx(cubeless_equity(p))
    me = replace(state, player_to_act=state.player_on_roll)
    h = cube_hint(eng, pos, me)
    assert h.action == "no_double"
    assert body["cubeful_equity"] == pytest.approx(h.equities[0])
    assert body["cube_words"] == h.words
    assert body["match_id"] == "cAkAAAAAAAAA"
    match = client.post("/eval", json={"position": pid, "match_id": "cAkgAAAAAAAA"}).json()
    assert match["state"]["match_length"] > 0 and 0 < match["cubeful_mwc"] < 1
    assert 0 < match["cubeless_mwc"] < 1 and "cubeful_equity" not in match


def test_every_notation_reaches_the_same_position(client: Any) -> None:
    pid, mid = "4HPwATDgc/ABMA", "cAkAAAAAAAAA"
    pos, state = gbot.Position.from_id(pid), gbot.MatchState.from_match_id(mid)
    xgid = gbot.format_xgid(pos, state)
    line = ("board:gnubg:gbot:3:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:"
            "1:5:3:5:3:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1")
    fb = gbot.parse_fibs_board(line)
    seen = {}
    for text in (pid, f"{pid}:{mid}", xgid, line):
        body = client.post("/cube", json={"position": text}).json()
        seen[text] = body["position_id"]
    assert seen[pid] == seen[f"{pid}:{mid}"] == seen[xgid] == pid
    assert seen[line] == fb.position.id()
    body = client.post("/hint", json={"position": line}).json()
    assert body["dice"] == [5, 3] and body["state"]["match_length"] == 3


def test_rules_change_the_answer(client: Any) -> None:
    # a gammonish position: with the cube off nobody may double
    xgid = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"
    off = client.post("/cube", json={"position": xgid, "rules": {"cube": False}}).json()
    assert off["cube"]["can_double"] is False and off["rules"]["cube"] is False
    assert off["cube"]["engine"]["double"] is False
    single = client.post("/eval", json={"position": START, "rules": {"end_mode": "single"}})
    assert single.json()["rules"]["end_mode"] == "single"


@pytest.mark.parametrize(("body", "fragment"), [
    ({"position": START, "trials": 0}, "trials must be an integer between 1 and 1296"),
    ({"position": START, "trials": 10**6}, "trials must be an integer between 1 and 1296"),
    ({"position": START, "seed": -1}, "seed"),
    ({"position": START, "rules": {"caucasian": True}}, "caucasian"),
    ({"position": "bad"}, "Position ID"),
])
def test_rollout_bad_input(client: Any, body: dict[str, Any], fragment: str) -> None:
    r = client.post("/rollout", json=body)
    assert r.status_code == 400 and fragment in r.json()["message"]


@pytest.mark.slow
def test_rollout_is_gbot_rollout(client: Any) -> None:
    from gbot.analysis.rollout import Rollout, RolloutSettings

    pos = gbot.Position.initial()
    r = client.post("/rollout", json={"position": START, "trials": 36, "seed": 3})
    assert r.status_code == 200, r.text
    body = r.json()
    ro = Rollout(RolloutSettings(trials=36, seed=3))
    want = ro.position(pos, MatchState(rules=RULES))
    assert body["position"]["equity"] == pytest.approx(want.equity)
    cube = ro.cube(pos, MatchState(rules=RULES))      # 36 trials: whatever they say, the same
    assert body["position"]["trials"] == 36 and body["cube"]["action"] == cube.action


def test_openapi_describes_every_route(client: Any) -> None:
    doc = client.get("/openapi.json").json()
    assert doc == openapi_document() and doc["openapi"].startswith("3.")
    # every route of the app is in the document with its methods, and nothing else
    pages = {"/", "/openapi.json", "/docs", "/health", "/static"}
    routes = {r.path: {m.lower() for m in r.methods or ()} - {"head"}
              for r in client.app.routes if r.path not in pages}
    assert {p: set(ops) for p, ops in doc["paths"].items()} == routes
    assert set(doc["paths"]) == {"/move", "/eval", "/hint", "/cube", "/rollout"}
    params = {p["name"] for p in doc["paths"]["/move"]["get"]["parameters"]}
    assert {"die1", "die2", "p0", "p25", "x_away", "o_away", "crawford", "ply"} <= params
    props = doc["components"]["schemas"]["WildbgProbabilities"]["properties"]
    assert set(props) == {"win", "winG", "winBg", "loseG", "loseBg"}
    for path in ("/", "/docs", "/static/app.js", "/static/style.css"):
        assert client.get(path).status_code == 200, path
    assert "gbot" in client.get("/").text


# --- concurrency and time bounds ---------------------------------------------------------------


class _SlowService(Service):
    """A service whose 2-ply hints take ``delay`` seconds (a stand-in for a slow search)."""

    delay = 1.5

    def hint(self, body: Any) -> Any:
        if body.get("ply") == 2:
            time.sleep(self.delay)
            return {"slow": True}
        return super().hint(body)


def test_a_slow_request_does_not_stall_the_others(service: Service) -> None:
    slow = _SlowService(rules=RULES, evaluator=service.evaluator())
    slow.delay = 3.0
    slow.wildbg_move({"die1": "3", "die2": "1", "p24": "2", "p1": "-2"})   # kernels loaded
    app = create_app(slow, threads=4, timeout=60)

    async def scenario() -> tuple[float, list[float]]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as c:
            t0 = time.monotonic()

            async def timed(coro: Any) -> float:
                r = await coro
                assert r.status_code == 200, r.text
                return time.monotonic() - t0

            slow_task = asyncio.ensure_future(timed(c.post("/hint", json={
                "position": START, "dice": "31", "ply": 2})))
            await asyncio.sleep(0.05)
            fast = await asyncio.gather(*(timed(c.get(f"/move?die1=3&die2=1&{START_QUERY}"))
                                          for _ in range(6)))
            return await slow_task, list(fast)

    slow_done, fast_done = asyncio.run(scenario())
    assert slow_done >= slow.delay
    assert max(fast_done) < slow.delay, (slow_done, fast_done)


def test_a_request_past_the_time_bound_is_a_503(service: Service) -> None:
    slow = _SlowService(rules=RULES, evaluator=service.evaluator())
    with TestClient(create_app(slow, timeout=0.3)) as c:
        t0 = time.monotonic()
        r = c.post("/hint", json={"position": START, "dice": "31", "ply": 2})
        took = time.monotonic() - t0
    assert r.status_code == 503 and "longer than 0.3 s" in r.json()["message"]
    assert took < slow.delay


def test_timed_out_computations_hold_their_thread_until_they_end(service: Service) -> None:
    slow = _SlowService(rules=RULES, evaluator=service.evaluator())
    slow.delay = 1.0
    app = create_app(slow, threads=1, timeout=0.2)
    limits = app.state.limits
    with TestClient(app) as c:
        deep = {"position": START, "dice": "31", "ply": 2}
        first = c.post("/hint", json=deep)         # answered 503, still sleeping in its thread
        assert first.status_code == 503 and "longer than 0.2 s" in first.json()["message"]
        assert limits.running == 1
        waited = c.post("/hint", json=deep)        # the one thread is not free: a 503 too
        assert waited.status_code == 503 and "busy" in waited.json()["message"]
        assert limits.running == 1 and limits.stats["late"] == 1
        deadline = time.monotonic() + 30
        while limits.running and time.monotonic() < deadline:
            time.sleep(0.05)                       # it ends, and its thread is free
        assert limits.running == 0
        assert c.post("/hint", json={"position": START, "dice": "31"}).status_code == 200


# --- the worker pools, abandoned work, the time bound the caller sees --------------------------


class _GatedService(Service):
    """A service whose rollouts and 2-ply hints wait for ``gate`` (or their stop flag) and
    count how they ended; its 0-ply answers are the real ones."""

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.gate = threading.Event()
        self.ended: list[str] = []
        self.started = 0

    def _wait(self) -> dict[str, Any]:
        from gbot.adapters.web.service import Cancelled, check_cancelled

        self.started += 1
        try:
            while not self.gate.wait(0.01):
                check_cancelled()
        except Cancelled:
            self.ended.append("stopped")
            raise
        self.ended.append("done")
        return {"done": True}

    def rollout(self, body: Any) -> Any:
        return self._wait()

    def hint(self, body: Any) -> Any:
        return self._wait() if str(body.get("ply")).strip() == "2" else super().hint(body)


def _until(cond: Any, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while not cond() and time.monotonic() < deadline:
        time.sleep(0.01)
    return bool(cond())


def test_rollouts_take_heavy_threads_whatever_their_ply(service: Service) -> None:
    gated = _GatedService(rules=RULES, evaluator=service.evaluator())
    app = create_app(gated, threads=2, timeout=30)        # 1 heavy thread, 1 kept for 0-ply
    limits = app.state.limits
    assert (limits.heavy, limits.max_waiting_heavy) == (1, 1)

    async def scenario() -> tuple[list[int], float, int, dict[str, str]]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t",
                                     timeout=60) as c:
            body = {"position": START, "ply": 0, "trials": 36}
            running = asyncio.ensure_future(c.post("/rollout", json=body))
            await asyncio.sleep(0.2)
            waiting = asyncio.ensure_future(c.post("/rollout", json=body))
            await asyncio.sleep(0.2)
            refused = await c.post("/rollout", json=body)    # a third: no room to wait
            heavy_now = limits.heavy_running
            t0 = time.monotonic()
            moves = [await c.get(f"/move?ply=0&die1=3&die2=1&{START_QUERY}") for _ in range(5)]
            took = time.monotonic() - t0
            gated.gate.set()
            done = await asyncio.gather(running, waiting)
            return ([r.status_code for r in [*done, refused, *moves]], took, heavy_now,
                    dict(refused.headers))

    codes, took, heavy_now, headers = asyncio.run(scenario())
    assert codes == [200, 200, 503] + [200] * 5
    assert heavy_now == 1 and took < 5.0
    assert headers["retry-after"] == str(limits.retry_after(True))
    assert limits.stats["busy"] == 1


def test_heavy_work_never_takes_the_threads_kept_for_0ply(service: Service) -> None:
    gated = _GatedService(rules=RULES, evaluator=service.evaluator())
    app = create_app(gated, threads=4, timeout=30)
    limits = app.state.limits

    async def scenario() -> tuple[list[int], list[int]]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t",
                                     timeout=60) as c:
            heavy = [asyncio.ensure_future(c.post("/rollout", json={"position": START}))
                     for _ in range(2)]
            heavy += [asyncio.ensure_future(c.post("/hint", json={
                "position": START, "dice": "31", "ply": "2"})) for _ in range(3)]   # text ply
            await asyncio.sleep(0.3)
            assert (limits.running, limits.heavy_running) == (2, 2)
            moves = await asyncio.gather(*(c.get(f"/move?ply=0&die1=6&die2=5&{START_QUERY}")
                                           for _ in range(8)))
            gated.gate.set()
            return [r.status_code for r in moves], [r.status_code for r in
                                                     await asyncio.gather(*heavy)]

    moves, heavy = asyncio.run(scenario())
    assert moves == [200] * 8
    assert sorted(heavy) == [200, 200, 200, 200, 503]      # 2 ran, 2 waited, 1 refused
    assert gated.started == 4


def test_an_abandoned_computation_is_stopped_and_frees_its_thread(service: Service) -> None:
    gated = _GatedService(rules=RULES, evaluator=service.evaluator())
    app = create_app(gated, threads=2, timeout=0.3)
    limits = app.state.limits
    with TestClient(app) as c:
        t0 = time.monotonic()
        r = c.post("/rollout", json={"position": START})
        took = time.monotonic() - t0
        msg = r.json()["message"]
        assert r.status_code == 503 and took < 5.0
        assert "longer than 0.3 s, the time bound per request, and was stopped" in msg
        assert "retry after" in msg and r.headers["retry-after"] == "1"   # ceil(0.3 / 4)
        assert _until(lambda: gated.ended == ["stopped"] and limits.running == 0)
        assert limits.stats["overtime"] == 1


def test_a_client_that_goes_away_stops_its_computation(service: Service) -> None:
    gated = _GatedService(rules=RULES, evaluator=service.evaluator())
    app = create_app(gated, threads=2, timeout=30)
    limits = app.state.limits
    sent: list[dict[str, Any]] = []

    async def scenario() -> None:
        messages = [{"type": "http.request", "body": json.dumps({"position": START}).encode(),
                     "more_body": False}]

        async def receive() -> dict[str, Any]:
            if messages:
                return messages.pop()
            await asyncio.sleep(0.3)                       # then the client hangs up
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)

        scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
                 "method": "POST", "scheme": "http", "path": "/rollout", "raw_path": b"/rollout",
                 "query_string": b"", "root_path": "", "server": ("t", 80),
                 "client": ("c", 1), "headers": [(b"content-type", b"application/json")]}
        await asyncio.wait_for(app(scope, receive, send), 10)

    asyncio.run(scenario())
    assert _until(lambda: gated.ended == ["stopped"] and limits.running == 0)
    assert limits.stats["gone"] == 1


def test_a_rollout_stops_within_a_step_once_asked(service: Service) -> None:
    from gbot.adapters.web.service import Cancelled, cancellable

    service.rollout({"position": START, "trials": 2})      # the rollout kernels loaded
    stop = threading.Event()
    outcome: list[Any] = []

    def roll() -> None:
        with cancellable(stop):
            try:
                outcome.append(service.rollout({"position": START, "trials": 1296}))
            except Cancelled as exc:
                outcome.append(exc)

    t = threading.Thread(target=roll)
    t.start()
    time.sleep(0.5)
    t0 = time.monotonic()
    stop.set()
    t.join(60)
    assert not t.is_alive() and isinstance(outcome[0], Cancelled)
    assert time.monotonic() - t0 < 10.0          # a step of 12 trials, not the whole rollout


def test_a_body_that_does_not_arrive_in_time_is_a_408(service: Service) -> None:
    app = create_app(service, body_timeout=0.3)
    sent: list[dict[str, Any]] = []

    async def scenario() -> None:
        first = True

        async def receive() -> dict[str, Any]:
            nonlocal first
            if first:
                first = False
                return {"type": "http.request", "body": b'{"posi', "more_body": True}
            await asyncio.sleep(30)                        # the rest never comes
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)

        scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
                 "method": "POST", "scheme": "http", "path": "/hint", "raw_path": b"/hint",
                 "query_string": b"", "root_path": "", "server": ("t", 80),
                 "client": ("c", 1), "headers": [(b"content-length", b"100")]}
        await asyncio.wait_for(app(scope, receive, send), 10)

    t0 = time.monotonic()
    asyncio.run(scenario())
    assert time.monotonic() - t0 < 5.0
    start = sent[0]
    assert start["status"] == 408 and (b"connection", b"close") in start["headers"]
    assert "longer than 0.3 s" in json.loads(sent[1]["body"])["message"]


def test_the_threads_under_a_storm_of_short_requests() -> None:
    """Short computations of both kinds, as many at once as may wait: every one is answered,
    none is taken for late, and every thread is given back."""
    from gbot.adapters.web.app import _Limits

    limits = _Limits(threads=2, timeout=60, max_body=1024)
    seen = {"light": 0, "heavy": 0, "most": 0, "most_heavy": 0}
    lock = threading.Lock()

    def work(kind: str) -> str:
        with lock:
            seen[kind] += 1
            seen["most"] = max(seen["most"], limits.running)
            seen["most_heavy"] = max(seen["most_heavy"], limits.heavy_running)
        time.sleep(0.001)
        return kind

    async def scenario() -> list[str]:
        gone: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        out: list[str] = []
        for _ in range(30):
            kinds = ["heavy"] + ["light"] * (limits.max_waiting - limits.max_waiting_heavy)
            out += await asyncio.gather(*(limits.call(lambda k=k: work(k), k == "heavy", gone)
                                          for k in kinds))
        return out

    out = asyncio.run(scenario())
    assert len(out) == 30 * (limits.max_waiting - limits.max_waiting_heavy + 1)
    assert seen["heavy"] == 30 and seen["most"] <= 2 and seen["most_heavy"] <= 1
    assert limits.stats == {"busy": 0, "late": 0, "overtime": 0, "gone": 0}
    assert _until(lambda: limits.running == 0 and limits.waiting() == 0)


@pytest.mark.parametrize(("ply", "heavy"), [
    (0, False), ("0", False), (" 0 ", False), (1, True), (2, True), ("2", True), ("x", True),
    (None, True), (True, True),
])
def test_which_requests_count_as_look_ahead(ply: Any, heavy: bool) -> None:
    from gbot.adapters.web.app import _deep

    assert _deep({"ply": ply}, 0) is heavy
    assert _deep({}, 0) is False and _deep({}, 2) is True


def test_health_shows_the_bounds(client: Any) -> None:
    h = client.get("/health").json()
    assert h["timeout"] == 300 and h["threads"] == 4 and h["heavy_threads"] == 2
    assert h["running"] >= 0 and h["waiting"] == 0


# --- hostile numbers and bodies (issue 34): a 400 with a JSON message, never a 500 --------------


@pytest.fixture(scope="module")
def cold_client() -> Any:
    """A client whose service has loaded nothing: every request below is refused before the
    engine is asked. Server errors come back as responses (a 500 is a failure, not a raise)."""
    with TestClient(create_app(Service(rules=RULES), timeout=300),
                    raise_server_exceptions=False) as c:
        yield c


@pytest.mark.parametrize(("path", "field"), [
    (f"/move?die1=--3&die2=1&{START_QUERY}", "die1"),
    (f"/move?die1=3&die2=1&{START_QUERY}&p5=²", "p5"),
    (f"/move?die1=3&die2=1&{START_QUERY}&p5=%2B-1", "p5"),          # "+-1"
    (f"/move?die1=3&die2=1&{START_QUERY}&ply=--1", "ply"),
    (f"/move?die1=٣&die2=1&{START_QUERY}", "die1"),              # Arabic-Indic three
    (f"/move?die1=３&die2=1&{START_QUERY}", "die1"),              # fullwidth three
    (f"/move?die1=3&die2=1&{START_QUERY}&p24=²", "p24"),
    (f"/eval?{START_QUERY}&x_away=--1&o_away=3", "x_away"),
    (f"/eval?{START_QUERY}&x_away=3&o_away=٣", "o_away"),
    (f"/move?die1=3&die2=1&{START_QUERY}&p5=" + "9" * 500, "p5"),
])
def test_wildbg_malformed_numbers_are_a_400(cold_client: Any, path: str, field: str) -> None:
    r = cold_client.get(path)
    assert r.status_code == 400, r.text
    msg = r.json()["message"]
    assert msg.startswith(f"{field} must be an integer") and "\n" not in msg, msg
    assert len(msg) < 200


@pytest.mark.parametrize(("route", "body", "field"), [
    ("/hint", {"position": START, "count": "--5"}, "count"),
    ("/hint", {"position": START, "dice": "³1"}, "dice"),
    ("/hint", {"position": START, "dice": ["٣", 1]}, "die1"),
    ("/hint", {"position": START, "ply": "--1"}, "ply"),
    ("/cube", {"position": START, "ply": "²"}, "ply"),
    ("/rollout", {"position": START, "trials": "--4"}, "trials"),
    ("/rollout", {"position": START, "seed": "+-4"}, "seed"),
])
def test_native_malformed_numbers_are_a_400(cold_client: Any, route: str, body: dict[str, Any],
                                            field: str) -> None:
    r = cold_client.post(route, json=body)
    assert r.status_code == 400, r.text
    msg = r.json()["message"]
    assert msg.startswith(field) and "\n" not in msg, msg


def test_a_deeply_nested_body_is_a_400_json(cold_client: Any) -> None:
    from gbot.adapters.web.app import MAX_JSON_DEPTH

    for raw in (b"[" * 15_000, b'{"position": ' + b"[" * 5000 + b"]" * 5000 + b"}",
                b'{"rules": ' + b'{"a": ' * 2000 + b"1" + b"}" * 2001):
        r = cold_client.post("/hint", content=raw)
        assert r.status_code == 400, r.text[:200]
        assert r.headers["content-type"] == "application/json"
        assert f"at most {MAX_JSON_DEPTH}" in r.json()["message"]
    # nesting just within the bound is parsed and judged by its content; brackets inside
    # strings do not count
    within = b'{"position": "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[", "rules": ' + \
        b"[" * (MAX_JSON_DEPTH - 1) + b"]" * (MAX_JSON_DEPTH - 1) + b"}"
    r = cold_client.post("/hint", content=within)
    assert r.status_code == 400 and "rules must be an object" in r.json()["message"]


def test_a_rollout_past_its_share_of_the_time_bound_answers_with_the_trials_played(
        service: Service) -> None:
    """A rollout that cannot finish in the request's time bound stops at a whole block of 36
    and answers with what it played, marked stopped_early, instead of a 503."""
    service.rollout({"position": START, "trials": 2})      # the rollout kernels loaded
    began = time.monotonic()
    quick = service.rollout({"position": START, "trials": 36, "seed": 4})
    block = time.monotonic() - began                       # one block and the cube's, here and now
    assert quick["stopped_early"] is False and quick["position"]["trials"] == 36
    # the bound leaves the position's share (half) several blocks and the other half for the
    # block under way (the cube decision comes from the same trials); 1296 trials are 36
    # blocks, far past it
    app = create_app(service, threads=2, timeout=max(24.0, 8 * block))
    with TestClient(app) as c:
        r = c.post("/rollout", json={"position": START, "trials": 1296, "seed": 4})
    assert r.status_code == 200, r.text
    body = r.json()
    played = body["position"]["trials"]
    assert body["stopped_early"] is True and body["trials"] == 1296
    assert 36 <= played < 1296 and played % 36 == 0
