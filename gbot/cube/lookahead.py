"""Cubeful lookahead: cube decisions at ply 1 and deeper.

At ply 0 the cubeful equities come straight from the Janowski-style model of
:mod:`gbot.cube.cubeful`. At ``ply`` >= 1 the side on roll looks ahead roll by roll, in each cube
state it is deciding between (no double: the cube as it is; double/take: the opponent owns
twice the cube):

1. for each of the 21 rolls it plays the best result by 0-ply cubeless equity (a roll that
   cannot be played passes the turn);
2. the opponent is then on roll in that cube state and takes its own best cube action (double
   or not; take, pass or beaver), valued the same way one ply shallower; at ply 0 by the model;
3. the values are averaged over the rolls, weighted 1/36 for doubles and 2/36 otherwise.

This is the shape of gnubg's n-ply cube analysis, so ``ply=2`` looks as deep as gnubg's 2-ply.
It sees what the static model cannot: market losers after a roll, and redoubles the opponent
would make at once (a cube that is dead for the doubler but live for the taker).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from gbot.core import cubemath as _core
from gbot.core import cubetree, movegen, oneply
from gbot.core.arrays import frozen
from gbot.core.bestplay import Nets
from gbot.core.expand import ROLLS as _EXPAND_ROLLS
from gbot.cube.cubeful import (
    CubeContext,
    CubefulEquities,
    Owner,
    Probs,
    board_cube_life,
    check_probs,
    cube_lives,
    cube_mwcs,
    cube_values_raw,
    cubeful_clipped,
    janowski_applies,
    money_values,
)
from gbot.cube.met import mwc_to_equity
from gbot.errors import CubeError
from gbot.eval.evaluator import MAX_THREADS, Evaluator
from gbot.eval.protocol import EvaluatorProtocol

ROLLS = tuple((int(a), int(b)) for a, b in _EXPAND_ROLLS)
"""The 21 rolls, in the order of the evaluator's batched replies (:mod:`gbot.core.expand`)."""
WEIGHTS = np.array([1.0 if a == b else 2.0 for a, b in ROLLS]) / 36.0
_SWAP = {Owner.CENTRE: Owner.CENTRE, Owner.ME: Owner.OPPONENT, Owner.OPPONENT: Owner.ME}
_EQ = np.array([2.0, 1.0, 1.0, -1.0, -1.0])
_INVERT = [0, 3, 4, 1, 2]


def swap_context(ctx: CubeContext, owner_from_me: Owner, cube: int) -> CubeContext:
    """The context seen by the opponent, with the cube ``cube`` held as ``owner_from_me``."""
    key = (ctx, id(ctx.met), owner_from_me, cube)
    hit = _SWAPPED.get(key)
    if hit is None:
        hit = replace(ctx, away=ctx.opp_away, opp_away=ctx.away, cube=cube,
                      owner=_SWAP[owner_from_me])
        _remember(_SWAPPED, key, hit)
    return hit


def _with_life(ctx: CubeContext, life: float) -> CubeContext:
    """``replace(ctx, cube_life=life)``, kept (a search meets few distinct contexts)."""
    key = (ctx, id(ctx.met), life)
    hit = _LIVED.get(key)
    if hit is None:
        hit = replace(ctx, cube_life=life)
        _remember(_LIVED, key, hit)
    return hit


_SWAPPED: dict[tuple[Any, ...], CubeContext] = {}
_LIVED: dict[tuple[Any, ...], CubeContext] = {}


def _remember(cache: dict[tuple[Any, ...], CubeContext], key: tuple[Any, ...],
              ctx: CubeContext) -> None:
    if len(cache) > 4096:
        cache.clear()
    cache[key] = ctx


@dataclass
class Leaves:
    """Positions valued by the cube model alone (the side to move about to roll in each):
    ``probs`` ``[k, 5]`` their 0-ply probabilities, ``checked`` the same as :func:`_probs`
    clips them, ``lives`` their cube lives."""

    probs: npt.NDArray[np.float64]
    checked: npt.NDArray[np.float64]
    lives: npt.NDArray[np.float64]

    @classmethod
    def of(cls, probs: npt.NDArray[np.float64], lives: npt.ArrayLike) -> Leaves:
        """Leaves of probabilities ``probs`` ``[k, 5]`` (refused as :func:`check_probs`
        refuses) and cube lives ``lives``."""
        return cls(probs=probs, checked=_checked_rows(probs),
                   lives=np.ascontiguousarray(lives, dtype=np.float64))

    @classmethod
    def join(cls, parts: list[Leaves]) -> Leaves:
        """The leaves of ``parts`` in order, as one."""
        return cls(probs=np.concatenate([p.probs for p in parts]),
                   checked=np.concatenate([p.checked for p in parts]),
                   lives=np.concatenate([p.lives for p in parts]))


@dataclass
class Node:
    """A position (side to move about to roll) with its search below it: ``leaves``, one per
    roll, when the search ends one ply below, else ``children`` (searched nodes, one per
    roll); neither when it is valued by the cube model alone."""

    board: npt.NDArray[np.int8]
    probs: npt.NDArray[np.float64]
    life: float
    children: list[Node]
    checked: Probs | None = None
    """:func:`_probs` of ``probs``, once asked for."""
    leaves: Leaves | None = None

    @property
    def is_leaf(self) -> bool:
        """Whether the node has no search below it."""
        return self.leaves is None and not self.children


def _candidates(board: npt.NDArray[np.int8], caucasian: bool) -> list[npt.NDArray[np.int8]]:
    """For each roll, the legal results flipped to the opponent's view."""
    out = []
    for d1, d2 in ROLLS:
        res = movegen.legal_boards(board, d1, d2, caucasian)
        if res.shape[0] == 0:
            res = board.reshape(1, 26)
        out.append(np.ascontiguousarray(-res[:, ::-1], dtype=np.int8))   # each flip_py'd
    return out


_ROLLS = np.array(ROLLS, dtype=np.int64)
_ROLL_PARTS = {k: [np.ascontiguousarray(p) for p in np.array_split(_ROLLS, k)]
               for k in range(2, MAX_THREADS + 1)}
""":data:`ROLLS` in ``k`` consecutive parts, for ``k`` search threads."""
_LOCAL = threading.local()


def _kernel_nets(ev: Any) -> Nets | None:
    """The networks' and bear-off tables' arrays for :func:`gbot.core.cubetree.replies` when
    ``ev`` is a :class:`gbot.Evaluator` with exact bear-offs whose one-call kernels serve
    (they pick what ``ev.evaluate`` ranks best); None: search through ``ev.evaluate``."""
    if type(ev) is not Evaluator or ev.exact_bearoff is not True:
        return None
    return ev.kernel_arrays(tables=True)


def _kernel_replies(board: npt.NDArray[np.int8], caucasian: bool, nets: Nets,
                    ev: EvaluatorProtocol
                    ) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.float64]] | None:
    """Per roll of :data:`ROLLS` the 0-ply best result (opponent's view) and the opponent's
    probabilities there, from :func:`gbot.core.cubetree.replies` (None if it cannot); the
    rolls split between ``ev``'s search threads where it has several."""
    fixed = frozen(board)

    def part(rolls: npt.NDArray[np.int64]
             ) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.float64]] | None:
        s = getattr(_LOCAL, "scratch", None)
        if s is None:
            s = _LOCAL.scratch = oneply.scratch(movegen.CAPACITY, movegen.TABLE_SIZE)
        boards = np.empty((len(rolls), 26), dtype=np.int8)
        probs = np.empty((len(rolls), 5), dtype=np.float64)
        if cubetree.replies(fixed, caucasian, rolls, s, movegen.HASH_KEYS, nets, boards,
                            probs) != 0:
            return None
        return boards, probs

    if not isinstance(ev, Evaluator) or ev.threads < 2:
        return part(_ROLLS)
    parts = _ROLL_PARTS[min(ev.threads, MAX_THREADS)]
    got = [g for g in ev.map_threads(part, parts) if g is not None]
    if len(got) < len(parts):
        return None
    return np.concatenate([g[0] for g in got]), np.concatenate([g[1] for g in got])


def _is_over(board: npt.NDArray[np.int8]) -> bool:
    """Whether the game of ``board`` has ended (a side has no checker left)."""
    return bool(_over_rows(board.reshape(1, 26))[0])


def _pruned_replies(ev: EvaluatorProtocol, boards: npt.NDArray[np.int8], caucasian: bool
                    ) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.float64]] | None:
    """Per board of ``boards`` ``[n, 26]`` (none over) and roll of :data:`ROLLS`, the 0-ply
    best result (opponent's view, ``[n, 21, 26]``) and the opponent's probabilities there,
    the choices pruned as ``ev``'s deeper searches prune them; None where ``ev`` has no
    pruner (or is not a :class:`gbot.Evaluator` with exact bear-offs under the move rule
    ``caucasian``)."""
    if (type(ev) is not Evaluator or ev.exact_bearoff is not True or ev.pruner is None
            or ev.caucasian != caucasian):
        return None
    picked, probs = ev.best_replies(boards)
    n = boards.shape[0]
    return picked.reshape(n, len(ROLLS), 26), probs.reshape(n, len(ROLLS), 5)


def _build(board: npt.NDArray[np.int8], probs: npt.NDArray[np.float64], ply: int,
           ev: EvaluatorProtocol, caucasian: bool, life: float | None = None) -> Node:
    node = Node(board=board, probs=probs,
                 life=board_cube_life(board) if life is None else life, children=[])
    if ply == 0 or _is_over(board):
        return node
    boards, rows = _replies(board, ev, caucasian)
    lives = cube_lives(boards)
    if ply == 1:            # the children are leaves
        node.leaves = Leaves.of(rows, lives)
    elif ply == 2:
        node.children = _pruned_level(boards, rows, lives.tolist(), ev, caucasian)
    else:
        node.children = [_build(b, p, ply - 1, ev, caucasian, life)
                         for b, p, life in zip(boards, rows, lives.tolist(), strict=True)]
    _average(node)
    return node


def _replies(board: npt.NDArray[np.int8], ev: EvaluatorProtocol, caucasian: bool
             ) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.float64]]:
    """Per roll of :data:`ROLLS` the 0-ply best result of ``board`` (opponent's view) and the
    opponent's probabilities there, every play valued."""
    nets = _kernel_nets(ev)
    fast = None if nets is None else _kernel_replies(board, caucasian, nets, ev)
    if fast is not None:
        return fast
    groups = _candidates(board, caucasian)
    p0 = np.asarray(ev.evaluate(np.concatenate(groups), 0), dtype=np.float64)
    boards = np.empty((len(groups), 26), dtype=np.int8)
    rows = np.empty((len(groups), 5), dtype=np.float64)
    k = 0
    for r, g in enumerate(groups):
        n = g.shape[0]
        j = int(np.argmin(p0[k:k + n] @ _EQ))   # the opponent's equity: lowest is best
        boards[r], rows[r] = g[j], p0[k + j]
        k += n
    return boards, rows


def _pruned_level(boards: npt.NDArray[np.int8], rows: npt.NDArray[np.float64],
                  lives: list[float], ev: EvaluatorProtocol, caucasian: bool) -> list[Node]:
    """Nodes of ``boards`` (probabilities ``rows``), each searched one ply with leaves below:
    every reply of the boards whose game goes on picked in one pruned batch
    (:func:`_pruned_replies`), else one board at a time."""
    live = np.flatnonzero(~_over_rows(boards))
    batch = _pruned_replies(ev, boards[live], caucasian) if live.size else None
    if batch is None:
        return [_build(b, p, 1, ev, caucasian, life)
                for b, p, life in zip(boards, rows, lives, strict=True)]
    nodes = [Node(board=b, probs=p, life=life, children=[])
             for b, p, life in zip(boards, rows, lives, strict=True)]
    picked, probs = batch
    r = len(ROLLS)
    flat = probs.reshape(-1, 5)
    every = Leaves.of(flat, cube_lives(picked.reshape(-1, 26)))   # all the level's leaves at once
    for j, i in enumerate(live.tolist()):
        part = slice(r * j, r * j + r)
        nodes[i].leaves = Leaves(probs=flat[part], checked=every.checked[part],
                                 lives=every.lives[part])
        _average(nodes[i])
    return nodes


def _over_rows(boards: npt.NDArray[np.int8]) -> npt.NDArray[np.bool_]:
    """Whether the game of each board of ``boards`` ``[n, 26]`` has ended."""
    over: npt.NDArray[np.bool_] = ~(np.any(boards > 0, axis=1) & np.any(boards < 0, axis=1))
    return over


def _average(node: Node) -> None:
    """The node's own probabilities at its ply: its rolls' average, seen from its side."""
    kids = (node.leaves.probs if node.leaves is not None
            else np.stack([c.probs for c in node.children]))[:, _INVERT]
    kids[:, 0] = 1.0 - kids[:, 0]
    node.probs = np.asarray(WEIGHTS @ kids, dtype=np.float64)


def _probs(p: npt.NDArray[np.float64]) -> Probs:
    return check_probs((float(p[0]), float(p[1]), float(p[2]), float(p[3]), float(p[4])))


def _checked_rows(rows: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """:func:`_probs` of each row of ``rows`` ``[n, 5]`` (the same clipping, one array in and
    out; a row :func:`check_probs` refuses is refused the same way)."""
    src = np.ascontiguousarray(rows, dtype=np.float64)
    out = np.empty_like(src)
    bad = _core.clip_rows(src, out)
    if bad >= 0:
        _probs(src[bad])                      # raises CubeError as check_probs does
    return out


def _checked(node: Node) -> Probs:
    """The node's checked probabilities (computed once)."""
    if node.checked is None:
        node.checked = _probs(node.probs)
    return node.checked


def _equities(node: Node, ctx: CubeContext) -> CubefulEquities:
    """Cubeful equities of the three cube actions at ``node`` in ``ctx`` (its side on roll)."""
    ctx = _with_life(ctx, node.life)
    if node.is_leaf:
        return cubeful_clipped(_checked(node), ctx)
    if node.leaves is not None:
        return _leaf_level([node], ctx)[0]
    raw = [float(_over_rolls(_child_values(node.children, swap_context(ctx, owner, cube)), ctx))
           for owner, cube in _states(ctx)]
    return _from_values(raw[0], raw[1] if len(raw) > 1 else float("nan"), ctx)


def _states(ctx: CubeContext) -> list[tuple[Owner, int]]:
    """The cube states the side on roll chooses between (owner, value): no double, and
    double/take where it may double."""
    states = [(ctx.owner, ctx.cube)]
    if ctx.can_double():
        states.append((Owner.OPPONENT, 2 * ctx.cube))
    return states


def _over_rolls(v: npt.NDArray[np.float64], ctx: CubeContext) -> npt.NDArray[np.float64]:
    """The side on roll's value averaged over its rolls (the last axis of ``v``: the
    opponent's values after each roll)."""
    return np.asarray((-v if ctx.is_money else 1.0 - v) @ WEIGHTS)


def _leaf_raw(nodes: list[Node], ctx: CubeContext) -> list[npt.NDArray[np.float64]]:
    """Per cube state of :func:`_states` (no double; double/take where the side on roll may
    double), what each of ``nodes`` (each with leaves below it) gets in it, as
    :func:`_from_values` reads it; the leaves of all of them through the cube model in one
    call per cube state."""
    grand = nodes[0].leaves if len(nodes) == 1 else Leaves.join(
        [n.leaves for n in nodes])                                   # type: ignore[misc]
    assert grand is not None
    return [_over_rolls(leaf_values(grand, swap_context(ctx, owner, cube)).reshape(
        len(nodes), -1), ctx) for owner, cube in _states(ctx)]


def _leaf_level(nodes: list[Node], ctx: CubeContext) -> list[CubefulEquities]:
    """:func:`_equities` of ``nodes`` (each with leaves below it) in ``ctx``."""
    raw = [r.tolist() for r in _leaf_raw(nodes, ctx)]
    mwcs = None if ctx.is_money else cube_mwcs(ctx)
    nan = float("nan")
    return [_from_values(raw[0][j], raw[1][j] if len(raw) > 1 else nan, ctx, mwcs)
            for j in range(len(nodes))]


def _leaf_level_values(nodes: list[Node], ctx: CubeContext) -> npt.NDArray[np.float64]:
    """:func:`_best_value` of each of ``nodes`` (each with leaves below it) in ``ctx``:
    :func:`action_value` of :func:`_leaf_level`'s equities, for all of them at once."""
    raw = _leaf_raw(nodes, ctx)
    c = ctx.cube
    if not ctx.can_double():
        return (raw[0] / c) * c if ctx.is_money else raw[0]
    n = len(nodes)
    eqs = np.empty((n, 3), dtype=np.float64)
    values = eqs
    if ctx.is_money:
        eqs[:, 0] = raw[0] / c
        eqs[:, 1] = raw[1] / c
    else:
        win, lose = cube_mwcs(ctx)
        eqs[:, 0] = mwc_to_equity(raw[0], win, lose)
        eqs[:, 1] = mwc_to_equity(raw[1], win, lose)
        values = np.empty((n, 3), dtype=np.float64)
        values[:, 0] = raw[0]
        values[:, 1] = raw[1]
        values[:, 2] = win
    eqs[:, 2] = 1.0
    wins_g = _checked_rows(np.array([node.probs for node in nodes]))[:, 1]
    out = np.empty(n, dtype=np.float64)
    _core.pick_rows(wins_g, eqs, values, ctx.is_money and ctx.beavers, out)
    return out * c if ctx.is_money else out


def _from_values(nd: float, dt: float, ctx: CubeContext,
                 mwcs: tuple[float, float] | None = None) -> CubefulEquities:
    """The cubeful equities of the side on roll in ``ctx`` from what it gets by not doubling
    (``nd``) and by doubling, taken (``dt``; unused where it cannot double): points times the
    cube (money) or winning chances (match). ``mwcs``: :func:`cube_mwcs` of ``ctx``, where
    known."""
    can = ctx.can_double()
    nan = float("nan")
    if ctx.is_money:
        c = ctx.cube
        return CubefulEquities(nd=nd / c, dt=dt / c if can else nan, dp=1.0 if can else nan,
                               can_double=can)
    win, lose = cube_mwcs(ctx) if mwcs is None else mwcs
    dt_mwc = dt if can else nan
    return CubefulEquities(
        nd=mwc_to_equity(nd, win, lose), dt=mwc_to_equity(dt_mwc, win, lose) if can else nan,
        dp=1.0 if can else nan, nd_mwc=nd, dt_mwc=dt_mwc, dp_mwc=win if can else nan,
        can_double=can)


def leaf_values(leaves: Leaves, ctx: CubeContext) -> npt.NDArray[np.float64]:
    """:func:`_best_value` of each of ``leaves`` in ``ctx``, the cube model run for all of
    them in one call."""
    lives, rows = leaves.lives, leaves.checked
    if janowski_applies(ctx):
        return money_values(rows, lives, ctx) * ctx.cube
    raw = cube_values_raw(rows, lives, ctx)   # points (times the cube) or winning chances
    if not ctx.can_double():
        return np.ascontiguousarray(raw[:, 0])
    if ctx.is_money:                           # a capped cube: the rule reads per unit cube
        eqs = raw / ctx.cube
    else:
        win, lose = cube_mwcs(ctx)
        if win == lose:
            raise CubeError(f"cube {ctx.cube!r} decides nothing at {ctx.away!r}-away, "
                            f"{ctx.opp_away!r}-away")
        eqs = (2.0 * raw - win - lose) / (win - lose)   # mwc_to_equity of each value
    out = np.empty(rows.shape[0], dtype=np.float64)
    _core.pick_rows(np.ascontiguousarray(rows[:, 1]), eqs, raw, ctx.is_money and ctx.beavers,
                    out)
    return out


def action_value(e: CubefulEquities, probs: Probs, ctx: CubeContext) -> float:
    """Points (money) or winning chance (match) of the best cube action, from the three
    cubeful equities ``e`` of a position with checked probabilities ``probs`` in ``ctx``."""
    if not e.can_double:
        return e.nd * ctx.cube if ctx.is_money else e.nd_mwc
    beavers = ctx.is_money and ctx.beavers
    action = _core.action_of(e.nd, e.dt, e.dp, probs[1], beavers)
    response = _core.response_of(e.dt, e.dp, beavers)
    if ctx.is_money:
        return float(_core.pick(action, response, e.nd, e.dt, e.dp)) * ctx.cube
    return float(_core.pick(action, response, e.nd_mwc, e.dt_mwc, e.dp_mwc))


def _child_values(children: list[Node], ctx: CubeContext) -> npt.NDArray[np.float64]:
    """:func:`_best_value` of each of ``children`` in ``ctx``; where no child searches
    deeper than leaves, all their leaves go through the cube model in one call per cube
    state."""
    if any(c.children for c in children):
        return np.array([_best_value(child, ctx) for child in children])
    out = np.empty(len(children), dtype=np.float64)
    alone = [i for i, c in enumerate(children) if c.leaves is None]
    if alone:
        out[alone] = leaf_values(Leaves.of(np.array([children[i].probs for i in alone]),
                                           [children[i].life for i in alone]), ctx)
    inner = [i for i, c in enumerate(children) if c.leaves is not None]
    if inner:
        out[inner] = _leaf_level_values([children[i] for i in inner], ctx)
    return out


def _best_value(node: Node, ctx: CubeContext) -> float:
    """Points (money) or winning chance (match) of the best cube action at ``node``."""
    return action_value(_equities(node, ctx), _checked(node), ctx)


def lookahead_cubeful(board: npt.ArrayLike, ctx: CubeContext, evaluator: EvaluatorProtocol,
                      ply: int = 1, caucasian: bool = False) -> tuple[CubefulEquities, Probs]:
    """Cubeful no double / double-take / double-pass values by an n-ply cubeful lookahead.

    Also returns the ``ply``-ply cubeless probabilities of the side on roll.
    """
    if ply < 1:
        raise CubeError(f"lookahead needs ply >= 1, got {ply!r}")
    b = np.ascontiguousarray(board, dtype=np.int8).reshape(26)
    root = _build(b, np.zeros(5), ply, evaluator, caucasian)
    return _equities(root, ctx), _probs(root.probs)


__all__ = ["Leaves", "Node", "action_value", "leaf_values", "lookahead_cubeful", "swap_context",
           "ROLLS", "WEIGHTS"]
