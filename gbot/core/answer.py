"""The gnubg external-player server's common questions answered in one kernel call.

:func:`answer_board` takes a bare ``board:`` line (ASCII, no options) and answers the two
questions that make up most of a match when the answer needs no match-state reasoning:

* a move in money play when the engine ranks plays by cubeless equity (``cubeless_plays``):
  the 0-ply best play (:func:`gbot.core.bestplay.best_static`) and its text
  (:func:`gbot.core.notation.format_steps_into`); a move in match play is handed to
  :func:`match_play` (:data:`NEED_MATCH`), which ranks the plays as
  :func:`gbot.cube.plays.best_play_index` does;
* double or roll, when the side on roll may not double (cube rules) or, before the Crawford
  game and in money play, its 0-ply winning chance is below the engine's no-double
  threshold: ``roll``; in match play the cube model decides (:func:`match_cube`, a second
  call); in money play without a cube cap, ``double`` or ``roll`` by Janowski's
  closed forms and the decision rule, the kernels :func:`gbot.cube.cubeful.cubeful` and
  :func:`gbot.cube.decision.decide` call too (:mod:`gbot.core.cubemath`; ``cube`` holds the
  rules' cube switches);

both only when no resignation can be due: with contact, or with a 0-ply winning chance above
the engine's resignation threshold. Everything else (take questions, a possible double or
resignation, lines the fast reader does not accept) is :data:`FALLBACK`: the engine's general
path answers (:meth:`gbot.engine.Engine.fast_reply` calls these kernels through
:mod:`gbot.fastreply`), which is the reference for these answers.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from gbot.core._jit import jit
from gbot.core.bestplay import best_static, static_fill, static_values
from gbot.core.boardline import (
    OUT_CRAWFORD,
    OUT_CUBE,
    OUT_DIE1,
    OUT_DIE2,
    OUT_LENGTH,
    OUT_OWNER,
    OUT_PENDING,
    OUT_SCORE_ME,
    OUT_SCORE_OPP,
    read_gnubg_numbers,
)
from gbot.core.classify import BEAROFF, OVER
from gbot.core.cubemath import (
    JANOWSKI_MAX_CUBE,
    LIVES,
    OWNER_OPPONENT,
    WIN_G,
    action_of,
    clip_probs,
    cube_values,
    dead_values_rows,
    doubles,
    emg,
    janowski,
    life_of,
    lives_rows,
    pick,
    response_of,
)
from gbot.core.expand import classify_child, flip_into
from gbot.core.facts import checkers_left, class_and_pips, contact
from gbot.core.movegen import generate
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
DOUBLE = 3
"""The reply is ``double``."""
NEED_MATCH = 4
"""A move in match play: answer it with :func:`match_play` (``fields`` are valid)."""
NEED_CUBE = 5
"""Double or roll in match play, the cube model to ask: :func:`match_cube` (``fields`` and
``probs[0]``, the position's 0-ply probabilities, are valid)."""

# the ``cube`` argument: the rules' cube switches (cube lives: :data:`gbot.core.cubemath.LIVES`)
MULT = 0
"""Three entries: what a single, a gammon and a backgammon count under the end mode."""
JACOBY = 3
BEAVERS = 4
CUBE_CAP = 5
N_CUBE = 6


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
                 no_double_below: float, no_resign_above: float, cubeless_plays: bool,
                 cube: F64, children: I8, probs: F64,
                 kinds: I8, counts: I64, mover: F64, eqs: F64, rows: I8, values: F32,
                 w_out: I8, w_steps: I8,
                 table: npt.NDArray[np.int32], hashes: I64, state: I64, path: I8, marks: I8,
                 keys: I64, esc: I64, class_net: I64, w1m: F32, b1: F32, w2t: F32, b2: F32,
                 activation: int, dist: F32, gdist: F32, two: F32, binom: I64, res: I64,
                 fields: I64, reply: U8, info: I64) -> int:
    """Answer the line ``text`` (see the module docstring): :data:`MOVE`, :data:`ROLL`,
    :data:`DOUBLE` or :data:`FALLBACK`. ``fields`` gets the line's numbers as
    :func:`gbot.core.boardline.read_gnubg_numbers` writes them (valid unless FALLBACK)."""
    start = _names_end(text)
    if start < 0 or not read_gnubg_numbers(text[start:], fields):
        return FALLBACK
    if fields[OUT_PENDING] != 0:              # a double is pending: take or drop
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
    d1 = fields[OUT_DIE1]
    d2 = fields[OUT_DIE2]
    length = fields[OUT_LENGTH]
    if d1 != 0:
        if length != 0:
            return NEED_MATCH                 # plays ranked with the match state
        if not cubeless_plays:
            return FALLBACK                   # plays ranked with the money end mode
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
    crawford = fields[OUT_CRAWFORD] != 0
    if (not cube_enabled or (length > 0 and crawford) or fields[OUT_OWNER] == OWNER_OPPONENT
            or fields[OUT_CUBE] * 2 > max_cube):
        return ROLL                           # the cube is not mine to turn
    post = length > 0 and not crawford and (fields[OUT_SCORE_ME] == length - 1
                                            or fields[OUT_SCORE_OPP] == length - 1)
    if win < 0.0:
        one[0, :] = board
        if static_values(one, bearoff, probs, kinds, counts, rows, values, esc, class_net,
                         w1m, b1, w2t, b2, activation, dist, gdist, two, binom) != 0:
            return FALLBACK
        win = probs[0, 0]
    dead = length > 0 and fields[OUT_CUBE] >= length - fields[OUT_SCORE_OPP]   # theirs at stake
    if win < no_double_below and not post and not dead:   # (post-Crawford: the free double)
        return ROLL
    cls, pips = class_and_pips(board)
    if cls == BEAROFF or cls == OVER:
        return FALLBACK                       # bear-offs may get a look-ahead decision
    if length != 0:
        return NEED_CUBE                      # match play: the cube model, match_cube()
    if cube[CUBE_CAP] != 0.0 or fields[OUT_CUBE] > JANOWSKI_MAX_CUBE:
        return FALLBACK                       # a capped cube: the cube model
    verdict = _money_doubles(probs[0], cls, pips, fields[OUT_OWNER], cube)
    if verdict < 0:
        return FALLBACK
    return DOUBLE if verdict == 1 else ROLL


@jit
def _money_doubles(p: F64, cls: int, pips: int, owner: int, cube: F64) -> int:
    """1 when the side on roll should double (money, no cube cap), 0 when not, -1 when the
    probabilities are inconsistent (the general path then reports it): Janowski's values and
    the decision rule of :mod:`gbot.core.cubemath`."""
    checked = np.empty(5, dtype=np.float64)
    if not clip_probs(p, checked):
        return -1
    e = np.empty(3, dtype=np.float64)
    janowski(checked, cube[MULT:MULT + 3], life_of(cls, pips, LIVES), owner,
             cube[JACOBY] != 0.0, e)
    a = action_of(e[0], e[1], e[2], checked[WIN_G], cube[BEAVERS] != 0.0)
    return 1 if doubles(a) else 0


@jit
def _match_value(raw: F64, checked: F64, can: bool, win_mwc: float, lose_mwc: float) -> float:
    """The side on roll's winning chance with its right cube action, from the level model's
    raw values ``raw`` (match play)."""
    if not can:
        return float(raw[0])
    nd = emg(raw[0], win_mwc, lose_mwc)
    dt = emg(raw[1], win_mwc, lose_mwc)
    dp = emg(raw[2], win_mwc, lose_mwc)
    a = action_of(nd, dt, dp, checked[WIN_G], False)
    return pick(a, response_of(dt, dp, False), raw[0], raw[1], raw[2])


@jit
def _match_doubles(raw: F64, checked: F64, win_mwc: float, lose_mwc: float) -> bool:
    """Whether the side on roll should double, from the level model's raw values (match)."""
    nd = emg(raw[0], win_mwc, lose_mwc)
    dt = emg(raw[1], win_mwc, lose_mwc)
    dp = emg(raw[2], win_mwc, lose_mwc)
    return doubles(action_of(nd, dt, dp, checked[WIN_G], False))


@jit
def match_play(fields: I64, caucasian: bool, bearoff: bool, children: I8, probs: F64,
               kinds: I8, counts: I64, rows: I8, values: F32, w_out: I8, w_steps: I8,
               table: npt.NDArray[np.int32], hashes: I64, state: I64, path: I8, marks: I8,
               keys: I64, esc: I64, class_net: I64, w1m: F32, b1: F32, w2t: F32, b2: F32,
               activation: int, dist: F32, gdist: F32, two: F32, binom: I64, lives: F64,
               mult: F64, met: F64, away: int, opp_away: int, cube: int, owner: int, top: int,
               dead_nd: bool, can: bool, outcomes: F64, win_mwc: float, lose_mwc: float,
               window: float, keep: int, reply: U8, info: I64) -> int:
    """The move of the line read into ``fields`` (match play), ranked as
    :meth:`gbot.engine.Engine.choose_play` ranks it with the match state: by what the
    opponent, on roll after each play, gets with its right cube action
    (:func:`gbot.cube.plays.best_play_index`: the plays whose dead-cube value
    (:func:`gbot.core.cubemath.dead_values_rows` with ``outcomes``) is within ``window`` of
    the best, at most ``keep``, valued by the cube model). The arguments after ``lives`` (the
    cube lives, laid out as :data:`gbot.core.cubemath.LIVES`) describe the opponent's
    cube situation as :func:`gbot.core.cubemath.cube_values` takes it, ``win_mwc`` and
    ``lose_mwc`` its match chances after winning or losing the cube. Returns :data:`MOVE`
    (text in ``reply``, ``info[0]`` bytes) or :data:`FALLBACK`."""
    board = np.empty(26, dtype=np.int8)
    for i in range(26):
        board[i] = fields[i]
    n = generate(board, fields[OUT_DIE1], fields[OUT_DIE2], caucasian, w_out, w_steps, table,
                 hashes, state, path, marks, keys)
    if state[2] != 0 or n > children.shape[0]:
        return FALLBACK
    info[0] = 0
    if n == 0:
        return MOVE
    best = 0
    if n > 1:
        counts[0] = 0
        counts[1] = 0
        for i in range(n):
            flip_into(w_out[i], children[i])
            classify_child(children[i], bearoff, probs, kinds, i, counts)
        if static_fill(children, n, kinds, counts, probs, rows, values, esc, class_net, w1m,
                       b1, w2t, b2, activation, dist, gdist, two, binom) != 0:
            return FALLBACK
        life = np.empty(n, dtype=np.float64)
        lives_rows(children[:n], lives, life)
        dead = np.empty(n, dtype=np.float64)
        dead_values_rows(probs[:n], outcomes, 1.0, dead)
        order = np.empty(n, dtype=np.int64)          # stable sort by dead value
        for i in range(n):
            j = i
            while j > 0 and dead[order[j - 1]] > dead[i]:
                order[j] = order[j - 1]
                j -= 1
            order[j] = i
        bound = dead[order[0]] + window
        kept = np.empty(keep, dtype=np.int64)
        m = 0
        for i in range(n):
            if m < keep and dead[order[i]] <= bound:
                kept[m] = order[i]
                m += 1
        best = kept[0]
        if m > 1:
            kept[:m].sort()
            checked = np.empty(5, dtype=np.float64)
            raw = np.empty(3, dtype=np.float64)
            best_value = np.inf
            for t in range(m):
                i = kept[t]
                if not clip_probs(probs[i], checked):
                    return FALLBACK
                if cube_values(checked, mult, False, away, opp_away, met, cube, owner, top,
                               life[i], False, dead_nd, can, raw) != 0:
                    return FALLBACK
                if win_mwc == lose_mwc or raw[0] != raw[0]:
                    return FALLBACK
                v = _match_value(raw, checked, can, win_mwc, lose_mwc)
                if v < best_value - 1e-12:
                    best = i
                    best_value = v
    info[0] = format_steps_into(board, w_steps[best], reply)
    return MOVE


@jit
def match_cube(fields: I64, p: F64, lives: F64, mult: F64, met: F64, away: int,
               opp_away: int, cube: int, owner: int, top: int, dead_nd: bool, can: bool,
               win_mwc: float, lose_mwc: float) -> int:
    """Double or roll for the line read into ``fields`` (match play, the side on roll may
    double), from its 0-ply probabilities ``p``, as :meth:`gbot.engine.Engine.cube_action`
    decides with the cube model (:func:`gbot.cube.decision.decide`): :data:`DOUBLE`,
    :data:`ROLL`, or :data:`FALLBACK` (bear-offs, and whatever the general path reports).
    The arguments after ``lives`` are the side on roll's cube situation as
    :func:`gbot.core.cubemath.cube_values` takes it; ``win_mwc``/``lose_mwc`` its match
    chances after winning or losing the cube."""
    board = np.empty(26, dtype=np.int8)
    for i in range(26):
        board[i] = fields[i]
    cls, pips = class_and_pips(board)
    if cls == BEAROFF or cls == OVER:
        return FALLBACK
    life = life_of(cls, pips, lives)
    checked = np.empty(5, dtype=np.float64)
    if not clip_probs(p, checked):
        return FALLBACK
    raw = np.empty(3, dtype=np.float64)
    if cube_values(checked, mult, False, away, opp_away, met, cube, owner, top, life, False,
                   dead_nd, can, raw) != 0:
        return FALLBACK
    if win_mwc == lose_mwc:
        return FALLBACK
    if not can:
        return ROLL
    return DOUBLE if _match_doubles(raw, checked, win_mwc, lose_mwc) else ROLL
