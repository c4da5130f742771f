"""Facts about one board that the decision path asks for on every question, one kernel call each.

Boards use the layout of :mod:`gbot.core.board` (side to move = positive, moving 24 -> 1).
"""

from __future__ import annotations

from gbot.core.arrays import read_only
from gbot.core.board import Board
from gbot.core.classify import classify
from gbot.core.jit import jit


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
def bearoff_within(b: Board, most: int) -> bool:
    """Both sides bearing off (every checker home, none on the bar), each with at most
    ``most`` checkers left and the game not over."""
    if b[25] != 0 or b[0] != 0:
        return False
    mine = 0
    theirs = 0
    for i in range(1, 25):
        v = int(b[i])
        if v > 0:
            if i > 6:
                return False
            mine += v
        elif v < 0:
            if i < 19:
                return False
            theirs -= v
    return 0 < mine <= most and 0 < theirs <= most


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
    return classify(read_only(b)), pips
