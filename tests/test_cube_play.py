"""Cube- and score-aware play: gbot.cube.plays, and the engine decisions that use it.

Oracles: :func:`gbot.cube.decision.decide` one position at a time (the vectorised figures must
be the same), :func:`gbot.cube.decision.board_cube_life`, the match equity table directly,
hand-worked last-roll positions, and plays that GNU Backgammon 1.07 preferred at 0-ply and
2-ply in real match positions.
"""

from __future__ import annotations

import itertools
from dataclasses import replace

import numpy as np
import pytest

from gbot.cube.cubeful import CubeContext, Owner, cubeless_mwc, money_equity
from gbot.cube.decision import board_cube_life, decide
from gbot.cube.met import default_table
from gbot.cube.plays import (
    MATCH_KEEP,
    MATCH_WINDOW,
    best_play_index,
    cube_lives,
    dead_values,
    decision_value,
    money_values,
)
from gbot.game.match import CENTRE, MatchState, Rules
from gbot.game.position import Position
from tests.randomplay import random_positions, random_race_positions


def _random_probs(rng: np.random.Generator, n: int) -> np.ndarray:
    """Consistent cubeless probabilities, with the corners (certain wins, no gammons)."""
    rows = []
    for k in range(n):
        win = float(rng.choice([0.0, 1.0])) if k % 17 == 0 else float(rng.random())
        wg = win * float(rng.random()) * (0.0 if k % 5 == 0 else 1.0)
        wbg = wg * float(rng.random()) * 0.3
        lg = (1.0 - win) * float(rng.random())
        lbg = lg * float(rng.random()) * 0.3
        rows.append((win, wg, wbg, lg, lbg))
    return np.array(rows)


def _money_contexts() -> list[CubeContext]:
    out = []
    for owner, jacoby, beavers, end_mode, cube in itertools.product(
            (Owner.CENTRE, Owner.ME, Owner.OPPONENT), (False, True), (False, True),
            ("backgammons", "gammons", "single"), (1, 2, 8)):
        if owner == Owner.CENTRE and cube != 1:
            continue
        out.append(CubeContext(cube=cube, owner=owner,
                               rules=Rules(jacoby=jacoby, beavers=beavers, end_mode=end_mode)))
    return out


def _one(ctx: CubeContext, row: np.ndarray, life: float) -> float:
    p = tuple(float(v) for v in row)
    return decision_value(decide(p, replace(ctx, cube_life=life)))  # type: ignore[arg-type]


# --- gbot.cube.plays -----------------------------------------------------------------------


def test_money_values_are_decide_figures() -> None:
    """The vectorised money values equal decide(...).equity row by row, every rule switch."""
    rng = np.random.default_rng(7)
    for ctx in _money_contexts():
        probs = _random_probs(rng, 40)
        lives = rng.uniform(0.6, 0.7, size=40)
        got = money_values(probs, lives, ctx)
        want = [_one(ctx, probs[i], float(lives[i])) for i in range(40)]
        assert got == pytest.approx(want, abs=1e-12), ctx


def test_money_values_refuse_capped_cubes() -> None:
    with pytest.raises(ValueError, match="cube cap"):
        money_values(np.array([[0.5, 0, 0, 0, 0]]), [0.68], CubeContext(rules=Rules(cube_cap=8)))


def test_cube_lives_are_board_cube_life() -> None:
    boards = [b for b, _d1, _d2 in itertools.chain(random_positions(300, 3),
                                                    random_race_positions(200, 4))]
    got = cube_lives(np.array(boards))
    assert got.tolist() == [board_cube_life(b) for b in boards]


def test_dead_values() -> None:
    """Cube left where it is: money equity under the end mode (single games under Jacoby
    with a centred cube), or the match's cubeless winning chance."""
    probs = _random_probs(np.random.default_rng(11), 30)
    for end_mode in ("backgammons", "gammons", "single"):
        ctx = CubeContext(cube=4, owner=Owner.ME, rules=Rules(end_mode=end_mode))
        want = [money_equity(tuple(r), end_mode) for r in probs]  # type: ignore[arg-type]
        assert dead_values(probs, ctx) == pytest.approx(want, abs=1e-12)
    jacoby = CubeContext(rules=Rules(jacoby=True))
    assert dead_values(probs, jacoby) == pytest.approx(2 * probs[:, 0] - 1, abs=1e-12)
    for ctx in (CubeContext(match_length=7, away=4, opp_away=2),
                CubeContext(match_length=7, away=1, opp_away=5, crawford=True),
                CubeContext(match_length=9, away=3, opp_away=6, cube=2, owner=Owner.OPPONENT)):
        want = [cubeless_mwc(tuple(r), ctx) for r in probs]  # type: ignore[arg-type]
        assert dead_values(probs, ctx) == pytest.approx(want, abs=1e-12)


def test_best_play_index_is_the_smallest_value() -> None:
    """Money: the row whose decide() value is smallest. Match: the same whenever the whole
    candidate list gets the full model (few candidates, close dead values)."""
    rng = np.random.default_rng(5)
    for ctx in _money_contexts()[::5]:
        probs = _random_probs(rng, 12)
        lives = rng.uniform(0.6, 0.7, size=12)
        want = int(np.argmin([_one(ctx, probs[i], float(lives[i])) for i in range(12)]))
        assert best_play_index(probs, lives, ctx) == want
    for ctx in (CubeContext(match_length=7, away=2, opp_away=2),
                CubeContext(match_length=7, away=5, opp_away=3, cube=2, owner=Owner.ME),
                CubeContext(match_length=7, away=1, opp_away=4),      # post-Crawford
                CubeContext(match_length=5, away=4, opp_away=1, crawford=True)):
        for _ in range(10):
            base = _random_probs(rng, 1)[0]
            probs = np.clip(base + rng.normal(0, 0.005, size=(MATCH_KEEP, 5)), 0, 1)
            probs[:, 1:3] = np.minimum(probs[:, 1:3], probs[:, :1])
            probs[:, 3:] = np.minimum(probs[:, 3:], 1 - probs[:, :1])
            probs[:, 2] = np.minimum(probs[:, 2], probs[:, 1])
            probs[:, 4] = np.minimum(probs[:, 4], probs[:, 3])
            dead = dead_values(probs, ctx)
            if dead.max() - dead.min() > MATCH_WINDOW:
                continue
            want = int(np.argmin([_one(ctx, probs[i], 0.68) for i in range(MATCH_KEEP)]))
            assert best_play_index(probs, [0.68] * MATCH_KEEP, ctx) == want


# --- the engine ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def engine():  # type: ignore[no-untyped-def]
    from gbot.engine.engine import Engine

    eng = Engine()
    if eng.backend != "evaluator+cube":
        pytest.skip("gbot's networks are not installed")
    return eng


JACOBY = Rules(jacoby=True)


def _money(cube: int = 1, owner: int = CENTRE, rules: Rules = JACOBY) -> MatchState:
    return MatchState(cube_value=cube, cube_owner=owner, rules=rules)


def test_last_roll_double(engine) -> None:  # type: ignore[no-untyped-def]
    """Hand-checked: my checkers on my 4 and 2 points, the opponent's last checker on his
    1 point. I bear off both with 23 rolls of 36 (any 6, 5 or 4 with a 2 or more, 2-2, 3-3);
    otherwise the opponent bears off. The cube dies after this roll: no double is worth
    2p - 1 = 0.278, double/take 0.556 (taking beats passing), so I double, owning the cube
    or with it centred. (gbot 0-ply used to roll here: its cube model gives a bear-off cube
    life of 0.6 and called this no double; gnubg 1.07's exact bear-off database agrees with
    the hand count, ND 0.2778, DT 0.5555.)"""
    pos = Position.from_id("AQAASAAAAAAAAA")
    b = pos.board
    assert (int(b[2]), int(b[4]), int(b[24])) == (1, 1, -1)
    eng = engine.with_rules(JACOBY)
    assert eng.cube_action(pos, _money(cube=2, owner=0)) == "double"
    assert eng.cube_action(pos, _money()) == "double"
    doubled = replace(_money(), player_on_roll=1, player_to_act=0, double_offered=True)
    assert eng.respond_double(pos.swapped(), doubled) == "take"


def test_short_bearoff_double_as_gnubg(engine) -> None:  # type: ignore[no-untyped-def]
    """Replayed from gnubg 1.07's analysis of a tournament game (its exact two-sided bear-off
    database): my 3 checkers (1 point, 2 on the 2 point) against 2 on the opponent's 3 and 4
    points, my 4-cube: no redouble 0.187, redouble/take 0.373; gbot 0-ply used to hold."""
    from gbot.cube.decision import cube_decision

    pos = Position.from_id("FAAAaAAAAAAAAA")
    st = _money(cube=4, owner=0)
    eng = engine.with_rules(JACOBY)
    assert eng.cube_action(pos, st) == "double"
    d = cube_decision(pos, replace(st, rules=JACOBY), 2, evaluator=engine.evaluator)
    assert d.equities[:2] == pytest.approx((0.187, 0.373), abs=2e-3)


def test_money_play_does_not_depend_on_the_cube(engine) -> None:  # type: ignore[no-untyped-def]
    """Ordinary money play ranks plays by cubeless equity, whatever the cube (the fast
    0-ply path of the gnubg server answers the same)."""
    states = [_money(), _money(2, 0), _money(4, 1), _money(rules=Rules())]
    for k, (b, d1, d2) in enumerate(random_positions(60, 21)):
        pos = Position(b)
        plain = engine.choose_play(pos, (d1, d2))
        got = engine.with_rules(states[k % 4].rules).choose_play(pos, (d1, d2), states[k % 4])
        assert (got is None and plain is None) or got.position == plain.position


def _opponent_probs(engine, pos: Position, dice: tuple[int, int]):  # type: ignore[no-untyped-def]
    plays = pos.legal_plays(dice)
    boards = np.array([p.position.swapped().board for p in plays])
    return plays, engine.evaluator.evaluate(boards, 0)


def test_double_match_point_plays_for_the_win_only(engine) -> None:  # type: ignore[no-untyped-def]
    """At 6-6 in a 7-point match (both 1 away) only winning counts: the play leaves the
    opponent the smallest winning chance, gammons or not."""
    st = MatchState(match_length=7, score=(6, 6), crawford_done=True)
    checked = 0
    for b, d1, d2 in random_positions(400, 8):
        pos = Position(b)
        plays, probs = _opponent_probs(engine, pos, (d1, d2))
        if len(plays) < 2:
            continue
        got = engine.choose_play(pos, (d1, d2), st)
        i = [p.position for p in plays].index(got.position)
        assert probs[i, 0] <= probs[:, 0].min() + 1e-9
        checked += 1
    assert checked > 200


def test_crawford_play_uses_the_match_equity_table(engine) -> None:  # type: ignore[no-untyped-def]
    """Crawford game, me 1 away, the opponent 5 away: no cube, so a play is worth the match
    winning chance of its outcomes, read from the table (my gammons count for nothing,
    the opponent's count double)."""
    met = default_table()
    st = MatchState(match_length=7, score=(6, 2), crawford=True, crawford_done=True)
    win = 1.0
    lose = [met.mwc(1, 5 - k, post_crawford=True) for k in (1, 2, 3)]
    checked = 0
    for b, d1, d2 in random_positions(300, 9):
        pos = Position(b)
        plays, probs = _opponent_probs(engine, pos, (d1, d2))
        if len(plays) < 2:
            continue
        ow, owg, owbg = probs[:, 0], probs[:, 1], probs[:, 2]
        mine = ((1 - ow) * win + (ow - owg) * lose[0] + (owg - owbg) * lose[1]
                + owbg * lose[2])
        got = engine.choose_play(pos, (d1, d2), st)
        i = [p.position for p in plays].index(got.position)
        assert mine[i] >= mine.max() - 1e-9
        checked += 1
    assert checked > 150


# Positions from gbot-gnubg play, put in 7-point match situations; in each, gbot's play by
# cubeless money equity ("rejected") and by the match (the engine's choice when these were
# recorded, "preferred") differ, and gnubg 1.07's cubeful evaluation prefers the latter at
# 0-ply and at 2-ply by the equity (EMG) given. Score = (me, opponent); owner 0 = me.
GNUBG_PREFERRED = [
    ((3, 6), 1, CENTRE, True, "7JwZAwSwc3DAAw", (1, 2), "8/5", "8/7 6/4*", 0.118),
    ((3, 6), 1, CENTRE, True, "s91gAAO7zQkAGA", (5, 4), "8/4 6/1", "23/18 8/4", 0.099),
    ((3, 6), 1, CENTRE, True, "bLsjCCBMzzEAOA", (2, 2), "8/4 6/4 5/3", "11/9 8/4 6/4", 0.071),
    ((0, 0), 1, CENTRE, False, "NNuFAxCMc44DQA", (1, 5), "bar/24 13/8", "bar/20 10/9", 0.102),
    ((6, 3), 1, CENTRE, True, "LLcZGgB03g4AAw", (3, 6), "20/11*", "8/5 8/2", 0.106),
    ((3, 6), 1, CENTRE, True, "2L4NBgDYtsEARg", (1, 1), "bar/22 4/3", "bar/24 8/5", 0.134),
    ((6, 5), 2, 1, False, "WM/BACxs2wYSCA", (2, 4), "22/20*/16", "22/16", 0.094),
    ((2, 4), 1, CENTRE, False, "4N7BgCE2nsEBAw", (5, 4), "13/9 6/1*", "20/16 20/15", 0.075),
    ((6, 5), 2, 1, False, "jOfBAxCzmYkDEA", (3, 6), "13/10 8/2*", "23/14", 0.109),
    ((5, 5), 1, CENTRE, False, "4HPGBSCMc+IBJA", (4, 6), "10/4 8/4", "24/18 22/18", 0.141),
    ((3, 3), 2, 1, False, "3IwwwGG7eQAAAA", (3, 3), "5/2(2) 3/off(2)", "5/2(4)", 0.459),
    ((6, 3), 1, CENTRE, True, "sjszBgBztxEADA", (6, 1), "22/16 9/8", "9/2", 0.117),
    ((5, 5), 1, CENTRE, False, "sNvBARKw5+ARIA", (3, 2), "16/13 6/4*", "24/21 6/4*", 0.185),
    ((3, 3), 2, 0, False, "FgAAsG07AQACAA", (3, 3), "24/15 8/5", "8/2 6/3 4/1", 0.181),
]


def test_match_plays_gnubg_preferred(engine) -> None:  # type: ignore[no-untyped-def]
    """The engine plays gnubg's preferred move in (nearly) all of these match positions; it
    depends on the networks, so a retrained net may differ on a few."""
    agree = 0
    for score, cube, owner, crawford, pid, dice, _rejected, preferred, _gain in GNUBG_PREFERRED:
        st = MatchState(match_length=7, score=score, cube_value=cube, cube_owner=owner,
                        crawford=crawford, crawford_done=crawford or 6 in score)
        got = engine.choose_play(Position.from_id(pid), dice, st)
        agree += got.notation == preferred
    assert agree >= len(GNUBG_PREFERRED) - 3


def test_gnubg_server_plays_by_the_match(engine) -> None:  # type: ignore[no-untyped-def]
    """A 7-point match line through the gnubg external-player protocol gets the engine's
    match-aware play (not the cubeless fast path)."""
    from gbot.adapters.gnubg_external import Session, handle_line
    from gbot.game.notations.fibs_board import FibsBoard, format_fibs_board

    session = Session(engine)
    differ = 0
    for score, cube, owner, crawford, pid, dice, _rej, _pref, _gain in GNUBG_PREFERRED:
        pos = Position.from_id(pid)
        who = "centre" if owner == CENTRE else "me" if owner == 0 else "opponent"
        fb = FibsBoard(points=tuple(int(v) for v in pos.board), dice=dice, cube_value=cube,
                       cube_owner=who, may_double=(who != "opponent", who != "me"),
                       double_pending=False, score=score, match_length=7,
                       crawford_game=crawford, post_crawford=not crawford and 6 in score,
                       names=("gnubg", "gbot"), colour=-1)
        reply, _ = handle_line(session, format_fibs_board(fb, "gnubg_external"))
        st = fb.state
        want = engine.choose_play(pos, dice, st)
        assert reply == want.notation
        differ += reply != engine.choose_play(pos, dice).notation
    assert differ > 0
