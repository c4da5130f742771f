"""The 50 numbers of a ``board:`` line in gnubg's external-player dialect, read in one call.

:func:`read_gnubg_numbers` accepts exactly the lines of standard (15-checker) games that
:func:`gbot.protocols.fibs_board.parse_fibs_board` reads as gnubg's dialect (the same number
syntax, the same consistency checks, in the same order) and reports everything else as
unreadable, Hypergammon lines included, so that the caller can let the Python parser read
them or say why not. Fields of the result:
see :data:`FIELDS`.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from gbot.core._jit import jit

N_NUMBERS = 50
MAX_DIGITS = 6
N_CHECKERS = 15
MAX_CUBE = 2**15
FIBS_MONEY = 9999
MAX_MATCH_LENGTH = 64
"""As :data:`gbot.match.MAX_MATCH_LENGTH`: longer matches are unreadable here."""

FIELDS = ("points[26]", "die1", "die2", "cube", "owner", "may_me", "may_opp", "pending",
          "score_me", "score_opp", "length", "crawford_game", "post_crawford", "colour",
          "me_first")
"""Layout of the output: my view of the points (26), then one value each; ``owner`` is 0
centre, 1 me, 2 opponent; ``me_first``: the first name on the line is mine."""
N_OUT = 26 + len(FIELDS) - 1

CENTRE = 0
ME = 1
OPPONENT = 2


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
    length = n[0]
    turn = n[29]
    d1 = n[30]
    d2 = n[31]
    cube = n[34]
    may_p = n[35]
    may_n = n[36]
    doubled = n[37]
    post = n[48]
    not_crawford = n[49]
    # gnubg's dialect
    if length == FIBS_MONEY:
        return False
    if n[38] != 1 or n[39] != -1 or n[40] != 0 or n[41] != 25:
        return False
    if n[44] != 0 or n[45] != 0 or n[46] != 0 or n[47] != 0:
        return False
    if turn != 1 and turn != -1:
        return False
    if not (0 <= doubled <= 1 and 0 <= may_p <= 1 and 0 <= may_n <= 1):
        return False
    if not (0 <= post <= 1 and 0 <= not_crawford <= 1):
        return False
    if n[32] != d1 or n[33] != d2:
        return False
    if length == 0 and (post != 0 or not_crawford != 1):
        return False
    colour = -turn if doubled else turn
    me_first = (colour > 0) == (doubled == 1)
    flag_me = may_p if colour > 0 else may_n
    flag_opp = may_n if colour > 0 else may_p
    if flag_me == 1 and flag_opp == 1:
        owner = CENTRE
    elif flag_me == 1:
        owner = ME
    elif flag_opp == 1:
        owner = OPPONENT
    else:
        return False
    if length != 0 and not_crawford == 0 and d1 == 0 and d2 == 0:
        return False
    # checker counts in the line's own frame (points are fields 3..28)
    if n[3 + 25] < 0 or n[3] > 0:
        return False
    pos = n[3 + 25] + n[42]
    neg = -n[3] + n[43]
    for i in range(1, 25):
        v = n[3 + i]
        if v > 0:
            pos += v
        else:
            neg -= v
    if n[42] < 0 or n[43] < 0 or pos != N_CHECKERS or neg != N_CHECKERS:
        return False
    for i in range(26):
        out[i] = n[3 + i] if colour > 0 else -n[3 + 25 - i]
    s_me = n[1] if me_first else n[2]
    s_opp = n[2] if me_first else n[1]
    crawford_game = length > 0 and not_crawford == 0
    # the dialect-free checks (checker counts hold by the above)
    if not (0 <= d1 <= 6 and 0 <= d2 <= 6) or (d1 == 0) != (d2 == 0):
        return False
    if cube < 1 or cube > MAX_CUBE or (cube & (cube - 1)) != 0:
        return False
    if cube == 1 and owner != CENTRE:
        return False
    if doubled and (d1 != 0 or d2 != 0 or owner == ME or cube >= MAX_CUBE):
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
    out[26] = d1
    out[27] = d2
    out[28] = cube
    out[29] = owner
    out[30] = flag_me
    out[31] = flag_opp
    out[32] = doubled
    out[33] = s_me
    out[34] = s_opp
    out[35] = length
    out[36] = crawford_game
    out[37] = post
    out[38] = colour
    out[39] = me_first
    return True
