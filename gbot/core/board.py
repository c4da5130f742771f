"""The board layout shared by every kernel: a signed ``int8[26]`` seen by the side to move.

Layout (the side to move is "me", moving from 24 down to 1 and off):

* ``b[1..24]``: my point ``i`` holds ``b[i] > 0`` of my checkers, or ``-b[i]`` opponent checkers.
  The opponent's own point ``j`` is my point ``25 - j``.
* ``b[25]``: my checkers on the bar (``>= 0``).
* ``b[0]``: the opponent's checkers on the bar, stored negative (``<= 0``).

Checkers not on the board are borne off. :func:`flip` gives the same position seen by the other
side. GNU Backgammon's pair of 25-slot arrays (index ``i`` = own point ``i + 1``, index 24 = bar)
converts exactly both ways.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from gbot.core.jit import jit

Board = npt.NDArray[np.int8]

BAR = 25
OPP_BAR = 0
N_CHECKERS = 15

START = np.zeros(26, dtype=np.int8)
for _pt, _n in ((24, 2), (13, 5), (8, 3), (6, 5)):
    START[_pt] = _n
    START[25 - _pt] = -_n
START.setflags(write=False)


@jit
def flip(b: Board) -> Board:
    """The same position seen by the other side."""
    out = np.empty(26, dtype=np.int8)
    for i in range(26):
        out[i] = -b[25 - i]
    return out


def flip_py(b: Board) -> Board:
    """:func:`flip` without compilation (for Python-level callers)."""
    return (-b[::-1]).astype(np.int8)


def from_gnubg(on_roll: list[int] | npt.NDArray[np.integer], opponent: list[int] |
               npt.NDArray[np.integer]) -> Board:
    """Board from GNU Backgammon's two 25-slot arrays (each indexed by its owner's point - 1)."""
    b = np.zeros(26, dtype=np.int8)
    for i in range(24):
        if on_roll[i]:
            b[i + 1] = on_roll[i]
        if opponent[i]:
            b[24 - i] = -opponent[i]
    b[25] = on_roll[24]
    b[0] = -opponent[24]
    return b


def to_gnubg(b: Board) -> tuple[list[int], list[int]]:
    """The two 25-slot arrays ``(on_roll, opponent)`` of GNU Backgammon's layout."""
    me = [0] * 25
    opp = [0] * 25
    for i in range(24):
        v = int(b[i + 1])
        if v > 0:
            me[i] = v
        w = int(b[24 - i])
        if w < 0:
            opp[i] = -w
    me[24] = int(b[25])
    opp[24] = -int(b[0])
    return me, opp


def checkers(b: Board) -> tuple[int, int]:
    """Checkers still in play (board and bar) for ``(me, opponent)``."""
    arr = b.astype(np.int64)
    mine = int(arr[1:25][arr[1:25] > 0].sum() + arr[25])
    theirs = int(-arr[1:25][arr[1:25] < 0].sum() - arr[0])
    return mine, theirs


def pips(b: Board) -> tuple[int, int]:
    """Pip counts ``(me, opponent)``."""
    arr = b.astype(np.int64)
    idx = np.arange(26)
    mine = int((np.clip(arr[1:25], 0, None) * idx[1:25]).sum() + 25 * arr[25])
    theirs = int((np.clip(-arr[1:25], 0, None) * (25 - idx[1:25])).sum() - 25 * arr[0])
    return mine, theirs
