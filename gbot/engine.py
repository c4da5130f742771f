"""The one decision engine: which play, whether to double, take, resign or accept a resignation.

:class:`Engine` is protocol-free. The gnubg external-player server, the FIBS client and the
tournament runner all ask it the same five questions, always from the point of view of the
side that must decide ("me"):

* :meth:`Engine.choose_play` ``(pos, dice)``: ``pos`` is my position, I am on roll.
* :meth:`Engine.cube_action` ``(pos, state)``: I am on roll, before rolling: double or roll.
* :meth:`Engine.respond_double` ``(pos, state)``: the opponent doubled; ``pos`` is still seen
  by me (as if I were on roll), ``state`` is the :class:`~gbot.match.MatchState` with the
  double pending (``player_to_act`` is me).
* :meth:`Engine.resign_offer` ``(pos, state)``: 0 (play on), 1, 2 or 3 (single, gammon,
  backgammon) when the game is lost beyond doubt.
* :meth:`Engine.accept_resignation` ``(pos, state, level)``: the opponent offers ``level``.

In every ``state`` the deciding player is ``state.player_to_act``.

The engine is built on :class:`gbot.Evaluator` (checker play, cubeless probabilities) and
:func:`gbot.cube_decision` (cube actions) when those modules are installed; without them it
falls back to a small hand-written evaluation (pip race, blots, points) that plays legal,
sensible backgammon and doubles only where it is automatic (the trailer after Crawford).
:attr:`Engine.backend` says which one is in use.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Literal

import numpy as np

from gbot.core.board import Board, pips
from gbot.match import CENTRE, MatchState, Rules
from gbot.position import Play, Position

__all__ = ["CubeAction", "Engine", "Probabilities", "TakeAction", "cubeless_equity"]

CubeAction = Literal["double", "roll"]
TakeAction = Literal["take", "drop", "beaver"]
Probabilities = tuple[float, float, float, float, float]
"""Cubeless ``(win, win gammon, win backgammon, lose gammon, lose backgammon)`` of the side on
roll; the gammon figures include the backgammons."""

RESIGN_MARGIN = 0.002
"""Resign only when the chance of doing better than the offered result is below this."""


def cubeless_equity(p: Sequence[float]) -> float:
    """Cubeless money equity of probabilities ``p`` (points per unit stake)."""
    win, wg, wbg, lg, lbg = (float(x) for x in p[:5])
    return 2.0 * win - 1.0 + wg - lg + wbg - lbg


class Engine:
    """Decisions for one player under one set of rules, at a fixed look-ahead (``ply``).

    ``evaluator`` defaults to :class:`gbot.Evaluator` when it is available. ``rules`` are the
    switches a board line cannot carry (Jacoby, beavers, cube cap, game-end mode, Caucasian);
    :meth:`with_rules` gives a copy with other switches.
    """

    def __init__(self, evaluator: Any | None = None, ply: int = 0,
                 rules: Rules | None = None) -> None:
        if ply < 0:
            raise ValueError(f"ply must be 0 or more, got {ply!r}")
        self.ply = ply
        self.rules = rules if rules is not None else Rules()
        self.evaluator = (evaluator if evaluator is not None
                          else _default_evaluator(self.rules.caucasian))
        self._cube = _cube_module()

    @property
    def backend(self) -> str:
        """``"evaluator"`` or ``"heuristic"`` (the built-in fallback), plus the cube source."""
        play = "evaluator" if self.evaluator is not None else "heuristic"
        cube = "cube" if self._cube is not None else "heuristic-cube"
        return f"{play}+{cube}"

    def with_rules(self, rules: Rules) -> Engine:
        """The same engine (shared evaluator) under other rule switches."""
        other = object.__new__(Engine)
        other.__dict__.update(self.__dict__)
        other.rules = rules
        return other

    # --- checker play ---------------------------------------------------------------------
    def choose_play(self, pos: Position, dice: Sequence[int]) -> Play | None:
        """The best legal play of ``dice`` in ``pos`` (I am on roll), or None when none exists."""
        plays = pos.legal_plays(dice, caucasian=self.rules.caucasian)
        if not plays:
            return None
        if len(plays) == 1:
            return plays[0]
        ev = self.evaluator
        if (ev is not None and hasattr(ev, "best_play")
                and bool(getattr(ev, "caucasian", False)) == self.rules.caucasian):
            chosen = ev.best_play(pos, tuple(int(d) for d in dice), self.ply)
            if chosen is not None:
                return _as_play(chosen, plays)
        if ev is not None and hasattr(ev, "probabilities"):
            # the opponent is on roll after my play: minimise their equity
            scores = [cubeless_equity(ev.probabilities(p.position.swapped(), 0)) for p in plays]
            return plays[int(np.argmin(scores))]
        scores = [_heuristic_score(p.position.board) for p in plays]
        return plays[int(np.argmax(scores))]

    # --- evaluation -------------------------------------------------------------------------
    def probabilities(self, pos: Position, ply: int | None = None) -> Probabilities:
        """Cubeless probabilities of ``pos`` for the side on roll."""
        ply = self.ply if ply is None else ply
        b = pos.board
        mine, theirs = _checkers_left(b)
        if theirs == 0:
            return (0.0, 0.0, 0.0, 0.0, 0.0)
        if mine == 0:
            return (1.0, 0.0, 0.0, 0.0, 0.0)
        if self.evaluator is not None:
            p = self.evaluator.probabilities(pos, ply)
            return (float(p[0]), float(p[1]), float(p[2]), float(p[3]), float(p[4]))
        return _race_probabilities(b)

    def equity(self, pos: Position, state: MatchState, ply: int | None = None,
               cubeful: bool = True) -> float:
        """Equity of ``pos`` for the side to act, as if on roll: money points per unit cube, or
        in match play the match-winning chance. Cubeful when asked and the cube module exists."""
        p = self.probabilities(pos, ply)
        me = state.player_to_act
        st = self._state(replace(state, player_on_roll=me, double_offered=False))
        cube = self._cube
        if cube is None:
            return cubeless_equity(p)
        from gbot.cube import cubeful as cf

        ctx = cube.context_from_state(st, cube.board_cube_life(pos))
        if st.match_length > 0:
            return float(cf.cubeful_mwc(p, ctx) if cubeful else cf.cubeless_mwc(p, ctx))
        if cubeful:
            return float(cube.decide(p, ctx).equity)
        return float(cf.money_equity(p, st.rules.end_mode))

    # --- cube ---------------------------------------------------------------------------
    def cube_action(self, pos: Position, state: MatchState) -> CubeAction:
        """``"double"`` or ``"roll"`` for me, on roll before rolling."""
        state = self._state(state)
        me = state.player_to_act
        if not state.may_double(me):
            return "roll"
        if self._cube is not None and self.evaluator is not None:
            d = self._cube.cube_decision(pos, state, self.ply, evaluator=self.evaluator)
            return "double" if d.doubles else "roll"
        if state.match_length > 0 and state.post_crawford and state.score[me] < state.score[1 - me]:
            return "double" if state.cube_value == 1 else "roll"   # the trailer's free double
        return "roll"   # the built-in evaluation is too crude to double on

    def respond_double(self, pos: Position, state: MatchState) -> TakeAction:
        """``"take"``, ``"drop"`` or ``"beaver"`` when the opponent has doubled me."""
        state = self._state(state)
        if self._cube is not None and self.evaluator is not None:
            doubler = replace(state, player_on_roll=1 - state.player_to_act)
            d = self._cube.cube_decision(pos.swapped(), doubler, self.ply,
                                         evaluator=self.evaluator)
            if d.response == "beaver":
                return "beaver" if self._may_beaver(state) else "take"
            return "drop" if d.response == "pass" else "take"
        win = self.probabilities(pos)[0]
        return "take" if win >= 0.25 else "drop"

    def _may_beaver(self, state: MatchState) -> bool:
        r = state.rules
        return (state.match_length == 0 and r.beavers and r.cube_enabled
                and state.cube_value * 4 <= r.max_cube)

    # --- resignation ------------------------------------------------------------------------
    def resign_offer(self, pos: Position, state: MatchState) -> int:
        """0 to play on, else the result I give up: 1 single, 2 gammon, 3 backgammon.

        Only offered when the game is lost beyond reasonable doubt (built-in evaluation: never),
        and at the smallest level that is still certain.
        """
        if self.evaluator is None:
            return 0
        state = self._state(state)
        win, _wg, _wbg, lg, lbg = self.probabilities(pos)
        if win > RESIGN_MARGIN:
            return 0
        counted = self._counted_levels(state)
        if counted >= 3 and lbg > 1.0 - RESIGN_MARGIN:
            return 3
        if counted >= 3 and lbg > RESIGN_MARGIN:
            return 0
        if counted >= 2 and lg > 1.0 - RESIGN_MARGIN:
            return 2
        if counted >= 2 and lg > RESIGN_MARGIN:
            return 0
        return 1

    def accept_resignation(self, pos: Position, state: MatchState, level: int) -> bool:
        """Whether to accept the opponent's offer to lose ``level`` (1, 2 or 3) now."""
        if level not in (1, 2, 3):
            raise ValueError(f"resignation level must be 1, 2 or 3, got {level!r}")
        state = self._state(state)
        counted = self._counted_levels(state)
        offered = min(level, counted)
        win, wg, wbg, lg, lbg = self.probabilities(pos)
        # what playing on is worth, with gammons counted as the rules count them
        value = 2.0 * win - 1.0
        if counted >= 2:
            value += wg - lg
        if counted >= 3:
            value += wbg - lbg
        if state.match_length > 0:
            return offered >= value - 1e-9 or _wins_match(state, offered)
        return offered >= value - 1e-9

    def _counted_levels(self, state: MatchState) -> int:
        """How many of single/gammon/backgammon count now (Jacoby, end mode, match)."""
        r = state.rules
        counted = r.max_end_multiplier
        if state.match_length == 0 and r.jacoby and state.cube_owner == CENTRE:
            counted = 1
        if state.match_length > 0:
            me = state.player_to_act
            need = state.match_length - state.score[1 - me]
            if need <= state.cube_value:
                counted = 1      # the opponent wins the match with a single game
        return counted

    def _state(self, state: MatchState) -> MatchState:
        """``state`` under this engine's rules (board lines carry none)."""
        if state.rules == self.rules:
            return state
        return replace(state, rules=self.rules)


# --- helpers -----------------------------------------------------------------------------


def _default_evaluator(caucasian: bool) -> Any | None:
    """:class:`gbot.Evaluator` with its shipped networks, or None when it cannot evaluate yet."""
    try:
        from gbot.eval.evaluator import Evaluator
    except ImportError:
        return None
    try:
        ev = Evaluator(caucasian=caucasian)
        ev.probabilities(Position.initial(), 0)   # loads (and checks) the networks
    except Exception:  # no networks shipped: fall back to the built-in evaluation
        return None
    return ev


def _cube_module() -> Any | None:
    try:
        from gbot.cube import decision
    except ImportError:
        return None
    return decision if hasattr(decision, "cube_decision") else None


def _as_play(chosen: Any, plays: list[Play]) -> Play:
    """The evaluator's answer (a Play, a Position or a board) as one of ``plays``."""
    if isinstance(chosen, Play):
        target = chosen.position
    elif isinstance(chosen, Position):
        target = chosen
    else:
        target = Position(np.asarray(chosen))
    for p in plays:
        if p.position == target:
            return p
    raise RuntimeError(f"the evaluator chose a play that is not legal: {chosen!r}")


def _wins_match(state: MatchState, offered: int) -> bool:
    me = state.player_to_act
    return state.score[me] + offered * state.cube_value >= state.match_length


def _checkers_left(b: Board) -> tuple[int, int]:
    arr = b.astype(np.int64)
    mine = int(arr[1:25][arr[1:25] > 0].sum() + arr[25])
    theirs = int(-arr[1:25][arr[1:25] < 0].sum() - arr[0])
    return mine, theirs


def _race_probabilities(b: Board) -> Probabilities:
    """A crude cubeless estimate from the pip counts (side on roll), no gammons."""
    mine, theirs = pips(b)
    lead = theirs - mine + 4.0          # being on roll is worth about 4 pips
    spread = max(4.0, 0.9 * math.sqrt(mine + theirs))
    win = 0.5 * (1.0 + math.erf(lead / (spread * math.sqrt(2.0))))
    win = min(max(win, 0.001), 0.999)
    return (win, 0.0, 0.0, 0.0, 0.0)


def _heuristic_score(b: Board) -> float:
    """Score of the board after my play (still my view; the opponent rolls next).

    Higher is better: the pip lead, opponent checkers on the bar, made points (home board and
    the bar point most), checkers borne off, minus blots the opponent can reach.
    """
    arr = [int(v) for v in b]
    mine, theirs = pips(b)
    score = 0.08 * (theirs - mine)
    score += 2.0 * (-arr[0])
    opp_behind = [i for i in range(1, 25) if arr[i] < 0]
    contact = bool(opp_behind) and (arr[25] > 0 or min(opp_behind) < max(
        (i for i in range(1, 25) if arr[i] > 0), default=0))
    mine_left = sum(v for v in arr[1:25] if v > 0) + arr[25]
    score += 0.4 * (15 - mine_left)
    for i in range(1, 25):
        v = arr[i]
        if v >= 2:
            score += 1.2 if i <= 7 else 0.5
            if i <= 6 and v > 3:
                score -= 0.2 * (v - 3)
        elif v == 1 and contact:
            # opponent checkers (or the bar) that could hit this blot with one roll
            shooters = sum(-arr[j] for j in range(1, i) if arr[j] < 0 and i - j <= 11)
            if arr[0] < 0 and i <= 11:
                shooters += -arr[0]
            if shooters:
                score -= 1.0 + 0.15 * min(shooters, 6) + (0.5 if i <= 12 else 0.0)
    return score
