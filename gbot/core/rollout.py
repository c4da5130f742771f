"""Rollout kernel: many games played out from given positions with 0-, 1- or 2-ply checker play.

Each *trial* plays one game from a board (side to move about to roll) to its end, to a
truncation depth, or (optionally) to a two-sided bear-off, where the exact table ends it. Every
play is the 0-ply best play of :func:`gbot.core.bestplay.best_static` (ended games exact,
bear-offs from the tables, the rest through the networks), or at 1 or 2 plies the choice of
:func:`gbot.core.oneply.best_deeper` among the 0-ply candidates the move filters keep.
A trial's result is the five cubeless probabilities ``(win, win_g, win_bg, lose_g,
lose_bg)`` of the root's side to move: 0/1 for a finished game, the 0-ply (or exact)
probabilities where the trial stopped early.

Dice. Trial ``t`` of position ``k`` draws its dice from numba's Mersenne Twister seeded with a
hash of ``(seed, k, t)`` alone, so a trial's game does not depend on which worker plays it or
in what order. With ``quasi`` the first two rolls are stratified instead (rolls numbered
``6 (d1 - 1) + (d2 - 1)``): trial ``t`` opens with roll ``a = t mod 36`` and is answered with
roll ``beta[(a + rho[i]) mod 36]``, ``i = (t div 36) mod 36``, where ``rho`` and ``beta`` are
permutations of the 36 rolls drawn afresh for each block of 1,296 trials (seeded by ``seed``,
``k`` and the block's number). So every block of 36 trials holds each opening roll once and
each reply once, every block of 1,296 each pair of opening and reply once, and a trial's reply
is uniform and independent of its opening: the trials of whole blocks of 36 estimate the mean
without bias. Callers pass ``quasi`` only for such whole blocks (the trials beyond the last
whole block take independent dice, see :mod:`gbot.analysis.rollout`).

Variance reduction (``vr``): before each roll the side to move's 0-ply values after its best
play for all 21 rolls are computed; the *luck* of the roll it got is that roll's value less
their probability-weighted average. The sum of the lucks over the game (each seen from the
root's side) is subtracted from the trial's result. Each luck has mean zero over the dice, so
the estimate keeps its mean and loses most of the dice's noise; the cost is 21 best-play
searches per turn instead of one.
"""

from __future__ import annotations

import numpy as np

from gbot.core.arrays import F32, F64, I8, I32, I64, nonliteral, read_only
from gbot.core.bearoff import is_bearoff, side_ranks
from gbot.core.bestplay import TOO_MANY as TOO_MANY
from gbot.core.bestplay import Nets
from gbot.core.expand import invert_into, over_probabilities
from gbot.core.jit import jit
from gbot.core.movegen import CAPACITY, TABLE_SIZE
from gbot.core.oneply import best_deeper, best_of, mover_after, result_of, scratch, value_of

MAX_PLIES = 2000
"""A trial still running after this many plies stops there (valued at 0-ply)."""

OK = 0
"""Return code: every trial played (:data:`TOO_MANY`: a position had more plays than the
move generator's scratch holds)."""

END_OVER = 0
"""``ends[k, t]``: the game was played to its end."""
END_TRUNCATED = 1
"""``ends[k, t]``: stopped at the truncation depth (or :data:`MAX_PLIES`), valued at 0-ply."""
END_BEAROFF = 2
"""``ends[k, t]``: stopped at a two-sided bear-off, valued exactly by the table."""

# the 21 rolls (high die first) and their weights; _ROLL_OF[i] maps roll 6 (d1-1) + (d2-1)
_R1 = np.array([d1 for d1 in range(1, 7) for d2 in range(1, d1 + 1)], dtype=np.int64)
_R2 = np.array([d2 for d1 in range(1, 7) for d2 in range(1, d1 + 1)], dtype=np.int64)
_W = np.array([1.0 / 36 if a == b else 2.0 / 36 for a, b in zip(_R1, _R2, strict=True)])
_ROLL_OF = np.array([[int(np.flatnonzero((_R1 == max(a, b)) & (_R2 == min(a, b)))[0])
                      for b in range(1, 7)] for a in range(1, 7)], dtype=np.int64).reshape(36)


@jit
def trial_seed(seed: int, k: int, t: int) -> int:
    """The 32-bit Mersenne Twister seed of trial ``t`` of position ``k``."""
    h = (seed * 2654435761 + k * 2246822519 + t * 3266489917 + 374761393) & 0xFFFFFFFF
    h = ((h ^ (h >> 15)) * 2246822519) & 0xFFFFFFFF
    h = ((h ^ (h >> 13)) * 3266489917) & 0xFFFFFFFF
    return int(h ^ (h >> 16))


@jit
def block_seed(seed: int, k: int, block: int) -> int:
    """The Mersenne Twister seed of the stratified replies of block ``block`` (trials
    ``1296 block .. 1296 block + 1295``) of position ``k``."""
    return trial_seed(seed, k, -1 - block)


@jit
def _shuffle(perm: I64) -> None:
    """``perm`` = a uniformly random permutation of ``0 .. len - 1`` (numba's generator)."""
    n = perm.shape[0]
    for i in range(n):
        perm[i] = i
    for i in range(n - 1, 0, -1):
        j = np.random.randint(0, i + 1)
        perm[i], perm[j] = perm[j], perm[i]


@jit
def _to_root(p: F64, mover_is_root: bool, out: F64) -> None:
    """``out`` = probabilities ``p`` of the mover, seen by the root's side."""
    if mover_is_root:
        for c in range(5):
            out[c] = p[c]
    else:
        invert_into(p, out)


@jit
def _two_sided(b: I8, two: F32, binom: I64) -> bool:
    if not is_bearoff(b):
        return False
    me, op = side_ranks(b, binom)
    return bool(me < two.shape[0] and op < two.shape[0])


@jit
def rollout_many(boards: I8, n_trials: int, t0: int, seed: int, keys: I64, trunc: int,
                 quasi: bool, vr: bool, stop_bearoff: bool, caucasian: bool,
                 checker_ply: int | None, keep: int, window: float, keep2: int, window2: float,
                 esc: I64, class_net: I64, w1m: F32, b1: F32, w2t: F32, b2: F32,
                 activation: int, dist: F32, gdist: F32, two: F32, binom: I64,
                 hash_keys: I64, out: F64, plies: I32, ends: I8,
                 paths: I8, lucks: F64 | None = None,
                 ply_lucks: F64 | None = None) -> int:
    """Trials ``t0 .. t0 + n_trials - 1`` of each board ``boards[k]`` (side to move about to
    roll); ``keys[k]`` is the position's number in the dice hash.

    ``out[k, j]`` gets trial ``t0 + j``'s five probabilities for the root's side (luck
    subtracted with ``vr``; where ``lucks`` is given, ``out[k, j]`` is the result as played
    and ``lucks[k, j]`` the luck, zero without ``vr``), ``plies[k, j]`` the plies played,
    ``ends[k, j]`` how it ended (:data:`END_OVER`, ...). ``trunc`` > 0 stops after that
    many plies; ``stop_bearoff`` stops at a two-sided bear-off after the first ply. When
    ``paths`` has rows (``[len(boards) * n_trials, L, 26]``) the board at each ply (side to
    move's view, the last one where the trial stopped) is recorded there, and a trial stops
    (truncated) at ply ``L - 1``; with ``vr`` and ``ply_lucks`` (``[len(paths), L]``, zeros)
    the luck of the roll at each ply, in cubeless money equity for the root's side, goes there
    too. ``quasi``: stratified first two rolls (see the module's docstring). ``checker_ply``
    1 or 2 chooses each play at that ply (:func:`gbot.core.oneply.best_deeper` with the move
    filters ``keep``/``window`` and ``keep2``/``window2``) instead of 0-ply; None plays at
    0-ply, and numba then leaves the deeper search out of the compiled kernel (seconds less
    to compile for a 0-ply rollout); the luck of a roll is still measured at 0-ply.
    The bear-off tables (``dist``, ``gdist``, ``two``) must be passed.
    Returns :data:`OK` or :data:`TOO_MANY`."""
    net = Nets(esc, class_net, w1m, b1, w2t, b2, activation, dist, gdist, two, binom)
    s = scratch(nonliteral(CAPACITY), nonliteral(TABLE_SIZE))
    # the deeper search's own (the root's plays stay in s)
    cap, table = (CAPACITY, TABLE_SIZE) if checker_ply is not None else (1, 1)
    deep = scratch(nonliteral(cap), nonliteral(table))
    board = np.empty(26, dtype=np.int8)
    nxt = np.empty(26, dtype=np.int8)
    chosen = np.empty(26, dtype=np.int8)
    roll_vals = np.empty((21, 5), dtype=np.float64)
    mine = np.empty(5, dtype=np.float64)
    avg = np.empty(5, dtype=np.float64)
    luck = np.empty(5, dtype=np.float64)
    tmp = np.empty(5, dtype=np.float64)
    rootv = np.empty(5, dtype=np.float64)
    record = paths.shape[0] > 0
    max_len = paths.shape[1] - 1 if record else MAX_PLIES
    rho = np.empty(36, dtype=np.int64)
    beta = np.empty(36, dtype=np.int64)
    for k in range(boards.shape[0]):
        shuffled = -1            # the block whose reply permutations rho and beta hold
        for j in range(n_trials):
            t = t0 + j
            reply = 0
            if quasi:
                block = t // 1296
                if block != shuffled:
                    np.random.seed(block_seed(seed, int(keys[k]), block))
                    _shuffle(rho)
                    _shuffle(beta)
                    shuffled = block
                reply = beta[(t % 36 + rho[(t // 36) % 36]) % 36]
            np.random.seed(trial_seed(seed, int(keys[k]), t))
            board[:] = boards[k]
            for c in range(5):
                luck[c] = 0.0
            ply = 0
            end = END_TRUNCATED
            row = k * n_trials + j
            while True:
                root_moves = ply % 2 == 0
                if record:
                    paths[row, ply] = board
                if over_probabilities(board, tmp):
                    _to_root(tmp, root_moves, rootv)
                    end = END_OVER
                    break
                stop = (trunc > 0 and ply >= trunc) or ply >= max_len or ply >= MAX_PLIES
                at_bearoff = (not stop and stop_bearoff and ply > 0
                              and _two_sided(board, two, binom))
                if stop or at_bearoff:
                    value_of(board, s, net, tmp)
                    _to_root(tmp, root_moves, rootv)
                    end = END_BEAROFF if at_bearoff else END_TRUNCATED
                    break
                if quasi and ply == 0:
                    r36 = t % 36
                elif quasi and ply == 1:
                    r36 = reply
                else:
                    r36 = 6 * np.random.randint(0, 6) + np.random.randint(0, 6)
                actual = _ROLL_OF[r36]
                first = 0 if vr else actual
                last = 21 if vr else actual + 1
                for r in range(first, last):
                    if best_of(read_only(board), int(_R1[r]), int(_R2[r]), caucasian, s, hash_keys,
                               net) != 0:
                        return TOO_MANY
                    if vr:
                        mover_after(board, s, net, nxt, roll_vals[r])
                    else:
                        result_of(read_only(board), s, nxt)
                    if r != actual:
                        continue
                    if checker_ply is not None and s.play.res[0] >= 2:
                        found = best_deeper(checker_ply, int(s.play.res[0]), s, keep, window,
                                            keep2, window2, caucasian, deep, hash_keys, net)
                        if found < 0:
                            return TOO_MANY
                        chosen[:] = s.play.children[found]
                    else:
                        chosen[:] = nxt
                board[:] = chosen
                if vr:
                    for c in range(5):
                        avg[c] = 0.0
                    for r in range(21):
                        for c in range(5):
                            avg[c] += _W[r] * roll_vals[r, c]
                    for c in range(5):
                        mine[c] = roll_vals[actual, c] - avg[c]
                    if record and ply_lucks is not None:
                        eq = 2.0 * mine[0] + mine[1] + mine[2] - mine[3] - mine[4]
                        ply_lucks[row, ply] = eq if root_moves else -eq
                    if root_moves:
                        for c in range(5):
                            luck[c] += mine[c]
                    else:
                        # a difference of probabilities: the win column changes sign, the
                        # gammon columns swap sides
                        luck[0] -= mine[0]
                        luck[1] += mine[3]
                        luck[2] += mine[4]
                        luck[3] += mine[1]
                        luck[4] += mine[2]
                ply += 1
            if lucks is not None:
                for c in range(5):
                    out[k, j, c] = rootv[c]
                    lucks[k, j, c] = luck[c]
            else:
                for c in range(5):
                    out[k, j, c] = rootv[c] - luck[c]
            plies[k, j] = ply
            ends[k, j] = end
    return OK
