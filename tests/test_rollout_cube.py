"""The cubeful replay's cube decisions are the engine's (gbot.analysis.rollout_cube)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

import gbot
from gbot.analysis.rollout_cube import replay
from gbot.core.rollout import END_OVER
from gbot.cube import default_table
from gbot.engine.engine import NO_DOUBLE_BELOW, Engine, dead_for_opponent
from gbot.game.match import MatchState
from gbot.game.position import Position

CANDIDATES = ("4HPwATDgc/ABMA", "3toBKAL7/AAAEA", "4POFCwDDzuABIQ", "f2cDAEBsmwFoDA",
              "u/YqAAClXkMjAA", "4HPhASLgc/ABMA", "sGfwATDgc/ABMA", "jGfkASjg8wcBMA")


def _underdog() -> Position:
    """A contact position whose side on roll wins clearly less than NO_DOUBLE_BELOW."""
    ev = gbot.Evaluator()
    for pid in CANDIDATES:
        for pos in (Position.from_id(pid), Position.from_id(pid).swapped()):
            if 0.2 < ev.probabilities(pos)[0] < NO_DOUBLE_BELOW - 0.05:
                return pos
    pytest.skip("no test position below the doubling screen with these networks")


def _won_at_once(pos: Position) -> SimpleNamespace:
    """One trial: the root plays once and the game ends, a single win for the root."""
    paths = np.zeros((1, 2, 26), dtype=np.int8)
    paths[0, 0] = pos.board
    paths[0, 1] = pos.swapped().board
    return SimpleNamespace(out=[np.array([[1.0, 0, 0, 0, 0]])],
                           plies=[np.array([1], dtype=np.int32)],
                           ends=[np.array([END_OVER], dtype=np.int8)], paths=[paths])


@pytest.mark.parametrize("cube_ply", [0, 1])
def test_replay_redoubles_where_the_cube_is_dead_for_the_opponent(cube_ply: int) -> None:
    pos = _underdog()
    # 5-point match, the root 4-away owns a 2-cube, the opponent 2-away: losing this game at
    # any cube loses the match, so the redouble to 4 (the match if the root wins) is free
    dead = MatchState(match_length=5, score=(1, 3), cube_value=2, cube_owner=0)
    assert dead_for_opponent(dead, 0)
    assert Engine().cube_action(pos, dead) == "double"
    _, mwc = replay(_won_at_once(pos), dead, "free", cube_ply=cube_ply)
    assert mwc is not None and mwc[0] == pytest.approx(1.0)      # won at 4: the match
    # the same game at 0-0 with a centred cube: below the screen, nobody doubles
    live = MatchState(match_length=5, score=(0, 0))
    assert not dead_for_opponent(live, 0)
    assert Engine().cube_action(pos, live) == "roll"
    _, mwc = replay(_won_at_once(pos), live, "free", cube_ply=cube_ply)
    assert mwc is not None
    assert mwc[0] == pytest.approx(default_table().mwc(4, 5))     # a single win: 4-away 5-away


def _gammon_at_once(pos: Position) -> SimpleNamespace:
    t = _won_at_once(pos)
    t.out = [np.array([[1.0, 1.0, 0, 0, 0]])]
    return t


def test_replay_decides_on_the_probabilities_of_the_cube_ply() -> None:
    from gbot.cube import context_from_state, decide
    from gbot.cube.decision import board_cube_life

    ev = gbot.Evaluator()
    state = MatchState()
    jacoby = state.rules.jacoby

    def points(pos: Position, ply: int) -> float:
        """The root's points for a gammon won at once, after its cube action at ``ply``."""
        p = ev.probabilities(pos, ply)
        if p[0] < NO_DOUBLE_BELOW:
            return 1.0 if jacoby else 2.0
        d = decide(p, context_from_state(state, board_cube_life(pos.board)))
        if not d.doubles:
            return 1.0 if jacoby else 2.0
        return {"pass": 1.0, "take": 4.0, "beaver": 8.0}[d.response]

    differ = 0
    for pid in CANDIDATES:
        for pos in (Position.from_id(pid), Position.from_id(pid).swapped()):
            want = [points(pos, ply) for ply in (0, 1)]
            got = [float(replay(_gammon_at_once(pos), state, "free", cube_ply=ply)[0][0])
                   for ply in (0, 1)]
            assert got == want, (pos.id(), got, want)
            differ += want[0] != want[1]
    print(f"positions whose cube action differs at 0- and 1-ply: {differ}")
