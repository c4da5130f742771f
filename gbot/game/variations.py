"""The variations gnubg offers with ``set variation``: starting positions and checker counts.

Standard backgammon, Nackgammon (two back checkers more, one fewer on the midpoint and the
6-point) and Hypergammon with 1, 2 or 3 checkers per side (on the 24-, 23- and 22-points).
Positions are :mod:`gbot.core.board` boards seen by the player on roll; both sides start alike.
"""

from __future__ import annotations

import numpy as np

from gbot.core.board import Board
from gbot.errors import MatchRuleError

__all__ = ["VARIATIONS", "checkers_per_side", "start_board"]

_LAYOUTS: dict[str, tuple[tuple[int, int], ...]] = {
    "standard": ((24, 2), (13, 5), (8, 3), (6, 5)),
    "nackgammon": ((24, 2), (23, 2), (13, 4), (8, 3), (6, 4)),
    "hyper1": ((24, 1),),
    "hyper2": ((24, 1), (23, 1)),
    "hyper3": ((24, 1), (23, 1), (22, 1)),
}


VARIATIONS: tuple[str, ...] = tuple(_LAYOUTS)
"""Every variation's name: the one registry the rules, the commands and the protocols read."""


def _layout(variation: str) -> tuple[tuple[int, int], ...]:
    try:
        return _LAYOUTS[variation]
    except KeyError:
        raise MatchRuleError(f"unknown variation: {variation!r}") from None


def checkers_per_side(variation: str) -> int:
    """Checkers each side plays with in ``variation``."""
    return sum(n for _, n in _layout(variation))


def start_board(variation: str = "standard") -> Board:
    """A fresh starting board of ``variation`` (the same from either side's view)."""
    b = np.zeros(26, dtype=np.int8)
    for pt, n in _layout(variation):
        b[pt] = n
        b[25 - pt] = -n
    return b
