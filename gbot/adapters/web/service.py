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

Every bad input raises :class:`RequestError` with a one-line message quoting the input.
"""

from __future__ import annotations

import contextlib
import math
import threading
from collections.abc import Iterator, Mapping
from dataclasses import replace
from typing import Any

from gbot.analysis.rollout import Rollout, RolloutSettings
from gbot.engine.engine import Engine, cubeless_equity
from gbot.engine.hints import cube_hint, play_hints, resign_hint, take_hint
from gbot.errors import FieldError, GbotError
from gbot.eval.evaluator import Evaluator
from gbot.game.fields import parse_int, quote
from gbot.game.match import CENTRE, MAX_MATCH_LENGTH, SWITCHES, MatchState, Rules
from gbot.game.position import Play, Position
from gbot.game.position_text import Situation, read_situation

__all__ = [
    "MAX_CHECKERS",
    "MAX_MATCH_LENGTH",
    "MAX_PLY",
    "ROLLOUT_STEP",
    "Cancelled",
    "RequestError",
    "Service",
    "Situation",
    "cancellable",
    "check_cancelled",
    "parse_dice",
    "parse_pips",
    "parse_position_text",
    "parse_rules",
]

MAX_PLY = 2
"""Deepest look-ahead a request may ask for (the bound on its running time)."""
MAX_CHECKERS = 15
MAX_TEXT = 400
"""Longest position text (a FIBS board line is about 150 characters)."""
RULE_KEYS = ("jacoby", "beavers", "cube", "cube_cap", "end_mode", "caucasian")

Json = dict[str, Any]


class RequestError(GbotError, ValueError):
    """A request the API cannot answer: a bad position, dice, match score, rule or option."""


# --- stopping abandoned work -------------------------------------------------------------------


class Cancelled(Exception):
    """A request's computation was stopped: its time bound passed or its client went away."""


_stop = threading.local()


@contextlib.contextmanager
def cancellable(stop: threading.Event) -> Iterator[None]:
    """Within the block, the long computations of this thread (rollouts) raise
    :class:`Cancelled` soon after ``stop`` is set."""
    previous = getattr(_stop, "event", None)
    _stop.event = stop
    try:
        yield
    finally:
        _stop.event = previous


def check_cancelled(*_progress: int) -> None:
    """Raise :class:`Cancelled` when the request this thread computes for is to stop (also a
    rollout's ``progress`` callback)."""
    event = getattr(_stop, "event", None)
    if event is not None and event.is_set():
        raise Cancelled("the computation was stopped")


# --- input parsing -------------------------------------------------------------------------


MAX_INT_TEXT = 999_999
"""Largest magnitude a number in a query string or JSON string may spell (each field's own
range, narrower, is checked where it is used)."""


def _int(value: Any, name: str, signed: bool = False) -> int:
    """An integer from a query string or JSON value: a JSON integer, or a string of ASCII
    digits (:func:`gbot.game.fields.parse_int`; a sign only where ``signed``) of at most
    :data:`MAX_INT_TEXT`. Bools, floats and other text are refused."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str):
        try:
            return parse_int(value.strip(), name, -MAX_INT_TEXT if signed else 0, MAX_INT_TEXT)
        except FieldError:
            pass
    raise RequestError(f"{name} must be an integer, got {quote(value)}")


def parse_pips(params: Mapping[str, Any]) -> Position:
    """The position of wildbg's ``p0`` .. ``p25`` (missing points are empty)."""
    board = [0] * 26
    for i in range(26):
        raw = params.get(f"p{i}")
        if raw is None or raw == "":
            continue
        v = _int(raw, f"p{i}", signed=True)
        if not -MAX_CHECKERS <= v <= MAX_CHECKERS:
            raise RequestError(f"p{i} must be between -15 and 15, got {v}")
        board[i] = v
    if board[0] > 0:
        raise RequestError(f"p0 is the bar of o (the opponent): it needs a count <= 0, "
                           f"got {board[0]}")
    if board[25] < 0:
        raise RequestError(f"p25 is the bar of x (on roll): it needs a count >= 0, "
                           f"got {board[25]}")
    mine = sum(v for v in board if v > 0)
    theirs = -sum(v for v in board if v < 0)
    if mine > MAX_CHECKERS:
        raise RequestError(f"player x has {mine} checkers on the board, at most 15")
    if theirs > MAX_CHECKERS:
        raise RequestError(f"player o has {theirs} checkers on the board, at most 15")
    try:
        return Position(board)
    except GbotError as exc:
        raise RequestError(str(exc)) from None


def parse_dice(die1: Any, die2: Any) -> tuple[int, int]:
    """Two dice 1..6."""
    if die1 is None or die2 is None:
        raise RequestError("die1 and die2 are required, each 1 to 6")
    d1, d2 = _int(die1, "die1"), _int(die2, "die2")
    if not (1 <= d1 <= 6 and 1 <= d2 <= 6):
        raise RequestError(f"dice must be between 1 and 6, got {d1} and {d2}")
    return d1, d2


def _dice_value(value: Any) -> tuple[int, int] | None:
    """Dice of a JSON body: ``"65"``, ``"6-5"``, ``[6, 5]`` or null."""
    if value is None or value == "" or value == []:
        return None
    if isinstance(value, list) and len(value) == 2:
        return parse_dice(value[0], value[1])
    if isinstance(value, str) and len(value) <= 5:
        digits = [c for c in value if c in "0123456789"]
        if len(digits) == 2:
            return parse_dice(digits[0], digits[1])
    raise RequestError(f"dice must be two dice 1 to 6 such as \"65\" or [6, 5], "
                       f"got {quote(value)}")


def parse_away(params: Mapping[str, Any]) -> tuple[int, int, bool]:
    """wildbg's ``x_away``/``o_away`` (both 0 or absent: money) plus gbot's ``crawford``."""
    xa_raw, oa_raw = params.get("x_away"), params.get("o_away")
    xa = 0 if xa_raw in (None, "") else _int(xa_raw, "x_away")
    oa = 0 if oa_raw in (None, "") else _int(oa_raw, "o_away")
    if (xa == 0) != (oa == 0):
        raise RequestError(f"x_away and o_away are both 0 (money) or both at least 1, "
                           f"got {xa} and {oa}")
    if xa < 0 or oa < 0 or max(xa, oa) > MAX_MATCH_LENGTH:
        raise RequestError(f"x_away and o_away must be 1 to {MAX_MATCH_LENGTH}, "
                           f"got {xa} and {oa}")
    crawford = _flag(params.get("crawford"), "crawford")
    if crawford and 1 not in (xa, oa):
        raise RequestError("the Crawford game needs a player 1 away")
    return xa, oa, crawford


def _flag(value: Any, name: str) -> bool:
    if value is None or value == "":
        return False
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("1", "true", "yes", "on"):
        return True
    if isinstance(value, str) and value.lower() in ("0", "false", "no", "off"):
        return False
    raise RequestError(f"{name} must be true or false, got {quote(value)}")


def away_state(xa: int, oa: int, crawford: bool, rules: Rules) -> MatchState:
    """The match state of x (player 0, on roll) ``xa`` away and o ``oa`` away, cube centred."""
    if xa == 0:
        return MatchState(rules=rules)
    length = max(xa, oa)
    return MatchState(match_length=length, score=(length - xa, length - oa), crawford=crawford,
                      crawford_done=crawford or 1 in (xa, oa), rules=rules)


def parse_rules(body: Mapping[str, Any], base: Rules) -> Rules:
    """``base`` with the switches of ``body`` applied: each of
    :data:`gbot.game.match.SWITCHES` by its HTTP name (``jacoby``, ``beavers``, ``cube``,
    ``cube_cap``, ``end_mode``, ``caucasian``, ...)."""
    changes: dict[str, Any] = {}
    for switch in SWITCHES:
        if switch.key not in body:
            continue
        value = body[switch.key]
        if not switch.choices:
            changes[switch.field] = _json_bool(value, switch.key)
        elif isinstance(switch.choices[0], int):
            changes[switch.field] = _int(value, switch.key)
        elif not isinstance(value, str):
            raise RequestError(f"{switch.key} must be a string, got {quote(value)}")
        else:
            changes[switch.field] = value
    if not changes:
        return base
    try:
        return replace(base, **changes)
    except GbotError as exc:
        raise RequestError(str(exc)) from None


def _json_bool(value: Any, name: str) -> bool:
    if not isinstance(value, bool):
        raise RequestError(f"{name} must be true or false, got {quote(value)}")
    return value


def parse_position_text(text: Any, rules: Rules, match_id: Any = None) -> Situation:
    """A :class:`Situation` from a Position ID, ``PID:MatchID``, an XGID or a ``board:`` line.

    ``rules`` are the switches to decide under (:func:`gbot.game.position_text.read_situation`,
    an XGID's own switches win); a finished match is refused.
    """
    if not isinstance(text, str) or not text.strip():
        raise RequestError(f"position must be a non-empty string, got {quote(text)}")
    if len(text) > MAX_TEXT:
        raise RequestError(f"position text is {len(text)} characters long, at most {MAX_TEXT}")
    if match_id is not None and not isinstance(match_id, str):
        raise RequestError(f"match_id must be a string, got {quote(match_id)}")
    try:
        sit = read_situation(text, rules, match_id)
    except GbotError as exc:
        raise RequestError(str(exc)) from None
    state = sit.state
    if state.match_length and state.match_over:
        raise RequestError(f"the match is over: score {state.score[0]}-{state.score[1]} "
                           f"to {state.match_length}")
    return sit


def _ply(body: Mapping[str, Any], default: int) -> int:
    if "ply" not in body or body["ply"] is None:
        return default
    p = _int(body["ply"], "ply")
    if not 0 <= p <= MAX_PLY:
        raise RequestError(f"ply must be 0 to {MAX_PLY}, got {p}")
    return p


def _count(body: Mapping[str, Any]) -> int | None:
    """``count`` of a hint request: how many plays to list (None: all; default 5)."""
    count = body.get("count", 5)
    if count is None:
        return None
    n = _int(count, "count")
    if not 1 <= n <= 1000:
        raise RequestError(f"count must be 1 to 1000 or null (all), got {n}")
    return n


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

    def engine(self, rules: Rules, ply: int) -> Engine:
        """A fresh engine (its own memo) over the shared evaluator."""
        return Engine(evaluator=self.evaluator(rules.caucasian), ply=ply, rules=rules)

    # --- wildbg --------------------------------------------------------------------------
    def wildbg_move(self, params: Mapping[str, Any]) -> Json:
        """``GET /move``: every legal play of the dice, the engine's choice first."""
        pos = parse_pips(params)
        dice = parse_dice(params.get("die1"), params.get("die2"))
        xa, oa, crawford = parse_away(params)
        ply = _ply({"ply": params.get("ply")} if params.get("ply") not in (None, "") else {},
                   self.ply)
        state = away_state(xa, oa, crawford, self.rules)
        if pos.is_over():
            raise RequestError("the game is over: a side has no checkers left")
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
        pos = parse_pips(params)
        xa, oa, crawford = parse_away(params)
        if pos.is_over():
            raise RequestError("the game is over: a side has no checkers left")
        state = away_state(xa, oa, crawford, self.rules)
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
    def _situation(self, body: Mapping[str, Any]) -> tuple[Situation, Rules, int]:
        if not isinstance(body, Mapping):
            raise RequestError("the body must be a JSON object")
        unknown = sorted(set(body) - {"position", "match_id", "dice", "ply", "count", "rules",
                                      "trials", "seed"})
        if unknown:
            raise RequestError(f"unknown field {quote(unknown[0])}")
        rules_body = body.get("rules", {})
        if not isinstance(rules_body, Mapping):
            raise RequestError(f"rules must be an object, got {quote(rules_body)}")
        bad = sorted(set(rules_body) - set(RULE_KEYS))
        if bad:
            raise RequestError(f"unknown rule {quote(bad[0])}; rules are {', '.join(RULE_KEYS)}")
        rules = parse_rules(rules_body, self.rules)
        sit = parse_position_text(body.get("position"), rules, body.get("match_id"))
        if "dice" in body:
            dice = _dice_value(body["dice"])
            if dice is not None:
                sit = Situation(sit.position, sit.state, dice)
        if sit.position.is_over():
            raise RequestError("the game is over: a side has no checkers left")
        _count(body)
        return sit, sit.state.rules, _ply(body, self.ply)

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

        sit, rules, ply = self._situation(body)
        n = _count(body)
        out = self._header(sit, ply)
        eng = self.engine(rules, ply)
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

        sit, rules, ply = self._situation(body)
        eng = self.engine(rules, ply)
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

        sit, rules, ply = self._situation(body)
        eng = self.engine(rules, ply)
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

        sit, rules, ply = self._situation(body)
        trials = _int(body.get("trials", DEFAULT_TRIALS), "trials")
        if not 1 <= trials <= MAX_TRIALS:
            raise RequestError(f"trials must be 1 to {MAX_TRIALS}, got {trials}")
        seed = _int(body.get("seed", 1), "seed", signed=True)
        if not 0 <= seed < 2**32:
            raise RequestError(f"seed must be 0 to 2**32-1, got {seed}")
        if rules.caucasian:
            raise RequestError("rollouts play by the standard move rule; drop caucasian")
        # in steps of ROLLOUT_STEP trials, between which an abandoned request stops (the same
        # figures whatever the step)
        ro = Rollout(RolloutSettings(trials=trials, seed=seed, workers=1, batch=ROLLOUT_STEP,
                                     chunk=ROLLOUT_STEP), progress=check_cancelled)
        st = replace(sit.state, player_to_act=sit.state.player_on_roll, double_offered=False,
                     resign_offered=0, dice=(0, 0))
        out = self._header(sit, ply)
        out["trials"] = trials
        out["seed"] = seed
        if sit.dice is not None:
            n = _count(body) or MAX_ROLLOUT_PLAYS
            rows = ro.plays(sit.position, sit.dice, st, candidates=min(n, MAX_ROLLOUT_PLAYS))
            out["dice"] = list(sit.dice)
            out["plays"] = [{"rank": i, "move": r.play.notation, **_rollout_json(r.result)}
                            for i, r in enumerate(rows, 1)]
            return out
        out["position"] = _rollout_json(ro.position(sit.position, st))
        if st.may_double(st.player_on_roll):
            check_cancelled()
            c = ro.cube(sit.position, st)
            out["cube"] = {"action": c.action, "response": c.response,
                           "no_double": _rollout_json(c.no_double),
                           "double_take": _rollout_json(c.double_take),
                           "double_pass": c.double_pass}
        return out


DEFAULT_TRIALS = 144
MAX_TRIALS = 1296
MAX_ROLLOUT_PLAYS = 5
ROLLOUT_STEP = 12
"""Trials a rollout plays between two looks at whether its request was abandoned."""


def _rollout_json(r: Any) -> Json:
    return {"probabilities": probabilities_json(r.probabilities),
            "std_errors": list(r.std_errors), "equity": r.equity, "equity_se": r.equity_se,
            "cubeful": r.cubeful, "cubeful_se": r.cubeful_se, "mwc": r.mwc, "mwc_se": r.mwc_se,
            "trials": r.trials}
