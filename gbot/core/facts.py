"""Facts about one board that the decision path asks for on every question, one kernel call each.

Boards use the layout of :mod:`gbot.core.board` (side to move = positive, moving 24 -> 1).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from gbot.core._jit import jit
from gbot.core.board import Board
from gbot.core.classify import BEAROFF, CRASHED, OVER, RACE, classify


@jit
def contact(b: Board) -> bool:
    """Whether some checker still has to pass an opponent checker: a checker on either bar, or
    one of mine above the opponent's lowest point."""
    if b[25] > 0 or b[0] < 0:
        return True
    lowest = 25
    for i in range(1, 25):
        if b[i] < 0:
            lowest = i
            break
    for i in range(lowest + 1, 25):
        if b[i] > 0:
            return True
    return False


@jit
def checkers_left(b: Board) -> tuple[int, int]:
    """Checkers still in play (board and bar) for ``(me, opponent)``."""
    mine = int(b[25])
    theirs = -int(b[0])
    for i in range(1, 25):
        v = int(b[i])
        if v > 0:
            mine += v
        else:
            theirs -= v
    return mine, theirs


@jit
def class_and_pips(b: Board) -> tuple[int, int]:
    """The position class (:func:`gbot.core.classify.classify`) and my pip count."""
    pips = 25 * int(b[25])
    for i in range(1, 25):
        v = int(b[i])
        if v > 0:
            pips += v * i
    return classify(b), pips


@jit
def cube_lives(boards: npt.NDArray[np.int8], lives: npt.NDArray[np.float64],
               out: npt.NDArray[np.float64]) -> None:
    """The cube life of each board by its class: ``lives`` holds the contact, crashed and
    bear-off lives, then the race life's base, per pip, minimum and maximum."""
    for i in range(boards.shape[0]):
        cls, pips = class_and_pips(boards[i])
        if cls == RACE:
            out[i] = min(max(lives[3] + lives[4] * pips, lives[5]), lives[6])
        elif cls == BEAROFF or cls == OVER:
            out[i] = lives[2]
        elif cls == CRASHED:
            out[i] = lives[1]
        else:
            out[i] = lives[0]
