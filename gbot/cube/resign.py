"""Resignations: when to accept one, and when (and at which level) to offer one.

Levels follow gnubg's Match ID: 1 single, 2 gammon, 3 backgammon. A resignation at level ``k``
gives the winner ``k`` times the cube, with the end mode applied (``"single"``: always 1;
``"gammons"``: a backgammon counts 2) and, in money play under Jacoby with a centred cube, 1.

* Accept exactly when the resignation is worth at least as much as playing on: playing on is
  the resigner's best cube action now (it may still double), seen from the other side.
* Offer only when the outcome is certain: the resigner cannot win (its winning chance is
  below ``eps``; exact tables such as the bear-off databases give 0), at the level of the
  loss that is certain (a gammon when every loss is a gammon, and so on), lowered to the
  cheapest level that is worth the same under the rules and the score.
* Site-style scoring (``Rules(resignation="position")``: a resignation ends the game at
  once, scored by the resigner's position at that moment): resign only when the resigner
  cannot win and the loss it is scored at now costs no more than the expected loss of
  playing on with its best cube action (:func:`position_resignation`). With 15 checkers
  home and none off a resignation scores a gammon, while playing on may save it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from gbot.core import cubemath as _core
from gbot.cube.cubeful import (
    CubeContext,
    Probs,
    check_probs,
    multipliers,
    outcome_table,
    outcome_value,
)
from gbot.cube.decision import board_cube_life, context_from_state, decide, shared_evaluator
from gbot.cube.plays import decision_value
from gbot.errors import CubeError

if TYPE_CHECKING:
    from gbot.game.match import MatchState

CERTAIN = _core.CERTAIN
"""Probabilities this close to 0 or 1 count as certain."""


def resignation_points(level: int, ctx: CubeContext) -> int:
    """Points a resignation at ``level`` (1..3) gives the winner in ``ctx``
    (:func:`gbot.core.cubemath.resignation_points`)."""
    if level not in (1, 2, 3):
        raise CubeError(f"resignation level must be 1, 2 or 3, got {level!r}")
    return int(_core.resignation_points(level, multipliers(ctx.end_mode), ctx.is_money,
                                        ctx.jacoby, int(ctx.owner), ctx.cube))


def _resigner_value_of_loss(points: int, ctx: CubeContext) -> float:
    """Value (money points, or match winning chance) for the resigner of losing ``points``."""
    if ctx.is_money:
        return -float(points)
    return outcome_value(ctx, -points)


def _resigner_play_on(probs: Probs, ctx: CubeContext) -> float:
    """The resigner's value of playing on with its best cube action (points or MWC)."""
    v = decision_value(decide(probs, ctx))
    return v * ctx.cube if ctx.is_money else v


def should_accept(probs: Probs, ctx: CubeContext, level: int) -> bool:
    """Whether the side facing a resignation should accept it.

    ``probs`` and ``ctx`` are the resigner's (the side on roll, before it rolls).
    """
    probs = check_probs(probs)
    give = _resigner_value_of_loss(resignation_points(level, ctx), ctx)
    keep = _resigner_play_on(probs, ctx)
    # Accept when the resigner gets no more by resigning than by playing on.
    return give <= keep + 1e-9


def resignation_level(probs: Probs, ctx: CubeContext, eps: float = CERTAIN) -> int:
    """The level to offer (0: none) for the side on roll with ``probs`` in ``ctx``: the rule
    of :func:`gbot.core.cubemath.resignation_level`, which the server's one-call answers
    (:mod:`gbot.core.answer`) apply too."""
    checked = np.array(check_probs(probs), dtype=np.float64)
    return int(_core.resignation_level(checked, float(eps), multipliers(ctx.end_mode),
                                       ctx.is_money, ctx.jacoby, int(ctx.owner), ctx.cube,
                                       ctx.away, ctx.opp_away, outcome_table(ctx)))


def position_resignation(probs: Probs, ctx: CubeContext, kind_now: int,
                         eps: float = CERTAIN) -> int:
    """Under site-style scoring, ``kind_now`` (the loss the resigner's position scores now:
    1 single, 2 gammon, 3 backgammon) when resigning is no worse for the resigner than
    playing on, else 0. ``probs`` and ``ctx`` are the resigner's, on roll."""
    probs = check_probs(probs)
    if probs[0] > eps:
        return 0
    give = _resigner_value_of_loss(resignation_points(kind_now, ctx), ctx)
    keep = _resigner_play_on(probs, ctx)
    return kind_now if give >= keep - 1e-9 else 0


def _probs_and_context(pos: Any, state: MatchState, ply: int,
                       evaluator: Any) -> tuple[Probs, CubeContext]:
    ev = evaluator if evaluator is not None else shared_evaluator()
    raw = tuple(float(v) for v in ev.probabilities(pos, ply=ply))
    probs = check_probs((raw[0], raw[1], raw[2], raw[3], raw[4]))
    return probs, context_from_state(state, board_cube_life(pos))


def accept_resignation(pos: Any, state: MatchState, level: int | None = None, ply: int = 0,
                       evaluator: Any = None) -> bool:
    """Whether to accept the resignation offered by the side on roll of ``pos`` in ``state``.

    ``pos`` is seen by ``state.player_on_roll`` (the resigner); ``level`` defaults to
    ``state.resign_offered``.
    """
    lvl = state.resign_offered if level is None else level
    probs, ctx = _probs_and_context(pos, state, ply, evaluator)
    return should_accept(probs, ctx, lvl)


def offer_resignation(pos: Any, state: MatchState, ply: int = 0, evaluator: Any = None) -> int:
    """The resignation the side on roll of ``pos`` should offer now: 0 (none), 1, 2 or 3."""
    probs, ctx = _probs_and_context(pos, state, ply, evaluator)
    return resignation_level(probs, ctx)


__all__ = ["should_accept", "resignation_level", "resignation_points", "accept_resignation",
           "offer_resignation", "position_resignation", "CERTAIN"]
