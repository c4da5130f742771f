"""The cube model's kernel (:mod:`gbot.core.cubemath`) against the Python model (the oracle).

:func:`gbot.cube.cubeful.cubeful_many` must give exactly the figures of
:func:`tests.oracle.cubemodel.cubeful_model`, the level-by-level construction in Python (same
floats, same errors),
for money and match contexts of every kind: cube owners and values, caps, end modes, Jacoby,
the Crawford game and after, 2-away 2-away, cube lives, and degenerate probabilities.
"""

from __future__ import annotations

import random

import numpy as np
import numpy.typing as npt
import pytest

from gbot.cube.cubeful import CubeContext, CubefulEquities, Owner, Probs, check_probs, cubeful_many
from gbot.errors import GbotError
from gbot.game.match import Rules
from tests.oracle.cubemodel import Model, cubeful_model


def _kernel_model(probs: Probs, ctx: CubeContext) -> CubefulEquities:
    return cubeful_many([probs], [ctx.cube_life], ctx)[0]


def _probs(rng: random.Random) -> Probs:
    win = rng.choice([rng.uniform(0, 1), rng.uniform(0.3, 0.95), 0.0, 1.0, 0.5, 1e-13])
    wg = win * rng.choice([0.0, rng.uniform(0, 0.5), 1.0])
    wbg = wg * rng.choice([0.0, rng.uniform(0, 0.2)])
    lg = (1 - win) * rng.choice([0.0, rng.uniform(0, 0.5), 1.0])
    lbg = lg * rng.choice([0.0, rng.uniform(0, 0.2)])
    return check_probs((win, wg, wbg, lg, lbg))


def _context(rng: random.Random) -> CubeContext | None:
    length = rng.choice([0, 0, 1, 2, 3, 5, 7, 9, 11, 13, 17, 25])
    cube = rng.choice([1, 1, 2, 4, 8, 16, 64, 1024, 4096, 32768])
    owner = rng.choice([Owner.CENTRE, Owner.ME, Owner.OPPONENT])
    away = opp_away = 0
    crawford = False
    if length:
        away, opp_away = rng.randint(1, length), rng.randint(1, length)
        crawford = 1 in (away, opp_away) and rng.random() < 0.3
        if owner == Owner.CENTRE or crawford:
            cube = 1
        if crawford:
            owner = Owner.CENTRE
    try:
        rules = Rules(cube_enabled=rng.random() > 0.1, cube_cap=rng.choice([0, 0, 2, 4, 8, 64]),
                      end_mode=rng.choice(["backgammons", "gammons", "single"]),
                      jacoby=length == 0 and rng.random() < 0.4)
        return CubeContext(
            match_length=length, away=away, opp_away=opp_away, cube=cube, owner=owner,
            crawford=crawford, rules=rules,
            cube_life=rng.choice([0.68, 0.6, 0.0, 1.0, 0.65, rng.random()]))
    except GbotError:
        return None


def _outcome(fn: object, probs: Probs, ctx: CubeContext) -> str:
    try:
        return repr(fn(probs, ctx))  # type: ignore[operator]
    except GbotError as exc:
        return f"{type(exc).__name__}: {exc}"


@pytest.mark.parametrize("seed", range(4))
def test_kernel_equals_python_model(seed: int) -> None:
    rng = random.Random(seed)
    checked = 0
    while checked < 1500:
        ctx = _context(rng)
        if ctx is None:
            continue
        probs = _probs(rng)
        assert _outcome(_kernel_model, probs, ctx) == _outcome(cubeful_model, probs, ctx)
        checked += 1


# --- cube-aware checker play (gbot.cube.plays) against per-candidate decide() ---------------

def _boards(rng: random.Random, n: int) -> list[npt.NDArray[np.int8]]:
    """Positions of every class from seeded random play (side to move in each)."""
    from gbot.core.board import START, flip_py
    from gbot.core.movegen import legal_boards

    out: list[npt.NDArray[np.int8]] = []
    b = START.copy()
    while len(out) < n:
        res = legal_boards(b, rng.randint(1, 6), rng.randint(1, 6))
        b = flip_py(res[rng.randrange(len(res))]) if len(res) else flip_py(b)
        if (b > 0).sum() == 0 or (b < 0).sum() == 0:
            b = START.copy()
            continue
        out.append(b)
    return out


def test_cube_lives_and_dead_values_equal_their_definitions() -> None:
    from gbot.cube.decision import board_cube_life
    from gbot.cube.plays import cube_lives, dead_values

    rng = random.Random(5)
    boards = np.array(_boards(rng, 400))
    assert cube_lives(boards).tolist() == [board_cube_life(b) for b in boards]
    probs = [_probs(rng) for _ in range(400)]
    for _ in range(60):
        ctx = _context(rng)
        if ctx is None:
            continue
        m = Model((0.5, 0.0, 0.0, 0.0, 0.0), ctx)
        c = ctx.cube
        single = ctx.is_money and ctx.jacoby and ctx.owner == Owner.CENTRE
        k = (1, 1, 1) if single else {"single": (1, 1, 1), "gammons": (1, 2, 2),
                                      "backgammons": (1, 2, 3)}[ctx.end_mode]
        want = []
        for win, wg, wbg, lg, lbg in probs:
            v = ((win - wg) * m.value(k[0] * c) + (wg - wbg) * m.value(k[1] * c)
                 + wbg * m.value(k[2] * c) + (1.0 - win - lg) * m.value(-k[0] * c)
                 + (lg - lbg) * m.value(-k[1] * c) + lbg * m.value(-k[2] * c))
            want.append(v / c if ctx.is_money else v)
        assert dead_values(probs, ctx).tolist() == want


def test_best_play_index_equals_deciding_each_candidate() -> None:
    from dataclasses import replace

    from gbot.cube.decision import decide
    from gbot.cube.plays import (
        MATCH_KEEP,
        MATCH_WINDOW,
        best_play_index,
        dead_values,
        decision_value,
    )

    rng = random.Random(9)
    checked = 0
    while checked < 300:
        ctx = _context(rng)
        if ctx is None or (ctx.is_money and ctx.cube_cap == 0 and ctx.cube <= 1024):
            continue                   # money without a cap: Janowski, tested elsewhere
        n = rng.randint(2, 30)
        probs = np.array([_probs(rng) for _ in range(n)])
        lives = np.array([rng.choice([0.68, 0.6, 0.65]) for _ in range(n)])
        dead = dead_values(probs, ctx)
        order = np.argsort(dead, kind="stable")
        keep = order[dead[order] <= dead[order[0]] + MATCH_WINDOW][:MATCH_KEEP]
        want, best_value = int(keep[0]), np.inf
        if keep.shape[0] > 1:
            for i in sorted(int(k) for k in keep):
                v = decision_value(decide(tuple(float(x) for x in probs[i]),  # type: ignore[arg-type]
                                          replace(ctx, cube_life=float(lives[i]))))
                if v < best_value - 1e-12:
                    want, best_value = i, v
        assert best_play_index(probs, lives, ctx) == want
        checked += 1
