"""The cube model in plain Python: the reference for :mod:`gbot.core.cubemath`.

The level-by-level construction of :mod:`gbot.cube.cubeful`'s documentation, written with
lists and dictionaries, step by step: piecewise-linear value functions of the winning chance,
owned-cube values by recursion from the highest cube down, the centred cube as a taut string.
``tests/test_cube_core.py`` holds the compiled core to these figures exactly (the same
operations in the same order) and to Janowski's closed forms in the limit of a cube that never
dies (:func:`cubeful_model` with ``top``).
"""

from __future__ import annotations

from bisect import bisect_right

from gbot.cube.cubeful import END_MULTIPLIERS, CubeContext, CubefulEquities, Owner, Probs
from gbot.cube.met import mwc_to_equity
from gbot.errors import CubeError

# -- piecewise-linear helpers -----------------------------------------------------------------
# A function of p on [0, 1] is a pair (xs, ys) of lists of floats, xs increasing from 0 to 1.
# Plain lists: the functions have a handful of vertices, where numpy's per-call cost dominates.

PL = tuple[list[float], list[float]]


def _line(y0: float, y1: float) -> PL:
    return [0.0, 1.0], [float(y0), float(y1)]


def _clip(f: PL, c: float, upper: bool) -> PL:
    """``min(f, c)`` (``upper``) or ``max(f, c)`` as a piecewise-linear function."""
    xs, ys = f
    out_x: list[float] = []
    out_y: list[float] = []
    for i in range(len(xs)):
        if i:
            y0, y1 = ys[i - 1] - c, ys[i] - c
            if y0 * y1 < 0:
                t = y0 / (y0 - y1)
                out_x.append(float(xs[i - 1] + t * (xs[i] - xs[i - 1])))
                out_y.append(float(c))
        out_x.append(xs[i])
        out_y.append(float(min(ys[i], c) if upper else max(ys[i], c)))
    return out_x, out_y


def _hull(xs: list[float], ys: list[float], upper: bool) -> PL:
    """Upper (concave) or lower (convex) hull of points sorted by x, as a function."""
    hx: list[float] = []
    hy: list[float] = []
    sign = 1.0 if upper else -1.0
    for x, y in zip(xs, ys, strict=True):
        if hx and x - hx[-1] < 1e-15:
            # Same abscissa: keep the better point.
            if sign * (y - hy[-1]) > 0:
                hx.pop()
                hy.pop()
            else:
                continue
        while len(hx) >= 2:
            cross = (hx[-1] - hx[-2]) * (y - hy[-2]) - (hy[-1] - hy[-2]) * (x - hx[-2])
            if sign * cross >= -1e-15:
                hx.pop()
                hy.pop()
            else:
                break
        hx.append(x)
        hy.append(y)
    return hx, hy


def _envelope(obstacle: PL, y0: float, y1: float, upper: bool, lo: float = 0.0,
              hi: float = 1.0) -> PL:
    """Concave majorant (``upper``) or convex minorant of ``obstacle`` on (lo, hi).

    The end points are fixed at ``(lo, y0)`` and ``(hi, y1)``.
    """
    xs, ys = obstacle
    px = [float(lo)]
    py = [float(y0)]
    for x, y in zip(xs, ys, strict=True):
        if lo < x < hi:
            px.append(x)
            py.append(y)
    px.append(float(hi))
    py.append(float(y1))
    return _hull(px, py, upper)


def at(f: PL, p: float) -> float:
    """``f(p)``, interpolated exactly as ``numpy.interp`` does (constant outside the ends)."""
    xs, ys = f
    n = len(xs)
    if n == 1:
        return float(ys[0])
    if p != p:
        return float(p)
    if p > xs[-1]:
        return float(ys[-1])
    if p < xs[0]:
        return float(ys[0])
    j = bisect_right(xs, p) - 1
    if j == n - 1 or xs[j] == p:
        return float(ys[j])
    slope = (ys[j + 1] - ys[j]) / (xs[j + 1] - xs[j])
    v = slope * (p - xs[j]) + ys[j]
    if v != v:
        v = slope * (p - xs[j + 1]) + ys[j + 1]
        if v != v and ys[j] == ys[j + 1]:
            v = ys[j]
    return float(v)


def _inner_vertices(f: PL) -> list[float]:
    return f[0][1:-1]


def _join(left: PL, right: PL, cut_left: float, cut_right: float) -> PL:
    lx, ly = left
    rx, ry = right
    pts = [(x, y) for x, y in zip(lx, ly, strict=True) if x <= cut_left + 1e-15]
    pts += [(x, y) for x, y in zip(rx, ry, strict=True) if x >= cut_right - 1e-15]
    pts.sort(key=lambda q: q[0])      # stable, as numpy's stable argsort
    return [q[0] for q in pts], [q[1] for q in pts]


def _taut_string(g: PL, h: PL, y0: float, y1: float) -> PL:
    """The shortest path from ``(0, y0)`` to ``(1, y1)`` above ``g`` and below ``h``.

    This is the value of a centred cube: the side on roll doubles where the path touches ``g``
    (its doubling value), the opponent where it touches ``h``. Found by alternating the two
    envelopes: the opponent's part runs from 0 to the side on roll's first contact, the side
    on roll's part from the opponent's last contact to 1, until both contacts settle.
    """
    a, b = 0.0, 1.0
    yb = y1
    left = right = _line(y0, y1)
    for _ in range(30):
        left = _envelope(h, y0, yb, upper=False, hi=b)
        tp = _inner_vertices(left)
        na = float(tp[-1]) if len(tp) else 0.0
        nya = at(left, na) if len(tp) else y0
        right = _envelope(g, nya, y1, upper=True, lo=na)
        cp = _inner_vertices(right)
        nb = float(cp[0]) if len(cp) else 1.0
        nyb = at(right, nb) if len(cp) else y1
        if abs(na - a) < 1e-12 and abs(nb - b) < 1e-12:
            a, b = na, nb
            break
        a, b, yb = na, nb, nyb
    if a >= b:
        # Both sides would double in an overlapping window (rare match-end cases): split it.
        m = 0.5 * (a + b)
        return _join(left, right, m, m)
    return _join(left, right, a, b)


def _shape(probs: Probs) -> tuple[tuple[float, float, float], tuple[float, float, float]]:
    """Shares of single, gammon, backgammon among wins and among losses."""
    win, wg, wbg, lg, lbg = (float(v) for v in probs)
    lose = 1.0 - win
    if win > 1e-12:
        w = ((win - wg) / win, (wg - wbg) / win, wbg / win)
    else:
        w = (1.0, 0.0, 0.0)
    if lose > 1e-12:
        ls = ((lose - lg) / lose, (lg - lbg) / lose, lbg / lose)
    else:
        ls = (1.0, 0.0, 0.0)
    return w, ls


class Model:
    """Outcome values and the live-cube functions of one situation, level by level."""

    def __init__(self, probs: Probs, ctx: CubeContext) -> None:
        self.ctx = ctx
        self.p = probs[0]
        w, ls = _shape(probs)
        mult = END_MULTIPLIERS[ctx.end_mode]
        self.w = [(w[k], mult[k]) for k in range(3)]
        self.ls = [(ls[k], mult[k]) for k in range(3)]
        self.money = ctx.is_money
        self.own_me: dict[int, PL] = {}
        self.own_opp: dict[int, PL] = {}
        self._values: dict[int, float] = {}
        self._wins: dict[int, float] = {}
        self._losses: dict[int, float] = {}
        self.top = self.top_cube(ctx)

    @staticmethod
    def top_cube(ctx: CubeContext) -> int:
        """The highest cube the model considers: the cap, or in a match the cube from which
        both sides are dead (any win or loss ends the match)."""
        top = ctx.max_cube
        if not ctx.is_money:
            reach = 1
            while reach < max(ctx.away, ctx.opp_away):
                reach *= 2
            top = min(top, max(reach, ctx.cube))
        return top

    # Values of results, from the side on roll.
    def value(self, points: int) -> float:
        """Value of the side on roll winning (``points`` > 0) or losing points."""
        if self.money:
            return float(points)
        v = self._values.get(points)
        if v is None:
            ctx = self.ctx
            a = ctx.away - points if points > 0 else ctx.away
            b = ctx.opp_away + points if points < 0 else ctx.opp_away
            if a <= 0:
                v = 1.0
            elif b <= 0:
                v = 0.0
            else:
                v = ctx.table.mwc(a, b, post_crawford=ctx.crawford or ctx.post_crawford)
            self._values[points] = v
        return v

    def win_value(self, c: int, single: bool = False) -> float:
        if single:
            return self.value(c)
        v = self._wins.get(c)
        if v is None:
            v = self._wins[c] = sum(share * self.value(m * c) for share, m in self.w if share)
        return v

    def lose_value(self, c: int, single: bool = False) -> float:
        if single:
            return self.value(-c)
        v = self._losses.get(c)
        if v is None:
            v = self._losses[c] = sum(share * self.value(-m * c) for share, m in self.ls
                                      if share)
        return v

    def dead(self, c: int, single: bool = False) -> PL:
        return _line(self.lose_value(c, single), self.win_value(c, single))

    def me(self, c: int) -> PL:
        """Fully live value when the side on roll owns cube ``c``."""
        if c not in self.own_me:
            if 2 * c > self.top:
                f = self.dead(c)
            else:
                g = _clip(self.opp(2 * c), self.value(c), upper=True)
                f = _envelope(g, self.lose_value(c), self.win_value(c), upper=True)
            self.own_me[c] = f
        return self.own_me[c]

    def opp(self, c: int) -> PL:
        """Fully live value when the opponent owns cube ``c``."""
        if c not in self.own_opp:
            if 2 * c > self.top:
                f = self.dead(c)
            else:
                h = _clip(self.me(2 * c), self.value(-c), upper=False)
                f = _envelope(h, self.lose_value(c), self.win_value(c), upper=False)
            self.own_opp[c] = f
        return self.own_opp[c]

    def centre(self, c: int, single: bool = False) -> PL:
        """Fully live value of a centred cube ``c`` (``single``: Jacoby, gammons void)."""
        if 2 * c > self.top:
            return self.dead(c, single)
        g = _clip(self.opp(2 * c), self.value(c), upper=True)
        h = _clip(self.me(2 * c), self.value(-c), upper=False)
        return _taut_string(g, h, self.lose_value(c, single), self.win_value(c, single))

    def fill_deep_levels(self, c: int) -> None:
        """Compute the recursion iteratively from the top down (avoids deep recursion)."""
        levels = []
        k = c
        while k <= self.top:
            levels.append(k)
            k *= 2
        for k in reversed(levels):
            self.me(k)
            self.opp(k)


def _mix(x: float, live: PL, dead: PL, p: float) -> float:
    return x * at(live, p) + (1.0 - x) * at(dead, p)


def cubeful_model(probs: Probs, ctx: CubeContext, top: int | None = None) -> CubefulEquities:
    """The cube model's no double, double/take and double/pass values for checked ``probs``
    (``top``: the highest cube, instead of the context's)."""
    m = Model(probs, ctx)
    if top is not None:
        m.top = top
    p = m.p
    x = ctx.cube_life
    c = ctx.cube
    m.fill_deep_levels(c)
    jacoby = ctx.is_money and ctx.jacoby and ctx.owner == Owner.CENTRE
    if not ctx.is_money and ctx.away == 2 and ctx.opp_away == 2:
        # gnubg's convention at 2-away 2-away: the first double is due at once, so holding
        # the cube has no market value; the no-double branch is valued with a dead cube.
        nd_raw = at(m.dead(c), p)
    elif ctx.owner == Owner.CENTRE:
        nd_raw = _mix(x, m.centre(c, single=jacoby), m.dead(c, single=jacoby), p)
    elif ctx.owner == Owner.ME:
        nd_raw = _mix(x, m.me(c), m.dead(c), p)
    else:
        nd_raw = _mix(x, m.opp(c), m.dead(c), p)
    can = ctx.can_double()
    if can:
        dt_raw = _mix(x, m.opp(2 * c), m.dead(2 * c), p)
        dp_raw = m.value(c)
    else:
        dt_raw = dp_raw = float("nan")
    if ctx.is_money:
        return CubefulEquities(nd=nd_raw / c, dt=dt_raw / c, dp=dp_raw / c, can_double=can)
    win, lose = m.value(c), m.value(-c)
    if win == lose:
        # The match cannot change with this cube (should not happen in a live match).
        raise CubeError(f"cube {c!r} decides nothing at {ctx.away!r}-away, {ctx.opp_away!r}-away")
    return CubefulEquities(
        nd=mwc_to_equity(nd_raw, win, lose), dt=mwc_to_equity(dt_raw, win, lose),
        dp=mwc_to_equity(dp_raw, win, lose), nd_mwc=nd_raw, dt_mwc=dt_raw, dp_mwc=dp_raw,
        can_double=can)


