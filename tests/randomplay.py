"""Positions reached by seeded random play, for cross-checks (test helper, not shipped)."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from gbot.core.board import START, flip_py
from gbot.core.movegen import legal_boards


def random_positions(n: int, seed: int) -> Iterator[tuple[np.ndarray, int, int]]:
    """``n`` (board, d1, d2) triples from random games: each board is the side to move's."""
    rng = np.random.default_rng(seed)
    b = START.copy()
    made = 0
    while made < n:
        d1, d2 = (int(x) for x in rng.integers(1, 7, size=2))
        yield b.copy(), d1, d2
        made += 1
        res = legal_boards(b, d1, d2)
        if len(res):
            b = res[rng.integers(len(res))]
        if not (b[1:26] > 0).any():
            b = START.copy()
            continue
        b = flip_py(b)


def random_race_positions(n: int, seed: int) -> Iterator[tuple[np.ndarray, int, int]]:
    """``n`` (board, d1, d2) triples of races and bear-offs: my checkers on points 1..9 (so some
    are not yet home), the opponent's on my points 16..24, any number of each borne off."""
    rng = np.random.default_rng(seed)
    for _ in range(n):
        b = np.zeros(26, dtype=np.int8)
        for _k in range(int(rng.integers(1, 16))):
            b[int(rng.integers(1, 10))] += 1
        for _k in range(int(rng.integers(1, 16))):
            b[int(rng.integers(16, 25))] -= 1
        d1, d2 = (int(x) for x in rng.integers(1, 7, size=2))
        yield b, d1, d2
