"""1-ply play choice in one kernel call, for the rollout's checker play at 1-ply.

The rule is the evaluator's (:mod:`gbot.eval.evaluator`, ``Evaluator.best_play(ply=1)``):
every play of the roll is scored at 0-ply (:func:`gbot.core.bestplay.best_static`); the move
filter of the first stage (:data:`gbot.eval.evaluator.DEFAULT_FILTERS`, passed in as ``keep``
and ``window``) keeps at most ``keep`` plays within ``window`` equity of the best; when more
than one survives, each survivor's result is valued at 1-ply, the mean over the opponent's 21
rolls of its 0-ply best reply (a roll with no play passes the turn), and the best 1-ply
equity wins (first on ties). One survivor is the choice at once.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from gbot.core._jit import jit
from gbot.core.bestplay import best_static, static_values
from gbot.core.expand import ROLL_WEIGHTS, ROLLS, equity, invert_into, over_probabilities

F32 = npt.NDArray[np.float32]
F64 = npt.NDArray[np.float64]
I8 = npt.NDArray[np.int8]
I32 = npt.NDArray[np.int32]
I64 = npt.NDArray[np.int64]

TOO_MANY = -1
"""Return code: a position had more plays than the scratch arrays hold."""


@jit
def reply_average(child: I8, caucasian: bool, children: I8, probs: F64, kinds: I8,
                  counts: I64, mover: F64, eqs: F64, rows: I8, values: F32, w_out: I8,
                  w_steps: I8, table: I32, hashes: I64, state: I64, path: I8, marks: I8,
                  keys: I64, esc: I64, class_net: I64, w1m: F32, b1: F32, w2t: F32, b2: F32,
                  activation: int, dist: F32, gdist: F32, two: F32, binom: I64,
                  res: I64, one: I8, one_p: F64, one_k: I8, one_r: I8, one_v: F32,
                  nxt: I8, mine: F64, out: F64) -> int:
    """``out``: the 1-ply probabilities of ``child`` for its side to move (about to roll):
    exact when the game is over, else the roll-weighted mean of the side to move's figures
    after its 0-ply best play of each roll. The other arrays are scratch (bear-off tables
    passed). Returns 0 or :data:`TOO_MANY`."""
    if over_probabilities(child, out):
        return 0
    for c in range(5):
        out[c] = 0.0
    for r in range(ROLLS.shape[0]):
        code = best_static(child, int(ROLLS[r, 0]), int(ROLLS[r, 1]), caucasian, True,
                           children, probs, kinds, counts, mover, eqs, rows, values, w_out,
                           w_steps, table, hashes, state, path, marks, keys, esc, class_net,
                           w1m, b1, w2t, b2, activation, dist, gdist, two, binom, res)
        if code != 0:
            return TOO_MANY
        n = res[0]
        w = ROLL_WEIGHTS[r]
        if n >= 2:
            b = res[1]
            for c in range(5):
                out[c] += w * mover[b, c]
            continue
        if n == 1:
            for i in range(26):
                nxt[i] = -w_out[0, 25 - i]
        else:
            for i in range(26):
                nxt[i] = -child[25 - i]
        one[0] = nxt
        static_values(one, True, one_p, one_k, counts, one_r, one_v, esc, class_net, w1m, b1,
                      w2t, b2, activation, dist, gdist, two, binom)
        invert_into(one_p[0], mine)
        for c in range(5):
            out[c] += w * mine[c]
    return 0


@jit
def best_one_ply(n: int, best0: int, root_children: I8, root_eqs: F64, keep: int,
                 window: float, taken: npt.NDArray[np.bool_], caucasian: bool, children: I8,
                 probs: F64, kinds: I8, counts: I64, mover: F64, eqs: F64, rows: I8,
                 values: F32, w_out: I8, w_steps: I8, table: I32, hashes: I64, state: I64,
                 path: I8, marks: I8, keys: I64, esc: I64, class_net: I64, w1m: F32, b1: F32,
                 w2t: F32, b2: F32, activation: int, dist: F32, gdist: F32, two: F32,
                 binom: I64, res: I64, one: I8, one_p: F64, one_k: I8, one_r: I8,
                 one_v: F32, nxt: I8, mine: F64, child_p: F64, best_p: F64) -> int:
    """The index of the 1-ply best of ``n`` plays whose flipped results (opponent to move)
    are ``root_children[:n]`` and whose 0-ply mover equities are ``root_eqs[:n]`` (``best0``
    their 0-ply best, as :func:`gbot.core.bestplay.best_static` leaves them).

    ``best_p`` gets the mover's 1-ply probabilities of the choice when a 1-ply search ran
    (more than one survivor of the filter); the return value is then ``>= 0`` as usual, and
    ``res[0]`` is set to 1 when it ran, else 0. The other arrays are scratch, ``taken`` of
    at least ``n`` rows. Returns :data:`TOO_MANY` when a reply has too many plays."""
    for i in range(n):
        taken[i] = False
    bound = root_eqs[best0] - window
    best = best0
    best_e = -1e300
    searched = 0
    first = best0
    for _ in range(keep):
        pick = -1
        pick_e = -1e300
        for i in range(n):              # the next survivor: highest 0-ply equity, first on ties
            if not taken[i] and root_eqs[i] > pick_e:
                pick_e = root_eqs[i]
                pick = i
        if pick < 0 or pick_e < bound:
            break
        taken[pick] = True
        if searched == 0:
            first = pick
        searched += 1
        if searched < 2:
            continue
        for k in range(2 if searched == 2 else 1):  # a second survivor: value the first too
            idx = first if searched == 2 and k == 0 else pick
            code = reply_average(root_children[idx], caucasian, children, probs, kinds,
                                 counts, mover, eqs, rows, values, w_out, w_steps, table,
                                 hashes, state, path, marks, keys, esc, class_net, w1m, b1,
                                 w2t, b2, activation, dist, gdist, two, binom, res, one,
                                 one_p, one_k, one_r, one_v, nxt, mine, child_p)
            if code != 0:
                return TOO_MANY
            invert_into(child_p, mine)
            e = equity(mine)
            if e > best_e or (e == best_e and idx < best):
                best_e = e
                best = idx
                for c in range(5):
                    best_p[c] = mine[c]
    res[0] = 1 if searched >= 2 else 0
    return best
