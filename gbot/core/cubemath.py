"""The cube model of :mod:`gbot.cube.cubeful` (``_Model`` and ``_cubeful_model``) in a kernel.

The same construction, the same floating-point operations in the same order, so the same
figures: piecewise-linear value functions of the winning chance ``p`` (vertices in fixed-size
arrays), the owned-cube values level by level from the highest reachable cube down (concave
majorants and convex minorants of the clipped next level), the centred cube as the taut
string between the two, and the no double / double-take / double-pass values at ``p``.
:mod:`gbot.cube.cubeful` is the reference and keeps the documentation of the model; tests
compare the two.

Outcome values come from ``table`` (match play: ``table[a, b]`` is the winning chance ``a``
away against ``b`` away, as :meth:`gbot.cube.met.MatchEquityTable.mwc` gives it for the
situation) or are the points themselves (money).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from gbot.core._jit import jit

F64 = npt.NDArray[np.float64]

MAXV = 128
"""Vertices a value function may have (far more than the model produces)."""
MAX_LEVELS = 20
"""Cube levels from the current cube to the highest reachable one (2**15 needs 16)."""

CENTRE = 0
ME = 1
OPPONENT = 2

TOO_BIG = -1
"""Return code: a value function outgrew :data:`MAXV` (use the Python model)."""


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
def _outcome(c: int, single: bool, win: bool, shares: F64, mult: F64, money: bool, away: int,
             opp_away: int, table: F64) -> float:
    """``_Model.win_value`` (``win``) or ``lose_value`` of cube ``c``."""
    sign = 1 if win else -1
    if single:
        return _value(sign * c, money, away, opp_away, table)
    total = 0.0
    for k in range(3):
        share = shares[k]
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
              hi: float, ox: F64, oy: F64) -> int:
    px = np.empty(n + 2, dtype=np.float64)
    py = np.empty(n + 2, dtype=np.float64)
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
                 ox: F64, oy: F64) -> int:
    lx = np.empty(MAXV, dtype=np.float64)
    ly = np.empty(MAXV, dtype=np.float64)
    rx = np.empty(MAXV, dtype=np.float64)
    ry = np.empty(MAXV, dtype=np.float64)
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
        ln = _envelope(hx, hy, hn, y0, yb, False, 0.0, b, lx, ly)
        if ln < 0:
            return ln
        if ln > 2:
            na = lx[ln - 2]
            nya = _at(lx, ly, ln, na)
        else:
            na = 0.0
            nya = y0
        rn = _envelope(gx, gy, gn, nya, y1, True, na, 1.0, rx, ry)
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
def cube_values(probs: F64, mult: F64, money: bool, away: int, opp_away: int, table: F64,
                cube: int, owner: int, top: int, life: float, jacoby: bool, dead_nd: bool,
                can: bool, out: F64) -> int:
    """``out[:3]`` = the raw no double, double/take and double/pass values (points per unit
    stake for money, winning chances in a match; the last two only when ``can``) of
    ``_cubeful_model`` for checked ``probs``; ``top`` is ``_Model.top``, ``jacoby`` the
    centred-cube Jacoby rule, ``dead_nd`` gnubg's 2-away 2-away convention (no double
    valued with a dead cube). Returns 0, or :data:`TOO_BIG`."""
    win = probs[0]
    wg = probs[1]
    wbg = probs[2]
    lg = probs[3]
    lbg = probs[4]
    lose = 1.0 - win
    w = np.empty(3, dtype=np.float64)
    ls = np.empty(3, dtype=np.float64)
    if win > 1e-12:
        w[0] = (win - wg) / win
        w[1] = (wg - wbg) / win
        w[2] = wbg / win
    else:
        w[0] = 1.0
        w[1] = 0.0
        w[2] = 0.0
    if lose > 1e-12:
        ls[0] = (lose - lg) / lose
        ls[1] = (lg - lbg) / lose
        ls[2] = lbg / lose
    else:
        ls[0] = 1.0
        ls[1] = 0.0
        ls[2] = 0.0
    # owned-cube values level by level, from the top down: level j is cube * 2**j
    levels = 0
    k = cube
    while k <= top:
        levels += 1
        k *= 2
    if levels + 1 > MAX_LEVELS:
        return TOO_BIG
    size = max(levels + 1, 2)
    mex = np.empty((size, MAXV), dtype=np.float64)
    mey = np.empty((size, MAXV), dtype=np.float64)
    men = np.zeros(size, dtype=np.int64)
    opx = np.empty((size, MAXV), dtype=np.float64)
    opy = np.empty((size, MAXV), dtype=np.float64)
    opn = np.zeros(size, dtype=np.int64)
    tx = np.empty(MAXV, dtype=np.float64)
    ty = np.empty(MAXV, dtype=np.float64)
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
        men[j] = _envelope(tx, ty, n, lo, hi, True, 0.0, 1.0, mex[j], mey[j])
        n = _clip(mex[j + 1], mey[j + 1], men[j + 1],
                  _value(-c, money, away, opp_away, table), False, tx, ty)
        if n < 0:
            return n
        opn[j] = _envelope(tx, ty, n, lo, hi, False, 0.0, 1.0, opx[j], opy[j])
        if men[j] < 0 or opn[j] < 0:
            return TOO_BIG
    p = win
    x = life
    dx = np.empty(MAXV, dtype=np.float64)
    dy = np.empty(MAXV, dtype=np.float64)
    if dead_nd:
        _dead(cube, False, w, ls, mult, money, away, opp_away, table, dx, dy)
        out[0] = _at(dx, dy, 2, p)
    elif owner == CENTRE:
        _dead(cube, jacoby, w, ls, mult, money, away, opp_away, table, dx, dy)
        if 2 * cube > top:
            lx = dx
            ly = dy
            ln = 2
        else:
            gx = np.empty(MAXV, dtype=np.float64)
            gy = np.empty(MAXV, dtype=np.float64)
            gn = _clip(opx[1], opy[1], opn[1], _value(cube, money, away, opp_away, table), True,
                       gx, gy)
            hn = _clip(mex[1], mey[1], men[1], _value(-cube, money, away, opp_away, table),
                       False, tx, ty)
            if gn < 0 or hn < 0:
                return TOO_BIG
            lx = np.empty(MAXV, dtype=np.float64)
            ly = np.empty(MAXV, dtype=np.float64)
            ln = _taut_string(gx, gy, gn, tx, ty, hn, dy[0], dy[1], lx, ly)
            if ln < 0:
                return ln
        out[0] = x * _at(lx, ly, ln, p) + (1.0 - x) * _at(dx, dy, 2, p)
    else:
        _dead(cube, False, w, ls, mult, money, away, opp_away, table, dx, dy)
        if owner == ME:
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
    for i in range(probs.shape[0]):
        code = cube_values(probs[i], mult, money, away, opp_away, table, cube, owner, top,
                           lives[i], jacoby, dead_nd, can, out[i])
        if code != 0:
            return code
    return 0


@jit
def _np_max(a: float, b: float) -> float:
    """``numpy.maximum(a, b)``."""
    return a if (a >= b or a != a) else b


@jit
def _np_min(a: float, b: float) -> float:
    """``numpy.minimum(a, b)``."""
    return a if (a <= b or a != a) else b


@jit
def dead_values_rows(probs: F64, values: F64, divisor: float, out: F64) -> None:
    """``gbot.cube.plays.dead_values`` with the six outcome values ``values`` (win single,
    gammon, backgammon, then the same lost) and ``divisor`` (the cube for money, else 1): the
    same clipping and the same sums, row by row."""
    for i in range(probs.shape[0]):
        win = _np_min(_np_max(probs[i, 0], 0.0), 1.0)
        wg = _np_min(_np_min(_np_max(probs[i, 1], 0.0), 1.0), win)
        lg = _np_min(_np_min(_np_max(probs[i, 3], 0.0), 1.0), 1.0 - win)
        wbg = _np_min(_np_min(_np_max(probs[i, 2], 0.0), 1.0), wg)
        lbg = _np_min(_np_min(_np_max(probs[i, 4], 0.0), 1.0), lg)
        v = (win - wg) * values[0] + (wg - wbg) * values[1]
        v = v + wbg * values[2]
        v = v + (1.0 - win - lg) * values[3]
        v = v + (lg - lbg) * values[4]
        v = v + lbg * values[5]
        out[i] = v / divisor if divisor != 1.0 else v
