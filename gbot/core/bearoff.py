"""Bear-off kernels: ranking home-board positions, building the exact tables, reading them.

One side's bear-off position is the number of its checkers on its points 1..6 (``counts[0]`` is
the 1-point). With at most 15 checkers there are C(21, 6) = 54,264 such positions. Each has a
*rank* in ``0 .. 54263``: write the points from the 6-point down to the 1-point as a string of
zeros (one per checker) each followed by a one; the rank is the combinatorial-number-system
rank of the six ones' places. Two facts follow, and the kernels rely on them:

* every checker move (a step down or a bear-off) strictly lowers the rank, so tables fill in
  increasing rank order;
* a position with at most ``n`` checkers has a rank below C(n + 6, 6), so the 924 positions
  with at most 6 checkers are ranks 0..923 of the same numbering (rank 0 = all borne off).

Plays come from :func:`gbot.core.movegen.generate` on a board with no opposing checkers, so the
tables follow exactly the legal plays of the move generator.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from gbot.core.arrays import nonliteral, read_only
from gbot.core.board import Board
from gbot.core.jit import jit
from gbot.core.movegen import generate

N_POINTS = 6
MAX_CHECKERS = 15
SMALL_CHECKERS = 6
MAX_ROLLS = 32
"""Length of the rolls distributions: P(exactly k rolls) for k = 0 .. MAX_ROLLS - 1."""


def _binomials(n: int, k: int) -> npt.NDArray[np.int64]:
    t = np.zeros((n + 1, k + 1), dtype=np.int64)
    for i in range(n + 1):
        t[i, 0] = 1
        for j in range(1, min(i, k) + 1):
            t[i, j] = t[i - 1, j - 1] + (t[i - 1, j] if j <= i - 1 else 0)
    return t


BINOM = _binomials(MAX_CHECKERS + N_POINTS, N_POINTS)
BINOM.setflags(write=False)
N_POSITIONS = int(BINOM[MAX_CHECKERS + N_POINTS, N_POINTS])  # 54,264
N_SMALL = int(BINOM[SMALL_CHECKERS + N_POINTS, N_POINTS])  # 924

ROLLS = np.array([(d1, d2, 1 if d1 == d2 else 2) for d1 in range(1, 7) for d2 in range(d1, 7)],
                 dtype=np.int64)
"""The 21 distinct rolls as ``(d1, d2, weight)``; the weights (out of 36) sum to 36."""
ROLLS.setflags(write=False)


@jit
def rank(counts: npt.NDArray[np.int8], binom: npt.NDArray[np.int64]) -> int:
    """Rank of one side's position; ``counts[i]`` = checkers on point ``i + 1`` (6 entries)."""
    r = 0
    place = 0
    for k in range(N_POINTS):
        place += counts[N_POINTS - 1 - k]
        r += binom[place, k + 1]
        place += 1
    return r


@jit
def unrank(r: int, binom: npt.NDArray[np.int64], counts: npt.NDArray[np.int8]) -> None:
    """Fill ``counts`` (6 entries, 1-point first) with the position of rank ``r``."""
    places = np.empty(N_POINTS, dtype=np.int64)
    rest = r
    for k in range(N_POINTS - 1, -1, -1):
        p = k
        while p + 1 < binom.shape[0] and binom[p + 1, k + 1] <= rest:
            p += 1
        places[k] = p
        rest -= binom[p, k + 1]
    prev = -1
    for k in range(N_POINTS):
        counts[N_POINTS - 1 - k] = places[k] - prev - 1
        prev = places[k]


@jit
def _side_board(counts: npt.NDArray[np.int8], b: Board) -> None:
    for i in range(26):
        b[i] = 0
    for i in range(N_POINTS):
        b[i + 1] = counts[i]


@jit
def _board_rank(b: Board, binom: npt.NDArray[np.int64]) -> int:
    """Rank of the side to move's checkers on points 1..6 of a board."""
    r = 0
    place = 0
    for k in range(N_POINTS):
        v = b[N_POINTS - k]
        if v > 0:
            place += v
        r += binom[place, k + 1]
        place += 1
    return r


@jit
def successors(r: int, d1: int, d2: int, binom: npt.NDArray[np.int64],
               out: npt.NDArray[np.int8], steps: npt.NDArray[np.int8],
               table: npt.NDArray[np.int32], hashes: npt.NDArray[np.int64],
               state: npt.NDArray[np.int64], path: npt.NDArray[np.int8],
               marks: npt.NDArray[np.int8], keys: npt.NDArray[np.int64],
               ranks: npt.NDArray[np.int64]) -> int:
    """Ranks of every distinct legal result of rolling ``d1``-``d2`` from rank ``r`` (written
    to ``ranks``, generation order); returns how many. The rest are move-generator scratch."""
    counts = np.empty(N_POINTS, dtype=np.int8)
    b = np.zeros(26, dtype=np.int8)
    unrank(r, binom, counts)
    _side_board(counts, b)
    n = generate(read_only(b), d1, d2, nonliteral(False), out, steps, table, hashes, state,
                 path, marks, keys)
    for j in range(n):
        ranks[j] = _board_rank(out[j], binom)
    return n


@jit
def build_one_sided(lo: int, hi: int, dist: npt.NDArray[np.float64],
                    mean: npt.NDArray[np.float64], gdist: npt.NDArray[np.float64],
                    gmean: npt.NDArray[np.float64], binom: npt.NDArray[np.int64],
                    rolls: npt.NDArray[np.int64], out: npt.NDArray[np.int8],
                    steps: npt.NDArray[np.int8], table: npt.NDArray[np.int32],
                    hashes: npt.NDArray[np.int64], state: npt.NDArray[np.int64],
                    path: npt.NDArray[np.int8], marks: npt.NDArray[np.int8],
                    keys: npt.NDArray[np.int64]) -> int:
    """Fill rows ``lo .. hi-1`` of the one-sided tables (rows below ``lo`` must be done).

    ``dist[r, k]``: P(bearing off every checker takes exactly ``k`` rolls), each roll played
    to minimise the expected number of rolls (``mean``) of the result. ``gdist[r, k]``: the
    same for bearing off the *first* checker, plays minimising its expected rolls
    (``gmean``); it is a point mass at 0 unless all 15 checkers are on the board.
    Returns -1 on success, else the rank whose distribution ran past ``MAX_ROLLS``.
    """
    counts = np.empty(N_POINTS, dtype=np.int8)
    b = np.zeros(26, dtype=np.int8)
    nk = dist.shape[1]
    acc = np.zeros(nk, dtype=np.float64)
    gacc = np.zeros(nk, dtype=np.float64)
    for r in range(lo, hi):
        unrank(r, binom, counts)
        total = 0
        for i in range(N_POINTS):
            total += counts[i]
        if total == 0:
            dist[r, :] = 0.0
            dist[r, 0] = 1.0
            mean[r] = 0.0
            gdist[r, :] = 0.0
            gdist[r, 0] = 1.0
            gmean[r] = 0.0
            continue
        _side_board(counts, b)
        acc[:] = 0.0
        gacc[:] = 0.0
        for k in range(rolls.shape[0]):
            n = generate(read_only(b), rolls[k, 0], rolls[k, 1], nonliteral(False), out,
                         steps, table, hashes, state, path, marks, keys)
            best = np.inf
            best_r = -1
            gbest = np.inf
            gbest_r = -1
            for j in range(n):
                rr = _board_rank(out[j], binom)
                if mean[rr] < best:
                    best = mean[rr]
                    best_r = rr
                if gmean[rr] < gbest:
                    gbest = gmean[rr]
                    gbest_r = rr
            w = rolls[k, 2]
            if dist[best_r, nk - 1] != 0.0:
                return r
            for i in range(nk - 1):
                acc[i + 1] += w * dist[best_r, i]
            if total == MAX_CHECKERS:
                for i in range(nk - 1):
                    gacc[i + 1] += w * gdist[gbest_r, i]
        m = 0.0
        for i in range(nk):
            dist[r, i] = acc[i] / 36.0
            m += i * dist[r, i]
        mean[r] = m
        gdist[r, :] = 0.0
        if total == MAX_CHECKERS:
            gm = 0.0
            for i in range(nk):
                gdist[r, i] = gacc[i] / 36.0
                gm += i * gdist[r, i]
            gmean[r] = gm
        else:
            gdist[r, 0] = 1.0
            gmean[r] = 0.0
    return -1


@jit
def small_successors(n_pos: int, binom: npt.NDArray[np.int64], rolls: npt.NDArray[np.int64],
                     succ: npt.NDArray[np.int32], offsets: npt.NDArray[np.int64],
                     out: npt.NDArray[np.int8], steps: npt.NDArray[np.int8],
                     table: npt.NDArray[np.int32], hashes: npt.NDArray[np.int64],
                     state: npt.NDArray[np.int64], path: npt.NDArray[np.int8],
                     marks: npt.NDArray[np.int8], keys: npt.NDArray[np.int64]) -> int:
    """Successor ranks of ranks ``0 .. n_pos-1`` for every roll, packed: the results of rank
    ``r`` and roll ``k`` are ``succ[offsets[r*21+k] : offsets[r*21+k+1]]``. Returns the total,
    or -1 when ``succ`` is too small."""
    counts = np.empty(N_POINTS, dtype=np.int8)
    b = np.zeros(26, dtype=np.int8)
    nr = rolls.shape[0]
    total = 0
    offsets[0] = 0
    for r in range(n_pos):
        unrank(r, binom, counts)
        _side_board(counts, b)
        for k in range(nr):
            n = 0
            if r > 0:
                n = generate(read_only(b), rolls[k, 0], rolls[k, 1], nonliteral(False), out,
                             steps, table, hashes, state, path, marks, keys)
            if total + n > succ.shape[0]:
                return -1
            for j in range(n):
                succ[total + j] = _board_rank(out[j], binom)
            total += n
            offsets[r * nr + k + 1] = total
    return total


@jit
def build_two_sided(succ: npt.NDArray[np.int32], offsets: npt.NDArray[np.int64],
                    rolls: npt.NDArray[np.int64], win: npt.NDArray[np.float64]) -> None:
    """Fill ``win[a, b]``: the exact cubeless probability that the side on roll, with
    position rank ``a``, wins against rank ``b``, both sides playing to maximise it.

    ``win[0, b] = 1`` (the side to move has already borne off) and ``win[a, 0] = 0`` for
    ``a > 0``. Pairs are filled by increasing ``a + b``: every entry read has a smaller sum.
    """
    n = win.shape[0]
    nr = rolls.shape[0]
    win[0, :] = 1.0
    win[1:, 0] = 0.0
    for s in range(2, 2 * n - 1):
        for a in range(max(1, s - n + 1), min(s, n)):
            b = s - a
            if b < 1:
                continue
            tot = 0.0
            for k in range(nr):
                best = 0.0
                base = a * nr + k
                for j in range(offsets[base], offsets[base + 1]):
                    v = 1.0 - win[b, succ[j]]
                    if v > best:
                        best = v
                tot += rolls[k, 2] * best
            win[a, b] = tot / 36.0


@jit
def side_ranks(b: Board, binom: npt.NDArray[np.int64]) -> tuple[int, int]:
    """``(my rank, opponent's rank)`` of a bear-off board (no check that it is one)."""
    mine = _board_rank(b, binom)
    r = 0
    place = 0
    for k in range(N_POINTS):
        v = -b[19 + k]  # opponent's own point 6 - k is my point 19 + k
        if v > 0:
            place += v
        r += binom[place, k + 1]
        place += 1
    return mine, r


@jit
def is_bearoff(b: Board) -> bool:
    """True when no checker of either side is outside its home board or on the bar."""
    if b[25] != 0 or b[0] != 0:
        return False
    for i in range(7, 19):
        if b[i] != 0:
            return False
    for i in range(1, 7):
        if b[i] < 0:
            return False
    for i in range(19, 25):
        if b[i] > 0:
            return False
    return True


@jit
def race_probabilities(boards: npt.NDArray[np.int8], dist: npt.NDArray[np.float32],
                       gdist: npt.NDArray[np.float32], two: npt.NDArray[np.float32],
                       binom: npt.NDArray[np.int64], out: npt.NDArray[np.float32]) -> None:
    """``out[i]`` = (win, win gammon, 0, lose gammon, 0) for the side to move of bear-off
    board ``i``: exact from ``two`` when both ranks are below its size, else from the
    one-sided distributions treating both sides' rolls counts as independent."""
    nk = dist.shape[1]
    n_two = two.shape[0]
    s_op = np.empty(nk + 1, dtype=np.float64)
    sg_op = np.empty(nk + 1, dtype=np.float64)
    sg_me = np.empty(nk + 1, dtype=np.float64)
    for i in range(boards.shape[0]):
        me, op = side_ranks(boards[i], binom)
        for j in range(5):
            out[i, j] = 0.0
        if me < n_two and op < n_two:
            out[i, 0] = two[me, op]
            continue
        # survival functions: s_op[k] = P(K_op >= k), sg_op[k] = P(G_op >= k),
        # sg_me[k] = P(G_me >= k)
        s_op[nk] = 0.0
        sg_op[nk] = 0.0
        sg_me[nk] = 0.0
        for k in range(nk - 1, -1, -1):
            s_op[k] = s_op[k + 1] + dist[op, k]
            sg_op[k] = sg_op[k + 1] + gdist[op, k]
            sg_me[k] = sg_me[k + 1] + gdist[me, k]
        w = 0.0
        wg = 0.0
        lg = 0.0
        for k in range(nk):
            pm = dist[me, k]
            w += pm * s_op[k]
            wg += pm * sg_op[k]
            lg += dist[op, k] * sg_me[k + 1]
        out[i, 0] = min(max(w, 0.0), 1.0)
        out[i, 1] = min(max(wg, 0.0), 1.0)
        out[i, 3] = min(max(lg, 0.0), 1.0)
