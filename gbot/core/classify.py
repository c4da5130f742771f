"""Position classes: which evaluator (table or network) is responsible for a board.

Boards use the layout of :mod:`gbot.core.board` (side to move = positive, moving 24 -> 1).
Let ``back`` be the highest point holding one of my checkers (25 when I am on the bar) and
``opp_back`` the lowest point, in my numbering, holding an opponent checker (0 when the opponent
is on the bar). The classes, tried in this order:

``OVER`` (0)
    One side has no checkers left on the board or bar: the game has ended.
``BEAROFF`` (1)
    Every checker of both sides is in its owner's home board: ``back <= 6`` and
    ``opp_back >= 19`` (this implies no contact).
``RACE`` (2)
    No contact (``back < opp_back``: the armies have passed each other), not ``BEAROFF``.
``CRASHED`` (3)
    Contact, and at least one side's game has collapsed: counting that side's checkers in
    play (bar included) and not counting checkers stacked beyond the first on its 1- and
    2-points, at most :data:`CRASH_LIMIT` remain.
``CONTACT`` (4)
    Every other position with contact.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from gbot.core.arrays import read_only
from gbot.core.board import Board
from gbot.core.jit import jit

OVER = 0
BEAROFF = 1
RACE = 2
CRASHED = 3
CONTACT = 4
N_CLASSES = 5
NAMES = ("over", "bearoff", "race", "crashed", "contact")

CRASH_LIMIT = 6


@jit
def _crashed(total: int, deep1: int, deep2: int) -> bool:
    """One side's crash test: ``total`` checkers in play, ``deep1``/``deep2`` on its 1-/2-point."""
    dead = max(deep1 - 1, 0) + max(deep2 - 1, 0)
    return total - dead <= CRASH_LIMIT


@jit
def classify_counted(b: Board) -> tuple[int, int, int]:
    """``(class, checkers of the side to move on the board, the opponent's)`` of one board,
    the counts including the bar (see the module docstring for the classes)."""
    n_me = int(b[25])
    n_opp = -int(b[0])
    back = 25 if b[25] > 0 else 0
    opp_back = 0 if b[0] < 0 else 25
    for p in range(1, 25):
        v = int(b[p])
        if v > 0:
            n_me += v
            if p > back:
                back = p
        elif v < 0:
            n_opp -= v
            if p < opp_back:
                opp_back = p
    if n_me == 0 or n_opp == 0:
        return OVER, n_me, n_opp
    if back <= 6 and opp_back >= 19:
        return BEAROFF, n_me, n_opp
    if back < opp_back:
        return RACE, n_me, n_opp
    if _crashed(n_me, max(int(b[1]), 0), max(int(b[2]), 0)) or _crashed(
            n_opp, max(-int(b[24]), 0), max(-int(b[23]), 0)):
        return CRASHED, n_me, n_opp
    return CONTACT, n_me, n_opp


@jit
def classify(b: Board) -> int:
    """Class of one board (see the module docstring for the definitions)."""
    return classify_counted(b)[0]


@jit
def classify_batch(boards: npt.NDArray[np.int8], out: npt.NDArray[np.int8]) -> None:
    """Fill ``out[i]`` with the class of ``boards[i]``."""
    for i in range(boards.shape[0]):
        out[i] = classify(read_only(boards[i]))


def classify_many(boards: npt.NDArray[np.int8]) -> npt.NDArray[np.int8]:
    """Classes of an ``int8[n, 26]`` array of boards."""
    arr = np.ascontiguousarray(boards, dtype=np.int8).reshape(-1, 26)
    out = np.empty(arr.shape[0], dtype=np.int8)
    classify_batch(arr, out)
    return out
