"""The referee: pure transitions between :class:`~gbot.game.match.MatchState` values, and a match
log.

Every transition is a function ``f(state, ...) -> MatchState`` that returns a new state or raises
:class:`~gbot.errors.MatchRuleError`; nothing is mutated, so protocols, tournaments and tests can
share states freely. :class:`Referee` is the thin stateful driver: it holds the current state,
rolls a seeded :class:`Dice` and logs every action in a :class:`MatchRecord` (which
:mod:`gbot.records.matfile` writes as a Jellyfish ``.mat`` file).

The flow of one game::

    new_match / next_game  -> game_state NONE (opening roll) or PLAYING (designated opener)
    roll(state, (d0, d1))  -> opening roll: die of player 0, die of player 1; ties stay NONE
    [double -> take | drop | beaver (-> take | drop | raccoon)]   before rolling
    [resign (-> accept_resign | reject_resign)]                   either side, nothing pending
    roll(state, dice) -> play(state, result_board) -> ...          until someone bears off
    [forfeit]          a result a record states that the play does not give

:func:`set_score` starts a game at a stated score (a record that begins in mid-match).

The board in the state is seen by ``player_on_roll`` (layout of :mod:`gbot.core.board`); a play
is given as the resulting board in the mover's view, one of
:func:`gbot.core.movegen.legal_boards` (or the unchanged board / ``None`` when nothing is legal).

Rule details this referee fixes (the switches live in :class:`~gbot.game.match.Rules`):

* Doubles are offered on one's own turn before rolling, by the cube owner or with a centred
  cube, up to the cap; never in the Crawford game or during a draw-on-last-roll final roll.
  A designated opener (``opener`` = loser/alternate) may double before the game's first roll.
* A dropped double scores the cube value before the double. A take gives the cube to the taker.
* Beavers and raccoons (money only) follow gnubg: each is a redouble by the player who must
  answer; the cube value doubles at once, the other side must take, drop or (raccoon) redouble,
  and the player who finally takes owns the cube. A drop scores the cube value reached so far.
* Scoring: end multiplier (single 1, gammon 2, backgammon 3, capped by the end mode) times the
  cube; with Jacoby (money) an unturned cube scores every win as single.
* Draw on the last roll: when the game's opener bears off last, the other player gets one final
  roll; bearing everything off with it draws the game (0 points; the next game is played as if
  none had been). Otherwise the opener wins, scored from the final position.
* A drawn or finished Crawford game uses up the Crawford rule; later games are post-Crawford.
* Scores are not capped at the match length (gnubg does not cap them either).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import numpy.typing as npt

from gbot.core.board import Board, flip_py
from gbot.core.movegen import legal_boards, legal_plays_raw
from gbot.errors import MatchRuleError
from gbot.game.match import CENTRE, GameState, MatchState, Rules
from gbot.game.variations import start_board

OVER_STATES = (GameState.OVER, GameState.RESIGNED, GameState.DROPPED)


# --------------------------------------------------------------------------- dice


class Dice:
    """A seeded source of rolls (Python's Mersenne Twister; one stream per seed)."""

    def __init__(self, seed: int | None = None) -> None:
        """Start the stream of ``seed`` (``None``: seeded from the system)."""
        self._rng = random.Random(seed)

    def roll(self) -> tuple[int, int]:
        """Two dice, each 1..6."""
        return self._rng.randint(1, 6), self._rng.randint(1, 6)


# --------------------------------------------------------------------------- scoring


def loss_kind(loser_view: Board | Sequence[int], n_checkers: int = 15) -> int:
    """1 single, 2 gammon, 3 backgammon: what the loser's position is worth to the winner.

    ``loser_view`` is the board seen by the loser; a backgammon needs no checker off and one
    on the bar or in the winner's home board (the loser's points 19-24).
    """
    b = [int(x) for x in loser_view]
    in_play = sum(v for v in b[1:26] if v > 0)
    if in_play < n_checkers:
        return 1
    if b[25] > 0 or any(v > 0 for v in b[19:25]):
        return 3
    return 2


def game_points(state: MatchState, kind: int) -> int:
    """Points a win of ``kind`` scores in ``state`` (end mode, cube and Jacoby applied)."""
    mult = state.rules.end_multiplier(kind)
    if state.is_money and state.rules.jacoby and state.cube_value == 1:
        mult = 1
    return mult * state.cube_value


# --------------------------------------------------------------------------- setup


def new_match(length: int = 0, rules: Rules | None = None) -> MatchState:
    """A match of ``length`` points (0 = money session) waiting for its first opening roll."""
    if not isinstance(length, int) or isinstance(length, bool) or length < 0:
        raise MatchRuleError(f"match length must be an int >= 0, got {length!r}")
    state = MatchState(match_length=length, rules=rules or Rules())
    return _setup_game(state, 0, None)


def _setup_game(state: MatchState, number: int, opener: int | None) -> MatchState:
    # a 1-point match starts at match point for both: no Crawford game (as in gnubg)
    crawford = (state.match_length > 1 and not state.crawford_done
                and state.match_length - 1 in state.score)
    board = tuple(int(x) for x in start_board(state.rules.variation))
    common = dict(cube_value=1, cube_owner=CENTRE, dice=(0, 0), crawford=crawford,
                  double_offered=False, resign_offered=0, board=board, game_number=number,
                  winner=-1, game_points=0, final_roll=False, beavers=0, turn=0,
                  crawford_done=state.crawford_done or crawford)
    if opener is None:
        return replace(state, game_state=GameState.NONE, player_on_roll=0, player_to_act=0,
                       game_opener=-1, **common)  # type: ignore[arg-type]
    return replace(state, game_state=GameState.PLAYING, player_on_roll=opener,
                   player_to_act=opener, game_opener=opener, **common)  # type: ignore[arg-type]


def next_game(state: MatchState) -> MatchState:
    """The next game after a finished one; who opens follows ``rules.opener``."""
    if state.game_state not in OVER_STATES:
        raise MatchRuleError(f"the game is not over (game state {state.game_state.name})")
    if state.match_over:
        raise MatchRuleError(f"the match is over at {state.score!r}")
    how = state.rules.opener
    opener: int | None = None
    if how == "loser" and state.winner >= 0:
        opener = 1 - state.winner
    elif how == "alternate" and state.game_opener >= 0:
        opener = 1 - state.game_opener
    return _setup_game(state, state.game_number + 1, opener)


def set_score(state: MatchState, score: tuple[int, int], crawford_done: bool) -> MatchState:
    """The game about to start (no roll, cube action or resignation yet), played at ``score``
    instead: a record that begins in mid-match, or whose game states another score than the
    play before gives. ``crawford_done``: whether the Crawford game is behind (at a score
    one away from the match, this game is then post-Crawford rather than the Crawford game).
    """
    _need(state.dice == (0, 0) and state.turn == 0 and not state.double_offered
          and not state.resign_offered
          and (state.game_state == GameState.NONE
               or (state.game_state == GameState.PLAYING and state.game_opener >= 0)),
          "the score can only be set before a game's first roll")
    _need(len(score) == 2 and all(isinstance(x, int) and not isinstance(x, bool) and x >= 0
                                  for x in score), f"a score is two ints >= 0, got {score!r}")
    if state.match_length > 0:
        _need(max(score) < state.match_length,
              f"score {score!r} ends a {state.match_length}-point match")
    opener = state.game_opener if state.game_state == GameState.PLAYING else None
    base = replace(state, score=(score[0], score[1]), crawford_done=bool(crawford_done))
    return _setup_game(base, state.game_number, opener)


# --------------------------------------------------------------------------- checks


def _need(cond: bool, msg: str) -> None:
    if not cond:
        raise MatchRuleError(msg)


def _need_playing(state: MatchState) -> None:
    _need(state.game_state == GameState.PLAYING,
          f"no game in play (game state {state.game_state.name})")


def _need_quiet(state: MatchState) -> None:
    _need(not state.double_offered, "a double is pending")
    _need(not state.resign_offered, f"a resignation ({state.resign_offered}) is pending")


def _check_player(state: MatchState, player: int | None) -> None:
    if player is not None and player != state.player_to_act:
        raise MatchRuleError(
            f"player {player!r} may not act now; player {state.player_to_act} is to act")


def can_double(state: MatchState) -> bool:
    """Whether the player on roll may double now (own turn, before rolling, cube available)."""
    return (state.game_state == GameState.PLAYING and state.dice == (0, 0)
            and state.player_to_act == state.player_on_roll
            and state.may_double(state.player_on_roll))


def legal_results(state: MatchState) -> npt.NDArray[np.int8]:
    """Every legal resulting board (mover's view) for the rolled dice; empty when none."""

    _need_playing(state)
    _need(state.dice != (0, 0), "the dice have not been rolled")
    return legal_boards(state.board_array(), state.dice[0], state.dice[1],
                        state.rules.caucasian)


# --------------------------------------------------------------------------- transitions


def _check_die(d: object) -> int:
    if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or not 1 <= int(d) <= 6:
        raise MatchRuleError(f"a die must be an int 1..6, got {d!r}")
    return int(d)


def roll(state: MatchState, dice: tuple[int, int]) -> MatchState:
    """Roll ``dice`` for the player on roll, or the opening roll (die of player 0, of player 1).

    An opening tie leaves the game in state NONE (with the tie shown) for a re-roll.
    """
    d1, d2 = (_check_die(d) for d in dice)
    if state.game_state == GameState.NONE:
        _need(not state.match_over, f"the match is over at {state.score!r}")
        if d1 == d2:
            return replace(state, dice=(d1, d2))
        opener = 0 if d1 > d2 else 1
        return replace(state, game_state=GameState.PLAYING, player_on_roll=opener,
                       player_to_act=opener, game_opener=opener, dice=(d1, d2))
    _need_playing(state)
    _need_quiet(state)
    _need(state.dice == (0, 0), f"the dice are already rolled: {state.dice!r}")
    return replace(state, dice=(d1, d2))


def play(state: MatchState, result: Board | Sequence[int] | None,
         player: int | None = None) -> MatchState:
    """Play the rolled dice: ``result`` is the board after the play, in the mover's view.

    When the roll has no legal play, ``result`` must be ``None`` or the unchanged board.
    """
    _need_playing(state)
    _need_quiet(state)
    _check_player(state, player)
    _need(state.dice != (0, 0), "the dice have not been rolled")
    before = state.board_array()
    legal = legal_results(state)
    if len(legal) == 0:
        if result is not None and not np.array_equal(np.asarray(result), before):
            raise MatchRuleError(
                f"roll {state.dice!r} has no legal play; the board must stay, got {result!r}")
        after = before
    else:
        if result is None:
            raise MatchRuleError(f"roll {state.dice!r} has a legal play; a result is required")
        after = np.asarray(result, dtype=np.int8).reshape(-1)
        if after.shape != (26,) or not (legal == after).all(axis=1).any():
            raise MatchRuleError(
                f"not a legal result of roll {state.dice!r}: {tuple(int(x) for x in after)!r}")
    return _after_play(state, after)


def _after_play(state: MatchState, after: Board) -> MatchState:
    mover = state.player_on_roll
    other = 1 - mover
    n = state.rules.checkers
    mover_done = not any(int(v) > 0 for v in after[1:26])
    if state.final_roll:
        if mover_done:
            return _end(state, after, GameState.OVER, -1, 0)
        kind = loss_kind(after, n)
        return _end(state, after, GameState.OVER, other, game_points(state, kind))
    if mover_done:
        if state.rules.draw_last_roll and mover == state.game_opener:
            return replace(state, board=tuple(int(x) for x in flip_py(after)),
                           player_on_roll=other, player_to_act=other, dice=(0, 0),
                           final_roll=True, turn=state.turn + 1)
        kind = loss_kind(flip_py(after), n)
        return _end(state, after, GameState.OVER, mover, game_points(state, kind))
    return replace(state, board=tuple(int(x) for x in flip_py(after)), player_on_roll=other,
                   player_to_act=other, dice=(0, 0), turn=state.turn + 1)


def _end(state: MatchState, board: Board | Sequence[int], how: GameState, winner: int,
         points: int) -> MatchState:
    score = list(state.score)
    if winner >= 0:
        score[winner] += points
    return replace(state, board=tuple(int(x) for x in board), game_state=how, winner=winner,
                   game_points=points, score=(score[0], score[1]), double_offered=False,
                   resign_offered=0, beavers=0)


def double(state: MatchState, player: int | None = None) -> MatchState:
    """The player on roll offers the cube (before rolling)."""
    _need_playing(state)
    _need_quiet(state)
    _check_player(state, player)
    _need(state.player_to_act == state.player_on_roll, "only the player on roll may double")
    _need(state.dice == (0, 0), "doubling is only allowed before rolling")
    if not state.may_double(state.player_on_roll):
        raise MatchRuleError(_no_double_reason(state))
    return replace(state, double_offered=True, player_to_act=1 - state.player_on_roll,
                   beavers=0)


def _no_double_reason(state: MatchState) -> str:
    r = state.rules
    if not r.cube_enabled:
        return "the cube is off"
    if state.final_roll:
        return "no doubling on the final roll"
    if state.match_length > 0 and state.crawford:
        return "no doubling in the Crawford game"
    if state.cube_owner not in (CENTRE, state.player_on_roll):
        return f"player {state.cube_owner} owns the cube"
    if state.cube_value * 2 > r.max_cube:
        return f"the cube is at its cap ({state.cube_value}, cap {r.max_cube})"
    return "doubling is not allowed now"


def take(state: MatchState, player: int | None = None) -> MatchState:
    """Accept the pending double (or beaver/raccoon): the cube doubles, the taker owns it."""
    _need_playing(state)
    _need(state.double_offered, "no double to take")
    _check_player(state, player)
    return replace(state, double_offered=False, cube_value=state.cube_value * 2,
                   cube_owner=state.player_to_act, player_to_act=state.player_on_roll,
                   beavers=0)


def drop(state: MatchState, player: int | None = None) -> MatchState:
    """Refuse the pending double: the game ends at the cube value before it."""
    _need_playing(state)
    _need(state.double_offered, "no double to drop")
    _check_player(state, player)
    return _end(state, state.board, GameState.DROPPED, 1 - state.player_to_act,
                state.cube_value)


def may_beaver(state: MatchState) -> bool:
    """Whether the player to act may beaver (or, after a beaver, raccoon) the pending double."""
    if not (state.game_state == GameState.PLAYING and state.double_offered):
        return False
    if state.beavers >= (2 if state.rules.raccoons else 1):
        return False
    return state.beaver_allowed


def beaver(state: MatchState, player: int | None = None) -> MatchState:
    """Take and redouble at once (a beaver; the doubler's reply in kind is a raccoon)."""
    _need_playing(state)
    _need(state.double_offered, "no double to beaver")
    _check_player(state, player)
    if not may_beaver(state):
        raise MatchRuleError("beaver not allowed here (money play with beavers/raccoons on, "
                             f"within the cap; {state.beavers} already)")
    # gnubg marks the doubled side (not the player on roll) as owner while a beaver is pending
    return replace(state, cube_value=state.cube_value * 2, cube_owner=1 - state.player_on_roll,
                   player_to_act=1 - state.player_to_act, beavers=state.beavers + 1)


def resign(state: MatchState, kind: int | None = None, player: int | None = None) -> MatchState:
    """``player`` (default: the player to act) resigns; either side may, at any quiet moment.

    With ``rules.resignation == "offer"`` this offers ``kind`` (1 single, 2 gammon,
    3 backgammon; default 1) and the other side must accept or reject. With ``"position"``
    the game ends at once, scored by the resigner's actual position (``kind`` must be None).
    """
    _need_playing(state)
    _need_quiet(state)
    resigner = state.player_to_act if player is None else player
    _need(resigner in (0, 1), f"player must be 0 or 1, got {player!r}")
    if state.rules.resignation == "position":
        _need(kind is None, f"site-style resignations take no kind, got {kind!r}")
        view = state.board_array()
        if resigner != state.player_on_roll:
            view = flip_py(view)
        k = loss_kind(view, state.rules.checkers)
        return _end(state, state.board, GameState.RESIGNED, 1 - resigner, game_points(state, k))
    k = 1 if kind is None else kind
    _need(k in (1, 2, 3), f"resignation kind must be 1, 2 or 3, got {kind!r}")
    return replace(state, resign_offered=k, player_to_act=1 - resigner)


def accept_resign(state: MatchState, player: int | None = None) -> MatchState:
    """Accept the pending resignation: the game ends, scored at the offered kind."""
    _need_playing(state)
    _need(state.resign_offered > 0, "no resignation to accept")
    _check_player(state, player)
    return _end(state, state.board, GameState.RESIGNED, state.player_to_act,
                game_points(state, state.resign_offered))


def reject_resign(state: MatchState, player: int | None = None) -> MatchState:
    """Reject the pending resignation: play goes on with the player on roll to act."""
    _need_playing(state)
    _need(state.resign_offered > 0, "no resignation to reject")
    _check_player(state, player)
    return replace(state, resign_offered=0, player_to_act=state.player_on_roll)


def forfeit(state: MatchState, winner: int, points: int) -> MatchState:
    """The game in progress ends with ``winner`` scoring ``points``, as a record states a
    result that its play does not give (a forfeit or timeout, a resignation worth points no
    resignation gives, a game whose play is not known); ``winner`` -1 ends it with no result
    (0 points). Whatever is pending (a double, a resignation) lapses."""
    _need(state.game_state in (GameState.NONE, GameState.PLAYING),
          f"the game is already over (game state {state.game_state.name})")
    _need(winner in (-1, 0, 1), f"winner must be -1, 0 or 1, got {winner!r}")
    _need(isinstance(points, int) and not isinstance(points, bool)
          and (points >= 1 if winner >= 0 else points == 0),
          f"points must be >= 1 for a winner (0 for no result), got {points!r}")
    how = GameState.RESIGNED if winner >= 0 else GameState.OVER
    return _end(state, state.board, how, winner, points)


# --------------------------------------------------------------------------- results


@dataclass(frozen=True)
class GameResult:
    """How a finished game ended: ``winner`` (-1 draw), ``points`` and the end state."""

    winner: int
    points: int
    how: GameState

    @classmethod
    def of(cls, state: MatchState) -> GameResult:
        """The result of the finished game in ``state``."""
        if state.game_state not in OVER_STATES:
            raise MatchRuleError(f"the game is not over (game state {state.game_state.name})")
        return cls(state.winner, state.game_points, state.game_state)


def match_winner(state: MatchState) -> int:
    """The match winner (0 or 1), or -1 while the match is on (always -1 for money)."""
    if not state.match_over:
        return -1
    return 0 if state.score[0] >= state.match_length else 1


# --------------------------------------------------------------------------- the log


@dataclass(frozen=True)
class Action:
    """One logged event: ``kind`` is roll, move, double, take, drop, beaver, resign,
    accept, reject or win; ``player`` acted; the other fields depend on the kind.

    ``move``: ``dice`` and ``steps`` (single-die ``(from, to)`` pairs, mover's numbering) and
    ``board`` (the mover's view before the play); ``double``/``beaver``: ``value`` is the
    cube offered; ``resign``/``accept``: ``value`` is the kind; ``win``: ``value`` = points.
    """

    kind: str
    player: int
    dice: tuple[int, int] = (0, 0)
    steps: tuple[tuple[int, int], ...] = ()
    board: tuple[int, ...] = ()
    value: int = 0


@dataclass
class GameRecord:
    """The actions of one game, with the score and cube rules it started under."""

    number: int
    score: tuple[int, int]
    crawford: bool
    actions: list[Action] = field(default_factory=list)
    winner: int = -1
    points: int = 0
    how: GameState = GameState.PLAYING


@dataclass
class MatchRecord:
    """A whole match or session: length, rules, names and the games in order."""

    match_length: int
    rules: Rules = field(default_factory=Rules)
    names: tuple[str, str] = ("player0", "player1")
    games: list[GameRecord] = field(default_factory=list)
    final_score: tuple[int, int] = (0, 0)


def steps_of(before: Board, after: Board, dice: tuple[int, int],
             caucasian: bool = False) -> tuple[tuple[int, int], ...]:
    """Single-die steps that turn ``before`` into ``after`` (both in the mover's view)."""

    boards, steps = legal_plays_raw(before, dice[0], dice[1], caucasian)
    for i in range(len(boards)):
        if np.array_equal(boards[i], after):
            row = steps[i]
            return tuple((int(row[2 * k]), int(row[2 * k + 1])) for k in range(4)
                         if row[2 * k] > 0)
    if np.array_equal(before, after):
        return ()
    raise MatchRuleError(f"no legal play of {dice!r} reaches {tuple(int(x) for x in after)!r}")


class Referee:
    """A stateful driver over the pure transitions: current state, seeded dice and a log.

    Each method applies one transition (raising :class:`MatchRuleError` when illegal), logs
    it in :attr:`record`, and returns the new :attr:`state`.
    """

    def __init__(self, length: int = 0, rules: Rules | None = None, seed: int | None = None,
                 names: tuple[str, str] = ("player0", "player1")) -> None:
        """A new match of ``length`` points (0 = money) under ``rules``, dice seeded ``seed``."""
        self.state = new_match(length, rules)
        self.dice = Dice(seed)
        self.record = MatchRecord(length, self.state.rules, names)
        self._open_game()

    def _open_game(self) -> None:
        s = self.state
        self.record.games.append(GameRecord(s.game_number, s.score, s.crawford))

    def _log(self, action: Action) -> None:
        self.record.games[-1].actions.append(action)

    def _finish(self) -> None:
        s = self.state
        if s.game_state in OVER_STATES:
            g = self.record.games[-1]
            g.winner, g.points, g.how = s.winner, s.game_points, s.game_state
            self._log(Action("win", s.winner, value=s.game_points))
            self.record.final_score = s.score

    def roll(self, dice: tuple[int, int] | None = None) -> MatchState:
        """Roll (the given dice, or the seeded stream); opening rolls repeat ties themselves."""
        if self.state.game_state == GameState.NONE:
            while True:
                d = dice if dice is not None else self.dice.roll()
                self.state = roll(self.state, d)
                if self.state.game_state == GameState.PLAYING or dice is not None:
                    break
        else:
            self.state = roll(self.state, dice if dice is not None else self.dice.roll())
        if self.state.game_state == GameState.PLAYING:
            self._log(Action("roll", self.state.player_on_roll, dice=self.state.dice))
        return self.state

    def play(self, result: Board | Sequence[int] | None,
             steps: tuple[tuple[int, int], ...] | None = None) -> MatchState:
        """Play the rolled dice to ``result`` (mover's view; None when nothing is legal).

        ``steps`` (single-die ``(from, to)`` pairs reaching ``result``) are logged as given;
        by default the move generator supplies one sequence.
        """
        s = self.state
        before = s.board_array()
        new = play(s, result)
        after = before if result is None else np.asarray(result, dtype=np.int8)
        if steps is None:
            steps = steps_of(before, after, s.dice, s.rules.caucasian)
        self._log(Action("move", s.player_on_roll, dice=s.dice, steps=steps,
                         board=s.board))
        self.state = new
        self._finish()
        return new

    def double(self) -> MatchState:
        """The player on roll doubles."""
        self.state = double(self.state)
        self._log(Action("double", self.state.player_on_roll, value=self.state.cube_value * 2))
        return self.state

    def take(self) -> MatchState:
        """The player to act takes."""
        p = self.state.player_to_act
        self.state = take(self.state)
        self._log(Action("take", p, value=self.state.cube_value))
        return self.state

    def drop(self) -> MatchState:
        """The player to act drops."""
        p = self.state.player_to_act
        self.state = drop(self.state)
        self._log(Action("drop", p))
        self._finish()
        return self.state

    def beaver(self) -> MatchState:
        """The player to act beavers (or raccoons)."""
        p = self.state.player_to_act
        self.state = beaver(self.state)
        self._log(Action("beaver", p, value=self.state.cube_value * 2))
        return self.state

    def resign(self, kind: int | None = None, player: int | None = None) -> MatchState:
        """``player`` (default: the one to act) resigns (offer or site style, per the rules)."""
        p = self.state.player_to_act if player is None else player
        self.state = resign(self.state, kind, p)
        self._log(Action("resign", p, value=self.state.resign_offered or self.state.game_points))
        self._finish()
        return self.state

    def accept_resign(self) -> MatchState:
        """The player to act accepts the resignation."""
        p = self.state.player_to_act
        kind = self.state.resign_offered
        self.state = accept_resign(self.state)
        self._log(Action("accept", p, value=kind))
        self._finish()
        return self.state

    def reject_resign(self) -> MatchState:
        """The player to act rejects the resignation."""
        p = self.state.player_to_act
        self.state = reject_resign(self.state)
        self._log(Action("reject", p))
        return self.state

    def next_game(self) -> MatchState:
        """Start the next game of the match or session."""
        self.state = next_game(self.state)
        self._open_game()
        return self.state

    def set_score(self, score: tuple[int, int], crawford_done: bool = False) -> MatchState:
        """Play the game about to start at ``score`` (see :func:`set_score`)."""
        self.state = set_score(self.state, score, crawford_done)
        g = self.record.games[-1]
        g.score, g.crawford = self.state.score, self.state.crawford
        self.record.final_score = self.state.score
        return self.state

    def forfeit(self, winner: int, points: int) -> MatchState:
        """End the game in progress with ``winner`` scoring ``points`` (see :func:`forfeit`)."""
        self.state = forfeit(self.state, winner, points)
        self._finish()
        return self.state
