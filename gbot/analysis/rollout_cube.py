"""Cubeful figures of a rollout: each trial's game replayed with the cube.

The games come from :mod:`gbot.analysis.rollout` with the board at every ply recorded. Along a game,
the side on roll considers the cube before each roll with the cube model
(:func:`gbot.cube.decide` on the board's 0-ply, or with ``cube_ply`` 1 or 2 its 1- or
2-ply, probabilities and its cube life) wherever the engine would ask the model
(:func:`gbot.engine.engine.skips_cube_model`: not below
:data:`gbot.engine.engine.NO_DOUBLE_BELOW` unless
the game is post-Crawford or the cube is dead for the opponent): a double that the
model passes ends the game for the cube's value, a take (or beaver) raises the cube and hands
it over. A finished game scores its points times the cube (single under the Jacoby rule with a
centred cube); a game that stopped early (truncation, bear-off table) is valued by the cube
model's right action there. Money values are points per unit of the starting cube; match
values are the root's match winning chance, and its normalised match equity (EMG).

Variance reduction: where the games come with the luck of each roll (cubeless equity, see
:func:`gbot.core.rollout.rollout_many`), each roll's luck times the cube it was rolled under
(per unit of the starting cube; in a match scaled to EMG alike) is subtracted from the game's
cubeful value, up to the roll before a pass ends the game. The cube a roll is played under is
settled before the roll, and the luck of a roll has mean zero over its dice, so the estimate
keeps its mean.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np
import numpy.typing as npt

from gbot.cube import CubeContext, Owner, context_from_state, decide
from gbot.cube.decision import board_cube_life
from gbot.engine.engine import skips_cube_model
from gbot.eval.evaluator import Evaluator

__all__ = ["match_chance", "opponent_state", "replay"]

F64 = npt.NDArray[np.float64]
_MULT = {"single": (1, 1, 1), "gammons": (1, 2, 2), "backgammons": (1, 2, 3)}
_SWAP = {Owner.CENTRE: Owner.CENTRE, Owner.ME: Owner.OPPONENT, Owner.OPPONENT: Owner.ME}


def opponent_state(state: Any) -> Any:
    """``state`` with the other player on roll (after a play, before the next roll)."""
    other = 1 - state.player_on_roll
    return replace(state, player_on_roll=other, player_to_act=other, dice=(0, 0),
                   double_offered=False)


@functools.lru_cache(maxsize=8192)
def _ctx(base: CubeContext, root_moves: bool, cube: int, owner_root: int,
         life: float) -> CubeContext:
    """The cube context of the side on roll: ``owner_root`` -1 centre, 0 root, 1 opponent."""
    owner = Owner.CENTRE if owner_root < 0 else (
        Owner.ME if (owner_root == 0) == root_moves else Owner.OPPONENT)
    if root_moves:
        return replace(base, cube=cube, owner=owner, cube_life=life)
    return replace(base, cube=cube, owner=owner, cube_life=life, away=base.opp_away,
                   opp_away=base.away)


def _points(r: F64, cube: int, ctx: CubeContext, owner_root: int) -> float:
    """The root's points for a finished game with result ``r`` (root's view)."""
    single = ctx.is_money and ctx.jacoby and owner_root < 0
    m = (1, 1, 1) if single else _MULT[ctx.end_mode]
    if r[0] > 0.5:
        return float(cube * (m[0] + (m[1] - m[0]) * r[1] + (m[2] - m[1]) * r[2]))
    return -float(cube * (m[0] + (m[1] - m[0]) * r[3] + (m[2] - m[1]) * r[4]))


def match_chance(base: CubeContext, pts: float) -> float:
    """The root's match winning chance after the game ends with ``pts`` for the root."""
    pc = base.crawford or base.post_crawford
    p = int(round(pts))
    if p > 0:
        return base.table.mwc(base.away - p, base.opp_away, post_crawford=pc)
    return base.table.mwc(base.away, base.opp_away + p, post_crawford=pc)


def _action_value(d: Any, cube: int, money: bool) -> float:
    """The side on roll's value of the right cube action: money points, or match chance."""
    if money:
        return float(d.equity) * cube
    nd, dt, dp = d.mwc
    if not d.doubles:
        return float(nd)
    return float(dp if d.response == "pass" else dt)


def _screen(state: Any) -> Callable[[float, int, int], bool]:
    """``skip(win, cube, mover)``: whether the engine rolls without asking the cube model
    (:func:`gbot.engine.engine.skips_cube_model`) with the cube at ``cube``; ``mover`` 0 is the
    root's side."""
    root = state.player_on_roll
    states: dict[int, Any] = {}

    def skip(win: float, cube: int, mover: int) -> bool:
        st = states.get(cube)
        if st is None:
            st = states[cube] = replace(state, cube_value=cube)
        return skips_cube_model(win, st, root if mover == 0 else 1 - root)

    return skip


def replay(trials: Any, state: Any, mode: str = "free", *, cube_ply: int = 0,
           weights: str | None = None) -> tuple[F64, F64 | None]:
    """Per-trial cubeful values for the root (the player on roll of ``state``).

    ``mode``: ``"free"`` (the root may double before its first roll), ``"nd"`` (it does not)
    or ``"dt"`` (it doubles and is taken). ``cube_ply``: the ply of the probabilities the
    cube decisions are made on (each board evaluated at that ply only where a decision needs
    it); ``weights``: the networks file (None: the shipped networks). ``trials`` holds the
    games (``out``: results as played, ``plies``, ``ends``, ``paths``) and optionally
    ``lucks``, each ply's luck (variance reduction). Returns ``(values, mwc)``: money points
    per unit of the starting cube (mwc None), or in a match the EMG per trial and the match
    winning chance per trial."""
    base = context_from_state(state, 0.68)
    money = base.is_money
    out = np.concatenate(trials.out)
    plies = np.concatenate(trials.plies)
    ends = np.concatenate(trials.ends)
    paths = np.concatenate(trials.paths)
    n = out.shape[0]
    flat = np.concatenate([paths[i, :int(plies[i]) + 1] for i in range(n)])
    ev = Evaluator(weights)
    probs = ev.evaluate(flat, 0)
    if cube_ply > 0:           # filled in as the decisions need them
        deep = np.full((flat.shape[0], 5), np.nan)
    else:
        deep = probs
    lives: dict[int, float] = {}

    def life(row: int) -> float:
        x = lives.get(row)
        if x is None:
            x = lives[row] = board_cube_life(flat[row])
        return x

    skip = _screen(state)
    starts = np.concatenate([[0], np.cumsum(plies + 1)])
    c0 = base.cube
    owner0 = -1 if base.owner == Owner.CENTRE else (0 if base.owner == Owner.ME else 1)
    vals = np.empty(n, dtype=np.float64)
    mwcs = np.empty(n, dtype=np.float64)
    # per trial: next ply to look at, cube, owner (root's view), value (None: still playing),
    # the plies from which the cube changed with the new cube, the ply a pass ended it at
    walk: list[list[Any]] = [[1 if mode != "free" else 0, c0, owner0, None, [], None]
                             for _ in range(n)]
    if mode == "dt":
        for w in walk:
            w[1], w[2] = 2 * c0, 1
    todo = list(range(n))
    while todo:
        need: list[int] = []
        waiting: list[int] = []
        for i in todo:
            w = walk[i]
            j, cube, owner = w[0], w[1], w[2]
            k = int(plies[i])
            stalled = False
            while j < k:
                root_moves = j % 2 == 0
                mover = 0 if root_moves else 1
                row = int(starts[i]) + j
                if owner >= 0 and owner != mover:
                    j += 1
                    continue
                p = deep[row]
                if math.isnan(p[0]):
                    need.append(row)
                    stalled = True
                    break
                if skip(float(p[0]), cube, mover):
                    j += 1
                    continue
                ctx = _ctx(base, root_moves, cube, owner, life(row))
                if not ctx.can_double():
                    j += 1
                    continue
                d = decide(tuple(float(x) for x in p), ctx)   # type: ignore[arg-type]
                if not d.doubles:
                    j += 1
                    continue
                if d.response == "pass":
                    pts = cube if root_moves else -cube
                    w[3] = float(pts) if money else match_chance(base, pts)
                    w[5] = j
                    j = k
                    break
                cube *= 4 if d.response == "beaver" else 2
                owner = 1 - mover
                w[4].append((j, cube))
                j += 1
            w[0], w[1], w[2] = j, cube, owner
            if stalled:
                waiting.append(i)
        if need:
            rows = np.unique(np.array(need, dtype=np.int64))
            deep[rows] = ev.evaluate(np.ascontiguousarray(flat[rows]), cube_ply)
        todo = waiting
    for i in range(n):
        _, cube, owner, value = walk[i][:4]
        k = int(plies[i])
        if value is None:
            r = out[i]
            if ends[i] == 0:
                pts_f = _points(r, cube, base, owner)
                value = pts_f if money else match_chance(base, pts_f)
            else:
                root_moves = k % 2 == 0
                mine = r if root_moves else np.array([1.0 - r[0], r[3], r[4], r[1], r[2]])
                ctx = _ctx(base, root_moves, cube, owner, life(int(starts[i]) + k))
                d = decide(tuple(float(min(max(x, 0.0), 1.0)) for x in mine),  # type: ignore[arg-type]
                           ctx)
                v = _action_value(d, cube, money)
                value = (v if root_moves else -v) if money else (v if root_moves else 1.0 - v)
        if money:
            vals[i] = value / c0
        else:
            mwcs[i] = value
    luck = None
    if getattr(trials, "lucks", None):
        luck = _cube_luck(np.concatenate(trials.lucks), plies, walk,
                          2 * c0 if mode == "dt" else c0) / c0
    if money:
        return (vals if luck is None else vals - luck), None
    win = match_chance(base, c0)
    lose = match_chance(base, -c0)
    if luck is not None:
        mwcs -= luck * (win - lose) / 2.0
    return (2.0 * mwcs - win - lose) / (win - lose), mwcs


def _cube_luck(lucks: F64, plies: npt.NDArray[np.int32], walk: list[list[Any]],
               cube0: int) -> F64:
    """Per trial, the sum over its rolls of each roll's luck (``lucks[i, ply]``) times the cube
    it was rolled under, up to the roll before a pass ended the game; ``cube0`` is the cube
    of the first roll, ``walk`` the replay's record of cube changes and passes."""
    total = np.empty(len(walk), dtype=np.float64)
    for i, w in enumerate(walk):
        end = int(plies[i]) if w[5] is None else int(w[5])
        cubes = np.full(end, float(cube0))
        for ply, cube in w[4]:
            cubes[ply:] = cube
        total[i] = float(lucks[i, :end] @ cubes)
    return total
