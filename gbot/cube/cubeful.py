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
  ends). For money, as the highest cube grows without end, this tends to Janowski's take
  point ``(L - 1/2) / (W + L + 1/2)`` and cash point ``(L + 1) / (W + L + 1/2)``; with the
  cube dying at 2**15 the values differ from that limit by up to about 0.003 on gammon-heavy
  positions (the cap's effect).
* Real games lie in between: the cubeful value is ``x * live + (1 - x) * dead`` with the cube
  life ``x`` (Janowski's cube efficiency). gnubg uses 0.68 for contact positions, 0.6 for
  bear-offs and ``0.55 + 0.00125 * pips`` within 0.6..0.7 for races; :func:`cube_life` gives
  those.

In a match the values are winning chances from the match equity table (:mod:`gbot.cube.met`),
so the same construction is the match-play analogue of Janowski's formulas; money values are
points per unit stake.

The arithmetic is compiled in :mod:`gbot.core.cubemath` (the one owner of every cube figure);
this module validates, keeps the per-situation tables and names the results. For money play
without a cap the values are Janowski's closed forms, the level construction's limit for a cube
that never dies; capped cubes and matches use the level construction itself (see
:mod:`gbot.core.cubemath` on the difference, which is the cap's).

Rule switches: the cube cap (no double above it, so the cube dies there), the cube off, the
Crawford game (no doubling), Jacoby (money, centred cube: gammons and backgammons count single
until the cube is turned), and the end modes ``"single"`` (every game counts 1),
``"gammons"`` (backgammons count as gammons) and ``"backgammons"``.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import numpy.typing as npt

from gbot.core import classify
from gbot.core import cubemath as _core
from gbot.core.arrays import frozen
from gbot.core.cubemath import (
    BEAROFF_LIFE,
    CONTACT_LIFE,
    CRASHED_LIFE,
    END_MULTIPLIERS,
    MAX_CUBE,
    RACE_LIFE_BASE,
    RACE_LIFE_MAX,
    RACE_LIFE_MIN,
    RACE_LIFE_PER_PIP,
)
from gbot.cube.met import MatchEquityTable, default_table, mwc_to_equity
from gbot.errors import CubeError
from gbot.game.match import Rules

Probs = tuple[float, float, float, float, float]
Array = npt.NDArray[np.float64]


class Owner(enum.IntEnum):
    """Who holds the cube, seen from the side on roll."""

    CENTRE = _core.OWNER_CENTRE
    ME = _core.OWNER_ME
    OPPONENT = _core.OWNER_OPPONENT


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
    rules: Rules = Rules()
    cube_life: float = CONTACT_LIFE
    met: MatchEquityTable | None = field(default=None, compare=False)

    @property
    def cube_enabled(self) -> bool:
        """Whether the table plays with a cube (:attr:`Rules.cube_enabled`)."""
        return self.rules.cube_enabled

    @property
    def cube_cap(self) -> int:
        """The cube cap, 0 for none (:attr:`Rules.cube_cap`)."""
        return self.rules.cube_cap

    @property
    def end_mode(self) -> str:
        """What a game's end scores (:attr:`Rules.end_mode`)."""
        return self.rules.end_mode

    @property
    def jacoby(self) -> bool:
        """The Jacoby rule in force: money play with :attr:`Rules.jacoby`."""
        return self.rules.jacoby and self.is_money

    @property
    def beavers(self) -> bool:
        """Beavers in force: money play with :attr:`Rules.beavers`."""
        return self.rules.beavers and self.is_money

    @property
    def raccoons(self) -> bool:
        """Raccoons in force: money play with :attr:`Rules.raccoons`."""
        return self.rules.raccoons and self.is_money

    def __post_init__(self) -> None:
        """Reject impossible cube and score combinations."""
        c = self.cube
        if c < 1 or c & (c - 1):
            raise CubeError(f"cube value must be a power of two, got {c!r}")
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


# -- probabilities, cube life ----------------------------------------------------------------


def check_probs(probs: Probs) -> Probs:
    """Validate five cubeless probabilities (cumulative gammon columns) and clip them
    (:func:`gbot.core.cubemath.clip_probs`)."""
    try:
        arr = np.array([float(v) for v in probs], dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise CubeError(f"need five probabilities, got {probs!r}") from exc
    if arr.shape != (5,):
        raise CubeError(f"need five probabilities, got {probs!r}")
    out = np.empty(5, dtype=np.float64)
    if not _core.clip_probs(arr, out):
        raise CubeError(f"inconsistent probabilities {probs!r}")
    win, wg, wbg, lg, lbg = out.tolist()
    return win, wg, wbg, lg, lbg


def cube_life(position_class: str, pips: int = 0) -> float:
    """gnubg's cube efficiency for a position class (``"contact"``, ``"crashed"``, ``"race"``,
    ``"bearoff"``); ``pips`` is the pip count of the side on roll (races only)."""
    return float(_core.life_of(_class_code(position_class), int(pips), _core.LIVES))


def _class_code(name: str) -> int:
    return {"race": classify.RACE, "bearoff": classify.BEAROFF,
            "crashed": classify.CRASHED}.get(name, classify.CONTACT)


def board_cube_life(board: npt.ArrayLike) -> float:
    """gnubg's cube life (efficiency) for a 26-slot board seen by the side on roll."""
    arr = np.asarray(getattr(board, "board", board), dtype=np.int8)
    if arr.shape != (26,):
        raise CubeError(f"need a position or a 26-slot board, got {board!r}")
    return float(_core.board_life(frozen(arr), _core.LIVES))


def cube_lives(boards: npt.ArrayLike) -> Array:
    """gnubg's cube life of each board ``int8[n, 26]`` seen by its side on roll (the figures of
    :func:`board_cube_life`, for many boards at once)."""
    b = np.ascontiguousarray(boards, dtype=np.int8).reshape(-1, 26)
    out: Array = np.empty(b.shape[0], dtype=np.float64)
    _core.lives_rows(b, _core.LIVES, out)
    return out


# -- the situation's numbers -----------------------------------------------------------------


def top_cube(ctx: CubeContext) -> int:
    """The highest cube the level model considers: the cap, or in a match the cube from which
    both sides are dead (any win or loss ends the match)."""
    return int(_core.top_cube(ctx.is_money, ctx.max_cube, ctx.away, ctx.opp_away, ctx.cube))


def janowski_applies(ctx: CubeContext) -> bool:
    """Whether :func:`cubeful` uses Janowski's closed forms for ``ctx`` (money, no cap)."""
    return ctx.is_money and ctx.max_cube >= MAX_CUBE and ctx.cube <= _core.JANOWSKI_MAX_CUBE


def jacoby_applies(ctx: CubeContext) -> bool:
    """Money play with the Jacoby rule and a centred cube: gammons count single."""
    return ctx.is_money and ctx.jacoby and ctx.owner == Owner.CENTRE


def multipliers(end_mode: str) -> Array:
    """What a single, a gammon and a backgammon count under ``end_mode`` (read-only)."""
    return _core.MULTS[end_mode]


NO_TABLE = _core.NO_TABLE
"""The outcome table of money play (unused: money values are the points)."""
_TABLES: dict[tuple[int, int, int, bool], tuple[MatchEquityTable, Array]] = {}


def outcome_table(ctx: CubeContext) -> Array:
    """``t[a, b]``: the winning chance ``a`` away against ``b`` away in ``ctx``'s table and
    Crawford situation (``a``, ``b`` >= 1; the rest unused), kept per situation; money play:
    :data:`NO_TABLE`."""
    if ctx.is_money:
        return NO_TABLE
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
    t.setflags(write=False)
    if len(_TABLES) > 4096:
        _TABLES.clear()
    _TABLES[key] = (met, t)
    return t


def outcome_value(ctx: CubeContext, points: int) -> float:
    """The value for the side on roll of winning (``points`` > 0) or losing ``-points`` now:
    the points (money) or its match winning chance afterwards."""
    return float(_core.outcome_value(points, ctx.is_money, ctx.away, ctx.opp_away,
                                     outcome_table(ctx)))


def cube_mwcs(ctx: CubeContext) -> tuple[float, float]:
    """The side on roll's match winning chances after winning and after losing the current
    cube as a single game (match play)."""
    c = ctx.cube
    return outcome_value(ctx, c), outcome_value(ctx, -c)


# -- cubeful values --------------------------------------------------------------------------


def cubeful(probs: Probs, ctx: CubeContext) -> CubefulEquities:
    """Cubeful values of no double, double/take and double/pass for the side on roll."""
    return cubeful_clipped(check_probs(probs), ctx)


def cubeful_clipped(probs: Probs, ctx: CubeContext) -> CubefulEquities:
    """:func:`cubeful` of probabilities that :func:`check_probs` has returned."""
    can = ctx.can_double()
    if janowski_applies(ctx):
        out = np.empty(3, dtype=np.float64)
        _core.janowski(np.array(probs, dtype=np.float64), multipliers(ctx.end_mode),
                       ctx.cube_life, int(ctx.owner), ctx.jacoby, out)
        if not can:
            return CubefulEquities(nd=float(out[0]), dt=float("nan"), dp=float("nan"),
                                   can_double=False)
        return CubefulEquities(nd=float(out[0]), dt=float(out[1]), dp=float(out[2]),
                               can_double=True)
    return cubeful_many([probs], [ctx.cube_life], ctx)[0]


def cubeful_many(rows: list[Probs], lives: list[float], ctx: CubeContext
                 ) -> list[CubefulEquities]:
    """The level model's values of ``rows[i]`` (checked probabilities) with cube life
    ``lives[i]`` in ``ctx``, in one kernel call (any context, Janowski's included)."""
    can = ctx.can_double()
    return [_from_raw(o, ctx, can) for o in cube_values_raw(rows, lives, ctx)]


def cube_values_raw(rows: Sequence[Probs] | Array, lives: Sequence[float] | Array,
                    ctx: CubeContext) -> Array:
    """The level model's raw no double, double/take, double/pass values ``[n, 3]`` of
    ``rows[i]`` (checked probabilities) with cube life ``lives[i]`` in ``ctx``: money points
    (times the cube) or match winning chances (:func:`cubeful_many` makes equities of them)."""
    out = np.empty((len(rows), 3), dtype=np.float64)
    # C order whatever the caller's layout: one compiled type (a transposed array is Fortran)
    if _core.cube_values_rows(np.ascontiguousarray(rows, dtype=np.float64).reshape(-1, 5),
                              np.ascontiguousarray(lives, dtype=np.float64),
                              multipliers(ctx.end_mode),
                              *kernel_situation(ctx), ctx.can_double(), out) != 0:
        raise CubeError(f"the cube model outgrew its arrays in {ctx!r}")
    return out


def money_values(probs: npt.ArrayLike, lives: npt.ArrayLike, ctx: CubeContext) -> Array:
    """Money equity (per unit of the current cube) of the right cube action for the side on
    roll, one per row of ``probs`` ``[n, 5]`` with cube life ``lives[i]``.

    The same figures as ``decide(probs[i], replace(ctx, cube_life=lives[i])).equity``
    (:func:`gbot.cube.decision.decide`), for contexts where that uses Janowski's closed forms
    (money play without a cube cap).
    """
    if not janowski_applies(ctx):
        raise ValueError(f"money_values needs money play without a cube cap, got {ctx!r}")
    rows = np.ascontiguousarray(probs, dtype=np.float64).reshape(-1, 5)
    x = np.ascontiguousarray(np.broadcast_to(np.asarray(lives, dtype=np.float64),
                                             (rows.shape[0],)))
    out: Array = np.empty(rows.shape[0], dtype=np.float64)
    _core.money_values_rows(rows, x, multipliers(ctx.end_mode), int(ctx.owner), ctx.jacoby,
                            ctx.can_double(), ctx.beavers, out)
    return out


def kernel_situation(ctx: CubeContext) -> tuple[bool, int, int, Array, int, int, int, bool,
                                                     bool]:
    """The arguments of :func:`gbot.core.cubemath.cube_values` that describe ``ctx`` (money,
    aways, outcome table, cube, owner, top cube, Jacoby, gnubg's 2-away 2-away rule)."""
    money = ctx.is_money
    return (money, ctx.away, ctx.opp_away, outcome_table(ctx), ctx.cube, int(ctx.owner),
            top_cube(ctx), jacoby_applies(ctx), dead_no_double(ctx))


def dead_no_double(ctx: CubeContext) -> bool:
    """gnubg's convention at 2-away 2-away: the first double is due at once, so holding the
    cube has no market value; the no-double branch is valued with a dead cube."""
    return not ctx.is_money and ctx.away == 2 and ctx.opp_away == 2


def _from_raw(out: Array, ctx: CubeContext, can: bool) -> CubefulEquities:
    """The equities of the model's raw no double, double/take, double/pass values."""
    c = ctx.cube
    nd_raw = float(out[0])
    dt_raw, dp_raw = (float(out[1]), float(out[2])) if can else (float("nan"), float("nan"))
    if ctx.is_money:
        return CubefulEquities(nd=nd_raw / c, dt=dt_raw / c, dp=dp_raw / c, can_double=can)
    win, lose = cube_mwcs(ctx)
    if win == lose:
        # The match cannot change with this cube (should not happen in a live match).
        raise CubeError(f"cube {c!r} decides nothing at {ctx.away!r}-away, {ctx.opp_away!r}-away")
    return CubefulEquities(
        nd=mwc_to_equity(nd_raw, win, lose), dt=mwc_to_equity(dt_raw, win, lose),
        dp=mwc_to_equity(dp_raw, win, lose), nd_mwc=nd_raw, dt_mwc=dt_raw, dp_mwc=dp_raw,
        can_double=can)


def cubeful_mwc(probs: Probs, ctx: CubeContext) -> float:
    """Match winning chance of the side on roll with correct cube handling now (match play):
    the value of the action the decision rule (:func:`gbot.core.cubemath.action_of`) picks."""
    if ctx.is_money:
        raise CubeError("cubeful_mwc needs a match context")
    p = check_probs(probs)
    e = cubeful_clipped(p, ctx)
    if not e.can_double:
        return e.nd_mwc
    action = _core.action_of(e.nd, e.dt, e.dp, p[1], False)
    return float(_core.pick(action, _core.response_of(e.dt, e.dp, False), e.nd_mwc, e.dt_mwc,
                            e.dp_mwc))


# -- cubeless conversions ----------------------------------------------------------------------


def money_equity(probs: Probs, end_mode: str = "backgammons") -> float:
    """Cubeless money equity per unit stake (gammons 2, backgammons 3 under the end mode)."""
    win, wg, wbg, lg, lbg = check_probs(probs)
    m = END_MULTIPLIERS[end_mode]
    return ((2 * win - 1) + (m[1] - 1) * (wg - lg) + (m[2] - m[1]) * (wbg - lbg))


def cubeless_mwc(probs: Probs, ctx: CubeContext) -> float:
    """Match winning chance with the cube left where it is (no more cube action); for money,
    the points."""
    p = np.array(check_probs(probs), dtype=np.float64)
    return float(_core.cubeless_value(p, multipliers(ctx.end_mode), ctx.is_money, ctx.away,
                                      ctx.opp_away, outcome_table(ctx), ctx.cube))


def with_cube_life(ctx: CubeContext, x: float) -> CubeContext:
    """``ctx`` with another cube life."""
    return replace(ctx, cube_life=x)


__all__ = ["CubeContext", "CubefulEquities", "Owner", "cubeful", "cubeful_mwc", "cube_life",
           "money_equity", "cubeless_mwc", "check_probs", "MAX_CUBE", "BEAROFF_LIFE",
           "CONTACT_LIFE", "CRASHED_LIFE", "END_MULTIPLIERS", "RACE_LIFE_BASE", "RACE_LIFE_MAX",
           "RACE_LIFE_MIN", "RACE_LIFE_PER_PIP", "board_cube_life", "cube_lives", "cube_mwcs",
           "cubeful_clipped", "cubeful_many", "cube_values_raw", "dead_no_double", "jacoby_applies",
           "janowski_applies", "kernel_situation", "money_values", "multipliers", "outcome_table",
           "outcome_value", "top_cube", "with_cube_life", "NO_TABLE"]
