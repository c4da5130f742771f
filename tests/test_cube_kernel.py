"""The cube model's kernel (:mod:`gbot.core.cubemodel`) against the Python model (the oracle).

:func:`gbot.cube.cubeful._cubeful_model` must give exactly the figures of
``_cubeful_model_py``, the level-by-level construction in Python (same floats, same errors),
for money and match contexts of every kind: cube owners and values, caps, end modes, Jacoby,
the Crawford game and after, 2-away 2-away, cube lives, and degenerate probabilities.
"""

from __future__ import annotations

import random

import pytest

from gbot.cube.cubeful import (
    CubeContext,
    Owner,
    Probs,
    _cubeful_model,
    _cubeful_model_py,
    check_probs,
)
from gbot.errors import GbotError


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
        return CubeContext(
            match_length=length, away=away, opp_away=opp_away, cube=cube, owner=owner,
            crawford=crawford, cube_enabled=rng.random() > 0.1,
            cube_cap=rng.choice([0, 0, 2, 4, 8, 64]),
            end_mode=rng.choice(["backgammons", "gammons", "single"]),
            jacoby=length == 0 and rng.random() < 0.4,
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
        assert _outcome(_cubeful_model, probs, ctx) == _outcome(_cubeful_model_py, probs, ctx)
        checked += 1
