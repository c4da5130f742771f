"""A redouble gnubg calls "Redouble, take" with 25 % winning chances: X owns a 2-cube at
4-away/2-away (3-5 in a 7-point match), on the bar against a five-point board. Redoubling to 4
kills the leader's cube (4 points are the match for either side), so the double point is far
below the 45 % under which the engine (and the server's one-kernel answer) returns ``roll``
without asking the cube model. gnubg 1.07 0-ply: cubeless 0.252 to win, cubeful no double
-0.143, double/take +0.008. gbot's cube model: no double 0.209, double/take 0.246 MWC.

The 45 % shortcut now stops where the cube already gives the opponent the match."""

from __future__ import annotations

import dataclasses

import pytest

import gbot
from gbot.cube.decision import cube_decision
from gbot.engine.engine import Engine

POS = "u1sPAAC6u0kAQA"
MATCH = "UQnvAFAAGAAE"          # 7-point match, X 3 - O 5, cube 2 owned by X, X on roll (63)


def _before_rolling() -> tuple[gbot.Position, gbot.MatchState]:
    st = gbot.MatchState.from_match_id(MATCH)
    return gbot.Position.from_id(POS), dataclasses.replace(st, dice=())


def test_the_cube_model_redoubles() -> None:
    pos, st = _before_rolling()
    assert (st.match_length, st.score, st.cube_value) == (7, (5, 3), 2)
    d = cube_decision(pos, st, ply=0)
    assert d.action == "double_take"
    assert d.mwc is not None and d.mwc[1] > d.mwc[0]
    assert d.probabilities[0] < 0.3


def test_the_engine_redoubles_at_0_ply() -> None:
    pos, st = _before_rolling()
    assert Engine().cube_action(pos, st) == "double"


@pytest.mark.parametrize("fast", [False, True])
def test_the_server_redoubles(fast: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """gnubg's question as a board line, answered by the one-kernel path and the general one."""
    from gbot.adapters import gnubg_external as ge
    from gbot.tournament.players import board_line

    pos, st = _before_rolling()
    st = dataclasses.replace(st, board=tuple(int(x) for x in pos.board))
    me = st.player_on_roll
    line = board_line(st, me, ("gbot", "gnubg"), "double_or_roll")
    monkeypatch.setattr(ge, "FAST_PATH", fast)
    reply, _ = ge.handle_line(ge.Session(Engine()), line)
    assert reply.strip() == "double"
