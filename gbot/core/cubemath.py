"""The cube arithmetic, compiled: the one owner of every cube figure, for Python and kernels.

What lives here (numba kernels, callable from Python too; :mod:`gbot.cube` wraps them):

* named constants: probability slots, cube owners, cube lives by position class, the end
  modes' multipliers, the largest cube, the decision and response codes;
* :func:`clip_probs`: the validation and clipping of five cubeless probabilities;
* :func:`life_of` / :func:`board_life`: gnubg's cube life (efficiency) by position class;
* :func:`janowski`: Janowski's closed forms for money play without a cube cap;
* :func:`cube_values`: the level-by-level cube model (any cap, money or match): piecewise
  linear value functions of the winning chance ``p`` (vertices in fixed-size arrays), the
  owned-cube values from the highest reachable cube down (concave majorants and convex
  minorants of the clipped next level), the centred cube as the taut string between the two;
* :func:`action_of`, :func:`response_of`, :func:`pick`: the double / take / pass / beaver rule;
* :func:`dead_values_rows`, :func:`outcome_value`, :func:`top_cube`, :func:`emg`.

The two money forms agree in the limit: :func:`cube_values` with the cube dying at ``top``
converges to :func:`janowski` as ``top`` grows (the dead cube at the top reaches down a few
levels: with gnubg's 2**15 limit, gammon-heavy positions differ by up to about 0.003 at cube
1). Janowski's forms are the model of a cube that never dies, which is what money play without
a cap is, so money play without a cap uses them (cube up to :data:`JANOWSKI_MAX_CUBE`); the
level model serves capped cubes and matches. ``tests/test_cube_core.py`` checks both the limit
and the pure-Python reference (``tests/oracle/cubemodel.py``).

Outcome values come from ``table`` (match play: ``table[a, b]`` is the winning chance ``a``
away against ``b`` away, as :meth:`gbot.cube.met.MatchEquityTable.mwc` gives it for the
situation) or are the points themselves (money).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from gbot.core.arrays import F64, read_only
from gbot.core.classify import BEAROFF, CRASHED, OVER, RACE
from gbot.core.facts import class_and_pips
from gbot.core.jit import jit
from gbot.core.limits import MAX_CUBE as MAX_CUBE

# -- probability slots: (win, win gammon, win backgammon, lose gammon, lose backgammon) ------
WIN = 0
WIN_G = 1
WIN_BG = 2
LOSE_G = 3
LOSE_BG = 4

# -- who holds the cube, seen from the side on roll ------------------------------------------
OWNER_CENTRE = 0
OWNER_ME = 1
OWNER_OPPONENT = 2

JANOWSKI_MAX_CUBE = 2**10
"""Money play without a cap uses the closed forms up to this cube (above: the level model)."""

# -- cube life (Janowski's cube efficiency) by position class, gnubg's figures ----------------
CONTACT_LIFE = 0.68
CRASHED_LIFE = 0.68
BEAROFF_LIFE = 0.6
RACE_LIFE_BASE = 0.55
RACE_LIFE_PER_PIP = 0.00125
RACE_LIFE_MIN = 0.6
RACE_LIFE_MAX = 0.7

# slots of :data:`LIVES`, the array the kernels take
L_CONTACT = 0
L_CRASHED = 1
L_BEAROFF = 2
L_RACE_BASE = 3
L_RACE_PER_PIP = 4
L_RACE_MIN = 5
L_RACE_MAX = 6
LIVES = np.array([CONTACT_LIFE, CRASHED_LIFE, BEAROFF_LIFE, RACE_LIFE_BASE, RACE_LIFE_PER_PIP,
                  RACE_LIFE_MIN, RACE_LIFE_MAX], dtype=np.float64)
LIVES.setflags(write=False)

# -- end modes: what a single, a gammon and a backgammon count -------------------------------
END_MULTIPLIERS = {"single": (1, 1, 1), "gammons": (1, 2, 2), "backgammons": (1, 2, 3)}
MULTS = {mode: np.array(m, dtype=np.float64) for mode, m in END_MULTIPLIERS.items()}
for _m in MULTS.values():
    _m.setflags(write=False)

# -- the decision rule's codes ---------------------------------------------------------------
NO_DOUBLE = 0
DOUBLE_TAKE = 1
DOUBLE_PASS = 2
TOO_GOOD_TAKE = 3
TOO_GOOD_PASS = 4
ACTIONS = ("no_double", "double_take", "double_pass", "too_good_take", "too_good_pass")
"""The names of the action codes, by code."""
TAKE = 0
PASS = 1
BEAVER = 2
RESPONSES = ("take", "pass", "beaver")
"""The names of the response codes, by code."""

PROB_EPS = 1e-6
"""How far five probabilities may stray from consistency before :func:`clip_probs` refuses."""
TOO_GOOD_MARGIN = 1e-9
"""No double beats a cash by more than this before the position counts as too good."""
SHARE_EPS = 1e-12
"""Below this winning (losing) chance the shares of its kinds are taken as all singles."""

MAXV = 128
"""Vertices a value function may have (far more than the model produces)."""
MAX_LEVELS = 20
"""Cube levels from the current cube to the highest reachable one (2**15 needs 16)."""

TOO_BIG = -1
"""Return code: a value function outgrew :data:`MAXV`."""


@jit
def _min(a: float, b: float) -> float:
    """Python's ``min(a, b)`` (the first argument on ties, signed zeros included)."""
    return b if b < a else a


@jit
def _max(a: float, b: float) -> float:
    """Python's ``max(a, b)``."""
    return b if b > a else a


@jit
def _value(points: int, money: bool, away: int, opp_away: int, table: F64) -> float:
    if money:
        return float(points)
    a = away - points if points > 0 else away
    b = opp_away + points if points < 0 else opp_away
    if a <= 0:
        return 1.0
    if b <= 0:
        return 0.0
    return float(table[a, b])


@jit
def _outcome(c: int, single: bool, win: bool, sh: F64, mult: F64, money: bool, away: int,
             opp_away: int, table: F64) -> float:
    """The value of winning (``win``) or losing cube ``c`` with the shares ``sh`` of
    singles, gammons and backgammons (``single``: all count single)."""
    sign = 1 if win else -1
    if single:
        return _value(sign * c, money, away, opp_away, table)
    total = 0.0
    for k in range(3):
        share = sh[k]
        if share != 0.0:
            total = total + share * _value(sign * int(mult[k]) * c, money, away, opp_away,
                                           table)
    return total


@jit
def _clip(xs: F64, ys: F64, n: int, c: float, upper: bool, ox: F64, oy: F64) -> int:
    m = 0
    for i in range(n):
        if i:
            y0 = ys[i - 1] - c
            y1 = ys[i] - c
            if y0 * y1 < 0:
                if m >= MAXV:
                    return TOO_BIG
                t = y0 / (y0 - y1)
                ox[m] = xs[i - 1] + t * (xs[i] - xs[i - 1])
                oy[m] = c
                m += 1
        if m >= MAXV:
            return TOO_BIG
        ox[m] = xs[i]
        oy[m] = _min(ys[i], c) if upper else _max(ys[i], c)
        m += 1
    return m


@jit
def _hull(px: F64, py: F64, n: int, upper: bool, hx: F64, hy: F64) -> int:
    m = 0
    sign = 1.0 if upper else -1.0
    for i in range(n):
        x = px[i]
        y = py[i]
        if m and x - hx[m - 1] < 1e-15:
            if sign * (y - hy[m - 1]) > 0:
                m -= 1
            else:
                continue
        while m >= 2:
            cross = (hx[m - 1] - hx[m - 2]) * (y - hy[m - 2]) - (hy[m - 1] - hy[m - 2]) * (
                x - hx[m - 2])
            if sign * cross >= -1e-15:
                m -= 1
            else:
                break
        hx[m] = x
        hy[m] = y
        m += 1
    return m


@jit
def _envelope(xs: F64, ys: F64, n: int, y0: float, y1: float, upper: bool, lo: float,
              hi: float, ox: F64, oy: F64, px: F64, py: F64) -> int:
    """``px``, ``py``: room for ``n + 2`` values each (overwritten)."""
    px[0] = lo
    py[0] = y0
    k = 1
    for i in range(n):
        x = xs[i]
        if lo < x < hi:
            px[k] = x
            py[k] = ys[i]
            k += 1
    px[k] = hi
    py[k] = y1
    k += 1
    return _hull(px, py, k, upper, ox, oy)


@jit
def _at(xs: F64, ys: F64, n: int, p: float) -> float:
    """``numpy.interp(p, xs[:n], ys[:n])``."""
    if n == 1:
        return float(ys[0])
    if p != p:
        return p
    if p > xs[n - 1]:
        return float(ys[n - 1])
    if p < xs[0]:
        return float(ys[0])
    j = 0                                      # the last vertex at or left of p
    while j + 1 < n and xs[j + 1] <= p:
        j += 1
    if j == n - 1 or xs[j] == p:
        return float(ys[j])
    slope = (ys[j + 1] - ys[j]) / (xs[j + 1] - xs[j])
    v = slope * (p - xs[j]) + ys[j]
    if v != v:
        v = slope * (p - xs[j + 1]) + ys[j + 1]
        if v != v and ys[j] == ys[j + 1]:
            v = ys[j]
    return float(v)


@jit
def _join(lx: F64, ly: F64, ln: int, rx: F64, ry: F64, rn: int, cut_left: float,
          cut_right: float, ox: F64, oy: F64) -> int:
    m = 0
    for i in range(ln):
        if lx[i] <= cut_left + 1e-15:
            if m >= MAXV:
                return TOO_BIG
            ox[m] = lx[i]
            oy[m] = ly[i]
            m += 1
    for i in range(rn):
        if rx[i] >= cut_right - 1e-15:
            if m >= MAXV:
                return TOO_BIG
            ox[m] = rx[i]
            oy[m] = ry[i]
            m += 1
    for i in range(1, m):                       # stable insertion sort by x
        x = ox[i]
        y = oy[i]
        j = i
        while j > 0 and ox[j - 1] > x:
            ox[j] = ox[j - 1]
            oy[j] = oy[j - 1]
            j -= 1
        ox[j] = x
        oy[j] = y
    return m


@jit
def _taut_string(gx: F64, gy: F64, gn: int, hx: F64, hy: F64, hn: int, y0: float, y1: float,
                 ox: F64, oy: F64, lx: F64, ly: F64, rx: F64, ry: F64, px: F64, py: F64
                 ) -> int:
    """``lx``, ``ly``, ``rx``, ``ry``, ``px``, ``py``: room for :data:`MAXV` + 2 values each
    (overwritten)."""
    a = 0.0
    b = 1.0
    yb = y1
    ln = 2
    lx[0] = 0.0
    lx[1] = 1.0
    ly[0] = y0
    ly[1] = y1
    rn = 2
    rx[0] = 0.0
    rx[1] = 1.0
    ry[0] = y0
    ry[1] = y1
    for _ in range(30):
        ln = _envelope(hx, hy, hn, y0, yb, False, 0.0, b, lx, ly, px, py)
        if ln < 0:
            return ln
        if ln > 2:
            na = lx[ln - 2]
            nya = _at(lx, ly, ln, na)
        else:
            na = 0.0
            nya = y0
        rn = _envelope(gx, gy, gn, nya, y1, True, na, 1.0, rx, ry, px, py)
        if rn < 0:
            return rn
        if rn > 2:
            nb = rx[1]
            nyb = _at(rx, ry, rn, nb)
        else:
            nb = 1.0
            nyb = y1
        if abs(na - a) < 1e-12 and abs(nb - b) < 1e-12:
            a = na
            b = nb
            break
        a = na
        b = nb
        yb = nyb
    if a >= b:
        mid = 0.5 * (a + b)
        return _join(lx, ly, ln, rx, ry, rn, mid, mid, ox, oy)
    return _join(lx, ly, ln, rx, ry, rn, a, b, ox, oy)


@jit
def _dead(c: int, single: bool, w: F64, ls: F64, mult: F64, money: bool, away: int,
          opp_away: int, table: F64, ox: F64, oy: F64) -> int:
    ox[0] = 0.0
    ox[1] = 1.0
    oy[0] = _outcome(c, single, False, ls, mult, money, away, opp_away, table)
    oy[1] = _outcome(c, single, True, w, mult, money, away, opp_away, table)
    return 2


@jit
def _levels(cube: int, top: int) -> int:
    """The owned-cube levels of the level model at ``cube``: the values ``cube * 2 ** j``
    up to ``top``."""
    levels = 0
    k = cube
    while k <= top:
        levels += 1
        k *= 2
    return levels


_SCRATCH_ROWS = 16
"""Rows of :func:`cube_scratch`'s array beside the four per cube level."""


@jit
def cube_scratch(cube: int, top: int) -> tuple[F64, npt.NDArray[np.int64]]:
    """Working room for :func:`cube_values_in` at ``cube`` and ``top`` (reusable for every
    row of one situation); an empty first array when the cube has too many levels."""
    levels = _levels(cube, top)
    if levels + 1 > MAX_LEVELS:
        return np.empty((0, MAXV + 2), dtype=np.float64), np.zeros(0, dtype=np.int64)
    size = max(levels + 1, 2)
    return (np.empty((4 * size + _SCRATCH_ROWS, MAXV + 2), dtype=np.float64),
            np.zeros(2 * size, dtype=np.int64))


@jit
def cube_values(probs: F64, mult: F64, money: bool, away: int, opp_away: int, table: F64,
                cube: int, owner: int, top: int, life: float, jacoby: bool, dead_nd: bool,
                can: bool, out: F64) -> int:
    """``out[:3]`` = the raw no double, double/take and double/pass values (points per unit
    stake for money, winning chances in a match; the last two only when ``can``) of the
    level model for clipped ``probs``; ``top`` is :func:`top_cube`, ``jacoby`` the
    centred-cube Jacoby rule, ``dead_nd`` gnubg's 2-away 2-away convention (no double
    valued with a dead cube). Returns 0, or :data:`TOO_BIG`."""
    room, counts = cube_scratch(cube, top)
    if room.shape[0] == 0:
        return TOO_BIG
    return cube_values_in(probs, mult, money, away, opp_away, table, cube, owner, top, life,
                          jacoby, dead_nd, can, out, room, counts)


@jit
def cube_values_in(probs: F64, mult: F64, money: bool, away: int, opp_away: int, table: F64,
                   cube: int, owner: int, top: int, life: float, jacoby: bool, dead_nd: bool,
                   can: bool, out: F64, room: F64, counts: npt.NDArray[np.int64]) -> int:
    """:func:`cube_values` in the working room of :func:`cube_scratch` (its arrays for
    ``cube`` and ``top``; overwritten)."""
    win = probs[0]
    size = counts.shape[0] // 2
    levels = _levels(cube, top)
    w = room[4 * size, :3]
    ls = room[4 * size + 1, :3]
    shares(probs, w, ls)
    # owned-cube values level by level, from the top down: level j is cube * 2**j
    mex = room[0:size]
    mey = room[size:2 * size]
    opx = room[2 * size:3 * size]
    opy = room[3 * size:4 * size]
    men = counts[:size]
    opn = counts[size:]
    men[:] = 0
    opn[:] = 0
    tx = room[4 * size + 2]
    ty = room[4 * size + 3]
    px = room[4 * size + 14]
    py = room[4 * size + 15]
    for j in range(levels, -1, -1):             # level ``levels`` lies above the top
        c = cube << j
        if 2 * c > top:
            men[j] = _dead(c, False, w, ls, mult, money, away, opp_away, table, mex[j], mey[j])
            opn[j] = _dead(c, False, w, ls, mult, money, away, opp_away, table, opx[j],
                           opy[j])
            continue
        lo = _outcome(c, False, False, ls, mult, money, away, opp_away, table)
        hi = _outcome(c, False, True, w, mult, money, away, opp_away, table)
        n = _clip(opx[j + 1], opy[j + 1], opn[j + 1],
                  _value(c, money, away, opp_away, table), True, tx, ty)
        if n < 0:
            return n
        men[j] = _envelope(tx, ty, n, lo, hi, True, 0.0, 1.0, mex[j], mey[j], px, py)
        n = _clip(mex[j + 1], mey[j + 1], men[j + 1],
                  _value(-c, money, away, opp_away, table), False, tx, ty)
        if n < 0:
            return n
        opn[j] = _envelope(tx, ty, n, lo, hi, False, 0.0, 1.0, opx[j], opy[j], px, py)
        if men[j] < 0 or opn[j] < 0:
            return TOO_BIG
    p = win
    x = life
    dx = room[4 * size + 4]
    dy = room[4 * size + 5]
    if dead_nd:
        _dead(cube, False, w, ls, mult, money, away, opp_away, table, dx, dy)
        out[0] = _at(dx, dy, 2, p)
    elif owner == OWNER_CENTRE:
        _dead(cube, jacoby, w, ls, mult, money, away, opp_away, table, dx, dy)
        if 2 * cube > top:
            lx = dx
            ly = dy
            ln = 2
        else:
            gx = room[4 * size + 6]
            gy = room[4 * size + 7]
            gn = _clip(opx[1], opy[1], opn[1], _value(cube, money, away, opp_away, table), True,
                       gx, gy)
            hn = _clip(mex[1], mey[1], men[1], _value(-cube, money, away, opp_away, table),
                       False, tx, ty)
            if gn < 0 or hn < 0:
                return TOO_BIG
            lx = room[4 * size + 8]
            ly = room[4 * size + 9]
            ln = _taut_string(gx, gy, gn, tx, ty, hn, dy[0], dy[1], lx, ly, room[4 * size + 10],
                              room[4 * size + 11], room[4 * size + 12], room[4 * size + 13],
                              px, py)
            if ln < 0:
                return ln
        out[0] = x * _at(lx, ly, ln, p) + (1.0 - x) * _at(dx, dy, 2, p)
    else:
        _dead(cube, False, w, ls, mult, money, away, opp_away, table, dx, dy)
        if owner == OWNER_ME:
            out[0] = x * _at(mex[0], mey[0], men[0], p) + (1.0 - x) * _at(dx, dy, 2, p)
        else:
            out[0] = x * _at(opx[0], opy[0], opn[0], p) + (1.0 - x) * _at(dx, dy, 2, p)
    if can:
        _dead(2 * cube, False, w, ls, mult, money, away, opp_away, table, dx, dy)
        out[1] = x * _at(opx[1], opy[1], opn[1], p) + (1.0 - x) * _at(dx, dy, 2, p)
        out[2] = _value(cube, money, away, opp_away, table)
    return 0


@jit
def cube_values_rows(probs: F64, lives: F64, mult: F64, money: bool, away: int, opp_away: int,
                     table: F64, cube: int, owner: int, top: int, jacoby: bool, dead_nd: bool,
                     can: bool, out: F64) -> int:
    """:func:`cube_values` for each row of ``probs`` ``[k, 5]`` with cube life ``lives[i]``
    into ``out[i]``; returns 0, or :data:`TOO_BIG` when any row needs the Python model."""
    room, counts = cube_scratch(cube, top)
    if room.shape[0] == 0:
        return TOO_BIG
    for i in range(probs.shape[0]):
        code = cube_values_in(probs[i], mult, money, away, opp_away, table, cube, owner, top,
                              lives[i], jacoby, dead_nd, can, out[i], room, counts)
        if code != 0:
            return code
    return 0



@jit
def clip_probs(p: F64, out: F64) -> bool:
    """Five cubeless probabilities checked and clipped into ``out`` (each within 0..1, the
    gammons within the wins, the backgammons within the gammons); False when they are
    inconsistent by more than :data:`PROB_EPS` (``out`` then untouched)."""
    win = p[WIN]
    wg = p[WIN_G]
    wbg = p[WIN_BG]
    lg = p[LOSE_G]
    lbg = p[LOSE_BG]
    eps = PROB_EPS
    if not (-eps <= wbg <= wg + eps <= win + 2 * eps <= 1 + 3 * eps
            and -eps <= lbg <= lg + eps <= 1 - win + 2 * eps):
        return False
    clip_probs_unchecked(p, out)
    return True


@jit
def clip_rows(rows: F64, out: F64) -> int:
    """:func:`clip_probs` of each row of ``rows`` ``[n, 5]`` into ``out``; the index of the
    first row it refuses (the rows after it untouched), or -1."""
    for i in range(rows.shape[0]):
        if not clip_probs(rows[i], out[i]):
            return i
    return -1


@jit
def clip_probs_unchecked(p: F64, out: F64) -> None:
    """The clipping of :func:`clip_probs` without the consistency check."""
    win = _min(_max(p[WIN], 0.0), 1.0)
    wg = _min(_min(_max(p[WIN_G], 0.0), 1.0), win)
    lg = _min(_min(_max(p[LOSE_G], 0.0), 1.0), 1.0 - win)
    out[WIN] = win
    out[WIN_G] = wg
    out[WIN_BG] = _min(_min(_max(p[WIN_BG], 0.0), 1.0), wg)
    out[LOSE_G] = lg
    out[LOSE_BG] = _min(_min(_max(p[LOSE_BG], 0.0), 1.0), lg)


@jit
def life_of(cls: int, pips: int, lives: F64) -> float:
    """The cube life of a position of class ``cls`` (:mod:`gbot.core.classify`) with ``pips``
    for the side on roll, from ``lives`` (laid out as :data:`LIVES`)."""
    if cls == RACE:
        return _min(_max(lives[L_RACE_BASE] + lives[L_RACE_PER_PIP] * pips,
                         lives[L_RACE_MIN]), lives[L_RACE_MAX])
    if cls == BEAROFF or cls == OVER:
        return float(lives[L_BEAROFF])
    if cls == CRASHED:
        return float(lives[L_CRASHED])
    return float(lives[L_CONTACT])


@jit
def board_life(b: npt.NDArray[np.int8], lives: F64) -> float:
    """:func:`life_of` the board ``b`` (side on roll to move)."""
    cls, pips = class_and_pips(read_only(b))
    return life_of(cls, pips, lives)


@jit
def lives_rows(boards: npt.NDArray[np.int8], lives: F64, out: F64) -> None:
    """:func:`board_life` of each board of ``boards`` ``[n, 26]`` into ``out``."""
    for i in range(boards.shape[0]):
        out[i] = board_life(read_only(boards[i]), read_only(lives))


@jit
def shares(p: F64, w: F64, ls: F64) -> None:
    """The shares of singles, gammons and backgammons among the wins (``w``) and the losses
    (``ls``) of clipped probabilities ``p``."""
    win = p[WIN]
    lose = 1.0 - win
    if win > SHARE_EPS:
        w[0] = (win - p[WIN_G]) / win
        w[1] = (p[WIN_G] - p[WIN_BG]) / win
        w[2] = p[WIN_BG] / win
    else:
        w[0] = 1.0
        w[1] = 0.0
        w[2] = 0.0
    if lose > SHARE_EPS:
        ls[0] = (lose - p[LOSE_G]) / lose
        ls[1] = (p[LOSE_G] - p[LOSE_BG]) / lose
        ls[2] = p[LOSE_BG] / lose
    else:
        ls[0] = 1.0
        ls[1] = 0.0
        ls[2] = 0.0


@jit
def _below_tp(p: float, y0: float, tp: float) -> float:
    return y0 + (-1.0 - y0) * p / tp if tp > 0 else -1.0


@jit
def janowski(p: F64, mult: F64, life: float, owner: int, jacoby: bool, out: F64) -> None:
    """Janowski's money values per unit cube of clipped probabilities ``p`` with cube life
    ``life``: ``out[0]`` no double with the cube at ``owner`` (``jacoby``: the Jacoby rule
    applies, a centred cube), ``out[1]`` double/take (``out[2]`` double/pass, always 1).
    ``W`` and ``L``, the average value of a win and of a loss, give the take point
    ``(L - 1/2) / (W + L + 1/2)`` and the cash point ``(L + 1) / (W + L + 1/2)``."""
    win = p[WIN]
    w = np.empty(3, dtype=np.float64)
    ls = np.empty(3, dtype=np.float64)
    shares(p, w, ls)
    big_w = 0.0 + w[0] * mult[0]
    big_w = big_w + w[1] * mult[1]
    big_w = big_w + w[2] * mult[2]
    big_l = 0.0 + ls[0] * mult[0]
    big_l = big_l + ls[1] * mult[1]
    big_l = big_l + ls[2] * mult[2]
    x = life
    tp = (big_l - 0.5) / (big_w + big_l + 0.5)
    cp = (big_l + 1.0) / (big_w + big_l + 0.5)
    dead = win * big_w - (1.0 - win) * big_l
    jac = jacoby and owner == OWNER_CENTRE
    lo = -1.0 if jac else -big_l              # the value at p = 0 with the cube where it is
    hi = 1.0 if jac else big_w
    if owner == OWNER_CENTRE:
        if win < tp:
            live = _below_tp(win, lo, tp)
        elif win < cp:
            live = -1.0 + 2.0 * (win - tp) / (cp - tp)
        else:
            live = 1.0 + (hi - 1.0) * (win - cp) / (1.0 - cp) if cp < 1 else 1.0
        out[0] = x * live + (1.0 - x) * ((2.0 * win - 1.0) if jac else dead)
    elif owner == OWNER_ME:
        if win < cp:
            live = -big_l + (1.0 + big_l) * win / cp
        else:
            live = 1.0 + (big_w - 1.0) * (win - cp) / (1.0 - cp) if cp < 1 else 1.0
        out[0] = x * live + (1.0 - x) * dead
    else:
        if win < tp:
            live = _below_tp(win, -big_l, tp)
        else:
            live = -1.0 + (big_w + 1.0) * (win - tp) / (1.0 - tp)
        out[0] = x * live + (1.0 - x) * dead
    if win < tp:
        un = _below_tp(win, -big_l, tp)
    else:
        un = -1.0 + (big_w + 1.0) * (win - tp) / (1.0 - tp)
    out[1] = 2.0 * (x * un + (1.0 - x) * dead)
    out[2] = 1.0


@jit
def response_of(dt: float, dp: float, beavers: bool) -> int:
    """The doubled side's answer: :data:`PASS` when taking costs more than the cube
    (``dt > dp``), :data:`BEAVER` when it takes a double that loses for the doubler and
    ``beavers`` (money, beavers allowed), else :data:`TAKE`."""
    if dt > dp:
        return PASS
    if beavers and dt < 0.0:
        return BEAVER
    return TAKE


@jit
def clear_verdict(nd: float, dt: float, dp: float, screen: float) -> bool:
    """Whether a static cube decision with the normalised equities ``nd``, ``dt``, ``dp`` is
    clear by ``screen`` on the double (doubling loses at least that much against not
    doubling) and on the answer (taking and passing differ by more): where a look-ahead engine
    keeps the static decision (:data:`gbot.engine.engine.CUBE_SCREEN`)."""
    return min(dt, dp) - nd < -screen and abs(dp - dt) > screen


@jit
def action_of(nd: float, dt: float, dp: float, win_gammon: float, beavers: bool) -> int:
    """What the side on roll should do, from its cubeful no double, double/take and
    double/pass values: double when that beats playing on (``min(DT, DP) > ND``, a beavered
    double counting twice); playing on past a cash is too good only while a gammon is still
    possible (``win_gammon > 0``)."""
    resp = response_of(dt, dp, beavers)
    too_good = nd > dp + TOO_GOOD_MARGIN and win_gammon > 0.0
    if resp == PASS:
        return TOO_GOOD_PASS if too_good else DOUBLE_PASS
    got = 2.0 * dt if resp == BEAVER else dt
    if got > nd:
        return DOUBLE_TAKE
    if too_good:
        return TOO_GOOD_TAKE
    return NO_DOUBLE


@jit
def beaver_allowed(money: bool, beavers: bool, cube_enabled: bool, cube: int,
                   max_cube: int) -> bool:
    """Whether the doubled side may beaver a double of ``cube``: money play with beavers on
    and room on the cube (the highest cube ``max_cube``) for the redouble."""
    return money and beavers and cube_enabled and cube * 4 <= max_cube


@jit
def answer_of(response: int, may_beaver: bool) -> int:
    """The doubled side's answer to the double: the model's ``response``
    (:func:`response_of`), a :data:`BEAVER` taken plainly (:data:`TAKE`) where a beaver is
    not allowed (``may_beaver``, :func:`beaver_allowed`)."""
    if response == BEAVER and not may_beaver:
        return TAKE
    return response


@jit
def doubles(action: int) -> bool:
    """Whether ``action`` turns the cube."""
    return action == DOUBLE_TAKE or action == DOUBLE_PASS


@jit
def pick(action: int, response: int, nd: float, dt: float, dp: float) -> float:
    """What the side on roll gets with ``action`` and the answer ``response``, of its values
    ``nd``, ``dt``, ``dp`` (equities or winning chances)."""
    if not doubles(action):
        return nd
    if response == BEAVER:
        return 2.0 * dt
    return dp if response == PASS else dt


@jit
def pick_rows(win_gammon: F64, eqs: F64, raw: F64, beavers: bool, out: F64) -> None:
    """For each row ``i``: :func:`pick` of the action and answer the rule takes on the
    equities ``eqs[i]`` (no double, double/take, double/pass; ``win_gammon[i]`` the side on
    roll's gammon chance) applied to its values ``raw[i]``, into ``out[i]``."""
    for i in range(eqs.shape[0]):
        nd, dt, dp = eqs[i, 0], eqs[i, 1], eqs[i, 2]
        out[i] = pick(action_of(nd, dt, dp, win_gammon[i], beavers),
                      response_of(dt, dp, beavers), raw[i, 0], raw[i, 1], raw[i, 2])


@jit
def money_values_rows(probs: F64, lives: F64, mult: F64, owner: int, jacoby: bool, can: bool,
                      beavers: bool, out: F64) -> None:
    """Money equity (per unit cube) of the right cube action for the side on roll of each row
    of ``probs`` (clipped here) with cube life ``lives[i]``: :func:`janowski` and the rule."""
    p = np.empty(5, dtype=np.float64)
    e = np.empty(3, dtype=np.float64)
    for i in range(probs.shape[0]):
        clip_probs_unchecked(probs[i], p)
        janowski(p, mult, lives[i], owner, jacoby, e)
        if not can:
            out[i] = e[0]
            continue
        a = action_of(e[0], e[1], e[2], p[WIN_G], beavers)
        out[i] = pick(a, response_of(e[1], e[2], beavers), e[0], e[1], e[2])


@jit
def emg(mwc: float, win: float, lose: float) -> float:
    """Normalised match equity of a winning chance (+1 = ``win``, -1 = ``lose``: the chances
    after winning and after losing the cube), gnubg's EMG."""
    return (2.0 * mwc - win - lose) / (win - lose)


@jit
def top_cube(money: bool, max_cube: int, away: int, opp_away: int, cube: int) -> int:
    """The highest cube the level model considers: ``max_cube`` (the cap), or in a match the
    cube from which both sides are dead (any win or loss ends the match)."""
    top = max_cube
    if not money:
        reach = 1
        while reach < max(away, opp_away):
            reach *= 2
        top = min(top, max(reach, cube))
    return top


@jit
def outcome_value(points: int, money: bool, away: int, opp_away: int, table: F64) -> float:
    """The value for the side on roll of winning (``points`` > 0) or losing ``-points``:
    the points (money) or its winning chance afterwards (match)."""
    return _value(points, money, away, opp_away, table)


@jit
def dead_values_rows(probs: F64, values: F64, divisor: float, out: F64) -> None:
    """The value of each row of ``probs`` (clipped here) with the cube dead: the six outcome
    values ``values`` (win single, gammon, backgammon, then the same lost) weighted by the
    chances, divided by ``divisor`` (the cube for money, else 1)."""
    p = np.empty(5, dtype=np.float64)
    for i in range(probs.shape[0]):
        clip_probs_unchecked(probs[i], p)
        win = p[WIN]
        wg = p[WIN_G]
        wbg = p[WIN_BG]
        lg = p[LOSE_G]
        lbg = p[LOSE_BG]
        v = (win - wg) * values[0] + (wg - wbg) * values[1]
        v = v + wbg * values[2]
        v = v + (1.0 - win - lg) * values[3]
        v = v + (lg - lbg) * values[4]
        v = v + lbg * values[5]
        out[i] = v / divisor if divisor != 1.0 else v


@jit
def cubeless_value(p: F64, mult: F64, money: bool, away: int, opp_away: int, table: F64,
                   cube: int) -> float:
    """The value of clipped probabilities ``p`` with cube ``cube`` left where it is (no more
    cube action): points (money) or the winning chance (match)."""
    w = np.empty(3, dtype=np.float64)
    ls = np.empty(3, dtype=np.float64)
    shares(p, w, ls)
    dx = np.empty(2, dtype=np.float64)
    dy = np.empty(2, dtype=np.float64)
    _dead(cube, False, w, ls, mult, money, away, opp_away, table, dx, dy)
    return _at(dx, dy, 2, p[WIN])


# -- resignations ----------------------------------------------------------------------------
CERTAIN = 1e-6
"""Probabilities this close to 0 or 1 count as certain (a resignation is offered only when
the loss is certain: :func:`resignation_level`)."""
NO_TABLE = np.zeros((1, 1), dtype=np.float64)
"""The outcome table of money play (unused: money values are the points)."""
NO_TABLE.setflags(write=False)


@jit
def resignation_points(level: int, mult: F64, money: bool, jacoby: bool, owner: int,
                       cube: int) -> int:
    """Points a resignation at ``level`` (1 single, 2 gammon, 3 backgammon) gives the winner:
    the end mode's multiplier ``mult[level - 1]`` times the cube, 1 times the cube in money
    play under the Jacoby rule (``jacoby``) with the cube centred."""
    if money and jacoby and owner == OWNER_CENTRE:
        return cube
    return int(mult[level - 1]) * cube


@jit
def resignation_level(p: F64, eps: float, mult: F64, money: bool, jacoby: bool, owner: int,
                      cube: int, away: int, opp_away: int, table: F64) -> int:
    """The resignation the side on roll should offer (0: none, 1, 2 or 3) with clipped
    probabilities ``p`` (:func:`clip_probs`): none when its winning chance is above ``eps``;
    else the loss that is certain (a backgammon when the backgammon chance is within ``eps``
    of 1, a gammon likewise, else a single), lowered to the cheapest level that costs it as
    much (money: the points; match: its winning chance after the loss, from ``table`` and the
    aways, as :func:`outcome_value`). ``mult``, ``jacoby``, ``owner`` and ``cube`` count the
    points as :func:`resignation_points`."""
    if p[WIN] > eps:
        return 0
    if p[LOSE_BG] >= 1.0 - eps:
        certain = 3
    elif p[LOSE_G] >= 1.0 - eps:
        certain = 2
    else:
        certain = 1
    loss = _value(-resignation_points(certain, mult, money, jacoby, owner, cube), money, away,
                  opp_away, table)
    for level in range(1, certain + 1):
        points = resignation_points(level, mult, money, jacoby, owner, cube)
        if _value(-points, money, away, opp_away, table) <= loss + 1e-12:
            return level
    return certain
