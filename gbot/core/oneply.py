"""1- and 2-ply play choice in one kernel call, for the rollout's checker play at 1 and 2 plies.

The rule is the unpruned evaluator's (:mod:`gbot.eval.evaluator`,
``Evaluator(prune=False).best_play(ply=1)`` and ``ply=2``; these kernels value every reply with
the full networks, where the shipped evaluator prunes its inner reply choices): every play
of the roll is scored at 0-ply (:func:`gbot.core.bestplay.best_static`);
the first move filter of :data:`gbot.eval.evaluator.DEFAULT_FILTERS` (``keep``, ``window``)
keeps at most ``keep`` plays within ``window`` equity of the best; when more than one
survives, each survivor's result is valued at 1-ply (:func:`reply_average`: the mean over the
opponent's 21 rolls of its 0-ply best reply; a roll with no play passes the turn). At 2-ply
the second filter (``keep2``, ``window2``) then cuts the survivors by their 1-ply equities,
and when more than one is left each is valued at 2-ply (:func:`two_ply_average`: over the
opponent's 21 rolls its 0-ply best reply, then the 1-ply value of that). The best equity of
the deepest stage reached wins (the first play on ties); a stage with one survivor ends the
search at once.

:class:`Scratch` is one set of work arrays for these kernels (:func:`scratch` makes it);
:func:`best_of` and :func:`value_of` are the calls into :mod:`gbot.core.bestplay` the
rollout and these searches share.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from gbot.core.arrays import F32, F64, I8, I64, Bools, nonliteral, read_only
from gbot.core.bestplay import TOO_MANY, Nets, PlayWork, best_static, static_values
from gbot.core.expand import ROLL_WEIGHTS, ROLLS, equity, invert_into, over_probabilities
from gbot.core.jit import jit
from gbot.core.movegen import MAX_STEPS

__all__ = ["TOO_MANY", "Nets", "Scratch", "best_deeper", "best_of", "mover_after",
           "reply_average", "result_of", "scratch", "survivors", "two_ply_average", "value_of"]


class Scratch(NamedTuple):
    """Work arrays for one level of search: the 0-ply best play's (``play``, as
    :func:`gbot.core.bestplay.best_static` takes them), one board's value (``one`` ...
    ``one_v``), and the searches' own."""

    play: PlayWork
    one: I8
    one_p: F64
    one_k: I8
    one_r: I8
    one_v: F32
    nxt: I8
    mine: F64
    after: I8
    deep: F64
    flip: F64
    top: F64
    taken: Bools
    order: I64
    order2: I64
    eq1: F64


@jit
def scratch(cap: int, table_size: int) -> Scratch:
    """A :class:`Scratch` for positions of up to ``cap`` plays and a move-generator hash
    table of ``table_size`` slots."""
    play = PlayWork(np.empty((cap, 26), dtype=np.int8), np.empty((cap, 5), dtype=np.float64),
                    np.empty(cap, dtype=np.int8), np.empty(2, dtype=np.int64),
                    np.empty((cap, 5), dtype=np.float64), np.empty(cap, dtype=np.float64),
                    np.empty((cap, 26), dtype=np.int8), np.empty((cap, 5), dtype=np.float32),
                    np.zeros((cap, 26), dtype=np.int8),
                    np.zeros((cap, 2 * MAX_STEPS), dtype=np.int8),
                    np.zeros(table_size, dtype=np.int32), np.zeros(cap, dtype=np.int64),
                    np.zeros(4, dtype=np.int64), np.zeros(2 * MAX_STEPS, dtype=np.int8),
                    np.zeros(26, dtype=np.int8), np.zeros(2, dtype=np.int64))
    return Scratch(play, np.empty((1, 26), dtype=np.int8), np.empty((1, 5), dtype=np.float64),
                   np.empty(1, dtype=np.int8), np.empty((1, 26), dtype=np.int8),
                   np.empty((1, 5), dtype=np.float32), np.empty(26, dtype=np.int8),
                   np.empty(5, dtype=np.float64), np.empty(26, dtype=np.int8),
                   np.empty(5, dtype=np.float64), np.empty(5, dtype=np.float64),
                   np.empty(5, dtype=np.float64), np.empty(cap, dtype=np.bool_),
                   np.empty(cap, dtype=np.int64), np.empty(cap, dtype=np.int64),
                   np.empty(cap, dtype=np.float64))


@jit
def best_of(board: I8, d1: int, d2: int, caucasian: bool, s: Scratch, keys: I64,
            net: Nets) -> int:
    """:func:`gbot.core.bestplay.best_static` of ``board`` with ``d1``-``d2`` on ``s``
    (exact bear-offs): ``s.play.res`` = (number of plays, index of the best). Returns its
    code."""
    return int(best_static(read_only(board), d1, d2, caucasian, nonliteral(True), s.play, keys,
                           net))


@jit
def value_of(board: I8, s: Scratch, net: Nets, out: F64) -> None:
    """``out``: the 0-ply probabilities of ``board`` for its side to move (ended games
    exact, bear-offs from the tables)."""
    s.one[0] = board
    static_values(s.one, nonliteral(True), s.one_p, s.one_k, s.play.counts, s.one_r, s.one_v,
                  net.esc, net.class_net, net.w1m, net.b1, net.w2t, net.b2, net.activation,
                  net.dist, net.gdist, net.two, net.binom)
    for c in range(5):
        out[c] = s.one_p[0, c]


@jit
def result_of(board: I8, s: Scratch, nxt: I8) -> None:
    """``nxt``: the result (opponent to move) of the 0-ply best play :func:`best_of` just
    found for ``board``; the board passed over when no play was legal."""
    p = s.play
    n = p.res[0]
    if n >= 2:
        for i in range(26):
            nxt[i] = p.children[p.res[1], i]
    elif n == 1:
        for i in range(26):
            nxt[i] = -p.out[0, 25 - i]
    else:
        for i in range(26):
            nxt[i] = -board[25 - i]


@jit
def mover_after(board: I8, s: Scratch, net: Nets, nxt: I8, mine: F64) -> None:
    """:func:`result_of` into ``nxt`` and ``mine``: the mover's 0-ply probabilities after
    that play."""
    result_of(read_only(board), s, nxt)
    p = s.play
    if p.res[0] >= 2:
        for c in range(5):
            mine[c] = p.mover[p.res[1], c]
        return
    value_of(nxt, s, net, s.flip)
    invert_into(s.flip, mine)


@jit
def _average_start(child: I8, out: F64) -> bool:
    """True when ``child``'s game is over (``out``: its exact probabilities); otherwise
    ``out`` is zeroed for a roll-weighted sum and False."""
    if over_probabilities(child, out):
        return True
    for c in range(5):
        out[c] = 0.0
    return False


@jit
def _reply_found(child: I8, r: int, caucasian: bool, s: Scratch, keys: I64, net: Nets) -> bool:
    """:func:`best_of` of ``child`` with roll ``r`` of :data:`ROLLS`; False when it failed."""
    return best_of(read_only(child), int(ROLLS[r, 0]), int(ROLLS[r, 1]), caucasian, s, keys,
                   net) == 0


@jit
def _add_weighted(out: F64, r: int, value: F64) -> None:
    """``out += weight of roll r * value``."""
    w = ROLL_WEIGHTS[r]
    for c in range(5):
        out[c] += w * value[c]


@jit
def reply_average(child: I8, caucasian: bool, s: Scratch, keys: I64, net: Nets,
                  out: F64) -> int:
    """``out``: the 1-ply probabilities of ``child`` for its side to move (about to roll):
    exact when the game is over, else the roll-weighted mean of the side to move's figures
    after its 0-ply best play of each roll. ``child`` must not be one of ``s``'s arrays
    other than ``s.after``. Returns 0 or :data:`TOO_MANY`."""
    if _average_start(child, out):
        return 0
    for r in range(ROLLS.shape[0]):
        if not _reply_found(child, r, caucasian, s, keys, net):
            return TOO_MANY
        mover_after(child, s, net, s.nxt, s.mine)
        _add_weighted(out, r, s.mine)
    return 0


@jit
def two_ply_average(child: I8, caucasian: bool, s: Scratch, keys: I64, net: Nets,
                    out: F64) -> int:
    """``out``: the 2-ply probabilities of ``child`` for its side to move (about to roll):
    exact when the game is over, else the roll-weighted mean, from its side, of the 1-ply
    value (:func:`reply_average`) of the result of its 0-ply best play of each roll.
    ``child`` must not be one of ``s``'s arrays. Returns 0 or :data:`TOO_MANY`."""
    if _average_start(child, out):
        return 0
    for r in range(ROLLS.shape[0]):
        if not _reply_found(child, r, caucasian, s, keys, net):
            return TOO_MANY
        result_of(read_only(child), s, s.after)
        if reply_average(s.after, caucasian, s, keys, net, s.deep) != 0:
            return TOO_MANY
        invert_into(s.deep, s.flip)
        _add_weighted(out, r, s.flip)
    return 0


@jit
def survivors(n: int, eqs: F64, keep: int, window: float, taken: Bools,
              order: I64) -> int:
    """A move filter: ``order[:m]`` gets the indices of the (at most ``keep``) highest of
    ``eqs[:n]`` within ``window`` of the highest, highest first (the first on ties);
    returns ``m``."""
    for i in range(n):
        taken[i] = False
    m = 0
    bound = 0.0
    for _ in range(keep):
        pick = -1
        pick_e = -1e300
        for i in range(n):
            if not taken[i] and eqs[i] > pick_e:
                pick_e = eqs[i]
                pick = i
        if pick < 0 or (m > 0 and pick_e < bound):
            break
        if m == 0:
            bound = pick_e - window
        taken[pick] = True
        order[m] = pick
        m += 1
    return m


@jit
def best_deeper(ply: int, n: int, root: Scratch, keep: int, window: float, keep2: int,
                window2: float, caucasian: bool, s: Scratch, keys: I64, net: Nets) -> int:
    """The index of the ``ply``-ply (1 or 2) best of the ``n`` plays :func:`best_of` left in
    ``root`` (their flipped results in ``root.play.children``, 0-ply mover equities in
    ``root.play.eqs``); ``s`` is the deeper levels' scratch. Returns :data:`TOO_MANY` when a
    reply has too many plays."""
    order = root.order
    m = survivors(n, root.play.eqs, keep, window, root.taken, order)
    if m < 2:
        return int(order[0])
    e1 = root.eq1
    for j in range(m):
        if reply_average(root.play.children[order[j]], caucasian, s, keys, net, s.top) != 0:
            return TOO_MANY
        invert_into(s.top, s.flip)
        e1[j] = equity(s.flip)
    if ply >= 2:
        order2 = root.order2
        m2 = survivors(m, e1, keep2, window2, root.taken, order2)
        if m2 >= 2:
            best = -1
            best_e = -1e300
            for j2 in range(m2):
                idx = int(order[order2[j2]])
                if two_ply_average(root.play.children[idx], caucasian, s, keys, net, s.top) != 0:
                    return TOO_MANY
                invert_into(s.top, s.flip)
                e = equity(s.flip)
                if e > best_e or (e == best_e and idx < best):
                    best_e = e
                    best = idx
            return best
    best = -1
    best_e = -1e300
    for j in range(m):
        idx = int(order[j])
        if e1[j] > best_e or (e1[j] == best_e and idx < best):
            best_e = e1[j]
            best = idx
    return best
