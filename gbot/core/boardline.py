"""The layout of a ``board:`` line's 50 numbers, and the compiled reader of gnubg's dialect.

This module owns the field layout (the ``F_*`` indices into the numbers after the two
names, both dialects) and its constants; :mod:`gbot.game.notations.fibs_board`, the Python
parser and writer, reads and writes the line with them.

:func:`read_gnubg_numbers` accepts exactly the lines of standard (15-checker) games that
:func:`gbot.game.notations.fibs_board.parse_fibs_board` reads as gnubg's dialect (the same number
syntax, the same consistency checks, in the same order) and reports everything else as
unreadable, Hypergammon lines included, so that the caller can let the Python parser read
them or say why not. Fields of the result:
see :data:`FIELDS`.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from gbot.core.cubemath import OWNER_CENTRE, OWNER_ME, OWNER_OPPONENT
from gbot.core.jit import jit
from gbot.core.limits import MAX_CUBE as MAX_CUBE
from gbot.core.limits import MAX_MATCH_LENGTH as MAX_MATCH_LENGTH

N_NUMBERS = 50
"""Numbers after the two names."""
MAX_DIGITS = 6
"""Digits a number may have (a sign aside)."""
N_CHECKERS = 15
"""Checkers per side in standard backgammon and Nackgammon (the most a line may hold)."""
FIBS_MONEY = 9999
"""The match length FIBS writes for an unlimited (money) session."""

# --- the field layout: indices into the 50 numbers (field k of the line is number k - 1) ---
F_LENGTH = 0
"""Match length (0 money in gnubg's dialect, :data:`FIBS_MONEY` in FIBS's)."""
F_SCORE = 1
"""The two scores, in the order of the names (2 numbers)."""
F_POINTS = 3
"""The board in the line's fixed frame (26 numbers: bar of the negative side first)."""
F_TURN = 29
"""The colour of the side to act (gnubg: the doubler while a double is pending)."""
F_DICE = 30
"""A dice pair (2 numbers; FIBS: player 1's)."""
F_DICE2 = 32
"""The second dice pair (gnubg: a copy of the first; FIBS: player 2's)."""
F_CUBE = 34
"""Cube value."""
F_MAY_DOUBLE = 35
"""The two may-double flags (2 numbers; gnubg: positive side first, FIBS: player 1 first)."""
F_DOUBLED = 37
"""Was-doubled: a double is pending."""
F_COLOUR = 38
"""Player 1's colour (gnubg: always 1)."""
F_DIRECTION = 39
"""Player 1's direction (with :data:`F_HOME` and :data:`F_BAR`: the frame)."""
F_HOME = 40
F_BAR = 41
F_OFF = 42
"""Checkers borne off (2 numbers; gnubg: positive side first, FIBS: player 1 first)."""
F_FIBS_BAR = 44
"""FIBS: the bar counts repeated (2 numbers, player 1 first); gnubg writes 0."""
F_CAN_MOVE = 46
"""FIBS: how many checkers the roll moves; gnubg writes 0."""
F_FORCED = 47
"""FIBS: forced move; gnubg writes 0."""
F_POST_CRAWFORD = 48
"""A post-Crawford game (both dialects)."""
F_LAST = 49
"""gnubg: not the Crawford game; FIBS: redoubles."""
GNUBG_FRAME = (1, -1, 0, 25)
"""Colour, direction, home and bar as gnubg writes them (fields :data:`F_COLOUR` on)."""
FIBS_FRAMES = {1: (-1, 0, 25), -1: (1, 25, 0)}
"""Direction, home and bar FIBS writes for player 1's colour."""

FIELDS = ("points[26]", "die1", "die2", "cube", "owner", "may_me", "may_opp", "pending",
          "score_me", "score_opp", "length", "crawford_game", "post_crawford", "colour",
          "me_first")
"""Layout of the output: my view of the points (26), then one value each; ``owner`` is
:data:`gbot.core.cubemath.OWNER_CENTRE`, ``OWNER_ME`` or ``OWNER_OPPONENT``; ``me_first``: the
first name on the line is mine."""
N_OUT = 26 + len(FIELDS) - 1
OUT_DIE1 = 26
"""Where each field after the points lands in the output (``out[OUT_CUBE]`` is the cube)."""
OUT_DIE2 = 27
OUT_CUBE = 28
OUT_OWNER = 29
OUT_MAY_ME = 30
OUT_MAY_OPP = 31
OUT_PENDING = 32
OUT_SCORE_ME = 33
OUT_SCORE_OPP = 34
OUT_LENGTH = 35
OUT_CRAWFORD = 36
OUT_POST_CRAWFORD = 37
OUT_COLOUR = 38
OUT_ME_FIRST = 39


@jit
def _numbers(text: npt.NDArray[np.uint8], n: npt.NDArray[np.int64]) -> bool:
    """Split ``text`` into exactly :data:`N_NUMBERS` plain integers (``-?[1-9][0-9]{0,5}``
    or ``0``) separated by single colons."""
    k = 0
    i = 0
    size = text.shape[0]
    while True:
        if k == N_NUMBERS:
            return False
        neg = False
        if i < size and text[i] == 45:          # '-'
            neg = True
            i += 1
        if i >= size or text[i] < 48 or text[i] > 57:
            return False
        if text[i] == 48:                      # '0' stands alone, unsigned
            if neg:
                return False
            value = 0
            i += 1
        else:
            value = 0
            digits = 0
            while i < size and 48 <= text[i] <= 57:
                value = 10 * value + (text[i] - 48)
                digits += 1
                i += 1
            if digits > MAX_DIGITS:
                return False
        n[k] = -value if neg else value
        k += 1
        if i == size:
            return k == N_NUMBERS
        if text[i] != 58:                      # ':'
            return False
        i += 1


@jit
def read_gnubg_numbers(text: npt.NDArray[np.uint8], out: npt.NDArray[np.int64]) -> bool:
    """Read the numbers of a gnubg board line (the ASCII text after the two names) into
    ``out`` (:data:`N_OUT` values, see :data:`FIELDS`); False when the line is not a
    possible gnubg board (``out`` is then meaningless)."""
    n = np.empty(N_NUMBERS, dtype=np.int64)
    if not _numbers(text, n):
        return False
    length = n[F_LENGTH]
    turn = n[F_TURN]
    d1 = n[F_DICE]
    d2 = n[F_DICE + 1]
    cube = n[F_CUBE]
    may_p = n[F_MAY_DOUBLE]
    may_n = n[F_MAY_DOUBLE + 1]
    doubled = n[F_DOUBLED]
    post = n[F_POST_CRAWFORD]
    not_crawford = n[F_LAST]
    # gnubg's dialect
    if length == FIBS_MONEY:
        return False
    if (n[F_COLOUR] != GNUBG_FRAME[0] or n[F_DIRECTION] != GNUBG_FRAME[1]
            or n[F_HOME] != GNUBG_FRAME[2] or n[F_BAR] != GNUBG_FRAME[3]):
        return False
    if n[F_FIBS_BAR] != 0 or n[F_FIBS_BAR + 1] != 0 or n[F_CAN_MOVE] != 0 or n[F_FORCED] != 0:
        return False
    if turn != 1 and turn != -1:
        return False
    if not (0 <= doubled <= 1 and 0 <= may_p <= 1 and 0 <= may_n <= 1):
        return False
    if not (0 <= post <= 1 and 0 <= not_crawford <= 1):
        return False
    if n[F_DICE2] != d1 or n[F_DICE2 + 1] != d2:
        return False
    if length == 0 and (post != 0 or not_crawford != 1):
        return False
    colour = -turn if doubled else turn
    me_first = (colour > 0) == (doubled == 1)
    flag_me = may_p if colour > 0 else may_n
    flag_opp = may_n if colour > 0 else may_p
    if flag_me == 1 and flag_opp == 1:
        owner = OWNER_CENTRE
    elif flag_me == 1:
        owner = OWNER_ME
    elif flag_opp == 1:
        owner = OWNER_OPPONENT
    else:
        return False
    if length != 0 and not_crawford == 0 and d1 == 0 and d2 == 0:
        return False
    # checker counts in the line's own frame
    if n[F_POINTS + 25] < 0 or n[F_POINTS] > 0:
        return False
    pos = n[F_POINTS + 25] + n[F_OFF]
    neg = -n[F_POINTS] + n[F_OFF + 1]
    for i in range(1, 25):
        v = n[F_POINTS + i]
        if v > 0:
            pos += v
        else:
            neg -= v
    if n[F_OFF] < 0 or n[F_OFF + 1] < 0 or pos != N_CHECKERS or neg != N_CHECKERS:
        return False
    for i in range(26):
        out[i] = n[F_POINTS + i] if colour > 0 else -n[F_POINTS + 25 - i]
    s_me = n[F_SCORE] if me_first else n[F_SCORE + 1]
    s_opp = n[F_SCORE + 1] if me_first else n[F_SCORE]
    crawford_game = length > 0 and not_crawford == 0
    # the dialect-free checks (checker counts hold by the above)
    if not (0 <= d1 <= 6 and 0 <= d2 <= 6) or (d1 == 0) != (d2 == 0):
        return False
    if cube < 1 or cube > MAX_CUBE or (cube & (cube - 1)) != 0:
        return False
    if cube == 1 and owner != OWNER_CENTRE:
        return False
    if doubled and (d1 != 0 or d2 != 0 or owner == OWNER_ME or cube >= MAX_CUBE):
        return False
    if length < 0 or length > MAX_MATCH_LENGTH or s_me < 0 or s_opp < 0:
        return False
    if length and max(s_me, s_opp) >= length:
        return False
    at_point = length != 0 and (s_me == length - 1 or s_opp == length - 1)
    if crawford_game and post:
        return False
    if (crawford_game or post) and not at_point:
        return False
    if crawford_game and s_me == s_opp:
        return False
    if crawford_game and (cube != 1 or doubled):
        return False
    out[OUT_DIE1] = d1
    out[OUT_DIE2] = d2
    out[OUT_CUBE] = cube
    out[OUT_OWNER] = owner
    out[OUT_MAY_ME] = flag_me
    out[OUT_MAY_OPP] = flag_opp
    out[OUT_PENDING] = doubled
    out[OUT_SCORE_ME] = s_me
    out[OUT_SCORE_OPP] = s_opp
    out[OUT_LENGTH] = length
    out[OUT_CRAWFORD] = crawford_game
    out[OUT_POST_CRAWFORD] = post
    out[OUT_COLOUR] = colour
    out[OUT_ME_FIRST] = me_first
    return True
