"""The local FIBS-compatible server (gbot.testing.fibs_server) through raw sockets: CLIP
login and the numbered messages, chat, toggles, invitations, the game flow with FIBS's lines,
move validation wording, the cube with Crawford, resignations, game and match end, saved
matches and their resumption, and seeded dice. Lines are checked against the shapes in
../shared/spec/fibs-clip.md (the same shapes gbot.adapters.fibs.clip parses)."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from gbot.adapters.fibs import clip
from gbot.adapters.fibs.client import fibs_move
from gbot.game.notations.fibs_board import FibsBoard, parse_fibs_board
from gbot.testing.fibs_server import (
    FibsServer,
    GameSetup,
    LineClient,
    apply_steps,
    parse_fibs_steps,
)
from tests.handboards import board_of_own as board_of

ROOT = Path(__file__).resolve().parents[1]




@pytest.fixture
def server() -> Iterator[FibsServer]:
    srv = FibsServer({"alice": "pa", "bob": "pb", "carol": "pc"}, seed=1,
                     ready=["bob", "carol"]).start()
    yield srv
    srv.stop()


def exact(c: LineClient, line: str, timeout: float = 20.0) -> None:
    c.expect(re.escape(line), timeout)


def pair(srv: FibsServer, length: int = 3) -> tuple[LineClient, LineClient]:
    """alice invites bob to a match; both logged in, the match started."""
    a, b = LineClient(srv.port), LineClient(srv.port)
    a.login("alice", "pa")
    b.login("bob", "pb")
    a.send(f"invite bob {length}")
    exact(b, f"alice wants to play a {length} point match with you.")
    exact(b, "Type 'join alice' to accept.")
    b.send("join alice")
    exact(b, f"** You are now playing a {length} point match with alice")
    exact(a, f"** Player bob has joined you for a {length} point match.")
    return a, b


def next_board(c: LineClient, timeout: float = 20.0) -> FibsBoard:
    return parse_fibs_board(c.expect(r"board:.*", timeout).group(0), "fibs")


# --- login and CLIP messages -------------------------------------------------------------


def test_clip_login_sequence(server: FibsServer) -> None:
    a = LineClient(server.port)
    a.expect("login: ")
    a.send("login test_client 1008 alice wrong")
    exact(a, "login: ")
    assert bytes(a.raw).endswith(b"\xff\xfc\x01login: ")     # IAC WONT ECHO, a new prompt
    a.send("login test_client 1008 alice pa")
    got = [a.next_line() for _ in range(3)]
    assert re.fullmatch(r"1 alice [0-9]+ \S+", got[0])
    own = clip.parse_line(got[1])
    assert isinstance(own, clip.OwnInfo) and own.name == "alice" and len(own.values) == 20
    assert own.get("rating") == "1500.00" and own.get("timezone") == "UTC"
    assert got[2] == "3"
    rest = got[3:] + a.drain()
    i4 = rest.index("4")
    who = rest[i4 + 1:]
    assert who[-1] == "6" and all(isinstance(clip.parse_line(w), clip.WhoInfo)
                                  for w in who[:-1])
    # others hear about the login (7, then a fresh 5/6) and the logout (8)
    b = LineClient(server.port)
    b.login("bob", "pb")
    exact(a, "7 bob bob logs in.")
    m = a.expect(r"5 bob - - 1 0 1500\.00 0 0 [0-9]+ 127\.0\.0\.1 test_client -")
    assert m
    exact(a, "6")
    b.send("bye")
    exact(b, "           Goodbye.")
    exact(a, "8 bob bob logs out.")


def test_three_failed_logins_close_the_connection(server: FibsServer) -> None:
    c = LineClient(server.port, timeout=5)
    c.expect("login: ")
    for _ in range(3):
        c.send("login x 1008 alice nope")
    with pytest.raises((ConnectionError, TimeoutError)):
        for _ in range(10):
            c.next_line(2)


def test_second_login_replaces_the_first(server: FibsServer) -> None:
    first = LineClient(server.port, timeout=5)
    first.login("alice", "pa")
    second = LineClient(server.port)
    second.expect("login: ")
    second.send("login x 1008 alice pa")
    exact(second, "** Warning: You are already logged in.")
    second.expect("6")
    with pytest.raises((ConnectionError, TimeoutError)):
        for _ in range(50):
            first.next_line(2)
    assert server.online() == ["alice"]


def test_chat_lines_match_the_spec(server: FibsServer) -> None:
    a, b = LineClient(server.port), LineClient(server.port)
    a.login("alice", "pa")
    b.login("bob", "pb")
    a.send("tell bob hello there")
    exact(a, "16 bob hello there")
    exact(b, "12 alice hello there")
    a.send("shout hi all")
    exact(a, "17 hi all")
    exact(b, "13 alice hi all")
    a.send("tell nobody hi")
    exact(a, "** There is no one called nobody.")
    a.send("message carol see you")
    exact(a, "11 carol")
    c = LineClient(server.port)
    lines = c.login("carol", "pc")
    assert any(re.fullmatch(r"9 alice [0-9]+ see you", x) for x in lines)
    a.send("message carol again")
    exact(a, "10 carol")
    c.expect(r"9 alice [0-9]+ again")


def test_toggles_and_settings(server: FibsServer) -> None:
    a = LineClient(server.port)
    a.login("alice", "pa")
    for name, line in (("ready", "** You're now ready to invite or join someone."),
                       ("notify", "** You won't be notified when new users log in."),
                       ("report", "** You won't be informed about starting and ending matches."),
                       ("silent", "** You won't hear what other players shout."),
                       ("moreboards", "** Will send rawboards after rolling."),
                       ("double", "** You won't be asked if you want to double."),
                       ("greedy", "** Will use automatic greedy bearoffs."),
                       ("ready", "** You're now refusing to play with someone.")):
        a.send(f"toggle {name}")
        exact(a, line)
        assert isinstance(clip.parse_line(line), clip.ServerError)
    a.send("toggle")
    exact(a, "The current settings are:")
    listing = [clip.parse_line(a.next_line()) for _ in clip.TOGGLES]
    assert [t.name for t in listing if isinstance(t, clip.ToggleState)] == list(clip.TOGGLES)
    a.send("set boardstyle 3")
    exact(a, "Value of 'boardstyle' set to 3.")
    a.send("frobnicate")
    exact(a, "** Unknown command: 'frobnicate'")
    a.send("rawwho")
    a.expect(r"5 alice .*")
    exact(a, "6")


def test_invitation_errors(server: FibsServer) -> None:
    a = LineClient(server.port)
    a.login("alice", "pa")
    c = LineClient(server.port)
    c.login("carol", "pc")
    a.send("invite alice 3")
    exact(a, "** You can't invite yourself.")
    a.send("invite zorro 3")
    exact(a, "** There is no one called zorro.")
    c.send("invite alice 3")
    exact(c, "** alice is refusing games.")
    c.send("join alice")
    exact(c, "** alice didn't invite you.")
    a.send("invite carol")
    exact(a, "** You invited carol to an unlimited match.")
    exact(c, "alice wants to play an unlimited match with you.")
    b = LineClient(server.port)
    b.login("bob", "pb")
    b.send("invite carol 5")
    c.send("join alice")
    exact(c, "** You are now playing an unlimited match with alice")
    b.send("invite carol 5")
    exact(b, "** carol is already playing with alice.")
    c.send("join bob")
    exact(c, "** You are already playing.")


# --- the game ------------------------------------------------------------------------------


def test_opening_roll_boards_and_moves(server: FibsServer) -> None:
    server.script_dice([3, 3, 6, 1])          # a tie, then alice (player 0) 6, bob 1
    a, b = pair(server, 3)
    exact(a, "Starting a new game with bob.")
    exact(b, "Starting a new game with alice.")
    exact(a, "You rolled 3, bob rolled 3.")
    exact(b, "You rolled 3, alice rolled 3.")
    exact(a, "You rolled 6, bob rolled 1.")
    exact(a, "It's your turn to move.")
    exact(b, "alice makes the first move.")
    fa, fb = next_board(a), next_board(b)
    assert fa.me_player1 and fa.dice == (6, 1) and fa.question == "move" and fa.can_move == 2
    assert not fb.me_player1 and fb.names == ("alice", "You") and fb.dice == (6, 1)
    la, lb = fa.line().split(":"), fb.line().split(":")
    assert la[6:33] == lb[6:33]               # one absolute frame for both players
    assert la[41] == str(-int(lb[41]))        # opposite colours
    colour = fa.colour
    o = "13" if colour > 0 else "12"
    e = "7" if colour > 0 else "18"
    e2 = "8" if colour > 0 else "17"
    a.send(f"move {o}-{e}")
    exact(a, "** You must give 2 moves.")
    a.send(f"move {o}-{e} {e2}-{e} {e2}-{e}")
    exact(a, "** Please don't give more than 2 moves.")
    a.send("move 1-2 x-y")
    exact(a, "** first move: legal words are 'bar', 'home', 'off', 'b', 'h' and 'o'.")
    b.send("move 1-2 3-4")
    exact(b, "** It's not your turn to move.")
    b.send("roll")
    exact(b, "** It's not your turn to roll the dice.")
    a.send(f"move {o}-{e} {e2}-{e}")
    exact(b, f"alice moves {o}-{e} {e2}-{e} .")
    after = next_board(b)
    assert after.me_player1 and after.dice == (0, 0)
    assert after.position.swapped() == fa.position.play_from_text("13/7 8/7", (6, 1)).position


def test_move_validation_wording(server: FibsServer) -> None:
    # alice (on roll) has a checker on the bar; bob holds her 21 point (his 4)
    hit = board_of({25: 1, 13: 4, 8: 3, 6: 5, 24: 2}, {24: 2, 13: 5, 8: 3, 6: 3, 4: 2})
    server.queue_setup(GameSetup(hit, "alice"))
    server.script_dice([4, 3])
    a, b = pair(server, 5)
    a.send("toggle moreboards")
    exact(a, "It's your turn. Please roll or double.")
    a.send("roll")
    exact(a, "You roll 4 and 3.")
    exact(b, "alice rolls 4 and 3.")
    fb = next_board(a)
    exact(a, "Please move 2 pieces.")
    assert fb.dice == (4, 3) and fb.points[25] == 1
    c = fb.colour

    def w(p: int | str) -> str:
        return str(p) if isinstance(p, str) or c > 0 else str(25 - p)

    a.send(f"move {w(13)}-{w(9)} bar-{w(22)}")
    exact(a, "** You have to remove pieces from the bar in your first move.")
    a.send(f"move bar-{w(21)} {w(13)}-{w(10)}")
    exact(a, f"** You can't move to {w(21)} in your first move.")
    a.send(f"move bar-{w(22)} {w(13)}-{w(8)}")
    exact(a, f"** You can't move to {w(8)} in your second move.")
    a.send(f"move bar-{w(22)} {w(6)}-off")
    exact(a, "** You can't remove this piece.")
    a.send(f"move bar-{w(22)} {w(22)}-{w(18)}")
    exact(b, f"alice moves bar-{w(22)} {w(22)}-{w(18)} .")


def test_steps_helpers_follow_the_rules() -> None:
    # parse: O numbering is absolute, X numbering is mirrored, bar/off/home words
    assert parse_fibs_steps(["bar-21", "6-off"], 1) == [(25, 21), (6, 0)]
    assert parse_fibs_steps(["bar-4", "19-home"], -1) == [(25, 21), (6, 0)]
    assert parse_fibs_steps(["25-3"], 1) is None and parse_fibs_steps(["7"], 1) is None
    # bear-off with a larger die only from the highest point
    home = np.array(board_of({5: 1, 2: 2}, {6: 2}), dtype=np.int8)
    assert apply_steps(home, [(5, 0), (2, 0)], (6, 3))[1] is None
    assert apply_steps(home, [(2, 0), (2, 0)], (6, 3))[1] == "** You can't remove this piece."
    # hitting sends the blot to the bar; one step per die, never a long jump
    start = np.array(board_of({13: 2}, {20: 1}), dtype=np.int8)
    after, problem = apply_steps(start, [(13, 7), (7, 5)], (6, 2))
    assert problem is None and after[5] == 1 and after[0] == -1
    assert apply_steps(start, [(13, 5)], (6, 2))[1] == "** You can't move to 5 in your first move."
    assert apply_steps(start, [(13, 5)], (6, 2), colour=-1)[1] == \
        "** You can't move to 20 in your first move."


def test_cube_take_then_automatic_rolls(server: FibsServer) -> None:
    race = board_of({6: 4, 5: 3, 4: 3, 3: 2, 2: 1}, {6: 4, 5: 4, 4: 3, 3: 2, 2: 1})
    server.queue_setup(GameSetup(race, "alice"))
    server.script_dice([2, 1, 6, 5])
    a, b = pair(server, 5)
    exact(a, "It's your turn. Please roll or double.")
    b.send("double")
    exact(b, "** It's not your turn to double.")
    a.send("toggle moreboards")
    exact(a, "** Will send rawboards after rolling.")
    a.send("double")
    exact(a, "You double. Please wait for bob to accept or reject.")
    exact(b, "alice doubles. Type 'accept' or 'reject'.")
    pend = next_board(b)
    assert pend.me_player1 and pend.double_pending and pend.question == "take_or_drop"
    assert pend.line().split(":")[38:41] == ["0", "0", "1"]
    assert pend.cube_value == 1
    a.send("accept")
    exact(a, "** There's nothing to accept or reject.")
    b.send("accept")
    exact(b, "You accept the double. The cube shows 2.")
    exact(a, "bob accepts the double. The cube shows 2.")
    # alice may not double now: the server rolls for her at once
    exact(a, "You roll 2 and 1.")
    fa = next_board(a)
    assert fa.cube_value == 2 and fa.cube_owner == "opponent" and fa.may_double == (False, True)
    exact(a, "Please move 2 pieces.")
    a.send("double")
    exact(a, "** You can't double after rolling the dice.")


def test_drop_score_join_and_new_game(server: FibsServer) -> None:
    race = board_of({6: 2, 5: 3, 4: 3, 3: 2, 2: 2}, {8: 2, 7: 2, 6: 3, 5: 3, 4: 3})
    server.queue_setup(GameSetup(race, "bob"))
    a, b = pair(server, 5)
    exact(b, "It's your turn. Please roll or double.")
    b.send("double")
    exact(a, "bob doubles. Type 'accept' or 'reject'.")
    a.send("reject")
    exact(a, "You give up. bob wins 1 point.")
    exact(b, "alice gives up. You win 1 point.")
    exact(a, "score in 5 point match: alice-0 bob-1")
    exact(b, "score in 5 point match: bob-1 alice-0")
    exact(a, "Type 'join' if you want to play the next game, type 'leave' if you don't.")
    a.send("join")
    exact(a, "** Please wait for bob to join too.")
    b.send("join")
    exact(a, "Starting a new game with bob.")
    exact(b, "Starting a new game with alice.")
    fb = next_board(b)
    assert fb.score == ((1, 0) if fb.me_player1 else (0, 1))
    assert server.history[1:4] == [("double", "bob", 2), ("drop", "alice", 1),
                                   ("game", "bob", 1, "drop", (0, 1))]


def test_resignation_with_cube_and_gammon(server: FibsServer) -> None:
    pos = board_of({6: 3, 5: 3, 4: 3, 3: 3, 2: 3}, {24: 3, 23: 3, 22: 3, 21: 3, 20: 3})
    server.queue_setup(GameSetup(pos, "alice", cube_value=2, cube_owner="bob"))
    a, b = pair(server, 9)
    a.expect(r"You roll [1-6] and [1-6]\.")
    b.send("resign g")
    exact(b, "You want to resign. alice will win 4 points.")
    exact(a, "bob wants to resign. You will win 4 points. Type 'accept' or 'reject'.")
    a.send("reject")
    exact(a, "You reject. The game continues.")
    exact(b, "alice rejects. The game continues.")
    b.send("resign b")
    exact(a, "bob wants to resign. You will win 6 points. Type 'accept' or 'reject'.")
    a.send("accept")
    exact(a, "You accept and win 6 points.")
    exact(b, "alice accepts and wins 6 points.")
    exact(a, "score in 9 point match: alice-6 bob-0")


def test_bear_off_gammon_and_match_end(server: FibsServer) -> None:
    won = board_of({1: 1}, {13: 15})            # alice bears off her last checker: a gammon
    server.queue_setup(GameSetup(won, "alice"))
    server.script_dice([3, 1])
    a, b = pair(server, 1)
    c = next_board(a).colour
    exact(a, "It's your turn. Please roll or double.")
    a.send("roll")
    exact(a, "You roll 3 and 1.")
    a.send(f"move {'1' if c > 0 else '24'}-off")
    exact(b, f"alice moves {'1' if c > 0 else '24'}-off .")
    exact(a, "You win the game and get 2 points. Congratulations!")
    exact(b, "alice wins the game and gets 2 points. Sorry.")
    exact(a, "You win the 1 point match 2-0 .")
    exact(b, "alice wins the 1 point match 2-0 .")
    assert server.results[0].winner == "alice" and server.results[0].score == (2, 0)
    a.send("board")
    exact(a, "** You're not playing.")


def test_crawford_game_has_no_cube(server: FibsServer) -> None:
    nearly = board_of({1: 1}, {6: 5, 5: 5, 4: 4})          # bob has one checker off
    server.queue_setup(GameSetup(nearly, "alice", cube_value=2, cube_owner="bob"))
    server.script_dice([2, 1])
    a, b = pair(server, 3)
    c = next_board(a).colour
    exact(a, "You roll 2 and 1.")                           # bob owns the cube: no prompt
    a.send(f"move {'1' if c > 0 else '24'}-off")
    exact(a, "You win the game and get 2 points. Congratulations!")
    exact(a, "score in 3 point match: alice-2 bob-0")
    server.script_dice([6, 1])       # alice opens with 6-1 (scripted before the joins: the
    a.send("join")                   # second join starts the game and rolls at once)
    b.send("join")
    exact(a, "It's your turn to move.")
    fb = next_board(a)
    assert fb.crawford_game and not fb.post_crawford and fb.may_double == (True, True)
    a.send(fibs_move(fb.position.legal_plays(fb.dice)[0], fb.colour))
    # bob's turn in the Crawford game: rolled for him, never asked to roll or double
    seen = _lines_until(b, r"You roll [1-6] and [1-6]\.", 20)
    assert not any(x.startswith("It's your turn. Please roll") for x in seen)
    b.send("double")
    b.expect(r"\*\* You can't double.*")


def _lines_until(c: LineClient, pattern: str, timeout: float) -> list[str]:
    out = []
    deadline = time.monotonic() + timeout
    while True:
        line = c.next_line(max(0.0, deadline - time.monotonic()))
        out.append(line)
        if re.fullmatch(pattern, line):
            return out


def test_leave_saves_and_invite_resumes(server: FibsServer) -> None:
    race = board_of({6: 4, 5: 3, 4: 3, 3: 2, 2: 1}, {6: 4, 5: 4, 4: 3, 3: 2, 2: 1})
    server.queue_setup(GameSetup(race, "alice"))
    a, b = pair(server, 7)
    exact(a, "It's your turn. Please roll or double.")
    b.send("leave")
    exact(b, "** You terminated the game. The game was saved.")
    exact(a, "** Player bob has left the game. The game was saved.")
    a.send("show saved")
    exact(a, " opponent          matchlength   score (your points first)")
    a.expect(r" bob +7 +0 - +0")
    a.send("roll")
    exact(a, "** You're not playing.")
    b.send("invite alice 1")
    exact(b, "** You invited alice to resume a saved match.")
    exact(a, "bob wants to resume a saved match with you.")
    exact(a, "Type 'join bob' to accept.")
    a.send("join bob")
    exact(a, "You are now playing with bob. Your running match was loaded.")
    exact(b, "alice has joined you. Your running match was loaded.")
    for c in (a, b):
        exact(c, "turn: alice.")
        exact(c, "match length: 7")
        exact(c, "points for user alice: 0")
        exact(c, "points for user bob: 0")
    fa = next_board(a)
    assert fa.me_player1 and fa.position.board.tolist() == list(race)
    exact(a, "It's your turn. Please roll or double.")


def test_dropped_connection_saves_the_match(server: FibsServer) -> None:
    a, b = pair(server, 3)
    exact(b, "Starting a new game with alice.")
    server.drop("bob")
    exact(a, "bob drops connection. The game was saved.")
    exact(a, "8 bob bob drops connection.")
    assert frozenset({"alice", "bob"}) in server.saved and not server.matches
    b2 = LineClient(server.port)
    b2.login("bob", "pb")
    b2.send("show savedcount")
    exact(b2, "bob has 1 saved game.")


def test_seeded_dice_repeat() -> None:
    rolls = []
    for _ in range(2):
        srv = FibsServer({"alice": "pa", "bob": "pb"}, seed=42, ready=["bob"]).start()
        try:
            a, b = pair(srv, 3)
            rolls.append(a.expect(r"You rolled ([1-6]), bob rolled ([1-6])\.").groups())
        finally:
            srv.stop()
    assert rolls[0] == rolls[1]


def test_idle_timeout() -> None:
    srv = FibsServer({"alice": "pa"}, idle_timeout=0.5).start()
    try:
        a = LineClient(srv.port)
        a.login("alice", "pa")
        exact(a, "Connection timed out.", timeout=5)
        assert srv.wait_for(lambda: not srv.online(), 5)
    finally:
        srv.stop()


def test_module_runs_from_the_command_line() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "gbot.testing.fibs_server", "--port",
                             str(port), "--account", "zed:pw:ready", "--seed", "1"],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                c = LineClient(port, timeout=10)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        lines = c.login("zed", "pw")
        assert any(re.fullmatch(r"5 zed - - 1 .*", x) for x in lines)
        c.send("bye")
        exact(c, "           Goodbye.")
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_every_legal_play_is_accepted_step_by_step_with_its_result() -> None:
    """The server's step check is the rules core's: each legal play of the move generator,
    written in its own step order, passes with the generator's result board."""
    from gbot.core.movegen import legal_plays_raw
    from gbot.game.notations import position_id

    heldout = ROOT / "tests" / "data" / "heldout_positions.csv"
    rng = np.random.default_rng(7)
    lines = heldout.read_text().splitlines()[1:]
    checked = 0
    for line in rng.choice(lines, 120, replace=False):
        board = position_id.decode(line.split(",")[0])
        d1, d2 = (int(x) for x in rng.integers(1, 7, size=2))
        results, steps = legal_plays_raw(board, d1, d2)
        for res, row in zip(results, steps, strict=True):
            pairs = [(int(row[2 * k]), int(row[2 * k + 1])) for k in range(4) if row[2 * k] > 0]
            after, problem = apply_steps(board, pairs, (d1, d2))
            assert problem is None, (line, d1, d2, pairs)
            assert np.array_equal(after, res)
            checked += 1
    assert checked > 500


def test_core_step_rules_by_hand() -> None:
    from gbot.core.movegen import can_step

    b = np.zeros(26, dtype=np.int8)
    b[5], b[3], b[9] = 2, 1, 1           # one checker still outside (9)
    b[4] = -2                           # an opposing point on 4
    assert not can_step(b, 5, 1)        # blocked
    assert can_step(b, 9, 4)            # 9 -> 5, own point
    assert not can_step(b, 3, 3)        # no bearing off with a checker on 9
    b[9], b[6] = 0, 1
    assert can_step(b, 3, 3)            # exact bear-off, all home
    assert not can_step(b, 3, 5)        # a higher checker (6) must move first
    assert can_step(b, 6, 6) and not can_step(b, 2, 1)   # nothing on 2
