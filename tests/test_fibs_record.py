"""Match records of the FIBS bot (gbot.adapters.fibs.record): two bots play on the local
server, each writes the match from the boards it saw; the files replay through the .mat
reader to the server's final score and gnubg imports them."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gbot.adapters.fibs.client import BotConfig, ExitReason, FibsBot
from gbot.adapters.fibs.record import MatchRecorder, file_stem
from gbot.core.board import START
from gbot.engine.engine import Engine
from gbot.errors import FibsBoardError
from gbot.game.match import GameState
from gbot.game.notations.fibs_board import FibsBoard, parse_fibs_board
from gbot.game.position import Position
from gbot.records import matfile
from gbot.testing.fibs_server import FibsServer
from tests.conftest import gnubg_binary
from tests.test_fibs_client import T_RACE, bot_running, fibs_line


def _play_match(tmp_path: Path, seed: int, length: int) -> tuple[FibsServer, FibsBot, FibsBot]:
    engine = Engine(ply=0)
    srv = FibsServer({"alice": "pa", "bob": "pb"}, seed=seed).start()
    alice = FibsBot(BotConfig("alice", delay=0, invites=(("bob", length),), max_matches=1,
                              record_dir=str(tmp_path / "a")), engine, "pa")
    bob = FibsBot(BotConfig("bob", delay=0, max_matches=1, record_dir=str(tmp_path / "b")),
                  engine, "pb")
    try:
        with bot_running(alice, srv.port) as ra, bot_running(bob, srv.port) as rb:
            assert srv.wait_for(lambda: bool(srv.results), timeout=240)
        assert ra.rc is ExitReason.FINISHED and rb.rc is ExitReason.FINISHED
    finally:
        srv.stop()
    return srv, alice, bob


def test_both_bots_record_the_match_they_play(tmp_path: Path) -> None:
    srv, alice, bob = _play_match(tmp_path, seed=5, length=3)
    res = srv.results[0]
    texts = []
    for bot, sub in ((alice, "a"), (bob, "b")):
        assert bot.recorder is None and not [r for r in bot.records if r.parent.name != sub]
        mats = sorted((tmp_path / sub).glob("*.mat"))
        assert len(mats) == 1 and len(list((tmp_path / sub).glob("*.sgf"))) == 1
        assert mats[0].name.endswith("_3p.mat") and "alice" in mats[0].name
        rec = matfile.read(mats[0])          # replays every move through the referee
        final = dict(zip(rec.names, rec.final_score, strict=True))
        assert set(rec.names) == {"alice", "bob"}
        assert (final[res.winner], final[res.loser]) == res.score
        games = [h for h in srv.history if h[0] == "game"]
        assert len(rec.games) == len(games)
        texts.append(mats[0].read_text())
    # both sides saw the same match: the files differ at most in the file name
    assert texts[0] == texts[1]
    binary = gnubg_binary()
    if binary is None:
        pytest.skip("gnubg is not installed: the import is not checked")
    mat = sorted((tmp_path / "a").glob("*.mat"))[0]
    sgf = mat.with_suffix(".sgf")
    n0, n1 = matfile.read(mat).names
    rec = matfile.read(mat)
    for cmd in (f"import mat {mat}", f"load match {sgf}"):
        out = subprocess.run([binary, "-t", "-q"], input=f"{cmd}\nshow score\n", text=True,
                             capture_output=True, timeout=120).stdout
        want = f"{n0} {rec.final_score[0]}, {n1} {rec.final_score[1]} (match to 3 points"
        assert want in out, out[-800:]


def test_record_off_by_default_and_mid_match_start_is_not_recorded(tmp_path: Path) -> None:
    bot = FibsBot(BotConfig("gbot", delay=0), Engine(ply=0), "x")
    bot.handle_line("** Player alice has joined you for a 5 point match.")
    assert bot.recorder is None
    rec = MatchRecorder("gbot")
    rec.board(parse_fibs_board(fibs_line(T_RACE, (3, 1), score=(2, 1)), "fibs"))
    assert rec.broken and rec.write(tmp_path) == []
    assert list(tmp_path.iterdir()) == []


def test_file_stem() -> None:
    assert file_stem(0.0, ("al/ice", "bob"), 5) == "1970-01-01_000000_al_ice-bob_5p"
    assert file_stem(86400.0, ("a", "b"), 0) == "1970-01-02_000000_a-b_money"


def test_a_saved_match_is_written_as_far_as_it_was_played(tmp_path: Path) -> None:
    """bob's connection is cut mid-match: both bots write what was played so far (bob when
    the connection drops, alice when the server says the match is saved); the resumed rest,
    which starts mid-way, writes nothing more."""
    engine = Engine(ply=0)
    srv = FibsServer({"alice": "pa", "bob": "pb"}, seed=3).start()
    alice = FibsBot(BotConfig("alice", delay=0, invites=(("bob", 3),), max_matches=1,
                              record_dir=str(tmp_path / "a")), engine, "pa")
    bob = FibsBot(BotConfig("bob", delay=0, max_matches=1, record_dir=str(tmp_path / "b")),
                  engine, "pb")
    try:
        with bot_running(alice, srv.port), bot_running(bob, srv.port):
            assert srv.wait_for(lambda: "alice" in srv.matches and
                                srv.matches["alice"].state.turn >= 7, 120)
            with srv._lock:
                at_drop = srv.matches["alice"].state
                srv.drop("bob")
            assert srv.wait_for(lambda: bool(srv.results), 240)
    finally:
        srv.stop()
    texts = []
    for sub in ("a", "b"):
        mats = list((tmp_path / sub).glob("*.mat"))
        assert len(mats) == 1
        rec = matfile.read(mats[0])
        assert len(rec.games) == at_drop.game_number + 1
        last = rec.games[-1]
        assert last.how == GameState.PLAYING and last.winner < 0     # not over
        assert dict(zip(rec.names, last.score, strict=True)) == {
            "alice": at_drop.score[0], "bob": at_drop.score[1]}
        assert sum(a.kind == "move" for a in last.actions) >= 1
        texts.append(mats[0].read_text())
    assert texts[0] == texts[1]
    binary = gnubg_binary()
    if binary is not None:               # gnubg imports the unfinished match too
        out = subprocess.run([binary, "-t", "-q"], input=f"import mat {mats[0]}\nshow score\n",
                             text=True, capture_output=True, timeout=120).stdout
        want = f"{rec.names[0]} {last.score[0]}, {rec.names[1]} {last.score[1]} (match to 3"
        assert want in out, out[-800:]


def _board(pos: Position, dice: tuple[int, int], mine: bool, score: tuple[int, int] = (0, 0),
           **kw: Any) -> FibsBoard:
    """A FIBS board line for gbot ("You") against alice, decoded; ``pos`` seen by the actor."""
    return parse_fibs_board(fibs_line(pos, dice, mine=mine, colour=1 if mine else -1,
                                      score=score, length=3, **kw), "fibs")


def test_record_follows_hand_checked_boards_and_stops_at_an_impossible_one() -> None:
    """alice opens 31 with 8/5 6/5, gbot rolls 42 and plays 8/4 6/4: the record holds exactly
    those plays, in the .mat notation; a board that no play of alice's 66 gives stops it."""
    start = Position(START)
    a1 = start.play_from_text("8/5 6/5", (3, 1))
    g1 = a1.position.swapped().play_from_text("8/4 6/4", (4, 2))
    rec = MatchRecorder("gbot")
    for fb in (_board(start, (3, 1), mine=False),
               _board(a1.position.swapped(), (0, 0), mine=True),
               _board(a1.position.swapped(), (4, 2), mine=True),
               _board(g1.position.swapped(), (6, 6), mine=False)):
        rec.board(fb)
        rec.board(fb)                     # a repeated board changes nothing
    assert not rec.broken and rec.record is not None
    assert rec.record.names == ("alice", "gbot")
    acts = [(a.kind, a.player, a.dice) for a in rec.record.games[0].actions]
    assert acts == [("roll", 0, (3, 1)), ("move", 0, (3, 1)), ("roll", 1, (4, 2)),
                    ("move", 1, (4, 2)), ("roll", 0, (6, 6))]
    text = matfile.dumps(rec.record)
    assert "  1) 31: 8/5 6/5".ljust(33) + "42: 8/4 6/4" in text
    # alice cannot reach the opening position again with 66
    rec.board(_board(start, (0, 0), mine=True))
    assert "no legal play" in rec.broken
    assert len(rec.record.games[0].actions) == 5


def test_cube_and_drop_from_the_doublers_side() -> None:
    """The doubler sees no board of its own double: a drop message still records the double
    and the drop, and the winner scores the cube's value."""
    start = Position(START)
    a1 = start.play_from_text("8/5 6/5", (3, 1))
    rec = MatchRecorder("gbot")
    rec.board(_board(start, (3, 1), mine=False))
    rec.board(_board(a1.position.swapped(), (0, 0), mine=True))
    rec.game_over("You", 1, "drop")                    # gbot doubled, alice gave up
    assert not rec.broken and rec.record is not None
    kinds = [(a.kind, a.player) for a in rec.record.games[0].actions]
    assert kinds[-3:] == [("double", 1), ("drop", 0), ("win", 1)]
    assert rec.record.games[0].winner == 1 and rec.record.games[0].points == 1
    # the server's next game at 0-1 starts a second game in the record
    rec.board(_board(start, (5, 2), mine=True, score=(1, 0)))
    assert len(rec.record.games) == 2 and not rec.broken
    # a winner who is not a player stops it
    rec.game_over("mallory", 1, "resign")
    assert "not a player" in rec.broken


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([0, 1, 2, 3]), st.sampled_from(
    [(0, 0), (3, 1), (6, 6), (5, 2), (2, 1)]), st.booleans(),
    st.sampled_from([(0, 0), (1, 0), (0, 2)])), max_size=25),
    st.lists(st.tuples(st.sampled_from(["You", "alice", "bob"]), st.integers(-1, 9),
                       st.sampled_from(["bearoff", "drop", "resign"])), max_size=4))
def test_any_board_sequence_is_followed_or_stops_cleanly(
        boards: list[tuple[int, tuple[int, int], bool, tuple[int, int]]],
        ends: list[tuple[str, int, str]]) -> None:
    """Shuffled, repeated and contradictory boards and game ends: never an exception, and
    whatever was recorded writes as a .mat that reads back."""
    start = Position(START)
    a1 = start.play_from_text("8/5 6/5", (3, 1))
    positions = [start, a1.position, a1.position.swapped(), start.swapped()]
    rec = MatchRecorder("gbot")
    for i, (p, dice, mine, score) in enumerate(boards):
        try:
            fb = _board(positions[p], dice, mine, score)
        except FibsBoardError:        # a line FIBS could not send (the helper refuses it)
            continue
        rec.board(fb)
        if ends and i % 7 == 6:
            rec.game_over(*ends.pop())
    if rec.record is not None and rec.record.games:
        matfile.loads(matfile.dumps(rec.record))


def test_a_play_whose_roll_was_not_shown_is_found_from_the_board() -> None:
    """A server that sends no board after a roll: alice's 8/5 6/5 can only be a 31, and is
    recorded as one; a play that several rolls give stops the record."""
    start = Position(START)
    a1 = start.play_from_text("8/5 6/5", (3, 1))
    g1 = a1.position.swapped().play_from_text("8/4 6/4", (4, 2))
    rec = MatchRecorder("gbot")
    rec.board(_board(start, (3, 1), mine=False))
    rec.board(_board(a1.position.swapped(), (0, 0), mine=True))
    rec.board(_board(g1.position.swapped(), (0, 0), mine=False))   # gbot's 42, unseen
    assert not rec.broken and rec.record is not None
    acts = [(a.kind, a.dice) for a in rec.record.games[0].actions]
    assert acts[2:] == [("roll", (4, 2)), ("move", (4, 2))]
    # 13/6 (one checker) fits 61, 52 and 43
    a2 = g1.position.swapped().play_from_text("13/7 7/6", (6, 1))
    rec.board(_board(a2.position.swapped(), (0, 0), mine=True))
    assert "fits" in rec.broken
