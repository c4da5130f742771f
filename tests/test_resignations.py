"""Resignations that score right (issue 15).

* Site-style scoring (``Rules(resignation="position")``): a resignation is scored at once by
  the resigner's position. The engine resigned as soon as it could not win; in the Mars
  position below that scores a gammon (2) where playing on costs 1 + 2/36 (hand-checked).
* gnubg as a tournament player: gnubg 1.07's external server accepts every resignation
  offered to it; the player now decides from gnubg's own evaluation of the position.
"""

from __future__ import annotations

import numpy as np
import pytest

from gbot.cube.decision import context_from_state
from gbot.cube.resign import position_resignation
from gbot.engine.engine import Engine
from gbot.game.match import MatchState, Rules
from gbot.game.position import Position
from gbot.tournament.players import find_gnubg


def board(mine: dict[int, int], theirs: dict[int, int]) -> Position:
    """My checkers on my points ``mine``, the opponent's on ITS points ``theirs``."""
    b = np.zeros(26, dtype=np.int8)
    for pt, n in mine.items():
        b[pt] = n
    for pt, n in theirs.items():
        b[25 - pt] = -n
    return Position(b)


# I am on roll with 15 checkers home, none off: five each on my 6-, 5- and 4-points. The
# opponent has 2 checkers on its 1-point and bears both off with any roll next turn, so I
# cannot win. I save the gammon exactly when my roll bears a checker off: every roll does but
# 2-1 (three pips, and no checker on my 3-, 2- or 1-point), so the gammon chance is 2/36 and
# playing on costs 1 + 2/36 = 1.056 points a cube; resigning now scores a gammon, 2.
MARS = board({6: 5, 5: 5, 4: 5}, {1: 2})
MARS_GAMMON = 2 / 36


def money(rules: Rules, cube: int = 1, owner: int = -1) -> MatchState:
    return MatchState(cube_value=cube, cube_owner=owner, player_on_roll=0, player_to_act=0,
                      rules=rules, board=tuple(int(v) for v in MARS.board))


def test_the_mars_position_is_what_the_hand_count_says() -> None:
    p = Engine().probabilities(MARS)
    assert p[0] == pytest.approx(0.0, abs=1e-9)
    assert p[3] == pytest.approx(MARS_GAMMON, abs=1e-6)
    # the count itself: the rolls after which no play bears a checker off
    saved = 0
    for d1 in range(1, 7):
        for d2 in range(1, 7):
            if any(int(pl.position.board[1:26].clip(0).sum()) < 15
                   for pl in MARS.legal_plays((d1, d2))):
                saved += 1
    assert saved == 34


def test_site_style_scoring_does_not_resign_a_saveable_gammon() -> None:
    rules = Rules(resignation="position")
    assert Engine(rules=rules).resign_offer(MARS, money(rules)) == 0   # resigned: scored 2
    # gnubg-style offers still offer the certain single (the other side may refuse it)
    assert Engine().resign_offer(MARS, money(Rules())) == 1


def test_site_style_scoring_resigns_when_it_costs_nothing() -> None:
    rules = Rules(resignation="position")
    # one checker off already: every loss is a single, resigning costs exactly that
    one_off = board({6: 5, 5: 5, 4: 4}, {1: 2})
    state = MatchState(player_on_roll=0, player_to_act=0, rules=rules)
    assert Engine(rules=rules).resign_offer(one_off, state) == 1
    # Jacoby with a centred cube: gammons do not count, so a gammon costs 1 like playing on
    jac = Rules(resignation="position", jacoby=True)
    assert Engine(rules=jac).resign_offer(MARS, money(jac)) == 2
    # double match point: any loss loses the match, so resigning the gammon costs nothing
    dmp = MatchState(match_length=5, score=(4, 4), player_on_roll=0, player_to_act=0,
                     rules=rules, crawford_done=True)
    assert Engine(rules=rules).resign_offer(MARS, dmp) == 2


@pytest.mark.parametrize("probs, kind, cube, want", [
    ((0.0, 0.0, 0.0, MARS_GAMMON, 0.0), 2, 1, 0),     # 2 > 1.056: play on
    ((0.0, 0.0, 0.0, MARS_GAMMON, 0.0), 1, 1, 1),     # 1 < 1.056: resign
    ((0.0, 0.0, 0.0, 1.0, 0.0), 2, 4, 2),             # a certain gammon: resign it
    ((0.0, 0.0, 0.0, 1.0, 0.6), 3, 1, 0),             # backgammon scored, 1.6 expected
    ((0.02, 0.0, 0.0, 0.0, 0.0), 1, 1, 0),            # can still win: never
])
def test_position_resignation_by_hand(probs: tuple[float, ...], kind: int, cube: int,
                                      want: int) -> None:
    rules = Rules(resignation="position")
    state = MatchState(cube_value=cube, cube_owner=-1 if cube == 1 else 1, player_on_roll=0,
                       player_to_act=0, rules=rules)
    ctx = context_from_state(state, 0.0)
    assert position_resignation(probs, ctx, kind) == want   # type: ignore[arg-type]


@pytest.mark.gnubg
@pytest.mark.skipif(find_gnubg() is None, reason="Debian's gnubg is not installed")
def test_gnubg_player_refuses_a_cheap_resignation_and_takes_a_fair_one() -> None:
    """The issue's case: ``AwAA2KY/EAAAAA`` at cube 4; the resigner is on roll and gnubg
    holds a 59 % gammon. gnubg's server accepted the single; its own evaluation refuses it
    (4 points against about 6.4) and takes the gammon (8 points)."""
    from gbot.tournament.players import ExternalPlayer, GnubgPlayer

    pos = Position.from_id("AwAA2KY/EAAAAA")
    rules = Rules()
    state = MatchState(cube_value=4, cube_owner=1, player_on_roll=0, player_to_act=1,
                       resign_offered=1, rules=rules, board=tuple(int(v) for v in pos.board))
    gnubg = GnubgPlayer("gnubg", rules)
    try:
        gnubg.new_game(1, "gbot")
        seen = pos.swapped()
        # what gnubg 1.07's own server answers (the old behaviour): accept
        assert ExternalPlayer.accept_resignation(gnubg, seen, state, 1) is True
        assert gnubg.accept_resignation(seen, state, 1) is False
        assert gnubg.accept_resignation(seen, state, 2) is True
        assert gnubg.accept_resignation(seen, state, 3) is True
    finally:
        gnubg.close()
