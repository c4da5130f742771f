"""The compiled cube core (:mod:`gbot.core.cubemath`) against the pure-Python reference.

``tests/oracle/cubemodel.py`` is the model written out step by step; the core must give the
same figures on random contexts of every kind (money and match, capped cubes, Jacoby, beavers,
every end mode, every cube owner), and its Janowski closed forms must be the level model's
limit for a cube that never dies. Also: the decision rule as its definition states it, the
clipping as :func:`gbot.cube.cubeful.check_probs` documents it, and cube lives by class.
"""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from gbot.core import cubemath as core
from gbot.cube.cubeful import (
    CubeContext,
    Owner,
    Probs,
    check_probs,
    cube_life,
    cubeful,
    cubeful_many,
    cubeless_mwc,
    janowski_applies,
)
from gbot.cube.decision import decide
from gbot.cube.plays import money_values
from gbot.errors import CubeError, GbotError
from gbot.game.match import Rules
from tests.oracle.cubemodel import Model, at, cubeful_model

END_MODES = ("backgammons", "gammons", "single")


def _probs(rng: random.Random) -> Probs:
    win = rng.choice([rng.uniform(0, 1), rng.uniform(0.4, 0.95), 0.0, 1.0, 1e-13])
    wg = win * rng.choice([0.0, rng.uniform(0, 0.6), 1.0])
    wbg = wg * rng.choice([0.0, rng.uniform(0, 0.3)])
    lg = (1 - win) * rng.choice([0.0, rng.uniform(0, 0.6), 1.0])
    lbg = lg * rng.choice([0.0, rng.uniform(0, 0.3)])
    return check_probs((win, wg, wbg, lg, lbg))


def _context(rng: random.Random, money: bool) -> CubeContext | None:
    owner = rng.choice(list(Owner))
    life = rng.choice([0.68, 0.6, 0.0, 1.0, rng.random()])
    mode = rng.choice(END_MODES)
    try:
        if money:
            return CubeContext(cube=rng.choice([1, 2, 4, 64, 1024]), owner=owner, cube_life=life,
                               rules=Rules(cube_cap=rng.choice([0, 0, 4, 16, 64]), end_mode=mode,
                                           jacoby=rng.random() < 0.5, beavers=rng.random() < 0.5,
                                           raccoons=rng.random() < 0.5,
                                           cube_enabled=rng.random() > 0.05))
        length = rng.choice([1, 2, 3, 5, 7, 11, 17, 25])
        away, opp_away = rng.randint(1, length), rng.randint(1, length)
        crawford = 1 in (away, opp_away) and rng.random() < 0.3
        cube = 1 if owner == Owner.CENTRE or crawford else rng.choice([2, 4, 8])
        return CubeContext(match_length=length, away=away, opp_away=opp_away, cube=cube,
                           owner=Owner.CENTRE if crawford else owner, crawford=crawford,
                           cube_life=life,
                           rules=Rules(cube_cap=rng.choice([0, 0, 4]), end_mode=mode))
    except GbotError:
        return None


def _same(a: float, b: float) -> bool:
    return a == b or (math.isnan(a) and math.isnan(b))


@pytest.mark.parametrize("money", [True, False])
def test_level_model_is_the_oracle_on_random_contexts(money: bool) -> None:
    rng = random.Random(17 + money)
    seen = 0
    while seen < 1200:
        ctx = _context(rng, money)
        if ctx is None:
            continue
        probs = _probs(rng)
        try:
            want = repr(cubeful_model(probs, ctx))
        except CubeError as exc:
            want = str(exc)
        try:
            got = repr(cubeful_many([probs], [ctx.cube_life], ctx)[0])
        except CubeError as exc:
            got = str(exc)
        assert got == want, (probs, ctx)
        seen += 1


def test_janowski_is_the_limit_of_the_level_model() -> None:
    """Money without a cap: the closed forms are what the level model tends to as the cube
    may grow without end; gnubg's 2**15 limit accounts for all of the difference."""
    rng = random.Random(3)
    gapat_limit = 0.0
    checked = 0
    while checked < 120:
        ctx = _context(rng, True)
        if ctx is None or not janowski_applies(ctx) or ctx.cube > 4:
            continue
        probs = _probs(rng)
        closed = cubeful(probs, ctx)
        far = cubeful_model(probs, ctx, top=2**62)
        at_limit = cubeful_model(probs, ctx)
        for a, b, c in ((closed.nd, far.nd, at_limit.nd), (closed.dt, far.dt, at_limit.dt)):
            if math.isnan(a):
                assert math.isnan(b)
                continue
            assert a == pytest.approx(b, abs=1e-9)
            gapat_limit = max(gapat_limit, abs(a - c))
        checked += 1
    assert 1e-6 < gapat_limit < 0.01     # the cap's effect: real, and small


def test_janowski_hand_figures() -> None:
    """W = 1.3, L = 1.35 (gammons 2, backgammons 3): take and cash points by the formulas."""
    p = np.array([0.7, 0.2, 0.01, 0.1, 0.005])
    w, big_l, x = 1.3, 1.35, 0.68
    tp = (big_l - 0.5) / (w + big_l + 0.5)
    cp = (big_l + 1) / (w + big_l + 0.5)
    dead = 0.7 * w - 0.3 * big_l
    out = np.empty(3)
    core.janowski(p, core.MULTS["backgammons"], x, core.OWNER_CENTRE, False, out)
    assert out[0] == pytest.approx(x * (-1 + 2 * (0.7 - tp) / (cp - tp)) + (1 - x) * dead)
    assert out[1] == pytest.approx(2 * (x * (-1 + (w + 1) * (0.7 - tp) / (1 - tp))
                                        + (1 - x) * dead))
    assert out[2] == 1.0


@pytest.mark.parametrize("mode", END_MODES)
def test_money_values_are_the_decisions_equity(mode: str) -> None:
    rng = random.Random(5)
    for _ in range(60):
        ctx = CubeContext(cube=rng.choice([1, 2, 8]), owner=rng.choice(list(Owner)),
                          rules=Rules(end_mode=mode, jacoby=rng.random() < 0.5,
                                      beavers=rng.random() < 0.5))
        rows = [_probs(rng) for _ in range(8)]
        lives = [rng.choice([0.6, 0.68, 0.7]) for _ in rows]
        got = money_values(np.array(rows), np.array(lives), ctx).tolist()
        want = [decide(r, CubeContext(**{**ctx.__dict__, "cube_life": x})).equity
                for r, x in zip(rows, lives, strict=True)]
        assert got == want


def test_decision_rule_by_its_definition() -> None:
    rng = random.Random(11)
    for _ in range(3000):
        nd, dt = rng.uniform(-1.5, 2.5), rng.uniform(-1.5, 2.5)
        dp = rng.choice([1.0, rng.uniform(0.5, 1.5)])
        wg = rng.choice([0.0, 0.2])
        beavers = rng.random() < 0.5
        resp = core.response_of(dt, dp, beavers)
        assert resp == (core.PASS if dt > dp else core.BEAVER if beavers and dt < 0
                        else core.TAKE)
        a = core.action_of(nd, dt, dp, wg, beavers)
        gets = {core.PASS: dp, core.TAKE: dt, core.BEAVER: 2 * dt}[resp]
        too_good = nd > dp + core.TOO_GOOD_MARGIN and wg > 0
        # a double that would be passed is right unless the position is too good; one that
        # would be taken (or beavered) when it gains
        if (not too_good) if resp == core.PASS else gets > nd:
            assert a in (core.DOUBLE_TAKE, core.DOUBLE_PASS)
            assert core.pick(a, resp, nd, dt, dp) == gets
        else:
            assert not core.doubles(a)
            assert core.pick(a, resp, nd, dt, dp) == nd
        if too_good and not core.doubles(a):
            assert a in (core.TOO_GOOD_TAKE, core.TOO_GOOD_PASS)


def test_clipping_and_refusal() -> None:
    assert check_probs((1.0000001, 0.5, 0.0, 0.0, 0.0)) == (1.0, 0.5, 0.0, 0.0, 0.0)
    assert check_probs((0.5, 0.5000004, 0.0, 0.1, -1e-7)) == (0.5, 0.5, 0.0, 0.1, 0.0)
    for bad in ((0.5, 0.6, 0.0, 0.0, 0.0), (0.5, 0.1, 0.2, 0.0, 0.0), (0.9, 0.0, 0.0, 0.2, 0.0),
                (float("nan"),) * 5, (0.5, 0.1)):
        with pytest.raises(CubeError):
            check_probs(bad)  # type: ignore[arg-type]


def test_cube_lives_by_class() -> None:
    assert cube_life("contact") == cube_life("crashed") == 0.68
    assert cube_life("bearoff") == 0.6
    assert cube_life("race", 0) == 0.6 and cube_life("race", 400) == 0.7
    assert cube_life("race", 100) == pytest.approx(0.55 + 0.125)


def test_cubeless_value_is_the_oracle() -> None:
    rng = random.Random(23)
    seen = 0
    while seen < 400:
        ctx = _context(rng, rng.random() < 0.3)
        if ctx is None:
            continue
        probs = _probs(rng)
        m = Model(probs, ctx)
        assert _same(cubeless_mwc(probs, ctx), at(m.dead(ctx.cube), m.p))
        seen += 1
