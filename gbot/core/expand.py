"""Search kernels: expanding positions over the 21 rolls, scoring ended games, picking plays.

Boards use the layout of :mod:`gbot.core.board`. Every kernel here hands positions to the next
level *flipped*, so that the side to move in each output board is the side about to roll; the
probabilities are always the cubeless ``(win, win_g, win_bg, lose_g, lose_bg)`` of that side
(cumulative gammon columns, gnubg-style).

The move generator's workspace (:class:`gbot.core.movegen.Workspace`) is passed in, so each
thread can use its own.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from gbot.core.arrays import frozen, nonliteral, read_only
from gbot.core.bearoff import is_bearoff
from gbot.core.board import N_CHECKERS, Board
from gbot.core.jit import jit, jit_bare
from gbot.core.movegen import generate

Probs = npt.NDArray[np.float64]

N_ROLLS = 21

ROLLS = np.array([(d1, d2) for d1 in range(1, 7) for d2 in range(1, d1 + 1)], dtype=np.int64)
"""The 21 distinct rolls ``(high, low)``, doubles included."""
ROLLS.setflags(write=False)

ROLL_WEIGHTS = np.array([1.0 / 36 if d1 == d2 else 2.0 / 36 for d1, d2 in ROLLS])
"""Probability of each of :data:`ROLLS`; they sum to 1."""
ROLL_WEIGHTS.setflags(write=False)


@jit
def flip_into(src: Board, dst: Board) -> None:
    """``dst`` = ``src`` seen by the other side."""
    for i in range(26):
        dst[i] = -src[25 - i]


@jit
def over_probabilities(b: Board, out: npt.NDArray[np.float64]) -> bool:
    """When the game in ``b`` has ended, write the exact result (side to move's view) to
    ``out`` and return True; otherwise leave ``out`` alone and return False.

    The side with no checkers left has won: a gammon when the loser has all
    :data:`~gbot.core.board.N_CHECKERS` still in play, a backgammon when the loser also has
    one on the bar or in the winner's home board."""
    mine = 0
    theirs = 0
    my_back = b[25] > 0       # I have a checker on the bar or in the opponent's home
    their_back = b[0] < 0
    mine += b[25]
    theirs -= b[0]
    for p in range(1, 25):
        v = b[p]
        if v > 0:
            mine += v
            if p >= 19:
                my_back = True
        elif v < 0:
            theirs -= v
            if p <= 6:
                their_back = True
    if mine != 0 and theirs != 0:
        return False
    for k in range(5):
        out[k] = 0.0
    if mine == 0:
        out[0] = 1.0
        if theirs >= N_CHECKERS:
            out[1] = 1.0
            if their_back:
                out[2] = 1.0
    else:
        if mine >= N_CHECKERS:
            out[3] = 1.0
            if my_back:
                out[4] = 1.0
    return True


@jit
def over_batch(boards: npt.NDArray[np.int8], probs: Probs, over: npt.NDArray[np.bool_]) -> int:
    """:func:`over_probabilities` for every row; ``over[i]`` marks the ended games. Returns
    how many ended."""
    n = 0
    for i in range(boards.shape[0]):
        over[i] = over_probabilities(boards[i], probs[i])
        if over[i]:
            n += 1
    return n


NET = 0
"""Static kind: evaluated by the networks."""
OVER = 1
"""Static kind: the game has ended (exact result written)."""
BEAROFF = 2
"""Static kind: every checker home or off (the exact bear-off tables apply)."""


@jit
def static_kinds(boards: npt.NDArray[np.int8], bearoff: bool, probs: Probs,
                 kinds: npt.NDArray[np.int8], counts: npt.NDArray[np.int64]) -> None:
    """Sort boards for 0-ply evaluation: ``kinds[i]`` is :data:`NET`, :data:`OVER` (exact
    result written to ``probs[i]``) or, when ``bearoff``, :data:`BEAROFF`; ``counts`` gets
    how many are OVER and BEAROFF."""
    counts[0] = 0
    counts[1] = 0
    for i in range(boards.shape[0]):
        if over_probabilities(boards[i], probs[i]):
            kinds[i] = OVER
            counts[0] += 1
        elif bearoff and is_bearoff(boards[i]):
            kinds[i] = BEAROFF
            counts[1] += 1
        else:
            kinds[i] = NET


EQUITY_WEIGHTS = frozen(np.array([2.0, 1.0, 1.0, -1.0, -1.0]))
"""The cubeless money equity of a probability row ``p`` is ``p @ EQUITY_WEIGHTS - 1``."""


@jit
def equity(p: npt.NDArray[np.float64]) -> float:
    """Cubeless money equity of one probability row."""
    return float(2.0 * p[0] - 1.0 + p[1] - p[3] + p[2] - p[4])


@jit
def equities(probs: Probs, out: npt.NDArray[np.float64]) -> None:
    """:func:`equity` of every row."""
    for i in range(probs.shape[0]):
        out[i] = equity(probs[i])


@jit
def invert_into(p: npt.NDArray[np.float64], out: npt.NDArray[np.float64]) -> None:
    """The same outcome probabilities seen by the other side."""
    w = p[0]
    wg = p[1]
    wb = p[2]
    out[0] = 1.0 - w
    out[1] = p[3]
    out[2] = p[4]
    out[3] = wg
    out[4] = wb


@jit_bare
def classify_child(child: Board, bearoff: bool, probs: Probs, kinds: npt.NDArray[np.int8],
                    i: int, counts: npt.NDArray[np.int64]) -> None:
    """Sort child ``i`` as :func:`static_kinds` does (exact result of an ended game into
    ``probs[i]``, ``counts`` updated)."""
    if over_probabilities(child, probs[i]):
        kinds[i] = OVER
        counts[0] += 1
    elif bearoff and is_bearoff(child):
        kinds[i] = BEAROFF
        counts[1] += 1
    else:
        kinds[i] = NET


@jit_bare
def flip_children(src: npt.NDArray[np.int8], n: int, bearoff: bool,
                  children: npt.NDArray[np.int8], at: int, probs: Probs,
                  kinds: npt.NDArray[np.int8], counts: npt.NDArray[np.int64]) -> None:
    """``children[at + j]`` = ``src[j]`` flipped for ``j < n``, each sorted by
    :func:`classify_child` (``counts`` added to)."""
    for j in range(n):
        i = at + j
        for k in range(26):
            children[i, k] = -src[j, 25 - k]
        classify_child(children[i], bearoff, probs, kinds, i, counts)


@jit
def expand_roll(board: Board, d1: int, d2: int, caucasian: bool, bearoff: bool,
                children: npt.NDArray[np.int8], results: npt.NDArray[np.int8],
                steps: npt.NDArray[np.int8], probs: Probs, kinds: npt.NDArray[np.int8],
                counts: npt.NDArray[np.int64], w_out: npt.NDArray[np.int8],
                w_steps: npt.NDArray[np.int8], table: npt.NDArray[np.int32],
                hashes: npt.NDArray[np.int64], state: npt.NDArray[np.int64],
                path: npt.NDArray[np.int8], marks: npt.NDArray[np.int8],
                keys: npt.NDArray[np.int64]) -> int:
    """Every legal play of one roll: ``results[i]`` (mover still to move), ``steps[i]`` one
    step sequence reaching it, ``children[i]`` the result flipped (the opponent to move),
    sorted as by :func:`static_kinds` into ``kinds``/``probs``/``counts``. Returns the count
    (0: no legal play); -1 when the arrays are too small."""
    counts[0] = 0
    counts[1] = 0
    n = generate(read_only(board), d1, d2, caucasian, w_out, w_steps, table, hashes, state,
                 path, marks, keys)
    if n > children.shape[0]:
        return -1
    for i in range(n):
        for j in range(26):
            results[i, j] = w_out[i, j]
        for j in range(w_steps.shape[1]):
            steps[i, j] = w_steps[i, j]
    flip_children(w_out, n, bearoff, children, nonliteral(0), probs, kinds, counts)
    return n


@jit
def expand_rolls(boards: npt.NDArray[np.int8], rolls: npt.NDArray[np.int64], caucasian: bool,
                 bearoff: bool, children: npt.NDArray[np.int8], offsets: npt.NDArray[np.int64],
                 probs: Probs, kinds: npt.NDArray[np.int8], counts: npt.NDArray[np.int64],
                 w_out: npt.NDArray[np.int8], w_steps: npt.NDArray[np.int8],
                 table: npt.NDArray[np.int32], hashes: npt.NDArray[np.int64],
                 state: npt.NDArray[np.int64], path: npt.NDArray[np.int8],
                 marks: npt.NDArray[np.int8], keys: npt.NDArray[np.int64]) -> int:
    """Children of every board for each roll of ``rolls`` (:data:`ROLLS`), flipped (the next
    side to move), sorted as by :func:`static_kinds` into ``kinds``/``probs``/``counts``.

    Group ``g = 21 * i + r`` (board ``i``, roll ``r``) owns rows ``offsets[g]:offsets[g + 1]``
    of ``children``; a roll with no legal play has one child, the board itself flipped.
    Returns the number of children, or -1 when the arrays are too small."""
    total = nonliteral(0)     # a variable from the start: one compile of the helpers below
    offsets[0] = 0
    counts[0] = 0
    counts[1] = 0
    cap = children.shape[0]
    for i in range(boards.shape[0]):
        for r in range(N_ROLLS):
            n = generate(read_only(boards[i]), rolls[r, 0], rolls[r, 1], caucasian, w_out,
                         w_steps, table, hashes, state, path, marks, keys)
            if n == 0:
                if total + 1 > cap:
                    return -1
                flip_into(boards[i], children[total])
                classify_child(children[total], bearoff, probs, kinds, total, counts)
                total += 1
            else:
                if total + n > cap:
                    return -1
                flip_children(w_out, n, bearoff, children, total, probs, kinds, counts)
                total += n
            offsets[N_ROLLS * i + r + 1] = total
    return int(total)


@jit
def score_plays(child_probs: Probs, mover_probs: Probs,
                mover_equity: npt.NDArray[np.float64]) -> int:
    """The mover's probabilities and equity for each child (opponent to move); returns the
    index of the best (first on ties)."""
    best = 0
    best_e = -1e300
    for i in range(child_probs.shape[0]):
        invert_into(child_probs[i], mover_probs[i])
        e = equity(mover_probs[i])
        mover_equity[i] = e
        if e > best_e:
            best_e = e
            best = i
    return best


@jit
def pick_best(probs: Probs, offsets: npt.NDArray[np.int64], chosen: npt.NDArray[np.int64]) -> None:
    """For each group of children (rows ``offsets[g]:offsets[g + 1]``, the opponent to move in
    each), the row the mover prefers: the lowest equity for the opponent (first on ties)."""
    for g in range(offsets.shape[0] - 1):
        best = offsets[g]
        best_e = equity(probs[best])
        for i in range(offsets[g] + 1, offsets[g + 1]):
            e = equity(probs[i])
            if e < best_e:
                best_e = e
                best = i
        chosen[g] = best


@jit
def prune_select(probs: Probs, offsets: npt.NDArray[np.int64], keep: int, window: float,
                 selected: npt.NDArray[np.bool_]) -> None:
    """Mark in ``selected`` the children of each group the mover likes best by ``probs`` (a
    cheap estimate; the opponent to move in each): at most ``keep``, the lowest equities, the
    earlier row first on ties, each within ``window`` of the lowest (which is always kept)."""
    eqs = np.empty(probs.shape[0], dtype=np.float64)
    for g in range(offsets.shape[0] - 1):
        lo = offsets[g]
        hi = offsets[g + 1]
        if hi == lo:
            continue
        first = lo
        for i in range(lo, hi):
            selected[i] = False
            eqs[i] = equity(probs[i])
            if eqs[i] < eqs[first]:
                first = i
        selected[first] = True
        limit = eqs[first] + window
        for _ in range(min(keep, hi - lo) - 1):
            best = -1
            best_e = 1e300
            for i in range(lo, hi):
                if not selected[i] and eqs[i] < best_e:
                    best_e = eqs[i]
                    best = i
            if best_e > limit:
                break
            selected[best] = True


@jit
def pick_best_of(probs: Probs, offsets: npt.NDArray[np.int64], selected: npt.NDArray[np.bool_],
                 chosen: npt.NDArray[np.int64]) -> None:
    """:func:`pick_best` among the ``selected`` rows of each group (each group has one)."""
    for g in range(offsets.shape[0] - 1):
        best = -1
        best_e = 1e300
        for i in range(offsets[g], offsets[g + 1]):
            if selected[i]:
                e = equity(probs[i])
                if e < best_e:
                    best_e = e
                    best = i
        chosen[g] = best


@jit
def average_over_rolls(child_probs: Probs, weights: npt.NDArray[np.float64], out: Probs) -> None:
    """``out[i]``: the roll-weighted average, from the side to move's view, of the chosen
    children ``child_probs[21 * i + r]`` (each from the opponent's view)."""
    inv = np.empty(5, dtype=np.float64)
    for i in range(out.shape[0]):
        for k in range(5):
            out[i, k] = 0.0
        for r in range(N_ROLLS):
            invert_into(child_probs[N_ROLLS * i + r], inv)
            w = weights[r]
            for k in range(5):
                out[i, k] += w * inv[k]
