"""The FIBS bot (gbot.adapters.fibs.client): FIBS move text against the rules core, the state
machine line by line with a stand-in engine, fuzzed server lines, and complete matches on the
local server (gbot.testing.fibs_server) with the real engine: two bots, a scripted human,
and a dropped connection that is resumed."""

from __future__ import annotations

import json
import logging
import os
import random
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gbot.adapters.fibs import clip
from gbot.adapters.fibs.client import (
    BotConfig,
    ExitReason,
    FibsBot,
    Need,
    Reconnect,
    fibs_move,
    run_bot,
)
from gbot.core.board import START, flip_py
from gbot.engine.engine import Engine
from gbot.game.match import MatchState
from gbot.game.notations.fibs_board import FibsBoard, format_fibs_board, parse_fibs_board
from gbot.game.position import Play, Position
from gbot.testing.fibs_server import (
    FibsServer,
    GameSetup,
    LineClient,
    apply_steps,
    parse_fibs_steps,
)
from tests.handboards import board_of_own as board_of

SHARED = Path(__file__).resolve().parents[2] / "shared"


# =========================================================================== helpers




def fibs_line(pos: Position | Sequence[int], dice: tuple[int, int] = (0, 0), *,
              mine: bool = True, colour: int = 1, cube: int = 1, owner: str = "centre",
              pending: bool = False, score: tuple[int, int] = (0, 0), length: int = 5,
              opp: str = "alice", crawford: bool = False) -> str:
    """A FIBS ``board:`` line for the bot ("You"): ``pos`` is seen by the side to act."""
    points = tuple(int(x) for x in (pos.board if isinstance(pos, Position) else pos))
    may = (False, False) if pending else (owner != "opponent", owner != "me")
    fb = FibsBoard(points=points, dice=dice, cube_value=cube, cube_owner=owner,  # type: ignore[arg-type]
                   may_double=may, double_pending=pending, score=score, match_length=length,
                   crawford_game=crawford, post_crawford=False,
                   names=("You", opp) if mine else (opp, "You"), dialect="fibs",
                   colour=colour, me_player1=mine)
    return format_fibs_board(fb, "fibs")


class StubEngine:
    """A stand-in engine for protocol tests: scripted answers, every call recorded."""

    def __init__(self, cube: str = "roll", take: str = "take", resign: int = 0,
                 accept: bool = True) -> None:
        self.cube, self.take, self.resign, self.accept = cube, take, resign, accept
        self.calls: list[tuple[Any, ...]] = []

    def choose_play(self, pos: Position, dice: Sequence[int]) -> Play | None:
        self.calls.append(("play", pos, tuple(dice)))
        plays = pos.legal_plays(dice)
        return plays[0] if plays else None

    def cube_action(self, pos: Position, state: MatchState) -> str:
        self.calls.append(("cube", pos, state))
        return self.cube

    def respond_double(self, pos: Position, state: MatchState) -> str:
        self.calls.append(("take", pos, state))
        return self.take

    def resign_offer(self, pos: Position, state: MatchState) -> int:
        self.calls.append(("resign", pos, state))
        return self.resign

    def accept_resignation(self, pos: Position, state: MatchState, level: int) -> bool:
        self.calls.append(("accept", pos, state, level))
        return self.accept


def new_bot(engine: Any = None, **cfg: Any) -> FibsBot:
    config = BotConfig("gbot", delay=0.0, **cfg)
    return FibsBot(config, engine or StubEngine(), "s3cret")


def feed(bot: FibsBot, *lines: str) -> list[str]:
    out: list[str] = []
    for line in lines:
        out += [s.text for s in bot.handle_line(line)]
    return out


def first_move(pos: Position, dice: tuple[int, int], colour: int = 1) -> str:
    """What :class:`StubEngine` plays: the first legal play, in FIBS text."""
    return fibs_move(pos.legal_plays(dice)[0], colour)


def in_match(bot: FibsBot, opp: str = "alice", length: int = 5) -> None:
    feed(bot, "login: ", "1 gbot 0 -", f"** You are now playing a {length} point match with {opp}",
         f"Starting a new game with {opp}.")


# =========================================================================== FIBS moves


def test_fibs_move_spec_example() -> None:
    # spec 7: X with 5-3 at the start, gnubg's 8/3 6/3, is "move 17-22 19-22"
    plays = {p.notation: p for p in Position.initial().legal_plays((5, 3))}
    assert fibs_move(plays["8/3 6/3"], -1) == "move 17-22 19-22"
    assert fibs_move(plays["8/3 6/3"], 1) == "move 8-3 6-3"
    assert fibs_move(plays["24/16"], 1) == "move 24-21 21-16"   # one checker: two steps


def test_fibs_move_bar_and_off() -> None:
    hit = Position(board_of({25: 1, 13: 5, 8: 3, 6: 5, 24: 1}, {24: 2, 13: 5, 8: 3, 6: 5}))
    enter = {p.notation: p for p in hit.legal_plays((4, 1))}
    assert fibs_move(enter["bar/21 24/23"], 1) == "move bar-21 24-23"
    assert fibs_move(enter["bar/21 24/23"], -1) == "move bar-4 1-2"
    home = Position(board_of({6: 1, 3: 1}, {6: 2}))
    off = {p.notation: p for p in home.legal_plays((6, 3))}
    assert fibs_move(off["6/off 3/off"], 1) == "move 6-off 3-off"
    assert fibs_move(off["6/off 3/off"], -1) == "move 19-off 22-off"


def _absolute_after(line: str, text: str) -> list[int]:
    """Apply FIBS ``move`` steps to the absolute board of ``line`` (independent of gbot's
    orientation code): O (+) moves down and enters at 25 - die, X (-) moves up."""
    f = line.split(":")
    p = [int(x) for x in f[6:32]]
    s = int(f[32])               # the mover's colour
    opp_bar = 0 if s > 0 else 25
    for word in text.split()[1:]:
        a, b = word.split("-")
        src = (25 if s > 0 else 0) if a == "bar" else int(a)
        p[src] -= s
        if b != "off":
            dst = int(b)
            if p[dst] == -s:
                p[dst] = 0
                p[opp_bar] -= s
            p[dst] += s
    return p


def _legal_cases() -> list[tuple[str, tuple[int, int]]]:
    path = SHARED / "vectors" / "legal_moves_public.jsonl"
    if not path.exists():
        pytest.skip(f"{path} not available")
    rows = [json.loads(x) for x in path.read_text().splitlines()[:400]]
    return [(r["position_id"], tuple(r["dice"])) for r in rows]  # type: ignore[misc]


def test_fibs_moves_agree_with_rules_core_and_board_frame() -> None:
    """Every legal play of 400 vector positions, both colours: the FIBS text replays to the
    play's result on the absolute board (independent stepper) and through the server."""
    n = 0
    for pid, dice in _legal_cases():
        pos = Position.from_id(pid)
        for play in pos.legal_plays(dice)[:6]:
            if not play.steps:
                continue
            for colour in (1, -1):
                text = fibs_move(play, colour)
                line = fibs_line(pos, dice, colour=colour)
                want = fibs_line(play.position, (0, 0), colour=colour).split(":")[6:32]
                assert [str(x) for x in _absolute_after(line, text)] == want, (pid, dice, text)
                steps = parse_fibs_steps(text.split()[1:], colour)
                assert steps is not None
                after, problem = apply_steps(pos.board, steps, dice)
                assert problem is None, (pid, dice, text, problem)
                assert np.array_equal(after.astype(np.int8), play.position.board)
                n += 1
    assert n > 1500


# =========================================================================== state machine


def test_login_settings_and_failed_login() -> None:
    bot = new_bot()
    assert feed(bot, "Welcome.", "login: ") == ["login gbot 1008 gbot s3cret"]
    assert bot.login_text() == "login gbot 1008 gbot ****"
    assert feed(bot, "1 gbot 1795953514 127.0.0.1") == ["set boardstyle 3"]
    own = "2 gbot 1 1 0 0 0 0 1 1 0 0 0 0 1 1500.00 0 0 0 1 0 UTC"
    assert feed(bot, own) == ["toggle ready", "toggle notify", "toggle report",
                              "toggle silent", "toggle moreboards"]
    assert feed(bot, own) == []
    assert feed(bot, "3", "some motd", "4", "5 gbot - - 1 0 1500.00 0 0 1 127.0.0.1 gbot -",
                "6") == ["show saved"]
    assert bot.logged_in and bot.stop_reason is None
    bad = new_bot()
    feed(bad, "login: ")
    assert feed(bad, "login: ") == []
    assert bad.stop_reason is ExitReason.LOGIN_FAILED


def test_move_once_per_board() -> None:
    eng = StubEngine()
    bot = new_bot(eng)
    in_match(bot)
    line = fibs_line(Position.initial(), (3, 1))
    out = feed(bot, "You roll 3 and 1.", line, "Please move 2 pieces.", line, line)
    assert len(out) == 1 and out[0].startswith("move ")
    play = Position.initial().legal_plays((3, 1))[0]
    assert out == [fibs_move(play, 1)]
    # the opponent's turn, then mine again with the same dice and position: a new request
    opp = fibs_line(play.position.swapped(), (0, 0), mine=False, colour=-1)
    assert feed(bot, opp, "alice rolls 6 and 5.") == []
    assert feed(bot, "You roll 3 and 1.", line) == out
    assert [c[0] for c in eng.calls].count("play") == 2


def test_opening_roll_then_cube_prompt() -> None:
    bot = new_bot(StubEngine(cube="double"))
    in_match(bot)
    line = fibs_line(Position.initial(), (6, 1))
    out = feed(bot, "You rolled 6, alice rolled 1.", "It's your turn to move.", line)
    assert out == [first_move(Position.initial(), (6, 1))]
    mine = fibs_line(Position.initial())
    # a board with my turn and no dice is not a request by itself (the server may auto-roll)
    assert feed(bot, mine) == []
    assert feed(bot, "It's your turn. Please roll or double.") == ["double"]
    assert feed(bot, "It's your turn. Please roll or double.") == []
    # prompt first, board after: asks for the board once, acts when a board arrives
    assert feed(bot, fibs_line(Position.initial(), (2, 2), mine=False, colour=-1)) == []
    assert feed(bot, "It's your turn to roll or double.", mine) == ["board", "double"]
    assert feed(bot, mine) == []


def test_take_with_and_without_a_pending_board() -> None:
    eng = StubEngine(take="drop")
    bot = new_bot(eng)
    in_match(bot)
    pos = Position.initial()
    pending = fibs_line(pos, pending=True)
    assert feed(bot, "alice doubles. Type 'accept' or 'reject'.", pending) == ["reject"]
    kind, seen, state = eng.calls[-1]
    assert kind == "take" and seen == pos and state.double_offered
    assert state.player_to_act != state.player_on_roll
    # FIBS may send no board with the double: the answer comes from the board before it
    eng2 = StubEngine(take="take")
    bot2 = new_bot(eng2)
    in_match(bot2)
    their = Position(board_of({24: 2, 13: 5, 8: 3, 6: 5}, {24: 2, 13: 4, 8: 3, 6: 5, 5: 1}))
    assert feed(bot2, fibs_line(their, mine=False, colour=-1)) == []
    assert feed(bot2, "alice doubles. Type 'accept' or 'reject'.") == ["accept"]
    kind, seen, state = eng2.calls[-1]
    assert seen == their.swapped() and state.double_offered
    assert state.board == tuple(int(x) for x in their.board)
    # a pending board arriving afterwards is not answered again
    assert feed(bot2, fibs_line(their.swapped(), pending=True)) == []


def test_resignation_offers() -> None:
    eng = StubEngine(accept=False)
    bot = new_bot(eng)
    in_match(bot)
    feed(bot, fibs_line(Position.initial(), mine=False, colour=-1, cube=2, owner="opponent"))
    out = feed(bot, "alice wants to resign. You will win 4 points. Type 'accept' or 'reject'.")
    assert out == ["reject"]
    assert eng.calls[-1][0] == "accept" and eng.calls[-1][3] == 2   # 4 points / cube 2
    # the bot's own resignation: offered once per game; a rejection resumes the turn
    eng2 = StubEngine(resign=2)
    bot2 = new_bot(eng2)
    in_match(bot2)
    line = fibs_line(Position.initial(), (4, 2))
    assert feed(bot2, "You roll 4 and 2.", line) == ["resign g"]
    assert feed(bot2, "You want to resign. alice will win 2 points.") == []
    out = feed(bot2, "alice rejects. The game continues.")
    assert out == [first_move(Position.initial(), (4, 2))]
    assert feed(bot2, "Please move 2 pieces.", line) == []
    assert [d.kind for d in bot2.decisions] == ["resign", "move"]


def test_game_and_match_end() -> None:
    bot = new_bot(max_matches=1)
    in_match(bot, "alice", 3)
    assert feed(bot, "You win the game and get 2 points. Congratulations!",
                "score in 3 point match: gbot-2 alice-0",
                "Type 'join' if you want to play the next game, type 'leave' if you don't.") \
        == ["join"]
    assert bot.match is not None and bot.match.score == (2, 0)
    assert feed(bot, "You win the 3 point match 3-1 .") == ["bye"]
    assert bot.stop_reason is ExitReason.FINISHED
    assert list(bot.results)[0].won and list(bot.results)[0].score == (3, 1)
    lost = new_bot()
    in_match(lost, "alice", 3)
    feed(lost, "alice wins the 3 point match 3-1 .")
    assert list(lost.results)[0].score == (1, 3) and lost.stop_reason is None


@pytest.mark.parametrize(("line", "cfg", "joins"), [
    ("alice wants to play a 5 point match with you.", {}, True),
    ("alice wants to play a 9 point match with you.", {}, False),
    ("alice wants to play a 9 point match with you.", {"max_length": 0}, True),
    ("alice wants to play an unlimited match with you.", {}, False),
    ("alice wants to play an unlimited match with you.", {"unlimited": True}, True),
    ("alice wants to play a 3 point match with you.", {"deny": frozenset({"alice"})}, False),
    ("alice wants to play a 3 point match with you.", {"allow": frozenset({"bob"})}, False),
    ("alice wants to play a 3 point match with you.", {"allow": frozenset({"alice"})}, True),
    ("alice wants to resume a saved match with you.", {"max_length": 1}, True),
])
def test_invitation_policy(line: str, cfg: dict[str, Any], joins: bool) -> None:
    bot = new_bot(**cfg)
    feed(bot, "login: ", "1 gbot 0 -")
    assert feed(bot, line) == (["join alice"] if joins else [])


def test_busy_bot_ignores_invitations_and_greets() -> None:
    bot = new_bot(greeting="Hi, I am a bot.")
    feed(bot, "login: ", "1 gbot 0 -")
    assert feed(bot, "** Player alice has joined you for a 5 point match.") == \
        ["kibitz Hi, I am a bot."]
    assert feed(bot, "bob wants to play a 1 point match with you.") == []


def test_errors_and_nudges_resync() -> None:
    bot = new_bot()
    in_match(bot)
    line = fibs_line(Position.initial(), (3, 1))
    first = feed(bot, "You roll 3 and 1.", line)
    assert len(first) == 1
    assert feed(bot, "** You can't move to 20 in your first move.") == ["board"]
    assert feed(bot, line) == first          # the same board, answered again after the error
    assert feed(bot, "15 alice move") == ["board"]
    assert feed(bot, "15 bob move") == []    # only the opponent's nudges count
    for _ in range(20):
        feed(bot, "** It's not your turn to move.")
    assert bot._resyncs <= 12                # bounded


def test_malformed_board_is_logged_not_fatal(caplog: pytest.LogCaptureFixture) -> None:
    bot = new_bot()
    in_match(bot)
    line = fibs_line(Position.initial(), (3, 1))
    broken = line.replace(":5:0:3:", ":9:0:3:", 1)
    with caplog.at_level(logging.WARNING, "gbot.fibs"):
        assert feed(bot, "You roll 3 and 1.", broken, line[:60]) == []
    assert bot.malformed == 2 and "malformed board" in caplog.text
    assert len(feed(bot, line)) == 1


def test_saved_match_is_resumed_by_invitation() -> None:
    bot = new_bot()
    in_match(bot, "alice", 7)
    assert feed(bot, "alice drops connection. The game was saved.") == []
    assert bot.match is None and bot.saved == {"alice": 7}
    # "alice" sorts before "gbot": alice may be a bot that invites first; gbot waits 5 s
    assert feed(bot, "5 alice - - 1 0 1500.00 0 0 1 127.0.0.1 x -", "6") == ["show saved"]
    assert bot.tick(4.0) == []
    assert [s.text for s in bot.tick(5.5)] == ["invite alice 7"]
    # not again right away, and never while alice plays someone else
    assert feed(bot, "5 alice - - 1 0 1500.00 0 0 1 127.0.0.1 x -") == []
    assert feed(bot, "alice wants to resume a saved match with you.") == ["join alice"]
    feed(bot, "You are now playing with alice. Your running match was loaded.",
         "turn: gbot.", "match length: 7", "points for user gbot: 2",
         "points for user alice: 3")
    assert bot.match is not None and bot.match.length == 7 and not bot.saved
    # after a resume the board itself says what to do
    assert feed(bot, fibs_line(Position.initial(), (5, 2), length=7, score=(2, 3))) == \
        [first_move(Position.initial(), (5, 2))]


def test_leave_cooldown_and_connection_loss() -> None:
    bot = new_bot()
    in_match(bot, "alice", 5)
    bot.handle_line("** Player alice has left the game. The game was saved.", now=100.0)
    assert bot.saved == {"alice": 5}
    who = "5 alice - - 1 0 1500.00 0 0 1 127.0.0.1 x -"
    assert [s.text for s in bot.handle_line(who, now=150.0)] == []
    bot.handle_line("6", now=150.0)
    assert [s.text for s in bot.handle_line(who, now=500.0)] == []      # see resume_defer
    assert [s.text for s in bot.tick(505.5)] == ["invite alice 5"]
    lost = new_bot()
    in_match(lost, "bob", 3)
    lost.disconnected()
    assert lost.saved == {"bob": 3} and lost.match is None


def test_timers() -> None:
    bot = new_bot(keepalive=100.0, stall=30.0)
    bot.connected(0.0)
    feed(bot, "login: ", "1 gbot 0 -")
    assert bot.tick(50.0) == []
    assert [s.text for s in bot.tick(101.0)] == ["time"]
    bot.handle_line("** You are now playing a 5 point match with alice", now=200.0)
    bot.handle_line("You roll 3 and 1.", now=200.0)
    assert bot.need is Need.MOVE
    assert [s.text for s in bot.tick(240.0)] == ["board"]


def test_request_stop() -> None:
    bot = new_bot()
    feed(bot, "login: ", "1 gbot 0 -")
    assert [s.text for s in bot.request_stop(ExitReason.INTERRUPTED)] == ["bye"]
    assert bot.request_stop() == [] and bot.stop_reason is ExitReason.INTERRUPTED
    assert feed(bot, "alice wants to play a 1 point match with you.") == []


# --- fuzz ---------------------------------------------------------------------------------

_REAL = [
    "alice wants to play a 5 point match with you.", "You roll 3 and 1.",
    "It's your turn. Please roll or double.", "alice doubles. Type 'accept' or 'reject'.",
    "alice wants to resign. You will win 2 points. Type 'accept' or 'reject'.",
    "Please move 2 pieces.", "alice rejects. The game continues.", "You can't move.",
    "You are now playing with alice. Your running match was loaded.", "turn: alice.",
    "5 alice - - 1 0 1500.00 0 0 1 127.0.0.1 x -", "6", "alice moves 13-7 24-23 .",
    "Type 'join' if you want to play the next game, type 'leave' if you don't.",
    "You win the 5 point match 5-3 .", "alice drops connection. The game was saved.",
    "2 gbot 1 1 0 0 0 0 1 1 0 0 0 0 1 1500.00 0 0 0 1 0 UTC", "login: ",
    "15 alice move", "** You can't move to 20 in your first move.",
    fibs_line(Position.initial(), (3, 1)), fibs_line(Position.initial()),
    fibs_line(Position.initial(), pending=True),
    fibs_line(Position.initial(), (6, 6), mine=False, colour=-1),
]


@given(st.lists(st.tuples(st.sampled_from(_REAL), st.integers(0, 120), st.text(max_size=12),
                          st.integers(0, 3)), min_size=1, max_size=40))
@settings(max_examples=250, deadline=None)
def test_fuzzed_server_lines_never_crash(script: list[tuple[str, int, str, int]]) -> None:
    """Hundreds of malformed, truncated and shuffled server lines: never an exception."""
    bot = new_bot()
    in_match(bot)
    for line, cut, junk, how in script:
        variant = (line, line[:cut], line[:cut] + junk + line[cut:],
                   line.replace(":", ":" + junk[:1], 3))[how]
        out = bot.handle_line(variant)
        assert all(isinstance(s.text, str) and "\n" not in s.text for s in out)
        bot.tick(0.0)


# =========================================================================== on the server


class Running:
    """A bot running in a thread: ``rc`` once it stopped; set ``stop`` to log it out."""

    def __init__(self) -> None:
        self.rc: ExitReason | None = None
        self.stop = threading.Event()


@contextmanager
def bot_running(bot: FibsBot, port: int, tries: int = 30, store: Any = None
                ) -> Iterator[Running]:
    run = Running()

    def go() -> None:
        run.rc = run_bot(bot, "127.0.0.1", port, stop=run.stop,
                         reconnect=Reconnect(tries=tries, first=0.05, longest=0.3),
                         store=store)

    t = threading.Thread(target=go, daemon=True)
    t.start()
    try:
        yield run
        t.join(timeout=120)             # the bot logs out by itself after its matches
    finally:
        run.stop.set()
        t.join(timeout=10)


def _errors(lines: list[str]) -> list[str]:
    bad = []
    for ln in lines:
        ev = clip.parse_line(ln)
        if isinstance(ev, clip.ServerError) and ev.kind != "toggle":
            bad.append(ln)
    return bad


def _check_scores(srv: FibsServer, outcome_score: tuple[int, int]) -> None:
    """Every game's points add up to the final score the server announced."""
    totals: dict[str, int] = {}
    for h in srv.history:
        if h[0] == "game" and h[1] is not None:
            totals[str(h[1])] = totals.get(str(h[1]), 0) + int(h[2])  # type: ignore[call-overload]
    res = srv.results[-1]
    assert (totals.get(res.winner, 0), totals.get(res.loser, 0)) == outcome_score


T_RACE = board_of({6: 4, 5: 3, 4: 3, 3: 2, 2: 1}, {6: 4, 5: 4, 4: 3, 3: 2, 2: 1})
"""A race, 73% for the side on roll, no gammons: double and take."""
D_RACE = board_of({6: 2, 5: 3, 4: 3, 3: 2, 2: 2}, {8: 2, 7: 2, 6: 3, 5: 3, 4: 3})
"""A race, 97% for the side on roll, no gammons: double and drop."""
R_LOST = board_of({6: 3, 5: 3, 4: 3, 3: 3, 2: 2}, {1: 1})
"""The side on roll cannot win (exact bear-off), one checker off: resign a single game."""


def _state(board: tuple[int, ...], score: tuple[int, int], length: int) -> MatchState:
    return MatchState(match_length=length, score=score, board=board, player_on_roll=0,
                      player_to_act=0, crawford=length - 1 in score and max(score) < length)


def test_two_bots_play_a_five_point_match() -> None:
    """Two gbot bots with the real engine play a 5-point match on the local server. The first
    three games start from set positions: a race to double and take, a race to double and
    drop, and a lost game to resign. Every cube action and resignation on the wire is the
    engine's own decision, and the match ends with the score the games add up to."""
    engine = Engine(ply=0)
    srv = FibsServer({"alice": "pa", "bob": "pb"}, seed=11).start()
    srv.queue_setup(GameSetup(D_RACE, "bob"))
    srv.queue_setup(GameSetup(R_LOST, "alice"))
    srv.queue_setup(GameSetup(T_RACE, "alice"))
    alice = FibsBot(BotConfig("alice", delay=0, invites=(("bob", 5),), max_matches=1), engine,
                    "pa")
    bob = FibsBot(BotConfig("bob", delay=0, max_matches=1), engine, "pb")
    try:
        with bot_running(alice, srv.port) as ra, bot_running(bob, srv.port) as rb:
            assert srv.wait_for(lambda: bool(srv.results), timeout=240)
        assert ra.rc is ExitReason.FINISHED and rb.rc is ExitReason.FINISHED
        res = srv.results[0]
        assert res.length == 5 and res.score[0] >= 5 > res.score[1]
        assert len(alice.results) == len(bob.results) == 1
        mine = {"alice": alice.results[0], "bob": bob.results[0]}
        assert mine[res.winner].won and mine[res.winner].score == res.score
        assert mine[res.loser].score == (res.score[1], res.score[0])
        _check_scores(srv, res.score)
        assert _errors(srv.sent_to("alice")) == [] and _errors(srv.sent_to("bob")) == []

        games = [h for h in srv.history if h[0] == "game"]
        before = [(0, 0)] + [g[4] for g in games]           # (alice, bob) before each game
        segments: list[list[tuple[object, ...]]] = [[]]      # the events of each game
        for h in srv.history:
            if h[0] == "game":
                segments.append([])
            elif h[0] != "start":
                segments[-1].append(h)

        def expect_cube(game: int, board: tuple[int, ...], score: tuple[int, int],
                        doubler: str, taker: str) -> None:
            seen = [h[:2] for h in segments[game] if h[0] in ("double", "take", "drop")]
            st = _state(board, score, 5)
            if engine.cube_action(Position(board), st) != "double":
                return        # later doubles in the game are checked with every decision below
            answer = engine.respond_double(Position(board).swapped(),
                                           replace(st, double_offered=True, player_to_act=1))
            assert seen[:2] == [("double", doubler),
                                ("drop" if answer == "drop" else "take", taker)]

        # game 1: bob on roll in D_RACE at 0-0
        expect_cube(0, D_RACE, (0, 0), "bob", "alice")
        # game 2: alice on roll in R_LOST, resigns when the engine says so; bob answers
        st2 = _state(R_LOST, before[1], 5)
        offer = engine.resign_offer(Position(R_LOST), st2)
        res2 = [h[:2] for h in segments[1] if "resign" in str(h[0])]
        if offer:
            yes = engine.accept_resignation(Position(R_LOST).swapped(),
                                            replace(st2, player_to_act=1), offer)
            assert res2[:2] == [("resign", "alice"),
                                ("accept_resign" if yes else "reject_resign", "bob")]
        else:
            assert ("resign", "alice") not in res2[:1]
        # game 3 (if the match is still on and not at the Crawford score): T_RACE
        if len(games) >= 3 and max(before[2]) < 4:
            expect_cube(2, T_RACE, before[2], "alice", "bob")
        # the decisions the bots logged replay identically with the engine
        for bot in (alice, bob):
            for d in bot.decisions:
                if d.kind == "move":
                    fb = parse_fibs_board(d.board, "fibs")
                    play = engine.choose_play(fb.position, fb.dice)
                    assert play is not None and fibs_move(play, fb.colour) == d.command
                elif d.kind == "cube":
                    fb = parse_fibs_board(d.board, "fibs")
                    assert engine.cube_action(fb.position, fb.state) == d.command
        if engine.evaluator is not None:     # a trained engine doubles, drops and resigns here
            kinds = [h[0] for h in srv.history]
            assert "take" in kinds and "drop" in kinds and "resign" in kinds
    finally:
        srv.stop()


class _Human:
    """A scripted human on a raw socket: checks every board line and every reply."""

    def __init__(self, port: int, name: str, password: str, bot: str) -> None:
        self.c = LineClient(port, timeout=60)
        self.name, self.bot = name, bot
        self.c.login(name, password)
        self.board: FibsBoard | None = None
        self.rng = random.Random(5)
        self.boards = 0

    def check_board(self, line: str) -> FibsBoard:
        fb = parse_fibs_board(line, "fibs")     # raises on any malformed or impossible line
        assert fb.names[0] == "You" or fb.names[1] == "You"
        assert self.bot in fb.names
        self.boards += 1
        self.board = fb
        return fb

    def my_view(self) -> Position:
        fb = self.board
        assert fb is not None
        return fb.position if fb.me_player1 else fb.position.swapped()

    def move(self, fb: FibsBoard) -> None:
        plays = fb.position.legal_plays(fb.dice)
        if not plays:
            return
        play = self.rng.choice(plays)
        words = []
        for a, b in play.steps:
            def pt(p: int, src: bool) -> str:
                if p == 25 and src:
                    return "bar"
                if p == 0 and not src:
                    return "off"
                return str(p if fb.colour > 0 else 25 - p)
            words.append(f"{pt(a, True)}-{pt(b, False)}")
        self.c.send("move " + " ".join(words))


def test_scripted_human_plays_gbot() -> None:
    """A raw-socket "human" plays a 3-point match against gbot (real engine). It checks every
    board line, that each move gbot echoes is a legal play of its dice from the last board,
    that gbot answers a double and a resignation exactly once each, and that gbot never
    receives an error from the server."""
    engine = Engine(ply=0)
    srv = FibsServer({"gbot": "pg", "carol": "pc"}, seed=7, ready=["gbot"]).start()
    srv.queue_setup(GameSetup(R_LOST, "carol"))
    srv.queue_setup(GameSetup(T_RACE, "carol"))
    bot = FibsBot(BotConfig("gbot", delay=0, max_matches=1, max_length=3), engine, "pg")
    try:
        with bot_running(bot, srv.port) as rb:
            assert srv.wait_for(lambda: "gbot" in srv.online(), 60)
            h = _Human(srv.port, "carol", "pc", "gbot")
            h.c.send("invite gbot 3")
            h.c.expect(r"\*\* Player gbot has joined you for a 3 point match\.")
            h.c.send("toggle moreboards")
            answers: list[str] = []
            doubled = resigned = pending = False
            after = ""
            bot_dice: tuple[int, int] | None = None
            games = 0
            for _ in range(5000):
                line = h.c.next_line(60)
                ev = clip.parse_line(line)
                turn_starts = isinstance(ev, clip.RollOrDouble) or (
                    isinstance(ev, clip.Rolled) and ev.name is None)
                if isinstance(ev, clip.BoardLine):
                    fb = h.check_board(line)
                    if fb.me_player1 and fb.question == "move" and not pending:
                        h.move(fb)
                elif turn_starts and games == 0 and not resigned:
                    assert h.my_view() == Position(R_LOST)
                    resigned = pending = True
                    after = "roll" if isinstance(ev, clip.RollOrDouble) else "move"
                    h.c.send("resign n")
                elif isinstance(ev, clip.RollOrDouble):
                    first = games == 1 and not doubled and h.my_view() == Position(T_RACE)
                    h.c.send("double" if first else "roll")
                    doubled = doubled or first
                elif isinstance(ev, clip.Rolled) and ev.name == "gbot":
                    bot_dice = ev.dice
                elif isinstance(ev, clip.Doubles):
                    assert ev.name == "gbot" and ev.must_answer
                    h.c.send("accept")
                elif isinstance(ev, clip.Moves):
                    assert ev.name == "gbot" and bot_dice is not None and h.board is not None
                    before = h.my_view().swapped()        # gbot's view before its move
                    colour = -h.board.colour if h.board.me_player1 else h.board.colour
                    steps = parse_fibs_steps([f"{a}-{b}" for a, b in ev.steps], colour)
                    assert steps is not None
                    after_b, problem = apply_steps(before.board, steps, bot_dice)
                    assert problem is None, (line, problem)
                    legal = {p.position for p in before.legal_plays(bot_dice)}
                    assert Position(after_b.astype(np.int8)) in legal, line
                    bot_dice = None
                elif isinstance(ev, clip.DoubleAccepted) and ev.name == "gbot":
                    answers.append("take")
                elif isinstance(ev, clip.GiveUp) and ev.loser == "gbot":
                    answers.append("drop")
                elif isinstance(ev, clip.ResignAccepted) and ev.name == "gbot":
                    answers.append("resign accepted")
                    pending = False
                elif isinstance(ev, clip.ResignRejected) and ev.name == "gbot":
                    answers.append("resign rejected")
                    pending = False
                    if after == "roll":
                        h.c.send("roll")
                    elif h.board is not None and h.board.me_player1:
                        h.move(h.board)
                elif isinstance(ev, clip.JoinPrompt):
                    games += 1
                    h.c.send("join")
                elif isinstance(ev, clip.MatchWon):
                    break
            else:
                pytest.fail("the match did not end")
            assert srv.wait_for(lambda: "gbot" not in srv.online(), 30)
        assert rb.rc is ExitReason.FINISHED
        assert _errors(srv.sent_to("gbot")) == []
        assert h.boards > 20
        # one answer to the double and one to the resignation, as the engine decides
        st1 = _state(T_RACE, (0, 1), 3)
        want = engine.respond_double(Position(T_RACE).swapped(),
                                     replace(st1, double_offered=True, player_to_act=1))
        assert doubled and answers[1] == ("drop" if want == "drop" else "take")
        assert resigned and answers[0].startswith("resign")
        assert len([a for a in answers if a.startswith("resign")]) == 1
        take_decisions = [d for d in bot.decisions if d.kind == "take"]
        resign_decisions = [d for d in bot.decisions if d.kind == "accept_resignation"]
        assert len(take_decisions) == 1 and len(resign_decisions) == 1
        res = srv.results[0]
        assert list(bot.results)[0].score == (res.score if res.winner == "gbot"
                                              else (res.score[1], res.score[0]))
        _check_scores(srv, res.score)
        h.c.close()
    finally:
        srv.stop()


def test_disconnect_mid_match_reconnects_and_resumes() -> None:
    """bob's connection is cut in the middle of a game; bob reconnects with backoff, the saved
    match is resumed at the same score and position, and the match completes correctly."""
    engine = Engine(ply=0)
    srv = FibsServer({"alice": "pa", "bob": "pb"}, seed=3).start()
    alice = FibsBot(BotConfig("alice", delay=0, invites=(("bob", 3),), max_matches=1), engine,
                    "pa")
    bob = FibsBot(BotConfig("bob", delay=0, max_matches=1), engine, "pb")
    try:
        with bot_running(alice, srv.port) as ra, bot_running(bob, srv.port) as rb:
            assert srv.wait_for(lambda: "alice" in srv.matches and
                                srv.matches["alice"].state.turn >= 7, 120)
            with srv._lock:
                m = srv.matches["alice"]
                at_drop = (m.state.score, m.state.board, m.state.game_number)
                srv.drop("bob")
            assert srv.wait_for(lambda: any(h[0] == "resume" for h in srv.history), 60)
            assert srv.wait_for(lambda: bool(srv.results), 240)
        assert ra.rc is ExitReason.FINISHED and rb.rc is ExitReason.FINISHED
        saved = [h for h in srv.history if h[0] == "saved"]
        resumed = [h for h in srv.history if h[0] == "resume"]
        assert len(saved) == 1 and len(resumed) == 1
        assert saved[0][3] == at_drop[0] and resumed[0][3] == at_drop[0]
        assert bob.logins == 2 and alice.logins == 1
        res = srv.results[0]
        assert res.length == 3 and res.score[0] >= 3
        mine = {"alice": alice.results[0], "bob": bob.results[0]}
        assert mine[res.winner].score == res.score
        _check_scores(srv, res.score)
        assert _errors(srv.sent_to("alice")) == [] and _errors(srv.sent_to("bob")) == []
    finally:
        srv.stop()


def test_password_never_logged(caplog: pytest.LogCaptureFixture) -> None:
    srv = FibsServer({"gbot": "pw-Zq81x"}, seed=1).start()
    bot = FibsBot(BotConfig("gbot", delay=0), StubEngine(), "pw-Zq81x")
    try:
        with caplog.at_level(logging.DEBUG, "gbot.fibs"):
            with bot_running(bot, srv.port) as r:
                assert srv.wait_for(lambda: "gbot" in srv.online(), 30)
                assert srv.wait_for(lambda: any("toggle" in x or "Value of" in x
                                                for x in srv.sent_to("gbot")), 30)
                r.stop.set()
                assert srv.wait_for(lambda: "gbot" not in srv.online(), 30)
        assert r.rc is ExitReason.INTERRUPTED
        assert "login gbot 1008 gbot ****" in caplog.text
        assert "pw-Zq81x" not in caplog.text and "pw-Zq81x" not in repr(bot)
    finally:
        srv.stop()


def test_bad_password_exit_status() -> None:
    srv = FibsServer({"gbot": "right"}, seed=1).start()
    bot = FibsBot(BotConfig("gbot", delay=0), StubEngine(), "wrong")
    try:
        assert run_bot(bot, "127.0.0.1", srv.port, reconnect=Reconnect(tries=2, first=0.05)) \
            is ExitReason.LOGIN_FAILED
    finally:
        srv.stop()
    # nothing listens: the connection attempts run out
    assert run_bot(new_bot(), "127.0.0.1", srv.port,
                   reconnect=Reconnect(tries=2, first=0.01)) is ExitReason.CONNECTION_LOST


def test_board_helper_matches_the_server_frame() -> None:
    line = fibs_line(Position(START), (3, 1), colour=-1)
    fb = parse_fibs_board(line, "fibs")
    assert fb.colour == -1 and fb.position == Position(START)
    theirs = fibs_line(Position(flip_py(START)), (6, 5), mine=False, colour=1)
    assert theirs.startswith("board:You:alice:")      # player 1 is always the client
    fb = parse_fibs_board(theirs, "fibs")
    assert not fb.me_player1 and fb.names == ("alice", "You") and fb.dice == (6, 5)


# =========================================================================== the command


def _gbot_fibs(port: int, *args: str, password: str = "pg") -> subprocess.Popen[str]:
    env = dict(os.environ, GBOT_FIBS_PASSWORD=password)
    return subprocess.Popen(
        [sys.executable, "-m", "gbot.cli", "fibs", "--host", "127.0.0.1", "--port", str(port),
         "--user", "gbot", "--delay", "0", "--reconnect-tries", "3", *args],
        cwd=Path(__file__).resolve().parents[1], env=env, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)


def test_gbot_fibs_command_plays_a_match(tmp_path: Path) -> None:
    """``gbot fibs`` in its own process plays a match and exits 0 (``--record-dir``: the
    match file replays to the final score); SIGTERM logs out (5)."""
    srv = FibsServer({"gbot": "pg", "carol": "pc"}, seed=4, ready=["gbot"]).start()
    carol = FibsBot(BotConfig("carol", delay=0, invites=(("gbot", 3),), max_matches=1),
                    Engine(ply=0), "pc")
    try:
        proc = _gbot_fibs(srv.port, "--max-matches", "1", "--greeting", "Hello from gbot",
                          "--record-dir", str(tmp_path / "rec"))
        with bot_running(carol, srv.port) as rc:
            assert srv.wait_for(lambda: bool(srv.results), 180)
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err[-2000:]
        assert rc.rc is ExitReason.FINISHED
        assert "1 match(es) played" in err and "pg" not in err.split()
        assert "15 gbot Hello from gbot" in srv.sent_to("carol")
        res = srv.results[0]
        assert res.length == 3 and "gbot" in (res.winner, res.loser)
        assert (f"won 3-point match against carol {res.score[0]}-{res.score[1]}" in err) == \
            (res.winner == "gbot")
        from gbot.records import matfile
        (mat,) = (tmp_path / "rec").glob("*_carol-gbot_3p.mat")
        rec = matfile.read(mat)
        assert dict(zip(rec.names, rec.final_score, strict=True)) == {
            res.winner: res.score[0], res.loser: res.score[1]}
        # a second run, stopped by SIGTERM while waiting for invitations
        proc = _gbot_fibs(srv.port)
        assert srv.wait_for(lambda: srv.sent_to("gbot").count(
            "Value of 'boardstyle' set to 3.") == 2 and "gbot" in srv.online(), 60)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
        assert proc.returncode == int(ExitReason.INTERRUPTED), err[-2000:]
        assert "stopped: interrupted" in err
    finally:
        srv.stop()


def test_gbot_fibs_refused_login_and_prompt() -> None:
    from click.testing import CliRunner

    from gbot.cli import main

    srv = FibsServer({"gbot": "right"}).start()
    try:
        base = ["fibs", "--host", "127.0.0.1", "--port", str(srv.port), "--user", "gbot",
                "--password-env", "GBOT_TEST_UNSET_VARIABLE", "--reconnect-tries", "1"]
        result = CliRunner().invoke(main, base, input="wrong\n")
        assert result.exit_code == int(ExitReason.LOGIN_FAILED)
        assert "wrong" not in result.output.replace("password for gbot", "")
        with pytest.raises(SystemExit):
            main(["fibs", "--user", "gbot", "--password", "x"], standalone_mode=True)
    finally:
        srv.stop()


def test_prompt_without_a_matching_board_asks_for_one() -> None:
    bot = new_bot()
    in_match(bot)
    # "Please move" while the latest board shows no dice of mine: one board request
    feed(bot, fibs_line(Position.initial(), mine=False, colour=-1))
    assert feed(bot, "You roll 3 and 1.", "Please move 2 pieces.") == ["board"]
    assert feed(bot, "Please move 2 pieces.") == []
    out = feed(bot, fibs_line(Position.initial(), (3, 1)))
    assert out == [first_move(Position.initial(), (3, 1))]
    # the usual order (board, then prompt) asks nothing
    feed(bot, fibs_line(Position.initial(), mine=False, colour=-1))
    assert feed(bot, fibs_line(Position.initial()),
                "It's your turn. Please roll or double.") == ["roll"]


# ============================================================ servers that are not FIBS


def crawford_line(pos: Position, dice: tuple[int, int] = (0, 0), **kw: Any) -> str:
    """A board of the Crawford game of a 3-point match at 2-1 (nobody may double; the score
    is the answering side's first)."""
    kw.setdefault("score", (2, 1))
    return fibs_line(pos, dice, length=3, crawford=True, **kw)


def test_crawford_board_without_prompt_or_roll_is_acted_on() -> None:
    """BaldLies in the Crawford game: a board puts me on turn with no dice, and no prompt or
    roll follows. Nobody may double there, so no prompt is due: after the short
    ``crawford_settle`` (not the 5 s ``settle``) the bot rolls itself, once."""
    eng = StubEngine()
    bot = new_bot(eng, settle=5.0)
    bot.connected(0.0)
    in_match(bot, "alice", 3)
    assert bot.handle_line(crawford_line(Position.initial(), mine=False, colour=-1,
                                         score=(1, 2)), now=1.0) == []
    fb = parse_fibs_board(crawford_line(Position.initial()), "fibs")
    assert fb.crawford_game and not fb.state.may_double(fb.state.player_to_act)
    assert bot.handle_line(crawford_line(Position.initial()), now=10.0) == []
    assert bot.tick(10.1) == []
    assert [s.text for s in bot.tick(10.3)] == ["roll"]
    assert bot.tick(30.0) == [] and bot.tick(40.0) == []
    # the server then rolls as asked: the bot moves
    out = [s.text for s in bot.handle_line("You roll 3 and 1.", now=41.0)]
    out += [s.text for s in bot.handle_line(crawford_line(Position.initial(), (3, 1)),
                                            now=41.0)]
    assert out == [first_move(Position.initial(), (3, 1))]
    assert [c[0] for c in eng.calls if c[0] != "resign"] == ["play"]   # no cube question


def test_real_fibs_auto_roll_is_not_preempted() -> None:
    """FIBS itself rolls for me in the Crawford game at once: no extra ``roll`` is sent."""
    bot = new_bot(settle=5.0)
    bot.connected(0.0)
    in_match(bot, "alice", 3)
    assert bot.handle_line(crawford_line(Position.initial()), now=10.0) == []
    bot.handle_line("You roll 3 and 1.", now=10.1)
    out = bot.handle_line(crawford_line(Position.initial(), (3, 1)), now=10.1)
    assert [s.text for s in out] == [first_move(Position.initial(), (3, 1))]
    assert bot.tick(20.0) == [] and bot.tick(60.0) == []


def test_pending_double_and_cube_turn_without_prompt_are_answered() -> None:
    eng = StubEngine(take="drop", cube="double")
    bot = new_bot(eng, settle=2.0)
    bot.connected(0.0)
    in_match(bot, "alice", 5)
    assert bot.handle_line(fibs_line(Position.initial(), pending=True), now=5.0) == []
    assert [s.text for s in bot.tick(7.5)] == ["reject"]
    bot2 = new_bot(StubEngine(cube="double"), settle=2.0)
    bot2.connected(0.0)
    in_match(bot2, "alice", 5)
    assert bot2.handle_line(fibs_line(Position.initial()), now=5.0) == []
    assert [s.text for s in bot2.tick(7.5)] == ["double"]


def test_watchdog_asks_for_the_board_when_a_match_is_quiet() -> None:
    """Nothing pending and nothing heard for ``stall`` seconds in a match: ask for the board."""
    bot = new_bot(stall=60.0, keepalive=0.0)
    bot.connected(0.0)
    in_match(bot, "alice", 3)
    bot.handle_line(fibs_line(Position.initial(), mine=False, colour=-1), now=1.0)
    assert bot.need is None
    assert bot.tick(50.0) == []
    assert [s.text for s in bot.tick(62.0)] == ["board"]
    assert bot.tick(100.0) == []


def test_show_saved_at_login_and_reinvite() -> None:
    """A restarted bot knows nothing; ``show saved`` tells it, and it invites the opponent."""
    bot = new_bot()
    feed(bot, "login: ", "1 gbot 0 -")
    assert feed(bot, "5 alice - - 0 0 1500.00 0 0 1 127.0.0.1 x -", "6") == ["show saved"]
    assert feed(bot, clip.SavedHeader().line(), clip.SavedMatchRow("alice", 5, 2, 3).line(),
                clip.SavedMatchRow("bob", 0, 1, 0).line()) == []
    assert bot.saved == {"alice": 5, "bob": 0}
    assert [s.text for s in bot.tick(5.5)] == ["invite alice 5"]    # after resume_defer
    # the server's list replaces what the bot remembered
    feed(bot, " opponent          matchlength   score (your points first)",
         "  *carol                 3               0 -  1")
    assert bot.saved == {"carol": 3}
    feed(bot, "no saved games.")
    assert bot.saved == {}


def test_refused_invitation_is_retried_with_backoff() -> None:
    bot = new_bot(invites=(("alice", 3),), invite_interval=30.0, invite_backoff_max=100.0,
                  keepalive=0.0)
    bot.connected(0.0)
    feed(bot, "login: ", "1 gbot 0 -")
    who = "5 alice - - 1 0 1500.00 0 0 1 127.0.0.1 x -"
    assert [s.text for s in bot.handle_line(who, now=0.0)] == []
    assert [s.text for s in bot.handle_line("6", now=0.0)] == ["show saved", "invite alice 3"]
    bot.handle_line("** alice is refusing games.", now=0.5)
    sent = [t for t in range(1, 400) for s in bot.tick(float(t)) if s.text == "invite alice 3"]
    assert sent == [30, 90, 190, 290, 390]       # waits 30, 60, 100 (the cap), 100, ...
    bot.handle_line("** You are now playing a 3 point match with alice", now=400.0)
    assert not [s for t in range(401, 900, 7) for s in bot.tick(float(t))
                if s.text.startswith("invite")]


def test_resumed_match_of_unknown_length_is_not_logged_unlimited(
        caplog: pytest.LogCaptureFixture) -> None:
    bot = new_bot()
    feed(bot, "login: ", "1 gbot 0 -")
    with caplog.at_level(logging.INFO, "gbot.fibs"):
        feed(bot, "You are now playing with alice. Your running match was loaded.",
             "turn: gbot.", "match length: 3", "points for user gbot: 1",
             "points for user alice: 0")
    assert "unlimited" not in caplog.text
    assert "alice is 3 points long" in caplog.text
    assert bot.match is not None and bot.match.length == 3


def test_saved_store_round_trip_and_bad_files(tmp_path: Path) -> None:
    from gbot.adapters.fibs.client import SavedStore

    store = SavedStore(tmp_path / "sub" / "saved.json")
    assert store.load() == {}
    store.save({"alice": 5, "bob": 0})
    assert SavedStore(store.path).load() == {"alice": 5, "bob": 0}
    for text in ("not json", "[1, 2]", '{"saved": 3}',
                 '{"saved": {"x y": 1, "ok": -1, "fine": true}}'):
        store.path.write_text(text)
        assert store.load() == {}


class _EchoLoginServer(FibsServer):
    """Echoes every line before login back (as a confused server might), password included."""

    echoed: list[str] = []

    def _login(self, conn: Any, text: str) -> None:
        self.echoed.append(text)
        conn.send(f"** Unknown command: {text}")
        conn.send(f"12 alice says: your login was {text}")
        super()._login(conn, text)


def test_password_masked_in_echoed_server_lines(caplog: pytest.LogCaptureFixture) -> None:
    srv = _EchoLoginServer({"gbot": "pw-Zq81x", "alice": "pa"}, seed=1).start()
    bot = FibsBot(BotConfig("gbot", delay=0), StubEngine(), "pw-Zq81x")
    try:
        with caplog.at_level(logging.DEBUG, "gbot.fibs"):
            with bot_running(bot, srv.port) as r:
                assert srv.wait_for(lambda: any("Value of" in x for x in srv.sent_to("gbot")),
                                    30)
                r.stop.set()
                assert srv.wait_for(lambda: "gbot" not in srv.online(), 30)
        assert "login gbot 1008 gbot pw-Zq81x" in srv.echoed      # the server did echo it
        assert "Unknown command: login gbot 1008 gbot ****" in caplog.text
        assert "pw-Zq81x" not in caplog.text
    finally:
        srv.stop()


def test_verbose_is_debug_for_gbot_loggers_only(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """``-v``: gbot's own DEBUG lines reach the log; other libraries' (numba) do not."""
    from click.testing import CliRunner

    import gbot.adapters.fibs.client as fc
    from gbot.cli import main

    def fake_run(bot: FibsBot, *a: Any, **k: Any) -> ExitReason:
        logging.getLogger("numba.core.ssa").debug("NUMBA-NOISE")
        logging.getLogger("gbot.fibs").debug("GBOT-DETAIL")
        return ExitReason.FINISHED

    monkeypatch.setattr(fc, "run_bot", fake_run)
    monkeypatch.setenv("GBOT_FIBS_PASSWORD", "pw")
    log_file = tmp_path / "bot.log"
    before = logging.getLogger("gbot").level      # another command may have set it earlier
    res = CliRunner().invoke(main, ["fibs", "--user", "gbot", "-v", "--log", str(log_file)])
    assert res.exit_code == 0, res.output
    text = log_file.read_text()
    assert "GBOT-DETAIL" in text and "NUMBA-NOISE" not in text
    assert logging.getLogger("gbot").level == before      # restored afterwards


def test_bad_log_path_is_one_line_error() -> None:
    from click.testing import CliRunner

    from gbot.cli import main

    res = CliRunner().invoke(main, ["fibs", "--user", "gbot", "--log", "/nonexistent/x.log"],
                             env={"GBOT_FIBS_PASSWORD": "pw"})
    assert res.exit_code == 2 and res.exception is not None
    assert isinstance(res.exception, SystemExit)
    assert "/nonexistent/x.log" in res.output and "Traceback" not in res.output


# --- on the test doubles ------------------------------------------------------------------


def test_crawford_game_on_a_server_that_neither_prompts_nor_rolls() -> None:
    """Two bots finish a 3-point match whose first game is the Crawford game (2-1) on a
    server that, like BaldLies, sends a board and nothing else to the player on roll."""
    from gbot.testing.fibs_doubles import CrawfordStallServer

    srv = CrawfordStallServer({"alice": "pa", "bob": "pb"}, seed=5, first_score=(2, 1)).start()
    alice = FibsBot(BotConfig("alice", delay=0, settle=0.1, invites=(("bob", 3),),
                              max_matches=1), StubEngine(), "pa")
    bob = FibsBot(BotConfig("bob", delay=0, settle=0.1, max_matches=1), StubEngine(), "pb")
    try:
        with bot_running(alice, srv.port) as ra, bot_running(bob, srv.port) as rb:
            assert srv.wait_for(lambda: bool(srv.results), 240), srv.history[-5:]
        assert ra.rc is ExitReason.FINISHED and rb.rc is ExitReason.FINISHED
        assert srv.silent_turns > 4
        res = srv.results[0]
        assert res.length == 3 and res.score[0] == 3
        assert _errors(srv.sent_to("alice")) == [] and _errors(srv.sent_to("bob")) == []
    finally:
        srv.stop()


def _restart_mid_match(srv: FibsServer, make: Callable[[], tuple[FibsBot, FibsBot]],
                       stores: dict[str, Any] | None = None) -> tuple[FibsBot, FibsBot]:
    """alice and bob start a 3-point match; both processes stop mid-game (clean logout:
    the server saves the match); two new bots with empty memories take over."""
    alice, bob = make()
    alice.config.invites = (("bob", 3),)
    st = stores or {}
    with bot_running(alice, srv.port, store=st.get("alice")) as ra, \
            bot_running(bob, srv.port, store=st.get("bob")) as rb:
        assert srv.wait_for(lambda: "alice" in srv.matches and
                            srv.matches["alice"].state.turn >= 6, 180)
        ra.stop.set()
        rb.stop.set()
        assert srv.wait_for(lambda: not srv.online(), 60)
    assert srv.saved and not srv.matches
    return make()


def _finish(srv: FibsServer, alice: FibsBot, bob: FibsBot,
            stores: dict[str, Any] | None = None) -> None:
    # a command in flight when the first bot stopped may have met "You're not playing":
    # only the second run's lines are checked for errors
    mark = {n: len(srv.sent_to(n)) for n in ("alice", "bob")}
    st = stores or {}
    with bot_running(alice, srv.port, store=st.get("alice")) as ra, \
            bot_running(bob, srv.port, store=st.get("bob")) as rb:
        assert srv.wait_for(lambda: bool(srv.results), 240), srv.history[-5:]
    assert ra.rc is ExitReason.FINISHED and rb.rc is ExitReason.FINISHED
    assert [h[0] for h in srv.history].count("resume") == 1
    assert srv.results[0].length == 3 and srv.results[0].score[0] == 3
    for name in ("alice", "bob"):       # a server without 'show' says so; nothing else
        assert [e for e in _errors(srv.sent_to(name)[mark[name]:]) if "'show'" not in e] == []


def test_restarted_bots_resume_the_saved_match_from_show_saved() -> None:
    srv = FibsServer({"alice": "pa", "bob": "pb"}, seed=2).start()

    def make() -> tuple[FibsBot, FibsBot]:
        return (FibsBot(BotConfig("alice", delay=0, max_matches=1), StubEngine(), "pa"),
                FibsBot(BotConfig("bob", delay=0, max_matches=1), StubEngine(), "pb"))

    try:
        alice, bob = _restart_mid_match(srv, make)
        assert not alice.saved and not bob.saved           # the memory is gone
        _finish(srv, alice, bob)
    finally:
        srv.stop()


def test_restarted_bots_resume_from_their_state_files(tmp_path: Path) -> None:
    """The server cannot list saved matches: the state file is all a restarted bot has."""
    from gbot.adapters.fibs.client import SavedStore
    from gbot.testing.fibs_doubles import NoSavedListServer

    srv = NoSavedListServer({"alice": "pa", "bob": "pb"}, seed=2).start()
    stores = {n: SavedStore(tmp_path / f"{n}.json") for n in ("alice", "bob")}

    def make() -> tuple[FibsBot, FibsBot]:
        return (FibsBot(BotConfig("alice", delay=0, max_matches=1), StubEngine(), "pa"),
                FibsBot(BotConfig("bob", delay=0, max_matches=1), StubEngine(), "pb"))

    try:
        alice, bob = _restart_mid_match(srv, make, stores)
        assert stores["alice"].load() == {"bob": 3} and stores["bob"].load() == {"alice": 3}
        assert not alice.saved and not bob.saved
        _finish(srv, alice, bob, stores)
        assert stores["alice"].load() == {} and stores["bob"].load() == {}
    finally:
        srv.stop()
