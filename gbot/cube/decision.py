"""Cube decisions: double or not, take, pass or beaver, from cubeless probabilities.

:func:`decide` turns the five cubeless probabilities of the side on roll (before it rolls) and a
:class:`~gbot.cube.cubeful.CubeContext` into a :class:`CubeDecision`. :func:`cube_decision` is
the public entry point: a position, a :class:`gbot.game.match.MatchState` and a ply; it asks the
evaluator for the probabilities, picks the cube life from the position class and decides.

The rules, from the side on roll (the would-be doubler), with ``ND``, ``DT``, ``DP`` the
cubeful equities of no double, double/take and double/pass:

* The opponent passes when ``DT > DP`` (taking would cost more than the cube), takes otherwise,
  and beavers (money, beavers allowed) when it takes and ``DT < 0``.
* Doubling is right when it beats playing on: ``min(DT, DP) > ND`` (with a beaver the doubler
  gets ``2 * DT``). A pass that is worth less than playing on is "too good" (``ND > DP``),
  provided a gammon is still possible.
* Where the side on roll may not double (opponent's cube, Crawford game, cube off, cube at the
  cap) the action is ``"no_double"`` and ``DT``/``DP`` are ``nan``.
"""

from __future__ import annotations

import functools
import math
import threading
from dataclasses import dataclass
from typing import Any

import numpy as np

from gbot.core import cubemath as _core
from gbot.core.board import checkers
from gbot.cube.cubeful import (
    CubeContext,
    CubefulEquities,
    Owner,
    Probs,
    board_cube_life,
    check_probs,
    cubeful_clipped,
    with_cube_life,
)
from gbot.cube.lookahead import lookahead_cubeful
from gbot.errors import CubeError
from gbot.eval.evaluator import Evaluator
from gbot.eval.protocol import EvaluatorProtocol, move_rule, provides
from gbot.game.match import MatchState, Rules

ACTIONS = _core.ACTIONS
RESPONSES = _core.RESPONSES


@dataclass(frozen=True)
class CubeDecision:
    """What the side on roll should do with the cube, and what the opponent should answer.

    ``equities``: cubeful ``(no double, double/take, double/pass)`` from the side on roll, as
    money equity per unit of the current cube or, in a match, normalised match equity (+1 =
    winning the current cube value). ``mwc``: the same three as match winning chances in a match
    (``None`` for money). ``response`` is what the opponent should answer if doubled now;
    ``raccoon`` whether the side on roll should raccoon if its double were beavered.
    """

    action: str
    response: str
    equities: tuple[float, float, float]
    probabilities: Probs
    mwc: tuple[float, float, float] | None = None
    can_double: bool = True
    raccoon: bool = False
    cube_life: float = 0.68

    @property
    def doubles(self) -> bool:
        """The side on roll should double now."""
        return self.action in ("double_take", "double_pass")

    @property
    def takes(self) -> bool:
        """The opponent should take (or beaver) a double."""
        return self.response != "pass"

    @property
    def equity(self) -> float:
        """Cubeful equity of the right action for the side on roll."""
        return self._of_action(self.equities)

    @property
    def match_winning_chance(self) -> float | None:
        """Match winning chance of the right action for the side on roll (None in money)."""
        return None if self.mwc is None else self._of_action(self.mwc)

    def _of_action(self, values: tuple[float, float, float]) -> float:
        """What the side on roll gets of its no double, double/take and double/pass
        ``values`` with the right action and answer."""
        nd, dt, dp = values
        return float(_core.pick(ACTIONS.index(self.action), RESPONSES.index(self.response), nd,
                                dt, dp))


def decide(probs: Probs, ctx: CubeContext) -> CubeDecision:
    """The cube decision for the side on roll from its cubeless probabilities."""
    probs = check_probs(probs)
    return decide_from_equities(cubeful_clipped(probs, ctx), ctx, probs)


def decide_from_equities(e: CubefulEquities, ctx: CubeContext, probs: Probs) -> CubeDecision:
    """The cube decision from already computed cubeful equities (see :func:`decide`)."""
    mwc = None if ctx.is_money else (e.nd_mwc, e.dt_mwc, e.dp_mwc)
    eq = (e.nd, e.dt, e.dp)
    if not e.can_double:
        return CubeDecision(action="no_double", response="take", equities=eq, probabilities=probs,
                            mwc=mwc, can_double=False, cube_life=ctx.cube_life)
    nd, dt, dp = eq
    beavers = ctx.is_money and ctx.beavers
    response = RESPONSES[_core.response_of(dt, dp, beavers)]
    action = ACTIONS[_core.action_of(nd, dt, dp, probs[1], beavers)]
    raccoon = bool(ctx.is_money and ctx.beavers and ctx.raccoons and dt > 0.0)
    return CubeDecision(action=action, response=response, equities=eq, probabilities=probs,
                        mwc=mwc, can_double=True, raccoon=raccoon, cube_life=ctx.cube_life)


# -- from a position and a match state ---------------------------------------------------------


def _board_of(pos: Any) -> np.ndarray[Any, np.dtype[np.int8]]:
    board = getattr(pos, "board", pos)
    arr = np.asarray(board, dtype=np.int8)
    if arr.shape != (26,):
        raise CubeError(f"need a position or a 26-slot board, got {pos!r}")
    return arr


def context_from_state(state: MatchState, cube_life_value: float = 0.68) -> CubeContext:
    """The :class:`CubeContext` of a match state, seen by ``state.player_on_roll``."""
    me = state.player_on_roll
    rules = state.rules
    if state.cube_owner == -1:
        owner = Owner.CENTRE
    elif state.cube_owner == me:
        owner = Owner.ME
    else:
        owner = Owner.OPPONENT
    n = state.match_length
    away = n - state.score[me] if n else 0
    opp_away = n - state.score[1 - me] if n else 0
    return _context(n, away, opp_away, state.cube_value, owner, bool(state.crawford) and n > 0,
                    rules, cube_life_value)


@functools.lru_cache(maxsize=4096)
def _context(match_length: int, away: int, opp_away: int, cube: int, owner: Owner,
             crawford: bool, rules: Rules, cube_life_value: float) -> CubeContext:
    """One (immutable, so shared) :class:`CubeContext` per situation: scores and cubes
    repeat through a session, and building one checks every field."""
    return CubeContext(match_length=match_length, away=away, opp_away=opp_away, cube=cube,
                       owner=owner, crawford=crawford, rules=rules, cube_life=cube_life_value)


_shared_lock = threading.Lock()
_shared: EvaluatorProtocol | None = None


def shared_evaluator() -> EvaluatorProtocol:
    """The process-wide :class:`gbot.Evaluator`, created on first use."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = Evaluator()
        return _shared


def cube_decision(pos: Any, state: MatchState, ply: int = 0,
                  evaluator: EvaluatorProtocol | None = None) -> CubeDecision:
    """The cube decision for the side on roll of ``pos`` (before it rolls) in ``state``.

    ``pos`` is a :class:`gbot.Position` (or a 26-slot board) seen by ``state.player_on_roll``;
    ``evaluator`` defaults to a shared :class:`gbot.Evaluator`. Rule switches (cube cap, cube
    off, end mode, Jacoby, beavers, raccoons) come from ``state.rules``. A finished game (a
    side without checkers) has none: :class:`gbot.errors.CubeError`.
    """
    board = _board_of(pos)
    if 0 in checkers(board):
        raise CubeError("the game is over in this position; there is no cube decision")
    ev = evaluator if evaluator is not None else shared_evaluator()
    ctx = context_from_state(state, board_cube_life(pos))
    if ply >= 1 and provides(ev, "evaluate"):
        caucasian = move_rule(ev) or state.rules.caucasian
        e, probs = lookahead_cubeful(board, ctx, ev, ply, caucasian=caucasian)
        return decide_from_equities(e, ctx, check_probs(probs))
    raw = tuple(float(v) for v in ev.probabilities(pos, ply=ply))
    if len(raw) != 5 or not all(math.isfinite(v) for v in raw):
        raise CubeError(f"evaluator returned {raw!r}")
    return decide((raw[0], raw[1], raw[2], raw[3], raw[4]), ctx)


__all__ = ["CubeDecision", "decide", "decide_from_equities", "cube_decision", "context_from_state",
           "board_cube_life", "with_cube_life", "ACTIONS", "RESPONSES"]
