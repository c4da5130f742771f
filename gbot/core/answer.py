"""The gnubg external-player server's common questions answered in one kernel call.

:func:`answer_board` takes a bare ``board:`` line (ASCII, no options) and answers the two
questions that make up most of a match when the answer needs no match-state reasoning:

* a move: the 0-ply best play (:func:`gbot.core.bestplay.best_static`) and its text
  (:func:`gbot.core.notation.format_steps_into`);
* double or roll, when the side on roll may not double (cube rules) or, before the Crawford
  game and in money play, its 0-ply winning chance is below the engine's no-double
  threshold: ``roll``;

both only when no resignation can be due: with contact, or with a 0-ply winning chance above
the engine's resignation threshold. Everything else (take questions, a possible double or
resignation, lines the fast reader does not accept) is :data:`FALLBACK`: the caller answers
with the general path
(:func:`gbot.protocols.gnubg_external.handle_line`), which is the reference for these answers.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from gbot.core._jit import jit
from gbot.core.bestplay import best_static, static_values
from gbot.core.boardline import OPPONENT, read_gnubg_numbers
from gbot.core.facts import checkers_left, contact
from gbot.core.notation import format_steps_into

F32 = npt.NDArray[np.float32]
F64 = npt.NDArray[np.float64]
I8 = npt.NDArray[np.int8]
U8 = npt.NDArray[np.uint8]
I64 = npt.NDArray[np.int64]

FALLBACK = 0
"""Not answered here."""
MOVE = 1
"""The reply is the move text written to ``reply`` (``info[0]`` bytes; 0: no legal move)."""
ROLL = 2
"""The reply is ``roll``."""


@jit
def _names_end(text: U8) -> int:
    """Index after the colon that ends the second name (``text`` starts with ``board:``), or
    -1 when a name holds a control character or the colons are missing."""
    colons = 0
    i = 6
    while i < text.shape[0]:
        c = text[i]
        i += 1
        if c == 58:
            colons += 1
            if colons == 2:
                return i
        elif c < 32 or c == 127:
            return -1
    return -1


@jit
def answer_board(text: U8, caucasian: bool, bearoff: bool, cube_enabled: bool, max_cube: int,
                 no_double_below: float, no_resign_above: float, children: I8, probs: F64,
                 kinds: I8, counts: I64, mover: F64, eqs: F64, rows: I8, values: F32,
                 w_out: I8, w_steps: I8,
                 table: npt.NDArray[np.int32], hashes: I64, state: I64, path: I8, marks: I8,
                 keys: I64, esc: I64, class_net: I64, w1m: F32, b1: F32, w2t: F32, b2: F32,
                 activation: int, dist: F32, gdist: F32, two: F32, binom: I64, res: I64,
                 fields: I64, reply: U8, info: I64) -> int:
    """Answer the line ``text`` (see the module docstring): :data:`MOVE`, :data:`ROLL` or
    :data:`FALLBACK`. ``fields`` gets the line's numbers as
    :func:`gbot.core.boardline.read_gnubg_numbers` writes them (valid unless FALLBACK)."""
    start = _names_end(text)
    if start < 0 or not read_gnubg_numbers(text[start:], fields):
        return FALLBACK
    if fields[32] != 0:                       # a double is pending: take or drop
        return FALLBACK
    board = np.empty(26, dtype=np.int8)
    for i in range(26):
        board[i] = fields[i]
    one = children[:1]
    win = -1.0                                # the 0-ply winning chance, once known
    if not contact(board):                    # resignations are only weighed without contact
        mine, theirs = checkers_left(board)
        if mine == 0 or theirs == 0:
            return FALLBACK
        one[0, :] = board
        if static_values(one, bearoff, probs, kinds, counts, rows, values, esc, class_net,
                         w1m, b1, w2t, b2, activation, dist, gdist, two, binom) != 0:
            return FALLBACK
        win = probs[0, 0]
        if not win > no_resign_above:
            return FALLBACK
    d1 = fields[26]
    d2 = fields[27]
    if d1 != 0:
        code = best_static(board, d1, d2, caucasian, bearoff, children, probs, kinds, counts,
                           mover, eqs, rows, values, w_out, w_steps, table, hashes, state,
                           path, marks, keys, esc, class_net, w1m, b1, w2t, b2, activation,
                           dist, gdist, two, binom, res)
        if code != 0:
            return FALLBACK
        info[0] = 0
        if res[0] > 0:
            info[0] = format_steps_into(board, w_steps[res[1]], reply)
        return MOVE
    length = fields[35]
    crawford = fields[36] != 0
    if (not cube_enabled or (length > 0 and crawford) or fields[29] == OPPONENT
            or fields[28] * 2 > max_cube):
        return ROLL                           # the cube is not mine to turn
    if length > 0 and not crawford and (fields[33] == length - 1 or fields[34] == length - 1):
        return FALLBACK                       # post-Crawford: the free double
    if win < 0.0:
        one[0, :] = board
        if static_values(one, bearoff, probs, kinds, counts, rows, values, esc, class_net,
                         w1m, b1, w2t, b2, activation, dist, gdist, two, binom) != 0:
            return FALLBACK
        win = probs[0, 0]
    if win < no_double_below:
        return ROLL
    return FALLBACK
