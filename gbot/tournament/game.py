"""One game between two seated players, refereed by :class:`gbot.game.referee.Referee`.

A :class:`GameTask` says everything a worker needs to play one game of a match or session (the
two player specs, the match state before the game, the dice seed, the players' seeds); it is a
small frozen value, sent to worker processes or Ray tasks. :func:`run_task` plays it with the
worker's cached players and returns a :class:`GameResult` (the game's log and the state after
it). The dice come from their own seeded stream per game, so a game replayed with the seats
swapped (duplicate dice) sees the same rolls in the same order.
"""

from __future__ import annotations

import atexit
import time
from dataclasses import dataclass

from gbot.core.board import flip_py
from gbot.errors import MatchRuleError, PlayerError
from gbot.game.match import GameState, MatchState, Rules
from gbot.game.referee import (
    OVER_STATES,
    Dice,
    GameRecord,
    Referee,
    can_double,
    loss_kind,
    may_beaver,
)
from gbot.tournament.players import Player, PlayerSpec, Resign, my_view

__all__ = ["GameResult", "GameTask", "close_players", "play_game", "run_task"]

MAX_STEPS = 20_000
"""Decisions after which a game is called broken (a real game takes a few hundred)."""
MAX_OFFERS = 3
"""Resignation offers a player may make in one turn (after rejections) before it is an error."""


@dataclass(frozen=True)
class GameTask:
    """One game to play: ``key`` = (pairing, unit, mirror), game ``number`` in its match."""

    key: tuple[int, int, int]
    number: int
    seats: tuple[PlayerSpec, PlayerSpec]
    labels: tuple[str, str]
    start: MatchState
    dice_seed: int
    player_seeds: tuple[int, int]


@dataclass(frozen=True)
class GameResult:
    """A finished game: its log, the state after it, the kind of win and how long it took.

    ``kind`` is 1 single, 2 gammon, 3 backgammon (played out or resigned at that level), 0 for
    a dropped double or a draw. ``engines`` describes the two seats as they really played.
    """

    task: GameTask
    record: GameRecord
    end: MatchState
    kind: int
    seconds: float
    engines: tuple[str, str]


def _kind(state: MatchState, record: GameRecord) -> int:
    """Single/gammon/backgammon of the finished game (0 for a drop or a draw)."""
    if state.winner < 0 or state.game_state == GameState.DROPPED:
        return 0
    if state.game_state == GameState.RESIGNED and state.rules.resignation == "offer":
        offers = [a.value for a in record.actions if a.kind == "accept"]
        return int(offers[-1]) if offers else 1
    # the final board is seen by the player on roll: the winner after a last play, either
    # side after a site-style resignation, the loser after a failed draw-variant final roll
    view = state.board_array()
    if state.player_on_roll == state.winner:
        view = flip_py(view)
    return loss_kind(view, state.rules.checkers)


def play_game(task: GameTask, players: tuple[Player, Player]) -> GameResult:
    """Play ``task``'s game with ``players`` in seats 0 and 1; returns its result.

    Raises :class:`~gbot.errors.PlayerError` when a player fails or answers illegally.
    """
    t0 = time.perf_counter()
    start = task.start
    ref = Referee(start.match_length, start.rules, names=task.labels)
    ref.state = start
    ref.record.games = [GameRecord(start.game_number, start.score, start.crawford)]
    ref.dice = Dice(task.dice_seed)
    for seat in (0, 1):
        players[seat].new_game(task.player_seeds[seat], task.labels[1 - seat])
    offers: dict[tuple[int, int], int] = {}
    for _ in range(MAX_STEPS):
        s = ref.state
        if s.game_state in OVER_STATES:
            break
        if s.game_state == GameState.NONE:
            ref.roll()
            continue
        me = s.player_to_act
        player = players[me]
        pos = my_view(s, me)
        try:
            if s.double_offered:
                answer = player.respond_double(pos, s)
                if answer == "beaver" and may_beaver(s):
                    ref.beaver()
                elif answer == "drop":
                    ref.drop()
                else:
                    ref.take()
            elif s.resign_offered:
                if player.accept_resignation(pos, s, s.resign_offered):
                    ref.accept_resign()
                else:
                    ref.reject_resign()
            elif s.dice == (0, 0):
                turn = (s.turn, me)
                may_resign = offers.get(turn, 0) == 0
                decision = player.before_roll(pos, s, can_double(s), may_resign)
                if isinstance(decision, Resign):
                    _resign(ref, decision, offers, turn, player)
                elif decision == "double" and can_double(s):
                    ref.double()
                else:
                    ref.roll()
            else:
                chosen = player.play(pos, s.dice, s)
                if isinstance(chosen, Resign):
                    _resign(ref, chosen, offers, (s.turn, me), player)
                elif chosen is None:
                    ref.play(None)
                else:
                    ref.play(chosen.position.board, steps=chosen.steps)
        except MatchRuleError as exc:
            raise PlayerError(f"{player.label} (seat {me}) broke a rule: {exc}") from None
    else:
        raise PlayerError(f"game {task.key}/{task.number} did not end in {MAX_STEPS} steps")
    end = ref.state
    record = ref.record.games[-1]
    return GameResult(task, record, end, _kind(end, record), time.perf_counter() - t0,
                      (players[0].describe(), players[1].describe()))


def _resign(ref: Referee, offer: Resign, offers: dict[tuple[int, int], int],
            turn: tuple[int, int], player: Player) -> None:
    n = offers.get(turn, 0) + 1
    offers[turn] = n
    if n > MAX_OFFERS:
        raise PlayerError(f"{player.label} offered to resign {n} times in one turn")
    if ref.state.rules.resignation == "position":
        ref.resign(None)
    else:
        level = offer.level if offer.level in (1, 2, 3) else 1
        ref.resign(level)


# --------------------------------------------------------------------------- worker side

_PLAYERS: dict[tuple[PlayerSpec, Rules], Player] = {}


def _player(spec: PlayerSpec, label: str, rules: Rules) -> Player:
    from dataclasses import replace

    spec = replace(spec, label=label)
    key = (spec, rules)
    p = _PLAYERS.get(key)
    if p is None:
        if not _PLAYERS:
            _register_cleanup()
        p = spec.build(rules)
        _PLAYERS[key] = p
    return p


def _register_cleanup() -> None:
    """Close cached players when the process ends (pool workers skip atexit handlers)."""
    atexit.register(close_players)
    try:
        from multiprocessing import util

        util.Finalize(None, close_players, exitpriority=100)
    except Exception:  # pragma: no cover
        pass


def close_players() -> None:
    """Close every player cached in this process (stops gnubg servers, drops connections)."""
    while _PLAYERS:
        _, p = _PLAYERS.popitem()
        try:
            p.close()
        except Exception:  # pragma: no cover - best effort at shutdown
            pass


def run_task(task: GameTask) -> GameResult:
    """Play ``task`` with this process's cached players (built on first use)."""
    rules = task.start.rules
    p0 = _player(task.seats[0], task.labels[0], rules)
    p1 = _player(task.seats[1], task.labels[1], rules)
    if p0 is p1:  # the same spec in both seats needs two instances (external connections)
        raise PlayerError(f"both seats hold the same player {task.labels[0]!r}")
    return play_game(task, (p0, p1))
