"""The one decision engine: which play, whether to double, take, resign or accept a resignation.

:class:`Engine` is protocol-free. The gnubg external-player server, the FIBS client and the
tournament runner all ask it the same five questions, always from the point of view of the
side that must decide ("me"):

* :meth:`Engine.choose_play` ``(pos, dice, state=None)``: ``pos`` is my position, I am on
  roll; ``state`` makes the play depend on the match score.
* :meth:`Engine.cube_action` ``(pos, state)``: I am on roll, before rolling: double or roll.
* :meth:`Engine.respond_double` ``(pos, state)``: the opponent doubled; ``pos`` is still seen
  by me (as if I were on roll), ``state`` is the :class:`~gbot.game.match.MatchState` with the
  double pending.
* :meth:`Engine.resign_offer` ``(pos, state)``: 0 (play on), 1, 2 or 3 (single, gammon,
  backgammon) when the game is lost beyond doubt.
* :meth:`Engine.accept_resignation` ``(pos, state, level)``: the opponent offers ``level``.

In every ``state`` the deciding player is ``state.player_to_act``; the rule switches a board
line cannot carry come from :attr:`Engine.rules`.

The engine is built on :class:`gbot.Evaluator` (checker play, cubeless probabilities) and
:mod:`gbot.cube.decision` (cube actions) when the evaluator's networks are installed; without
them it falls back to a small hand-written evaluation (pip race, blots, points) that plays
legal, sensible backgammon, takes by the race and doubles only where it is automatic (the
trailer after the Crawford game). :attr:`Engine.backend` says which one is in use.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import numpy.typing as npt

from gbot.core import cubemath as _cubemath
from gbot.core import facts as _facts
from gbot.core.board import Board
from gbot.core.movegen import legal_plays_raw
from gbot.cube import decision as _decision
from gbot.cube.cubeful import Owner, cubeful_mwc, cubeless_mwc, money_equity
from gbot.cube.plays import best_play_index, cube_lives
from gbot.cube.resign import position_resignation, resignation_level, should_accept
from gbot.engine.fastreply import FastPath
from gbot.errors import MatchRuleError
from gbot.eval.evaluator import Evaluator
from gbot.eval.protocol import EvaluatorProtocol, move_rule, provides
from gbot.game.match import CENTRE, MAX_MATCH_LENGTH, MatchState, Rules
from gbot.game.position import Play, Position
from gbot.game.referee import loss_kind

if TYPE_CHECKING:
    from gbot.engine.fastreply import FastReply

__all__ = ["CubeAction", "Engine", "Probabilities", "TakeAction", "cubeless_equity",
           "short_bearoff"]

CubeAction = Literal["double", "roll"]
TakeAction = Literal["take", "drop", "beaver"]
Probabilities = tuple[float, float, float, float, float]
"""Cubeless ``(win, win gammon, win backgammon, lose gammon, lose backgammon)`` of the side on
roll; the gammon figures include the backgammons."""

_TAKE_WORDS: tuple[TakeAction, TakeAction, TakeAction] = ("take", "drop", "beaver")
"""The answers by :mod:`gbot.core.cubemath`'s response codes (``TAKE``, ``PASS``,
``BEAVER``)."""
assert (_cubemath.TAKE, _cubemath.PASS, _cubemath.BEAVER) == (0, 1, 2)

NO_DOUBLE_BELOW = 0.45
"""Before the Crawford game and in money play, no cube model doubles below this winning
chance while the cube is alive for the opponent; the engine answers ``roll`` there without
asking it. Not where the cube already gives the opponent the match (a free redouble for the
trailer: see :func:`dead_for_opponent`)."""


def dead_for_opponent(state: MatchState, me: int) -> bool:
    """In match play: winning this game at the present cube already gives my opponent the
    match, so a redouble costs me nothing if I lose."""
    return (state.match_length > 0
            and state.cube_value >= state.match_length - state.score[1 - me])


def skips_cube_model(win: float, state: MatchState, me: int) -> bool:
    """Whether ``me``, on roll with winning chance ``win``, rolls without asking the cube
    model: below :data:`NO_DOUBLE_BELOW`, not post-Crawford, the cube not dead for the
    opponent (:func:`dead_for_opponent`)."""
    return win < NO_DOUBLE_BELOW and not state.post_crawford and not dead_for_opponent(state, me)


PLAY_PLY = 2
"""The look-ahead gbot's adapters play at unless told (``gbot serve``, ``fibs``, ``web``,
``play``): gnubg's own default depth, and the deepest whose decisions stay within the time
budget of a player at a table, 0.25 s a decision at the 99th percentile on one core
(``scripts/bench_prune.py``, distinct contact positions with the shipped pruning networks and
move filters: 2-ply mean 8.7 ms, p99 40 ms over 1,000; 3-ply mean 0.16 s, p99 1.06 s over 150,
over the budget; with the earlier narrower filters 2-ply mean 6.0 ms, p99 31 ms over 3,000 and
3-ply mean 74 ms, p99 0.54 s over 150). 3-ply
measured no stronger against gnubg's World class in 7-point matches (TRAINING_LOG.md, 3-ply
checker play and cube). ``--ply 0`` plays in microseconds, for speed."""

CUBE_PLY = 2
"""The least look-ahead of the engine's cube decisions (double, take, beaver): a 0-ply engine
still looks two rolls ahead for them, as gnubg's 2-ply cube analysis does (one decision a turn
inside the doubling window, on two search threads about 3.5-5 ms on average and 5.3-7 ms at
the 90th percentile, pruned, keeping 2 replies a roll); against gnubg's
2-ply verdicts this cuts the cube errors several times over the static model
(``scripts/cube_calibration.py``, docs/cube.md)."""

CUBE_SCREEN = 0.25
"""The default cube look-ahead (no ``cube_ply`` given), where deeper than the engine's own
ply, is skipped where the static cube model's verdict is clear on both sides: doubling loses
at least this much against not doubling, and taking and passing differ by at least this much
(normalised cubeful equity). Measured on 6,000 cube decisions drawn from the 11,947 of 120 of
gbot's 7-point matches against gnubg 1.07: the screen takes 4,238 of them (1,616 of the 3,196
at a winning chance of 0.45 or more) and none of its actions or answers differs from the 2-ply
look-ahead's (at 0.20 one double did)."""

def _clear_verdict(d: Any) -> bool:
    """Whether a static cube decision ``d`` is clear by :data:`CUBE_SCREEN` on the double and
    on the answer."""
    if not d.can_double:
        return False
    nd, dt, dp = d.equities
    return bool(_cubemath.clear_verdict(nd, dt, dp, CUBE_SCREEN))


SHORT_BEAROFF_CHECKERS = 6
"""Bear-offs with at most this many checkers per side (gnubg's exact two-sided bear-off
database covers 6 checkers on 6 points) get the look-ahead cube decision at 0-ply."""
SHORT_BEAROFF_PLY = 2
"""The look-ahead of those cube decisions (exact on a last roll, as gnubg's database)."""
NO_RESIGN_ABOVE = 0.01
"""The engine never offers a resignation with a winning chance above this."""


def cubeless_equity(p: Sequence[float]) -> float:
    """Cubeless money equity of probabilities ``p`` (points per unit stake)."""
    win, wg, wbg, lg, lbg = (float(x) for x in p[:5])
    return 2.0 * win - 1.0 + wg - lg + wbg - lbg


class Engine:
    """Decisions for one player under one set of rules, at a fixed look-ahead (``ply``).

    ``evaluator`` defaults to :class:`gbot.Evaluator` when its networks are installed; any
    evaluator of the shape :class:`gbot.eval.protocol.EvaluatorProtocol` describes will do
    (``probabilities`` at least; the engine uses what else it :func:`provides`).
    ``rules`` are the switches a board line cannot carry (Jacoby, beavers, cube cap, game-end
    mode, Caucasian); :meth:`with_rules` gives a copy under other switches. An engine keeps
    no game state; one instance may serve many games, one question at a time.
    """

    def __init__(self, evaluator: Any | None = None, ply: int = 0,
                 rules: Rules | None = None, cube_ply: int | None = None) -> None:
        if ply < 0:
            raise ValueError(f"ply must be 0 or more, got {ply!r}")
        if cube_ply is not None and cube_ply < 0:
            raise ValueError(f"cube_ply must be 0 or more, got {cube_ply!r}")
        self.ply = ply
        self.cube_ply = max(ply, CUBE_PLY) if cube_ply is None else cube_ply
        """The look-ahead of cube decisions (default: ``ply``, at least :data:`CUBE_PLY`)."""
        self.cube_screen = cube_ply is None
        """Whether a default look-ahead deeper than ``ply`` is skipped where the static verdict
        is clear (:data:`CUBE_SCREEN`); an explicit ``cube_ply`` is always searched."""
        self.rules = rules if rules is not None else Rules()
        self.evaluator = (evaluator if evaluator is not None
                          else _default_evaluator(self.rules.caucasian))
        self._cube: Any | None = _decision
        self._memo: tuple[bytes, int, Probabilities] | None = None
        self._fast_path: FastPath | _NoFastPath | None = None

    @property
    def cube_model(self) -> Any | None:
        """The cube module the engine decides with (:mod:`gbot.cube.decision`), None for an
        engine without one (it then takes every double it is offered with 25 % wins)."""
        return self._cube

    @property
    def backend(self) -> str:
        """``"evaluator"`` or ``"heuristic"`` (the built-in fallback), plus the cube source."""
        if self.evaluator is None:
            return "heuristic"
        return "evaluator+cube" if self._cube is not None else "evaluator"

    def with_rules(self, rules: Rules) -> Engine:
        """The same engine (shared evaluator) under other rule switches."""
        other = object.__new__(type(self))
        other.__dict__.update(self.__dict__)
        other.rules = rules
        return other

    # --- one-call answers -------------------------------------------------------------------
    def fast_reply(self, line: bytes) -> FastReply | None:
        """The reply to a bare gnubg ``board:`` line (ASCII, stripped) from one kernel call,
        when this engine would give it without weighing more than the kernels do: a move,
        ``roll``, ``double``, ``take``, ``drop`` or ``beaver``, with the line's score and the
        resignation level :meth:`resign_offer` gives (0: none; whether to offer it instead is
        the caller's). None: ask the general path (the other questions, other engines,
        evaluators or end modes, lines the kernel does not read)."""
        path = self._fast_path
        if path is None or path.rules is not self.rules:
            path = self._fast_path = self._new_fast_path()
        return path.reply(line)

    def _new_fast_path(self) -> FastPath | _NoFastPath:
        """:class:`gbot.engine.fastreply.FastPath` where the kernels decide as this engine does: a
        plain engine (no decision method replaced on the instance) at 0-ply with the cube
        module and :class:`gbot.Evaluator` under the engine's move rule, end mode
        ``"backgammons"`` (others rank plays by the state)."""

        ev, r = self.evaluator, self.rules
        replaced = any(callable(getattr(Engine, name, None)) for name in vars(self))
        if not (type(self) is Engine and not replaced and type(ev) is Evaluator and self.ply == 0
                and self._cube is not None and ev.caucasian == r.caucasian
                and r.end_mode == "backgammons"):
            return _NoFastPath(r)
        return FastPath(ev, r, NO_DOUBLE_BELOW, NO_RESIGN_ABOVE,
                        cube_lookahead=self.cube_ply > 0,
                        cube_screen=CUBE_SCREEN if self.cube_screen else math.inf,
                        short_bearoff=SHORT_BEAROFF_CHECKERS)

    # --- checker play ---------------------------------------------------------------------
    def choose_play(self, pos: Position, dice: Sequence[int],
                    state: MatchState | None = None) -> Play | None:
        """The best legal play of ``dice`` in ``pos`` (I am on roll), or None when none exists.

        With ``state`` (the match state, me to act), in match play and under a money end mode
        other than ``"backgammons"``, plays are ranked as gnubg ranks them: by what the
        opponent, on roll next, can expect with its right cube action (its match-winning
        chance, or cubeful money equity), so the score, the cube and the end mode count
        (:mod:`gbot.cube.plays`). Otherwise by cubeless money equity (see
        :func:`_cube_matters`).
        """
        d = (int(dice[0]), int(dice[1]))
        ev = self.evaluator
        if state is not None and self.plays_by_state(state):
            return self._cubeful_play(pos, d, self._mine(state))
        if (ev is not None and provides(ev, "best_play")
                and move_rule(ev) == self.rules.caucasian):
            return ev.best_play(pos, d, self.ply)

        results, steps = legal_plays_raw(pos.board, d[0], d[1], self.rules.caucasian)
        if results.shape[0] == 0:
            return None
        if results.shape[0] == 1:
            best = 0
        elif ev is not None:
            # after my play the opponent is on roll: minimise their equity
            opp = np.ascontiguousarray(-results[:, ::-1])
            best = int(np.argmin(_equities(ev.evaluate(opp, 0))))
        else:
            best = int(np.argmax(_heuristic_scores(results)))
        st = steps[best]
        seq = tuple((int(st[2 * k]), int(st[2 * k + 1])) for k in range(st.shape[0] // 2)
                    if st[2 * k])
        return Play(pos, d, seq, Position(results[best]))

    def plays_by_state(self, state: MatchState) -> bool:
        """Whether :meth:`choose_play` ranks plays by ``state`` (match play, or a money end
        mode other than ``"backgammons"``, with the evaluator and the cube module); callers
        may leave the state out where this is False."""
        ev = self.evaluator
        return (ev is not None and self._cube is not None and provides(ev, "evaluate")
                and move_rule(ev) == self.rules.caucasian
                and _cube_matters(self.rules_state(state)))

    def _cubeful_play(self, pos: Position, d: tuple[int, int], st: MatchState) -> Play | None:
        """The play after which the opponent (on roll, with the cube as in ``st``) does worst
        (:func:`gbot.cube.plays.best_play_index`)."""

        cube, ev = self._cube, self.evaluator
        assert cube is not None and ev is not None
        mine = cube.context_from_state(st)
        flip = {Owner.CENTRE: Owner.CENTRE, Owner.ME: Owner.OPPONENT, Owner.OPPONENT: Owner.ME}
        theirs = replace(mine, away=mine.opp_away, opp_away=mine.away, owner=flip[mine.owner])
        if self.ply > 0 and provides(ev, "hint"):
            hints = ev.hint(pos, d, self.ply, n=None)
            deepest = max((h.ply for h in hints), default=0)
            hints = [h for h in hints if h.ply == deepest]   # the plays searched to the end
            if len(hints) <= 1:
                return hints[0].play if hints else None
            probs = [(1.0 - w, lg, lbg, wg, wbg)
                     for w, wg, wbg, lg, lbg in (h.probabilities for h in hints)]
            lives = cube_lives([h.play.position.swapped().board for h in hints])
            return hints[best_play_index(probs, lives, theirs)].play   # type: ignore[no-any-return]

        results, steps = legal_plays_raw(pos.board, d[0], d[1], self.rules.caucasian)
        if results.shape[0] == 0:
            return None
        best = 0
        if results.shape[0] > 1:
            opp = np.ascontiguousarray(-results[:, ::-1])    # the opponent on roll after each
            best = best_play_index(ev.evaluate(opp, 0), cube_lives(opp), theirs)
        stp = steps[best]
        seq = tuple((int(stp[2 * k]), int(stp[2 * k + 1])) for k in range(stp.shape[0] // 2)
                    if stp[2 * k])
        return Play(pos, d, seq, Position(results[best]))

    # --- evaluation -------------------------------------------------------------------------
    def probabilities(self, pos: Position, ply: int | None = None) -> Probabilities:
        """Cubeless probabilities of ``pos`` for the side on roll (the last one is remembered,
        so the several questions about one position cost one evaluation)."""
        ply = self.ply if ply is None else ply
        key = pos.board.tobytes()
        memo = self._memo
        if memo is not None and memo[0] == key and memo[1] == ply:
            return memo[2]
        b = pos.board
        mine, theirs = _facts.checkers_left(b)
        if theirs == 0:
            p: Probabilities = (0.0, 0.0, 0.0, 0.0, 0.0)
        elif mine == 0:
            p = (1.0, 0.0, 0.0, 0.0, 0.0)
        elif self.evaluator is not None:
            raw = self.evaluator.probabilities(pos, ply)
            p = (float(raw[0]), float(raw[1]), float(raw[2]), float(raw[3]), float(raw[4]))
        else:
            p = _race_probabilities(b)
        self._memo = (key, ply, p)
        return p

    def equity(self, pos: Position, state: MatchState, ply: int | None = None,
               cubeful: bool = True) -> float:
        """Equity of ``pos`` for the side to act, as if on roll: money points per unit cube, or
        in match play the match-winning chance. Cubeful when asked and the cube module exists."""
        p = self.probabilities(pos, ply)
        cube = self._cube
        if cube is None:
            return cubeless_equity(p)

        st = self._mine(state)
        ctx = cube.context_from_state(st, cube.board_cube_life(pos))
        if st.match_length > 0:
            return float(cubeful_mwc(p, ctx) if cubeful else cubeless_mwc(p, ctx))
        if cubeful:
            return float(cube.decide(p, ctx).equity)
        return float(money_equity(p, st.rules.end_mode))

    # --- cube ---------------------------------------------------------------------------
    def cube_action(self, pos: Position, state: MatchState) -> CubeAction:
        """``"double"`` or ``"roll"`` for me, on roll before rolling."""
        state = self.rules_state(state)
        me = state.player_to_act
        if not state.may_double(me):
            return "roll"
        if self._cube is not None and self.evaluator is not None:
            if self.ply == 0 and skips_cube_model(self.probabilities(pos)[0], state, me):
                return "roll"      # far below any doubling window: skip the cube model
            d = self.cube_decision(pos, self._mine(state))
            return "double" if d.doubles else "roll"
        if state.match_length > 0 and state.post_crawford and state.score[me] < state.score[1 - me]:
            return "double" if state.cube_value == 1 else "roll"   # the trailer's free double
        return "roll"   # the built-in evaluation is too crude to double on

    def respond_double(self, pos: Position, state: MatchState) -> TakeAction:
        """``"take"``, ``"drop"`` or ``"beaver"`` when the opponent has doubled me."""
        state = self.rules_state(state)
        if self._cube is not None and self.evaluator is not None:
            doubler = replace(state, player_on_roll=1 - state.player_to_act,
                              double_offered=False)
            d = self.cube_decision(pos.swapped(), doubler)
            return _TAKE_WORDS[_cubemath.answer_of(_cubemath.RESPONSES.index(d.response),
                                                   self.may_beaver(state))]
        win = self.probabilities(pos)[0]
        return "take" if win >= 0.25 else "drop"

    def cube_decision(self, pos: Position, on_roll: MatchState) -> Any:
        """The cube decision (:class:`gbot.cube.decision.CubeDecision`) for the side on roll of
        ``pos`` in ``on_roll``, as the engine's cube answers weigh it (needs
        :attr:`cube_model`)."""
        cube = self._cube
        assert cube is not None
        ply, static = self._cube_plan(pos, on_roll)
        if ply > 0:
            return cube.cube_decision(pos, on_roll, ply, evaluator=self.evaluator)
        return static if static is not None else self._static_cube_decision(pos, on_roll)

    def _static_cube_decision(self, pos: Position, on_roll: MatchState) -> Any:
        """The static cube model's decision from the engine's own probabilities."""
        cube = self._cube
        assert cube is not None
        ctx = cube.context_from_state(on_roll, cube.board_cube_life(pos))
        return cube.decide(self.probabilities(pos), ctx)

    def cube_decision_ply(self, pos: Position, on_roll: MatchState) -> int:
        """The look-ahead :meth:`cube_decision` uses for ``pos`` in ``on_roll``: 0 (the static
        model) or the plies of the cubeful look-ahead."""
        return self._cube_plan(pos, on_roll)[0]

    def _cube_plan(self, pos: Position, on_roll: MatchState) -> tuple[int, Any | None]:
        """:meth:`cube_decision_ply`, with the static decision where the screen
        (:data:`CUBE_SCREEN`) already made it (else None)."""
        ply = self.cube_ply
        if not provides(self.evaluator, "evaluate"):
            ply = self.ply        # the look-ahead needs batch evaluation: the engine's own ply
        elif short_bearoff(pos.board):
            # the model's fixed cube life misjudges the last rolls; a 2-ply look-ahead over
            # the exact bear-off tables does not (and costs little this late)
            ply = max(ply, SHORT_BEAROFF_PLY)
        elif ply > self.ply and dead_for_opponent(on_roll, on_roll.player_on_roll):
            # a free redouble (the cube is dead for the opponent): the model makes it at
            # once, a look-ahead with no game end in reach values it only equal to waiting
            ply = self.ply
        elif self.cube_screen and ply > self.ply:
            static = self._static_cube_decision(pos, on_roll)
            if _clear_verdict(static):
                return self.ply, static     # no look-ahead needed
        return ply, None

    def may_beaver(self, state: MatchState) -> bool:
        """Whether the doubled side may beaver in ``state``: money play with beavers on and
        room on the cube for the redouble."""
        return state.beaver_allowed

    # --- resignation ------------------------------------------------------------------------
    def may_resign(self, pos: Position) -> bool:
        """Cheap test: could :meth:`resign_offer` offer anything here? Only once contact is
        broken (the networks never call a contact game certain) and with an evaluator.
        Callers skip :meth:`resign_offer` when this is False; override both together."""
        if self.evaluator is None or self._cube is None:
            return False
        return not _facts.contact(pos.board)

    def resign_offer(self, pos: Position, state: MatchState) -> int:
        """0 to play on, else the result I give up: 1 single, 2 gammon, 3 backgammon.

        Only when the loss is certain (never with the built-in evaluation), at the cheapest
        level worth the same under the rules and the score (:mod:`gbot.cube.resign`). Under
        site-style scoring (``rules.resignation == "position"``) only when the loss my
        position scores now costs no more than the expected loss of playing on; the level is
        then that loss.
        """
        if not self.may_resign(pos) or self._cube is None:
            return 0

        p = self.probabilities(pos)
        if p[0] > NO_RESIGN_ABOVE:
            return 0
        st = self._mine(state)
        ctx = self._cube.context_from_state(st, self._cube.board_cube_life(pos))
        if st.rules.resignation == "position":
            return int(position_resignation(p, ctx, loss_kind(pos.board, st.rules.checkers)))
        return int(resignation_level(p, ctx))

    def accept_resignation(self, pos: Position, state: MatchState, level: int) -> bool:
        """Whether to accept the opponent's offer to lose ``level`` (1, 2 or 3) now.

        Accepted when the offer is worth at least what the opponent (taken to be on roll) can
        expect by playing on with its best cube action (:mod:`gbot.cube.resign`); without the
        cube module, by cubeless money equity.
        """
        if level not in (1, 2, 3):
            raise ValueError(f"resignation level must be 1, 2 or 3, got {level!r}")
        state = self.rules_state(state)
        if self._cube is not None:
            resigner = pos.swapped()
            st = replace(state, player_on_roll=1 - state.player_to_act, double_offered=False)
            ctx = self._cube.context_from_state(st, self._cube.board_cube_life(resigner))
            return bool(should_accept(self.probabilities(resigner), ctx, level))
        counted = self._counted_levels(state)
        win, wg, wbg, lg, lbg = self.probabilities(pos)
        value = 2.0 * win - 1.0
        if counted >= 2:
            value += wg - lg
        if counted >= 3:
            value += wbg - lbg
        return min(level, counted) >= value - 1e-9

    def _counted_levels(self, state: MatchState) -> int:
        """How many of single/gammon/backgammon count now (Jacoby, end mode, match score)."""
        r = state.rules
        counted = r.max_end_multiplier
        if state.match_length == 0 and r.jacoby and state.cube_owner == CENTRE:
            counted = 1
        if state.match_length > 0:
            me = state.player_to_act
            if state.match_length - state.score[1 - me] <= state.cube_value:
                counted = 1      # the opponent wins the match with a single game
        return counted

    def rules_state(self, state: MatchState) -> MatchState:
        """``state`` under this engine's rules (board lines carry none); a match longer
        than :data:`gbot.game.match.MAX_MATCH_LENGTH` is a :class:`~gbot.errors.MatchRuleError`."""
        if state.match_length > MAX_MATCH_LENGTH:
            raise MatchRuleError(f"match length {state.match_length} is beyond the "
                                 f"{MAX_MATCH_LENGTH} points gnubg plays")
        if state.rules is self.rules or state.rules == self.rules:
            return state
        return replace(state, rules=self.rules)

    def _mine(self, state: MatchState) -> MatchState:
        """``state`` with the deciding player on roll and no double pending."""
        st = self.rules_state(state)
        if st.player_on_roll == st.player_to_act and not st.double_offered:
            return st
        return replace(st, player_on_roll=st.player_to_act, double_offered=False)


# --- helpers -----------------------------------------------------------------------------


class _NoFastPath:
    """An engine whose decisions the kernels do not reproduce: every line to the general path."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules

    def reply(self, line: bytes) -> None:
        """Always None."""
        return None


def _default_evaluator(caucasian: bool) -> EvaluatorProtocol | None:
    """:class:`gbot.Evaluator` with its shipped networks, or None when it cannot evaluate yet."""
    try:
        ev = Evaluator(caucasian=caucasian)
        ev.probabilities(Position.initial(), 0)   # loads (and checks) the networks
    except Exception as exc:  # no usable networks: fall back to the built-in evaluation
        import logging

        logging.getLogger("gbot.engine.engine").warning(
            "evaluator unavailable (%s); using the built-in heuristic", exc)
        return None
    return ev


def short_bearoff(b: Board) -> bool:
    """Both sides bearing off (every checker home, none on the bar), each with at most
    :data:`SHORT_BEAROFF_CHECKERS` checkers left and the game not over."""
    return bool(_facts.bearoff_within(b, SHORT_BEAROFF_CHECKERS))


def _cube_matters(st: MatchState) -> bool:
    """Whether plays are ranked by the cube model rather than by cubeless money equity.

    In match play (the score sets what a gammon and the cube are worth) and in money play
    under an end mode that does not count gammons and backgammons fully. Not in ordinary
    money play: there the cube-aware ranking chose differently in about 8 % of positions
    (Jacoby, centred cube: 14 %) but gnubg's 2-ply judgement of those choices came out no
    better than of the cubeless ones (``docs/cube.md``), and the cubeless ranking is the fast
    one.
    """
    return st.match_length > 0 or st.rules.end_mode != "backgammons"


def _equities(probs: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    p = np.asarray(probs, dtype=np.float64)
    out: npt.NDArray[np.float64] = 2.0 * p[:, 0] - 1.0 + p[:, 1] - p[:, 3] + p[:, 2] - p[:, 4]
    return out


def _race_probabilities(b: Board) -> Probabilities:
    """A crude cubeless estimate from the pip counts (side on roll), no gammons."""
    arr = b.astype(np.int64)
    idx = np.arange(26)
    mine = float((np.clip(arr[1:25], 0, None) * idx[1:25]).sum() + 25 * arr[25])
    theirs = float((np.clip(-arr[1:25], 0, None) * (25 - idx[1:25])).sum() - 25 * arr[0])
    lead = theirs - mine + 4.0          # being on roll is worth about 4 pips
    spread = max(4.0, 0.9 * math.sqrt(mine + theirs))
    win = 0.5 * (1.0 + math.erf(lead / (spread * math.sqrt(2.0))))
    win = min(max(win, 0.001), 0.999)
    return (win, 0.0, 0.0, 0.0, 0.0)


_POINT = np.arange(1, 25)
_MADE_WEIGHT = np.where(_POINT <= 7, 1.2, 0.5)
# _REACH[j, i]: an opponent checker on my point j + 1 can hit my point i + 1 with one roll
_REACH = ((_POINT[:, None] < _POINT[None, :]) & (_POINT[None, :] - _POINT[:, None] <= 11))


def _heuristic_scores(boards: npt.NDArray[np.int8]) -> npt.NDArray[np.float64]:
    """Scores of boards after my play (my view; the opponent rolls next). Higher is better.

    The pip lead, opponent checkers sent to the bar, made points (home board and bar point
    most), checkers borne off, minus blots the opponent can reach with one roll.
    """
    b = boards.astype(np.int64)
    pts = b[:, 1:25]
    mine = np.clip(pts, 0, None)
    theirs = np.clip(-pts, 0, None)
    my_pips = (mine * _POINT).sum(axis=1) + 25 * b[:, 25]
    opp_pips = (theirs * (25 - _POINT)).sum(axis=1) - 25 * b[:, 0]
    opp_bar = -b[:, 0]
    score = 0.08 * (opp_pips - my_pips) + 2.0 * opp_bar
    score = score + 0.4 * (15 - mine.sum(axis=1) - b[:, 25])
    score = score + ((pts >= 2) * _MADE_WEIGHT).sum(axis=1)
    score = score - 0.2 * (np.clip(pts[:, :6] - 3, 0, None)).sum(axis=1)
    # contact: an opponent checker (or the bar) below my rearmost checker
    my_top = np.where(b[:, 25] > 0, 25, np.max(np.where(pts > 0, _POINT, 0), axis=1))
    opp_low = np.where(opp_bar > 0, 0, np.min(np.where(pts < 0, _POINT, 99), axis=1))
    contact = opp_low < my_top
    shooters = theirs @ _REACH + np.where(_POINT <= 11, 1, 0)[None, :] * opp_bar[:, None]
    blot = (pts == 1) & (shooters > 0) & contact[:, None]
    penalty = 1.0 + 0.15 * np.minimum(shooters, 6) + np.where(_POINT <= 12, 0.5, 0.0)
    score = score - (blot * penalty).sum(axis=1)
    out: npt.NDArray[np.float64] = score.astype(np.float64)
    return out
