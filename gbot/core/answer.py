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
  :func:`gbot.cube.decision.decide` call too (:mod:`gbot.core.cubemath`);

both when no resignation can be due (with contact, or with a 0-ply winning chance above the
engine's resignation threshold) or when the resignation is weighed here too: without contact
and below that threshold, with the rules' resignations offered (not scored by position), the
kernels weigh the resignation the side on roll should offer as
:meth:`gbot.engine.engine.Engine.resign_offer` does (:func:`gbot.core.cubemath.resignation_level`)
and return its level beside the answer (:data:`RESIGNS`): money play here, match play in
:func:`match_resign` (:data:`RESIGN_ASK`), with the side's cube situation. Whether to offer
it (gnubg may have declined it already) is the protocol's to decide.

A take question (a double pending) is answered by the static cube model as the doubler's
decision (:func:`gbot.core.cubemath.response_of`, :func:`~gbot.core.cubemath.answer_of`): in
money play without a cube cap by Janowski's forms, in match play by :func:`match_take`
(:data:`NEED_TAKE`), never for an engine whose cube decisions look ahead, nor in short
bear-offs (``Settings.short_bearoff``). Everything else (a possible double past those, lines
the fast reader does not accept) is :data:`FALLBACK`: the engine's general path answers
(:meth:`gbot.engine.engine.Engine.fast_reply` calls these kernels through
:mod:`gbot.engine.fastreply`),
which is the reference for these answers.

The kernels take their arguments in a few named bundles that the caller builds once and keeps:
:class:`Settings` (the session's rules and the engine's thresholds),
:class:`gbot.core.bestplay.Nets` (the networks' and bear-off tables' arrays; re-exported
here), :class:`Work` (one thread's scratch arrays, :class:`gbot.core.bestplay.PlayWork` and
the reply's) and, in
match play, :class:`Situation` (a side's cube situation, kept per score and cube).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from gbot.core.arrays import F64, I8, I64, U8, nonliteral, read_only
from gbot.core.bestplay import Nets, PlayWork, best_static, static_values
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
    BEAVER,
    CERTAIN,
    JANOWSKI_MAX_CUBE,
    LIVES,
    NO_TABLE,
    OWNER_CENTRE,
    OWNER_ME,
    OWNER_OPPONENT,
    PASS,
    WIN_G,
    action_of,
    answer_of,
    beaver_allowed,
    clear_verdict,
    clip_probs,
    cube_values,
    cube_values_rows,
    dead_values_rows,
    doubles,
    emg,
    janowski,
    life_of,
    lives_rows,
    pick,
    resignation_level,
    response_of,
)
from gbot.core.facts import bearoff_within, checkers_left, class_and_pips, contact
from gbot.core.jit import jit
from gbot.core.notation import format_steps_into

__all__ = ["BEAVERS", "DOUBLE", "DROP", "FALLBACK", "MOVE", "NEED_CUBE", "NEED_MATCH",
           "NEED_TAKE", "RESIGNS", "RESIGN_ASK", "ROLL", "TAKE", "Nets", "Settings",
           "Situation", "Work", "answer_board", "match_cube", "match_play", "match_resign",
           "match_take"]

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
``play.probs[0]``, the position's 0-ply probabilities, are valid)."""
NEED_TAKE = 6
"""Take or drop in match play, the cube model to ask: :func:`match_take` (``fields`` and
``play.probs[0]``, the doubler's 0-ply probabilities, are valid)."""
TAKE = 7
"""The reply is ``take``."""
DROP = 8
"""The reply is ``drop``."""
BEAVERS = 9
"""The reply is ``beaver``."""
RESIGNS = 16
""":func:`answer_board` returns its answer's code plus ``RESIGNS`` times the level of the
resignation the side on roll should offer (1 single, 2 gammon, 3 backgammon; 0: none, or
no resignation weighed), or times :data:`RESIGN_ASK`."""
RESIGN_ASK = 4
"""The resignation is to be weighed in the match's cube situation: :func:`match_resign`
(``fields`` and ``play.probs[0]``, the position's 0-ply probabilities, are valid; call it
before :func:`match_play`, which overwrites them)."""
assert BEAVERS < RESIGNS

class Settings(NamedTuple):
    """A session's rule switches and the engine's thresholds (built once per engine)."""

    caucasian: bool
    """The Caucasian move rule."""
    bearoff: bool
    """Exact bear-off tables for positions with every checker home."""
    cube_enabled: bool
    max_cube: int
    """The highest cube value (a double past it is not allowed)."""
    no_double_below: float
    """The engine's 0-ply winning chance below which it does not double."""
    no_resign_above: float
    """The engine's 0-ply winning chance above which no resignation is weighed."""
    cubeless_plays: bool
    """Money plays are ranked by cubeless equity (end mode ``backgammons``)."""
    mult: F64
    """What a single, a gammon and a backgammon count under the end mode (three entries)."""
    jacoby: bool
    beavers: bool
    cube_cap: int
    """The rules' cube cap (0: none; a capped cube is left to the general path)."""
    cube_lookahead: bool
    """The engine decides the cube by a look-ahead: a cube decision past the no-double screen
    is the static model's only where ``cube_screen`` finds its verdict clear (or, in a match,
    where the cube is dead for the opponent), else left to the general path
    (:data:`FALLBACK`)."""
    cube_screen: float
    """With ``cube_lookahead``: the engine's :data:`gbot.engine.engine.CUBE_SCREEN` where it
    skips the look-ahead on a clear static verdict, infinity where it always looks ahead."""
    short_bearoff: int
    """The engine's cube decisions look ahead in bear-offs with at most this many checkers
    a side (:func:`gbot.core.facts.bearoff_within`): left to the general path."""
    resign_offers: bool
    """The rules' resignations are offered (``Rules.resignation == "offer"``): the kernels
    weigh them; else every line where one could be due is left to the general path."""


class Work(NamedTuple):
    """One thread's scratch arrays: :func:`gbot.core.bestplay.best_static`'s (``play``), the
    move generator's hash keys, and the line's numbers and the reply."""

    play: PlayWork
    keys: I64
    """The move generator's hash keys (:data:`gbot.core.movegen.HASH_KEYS`)."""
    fields: I64
    """The line's numbers as :func:`gbot.core.boardline.read_gnubg_numbers` writes them."""
    reply: U8
    """The move's text (``info[0]`` bytes)."""
    info: I64


class Situation(NamedTuple):
    """One side's cube situation in match play, as :func:`gbot.core.cubemath.cube_values`
    takes it (:func:`gbot.cube.plays.kernel_params` gives these in this order), with the
    move filter of :func:`gbot.cube.plays.best_play_index`."""

    lives: F64
    """Cube lives by position class (:data:`gbot.core.cubemath.LIVES`)."""
    mult: F64
    met: F64
    away: int
    opp_away: int
    cube: int
    owner: int
    top: int
    dead_nd: bool
    can: bool
    """Whether this side may double."""
    outcomes: F64
    """The dead-cube values of the game's outcomes
    (:func:`gbot.core.cubemath.dead_values_rows`)."""
    win_mwc: float
    """This side's match chance after winning the cube..."""
    lose_mwc: float
    """... and after losing it."""
    window: float
    keep: int


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
def answer_board(text: U8, settings: Settings, nets: Nets, work: Work) -> int:
    """Answer the line ``text`` (see the module docstring): :data:`MOVE`, :data:`ROLL`,
    :data:`DOUBLE`, :data:`NEED_MATCH`, :data:`NEED_CUBE`, :data:`TAKE`, :data:`DROP`,
    :data:`BEAVERS`, :data:`NEED_TAKE` or :data:`FALLBACK`, plus :data:`RESIGNS` times the
    level of the resignation due (or :data:`RESIGN_ASK`) where one was weighed.
    ``work.fields`` gets the line's numbers (valid unless FALLBACK), ``work.reply`` and
    ``work.info`` a move's text."""
    s = settings
    w = work
    fields = w.fields
    start = _names_end(text)
    if start < 0 or not read_gnubg_numbers(text[start:], fields):
        return FALLBACK
    if fields[OUT_PENDING] != 0:              # a double is pending: take or drop
        return _take_question(s, nets, w)
    board = np.empty(26, dtype=np.int8)
    for i in range(26):
        board[i] = fields[i]
    win = -1.0                                # the 0-ply winning chance, once known
    length = fields[OUT_LENGTH]
    resign = 0
    if not contact(read_only(board)):        # resignations are only weighed without contact
        mine, theirs = checkers_left(read_only(board))
        if mine == 0 or theirs == 0:
            return FALLBACK
        win = _static_win(board, s.bearoff, nets, w)
        if win < 0.0:
            return FALLBACK
        if not win > s.no_resign_above:
            if not s.resign_offers:
                return FALLBACK
            if length != 0:
                resign = RESIGN_ASK           # match play: match_resign() with the situation
            else:
                checked = np.empty(5, dtype=np.float64)
                if not clip_probs(w.play.probs[0], checked):
                    return FALLBACK           # inconsistent: the general path reports it
                resign = resignation_level(checked, CERTAIN, read_only(s.mult),
                                           nonliteral(True), s.jacoby, fields[OUT_OWNER],
                                           fields[OUT_CUBE], nonliteral(0), nonliteral(0),
                                           read_only(NO_TABLE))
    code = _answer(board, win, s, nets, w)
    if code == FALLBACK:
        return FALLBACK
    return code + RESIGNS * resign


@jit
def _answer(board: I8, win: float, s: Settings, nets: Nets, w: Work) -> int:
    """:func:`answer_board`'s answer to a move or double question on ``board`` (the side on
    roll's 0-ply winning chance ``win``, or -1.0 when not yet known), resignations aside."""
    fields = w.fields
    d1 = fields[OUT_DIE1]
    d2 = fields[OUT_DIE2]
    length = fields[OUT_LENGTH]
    if d1 != 0:
        if length != 0:
            return NEED_MATCH                 # plays ranked with the match state
        if not s.cubeless_plays:
            return FALLBACK                   # plays ranked with the money end mode
        p = w.play
        if best_static(read_only(board), d1, d2, s.caucasian, s.bearoff, p, w.keys, nets) != 0:
            return FALLBACK
        w.info[0] = 0
        if p.res[0] > 0:
            w.info[0] = format_steps_into(board, p.steps[p.res[1]], w.reply)
        return MOVE
    crawford = fields[OUT_CRAWFORD] != 0
    if (not s.cube_enabled or (length > 0 and crawford) or fields[OUT_OWNER] == OWNER_OPPONENT
            or fields[OUT_CUBE] * 2 > s.max_cube):
        return ROLL                           # the cube is not mine to turn
    post = length > 0 and not crawford and (fields[OUT_SCORE_ME] == length - 1
                                            or fields[OUT_SCORE_OPP] == length - 1)
    if win < 0.0:
        win = _static_win(board, s.bearoff, nets, w)
        if win < 0.0:
            return FALLBACK
    dead = _dead_for_opponent(fields)
    if win < s.no_double_below and not post and not dead:   # (post-Crawford: the free double)
        return ROLL
    cls, pips = class_and_pips(read_only(board))
    if _looks_ahead(board, cls, s):
        return FALLBACK                       # short bear-offs get a look-ahead decision
    if length != 0:
        return NEED_CUBE                      # match play: the cube model, match_cube()
    if s.cube_cap != 0 or fields[OUT_CUBE] > JANOWSKI_MAX_CUBE:
        return FALLBACK                       # a capped cube: the engine's
    verdict = _money_doubles(w.play.probs[0], cls, pips, fields[OUT_OWNER], s)
    if verdict < 0:
        return FALLBACK
    return DOUBLE if verdict == 1 else ROLL


@jit
def _dead_for_opponent(fields: I64) -> bool:
    """Whether, in the match of the line read into ``fields``, winning this game at the
    present cube already gives the opponent the match (the cube is theirs at stake:
    :func:`gbot.engine.engine.dead_for_opponent`)."""
    length = fields[OUT_LENGTH]
    return bool(length > 0 and fields[OUT_CUBE] >= length - fields[OUT_SCORE_OPP])


@jit
def _looks_ahead(board: I8, cls: int, s: Settings) -> bool:
    """Whether the engine's cube decision for the side on roll of ``board`` (of class
    ``cls``) is not the static model's: a short bear-off (the look-ahead's), or the game over
    (the general path reports it)."""
    return cls == OVER or (cls == BEAROFF and bearoff_within(read_only(board), s.short_bearoff))


@jit
def _doubler_board(fields: I64) -> I8:
    """The board of the line read into ``fields`` seen by the opponent (the doubler of a
    take question, as if on roll)."""
    board = np.empty(26, dtype=np.int8)
    for i in range(26):
        board[i] = -fields[25 - i]
    return board


@jit
def _take_question(s: Settings, nets: Nets, w: Work) -> int:
    """Take, drop or beaver for the line read into ``w.fields`` (a double pending), as
    :meth:`gbot.engine.engine.Engine.respond_double` decides with the static cube model: the
    doubler's decision (:func:`gbot.core.cubemath.response_of`) from its 0-ply
    probabilities, which go to ``w.play.probs[0]``. :data:`TAKE`, :data:`DROP`,
    :data:`BEAVERS`, :data:`NEED_TAKE` (match play: :func:`match_take`) or :data:`FALLBACK`
    (a look-ahead engine, short bear-offs, a capped or dead cube, a double the doubler may not
    give: the general path's)."""
    fields = w.fields
    length = fields[OUT_LENGTH]
    if not s.cube_enabled or s.cube_lookahead or (length > 0 and fields[OUT_CRAWFORD] != 0):
        return FALLBACK
    board = _doubler_board(fields)
    cls, pips = class_and_pips(read_only(board))
    if _looks_ahead(board, cls, s):
        return FALLBACK                       # short bear-offs get a look-ahead decision
    if _static_win(board, s.bearoff, nets, w) < 0.0:
        return FALLBACK
    if length != 0:
        return NEED_TAKE
    cube = fields[OUT_CUBE]
    if s.cube_cap != 0 or cube > JANOWSKI_MAX_CUBE or cube * 2 > s.max_cube:
        return FALLBACK
    # the doubler's cube: centred, or its own (the reader refuses a double of my cube)
    owner = OWNER_CENTRE if fields[OUT_OWNER] == OWNER_CENTRE else OWNER_ME
    e = np.empty(3, dtype=np.float64)
    checked = np.empty(5, dtype=np.float64)
    if not _money_values(w.play.probs[0], cls, pips, owner, s, checked, e):
        return FALLBACK
    answer = answer_of(response_of(e[1], e[2], s.beavers),
                       beaver_allowed(True, s.beavers, s.cube_enabled, cube, s.max_cube))
    return _TAKE_CODES[answer]


_TAKE_CODES = (TAKE, DROP, BEAVERS)
"""The replies by :mod:`gbot.core.cubemath`'s response codes (TAKE, PASS, BEAVER)."""
assert PASS == 1 and BEAVER == 2


@jit
def _static_win(board: I8, bearoff: bool, nets: Nets, work: Work) -> float:
    """The 0-ply probabilities of ``board`` into ``work.play.probs[0]`` and its winning
    chance, or -1.0 when they need the bear-off tables and these are not loaded."""
    p = work.play
    n = nets
    one = p.children[:1]
    one[0, :] = board
    if static_values(one, bearoff, p.probs, p.kinds, p.counts, p.rows, p.values, n.esc,
                     n.class_net, n.w1m, n.b1, n.w2t, n.b2, n.activation, n.dist, n.gdist,
                     n.two, n.binom) != 0:
        return -1.0
    return float(p.probs[0, 0])


@jit
def _money_doubles(p: F64, cls: int, pips: int, owner: int, s: Settings) -> int:
    """1 when the side on roll should double (money, no cube cap), 0 when not, -1 when the
    probabilities are inconsistent (the general path then reports it) or, for a look-ahead
    engine, when the verdict is not clear (:func:`clear_verdict`: the look-ahead decides):
    Janowski's values and the decision rule of :mod:`gbot.core.cubemath`."""
    checked = np.empty(5, dtype=np.float64)
    e = np.empty(3, dtype=np.float64)
    if not _money_values(p, cls, pips, owner, s, checked, e):
        return -1
    if not _keeps_static(e[0], e[1], e[2], s, nonliteral(False)):
        return -1
    a = action_of(e[0], e[1], e[2], checked[WIN_G], s.beavers)
    return 1 if doubles(a) else 0


@jit
def _money_values(p: F64, cls: int, pips: int, owner: int, s: Settings, checked: F64,
                  e: F64) -> bool:
    """Janowski's no double, double/take, double/pass values ``e`` (money, no cube cap) of
    the side on roll with probabilities ``p`` (clipped into ``checked``), as
    :func:`gbot.cube.cubeful.cubeful_clipped` values them; False when the probabilities are
    inconsistent."""
    if not clip_probs(p, checked):
        return False
    janowski(checked, read_only(s.mult), life_of(cls, pips, read_only(LIVES)), owner, s.jacoby,
             e)
    return True


@jit
def _match_value(raw: F64, checked: F64, can: bool, win_mwc: float, lose_mwc: float) -> float:
    """The side on roll's winning chance with its right cube action, from the level model's
    raw values ``raw`` (match play)."""
    if not can:
        return float(raw[0])
    nd = emg(raw[0], win_mwc, lose_mwc)
    dt = emg(raw[1], win_mwc, lose_mwc)
    dp = emg(raw[2], win_mwc, lose_mwc)
    a = action_of(nd, dt, dp, checked[WIN_G], nonliteral(False))
    return pick(a, response_of(dt, dp, nonliteral(False)), raw[0], raw[1], raw[2])


@jit
def _keeps_static(nd: float, dt: float, dp: float, s: Settings, dead: bool) -> bool:
    """Whether the engine of ``s`` decides a double with the normalised equities ``nd``,
    ``dt``, ``dp`` by the static cube model: it does not look ahead, or the match cube is
    ``dead`` for the opponent, or its screen finds the verdict clear (:func:`clear_verdict`)."""
    return not s.cube_lookahead or dead or clear_verdict(nd, dt, dp, s.cube_screen)


@jit
def _match_doubles(raw: F64, checked: F64, win_mwc: float, lose_mwc: float, s: Settings,
                   dead: bool) -> int:
    """1 when the side on roll should double, 0 when not, from the level model's raw values
    (match); -1 where the engine looks ahead instead (:func:`_keeps_static`)."""
    nd = emg(raw[0], win_mwc, lose_mwc)
    dt = emg(raw[1], win_mwc, lose_mwc)
    dp = emg(raw[2], win_mwc, lose_mwc)
    if not _keeps_static(nd, dt, dp, s, dead):
        return -1
    return 1 if doubles(action_of(nd, dt, dp, checked[WIN_G], nonliteral(False))) else 0


@jit
def _situation_values(checked: F64, c: Situation, life: float, raw: F64) -> int:
    """:func:`gbot.core.cubemath.cube_values` of ``checked`` in the match situation ``c`` (no
    Jacoby rule), with the argument types the Python callers give it (one compile)."""
    return int(cube_values(checked, read_only(c.mult), nonliteral(False), c.away, c.opp_away,
                           read_only(c.met), c.cube, c.owner, c.top, life, nonliteral(False),
                           c.dead_nd, c.can, raw))


@jit
def match_play(settings: Settings, nets: Nets, work: Work, theirs: Situation) -> int:
    """The move of the line read into ``work.fields`` (match play), ranked as
    :meth:`gbot.engine.engine.Engine.choose_play` ranks it with the match state: by what the
    opponent, on roll after each play, gets with its right cube action in its cube situation
    ``theirs`` (:func:`gbot.cube.plays.best_play_index`: the plays whose dead-cube value
    (:func:`gbot.core.cubemath.dead_values_rows` with ``theirs.outcomes``) is within
    ``theirs.window`` of the best, at most ``theirs.keep``, valued by the cube model).
    Returns :data:`MOVE` (text in ``work.reply``, ``work.info[0]`` bytes) or
    :data:`FALLBACK`."""
    w = work
    p = w.play
    c = theirs
    fields = w.fields
    board = np.empty(26, dtype=np.int8)
    for i in range(26):
        board[i] = fields[i]
    if best_static(read_only(board), fields[OUT_DIE1], fields[OUT_DIE2], settings.caucasian,
                   settings.bearoff, p, w.keys, nets) != 0:
        return FALLBACK                              # too many plays, or tables needed
    count = p.res[0]
    children = p.children
    probs = p.probs
    w.info[0] = 0
    if count == 0:
        return MOVE
    best = 0
    if count > 1:
        dead = np.empty(count, dtype=np.float64)
        dead_values_rows(probs[:count], c.outcomes, 1.0, dead)
        order = np.empty(count, dtype=np.int64)      # stable sort by dead value
        for i in range(count):
            j = i
            while j > 0 and dead[order[j - 1]] > dead[i]:
                order[j] = order[j - 1]
                j -= 1
            order[j] = i
        bound = dead[order[0]] + c.window
        kept = np.empty(c.keep, dtype=np.int64)
        m = 0
        for i in range(count):
            if m < c.keep and dead[order[i]] <= bound:
                kept[m] = order[i]
                m += 1
        best = kept[0]
        if m > 1:
            kept[:m].sort()
            checked = np.empty((m, 5), dtype=np.float64)
            life = np.empty(m, dtype=np.float64)
            raw = np.empty((m, 3), dtype=np.float64)
            for t in range(m):
                if not clip_probs(probs[kept[t]], checked[t]):
                    return FALLBACK
            lives_rows(children[kept[:m]], read_only(c.lives), life)
            if cube_values_rows(checked, life, read_only(c.mult), nonliteral(False), c.away,
                                c.opp_away, read_only(c.met), c.cube, c.owner, c.top,
                                nonliteral(False), c.dead_nd, c.can, raw) != 0:
                return FALLBACK
            best_value = np.inf
            for t in range(m):
                if c.win_mwc == c.lose_mwc or raw[t, 0] != raw[t, 0]:
                    return FALLBACK
                v = _match_value(raw[t], checked[t], c.can, c.win_mwc, c.lose_mwc)
                if v < best_value - 1e-12:
                    best = kept[t]
                    best_value = v
    w.info[0] = format_steps_into(board, p.steps[best], w.reply)
    return MOVE


@jit
def match_cube(settings: Settings, work: Work, mine: Situation) -> int:
    """Double or roll for the line read into ``work.fields`` (match play, the side on roll
    may double), from its 0-ply probabilities in ``work.play.probs[0]``, as
    :meth:`gbot.engine.engine.Engine.cube_action` decides with the cube model
    (:func:`gbot.cube.decision.decide`) in the side on roll's cube situation ``mine``:
    :data:`DOUBLE`, :data:`ROLL`, or :data:`FALLBACK` (the game over, whatever the general
    path reports; for a look-ahead engine, a verdict its screen does not find clear where
    the cube is not dead for the opponent)."""
    c = mine
    board = np.empty(26, dtype=np.int8)
    for i in range(26):
        board[i] = work.fields[i]
    cls, pips = class_and_pips(read_only(board))
    if cls == OVER:
        return FALLBACK                              # (answer_board screens bear-offs)
    life = life_of(cls, pips, read_only(c.lives))
    checked = np.empty(5, dtype=np.float64)
    if not clip_probs(work.play.probs[0], checked):
        return FALLBACK
    raw = np.empty(3, dtype=np.float64)
    if _situation_values(checked, c, life, raw) != 0:
        return FALLBACK
    if c.win_mwc == c.lose_mwc:
        return FALLBACK
    if not c.can:
        return ROLL
    verdict = _match_doubles(raw, checked, c.win_mwc, c.lose_mwc, settings,
                             _dead_for_opponent(work.fields))
    if verdict < 0:
        return FALLBACK
    return DOUBLE if verdict == 1 else ROLL


@jit
def match_resign(work: Work, mine: Situation) -> int:
    """The level of the resignation the side on roll should offer (0: none, 1, 2, 3) for the
    line read into ``work.fields`` (match play), from its 0-ply probabilities in
    ``work.play.probs[0]``, as :meth:`gbot.engine.engine.Engine.resign_offer` weighs it in the side
    on roll's cube situation ``mine`` (:func:`gbot.core.cubemath.resignation_level`), or -1
    when the probabilities are inconsistent (the general path reports it)."""
    c = mine
    checked = np.empty(5, dtype=np.float64)
    if not clip_probs(work.play.probs[0], checked):
        return -1
    return resignation_level(checked, CERTAIN, read_only(c.mult), nonliteral(False),
                             nonliteral(False), c.owner, c.cube, c.away, c.opp_away,
                             read_only(c.met))


@jit
def match_take(work: Work, theirs: Situation) -> int:
    """Take or drop for the line read into ``work.fields`` (match play, a double pending),
    from the doubler's 0-ply probabilities in ``work.play.probs[0]``, as
    :meth:`gbot.engine.engine.Engine.respond_double` decides with the cube model in the doubler's
    cube situation ``theirs``: :data:`TAKE`, :data:`DROP` or :data:`FALLBACK` (what the
    general path reports, a double the doubler may not give)."""
    c = theirs
    if not c.can:
        return FALLBACK
    board = _doubler_board(work.fields)
    cls, pips = class_and_pips(read_only(board))
    if cls == OVER:
        return FALLBACK                              # (answer_board screens bear-offs)
    checked = np.empty(5, dtype=np.float64)
    if not clip_probs(work.play.probs[0], checked):
        return FALLBACK
    raw = np.empty(3, dtype=np.float64)
    if _situation_values(checked, c, life_of(cls, pips, read_only(c.lives)), raw) != 0:
        return FALLBACK
    if c.win_mwc == c.lose_mwc:
        return FALLBACK
    dt = emg(raw[1], c.win_mwc, c.lose_mwc)
    dp = emg(raw[2], c.win_mwc, c.lose_mwc)
    return _TAKE_CODES[answer_of(response_of(dt, dp, nonliteral(False)), False)]
