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
import numba.extending
import numpy as np
import numpy.typing as npt
from llvmlite import ir as llvm_ir
from numba.core import cgutils

from gbot.core.arrays import frozen, nonliteral, read_only
from gbot.core.board import Board
from gbot.core.jit import jit, jit_bare

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


SMALL_MASK = 1023
"""The slots of the hash table a search uses first: 4 KiB, which stays in the L1 cache while
a call runs and is soon back in it after other work (a typical call keeps 20-70 results);
past half of them filled, the results move to the whole table."""


@_inline
def _clear(table: npt.NDArray[np.int32], hashes: npt.NDArray[np.int64], n: int,
           mask: int) -> None:
    """Empty the table slots of results ``0 .. n-1`` (inserted with ``mask``)."""
    for j in range(n):
        slot = hashes[j] & mask
        while table[slot] != 0:
            table[slot] = 0
            slot = (slot + 1) & mask


@jit_bare
def _restart(table: npt.NDArray[np.int32], hashes: npt.NDArray[np.int64],
             state: npt.NDArray[np.int64], mask: int, score: int) -> None:
    """Forget the results kept so far: a play using more dice (``score``) was found.

    This and :func:`_grow` are the rare paths of :func:`_record`, compiled once and called
    rather than inlined into every place :func:`_record` is (inlined, they took about a fifth
    of the doubles search's compile time)."""
    _clear(table, hashes, state[0], mask)
    state[0] = 0
    state[1] = score


@jit_bare
def _grow(table: npt.NDArray[np.int32], hashes: npt.NDArray[np.int64], n: int,
          mask: int) -> int:
    """Move the ``n`` results kept with ``mask`` to the whole table; returns its mask."""
    _clear(table, hashes, n, mask)
    mask = TABLE_SIZE - 1
    for j in range(n):
        slot = hashes[j] & mask
        while table[slot] != 0:
            slot = (slot + 1) & mask
        table[slot] = j + 1
    return mask


@_inline
def _record(b: Board, h: int, score: int, depth: int, path: npt.NDArray[np.int8],
            out: npt.NDArray[np.int8], steps: npt.NDArray[np.int8],
            table: npt.NDArray[np.int32], hashes: npt.NDArray[np.int64],
            state: npt.NDArray[np.int64], mask: int) -> int:
    """Keep the result ``b`` (hash ``h``, reached by ``path``) unless a play using more dice
    (higher ``score``) is known or ``b`` is already kept; returns the table's mask from now
    on (``mask``, or the whole table's once the results outgrow :data:`SMALL_MASK`)."""
    if score < state[1]:
        return mask
    if score > state[1]:
        _restart(table, hashes, state, nonliteral(mask), nonliteral(score))
    slot = h & mask
    while table[slot] != 0:
        j = table[slot] - 1
        if hashes[j] == h:
            same = True
            for i in range(26):
                if out[j, i] != b[i]:
                    same = False
                    break
            if same:
                return mask
        slot = (slot + 1) & mask
    n = state[0]
    if n >= CAPACITY or n >= (TABLE_SIZE * 3) // 4:
        state[2] = 1
        return mask
    for i in range(26):  # a loop: a slice assignment copies ``b`` to a temporary first
        out[n, i] = b[i]
    hashes[n] = h
    for i in range(2 * MAX_STEPS):
        steps[n, i] = path[i] if i < 2 * depth else 0
    table[slot] = n + 1
    state[0] = n + 1
    if mask != TABLE_SIZE - 1 and n + 1 > (mask + 1) // 2:
        return _grow(table, hashes, nonliteral(n + 1), nonliteral(mask))
    return mask


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
            _record(b, hash_at[depth], score, depth, path, out, steps, table, hashes, state,
                    TABLE_SIZE - 1)
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


_declare = cast(Callable[..., Any], cgutils.get_or_insert_function)


def _clz_typing(typingctx: Any, x: Any) -> Any:
    """Leading zero bits of an int64 (64 for 0): LLVM's ``ctlz``, one instruction."""
    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        i64 = llvm_ir.IntType(64)
        fn = _declare(builder.module, llvm_ir.FunctionType(i64, [i64, llvm_ir.IntType(1)]),
                      "llvm.ctlz.i64")
        return builder.call(fn, [args[0], llvm_ir.Constant(llvm_ir.IntType(1), 0)])
    return numba.types.int64(numba.types.int64), codegen


_clz = cast(Callable[[int], int], numba.extending.intrinsic(_clz_typing))


@_inline
def _top(m: int) -> int:
    """The highest set bit of ``m > 0``."""
    return 63 - _clz(m)


@_inline
def _occupied(b: Board) -> tuple[int, int]:
    """Bit sets over points 1..25: the mover's checkers (bit 25 = the bar) and the points the
    opponent holds with two or more (these stay so for the whole turn: a hit takes only
    blots)."""
    occ = 0
    blocked = 0
    for i in range(1, 26):
        v = b[i]
        if v > 0:
            occ |= 1 << i
        elif v < -1:
            blocked |= 1 << i
    return occ, blocked


@_inline
def _sources(occ: int, blocked: int, die: int) -> int:
    """Bit set of the points from which a checker may move ``die`` pips (the rules of
    :func:`_can_step` with the bar first), given :func:`_occupied`'s sets."""
    if occ == 0:
        return 0
    if occ >> 25:
        return 0 if (blocked >> (25 - die)) & 1 else 1 << 25
    m = occ & ~(blocked << die) & ~((2 << die) - 1)
    high = _top(occ)
    if high <= 6:
        if (occ >> die) & 1:
            m |= 1 << die
        elif high < die:
            m |= 1 << high
    return m


@_inline
def _after(b: Board, occ: int, src: int, dest: int) -> int:
    """:func:`_occupied`'s mover set once a checker went from ``src`` to ``dest`` (board
    already changed)."""
    if b[src] <= 0:
        occ &= ~(1 << src)
    if dest >= 1:
        occ |= 1 << dest
    return occ


@jit_bare
def _two_dice(b: Board, hi: int, lo: int, path: npt.NDArray[np.int8],
              out: npt.NDArray[np.int8], steps: npt.NDArray[np.int8],
              table: npt.NDArray[np.int32], hashes: npt.NDArray[np.int64],
              state: npt.NDArray[np.int64], keys: npt.NDArray[np.int64]) -> int:
    """A non-double without the Caucasian rule: both die orders as two nested loops over the
    legal sources (bit sets, highest first).

    In the second order, two-checker plays that stay on the board are skipped unless the mover
    started on the bar: with no bar and no bearing off, the first order already reached them.
    A play of one die only is recorded only when no two-dice play has been found. Returns the
    hash table's mask at the end."""
    mask = SMALL_MASK
    h0 = _hash(b, keys)
    occ0, blocked = _occupied(b)
    onbar = occ0 >> 25 != 0
    for order in range(2):
        a = hi if order == 0 else lo
        c = lo if order == 0 else hi
        m1 = _sources(occ0, blocked, a)
        while m1:
            s1 = _top(m1)
            m1 ^= 1 << s1
            d1 = s1 - a
            h1 = _moved_hash(b, h0, s1, a, keys)
            hit1 = _apply(b, s1, a)
            path[0] = s1
            path[1] = d1 if d1 > 0 else 0
            m2 = _sources(_after(b, occ0, s1, d1), blocked, c)
            found = m2 != 0
            if order == 1 and not onbar and d1 >= 1:
                # the first order reached every two-checker play that stays on the board:
                # only the moved checker and bear-offs can give new plays
                m2 &= (1 << d1) | ((2 << c) - 1)
            while m2:
                s2 = _top(m2)
                m2 ^= 1 << s2
                h2 = _moved_hash(b, h1, s2, c, keys)
                hit2 = _apply(b, s2, c)
                path[2] = s2
                path[3] = s2 - c if s2 > c else 0
                mask = _record(b, h2, 4, 2, path, out, steps, table, hashes, state, mask)
                _undo(b, s2, c, hit2)
            if not found and state[1] < 4:
                mask = _record(b, h1, 3 if a == hi else 2, 1, path, out, steps, table, hashes,
                               state, mask)
            _undo(b, s1, a, hit1)
    return mask


@jit_bare
def _doubles(b: Board, d: int, path: npt.NDArray[np.int8], out: npt.NDArray[np.int8],
             steps: npt.NDArray[np.int8], table: npt.NDArray[np.int32],
             hashes: npt.NDArray[np.int64], state: npt.NDArray[np.int64],
             keys: npt.NDArray[np.int64]) -> int:
    """Doubles without the Caucasian rule: four nested loops over sources in non-increasing
    order (every play has such an ordering, so nothing is lost and transpositions are cut);
    each level's legal sources a bit set, highest first. Returns the hash table's mask at
    the end."""
    mask = SMALL_MASK
    h0 = _hash(b, keys)
    occ0, blocked = _occupied(b)
    m1 = _sources(occ0, blocked, d)
    while m1:
        s1 = _top(m1)
        m1 ^= 1 << s1
        h1 = _moved_hash(b, h0, s1, d, keys)
        x1 = _apply(b, s1, d)
        occ1 = _after(b, occ0, s1, s1 - d)
        path[0] = s1
        path[1] = s1 - d if s1 > d else 0
        m2 = _sources(occ1, blocked, d) & ((2 << s1) - 1)
        if m2 == 0 and state[1] <= 1:
            mask = _record(b, h1, 1, 1, path, out, steps, table, hashes, state, mask)
        while m2:
            s2 = _top(m2)
            m2 ^= 1 << s2
            h2 = _moved_hash(b, h1, s2, d, keys)
            x2 = _apply(b, s2, d)
            occ2 = _after(b, occ1, s2, s2 - d)
            path[2] = s2
            path[3] = s2 - d if s2 > d else 0
            m3 = _sources(occ2, blocked, d) & ((2 << s2) - 1)
            if m3 == 0 and state[1] <= 2:
                mask = _record(b, h2, 2, 2, path, out, steps, table, hashes, state, mask)
            while m3:
                s3 = _top(m3)
                m3 ^= 1 << s3
                h3 = _moved_hash(b, h2, s3, d, keys)
                x3 = _apply(b, s3, d)
                occ3 = _after(b, occ2, s3, s3 - d)
                path[4] = s3
                path[5] = s3 - d if s3 > d else 0
                m4 = _sources(occ3, blocked, d) & ((2 << s3) - 1)
                if m4 == 0 and state[1] <= 3:
                    mask = _record(b, h3, 3, 3, path, out, steps, table, hashes, state, mask)
                while m4:
                    s4 = _top(m4)
                    m4 ^= 1 << s4
                    h4 = _moved_hash(b, h3, s4, d, keys)
                    x4 = _apply(b, s4, d)
                    path[6] = s4
                    path[7] = s4 - d if s4 > d else 0
                    mask = _record(b, h4, 4, 4, path, out, steps, table, hashes, state, mask)
                    _undo(b, s4, d, x4)
                _undo(b, s3, d, x3)
            _undo(b, s2, d, x2)
        _undo(b, s1, d, x1)
    return mask


@jit
def _caucasian(board: Board, d1: int, d2: int, out: npt.NDArray[np.int8],
               steps: npt.NDArray[np.int8], table: npt.NDArray[np.int32],
               hashes: npt.NDArray[np.int64], state: npt.NDArray[np.int64],
               path: npt.NDArray[np.int8], marks: npt.NDArray[np.int8],
               keys: npt.NDArray[np.int64]) -> None:
    """:func:`generate`'s search under the Caucasian rule (``state`` and ``path`` cleared)."""
    b = board.copy()
    for i in range(26):
        marks[i] = 0
    dice = np.empty(4, dtype=np.int64)
    scratch = np.empty((8, 5), dtype=np.int64)
    # one search kernel for both: its die count a variable, not two constants (two compiles)
    ndice = 4 if d1 == d2 else 2
    for first in range(1 if d1 == d2 else 2):
        if d1 == d2:
            dice[:] = d1
        else:
            dice[0] = max(d1, d2) if first == 0 else min(d1, d2)
            dice[1] = min(d1, d2) if first == 0 else max(d1, d2)
        _search(b, dice, ndice, True, marks, path, out, steps, table, hashes, state, keys,
                scratch)


@jit_bare
def generate(board: Board, d1: int, d2: int, caucasian: bool, out: npt.NDArray[np.int8],
             steps: npt.NDArray[np.int8], table: npt.NDArray[np.int32],
             hashes: npt.NDArray[np.int64], state: npt.NDArray[np.int64],
             path: npt.NDArray[np.int8], marks: npt.NDArray[np.int8],
             keys: npt.NDArray[np.int64]) -> int:
    """Fill ``out``/``steps`` with every distinct legal result; return their number.

    ``state[2]`` is set when the workspace overflowed (never for real positions)."""
    state[0] = 0
    state[1] = 0
    state[2] = 0
    for i in range(2 * MAX_STEPS):
        path[i] = 0
    if caucasian:
        _caucasian(board, d1, d2, out, steps, table, hashes, state, path, marks, keys)
        mask = TABLE_SIZE - 1
    else:
        b = marks  # the Caucasian marks' scratch holds the working copy (no allocation)
        for i in range(26):
            b[i] = board[i]
        if d1 == d2:
            mask = _doubles(b, d1, path, out, steps, table, hashes, state, keys)
        else:
            mask = _two_dice(b, max(d1, d2), min(d1, d2), path, out, steps, table, hashes,
                             state, keys)
    n = state[0]
    _clear(table, hashes, n, mask)  # leave the hash table empty for the next call
    return int(n)


@jit_bare
def generate_packed(board: Board, d1: int, d2: int, caucasian: bool,
                    i8: npt.NDArray[np.int8], i64: npt.NDArray[np.int64]) -> int:
    """:func:`generate` on a :class:`Workspace`'s two buffers; returns the number of results
    ``n``, or -1 when the workspace overflowed. The output is packed at the start of ``i8``:
    the ``n`` result rows (26 bytes each, the workspace's ``out``), then the ``n`` step rows
    (8 bytes each; the workspace's ``steps`` rows are left as they are)."""
    out = i8[_OUT_AT:_STEPS_AT].reshape((CAPACITY, 26))
    steps = i8[_STEPS_AT:_PATH_AT].reshape((CAPACITY, 2 * MAX_STEPS))
    state = i64[_STATE_AT:_TABLE_AT]
    n = generate(read_only(board), d1, d2, caucasian, out, steps,
                 i64[_TABLE_AT:_I64_SIZE].view(np.int32),
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
        n = generate(read_only(boards[k]), dice[k, 0], dice[k, 1], caucasian, w_out, w_steps, table,
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
    b = np.ascontiguousarray(board, dtype=np.int8)
    if b.flags.writeable:       # positions' boards are read-only already: no view to make
        b = frozen(b)
    n: int = generate(b, int(d1), int(d2), bool(caucasian), ws.out, ws.steps, ws.table,
                      ws.hashes, ws.state, ws.path, ws.marks, HASH_KEYS)
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
