"""Cube-aware checker play: which candidate play leaves the opponent worst off.

After my play the opponent is on roll, before rolling, with the cube where it is. Each
candidate is worth what the opponent can expect there with its right cube action (double,
or not; my take or pass), which :func:`gbot.cube.decision.decide` gives for one position.
:func:`best_play_index` does the same for all candidates of one roll at once:

* money play without a cube cap: Janowski's closed forms (as in
  :mod:`gbot.cube.cubeful`) and the decision rules of :mod:`gbot.cube.decision`, vectorised
  with numpy over the candidates (:func:`money_values`);
* otherwise (matches, capped cubes): the cube model one candidate at a time, on the few
  candidates whose dead-cube value (:func:`dead_values`, no more cube action) is close to the
  best one's.

The probabilities are the opponent's cubeless ``(win, win_g, win_bg, lose_g, lose_bg)`` as the
side on roll of each position after my play; values are from the opponent's side (money
equity per unit of the current cube, or its match-winning chance).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from gbot.cube.cubeful import (
    BEAROFF_LIFE,
    CONTACT_LIFE,
    CRASHED_LIFE,
    END_MULTIPLIERS,
    MAX_CUBE,
    RACE_LIFE_BASE,
    RACE_LIFE_MAX,
    RACE_LIFE_MIN,
    RACE_LIFE_PER_PIP,
    CubeContext,
    CubefulEquities,
    Owner,
    Probs,
    _cubeful_model_many,
    _Model,
    check_probs,
)
from gbot.cube.decision import CubeDecision, decide_from_equities

__all__ = ["MATCH_KEEP", "MATCH_WINDOW", "best_play_index", "cube_lives", "dead_values",
           "decision_value", "money_values"]

Array = npt.NDArray[np.float64]

MATCH_WINDOW = 0.05
"""Match play: candidates whose dead-cube match-winning chance is within this of the best
candidate's get the full cube model."""
MATCH_KEEP = 8
"""Match play: at most this many candidates get the full cube model."""


def decision_value(d: CubeDecision) -> float:
    """What the side on roll gets with the right cube action of ``d``: money equity per unit
    of the current cube, or in a match its match-winning chance."""
    if d.mwc is None:
        return float(d.equity)
    nd, dt, dp = d.mwc
    if not d.doubles:
        return float(nd)
    return float(dp if d.response == "pass" else dt)


def cube_lives(boards: npt.ArrayLike) -> Array:
    """gnubg's cube life of each board ``int8[n, 26]`` seen by its side on roll (the figures of
    :func:`gbot.cube.decision.board_cube_life`, for many boards at once)."""
    from gbot.core import facts

    b = np.ascontiguousarray(boards, dtype=np.int8).reshape(-1, 26)
    out: Array = np.empty(b.shape[0], dtype=np.float64)
    facts.cube_lives(b, _LIVES, out)
    return out


_LIVES = np.array([CONTACT_LIFE, CRASHED_LIFE, BEAROFF_LIFE, RACE_LIFE_BASE, RACE_LIFE_PER_PIP,
                   RACE_LIFE_MIN, RACE_LIFE_MAX], dtype=np.float64)


def _columns(probs: npt.ArrayLike) -> tuple[Array, Array, Array, Array, Array]:
    """The five columns, clipped as :func:`gbot.cube.cubeful.check_probs` clips them."""
    p = np.asarray(probs, dtype=np.float64).reshape(-1, 5)
    win = np.clip(p[:, 0], 0.0, 1.0)
    wg = np.minimum(np.clip(p[:, 1], 0.0, 1.0), win)
    lg = np.minimum(np.clip(p[:, 3], 0.0, 1.0), 1.0 - win)
    wbg = np.minimum(np.clip(p[:, 2], 0.0, 1.0), wg)
    lbg = np.minimum(np.clip(p[:, 4], 0.0, 1.0), lg)
    return win, wg, wbg, lg, lbg


def _fast_money(ctx: CubeContext) -> bool:
    """Whether :func:`gbot.cube.cubeful.cubeful` uses Janowski's closed forms for ``ctx``."""
    return ctx.is_money and ctx.max_cube >= MAX_CUBE and ctx.cube <= 2**10


def money_values(probs: npt.ArrayLike, lives: npt.ArrayLike, ctx: CubeContext) -> Array:
    """Money equity (per unit of the current cube) of the right cube action for the side on
    roll, one per row of ``probs`` ``[n, 5]`` with cube life ``lives[i]``.

    The same figures as ``decide(probs[i], replace(ctx, cube_life=lives[i])).equity``, for
    contexts where that uses Janowski's closed forms (money play without a cube cap).
    """
    if not _fast_money(ctx):
        raise ValueError(f"money_values needs money play without a cube cap, got {ctx!r}")
    rows = np.asarray(probs, dtype=np.float64).reshape(-1, 5)
    x = np.broadcast_to(np.asarray(lives, dtype=np.float64), (rows.shape[0],)).tolist()
    mult = END_MULTIPLIERS[ctx.end_mode]
    jacoby = ctx.jacoby and ctx.owner == Owner.CENTRE
    owner = int(ctx.owner)
    can = ctx.can_double()
    beavers = ctx.beavers
    out = [_money_value(row, xi, mult, jacoby, owner, can, beavers)
           for row, xi in zip(rows.tolist(), x, strict=True)]
    return np.array(out, dtype=np.float64)


def _money_value(row: list[float], x: float, mult: tuple[int, int, int], jacoby: bool,
                 owner: int, can: bool, beavers: bool) -> float:
    """One row of :func:`money_values`: Janowski's no-double, double/take and double/pass
    equities and the decision rules of :func:`gbot.cube.decision.decide_from_equities`."""
    win = min(max(row[0], 0.0), 1.0)
    wg = min(min(max(row[1], 0.0), 1.0), win)
    lg = min(min(max(row[3], 0.0), 1.0), 1.0 - win)
    wbg = min(min(max(row[2], 0.0), 1.0), wg)
    lbg = min(min(max(row[4], 0.0), 1.0), lg)
    lose = 1.0 - win
    m0, m1, m2 = mult
    big_w = ((win - wg) * m0 + (wg - wbg) * m1 + wbg * m2) / win if win > 1e-12 else float(m0)
    big_l = (((lose - lg) * m0 + (lg - lbg) * m1 + lbg * m2) / lose if lose > 1e-12
             else float(m0))
    tp = (big_l - 0.5) / (big_w + big_l + 0.5)
    cp = (big_l + 1.0) / (big_w + big_l + 0.5)
    dead = win * big_w - lose * big_l

    def below_tp(y0: float) -> float:
        return y0 + (-1.0 - y0) * win / tp if tp > 0 else -1.0

    if owner == Owner.CENTRE:
        lo = -1.0 if jacoby else -big_l
        hi = 1.0 if jacoby else big_w
        if win < tp:
            live = below_tp(lo)
        elif win < cp:
            live = -1.0 + 2.0 * (win - tp) / (cp - tp)
        else:
            live = 1.0 + (hi - 1.0) * (win - cp) / (1.0 - cp) if cp < 1 else 1.0
        nd = x * live + (1.0 - x) * ((2.0 * win - 1.0) if jacoby else dead)
    elif owner == Owner.ME:
        if win < cp:
            live = -big_l + (1.0 + big_l) * win / cp
        else:
            live = 1.0 + (big_w - 1.0) * (win - cp) / (1.0 - cp) if cp < 1 else 1.0
        nd = x * live + (1.0 - x) * dead
    else:
        live = below_tp(-big_l) if win < tp else -1.0 + (big_w + 1.0) * (win - tp) / (1.0 - tp)
        nd = x * live + (1.0 - x) * dead
    if not can:
        return nd
    un = below_tp(-big_l) if win < tp else -1.0 + (big_w + 1.0) * (win - tp) / (1.0 - tp)
    dt = 2.0 * (x * un + (1.0 - x) * dead)
    if dt > 1.0:                                   # the double would be passed
        return nd if (nd > 1.0 + 1e-9 and wg > 0.0) else 1.0
    got = 2.0 * dt if (beavers and dt < 0.0) else dt
    return got if got > nd else nd


def dead_values(probs: npt.ArrayLike, ctx: CubeContext) -> Array:
    """Value for the side on roll of each row of ``probs`` with the cube left where it is
    (no more cube action): money points per unit cube, or the match-winning chance."""
    from gbot.core.cubemodel import dead_values_rows

    p = np.ascontiguousarray(probs, dtype=np.float64).reshape(-1, 5)
    m = _Model((0.5, 0.0, 0.0, 0.0, 0.0), ctx)
    c = ctx.cube
    mult = END_MULTIPLIERS[ctx.end_mode]
    single = ctx.is_money and ctx.jacoby and ctx.owner == Owner.CENTRE
    k1, k2, k3 = (1, 1, 1) if single else mult
    values = np.array([m.value(k1 * c), m.value(k2 * c), m.value(k3 * c), m.value(-k1 * c),
                       m.value(-k2 * c), m.value(-k3 * c)], dtype=np.float64)
    out: Array = np.empty(p.shape[0], dtype=np.float64)
    # the columns clipped as _columns clips them, the same sums (gbot.core.cubemodel)
    dead_values_rows(p, values, float(c) if ctx.is_money else 1.0, out)
    return out


def best_play_index(probs: npt.ArrayLike, lives: npt.ArrayLike, ctx: CubeContext) -> int:
    """The candidate that leaves the side on roll (the opponent after my play) the least.

    ``probs`` ``[n, 5]`` are the opponent's cubeless probabilities after each candidate,
    ``lives`` their cube lives and ``ctx`` the cube situation seen by the opponent. Ties go to
    the first candidate.
    """
    p = np.asarray(probs, dtype=np.float64).reshape(-1, 5)
    life = np.broadcast_to(np.asarray(lives, dtype=np.float64), (p.shape[0],))
    if p.shape[0] <= 1:
        return 0
    if _fast_money(ctx):
        return int(np.argmin(money_values(p, life, ctx)))
    dead = dead_values(p, ctx)
    order = np.argsort(dead, kind="stable")
    keep = order[dead[order] <= dead[order[0]] + MATCH_WINDOW][:MATCH_KEEP]
    if keep.shape[0] == 1:
        return int(keep[0])
    contexts: dict[float, CubeContext] = {}
    best, best_value = int(keep[0]), np.inf
    kept = sorted(int(k) for k in keep)
    rows = [check_probs((float(p[i, 0]), float(p[i, 1]), float(p[i, 2]), float(p[i, 3]),
                         float(p[i, 4]))) for i in kept]
    lives_kept = [float(life[i]) for i in kept]
    # decide() of each row, the cube model run for all of them in one call
    for i, row, x, e in zip(kept, rows, lives_kept,
                            _cubeful_model_many(rows, lives_kept, ctx), strict=True):
        v = _match_value(e, row)
        if v is None:
            cx = contexts.get(x)
            if cx is None:
                cx = contexts[x] = _with_life(ctx, x)
            v = decision_value(decide_from_equities(e, cx, row))
        if v < best_value - 1e-12:
            best, best_value = i, v
    return best


def _match_value(e: CubefulEquities, probs: Probs) -> float | None:
    """``decision_value(decide_from_equities(e, ctx, probs))`` for a match context, without
    building the decision (None where that would not be a match decision)."""
    if e.nd_mwc != e.nd_mwc:          # money figures: no winning chances
        return None
    if not e.can_double:
        return float(e.nd_mwc)
    nd, dt, dp = e.nd, e.dt, e.dp
    too_good = nd > dp + 1e-9 and probs[1] > 0.0
    if dt > dp:                       # pass
        return float(e.nd_mwc) if too_good else float(e.dp_mwc)
    return float(e.dt_mwc) if dt > nd else float(e.nd_mwc)


def _with_life(ctx: CubeContext, x: float) -> CubeContext:
    from dataclasses import replace

    return replace(ctx, cube_life=x)


_KERNEL_PARAMS: dict[CubeContext, tuple[Any, ...]] = {}


def kernel_params(ctx: CubeContext) -> tuple[Any, ...]:
    """What :func:`gbot.core.answer.match_play` takes after the network and table arrays to
    rank plays as :func:`best_play_index` does for the opponent's cube situation ``ctx``
    (match play): cube lives, end multipliers, outcome table, aways, cube, owner, top cube,
    2-away 2-away rule, whether the opponent may double, dead-cube outcome values, its match
    chances after winning and losing the cube, the window and the number kept."""
    hit = _KERNEL_PARAMS.get(ctx)
    if hit is not None:
        return hit
    from gbot.cube.cubeful import _MULTS, _outcome_table

    m = _Model((0.5, 0.0, 0.0, 0.0, 0.0), ctx)
    c = ctx.cube
    k1, k2, k3 = END_MULTIPLIERS[ctx.end_mode]
    outcomes = np.array([m.value(k1 * c), m.value(k2 * c), m.value(k3 * c), m.value(-k1 * c),
                         m.value(-k2 * c), m.value(-k3 * c)], dtype=np.float64)
    table = _outcome_table(ctx)
    win = float(table[ctx.away - c, ctx.opp_away]) if ctx.away > c else 1.0
    lose = float(table[ctx.away, ctx.opp_away - c]) if ctx.opp_away > c else 0.0
    params = (_LIVES, _MULTS[ctx.end_mode], table, ctx.away, ctx.opp_away, c, int(ctx.owner),
              _Model.top_cube(ctx), ctx.away == 2 and ctx.opp_away == 2, ctx.can_double(),
              outcomes, win, lose, MATCH_WINDOW, MATCH_KEEP)
    if len(_KERNEL_PARAMS) > 4096:
        _KERNEL_PARAMS.clear()
    _KERNEL_PARAMS[ctx] = params
    return params
