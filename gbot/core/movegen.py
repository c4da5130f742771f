"""Legal plays: every distinct position a roll can reach, under gnubg's rules.

Kernels work on the int8[26] layout of :mod:`gbot.core.board` (side to move = positive). A play
is reported as the resulting board, still seen by the mover (not flipped), plus one step
sequence that reaches it (``from``, ``to`` pairs; 25 = bar, 0 = off) for notation.

Rules applied: use as many dice as possible; with one die playable, the larger when either is;
doubles up to four; bar first; no landing on two or more opposing checkers (final or
intermediate); bearing off with every remaining checker home, exact or from the highest point
with a larger die. The Caucasian switch forbids a checker that hit a blot in the mover's home
board from moving, later that turn, onto a point holding the mover's own checkers.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, TypeVar, cast

import numba
import numpy as np
import numpy.typing as npt

from gbot.core.board import Board
from gbot.core.jit import jit

_F = TypeVar("_F", bound=Callable[..., Any])


def _inline(fn: _F) -> _F:
    """:func:`gbot.core.jit.jit` with the kernel inlined into its callers at numba's level:
    the small per-step helpers below are called several times per step, and a call that
    passes arrays costs more than their work."""
    return cast(_F, numba.njit(cache=True, nogil=True, error_model="numpy",
                               inline="always")(fn))


TABLE_BITS = 14
TABLE_SIZE = 1 << TABLE_BITS
CAPACITY = 8192
MAX_STEPS = 4

_rng = np.random.default_rng(0x6B07)
HASH_KEYS = _rng.integers(1, 2**62, size=(26, 32), dtype=np.int64)
HASH_KEYS.setflags(write=False)


_OUT_AT = 0
_STEPS_AT = _OUT_AT + CAPACITY * 26
_PATH_AT = _STEPS_AT + CAPACITY * 2 * MAX_STEPS
_MARKS_AT = _PATH_AT + 2 * MAX_STEPS
_I8_SIZE = _MARKS_AT + 26
_HASHES_AT = 0
_STATE_AT = _HASHES_AT + CAPACITY
_TABLE_AT = _STATE_AT + 4
_I64_SIZE = _TABLE_AT + TABLE_SIZE // 2
STEPS_OFFSET = _STEPS_AT
"""Where a :class:`Workspace`'s ``steps`` rows start in its ``i8`` buffer (``out``'s start
at 0)."""


class Workspace:
    """Scratch arrays for the kernels, reused across calls of one thread.

    The arrays are views of two buffers, ``i8`` and ``i64``, which :func:`generate_packed`
    takes instead of the seven arrays (fewer arguments to check on each call from Python)."""

    def __init__(self) -> None:
        self.i8 = np.zeros(_I8_SIZE, dtype=np.int8)
        self.i64 = np.zeros(_I64_SIZE, dtype=np.int64)
        self.out = self.i8[_OUT_AT:_STEPS_AT].reshape(CAPACITY, 26)
        self.steps = self.i8[_STEPS_AT:_PATH_AT].reshape(CAPACITY, 2 * MAX_STEPS)
        self.path = self.i8[_PATH_AT:_MARKS_AT]
        self.marks = self.i8[_MARKS_AT:_I8_SIZE]
        self.hashes = self.i64[_HASHES_AT:_STATE_AT]
        self.state = self.i64[_STATE_AT:_TABLE_AT]  # count, best score, overflow flag
        self.table = self.i64[_TABLE_AT:_I64_SIZE].view(np.int32)


@_inline
def _highest(b: Board) -> int:
    for i in range(25, 0, -1):
        if b[i] > 0:
            return i
    return 0


@_inline
def _can_step(b: Board, src: int, die: int, high: int) -> bool:
    """True when a checker of the mover on ``src`` may move ``die`` pips (bar rule checked by
    the caller)."""
    if b[src] <= 0:
        return False
    dest = src - die
    if dest >= 1:
        return bool(b[dest] >= -1)
    if high > 6:
        return False
    if dest == 0:
        return True
    return bool(src == high)


@_inline
def _apply(b: Board, src: int, die: int) -> int:
    """Move one checker; return 1 when it hit a blot, else 0."""
    dest = src - die
    b[src] -= 1
    if dest >= 1:
        if b[dest] == -1:
            b[dest] = 1
            b[0] -= 1
            return 1
        b[dest] += 1
    return 0


@jit
def can_step(b: Board, src: int, die: int) -> bool:
    """True when the mover may move one checker from ``src`` (25 = the bar) by ``die`` pips:
    a checker there, the landing point not held by the opponent, bearing off only with every
    checker home and exactly or from the highest point (the bar rule is the caller's)."""
    return _can_step(b, src, die, _highest(b))


@jit
def play_step(b: Board, src: int, die: int) -> int:
    """Move one checker of the mover from ``src`` by ``die`` pips in place (a step
    :func:`can_step` allows); returns 1 when it hit a blot, else 0."""
    return _apply(b, src, die)


@_inline
def _undo(b: Board, src: int, die: int, hit: int) -> None:
    dest = src - die
    b[src] += 1
    if dest >= 1:
        if hit:
            b[dest] = -1
            b[0] += 1
        else:
            b[dest] -= 1


@_inline
def _moved_hash(b: Board, h: int, src: int, die: int, keys: npt.NDArray[np.int64]) -> int:
    """Hash after moving one checker ``die`` pips from ``src`` (board not yet changed)."""
    dest = src - die
    h ^= keys[src, b[src] + 16] ^ keys[src, b[src] + 15]
    if dest >= 1:
        if b[dest] == -1:
            h ^= keys[dest, 15] ^ keys[dest, 17] ^ keys[0, b[0] + 16] ^ keys[0, b[0] + 15]
        else:
            h ^= keys[dest, b[dest] + 16] ^ keys[dest, b[dest] + 17]
    return h


@_inline
def _hash(b: Board, keys: npt.NDArray[np.int64]) -> int:
    h = 0
    for i in range(26):
        h ^= keys[i, b[i] + 16]
    return h


@_inline
def _record(b: Board, h: int, score: int, depth: int, path: npt.NDArray[np.int8],
            out: npt.NDArray[np.int8], steps: npt.NDArray[np.int8],
            table: npt.NDArray[np.int32], hashes: npt.NDArray[np.int64],
            state: npt.NDArray[np.int64]) -> None:
    if score < state[1]:
        return
    if score > state[1]:
        for j in range(state[0]):
            slot = hashes[j] & (TABLE_SIZE - 1)
            while table[slot] != 0:
                table[slot] = 0
                slot = (slot + 1) & (TABLE_SIZE - 1)
        state[0] = 0
        state[1] = score
    slot = h & (TABLE_SIZE - 1)
    while table[slot] != 0:
        j = table[slot] - 1
        if hashes[j] == h:
            same = True
            for i in range(26):
                if out[j, i] != b[i]:
                    same = False
                    break
            if same:
                return
        slot = (slot + 1) & (TABLE_SIZE - 1)
    n = state[0]
    if n >= CAPACITY or n >= (TABLE_SIZE * 3) // 4:
        state[2] = 1
        return
    out[n, :] = b
    hashes[n] = h
    for i in range(2 * MAX_STEPS):
        steps[n, i] = path[i] if i < 2 * depth else 0
    table[slot] = n + 1
    state[0] = n + 1


@_inline
def _step_options(b: Board, src: int, die: int, high: int, marks: npt.NDArray[np.int8],
                  caucasian: bool) -> int:
    """Bit set of ways a checker on ``src`` may move ``die`` (the bar rule is the caller's):
    1 = an unmarked checker, 2 = a marked (hitting) checker under the Caucasian rule."""
    if src == 25:
        if b[25] <= 0 or b[25 - die] < -1:
            return 0
    elif not _can_step(b, src, die, high):
        return 0
    if not caucasian or marks[src] == 0:
        return 1
    dest = src - die
    opts = 0
    if b[src] > marks[src]:
        opts |= 1
    if dest < 1 or b[dest] <= 0:
        opts |= 2
    return opts


@jit
def _search(b: Board, dice: npt.NDArray[np.int64], ndice: int,
            caucasian: bool, marks: npt.NDArray[np.int8], path: npt.NDArray[np.int8],
            out: npt.NDArray[np.int8], steps: npt.NDArray[np.int8],
            table: npt.NDArray[np.int32], hashes: npt.NDArray[np.int64],
            state: npt.NDArray[np.int64], keys: npt.NDArray[np.int64],
            scratch: npt.NDArray[np.int64]) -> None:
    """Depth-first search over the dice in the order given, recording every end position;
    the general path, used for the Caucasian rule (marks track hitting checkers).

    ``scratch`` is int64[8, 5] of per-depth bookkeeping."""
    next_src = scratch[0]
    next_kind = scratch[1]
    moved = scratch[2]
    done_src = scratch[3]
    done_kind = scratch[4]
    done_hit = scratch[5]
    high_at = scratch[6]
    depth = 0
    next_src[0] = 25
    next_kind[0] = 1
    moved[0] = 0
    high_at[0] = _highest(b)
    hash_at = scratch[7]
    hash_at[0] = _hash(b, keys)
    while True:
        found = False
        if depth < ndice:
            die = dice[depth]
            high = high_at[depth]
            src = next_src[depth]
            kind = next_kind[depth]
            if b[25] > 0:
                lowest = 25
            else:
                lowest = 1
                if src > high:
                    src = high
                    kind = 1
            while src >= lowest:
                if b[src] > 0:
                    opts = _step_options(b, src, die, high, marks, caucasian)
                    while kind <= 2 and not opts & kind:
                        kind += 1
                    if kind <= 2:
                        found = True
                        break
                src -= 1
                kind = 1
            if found:
                dest = src - die
                hash_at[depth + 1] = _moved_hash(b, hash_at[depth], src, die, keys)
                hit = _apply(b, src, die)
                if caucasian:
                    if kind == 2:
                        marks[src] -= 1
                        if dest >= 1:
                            marks[dest] += 1
                    elif hit and dest <= 6:
                        marks[dest] += 1
                path[2 * depth] = src
                path[2 * depth + 1] = dest if dest > 0 else 0
                done_src[depth] = src
                done_kind[depth] = kind
                done_hit[depth] = hit
                next_src[depth] = src
                next_kind[depth] = kind + 1
                moved[depth] = 1
                depth += 1
                next_src[depth] = 25
                next_kind[depth] = 1
                moved[depth] = 0
                high_at[depth] = _highest(b)
                continue
        if moved[depth] == 0 and depth > 0:
            score = 2 * depth
            if ndice == 2 and depth == 1 and dice[0] > dice[1]:
                score += 1
            _record(b, hash_at[depth], score, depth, path, out, steps, table, hashes, state)
        if depth == 0:
            return
        depth -= 1
        die = dice[depth]
        src = done_src[depth]
        dest = src - die
        if caucasian:
            if done_kind[depth] == 2:
                marks[src] += 1
                if dest >= 1:
                    marks[dest] -= 1
            elif done_hit[depth] and dest <= 6:
                marks[dest] -= 1
        _undo(b, src, die, done_hit[depth])


@jit
def _two_dice(b: Board, hi: int, lo: int, path: npt.NDArray[np.int8],
              out: npt.NDArray[np.int8], steps: npt.NDArray[np.int8],
              table: npt.NDArray[np.int32], hashes: npt.NDArray[np.int64],
              state: npt.NDArray[np.int64], keys: npt.NDArray[np.int64]) -> None:
    """A non-double without the Caucasian rule: both die orders as two nested loops.

    In the second order, two-checker plays that stay on the board are skipped unless the mover
    started on the bar: with no bar and no bearing off, the first order already reached them.
    A play of one die only is recorded only when no two-dice play has been found."""
    h0 = _hash(b, keys)
    onbar = b[25] > 0
    for order in range(2):
        a = hi if order == 0 else lo
        c = lo if order == 0 else hi
        high0 = _highest(b)
        top = 25 if b[25] > 0 else high0
        low = 25 if b[25] > 0 else 1
        for s1 in range(top, low - 1, -1):
            if b[s1] <= 0:
                continue
            if s1 == 25:
                if b[25 - a] < -1:
                    continue
            elif not _can_step(b, s1, a, high0):
                continue
            d1 = s1 - a
            h1 = _moved_hash(b, h0, s1, a, keys)
            hit1 = _apply(b, s1, a)
            path[0] = s1
            path[1] = d1 if d1 > 0 else 0
            high1 = _highest(b)
            top2 = 25 if b[25] > 0 else high1
            low2 = 25 if b[25] > 0 else 1
            found = False
            # second order, a two-dice play already found, nobody on the bar at the start:
            # only the moved checker (s2 == d1) and bear-offs (s2 <= c) can give new plays
            narrow = order == 1 and not onbar and state[1] == 4 and d1 >= 1
            s2 = top2 + 1
            while s2 > low2:
                s2 -= 1
                if narrow and s2 > c and s2 != d1:
                    s2 = d1 + 1 if c < d1 < s2 else c + 1  # next candidate below
                    continue
                if b[s2] <= 0:
                    continue
                if s2 == 25:
                    if b[25 - c] < -1:
                        continue
                elif not _can_step(b, s2, c, high1):
                    continue
                found = True
                if order == 1 and not onbar and s2 != d1 and d1 >= 1 and s2 - c >= 1:
                    continue
                h2 = _moved_hash(b, h1, s2, c, keys)
                hit2 = _apply(b, s2, c)
                path[2] = s2
                path[3] = s2 - c if s2 > c else 0
                _record(b, h2, 4, 2, path, out, steps, table, hashes, state)
                _undo(b, s2, c, hit2)
            if not found and state[1] < 4:
                _record(b, h1, 3 if a == hi else 2, 1, path, out, steps, table, hashes, state)
            _undo(b, s1, a, hit1)


@_inline
def _highest_below(b: Board, start: int) -> int:
    """The highest point ``<= start`` holding a checker of the mover (25 = bar); 0 if none."""
    for i in range(start, 0, -1):
        if b[i] > 0:
            return i
    return 0


@_inline
def _first_source(b: Board, start: int, die: int, high: int) -> int:
    """The highest point ``<= start`` from which a checker may move ``die``; 0 when none.
    ``high`` is the mover's highest occupied point (25 when on the bar)."""
    if b[25] > 0:
        if start >= 25 and b[25 - die] >= -1:
            return 25
        return 0
    src = start if start < high else high
    while src >= 1:
        if b[src] > 0 and _can_step(b, src, die, high):
            return src
        src -= 1
    return 0


@jit
def _doubles(b: Board, d: int, path: npt.NDArray[np.int8], out: npt.NDArray[np.int8],
             steps: npt.NDArray[np.int8], table: npt.NDArray[np.int32],
             hashes: npt.NDArray[np.int64], state: npt.NDArray[np.int64],
             keys: npt.NDArray[np.int64]) -> None:
    """Doubles without the Caucasian rule: four nested loops over sources in non-increasing
    order (every play has such an ordering, so nothing is lost and transpositions are cut)."""
    h0 = _hash(b, keys)
    g0 = _highest(b)
    s1 = _first_source(b, 25, d, g0)
    while s1 > 0:
        h1 = _moved_hash(b, h0, s1, d, keys)
        x1 = _apply(b, s1, d)
        g1 = g0 if b[g0] > 0 else _highest_below(b, g0)
        path[0] = s1
        path[1] = s1 - d if s1 > d else 0
        s2 = _first_source(b, s1, d, g1)
        if s2 == 0 and state[1] <= 1:
            _record(b, h1, 1, 1, path, out, steps, table, hashes, state)
        while s2 > 0:
            h2 = _moved_hash(b, h1, s2, d, keys)
            x2 = _apply(b, s2, d)
            g2 = g1 if b[g1] > 0 else _highest_below(b, g1)
            path[2] = s2
            path[3] = s2 - d if s2 > d else 0
            s3 = _first_source(b, s2, d, g2)
            if s3 == 0 and state[1] <= 2:
                _record(b, h2, 2, 2, path, out, steps, table, hashes, state)
            while s3 > 0:
                h3 = _moved_hash(b, h2, s3, d, keys)
                x3 = _apply(b, s3, d)
                g3 = g2 if b[g2] > 0 else _highest_below(b, g2)
                path[4] = s3
                path[5] = s3 - d if s3 > d else 0
                s4 = _first_source(b, s3, d, g3)
                if s4 == 0 and state[1] <= 3:
                    _record(b, h3, 3, 3, path, out, steps, table, hashes, state)
                while s4 > 0:
                    h4 = _moved_hash(b, h3, s4, d, keys)
                    x4 = _apply(b, s4, d)
                    path[6] = s4
                    path[7] = s4 - d if s4 > d else 0
                    _record(b, h4, 4, 4, path, out, steps, table, hashes, state)
                    _undo(b, s4, d, x4)
                    s4 = _first_source(b, s4 - 1, d, g3)
                _undo(b, s3, d, x3)
                s3 = _first_source(b, s3 - 1, d, g2)
            _undo(b, s2, d, x2)
            s2 = _first_source(b, s2 - 1, d, g1)
        _undo(b, s1, d, x1)
        s1 = _first_source(b, s1 - 1, d, g0)


@jit
def generate(board: Board, d1: int, d2: int, caucasian: bool, out: npt.NDArray[np.int8],
             steps: npt.NDArray[np.int8], table: npt.NDArray[np.int32],
             hashes: npt.NDArray[np.int64], state: npt.NDArray[np.int64],
             path: npt.NDArray[np.int8], marks: npt.NDArray[np.int8],
             keys: npt.NDArray[np.int64]) -> int:
    """Fill ``out``/``steps`` with every distinct legal result; return their number.

    ``state[2]`` is set when the workspace overflowed (never for real positions)."""
    if caucasian:
        b = board.copy()
    else:
        b = marks  # the Caucasian marks' scratch holds the working copy (no allocation)
        for i in range(26):
            b[i] = board[i]
    state[0] = 0
    state[1] = 0
    state[2] = 0
    for i in range(2 * MAX_STEPS):
        path[i] = 0
    if d1 == d2 and not caucasian:
        _doubles(b, d1, path, out, steps, table, hashes, state, keys)
    elif not caucasian:
        _two_dice(b, max(d1, d2), min(d1, d2), path, out, steps, table, hashes, state, keys)
    else:
        for i in range(26):
            marks[i] = 0
        dice = np.empty(4, dtype=np.int64)
        scratch = np.empty((8, 5), dtype=np.int64)
        if d1 == d2:
            dice[:] = d1
            _search(b, dice, 4, caucasian, marks, path, out, steps, table, hashes, state,
                    keys, scratch)
        else:
            for first in range(2):
                dice[0] = max(d1, d2) if first == 0 else min(d1, d2)
                dice[1] = min(d1, d2) if first == 0 else max(d1, d2)
                _search(b, dice, 2, caucasian, marks, path, out, steps, table, hashes, state,
                        keys, scratch)
    n = state[0]
    # leave the hash table empty for the next call
    for j in range(n):
        slot = hashes[j] & (TABLE_SIZE - 1)
        while table[slot] != 0:
            table[slot] = 0
            slot = (slot + 1) & (TABLE_SIZE - 1)
    return int(n)


@jit
def generate_packed(board: Board, d1: int, d2: int, caucasian: bool,
                    i8: npt.NDArray[np.int8], i64: npt.NDArray[np.int64]) -> int:
    """:func:`generate` on a :class:`Workspace`'s two buffers; returns the number of results
    ``n``, or -1 when the workspace overflowed. The output is packed at the start of ``i8``:
    the ``n`` result rows (26 bytes each, the workspace's ``out``), then the ``n`` step rows
    (8 bytes each; the workspace's ``steps`` rows are left as they are)."""
    out = i8[_OUT_AT:_STEPS_AT].reshape((CAPACITY, 26))
    steps = i8[_STEPS_AT:_PATH_AT].reshape((CAPACITY, 2 * MAX_STEPS))
    state = i64[_STATE_AT:_TABLE_AT]
    n = generate(board, d1, d2, caucasian, out, steps, i64[_TABLE_AT:_I64_SIZE].view(np.int32),
                 i64[_HASHES_AT:_STATE_AT], state, i8[_PATH_AT:_MARKS_AT],
                 i8[_MARKS_AT:_I8_SIZE], HASH_KEYS)
    if state[2]:
        return -1
    at = 26 * n
    for j in range(n):
        for k in range(2 * MAX_STEPS):
            i8[at + k] = steps[j, k]
        at += 2 * MAX_STEPS
    return n


@jit
def generate_batch(boards: npt.NDArray[np.int8], dice: npt.NDArray[np.int64],
                   caucasian: bool, out: npt.NDArray[np.int8], offsets: npt.NDArray[np.int64],
                   w_out: npt.NDArray[np.int8], w_steps: npt.NDArray[np.int8],
                   table: npt.NDArray[np.int32], hashes: npt.NDArray[np.int64],
                   state: npt.NDArray[np.int64], path: npt.NDArray[np.int8],
                   marks: npt.NDArray[np.int8], keys: npt.NDArray[np.int64]) -> int:
    """Results for many (board, roll) pairs, packed into ``out``; ``offsets[i]:offsets[i+1]``
    are the rows of pair ``i``. Returns the total, or -1 when ``out`` is too small."""
    total = 0
    offsets[0] = 0
    for k in range(boards.shape[0]):
        n = generate(boards[k], dice[k, 0], dice[k, 1], caucasian, w_out, w_steps, table,
                     hashes, state, path, marks, keys)
        if total + n > out.shape[0]:
            return -1
        out[total:total + n] = w_out[:n]
        total += n
        offsets[k + 1] = total
    return total


_LOCAL = threading.local()


def workspace() -> Workspace:
    """This thread's scratch arrays (kernels write into them, so threads must not share)."""
    ws: Workspace | None = getattr(_LOCAL, "ws", None)
    if ws is None:
        ws = _LOCAL.ws = Workspace()
    return ws


def legal_plays_raw(board: Board, d1: int, d2: int,
                    caucasian: bool = False) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int8]]:
    """``(results int8[n,26], steps int8[n,8])`` for one board and roll."""
    ws = workspace()
    n: int = generate(np.ascontiguousarray(board, dtype=np.int8), int(d1), int(d2),
                      bool(caucasian), ws.out, ws.steps, ws.table, ws.hashes, ws.state,
                      ws.path, ws.marks, HASH_KEYS)
    if ws.state[2]:
        raise RuntimeError("move generator workspace overflow")
    return ws.out[:n].copy(), ws.steps[:n].copy()


def legal_boards(board: Board, d1: int, d2: int, caucasian: bool = False) -> npt.NDArray[np.int8]:
    """Every distinct legal result (int8[n,26], mover still to move); n = 0 when none."""
    return legal_plays_raw(board, d1, d2, caucasian)[0]


def legal_boards_batch(boards: npt.NDArray[np.int8], dice: npt.NDArray[np.integer],
                       caucasian: bool = False
                       ) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int64]]:
    """Results for many pairs: ``(results, offsets)`` with rows ``offsets[i]:offsets[i+1]``."""
    ws = workspace()
    boards = np.ascontiguousarray(boards, dtype=np.int8)
    dice64 = np.ascontiguousarray(dice, dtype=np.int64)
    size = max(64, boards.shape[0] * 48)
    while True:
        out = np.empty((size, 26), dtype=np.int8)
        offsets = np.zeros(boards.shape[0] + 1, dtype=np.int64)
        total = generate_batch(boards, dice64, bool(caucasian), out, offsets, ws.out, ws.steps,
                               ws.table, ws.hashes, ws.state, ws.path, ws.marks, HASH_KEYS)
        if total >= 0:
            return out[:total], offsets
        size *= 4


def warm() -> None:
    """Compile (or load from cache) the kernels once per process."""
    from gbot.core.board import START
    legal_boards(START, 3, 1)
    legal_boards(START, 2, 2)
    legal_boards(START, 3, 1, caucasian=True)
    legal_boards_batch(START[None, :], np.array([[6, 5]]))
