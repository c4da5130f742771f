"""gbot.core.fastcall: compiled-version calls give what the dispatcher gives."""

from __future__ import annotations

import numba
import numpy as np

from gbot.core.fastcall import Bound, entry_point
from gbot.core.movegen import Workspace, generate_packed
from gbot.game.position import Position
from tests.randomplay import random_positions


@numba.njit
def _weighted(board: np.ndarray, k: int, w: np.ndarray, out: np.ndarray) -> int:
    s = 0
    for i in range(board.shape[0]):
        s += int(board[i]) * int(w[i]) * k
    out[0] = s
    return s + 1


def test_bound_equals_the_dispatcher_on_the_move_generator() -> None:
    ws = Workspace()
    ref = Workspace()
    bound = Bound(generate_packed, (ws.i8, ws.i64))
    for board, d1, d2 in random_positions(200, 5):
        b = Position(board).board
        n = bound(b, d1, d2, False)
        m = generate_packed(b, d1, d2, False, ref.i8, ref.i64)
        assert n == m
        assert bytes(ws.i8[:34 * n]) == bytes(ref.i8[:34 * m])
    assert bound._fn is not generate_packed      # the compiled version was used


def test_entry_point_needs_exact_types() -> None:
    w = np.arange(26, dtype=np.int64)
    out = np.zeros(1, dtype=np.int64)
    board = np.ones(26, dtype=np.int8)
    assert entry_point(_weighted, (board, 2, w, out)) is None       # not compiled yet
    assert _weighted(board, 2, w, out) == 2 * int(w.sum()) + 1
    fn = entry_point(_weighted, (board, 2, w, out))
    assert fn is not None and fn(board, 3, w, out) == 3 * int(w.sum()) + 1
    ro = board.copy()
    ro.setflags(write=False)
    assert entry_point(_weighted, (ro, 2, w, out)) is None            # another array type
    bound = Bound(_weighted, (w, out))
    assert bound(ro, 1) == int(w.sum()) + 1 and bound(ro, 0) == 1 and out[0] == 0
