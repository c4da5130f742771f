"""CLIP line parsing and formatting (gbot.adapters.fibs.clip) against the spec's captured lines,
the shared FIBS board vectors, round trips, framing, and fuzzing (never an exception)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gbot.adapters.fibs import clip
from gbot.errors import FibsBoardError
from gbot.game.notations.fibs_board import parse_fibs_board

SHARED = Path(__file__).resolve().parents[2] / "shared"

# Lines quoted in ../shared/spec/fibs-clip.md ([local], [fibs], [doc] labels) with the event
# each must decode to. Every one must also format back byte for byte.
SPEC_LINES: list[tuple[str, clip.Event]] = [
    ("1 botbob 1795953514 127.0.0.1", clip.Welcome("botbob", 1795953514, "127.0.0.1")),
    ("2 botbob 1 1 0 0 0 0 1 1 0 0 0 0 1 1500.00 0 0 0 1 0 UTC",
     clip.OwnInfo("botbob", tuple("1 1 0 0 0 0 1 1 0 0 0 0 1 1500.00 0 0 0 1 0 UTC".split()))),
    ("3", clip.MotdBegin()),
    ("4", clip.MotdEnd()),
    ("5 alice - - 0 0 1500.00 0 0 1795953520 127.0.0.1 probe_client -",
     clip.WhoInfo("alice", None, None, False, False, 1500.0, 0, 0, 1795953520, "127.0.0.1",
                  "probe_client", None)),
    ("5 botbob - - 0 0 1500.00 0 0 1795953523 127.0.0.1 gbot-test -",
     clip.WhoInfo("botbob", None, None, False, False, 1500.0, 0, 0, 1795953523, "127.0.0.1",
                  "gbot-test", None)),
    ("6", clip.WhoEnd()),
    ("16 botbob hello there", clip.Chat("you_say", "botbob", "hello there")),
    ("12 alice hello there", clip.Chat("says", "alice", "hello there")),
    ("17 hi all", clip.Chat("you_shout", "", "hi all")),
    ("13 alice hi all", clip.Chat("shouts", "alice", "hi all")),
    ("15 SomeBot Hi, I am a computer program. Enjoy your match.",
     clip.Chat("kibitzes", "SomeBot", "Hi, I am a computer program. Enjoy your match.")),
    ("7 alice alice logs in.", clip.UserLogin("alice", "alice logs in.")),
    ("8 alice alice drops connection.", clip.UserLogout("alice", "alice drops connection.")),
    ("9 alice 1795953514 see you later", clip.Message("alice", 1795953514, "see you later")),
    ("10 alice", clip.MessageDelivered("alice")),
    ("11 alice", clip.MessageSaved("alice")),
    ("alice wants to play a 5 point match with you.", clip.Invitation("alice", 5)),
    ("alice wants to play an unlimited match with you.", clip.Invitation("alice", 0)),
    ("alice wants to resume a saved match with you.", clip.Invitation("alice", 0, True)),
    ("Type 'join alice' to accept.", clip.TypeJoin("alice")),
    ("** You invited alice to a 5 point match.", clip.YouInvited("alice", 5)),
    ("** You are now playing a 5 point match with alice", clip.MatchStart("alice", 5, True)),
    ("** Player alice has joined you for a 5 point match.",
     clip.MatchStart("alice", 5, False)),
    ("You are now playing with alice. Your running match was loaded.",
     clip.MatchResumed("alice", True)),
    ("alice has joined you. Your running match was loaded.",
     clip.MatchResumed("alice", False)),
    ("turn: alice.", clip.TurnInfo("alice")),
    ("match length: 5", clip.MatchLengthInfo(5)),
    ("points for user alice: 3", clip.PointsFor("alice", 3)),
    ("Starting a new game with alice.", clip.NewGame("alice")),
    ("You rolled 3, alice rolled 5.", clip.OpeningRoll(3, "alice", 5)),
    ("It's your turn to move.", clip.YourTurnToMove()),
    ("alice makes the first move.", clip.FirstMove("alice")),
    ("It's your turn. Please roll or double.", clip.RollOrDouble()),
    ("You roll 3 and 1.", clip.Rolled(None, (3, 1))),
    ("alice rolls 6 and 6.", clip.Rolled("alice", (6, 6))),
    ("Please move 2 pieces.", clip.PleaseMove(2)),
    ("Please move 1 piece.", clip.PleaseMove(1)),
    ("You can't move.", clip.CantMove(None)),
    ("alice can't move.", clip.CantMove("alice")),
    ("alice moves 13-7 24-23 .", clip.Moves("alice", (("13", "7"), ("24", "23")))),
    ("alice moves bar-22 6-off .", clip.Moves("alice", (("bar", "22"), ("6", "off")))),
    ("You double. Please wait for alice to accept or reject.", clip.YouDouble("alice")),
    ("alice doubles. Type 'accept' or 'reject'.", clip.Doubles("alice", True)),
    ("alice doubles.", clip.Doubles("alice", False)),
    ("You accept the double. The cube shows 2.", clip.DoubleAccepted(None, 2)),
    ("alice accepts the double. The cube shows 4.", clip.DoubleAccepted("alice", 4)),
    ("You give up. alice wins 1 point.", clip.GiveUp(None, "alice", 1)),
    ("alice gives up. You win 2 points.", clip.GiveUp("alice", None, 2)),
    ("You want to resign. alice will win 2 points.", clip.YouResign("alice", 2)),
    ("alice wants to resign. You will win 1 point. Type 'accept' or 'reject'.",
     clip.ResignOffer("alice", 1)),
    ("You accept and win 2 points.", clip.ResignAccepted(None, 2)),
    ("alice accepts and wins 1 point.", clip.ResignAccepted("alice", 1)),
    ("alice rejects. The game continues.", clip.ResignRejected("alice")),
    ("You reject. The game continues.", clip.ResignRejected(None)),
    ("You win the game and get 2 points. Congratulations!", clip.GameWon(None, 2)),
    ("alice wins the game and gets 1 point. Sorry.", clip.GameWon("alice", 1)),
    ("score in 5 point match: botbob-1 alice-3", clip.Score(5, "botbob", 1, "alice", 3)),
    ("Type 'join' if you want to play the next game, type 'leave' if you don't.",
     clip.JoinPrompt()),
    ("** Please wait for alice to join too.", clip.WaitJoin("alice")),
    ("You win the 5 point match 5-3 .", clip.MatchWon(None, 5, (5, 3))),
    ("alice wins the 3 point match 3-0 .", clip.MatchWon("alice", 3, (3, 0))),
    ("alice logs out. The game was saved.", clip.MatchSaved("alice", "logs out")),
    ("alice drops connection. The game was saved.",
     clip.MatchSaved("alice", "drops connection")),
    ("** Player alice has left the game. The game was saved.", clip.OpponentLeft("alice")),
    ("Connection timed out.", clip.TimedOut()),
    ("           Goodbye.", clip.Goodbye()),
    ("** Warning: You are already logged in.", clip.AlreadyLoggedIn()),
    ("Value of 'boardstyle' set to 3.", clip.BoardStyleSet(3)),
]

BOARD_LINES = [
    # [fibs] watcher, start of a 5-point match
    "board:SomeBot:pipcat:5:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:1:0:0:"
    "5:1:1:1:1:0:-1:1:25:0:0:0:0:0:2:1:0:0",
    # [local] the bot (X) after being hit, 2-1 to play
    "board:You:alice:5:0:0:-1:-1:0:0:1:0:4:0:3:0:0:0:-4:5:0:0:0:-4:1:-5:0:0:0:0:1:0:-1:2:1:0:0:"
    "2:0:1:0:-1:1:25:0:0:0:1:0:2:0:0:0",
    # [constructed] the bot (O) doubled, must answer
    "board:You:rival:7:2:3:0:-2:0:0:2:0:5:0:2:0:0:0:-3:4:0:0:0:-3:0:-5:-2:0:0:0:2:0:1:0:0:0:0:1:"
    "0:0:1:1:-1:0:25:0:0:0:0:0:0:0:0",
]


@pytest.mark.parametrize(("line", "event"), SPEC_LINES, ids=[ln[:40] for ln, _ in SPEC_LINES])
def test_spec_lines_parse_and_format_back(line: str, event: clip.Event) -> None:
    got = clip.parse_line(line)
    assert got == event
    assert got.line() == line
    assert clip.parse_line(line + "\r\n") == event


def test_alternative_spellings() -> None:
    assert clip.parse_line("It's your turn to roll or double.") == clip.RollOrDouble()
    assert clip.parse_line("alice wants to play an unlimted match with you.") == \
        clip.Invitation("alice", 0)
    assert clip.parse_line("alice rolled 5, You rolled 3") == clip.OpeningRoll(3, "alice", 5)
    assert clip.parse_line("alice moves 6-home 5-home .") == \
        clip.Moves("alice", (("6", "home"), ("5", "home")))
    assert clip.parse_line("points for alice: 2") == clip.PointsFor("alice", 2)
    assert clip.parse_line("turn: alice") == clip.TurnInfo("alice")
    assert clip.parse_line("match length: 9999") == clip.MatchLengthInfo(0)


def test_board_lines_decode() -> None:
    for line in BOARD_LINES:
        ev = clip.parse_line(line)
        assert isinstance(ev, clip.BoardLine)
        assert ev.board == parse_fibs_board(line, "fibs")
        assert ev.line() == line
    # hit and with 2-1 to play: the bot is X, its bar checker is its point 25
    ev = clip.parse_line(BOARD_LINES[1])
    assert isinstance(ev, clip.BoardLine) and ev.board is not None
    assert ev.board.me_player1 and ev.board.colour == -1 and ev.board.points[25] == 1
    assert ev.board.question == "move" and ev.board.dice == (2, 1)
    ev = clip.parse_line(BOARD_LINES[2])
    assert isinstance(ev, clip.BoardLine) and ev.board is not None
    assert ev.board.question == "take_or_drop"


def test_shared_fibs_board_vectors() -> None:
    path = SHARED / "vectors" / "fibs_boards.jsonl"
    if not path.exists():
        pytest.skip(f"{path} not available")
    n = 0
    for raw in path.read_text().splitlines():
        row = json.loads(raw)
        ev = clip.parse_line(row["line"])
        assert isinstance(ev, clip.BoardLine), row["line"]
        assert ev.board is not None, (ev.problem, row["line"])
        assert list(ev.board.dice) == row["dice"]
        assert ev.board.question == row["question"]
        assert ev.line() == row["line"]
        n += 1
    assert n == 800


def test_board_nobody_to_act_and_malformed() -> None:
    fields = BOARD_LINES[1].split(":")
    fields[32] = "0"
    ev = clip.parse_line(":".join(fields))
    assert isinstance(ev, clip.BoardLine) and ev.board is None and ev.problem == ""
    bad = BOARD_LINES[1].replace(":-4:5:", ":-4:9:")
    ev = clip.parse_line(bad)
    assert isinstance(ev, clip.BoardLine) and ev.board is None and "checkers" in ev.problem


def _fields(line: str, **changes: str) -> str:
    """``line`` with fields changed (``f37="2"`` sets field 37)."""
    f = line.split(":")
    for key, value in changes.items():
        f[int(key[1:])] = value
    return ":".join(f)


def test_boards_that_break_a_rule_are_read_with_a_note() -> None:
    """Real servers send boards the rules call impossible (BaldLies lets a double into the
    Crawford game; two sessions may disagree on the score). They are read all the same; the
    event names the broken rule and keeps the line as sent."""
    hit = BOARD_LINES[1]          # 5-point match, 0-0, alice owns a 2-cube, the bot to play 2-1
    cases = {
        # the Crawford game (4-0, field 51 = 0) with the cube in play: post-Crawford
        "crawford": _fields(hit, f4="4"),
        # a score beyond the match length: one point short of it
        "score": _fields(hit, f4="7", f37="1", f38="1", f39="1"),
        # nobody may double with a centred cube, outside the Crawford game
        "flags": _fields(hit, f37="1", f39="0"),
    }
    for key, line in cases.items():
        with pytest.raises(FibsBoardError):
            parse_fibs_board(line, "fibs")
        ev = clip.parse_line(line)
        assert isinstance(ev, clip.BoardLine) and ev.board is not None, (key, ev)
        assert ev.repaired == clip.REPAIRS[key] and ev.problem and ev.line() == line
    ev = clip.parse_line(cases["crawford"])
    assert isinstance(ev, clip.BoardLine) and ev.board is not None
    assert ev.board.post_crawford and ev.board.cube_value == 2
    assert ev.board.cube_owner == "opponent"
    ev = clip.parse_line(cases["score"])
    assert isinstance(ev, clip.BoardLine) and ev.board is not None
    assert ev.board.score == (4, 0) and ev.board.crawford_game
    # the same flags in the Crawford game break no rule: read without a note
    ev = clip.parse_line(_fields(hit, f4="4", f37="1", f39="0"))
    assert isinstance(ev, clip.BoardLine) and ev.board is not None
    assert ev.board.crawford_game and ev.repaired == "" and ev.problem == ""
    # no repair reads a board with too many checkers, or a 99-point match
    for bad in (_fields(hit, f10="9"), _fields(hit, f3="99", f4="99")):
        ev = clip.parse_line(bad)
        assert isinstance(ev, clip.BoardLine) and ev.board is None and ev.problem


def test_saved_row_of_9999_points_is_unlimited() -> None:
    assert clip.parse_line(" alice                  9999         1 -  2") == \
        clip.SavedMatchRow("alice", 0, 1, 2)


def test_server_errors_are_classified() -> None:
    cases = {
        "** It's not your turn to move.": "not_your_turn",
        "** It's not your turn to roll the dice.": "not_your_turn",
        "** You did already roll the dice.": "already_rolled",
        "** You must give 2 moves.": "illegal_move",
        "** Please don't give more than 2 moves.": "illegal_move",
        "** You have to remove pieces from the bar in your first move.": "illegal_move",
        "** You can't move to 14 in your second move.": "illegal_move",
        "** alice is refusing games.": "refusing",
        "** There is no one called zorro.": "no_such_user",
        "** Unknown command: 'frob'": "unknown_command",
        "** You're now ready to invite or join someone.": "toggle",
        "** You can't double during the Crawford game.": "cant_double",
        "** Something else entirely.": "other",
    }
    for line, kind in cases.items():
        ev = clip.parse_line(line)
        assert isinstance(ev, clip.ServerError) and ev.kind == kind, line
        assert ev.line() == line
    ev = clip.parse_line("** alice is refusing games.")
    assert isinstance(ev, clip.ServerError) and ev.name == "alice"


def test_toggle_listing_and_digits_that_are_not_clip() -> None:
    assert clip.parse_line("ready       YES") == clip.ToggleState("ready", True)
    assert clip.parse_line("greedy      NO") == clip.ToggleState("greedy", False)
    for text in ("12:34-12:35 5 7 9", "5 bytes", "2 accounts", "123", "6 6 6", "5 x"):
        assert isinstance(clip.parse_line(text), clip.Unknown), text


# --- framing --------------------------------------------------------------------------


def test_splitter_line_endings_and_split_reads() -> None:
    data = b"3\r\nhello\n\r\nworld\r\n4\r\n"
    want = ["3", "hello", "", "world", "4"]
    for cut in range(len(data) + 1):
        sp = clip.LineSplitter()
        assert sp.feed(data[:cut]) + sp.feed(data[cut:]) == want
    sp = clip.LineSplitter()
    assert [x for b in data for x in sp.feed(bytes([b]))] == want


def test_splitter_login_prompt_without_newline_and_iac() -> None:
    sp = clip.LineSplitter()
    assert sp.feed(b"\r\nWelcome.\r\n\r\nlog") == ["", "Welcome.", ""]
    assert sp.feed(b"in: ") == ["login: "]
    # a failed login: IAC WONT ECHO, then a fresh prompt
    assert sp.feed(b"\xff\xfc\x01login: ") == ["login: "]
    # IAC split over reads, and IAC IAC = a literal 0xFF
    assert sp.feed(b"ab\xff") == []
    assert sp.feed(b"\xfb\x01cd\xff\xff\r\n") == ["abcd\xff"]
    # a line that merely starts with "login:" is an ordinary line
    assert sp.feed(b"login: login x 1008 a b\r\n") == ["login: ", "login x 1008 a b"]


def test_splitter_bounds_line_length() -> None:
    sp = clip.LineSplitter(max_line=100)
    out = sp.feed(b"x" * 250 + b"\r\nok\r\n")
    assert out == ["x" * 100, "ok"]
    assert sp.truncated == 1
    out = sp.feed(b"y" * 10_000)
    assert out == ["y" * 100] and len(sp._buf) == 0
    assert sp.feed(b"tail\r\nnext\r\n") == ["next"]


def test_format_login() -> None:
    assert clip.format_login("gbot", "botbob", "secret1") == "login gbot 1008 botbob secret1"
    with pytest.raises(ValueError) as info:
        clip.format_login("gbot", "botbob", "two words")
    assert "two words" not in str(info.value)


# --- properties -----------------------------------------------------------------------

names = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,11}", fullmatch=True)
texts = st.from_regex(r"[ -~]{1,40}", fullmatch=True).filter(lambda s: s.strip() == s)
small = st.integers(min_value=1, max_value=64)
die = st.integers(min_value=1, max_value=6)

EVENTS = st.one_of(
    st.builds(clip.Welcome, names, st.integers(0, 2**31), st.just("10.0.0.1")),
    st.builds(clip.UserLogin, names, texts), st.builds(clip.UserLogout, names, texts),
    st.builds(clip.Chat, st.sampled_from(["says", "shouts", "whispers", "kibitzes",
                                          "you_say"]), names, texts),
    st.builds(clip.Invitation, names, st.integers(0, 99), st.just(False)),
    st.builds(clip.MatchStart, names, st.integers(0, 99), st.booleans()),
    st.builds(clip.MatchResumed, names, st.booleans()),
    st.builds(clip.OpeningRoll, die, names, die),
    st.builds(clip.Rolled, st.one_of(st.none(), names), st.tuples(die, die)),
    st.builds(clip.PleaseMove, st.integers(1, 4)),
    st.builds(clip.CantMove, st.one_of(st.none(), names)),
    st.builds(clip.Moves, names, st.lists(st.tuples(
        st.sampled_from(["bar", "24", "13", "6", "1"]),
        st.sampled_from(["off", "22", "7", "1"])), min_size=1, max_size=4).map(tuple)),
    st.builds(clip.DoubleAccepted, st.one_of(st.none(), names), small),
    st.builds(clip.ResignOffer, names, small),
    st.builds(clip.ResignAccepted, st.one_of(st.none(), names), small),
    st.builds(clip.GameWon, st.one_of(st.none(), names), small),
    st.builds(clip.Score, st.integers(0, 99), names, st.integers(0, 99), names,
              st.integers(0, 99)),
    st.builds(clip.MatchWon, st.one_of(st.none(), names), small, st.tuples(small, small)),
    st.builds(clip.MatchSaved, names, st.sampled_from(["logs out", "drops connection"])),
    st.builds(clip.PointsFor, names, st.integers(0, 99)),
)


@given(EVENTS)
@settings(max_examples=300, deadline=None)
def test_events_round_trip(event: clip.Event) -> None:
    line = event.line()
    assert clip.parse_line(line) == event
    assert clip.parse_line(line).line() == line


LINES = [ln for ln, _ in SPEC_LINES] + BOARD_LINES


@given(st.sampled_from(LINES), st.integers(0, 200), st.text(max_size=30))
@settings(max_examples=500, deadline=None)
def test_mutated_lines_never_raise(line: str, cut: int, junk: str) -> None:
    for variant in (line[:cut], line[:cut] + junk, junk + line, line.replace(" ", junk[:3]),
                    line.replace(":", junk[:2] or "::")):
        ev = clip.parse_line(variant)
        assert isinstance(ev, clip.Event)
        ev.line()


@given(st.binary(max_size=300), st.integers(1, 50))
@settings(max_examples=300, deadline=None)
def test_splitter_never_raises(data: bytes, chunk: int) -> None:
    sp = clip.LineSplitter(max_line=64)
    for i in range(0, len(data), chunk):
        for line in sp.feed(data[i:i + chunk]):
            assert len(line) <= 64 and "\n" not in line
            clip.parse_line(line)
