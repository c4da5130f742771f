"""XGID parse/format against gnubg 1.07's vectors (its load quirks included), round trips, fuzz."""

from __future__ import annotations

import random
import string
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gbot
from gbot.core.board import START, from_gnubg
from gbot.errors import XgidError
from gbot.game.match import (
    CENTRE,
    GameState,
    MatchState,
    Rules,
    state_from_match_id,
)
from gbot.game.notations import match_id
from gbot.game.notations.match_id import MatchIdFields
from gbot.game.notations.xgid import as_loaded_by_gnubg, format_xgid, parse_xgid
from gbot.game.position import Position
from tests.conftest import gnubg_binary, read_jsonl, run_gnubg_script, shared_path
from tests.strategies import boards

OPENING = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"


def _records(kind: str) -> list[dict[str, Any]]:
    recs = [r for r in read_jsonl(shared_path("vectors", "ids.jsonl")) if r["kind"] == kind]
    return [r for r in recs if r.get("xgid")]


def test_issue_example() -> None:
    text = "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:1:0:10"
    pos, state = gbot.parse_xgid(text)
    assert pos == Position.initial()
    assert state.player_on_roll == state.player_to_act == 1
    assert state.dice == (5, 2) and state.match_length == 0
    assert state.rules.jacoby and not state.rules.beavers
    assert gbot.format_xgid(pos, state) == text
    assert state.match_id() == "cIkKAAAAAAAA"


def test_prefix_is_optional() -> None:
    assert parse_xgid(OPENING[5:]) == parse_xgid(OPENING)
    assert format_xgid(*parse_xgid(OPENING[5:])) == OPENING


def test_position_vectors() -> None:
    recs = _records("position")
    assert len(recs) >= 30
    for rec in recs:
        pos, state = parse_xgid(rec["xgid"])
        assert pos.id() == rec["position_id"] == rec["xgid_parsed_by_gnubg_to"]
        assert np.array_equal(pos.board, from_gnubg(rec["on_roll"], rec["opponent"]))
        assert state.player_on_roll == 1 and not state.rules.jacoby
        assert format_xgid(pos, state) == rec["xgid"]
        assert as_loaded_by_gnubg(pos, state)[0].id() == rec["xgid_parsed_by_gnubg_to"]


def test_match_vectors() -> None:
    recs = _records("match")
    assert len(recs) >= 20
    for rec in recs:
        f = rec["fields"]
        pos, state = parse_xgid(rec["xgid"])
        assert pos == Position.initial()
        assert state.match_length == f["match_length"]
        assert state.score == tuple(f["score"])
        assert state.cube_value == f["cube"] and state.cube_owner == f["cube_owner"]
        assert state.player_on_roll == f["dice_owner"] and state.player_to_act == f["turn"]
        assert state.double_offered == bool(f["doubled"])
        assert state.dice == tuple(f["dice"])  # as written, not sorted
        assert state.crawford == bool(f["crawford"])
        if f["match_length"] == 0:
            assert state.rules.jacoby == bool(f["jacoby"])
        # the state's Match ID is the vector's, with Jacoby off in a match (XGID has no bit)
        fields = MatchIdFields(**{**f, "dice": tuple(f["dice"]), "score": tuple(f["score"])})
        if f["match_length"]:
            fields = replace(fields, jacoby=False)
        assert state.match_id() == match_id.encode(fields), rec["description"]
        # the quirks: gnubg drops a pending double and swaps players when player 0 is on roll
        loaded = as_loaded_by_gnubg(pos, state)[1]
        assert loaded.match_id() == rec["xgid_parsed_by_gnubg_to"], rec["description"]
        # formatting back, from the parsed state and from the vector's own fields
        assert format_xgid(pos, state) == rec["xgid"]
        assert format_xgid(pos, state_from_match_id(_fields(rec))) == rec["xgid"]


def _fields(rec: dict[str, Any]) -> MatchIdFields:
    f = rec["fields"]
    return MatchIdFields(**{**f, "dice": tuple(f["dice"]), "score": tuple(f["score"])})


def test_top_player_on_roll_sees_own_board() -> None:
    # the on-roll-bottom XGID of position vector 3, with the players exchanged
    pos, _ = parse_xgid("XGID=b----BE-C---eE---c-d-a----:0:0:1:00:0:0:0:0:10")
    swapped = "XGID=----A-D-C---eE---c-eb----B:0:0:-1:00:0:0:0:0:10"  # by hand
    pos2, state2 = parse_xgid(swapped)
    assert state2.player_on_roll == 0
    assert pos2 == pos
    assert format_xgid(pos2, state2) == swapped


def test_state_board_and_crawford_done() -> None:
    pos, state = parse_xgid("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:2:4:1:5:10")
    assert state.board == tuple(int(v) for v in pos.board)
    assert state.crawford and state.crawford_done and not state.post_crawford
    _, post = parse_xgid("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:3:4:0:5:10")
    assert post.post_crawford and post.crawford_done


def test_money_rules_and_cube_cap() -> None:
    _, s = parse_xgid("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:3:0:6")
    assert s.rules.jacoby and s.rules.beavers and s.rules.cube_cap == 64
    assert format_xgid(Position.initial(), s).endswith(":3:0:6")
    _, s = parse_xgid("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:2:0:12")
    assert s.rules.beavers and not s.rules.jacoby and s.rules.cube_cap == 0
    assert format_xgid(Position.initial(), s).endswith(":2:0:10")


@st.composite
def xgid_states(draw: st.DrawFn) -> MatchState:
    """A match state an XGID can hold, with the board left to the caller."""
    length = draw(st.sampled_from([0, 0, 1, 3, 5, 7, 9, 11, 15, 25]))
    if length:
        score = (draw(st.integers(0, length - 1)), draw(st.integers(0, length - 1)))
    else:
        score = (draw(st.integers(0, 99)), draw(st.integers(0, 99)))
    at_point = bool(length) and length - 1 in score
    crawford = at_point and score[0] != score[1] and draw(st.booleans())
    on_roll = draw(st.integers(0, 1))
    cube = 1 if crawford else 2 ** draw(st.integers(0, 12))
    owner = CENTRE if cube == 1 else draw(st.sampled_from([CENTRE, 0, 1]))
    doubled = not crawford and cube < 2**15 and draw(st.booleans())
    dice = (0, 0) if doubled or draw(st.booleans()) else (
        draw(st.integers(1, 6)), draw(st.integers(1, 6)))
    rules = Rules(
        jacoby=not length and draw(st.booleans()),
        beavers=not length and draw(st.booleans()),
        cube_cap=draw(st.sampled_from([0, 2, 4, 8, 16, 32, 64])),
    )
    return MatchState(match_length=length, score=score, cube_value=cube, cube_owner=owner,
                      player_on_roll=on_roll,
                      player_to_act=1 - on_roll if doubled else on_roll,
                      dice=dice, crawford=crawford, double_offered=doubled, rules=rules)


_COMPARED = ("match_length", "score", "cube_value", "cube_owner", "player_on_roll",
             "player_to_act", "dice", "crawford", "game_state", "double_offered", "rules")


@given(boards(), xgid_states())
@settings(max_examples=300, deadline=None)
def test_round_trip_random(board: np.ndarray, state: MatchState) -> None:
    pos = Position(board)
    text = format_xgid(pos, state)
    pos2, state2 = parse_xgid(text)
    assert pos2 == pos
    for name in _COMPARED:
        assert getattr(state2, name) == getattr(state, name), name
    assert format_xgid(pos2, state2) == text
    assert len(MatchState.from_match_id(state2.match_id()).match_id()) == 12


def test_format_refuses_what_xgid_cannot_hold() -> None:
    pos = Position.initial()
    for state in (MatchState(resign_offered=1), MatchState(game_state=GameState.OVER),
                  MatchState(cube_value=3), MatchState(double_offered=True, dice=(3, 1)),
                  MatchState(dice=(7, 1)), MatchState(beavers=1, double_offered=True)):
        with pytest.raises(XgidError):
            format_xgid(pos, state)


@pytest.mark.parametrize(
    "bad",
    [
        "",
        "XGID=",
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0",  # 9 fields
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10:1",  # 11 fields
        "XGID=-b----E-C---eE---c-e----B:0:0:1:00:0:0:0:0:10",  # 25 position chars
        "XGID=-b----E-C---eE---c-e----Bz:0:0:1:00:0:0:0:0:10",  # bad letter
        "XGID=-b----E-C---eE---c-e----B-:x:0:1:00:0:0:0:0:10",  # cube not a number
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0: 10",  # space
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:+10",
        "XGID=-b----E-C---eE---c-e----B-:16:0:1:00:0:0:0:0:10",  # cube 2**16
        "XGID=-b----E-C---eE---c-e----B-:0:1:1:00:0:0:0:0:10",  # owned 1-cube: impossible cube
        "XGID=-b----E-C---eE---c-e----B-:1:2:1:00:0:0:0:0:10",  # owner 2
        "XGID=-b----E-C---eE---c-e----B-:0:0:0:00:0:0:0:0:10",  # turn 0
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:71:0:0:0:0:10",  # die 7
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:5:0:0:0:0:10",  # one die
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:B:0:0:0:0:10",  # beaver (gnubg rejects it too)
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:7:0:0:7:10",  # score reached the length
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:2:7:10",  # R=2 in a match
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:1:7:10",  # Crawford at 0-0
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:4:0:10",  # R=4 in money
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:-1:0:0:0:10",  # negative score
        "XGID=-b----E-C---eE---c-e----C-:0:0:1:00:0:0:0:0:10",  # 16 bottom checkers
        "XGID=-c----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10",  # 16 top checkers
        "XGID=Bb----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10",  # upper case on the top bar
        "XGID=-b----E-C---eE---c-e----Bb:0:0:1:00:0:0:0:0:10",  # lower case on the bottom bar
    ],
)
def test_malformed_xgids_raise(bad: str) -> None:
    with pytest.raises(XgidError) as exc:
        parse_xgid(bad)
    assert repr(bad) in str(exc.value)


def test_non_string_raises() -> None:
    with pytest.raises(XgidError):
        parse_xgid(None)  # type: ignore[arg-type]


@given(st.text(alphabet=string.ascii_letters + string.digits + ":=-+ ", max_size=80))
@settings(max_examples=300, deadline=None)
def test_fuzz_random_text(text: str) -> None:
    try:
        parse_xgid(text)
    except XgidError as exc:
        assert repr(text) in str(exc)


@given(st.data())
@settings(max_examples=400, deadline=None)
def test_fuzz_mutated_vectors(data: st.DataObject) -> None:
    recs = _records("position") + _records("match")
    x = data.draw(st.sampled_from([r["xgid"] for r in recs]))
    i = data.draw(st.integers(0, len(x) - 1))
    ch = data.draw(st.sampled_from(string.ascii_letters + string.digits + ":-"))
    cut = data.draw(st.booleans())
    text = x[:i] if cut else x[:i] + ch + x[i + 1:]
    try:
        pos, state = parse_xgid(text)
    except XgidError as exc:
        assert repr(text) in str(exc)
        return
    again = format_xgid(pos, state)
    assert parse_xgid(again)[0] == pos


_GNUBG_SCRIPT = r"""
import gnubg, json, os
for c in ["set player 0 human", "set player 1 human", "set display off", "new session"]:
    gnubg.command(c)
out = []
for x in json.load(open(os.environ["GBOT_CASES"])):
    gnubg.command("set xgid " + x)
    out.append([gnubg.positionid(gnubg.board()), gnubg.matchid()])
open(os.environ["GBOT_OUT"], "w").write(json.dumps(out))
"""


def _random_xgids(n: int, seed: int) -> list[tuple[Position, MatchState]]:
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        mine = [0] * 26
        theirs = [0] * 26
        for _ in range(15):
            mine[rng.choice([rng.randrange(26), rng.randrange(6)])] += 1
        free = [i for i in range(26) if i >= 24 or not mine[23 - i]]
        for _ in range(15):
            theirs[rng.choice(free)] += 1
        if mine[25] == 15 or theirs[25] == 15:
            continue
        length = rng.choice([0, 0, 3, 5, 7, 11])
        score = (rng.randrange(length), rng.randrange(length)) if length else (0, 0)
        at_point = bool(length) and length - 1 in score
        crawford = at_point and score[0] != score[1] and rng.random() < 0.5
        cube = 1 if crawford else 2 ** rng.randrange(7)
        owner = CENTRE if cube == 1 else rng.choice([CENTRE, 0, 1])
        on_roll = rng.randrange(2)
        dice = (0, 0) if rng.random() < 0.3 else (rng.randint(1, 6), rng.randint(1, 6))
        state = MatchState(match_length=length, score=score, cube_value=cube, cube_owner=owner,
                           player_on_roll=on_roll, player_to_act=on_roll, dice=dice,
                           crawford=crawford,
                           rules=Rules(jacoby=not length and rng.random() < 0.5))
        out.append((Position(from_gnubg(mine[:25], theirs[:25])), state))
    return out


@pytest.mark.gnubg
def test_random_xgids_load_like_live_gnubg(tmp_path: Path) -> None:
    exe = gnubg_binary()
    if exe is None:
        pytest.skip("gnubg not installed")
    cases = _random_xgids(120, 20240612)
    texts = [format_xgid(p, s) for p, s in cases]
    got = run_gnubg_script(exe, _GNUBG_SCRIPT, texts, tmp_path)
    assert len(got) == len(texts)
    for text, (pid, mid) in zip(texts, got, strict=True):
        pos, state = as_loaded_by_gnubg(*parse_xgid(text))
        assert (pos.id(), state.match_id()) == (pid, mid), text


def test_start_constant_sanity() -> None:
    assert parse_xgid(OPENING)[0].board.tolist() == START.tolist()
