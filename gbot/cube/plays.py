"""Cube-aware checker play: which candidate play leaves the opponent worst off.

After my play the opponent is on roll, before rolling, with the cube where it is. Each
candidate is worth what the opponent can expect there with its right cube action (double,
or not; my take or pass), which :func:`gbot.cube.decision.decide` gives for one position.
:func:`best_play_index` does the same for all candidates of one roll at once:

* money play without a cube cap: Janowski's closed forms and the decision rule of
  :mod:`gbot.core.cubemath`, all candidates in one kernel call
  (:func:`gbot.cube.cubeful.money_values`);
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

from gbot.core import cubemath as _core
from gbot.cube.cubeful import (
    CubeContext,
    CubefulEquities,
    Probs,
    check_probs,
    cube_lives,
    cube_mwcs,
    cubeful_many,
    jacoby_applies,
    janowski_applies,
    kernel_situation,
    money_values,
    multipliers,
    outcome_value,
    with_cube_life,
)
from gbot.cube.decision import CubeDecision, decide_from_equities

__all__ = ["MATCH_KEEP", "MATCH_WINDOW", "best_play_index", "cube_lives", "dead_values",
           "decision_value", "kernel_params", "money_values", "outcome_values"]

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
    return float(_core.pick(_core.ACTIONS.index(d.action), _core.RESPONSES.index(d.response),
                            nd, dt, dp))


def dead_values(probs: npt.ArrayLike, ctx: CubeContext) -> Array:
    """Value for the side on roll of each row of ``probs`` with the cube left where it is
    (no more cube action): money points per unit cube, or the match-winning chance."""
    p = np.ascontiguousarray(probs, dtype=np.float64).reshape(-1, 5)
    out: Array = np.empty(p.shape[0], dtype=np.float64)
    _core.dead_values_rows(p, outcome_values(ctx, jacoby_applies(ctx)),
                           float(ctx.cube) if ctx.is_money else 1.0, out)
    return out


def outcome_values(ctx: CubeContext, single: bool = False) -> Array:
    """The six values :func:`gbot.core.cubemath.dead_values_rows` weighs: winning a single
    game, a gammon and a backgammon with the current cube, then losing them (``single``: all
    count single, the Jacoby rule)."""
    c = ctx.cube
    k1, k2, k3 = (1, 1, 1) if single else _core.END_MULTIPLIERS[ctx.end_mode]
    return np.array([outcome_value(ctx, k1 * c), outcome_value(ctx, k2 * c),
                     outcome_value(ctx, k3 * c), outcome_value(ctx, -k1 * c),
                     outcome_value(ctx, -k2 * c), outcome_value(ctx, -k3 * c)],
                    dtype=np.float64)


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
    if janowski_applies(ctx):
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
                            cubeful_many(rows, lives_kept, ctx), strict=True):
        v = _match_value(e, row)
        if v is None:
            cx = contexts.get(x)
            if cx is None:
                cx = contexts[x] = with_cube_life(ctx, x)
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
    action = _core.action_of(e.nd, e.dt, e.dp, probs[1], False)
    return float(_core.pick(action, _core.response_of(e.dt, e.dp, False), e.nd_mwc, e.dt_mwc,
                            e.dp_mwc))


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
    money, away, opp_away, table, c, owner, top, _, dead_nd = kernel_situation(ctx)
    win, lose = cube_mwcs(ctx)
    params = (_core.LIVES, multipliers(ctx.end_mode), table, away, opp_away, c, owner, top,
              dead_nd, ctx.can_double(), outcome_values(ctx), win, lose, MATCH_WINDOW,
              MATCH_KEEP)
    if len(_KERNEL_PARAMS) > 4096:
        _KERNEL_PARAMS.clear()
    _KERNEL_PARAMS[ctx] = params
    return params
