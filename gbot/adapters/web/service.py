"""What the HTTP API answers, without HTTP: request parsing and JSON-ready replies.

Two families of questions, both answered by the one decision engine
(:class:`gbot.engine.engine.Engine`, with :class:`gbot.Evaluator` for the ranked play lists and
:func:`gbot.cube_decision` for the cube figures, as ``gbot hint`` and ``gbot eval`` use them):

* wildbg's (``GET /move``, ``GET /eval``): a board as signed checker counts ``p0`` .. ``p25``
  seen by the side on roll (``x``, positive, its bar ``p25``; ``o`` negative, its bar ``p0``),
  dice ``die1``/``die2`` and, for match play, ``x_away``/``o_away``. Replies use wildbg's field
  names (``moves[].play[].from/to``, ``probabilities.win/winG/winBg/loseG/loseBg``,
  ``cube.double/accept``).
* gbot's own (``POST /hint``, ``/eval``, ``/cube``, ``/rollout``): a JSON body with a position in
  any notation gbot reads (Position ID, ``PID:MatchID``, XGID, a FIBS or gnubg ``board:``
  line), the rule switches and the ply.

The requests are read by the models of :mod:`gbot.adapters.web.models`; every bad input raises
:class:`RequestError` with a one-line message naming the field and quoting the input.
"""

from __future__ import annotations

import contextlib
import math
import threading
import time
from collections.abc import Iterator, Mapping
from dataclasses import replace
from typing import Any, TypeVar

from gbot.adapters.web.models import (
    MAX_PLY,
    EvalQuery,
    MoveQuery,
    PositionRequest,
    validate,
)
from gbot.analysis.rollout import Rollout, RolloutSettings
from gbot.engine.engine import Engine, cubeless_equity
from gbot.engine.hints import cube_hint, play_hints, resign_hint, take_hint
from gbot.errors import GbotError
from gbot.eval.evaluator import Evaluator
from gbot.game.match import CENTRE, SWITCHES, MatchState, Rules
from gbot.game.position import Play, Position
from gbot.game.position_text import Situation, read_situation

__all__ = [
    "MAX_PLY",
    "ROLLOUT_STEP",
    "Cancelled",
    "RequestError",
    "Service",
    "Situation",
    "cancellable",
    "check_cancelled",
    "read_position",
]

Json = dict[str, Any]
Q = TypeVar("Q", bound=EvalQuery)


class RequestError(GbotError, ValueError):
    """A request the API cannot answer: a bad position, dice, match score, rule or option."""


# --- stopping abandoned work -------------------------------------------------------------------


class Cancelled(Exception):
    """A request's computation was stopped: its time bound passed or its client went away."""


_stop = threading.local()


@contextlib.contextmanager
def cancellable(stop: threading.Event, stop_by: float | None = None) -> Iterator[None]:
    """Within the block, the long computations of this thread (rollouts) raise
    :class:`Cancelled` soon after ``stop`` is set; ``stop_by`` is the :func:`time.monotonic`
    time by which the request's answer is due (None: no bound)."""
    previous = getattr(_stop, "event", None), getattr(_stop, "stop_by", None)
    _stop.event, _stop.stop_by = stop, stop_by
    try:
        yield
    finally:
        _stop.event, _stop.stop_by = previous


def time_left() -> float | None:
    """Seconds until this thread's request is due (None: no bound)."""
    stop_by = getattr(_stop, "stop_by", None)
    return None if stop_by is None else stop_by - time.monotonic()


def check_cancelled(*_progress: int) -> None:
    """Raise :class:`Cancelled` when the request this thread computes for is to stop (also a
    rollout's ``progress`` callback)."""
    event = getattr(_stop, "event", None)
    if event is not None and event.is_set():
        raise Cancelled("the computation was stopped")


# --- reading requests ---------------------------------------------------------------------


def _query(model: type[Q], params: Mapping[str, Any]) -> Q:
    """wildbg's query parameters read into ``model`` (an empty value counts as absent)."""
    try:
        return validate(model, {k: v for k, v in params.items() if v != ""})
    except ValueError as exc:
        raise RequestError(str(exc)) from None


def _board(query: EvalQuery) -> Position:
    """The position of a query's ``p0`` .. ``p25``, refused when the game is over."""
    try:
        pos = Position(query.board())
    except GbotError as exc:
        raise RequestError(str(exc)) from None
    if pos.is_over():
        raise RequestError("the game is over: a side has no checkers left")
    return pos


def away_state(query: EvalQuery, rules: Rules) -> MatchState:
    """The match state of x (player 0, on roll) ``x_away`` away and o ``o_away`` away
    (both 0: money), cube centred."""
    xa, oa = query.x_away, query.o_away
    if xa == 0:
        return MatchState(rules=rules)
    length = max(xa, oa)
    return MatchState(match_length=length, score=(length - xa, length - oa),
                      crawford=query.crawford, crawford_done=query.crawford or 1 in (xa, oa),
                      rules=rules)


def _rules(request: PositionRequest, base: Rules) -> Rules:
    """``base`` with the switches the request gives (by their HTTP names,
    :data:`gbot.game.match.SWITCHES`)."""
    given = request.rules.model_fields_set
    changes = {s.field: getattr(request.rules, s.key) for s in SWITCHES if s.key in given}
    if not changes:
        return base
    try:
        return replace(base, **changes)
    except GbotError as exc:
        raise RequestError(str(exc)) from None


def read_position(text: str, rules: Rules, match_id: str | None = None) -> Situation:
    """A :class:`Situation` from a Position ID, ``PID:MatchID``, an XGID or a ``board:`` line.

    ``rules`` are the switches to decide under (:func:`gbot.game.position_text.read_situation`,
    an XGID's own switches win); a finished match is refused.
    """
    try:
        sit = read_situation(text, rules, match_id)
    except GbotError as exc:
        raise RequestError(str(exc)) from None
    state = sit.state
    if state.match_length and state.match_over:
        raise RequestError(f"the match is over: score {state.score[0]}-{state.score[1]} "
                           f"to {state.match_length}")
    return sit


# --- reply pieces ----------------------------------------------------------------------------


def wildbg_probabilities(p: tuple[float, ...]) -> Json:
    """wildbg's probability object: ``win`` includes gammons, ``winG`` backgammons."""
    return {"win": p[0], "winG": p[1], "winBg": p[2], "loseG": p[3], "loseBg": p[4]}


def probabilities_json(p: tuple[float, ...]) -> Json:
    """gbot's probability object (gammons include backgammons)."""
    return {"win": p[0], "win_gammon": p[1], "win_backgammon": p[2], "lose": 1.0 - p[0],
            "lose_gammon": p[3], "lose_backgammon": p[4]}


def _invert(p: tuple[float, ...]) -> tuple[float, float, float, float, float]:
    return (1.0 - p[0], p[3], p[4], p[1], p[2])


def play_steps(play: Play | None) -> list[dict[str, int]]:
    """wildbg's ``play``: one ``{from, to}`` per die, bar 25, off 0, higher points first."""
    if play is None:
        return []
    return [{"from": int(a), "to": max(int(b), 0)}
            for a, b in sorted(play.steps, key=lambda s: (-s[0], s[1]))]


def _finite(x: float) -> float | None:
    return None if math.isnan(x) or math.isinf(x) else float(x)


def _state_json(state: MatchState) -> Json:
    return {"match_length": state.match_length, "score": list(state.score),
            "cube_value": state.cube_value,
            "cube_owner": "centre" if state.cube_owner == CENTRE else state.cube_owner,
            "player_on_roll": state.player_on_roll, "crawford": bool(state.crawford)}


def _rules_json(r: Rules) -> Json:
    return {s.key: s.value(r) for s in SWITCHES}


# --- the service -------------------------------------------------------------------------------


class Service:
    """The API's answers, one method per route, thread-safe (one engine per request).

    ``rules`` and ``ply`` are the defaults of every request; ``evaluator`` (tests) replaces
    the shipped networks for the standard rules.
    """

    def __init__(self, rules: Rules | None = None, ply: int = 0,
                 evaluator: Any | None = None) -> None:
        if not 0 <= ply <= MAX_PLY:
            raise RequestError(f"ply must be 0 to {MAX_PLY}, got {ply}")
        self.rules = rules if rules is not None else Rules(jacoby=True, beavers=True)
        self.ply = ply
        self._evaluators: dict[bool, Any] = {}
        if evaluator is not None:
            self._evaluators[bool(getattr(evaluator, "caucasian", False))] = evaluator
        self._lock = threading.Lock()

    def evaluator(self, caucasian: bool = False) -> Any:
        """The shared :class:`gbot.Evaluator` of the move rule (made on first use)."""
        with self._lock:
            ev = self._evaluators.get(caucasian)
            if ev is None:
                ev = Evaluator(caucasian=caucasian)
                self._evaluators[caucasian] = ev
            return ev

    def warm(self) -> None:
        """Load the networks and compile the kernels before the first request."""
        self.evaluator(self.rules.caucasian).warm()

    def engine(self, rules: Rules, ply: int, cube_ply: int | None = None) -> Engine:
        """A fresh engine (its own memo) over the shared evaluator."""
        return Engine(evaluator=self.evaluator(rules.caucasian), ply=ply, rules=rules,
                      cube_ply=cube_ply)

    # --- wildbg --------------------------------------------------------------------------
    def wildbg_move(self, params: Mapping[str, Any]) -> Json:
        """``GET /move``: every legal play of the dice, the engine's choice first."""
        query = _query(MoveQuery, params)
        pos = _board(query)
        dice = (query.die1, query.die2)
        ply = self.ply if query.ply is None else query.ply
        state = away_state(query, self.rules)
        eng = self.engine(self.rules, ply)
        if eng.plays_by_state(state):       # match play: ranked by match winning chance

            ranked: list[tuple[Play, tuple[float, ...]]] = [
                (h.play, h.probabilities) for h in play_hints(eng, pos, dice, state)]
        else:                               # money: the engine's choice, then by equity
            hints = self.evaluator(self.rules.caucasian).hint(pos, dice, ply=ply, n=None)
            best = eng.choose_play(pos, dice, state) if hints else None
            if best is not None and best != hints[0].play:
                hints.sort(key=lambda h: h.play != best)
            ranked = [(h.play, h.probabilities) for h in hints]
        if not ranked:
            after = _invert(eng.probabilities(pos.swapped(), 0))
            return {"moves": [{"play": [], "probabilities": wildbg_probabilities(after)}]}
        return {"moves": [{"play": play_steps(play), "probabilities": wildbg_probabilities(p)}
                          for play, p in ranked]}

    def wildbg_eval(self, params: Mapping[str, Any]) -> Json:
        """``GET /eval``: cubeless probabilities and whether x doubles and o accepts."""
        query = _query(EvalQuery, params)
        pos = _board(query)
        state = away_state(query, self.rules)
        eng = self.engine(self.rules, self.ply)
        probs = eng.probabilities(pos)
        double, accept = self._cube_pair(eng, pos, state)
        return {"cube": {"double": double, "accept": accept},
                "probabilities": wildbg_probabilities(probs)}

    @staticmethod
    def _cube_pair(eng: Engine, pos: Position, state: MatchState) -> tuple[bool, bool]:
        """(the side on roll doubles now, the opponent takes a double now)."""
        double = eng.cube_action(pos, state) == "double"
        if not state.may_double(state.player_on_roll):
            return double, True
        doubled = replace(state, double_offered=True, player_to_act=1 - state.player_on_roll)
        return double, eng.respond_double(pos.swapped(), doubled) != "drop"

    # --- native ----------------------------------------------------------------------------
    def _situation(self, body: Any) -> tuple[PositionRequest, Situation, int]:
        """The request read from a JSON body, its situation and its ply."""
        try:
            request = validate(PositionRequest, body)
        except ValueError as exc:
            raise RequestError(str(exc)) from None
        sit = read_position(request.position, _rules(request, self.rules), request.match_id)
        if request.dice is not None:
            sit = Situation(sit.position, sit.state, request.dice)
        if sit.position.is_over():
            raise RequestError("the game is over: a side has no checkers left")
        return request, sit, self.ply if request.ply is None else request.ply

    def _header(self, sit: Situation, ply: int) -> Json:
        pos, st = sit.position, sit.state
        mine, theirs = pos.pip_count()
        head: Json = {"position_id": pos.id(), "board": [int(v) for v in pos.board],
                      "pips": [mine, theirs], "ply": ply, "state": _state_json(st),
                      "rules": _rules_json(st.rules), "deciding": sit.deciding}
        try:
            head["match_id"] = st.match_id()
        except GbotError:
            pass
        return head

    def hint(self, body: Mapping[str, Any]) -> Json:
        """``POST /hint``: what ``gbot hint`` shows. With dice, the plays as the engine ranks
        them (its choice first); without, the cube decision; with a double pending, the
        answer to it; with a resignation pending, whether to accept it."""

        request, sit, ply = self._situation(body)
        n = request.count
        out = self._header(sit, ply)
        eng = self.engine(sit.state.rules, ply, request.cube_ply)
        st = sit.state
        if st.resign_offered:
            r = resign_hint(eng, sit.position, st)
            out["resignation"] = {"level": r.level, "accept": r.accept}
            return out
        if sit.dice is None:
            out["cube"] = self._cube_json(eng, sit)
            return out
        pos, dice = sit.position, sit.dice
        mine = replace(st, dice=dice, player_to_act=st.player_on_roll, double_offered=False)
        hints = play_hints(eng, pos, dice, mine, n=None)
        by_state = eng.plays_by_state(mine)
        shown = hints if n is None else hints[:n]
        top = (hints[0].value if by_state else hints[0].cubeless) if hints else 0.0
        plays = []
        for rank, h in enumerate(shown, 1):
            key = h.value if by_state else h.cubeless
            plays.append({
                "rank": rank, "move": h.play.notation, "chosen": h.chosen, "ply": h.ply,
                "equity": h.cubeless, "cubeful_equity": h.cubeful, "mwc": h.mwc,
                "diff": key - top,
                "probabilities": probabilities_json(h.probabilities),
                "steps": play_steps(h.play),
                "next_position_id": h.play.position.swapped().id(),
                "board_after": [int(v) for v in h.play.position.board],
                "game_over": h.play.position.is_over(),
            })
        out["dice"] = list(dice)
        out["plays"] = plays
        out["legal_plays"] = len(hints)
        out["best"] = hints[0].play.notation if hints else None
        out["ranked_by"] = ("match winning chance" if by_state and mine.match_length
                            else "cubeful equity" if by_state else "cubeless equity")
        if not hints:
            out["next_position_id"] = pos.swapped().id()
        return out

    def evaluate(self, body: Mapping[str, Any]) -> Json:
        """``POST /eval``: what ``gbot eval`` shows: cubeless probabilities and equity, the
        cubeful equity of the right cube action (money) or cubeless and cubeful match winning
        chances and EMG (match), and the cube decision's words."""

        request, sit, ply = self._situation(body)
        eng = self.engine(sit.state.rules, ply, request.cube_ply)
        st = replace(sit.state, player_to_act=sit.state.player_on_roll, double_offered=False,
                     resign_offered=0, dice=(0, 0))
        h = cube_hint(eng, sit.position, st)
        out = self._header(sit, ply)
        p = eng.probabilities(sit.position)       # at the asked ply; the cube's at its own
        out["probabilities"] = probabilities_json(p)
        out["cubeless_equity"] = cubeless_equity(p)
        proper = {"no_double": 0, "too_good_take": 0, "too_good_pass": 0, "double_take": 1,
                  "double_pass": 2}[h.action]
        eq = 2 * h.equities[1] if h.response == "beaver" and proper == 1 \
            else h.equities[proper]
        if st.match_length and h.mwc is not None:
            out["cubeless_mwc"] = eng.equity(sit.position, st, ply, cubeful=False)
            out["cubeful_mwc"] = h.mwc[proper]
            out["emg"] = eq
        else:
            out["cubeful_equity"] = eq
        out["cube_words"] = h.words
        return out

    def cube(self, body: Mapping[str, Any]) -> Json:
        """``POST /cube``: the cube decision of the side on roll and the opponent's answer
        (with a double pending in the notation, also the taker's figures)."""

        request, sit, ply = self._situation(body)
        eng = self.engine(sit.state.rules, ply, request.cube_ply)
        out = self._header(sit, ply)
        out["cube"] = self._cube_json(eng, sit)
        if sit.state.double_offered:
            t = take_hint(eng, sit.position, sit.state)
            out["take"] = {"answer": t.answer, "take": t.take, "pass": t.pass_,
                           "beaver": t.beaver, "mwc_take": t.mwc_take,
                           "mwc_pass": t.mwc_pass}
        return out

    def _cube_json(self, eng: Engine, sit: Situation) -> Json:
        st = replace(sit.state, player_to_act=sit.state.player_on_roll, double_offered=False,
                     resign_offered=0, dice=(0, 0))
        h = cube_hint(eng, sit.position, st)
        nd, dt, dp = h.equities
        double, accept = self._cube_pair(eng, sit.position, st)
        out: Json = {
            "action": h.action, "response": h.response, "words": h.words,
            "can_double": h.can_double, "reason": h.reason,
            "equities": {"no_double": _finite(nd), "double_take": _finite(dt),
                         "double_pass": _finite(dp)},
            "probabilities": probabilities_json(h.probabilities),
            "cubeless_equity": h.cubeless,
            "engine": {"double": double, "accept": accept},
            "ply": eng.cube_ply,
        }
        if h.mwc is not None:
            a, b, c = h.mwc
            out["mwc"] = {"no_double": _finite(a), "double_take": _finite(b),
                          "double_pass": _finite(c)}
        return out

    def rollout(self, body: Mapping[str, Any]) -> Json:
        """``POST /rollout``: a rollout by :mod:`gbot.analysis.rollout` (0-ply checker play, cubeful
        by the 0-ply cube model): of the plays of the dice (the ``count`` best at 0-ply, at
        most :data:`MAX_ROLLOUT_PLAYS`), else of the cube decision and the position."""

        request, sit, ply = self._situation(body)
        trials, seed = request.trials, request.seed
        if sit.state.rules.caucasian:
            raise RequestError("rollouts play by the standard move rule; drop caucasian")
        # in steps of ROLLOUT_STEP trials, between which an abandoned request stops (the same
        # figures whatever the step)
        left = time_left()
        now = time.monotonic()
        stop_at = finish_by = 0.0
        if left is not None:
            stop_at = now + ROLLOUT_SHARE * max(left, 0.0)
            finish_by = now + ROLLOUT_FINISH * max(left, 0.0)
        ro = Rollout(RolloutSettings(trials=trials, seed=seed, workers=1, batch=ROLLOUT_STEP,
                                     chunk=ROLLOUT_STEP, stop_at=stop_at, finish_by=finish_by),
                     progress=check_cancelled)
        st = replace(sit.state, player_to_act=sit.state.player_on_roll, double_offered=False,
                     resign_offered=0, dice=(0, 0))
        out = self._header(sit, ply)
        out["trials"] = trials
        out["seed"] = seed
        if sit.dice is not None:
            n = request.count or MAX_ROLLOUT_PLAYS
            rows = ro.plays(sit.position, sit.dice, st, candidates=min(n, MAX_ROLLOUT_PLAYS))
            out["dice"] = list(sit.dice)
            out["plays"] = [{"rank": i, "move": r.play.notation, **_rollout_json(r.result)}
                            for i, r in enumerate(rows, 1)]
            out["stopped_early"] = any(r.result.trials < trials for r in rows)
            return out
        if not st.may_double(st.player_on_roll):
            whole = ro.position(sit.position, st)
        else:
            whole, c = ro.position_and_cube(sit.position, st)
            out["cube"] = {"action": c.action, "response": c.response,
                           "no_double": _rollout_json(c.no_double),
                           "double_take": _rollout_json(c.double_take),
                           "double_pass": c.double_pass}
        out["position"] = _rollout_json(whole)
        out["stopped_early"] = whole.trials < trials
        return out


MAX_ROLLOUT_PLAYS = 5
ROLLOUT_SHARE = 0.5
"""The part of a request's remaining time in which its rollout starts new trials (the rest is
for the trials under way and the answer); then the figures of the trials
played are the answer, marked ``stopped_early``."""
ROLLOUT_FINISH = 0.9
"""The part of a request's remaining time by which its rollout is done: no block starts that
the rollout's pace so far says would end later (the rest is for the answer)."""
ROLLOUT_STEP = 12
"""Trials a rollout plays between two looks at whether its request was abandoned."""


def _rollout_json(r: Any) -> Json:
    return {"probabilities": probabilities_json(r.probabilities),
            "std_errors": list(r.std_errors), "equity": r.equity, "equity_se": r.equity_se,
            "cubeful": r.cubeful, "cubeful_se": r.cubeful_se, "mwc": r.mwc, "mwc_se": r.mwc_se,
            "trials": r.trials}
