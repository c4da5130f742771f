"""Cubeful equity from cubeless probabilities: a Janowski-style model for money and match play.

Inputs are the five cubeless probabilities of the side on roll, gnubg-style with cumulative
gammon columns: ``(win, win_gammon, win_backgammon, lose_gammon, lose_backgammon)``, and a
:class:`CubeContext` (score, cube, owner, rules) seen by the same side.

The model
---------
Hold the shape of the game fixed (the share of wins that are gammons or backgammons, likewise
for losses) and let the winning chance ``p`` move continuously. Every outcome then has a value
(points for money, match winning chance for a match), and so has every cube action:

* Cube dead (nobody can double again): the value is linear in ``p`` between a loss and a win.
* Cube fully live: a cube owner redoubles exactly when the opponent can no longer take. Its
  value is the least concave majorant of "double now" (the smaller of the opponent's pass and
  take values) through the end points; the opponent's cube is the greatest convex minorant of
  theirs; a centred cube is the taut string between the two. The take value at cube ``2c``
  comes from the same construction one level up, so take points are found recursively from
  the highest cube that can still be reached (the cap, gnubg's 2**15 limit, or where the match
  ends). For money without a cap this gives Janowski's take point ``(L - 1/2) / (W + L + 1/2)``
  and cash point ``(L + 1) / (W + L + 1/2)``.
* Real games lie in between: the cubeful value is ``x * live + (1 - x) * dead`` with the cube
  life ``x`` (Janowski's cube efficiency). gnubg uses 0.68 for contact positions, 0.6 for
  bear-offs and ``0.55 + 0.00125 * pips`` within 0.6..0.7 for races; :func:`cube_life` gives
  those.

In a match the values are winning chances from the match equity table (:mod:`gbot.cube.met`),
so the same construction is the match-play analogue of Janowski's formulas; money values are
points per unit stake.

Rule switches: the cube cap (no double above it, so the cube dies there), the cube off, the
Crawford game (no doubling), Jacoby (money, centred cube: gammons and backgammons count single
until the cube is turned), and the end modes ``"single"`` (every game counts 1),
``"gammons"`` (backgammons count as gammons) and ``"backgammons"``.
"""

from __future__ import annotations

import enum
from bisect import bisect_right
from dataclasses import dataclass, field, replace

import numpy as np
import numpy.typing as npt

from gbot.cube.met import MatchEquityTable, default_table, mwc_to_equity
from gbot.errors import CubeError

Probs = tuple[float, float, float, float, float]
Array = npt.NDArray[np.float64]

MAX_CUBE = 2**15
"""gnubg's largest cube (the cap when the rules set none)."""

CONTACT_LIFE = 0.68
CRASHED_LIFE = 0.68
BEAROFF_LIFE = 0.6
RACE_LIFE_BASE = 0.55
RACE_LIFE_PER_PIP = 0.00125
RACE_LIFE_MIN = 0.6
RACE_LIFE_MAX = 0.7

END_MULTIPLIERS = {"single": (1, 1, 1), "gammons": (1, 2, 2), "backgammons": (1, 2, 3)}


class Owner(enum.IntEnum):
    """Who holds the cube, seen from the side on roll."""

    CENTRE = 0
    ME = 1
    OPPONENT = 2


@dataclass(frozen=True)
class CubeContext:
    """The cube situation seen by the side on roll.

    ``match_length`` 0 is money play; in a match ``away`` and ``opp_away`` are the points the
    side on roll and its opponent still need. ``crawford`` marks the Crawford game; the game is
    post-Crawford when someone is 1 away in a match and it is not the Crawford game.
    ``cube_life`` (0..1) overrides the position-class default of :func:`cube_life`.
    """

    match_length: int = 0
    away: int = 0
    opp_away: int = 0
    cube: int = 1
    owner: Owner = Owner.CENTRE
    crawford: bool = False
    cube_enabled: bool = True
    cube_cap: int = 0
    end_mode: str = "backgammons"
    jacoby: bool = False
    beavers: bool = False
    raccoons: bool = False
    cube_life: float = CONTACT_LIFE
    met: MatchEquityTable | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        """Reject impossible cube and score combinations."""
        c = self.cube
        if c < 1 or c & (c - 1):
            raise CubeError(f"cube value must be a power of two, got {c!r}")
        if self.end_mode not in END_MULTIPLIERS:
            raise CubeError(f"unknown end mode {self.end_mode!r}")
        if not 0.0 <= self.cube_life <= 1.0:
            raise CubeError(f"cube life must be within 0..1, got {self.cube_life!r}")
        if self.match_length < 0:
            raise CubeError(f"match length must be >= 0, got {self.match_length!r}")
        if self.match_length:
            n = self.match_length
            if not (1 <= self.away <= n and 1 <= self.opp_away <= n):
                raise CubeError(f"aways {self.away!r}, {self.opp_away!r} do not fit a "
                                f"{self.match_length}-point match")
            if self.crawford and 1 not in (self.away, self.opp_away):
                raise CubeError(f"a Crawford game needs someone 1 away, got {self.away!r}, "
                                f"{self.opp_away!r}")
        if self.owner == Owner.CENTRE and c != 1 and not self.is_money:
            raise CubeError(f"a centred cube has value 1 in a match, got {c!r}")

    @property
    def is_money(self) -> bool:
        """Money play."""
        return self.match_length == 0

    @property
    def post_crawford(self) -> bool:
        """A match game after the Crawford game with someone 1 away."""
        return (not self.is_money and not self.crawford
                and (self.away == 1 or self.opp_away == 1))

    @property
    def max_cube(self) -> int:
        """The largest cube allowed (1 with the cube off or in the Crawford game)."""
        if not self.cube_enabled or (self.crawford and not self.is_money):
            return 1
        return self.cube_cap or MAX_CUBE

    @property
    def table(self) -> MatchEquityTable:
        """The match equity table in use."""
        return self.met if self.met is not None else default_table()

    def can_double(self) -> bool:
        """Whether the side on roll may double now (cube rules only)."""
        return self.owner != Owner.OPPONENT and self.cube * 2 <= self.max_cube


@dataclass(frozen=True)
class CubefulEquities:
    """Cubeful values of the three cube actions, from the side on roll.

    ``nd``, ``dt``, ``dp``: no double, double/take, double/pass, as money equity per unit of
    the current cube or, in a match, as normalised equity (+1 = winning the current cube value,
    gnubg's EMG). ``nd_mwc``, ``dt_mwc``, ``dp_mwc``: the same as match winning chances
    (``nan`` for money). ``live``: whether doubling is allowed at all (otherwise ``dt`` and
    ``dp`` are ``nan``).
    """

    nd: float
    dt: float
    dp: float
    nd_mwc: float = float("nan")
    dt_mwc: float = float("nan")
    dp_mwc: float = float("nan")
    can_double: bool = True


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


def _at(f: PL, p: float) -> float:
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
        nya = _at(left, na) if len(tp) else y0
        right = _envelope(g, nya, y1, upper=True, lo=na)
        cp = _inner_vertices(right)
        nb = float(cp[0]) if len(cp) else 1.0
        nyb = _at(right, nb) if len(cp) else y1
        if abs(na - a) < 1e-12 and abs(nb - b) < 1e-12:
            a, b = na, nb
            break
        a, b, yb = na, nb, nyb
    if a >= b:
        # Both sides would double in an overlapping window (rare match-end cases): split it.
        m = 0.5 * (a + b)
        return _join(left, right, m, m)
    return _join(left, right, a, b)


# -- outcome values ---------------------------------------------------------------------------


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


def check_probs(probs: Probs) -> Probs:
    """Validate five cubeless probabilities (cumulative gammon columns)."""
    try:
        win, wg, wbg, lg, lbg = (float(v) for v in probs)
    except (TypeError, ValueError) as exc:
        raise CubeError(f"need five probabilities, got {probs!r}") from exc
    eps = 1e-6
    if not (-eps <= wbg <= wg + eps <= win + 2 * eps <= 1 + 3 * eps
            and -eps <= lbg <= lg + eps <= 1 - win + 2 * eps):
        raise CubeError(f"inconsistent probabilities {probs!r}")
    win = _unit(win)
    wg = min(_unit(wg), win)
    lg = min(_unit(lg), 1.0 - win)
    return win, wg, min(_unit(wbg), wg), lg, min(_unit(lbg), lg)


def _unit(v: float) -> float:
    return min(max(v, 0.0), 1.0)


class _Model:
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


def cube_life(position_class: str, pips: int = 0) -> float:
    """gnubg's cube efficiency for a position class (``"contact"``, ``"crashed"``, ``"race"``,
    ``"bearoff"``); ``pips`` is the pip count of the side on roll (races only)."""
    if position_class == "race":
        x = RACE_LIFE_BASE + RACE_LIFE_PER_PIP * pips
        return min(max(x, RACE_LIFE_MIN), RACE_LIFE_MAX)
    if position_class == "bearoff":
        return BEAROFF_LIFE
    if position_class == "crashed":
        return CRASHED_LIFE
    return CONTACT_LIFE


def _mix(x: float, live: PL, dead: PL, p: float) -> float:
    return x * _at(live, p) + (1.0 - x) * _at(dead, p)


def _janowski_money(probs: Probs, ctx: CubeContext) -> CubefulEquities:
    """Money play without a cube cap: Janowski's closed forms (same as the recursion)."""
    win = probs[0]
    w, ls = _shape(probs)
    mult = END_MULTIPLIERS[ctx.end_mode]
    big_w = sum(w[k] * mult[k] for k in range(3))
    big_l = sum(ls[k] * mult[k] for k in range(3))
    x = ctx.cube_life
    tp = (big_l - 0.5) / (big_w + big_l + 0.5)
    cp = (big_l + 1.0) / (big_w + big_l + 0.5)
    dead = win * big_w - (1.0 - win) * big_l
    jacoby = ctx.jacoby and ctx.owner == Owner.CENTRE
    lo = -1.0 if jacoby else -big_l   # value at p = 0 with the cube where it is now
    hi = 1.0 if jacoby else big_w

    def below_tp(p: float, y0: float) -> float:
        return y0 + (-1.0 - y0) * p / tp if tp > 0 else -1.0

    if ctx.owner == Owner.CENTRE:
        if win < tp:
            live = below_tp(win, lo)
        elif win < cp:
            live = -1.0 + 2.0 * (win - tp) / (cp - tp)
        else:
            live = 1.0 + (hi - 1.0) * (win - cp) / (1.0 - cp) if cp < 1 else 1.0
        nd = x * live + (1.0 - x) * ((2.0 * win - 1.0) if jacoby else dead)
    elif ctx.owner == Owner.ME:
        if win < cp:
            live = -big_l + (1.0 + big_l) * win / cp
        else:
            live = 1.0 + (big_w - 1.0) * (win - cp) / (1.0 - cp) if cp < 1 else 1.0
        nd = x * live + (1.0 - x) * dead
    else:
        if win < tp:
            live = below_tp(win, -big_l)
        else:
            live = -1.0 + (big_w + 1.0) * (win - tp) / (1.0 - tp)
        nd = x * live + (1.0 - x) * dead
    can = ctx.can_double()
    if not can:
        return CubefulEquities(nd=nd, dt=float("nan"), dp=float("nan"), can_double=False)
    if win < tp:
        un = below_tp(win, -big_l)
    else:
        un = -1.0 + (big_w + 1.0) * (win - tp) / (1.0 - tp)
    dt = 2.0 * (x * un + (1.0 - x) * dead)
    return CubefulEquities(nd=nd, dt=dt, dp=1.0, can_double=True)


def cubeful(probs: Probs, ctx: CubeContext) -> CubefulEquities:
    """Cubeful values of no double, double/take and double/pass for the side on roll."""
    return _cubeful_checked(check_probs(probs), ctx)


def _cubeful_checked(probs: Probs, ctx: CubeContext) -> CubefulEquities:
    """:func:`cubeful` of probabilities that :func:`check_probs` has returned."""
    if ctx.is_money and ctx.max_cube >= MAX_CUBE and ctx.cube <= 2**10:
        return _janowski_money(probs, ctx)
    return _cubeful_model(probs, ctx)


def _cubeful_model(probs: Probs, ctx: CubeContext) -> CubefulEquities:
    """:func:`cubeful` by the level-by-level construction (any cap, money or match), in the
    kernel of :mod:`gbot.core.cubemodel` (the same figures as :func:`_cubeful_model_py`)."""
    from gbot.core.cubemodel import cube_values

    c = ctx.cube
    can = ctx.can_double()
    money = ctx.is_money
    table = _NO_TABLE if money else _outcome_table(ctx)
    out = np.empty(3, dtype=np.float64)
    if cube_values(np.array(probs, dtype=np.float64), _MULTS[ctx.end_mode], money, ctx.away,
                   ctx.opp_away, table, c, int(ctx.owner), _Model.top_cube(ctx), ctx.cube_life,
                   money and ctx.jacoby and ctx.owner == Owner.CENTRE,
                   not money and ctx.away == 2 and ctx.opp_away == 2, can, out) != 0:
        return _cubeful_model_py(probs, ctx)
    return _from_raw(out, ctx, can, table)


def _cubeful_model_many(rows: list[Probs], lives: list[float], ctx: CubeContext
                        ) -> list[CubefulEquities]:
    """``_cubeful_model(rows[i], replace(ctx, cube_life=lives[i]))`` for every row (checked
    probabilities), in one kernel call."""
    from gbot.core.cubemodel import cube_values_rows

    can = ctx.can_double()
    money = ctx.is_money
    table = _NO_TABLE if money else _outcome_table(ctx)
    out = np.empty((len(rows), 3), dtype=np.float64)
    if cube_values_rows(np.array(rows, dtype=np.float64).reshape(-1, 5),
                        np.array(lives, dtype=np.float64), _MULTS[ctx.end_mode], money,
                        ctx.away, ctx.opp_away, table, ctx.cube, int(ctx.owner),
                        _Model.top_cube(ctx), money and ctx.jacoby and ctx.owner == Owner.CENTRE,
                        not money and ctx.away == 2 and ctx.opp_away == 2, can, out) != 0:
        return [_cubeful_model_py(r, replace(ctx, cube_life=x))
                for r, x in zip(rows, lives, strict=True)]
    return [_from_raw(o, ctx, can, table) for o in out]


def _from_raw(out: Array, ctx: CubeContext, can: bool, table: Array) -> CubefulEquities:
    """The equities of the model's raw no double, double/take, double/pass values."""
    c = ctx.cube
    nd_raw = float(out[0])
    dt_raw, dp_raw = (float(out[1]), float(out[2])) if can else (float("nan"), float("nan"))
    if ctx.is_money:
        return CubefulEquities(nd=nd_raw / c, dt=dt_raw / c, dp=dp_raw / c, can_double=can)
    win, lose = float(table[ctx.away - c, ctx.opp_away]) if ctx.away > c else 1.0, (
        float(table[ctx.away, ctx.opp_away - c]) if ctx.opp_away > c else 0.0)
    if win == lose:
        # The match cannot change with this cube (should not happen in a live match).
        raise CubeError(f"cube {c!r} decides nothing at {ctx.away!r}-away, {ctx.opp_away!r}-away")
    return CubefulEquities(
        nd=mwc_to_equity(nd_raw, win, lose), dt=mwc_to_equity(dt_raw, win, lose),
        dp=mwc_to_equity(dp_raw, win, lose), nd_mwc=nd_raw, dt_mwc=dt_raw, dp_mwc=dp_raw,
        can_double=can)


_NO_TABLE = np.zeros((1, 1), dtype=np.float64)
_MULTS = {mode: np.array(m, dtype=np.float64) for mode, m in END_MULTIPLIERS.items()}
_TABLES: dict[tuple[int, int, int, bool], tuple[MatchEquityTable, Array]] = {}


def _outcome_table(ctx: CubeContext) -> Array:
    """``t[a, b]``: the winning chance ``a`` away against ``b`` away in ``ctx``'s table and
    Crawford situation (``a``, ``b`` >= 1; the rest unused), kept per situation."""
    met = ctx.table
    pc = ctx.crawford or ctx.post_crawford
    key = (id(met), ctx.away, ctx.opp_away, pc)
    hit = _TABLES.get(key)
    if hit is not None and hit[0] is met:
        return hit[1]
    t = np.zeros((ctx.away + 1, ctx.opp_away + 1), dtype=np.float64)
    for a in range(1, ctx.away + 1):
        for b in range(1, ctx.opp_away + 1):
            t[a, b] = met.mwc(a, b, post_crawford=pc)
    if len(_TABLES) > 4096:
        _TABLES.clear()
    _TABLES[key] = (met, t)
    return t


def _cubeful_model_py(probs: Probs, ctx: CubeContext) -> CubefulEquities:
    """:func:`_cubeful_model` in Python (the reference)."""
    m = _Model(probs, ctx)
    p = m.p
    x = ctx.cube_life
    c = ctx.cube
    m.fill_deep_levels(c)
    jacoby = ctx.is_money and ctx.jacoby and ctx.owner == Owner.CENTRE
    if not ctx.is_money and ctx.away == 2 and ctx.opp_away == 2:
        # gnubg's convention at 2-away 2-away: the first double is due at once, so holding
        # the cube has no market value; the no-double branch is valued with a dead cube.
        nd_raw = _at(m.dead(c), p)
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


def cubeful_mwc(probs: Probs, ctx: CubeContext) -> float:
    """Match winning chance of the side on roll with correct cube handling now (match play)."""
    if ctx.is_money:
        raise CubeError("cubeful_mwc needs a match context")
    e = cubeful(probs, ctx)
    if not e.can_double:
        return e.nd_mwc
    if e.dt_mwc > e.nd_mwc and e.dp_mwc > e.nd_mwc:
        return min(e.dt_mwc, e.dp_mwc)
    return e.nd_mwc


# -- cubeless conversions ----------------------------------------------------------------------


def money_equity(probs: Probs, end_mode: str = "backgammons") -> float:
    """Cubeless money equity per unit stake (gammons 2, backgammons 3 under the end mode)."""
    win, wg, wbg, lg, lbg = check_probs(probs)
    m = END_MULTIPLIERS[end_mode]
    return ((2 * win - 1) + (m[1] - 1) * (wg - lg) + (m[2] - m[1]) * (wbg - lbg))


def cubeless_mwc(probs: Probs, ctx: CubeContext) -> float:
    """Match winning chance with the cube left where it is (no more cube action)."""
    m = _Model(check_probs(probs), ctx)
    return _at(m.dead(ctx.cube), m.p)


__all__ = ["CubeContext", "CubefulEquities", "Owner", "cubeful", "cubeful_mwc", "cube_life",
           "money_equity", "cubeless_mwc", "check_probs", "MAX_CUBE"]
