"""Boards for hand-checked tests, written as two point -> checkers maps."""

from __future__ import annotations

import numpy as np


def board_of(mine: dict[int, int], theirs: dict[int, int]) -> np.ndarray:
    """The ``int8[26]`` board with my checkers by my point number (25 = my bar) and the
    opponent's by MY point number too (0 = their bar)."""
    b = np.zeros(26, dtype=np.int8)
    for p, n in mine.items():
        b[p] = n
    for p, n in theirs.items():
        b[p] = -n
    return b


def board_of_own(me: dict[int, int], opp: dict[int, int]) -> tuple[int, ...]:
    """A board seen by the side to move, as a tuple: ``me`` and ``opp`` map each side's OWN
    point numbers (25 = its bar) to its checkers."""
    b = [0] * 26
    for p, n in me.items():
        b[p] += n
    for p, n in opp.items():
        b[25 - p] -= n
    return tuple(b)
