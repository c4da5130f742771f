"""The FIBS bot against servers that break the rules (gbot.testing.fibs_doubles): a cube let
into the Crawford game, no prompt in the Crawford game, a flood of malformed boards, absurd
match lengths, a stray ``login:`` prompt, and a resumed match whose score was reset. Each
double behaves as a real server did against gbot (BaldLies); the bot must play on, warn a
bounded number of times, and never sit in a dead match."""

from __future__ import annotations

import logging
import statistics
from typing import Any

import pytest

from gbot.adapters.fibs import clip
from gbot.adapters.fibs.bot_types import TOO_LONG, LogThrottle
from gbot.adapters.fibs.client import BotConfig, ExitReason, FibsBot, SavedStore
from gbot.game.match import GameState
from gbot.game.notations.fibs_board import FibsBoard, format_fibs_board
from gbot.game.position import Position
from gbot.testing.fibs_doubles import (
    CrawfordCubeServer,
    CrawfordStallServer,
    FloodServer,
    LyingLengthServer,
    ResetScoreServer,
    StrayLoginServer,
)
from tests.test_fibs_client import (
    StubEngine,
    _errors,
    bot_running,
    feed,
    fibs_line,
    first_move,
    in_match,
    new_bot,
)

WHO_ALICE = "5 alice - - 1 0 1500.00 0 0 1 127.0.0.1 x -"


def _warnings(caplog: pytest.LogCaptureFixture, text: str) -> int:
    """WARNING records of gbot.fibs holding ``text``."""
    return sum(1 for r in caplog.records
               if r.name == "gbot.fibs" and r.levelno == logging.WARNING and
               text in r.getMessage())


def _pair(alice: dict[str, Any] | None = None, bob: dict[str, Any] | None = None,
          engines: tuple[Any, Any] | None = None) -> tuple[FibsBot, FibsBot]:
    """alice invites bob to a 3-point match; both log out after one match."""
    ea, eb = engines or (StubEngine(), StubEngine())
    a = FibsBot(BotConfig("alice", **{"delay": 0, "invites": (("bob", 3),), "max_matches": 1,
                                      **(alice or {})}), ea, "pa")
    b = FibsBot(BotConfig("bob", **{"delay": 0, "max_matches": 1, **(bob or {})}), eb, "pb")
    return a, b


# ====================================================== a cube in the Crawford game


def _crawford_board(cube: int, owner: str, pending: bool = False,
                    dice: tuple[int, int] = (0, 0)) -> str:
    """A board of the Crawford game (3-point match, 2-1) with the cube in play, as BaldLies
    sends one after letting a double in: field 51 still says "not post-Crawford"."""
    may = (False, False) if pending else (owner != "opponent", owner != "me")
    fb = FibsBoard(points=tuple(int(x) for x in Position.initial().board), dice=dice,
                   cube_value=cube, cube_owner=owner,  # type: ignore[arg-type]
                   may_double=may, double_pending=pending, score=(1, 2), match_length=3,
                   crawford_game=False, post_crawford=True, names=("You", "alice"),
                   dialect="fibs", colour=1, me_player1=True)
    f = format_fibs_board(fb, "fibs").split(":")
    f[51] = "0"
    return ":".join(f)


def test_a_cube_in_the_crawford_game_is_read_and_played() -> None:
    """The rules call these boards impossible; the bot reads them as post-Crawford boards
    (the cube is in play), answers the double, and moves on the later boards."""
    pending = clip.parse_line(_crawford_board(1, "centre", pending=True))
    assert isinstance(pending, clip.BoardLine) and pending.board is not None
    assert pending.repaired and "Crawford" in pending.repaired and pending.problem
    assert pending.board.question == "take_or_drop" and not pending.board.crawford_game
    bot = new_bot(StubEngine(take="take"))
    in_match(bot, "alice", 3)
    assert feed(bot, "alice doubles. Type 'accept' or 'reject'.", pending.raw) == ["accept"]
    later = _crawford_board(2, "me", dice=(3, 1))
    assert clip.parse_line(later).board is not None
    assert feed(bot, "You roll 3 and 1.", later) == [first_move(Position.initial(), (3, 1))]


def test_a_double_the_server_lets_into_the_crawford_game_does_not_stall_the_match(
        caplog: pytest.LogCaptureFixture) -> None:
    """alice's session sees the game as post-Crawford and doubles; the server accepts it.
    bob's boards still mark the Crawford game, now with the cube in play. The old bot took,
    then dropped every later board as impossible and never acted again; now bob plays the
    server's boards, warns (once per kind of broken rule) and the match finishes."""
    srv = CrawfordCubeServer({"alice": "pa", "bob": "pb"}, seed=5, first_score=(2, 1),
                             strict_view=frozenset({"bob"})).start()
    alice, bob = _pair(engines=(StubEngine(cube="double"), StubEngine(take="take")))
    try:
        with caplog.at_level(logging.WARNING, "gbot.fibs"):
            with bot_running(alice, srv.port, tries=3) as ra, \
                    bot_running(bob, srv.port, tries=3) as rb:
                assert srv.wait_for(lambda: bool(srv.results), 25), (srv.history[-5:],
                                                                     bob.malformed)
        assert ra.rc is ExitReason.FINISHED and rb.rc is ExitReason.FINISHED
        assert srv.crawford_doubles >= 1
        assert ("take", "bob", 2) in srv.history
        assert bob.malformed == 0
        assert 1 <= _warnings(caplog, "breaks a rule") <= 3
        assert _errors(srv.sent_to("bob")) == [] and _errors(srv.sent_to("alice")) == []
    finally:
        srv.stop()


# ====================================================== no prompt in the Crawford game


def test_the_crawford_game_without_prompts_is_no_slower_than_another_game() -> None:
    """BaldLies neither prompts nor rolls in the Crawford game. The bot used to wait out
    ``settle`` on every such turn (5 s, 22-34 times a game). Timings are scaled down 20
    times from the defaults (``delay`` 1 s, ``settle`` 5 s, ``crawford_settle`` 0.25 s):
    a turn of the Crawford game must take no longer than a turn of a prompted game."""
    scale = {"delay": 0.05, "settle": 0.25, "crawford_settle": 0.0125}
    srv = CrawfordStallServer({"alice": "pa", "bob": "pb"}, seed=5, first_score=(2, 1)).start()
    alice, bob = _pair(scale, scale)
    try:
        with bot_running(alice, srv.port, tries=3) as ra, bot_running(bob, srv.port, tries=3):
            assert srv.wait_for(lambda: bool(srv.results), 28), srv.history[-5:]
        assert ra.rc is ExitReason.FINISHED
        crawford = [g for g in srv.game_times if g.crawford]
        other = [g for g in srv.game_times if not g.crawford]
        assert crawford and other, srv.game_times          # seed 5: the trailer wins it
        per_turn = {k: statistics.fmean(g.seconds / max(1, g.turns) for g in games)
                    for k, games in (("crawford", crawford), ("other", other))}
        assert srv.silent_turns >= crawford[0].turns - 2
        # measured: 0.12 s and 0.11 s a turn (the old bot: 0.51 s and 0.11 s)
        assert per_turn["crawford"] <= per_turn["other"] * 1.25, (per_turn, srv.game_times)
        assert _errors(srv.sent_to("alice")) == [] and _errors(srv.sent_to("bob")) == []
    finally:
        srv.stop()


def test_a_server_that_rolls_in_the_crawford_game_is_waited_for() -> None:
    """FIBS rolls for me in the Crawford game. If its roll comes after the short grace, the
    bot's own ``roll`` is refused once; from then on the bot waits the full ``settle``."""
    bot = new_bot(settle=5.0)
    bot.connected(0.0)
    in_match(bot, "alice", 3)
    line = fibs_line(Position.initial(), score=(2, 1), length=3, crawford=True)
    bot.handle_line(line, now=10.0)
    assert [s.text for s in bot.tick(10.3)] == ["roll"]
    assert [s.text for s in bot.handle_line("** You did already roll the dice.", now=10.4)] \
        == ["board"]
    bot.handle_line("You roll 3 and 1.", now=10.4)
    bot.handle_line(fibs_line(Position.initial(), (3, 1), score=(2, 1), length=3,
                              crawford=True), now=10.4)
    bot.handle_line(fibs_line(Position.initial(), mine=False, colour=-1, score=(1, 2),
                              length=3, crawford=True), now=11.0)
    bot.handle_line(line, now=12.0)
    assert bot.tick(12.5) == [] and bot.tick(16.0) == []
    assert [s.text for s in bot.tick(17.1)] == ["roll"]


# ====================================================== a flood of malformed boards


def test_a_flood_of_malformed_boards_gives_a_bounded_log(
        caplog: pytest.LogCaptureFixture) -> None:
    """Every board bob gets comes after 150 malformed copies. The old bot logged one warning
    for each (70,655 in 2 minutes on BaldLies); now the first few are logged, the rest
    counted, and the match is played as if nothing happened."""
    srv = FloodServer({"alice": "pa", "bob": "pb"}, seed=5, flood=150,
                      flood_to=frozenset({"bob"})).start()
    alice, bob = _pair()
    try:
        with caplog.at_level(logging.WARNING, "gbot.fibs"):
            with bot_running(alice, srv.port, tries=3) as ra, \
                    bot_running(bob, srv.port, tries=3) as rb:
                assert srv.wait_for(lambda: bool(srv.results), 28), srv.history[-5:]
        assert ra.rc is ExitReason.FINISHED and rb.rc is ExitReason.FINISHED
        assert bob.malformed == srv.flooded >= 5000
        warned = _warnings(caplog, "malformed board")
        assert 1 <= warned <= bob.config.warn_first + 2, warned
        assert bob.throttle.suppressed >= bob.malformed - warned - 1
        assert _errors(srv.sent_to("bob")) == []
    finally:
        srv.stop()


def test_log_throttle_bounds_each_kind_per_window(caplog: pytest.LogCaptureFixture) -> None:
    th = LogThrottle(logging.getLogger("gbot.fibs"), first=3, interval=60.0)
    with caplog.at_level(logging.INFO, "gbot.fibs"):
        for i in range(10_000):
            th.log(i * 0.01, logging.WARNING, "bad", "bad line %d", i)   # 100 s of them
        th.log(5.0, logging.INFO, "other", "another kind")
        th.flush(200.0)
    lines = [r.getMessage() for r in caplog.records]
    assert lines[:3] == ["bad line 0", "bad line 1", "bad line 2"]
    assert "another kind" in lines
    summaries = [ln for ln in lines if ln.startswith("... and")]
    assert len(lines) == 3 + 1 + 1 + 3 + 1                  # two windows of "bad"
    assert summaries[0].startswith("... and 5997 more (bad) in 60 s; the last: bad line 5999")
    assert th.suppressed == 10_000 - 6


# ====================================================== absurd numbers


def test_absurd_match_lengths_are_refused_or_capped(caplog: pytest.LogCaptureFixture) -> None:
    """A server-sent length beyond 64 points (or beyond ``max_length``) is never invited,
    joined or resumed; other numbers are capped."""
    bot = new_bot(max_length=0, unlimited=True)
    feed(bot, "login: ", "1 gbot 0 -")
    for n in ("99999999999", "65", "9998"):
        assert feed(bot, f"alice wants to play a {n} point match with you.") == []
    assert feed(bot, "alice wants to play a 64 point match with you.") == ["join alice"]
    # a saved match the server lists at 9998 points is remembered as too long: no invite,
    # and its resume invitation is declined
    bot = new_bot(max_length=7)
    feed(bot, "login: ", "1 gbot 0 -", WHO_ALICE, "6")
    feed(bot, clip.SavedHeader().line(), " alice                  9998         1 -  2")
    assert bot.saved == {"alice": TOO_LONG}
    assert bot.tick(10.0) == [] and bot.tick(100.0) == []
    assert feed(bot, "alice wants to resume a saved match with you.") == []
    feed(bot, clip.SavedHeader().line(), clip.SavedMatchRow("alice", 9, 1, 2).line())
    assert feed(bot, "alice wants to resume a saved match with you.") == []   # > max_length
    # "match length: 99999999999" after a resume is ignored; the board gives the length
    bot = new_bot(max_length=7)
    feed(bot, "login: ", "1 gbot 0 -")
    with caplog.at_level(logging.WARNING, "gbot.fibs"):
        out = feed(bot, "alice wants to resume a saved match with you.",
                   "You are now playing with alice. Your running match was loaded.",
                   "turn: gbot.", "match length: 99999999999")
    assert out == ["join alice"] and "ignoring the server's match length" in caplog.text
    assert bot.match is not None and not bot.match.length_known
    assert feed(bot, fibs_line(Position.initial(), (3, 1), length=5)) == \
        [first_move(Position.initial(), (3, 1))]
    assert bot.match.length == 5
    feed(bot, "alice drops connection. The game was saved.")
    assert bot.saved == {"alice": 5}
    # a resumed match longer than max_length is left (the server saves it)
    bot = new_bot(max_length=3)
    feed(bot, "login: ", "1 gbot 0 -")
    out = feed(bot, "You are now playing with alice. Your running match was loaded.",
               "turn: gbot.", "match length: 5")
    assert out == ["leave"]
    feed(bot, "** You terminated the game. The game was saved.")
    assert bot.saved == {"alice": 5} and bot.match is None
    # scores, ratings and experience are capped
    bot = new_bot()
    feed(bot, "login: ", "1 gbot 0 -",
         "5 alice - - 1 0 1e999 99999999999999999999 0 1 127.0.0.1 x -",
         "5 carol - - 1 0 nan -5 0 1 127.0.0.1 x -")
    assert (bot._who["alice"].rating, bot._who["alice"].experience) == (9999.99, 10_000_000)
    assert (bot._who["carol"].rating, bot._who["carol"].experience) == (0.0, 0)
    in_match(bot, "alice", 3)
    feed(bot, "score in 3 point match: gbot-99999999999999 alice-1")
    assert bot.match is not None and bot.match.score == (99_999, 1)
    feed(bot, "You win the 99999999999 point match 99999999999-1 .")
    assert list(bot.results)[0].length == 3 and list(bot.results)[0].score == (99_999, 1)


def test_an_unplayable_board_length_leaves_the_match() -> None:
    bot = new_bot()
    in_match(bot, "alice", 5)
    f = fibs_line(Position.initial(), (3, 1)).split(":")
    f[3] = "99999999999"
    assert feed(bot, ":".join(f)) == ["leave"]
    feed(bot, "** You terminated the game. The game was saved.")
    assert bot.saved == {"alice": TOO_LONG}


def test_boards_that_stay_unreadable_leave_the_match_after_dead_match_seconds() -> None:
    bot = new_bot(dead_match=120.0, stall=0.0, keepalive=0.0)
    bot.connected(0.0)
    in_match(bot, "alice", 5)
    broken = fibs_line(Position.initial(), (3, 1)).replace(":5:0:3:", ":9:0:3:", 1)
    bot.handle_line(broken, now=1.0)
    assert bot.tick(100.0) == []
    assert [s.text for s in bot.tick(122.0)] == ["leave"]
    assert bot.tick(130.0) == []


def test_servers_lying_about_lengths_get_no_absurd_invitation(
        caplog: pytest.LogCaptureFixture) -> None:
    """bob drops mid-match. The server lists the saved match at 9998 points and resumes it
    as a 99999999999-point match (its boards say 3). bob (``max_length`` 7) does not resume
    a match the list calls that long: it declines alice's invitation. (When the invitation
    comes before the list, the match is resumed on bob's own memory, and the boards' 3
    points are played.) Nobody ever invites or joins at such a length."""
    srv = LyingLengthServer({"alice": "pa", "bob": "pb"}, seed=3).start()
    alice, bob = _pair({"max_length": 7}, {"max_length": 7})
    try:
        with caplog.at_level(logging.WARNING, "gbot.fibs"):
            with bot_running(alice, srv.port, tries=3) as ra, \
                    bot_running(bob, srv.port, tries=30) as rb:
                assert srv.wait_for(lambda: "alice" in srv.matches and
                                    srv.matches["alice"].state.turn >= 5, 20)
                mark = len(srv.commands)
                srv.drop("bob")
                assert srv.wait_for(lambda: bob.logins == 2 and any(
                    c == ("alice", "invite bob 3") for c in srv.commands[-50:]), 20)
                resumed = srv.wait_for(lambda: any(h[0] == "resume" for h in srv.history),
                                       2.0)
                if resumed:
                    assert srv.wait_for(lambda: bool(srv.results), 25), srv.history[-5:]
                ra.stop.set()
                rb.stop.set()
        if resumed:          # the list came too late: the boards' length was played
            assert srv.results[0].length == 3 and bob.results[0].length == 3
        else:
            assert srv.saved and bob.saved == {"alice": TOO_LONG}
            assert ("bob", "join alice") not in srv.commands[mark:]
            assert _warnings(caplog, "the saved match with alice will not be resumed") >= 1
        assert not [c for c in srv.commands if c[1].startswith(("invite", "join")) and
                    any(n in c[1] for n in ("9998", "99999"))]
        assert _warnings(caplog, "ignoring the server's match length") == (2 if resumed else 0)
    finally:
        srv.stop()


def test_a_resumed_match_of_an_absurd_length_is_played_at_the_boards_length(
        caplog: pytest.LogCaptureFixture) -> None:
    srv = LyingLengthServer({"alice": "pa", "bob": "pb"}, seed=3, listed_length="3").start()
    alice, bob = _pair({"max_length": 7}, {"max_length": 7})
    try:
        with caplog.at_level(logging.WARNING, "gbot.fibs"):
            with bot_running(alice, srv.port, tries=3) as ra, \
                    bot_running(bob, srv.port, tries=30) as rb:
                assert srv.wait_for(lambda: "alice" in srv.matches and
                                    srv.matches["alice"].state.turn >= 5, 20)
                srv.drop("bob")
                assert srv.wait_for(lambda: bool(srv.results), 25), srv.history[-5:]
        assert ra.rc is ExitReason.FINISHED and rb.rc is ExitReason.FINISHED
        assert [h[0] for h in srv.history].count("resume") == 1
        assert _warnings(caplog, "ignoring the server's match length") >= 1
        assert alice.results[0].length == bob.results[0].length == 3
        assert not [c for c in srv.commands if "99999" in c[1]]
    finally:
        srv.stop()


# ====================================================== a stray login prompt


def test_a_stray_login_prompt_after_login_is_ignored(caplog: pytest.LogCaptureFixture) -> None:
    """The old bot took any ``login:`` after its login for a refused login and stopped."""
    bot = new_bot()
    assert feed(bot, "login: ", "1 gbot 0 -") == ["login gbot 1008 gbot s3cret",
                                                  "set boardstyle 3"]
    with caplog.at_level(logging.WARNING, "gbot.fibs"):
        assert feed(bot, "login: ", "login: ") == []
    assert bot.stop_reason is None and not bot.stopping and "login prompt" in caplog.text

    srv = StrayLoginServer({"alice": "pa", "bob": "pb"}, seed=5,
                           stray_to=frozenset({"bob"})).start()
    alice, bob = _pair()
    try:
        with bot_running(alice, srv.port, tries=3) as ra, bot_running(bob, srv.port,
                                                                      tries=3) as rb:
            assert srv.wait_for(lambda: bool(srv.results), 25), srv.history[-5:]
        assert ra.rc is ExitReason.FINISHED and rb.rc is ExitReason.FINISHED
        assert srv.strays >= 1 and bob.logins == 1
    finally:
        srv.stop()


# ====================================================== a score reset on resume


def test_a_score_reset_on_resume_is_warned_and_followed(
        caplog: pytest.LogCaptureFixture) -> None:
    """BaldLies reloads a saved match at 0-0. Both bots warn (they knew the score it was
    saved at) and play on at the server's score."""
    srv = ResetScoreServer({"alice": "pa", "bob": "pb"}, seed=3).start()
    alice, bob = _pair()

    def scored_and_playing() -> bool:
        m = srv.matches.get("alice")
        return m is not None and m.state.score != (0, 0) and \
            m.state.game_state == GameState.PLAYING and m.state.turn >= 2

    try:
        with caplog.at_level(logging.WARNING, "gbot.fibs"):
            with bot_running(alice, srv.port, tries=3) as ra, \
                    bot_running(bob, srv.port, tries=30) as rb:
                assert srv.wait_for(scored_and_playing, 20)
                with srv._lock:
                    at_drop = srv.matches["alice"].state.score
                    srv.drop("bob")
                assert srv.wait_for(lambda: bool(srv.results), 25), srv.history[-5:]
        assert ra.rc is ExitReason.FINISHED and rb.rc is ExitReason.FINISHED
        resumed = [h for h in srv.history if h[0] == "resume"]
        assert len(resumed) == 1 and resumed[0][3] == (0, 0) != at_drop
        assert _warnings(caplog, "resumed the match with bob at 0-0") == 1        # alice
        assert _warnings(caplog, "resumed the match with alice at 0-0") == 1      # bob
    finally:
        srv.stop()


def test_resumed_score_is_compared_with_the_saved_one(tmp_path: Any,
                                                      caplog: pytest.LogCaptureFixture
                                                      ) -> None:
    bot = new_bot()
    in_match(bot, "alice", 5)
    feed(bot, "score in 5 point match: gbot-2 alice-1", fibs_line(Position.initial(),
                                                                  score=(2, 1)))
    feed(bot, "alice drops connection. The game was saved.")
    assert bot.saved == {"alice": 5} and bot.saved_scores == {"alice": (2, 1)}
    store = SavedStore(tmp_path / "s.json")
    store.save(bot.saved, bot.saved_scores)
    assert store.load() == {"alice": 5} and store.load_scores() == {"alice": (2, 1)}
    with caplog.at_level(logging.WARNING, "gbot.fibs"):
        feed(bot, "You are now playing with alice. Your running match was loaded.",
             "turn: gbot.", "match length: 5", "points for user gbot: 2",
             "points for user alice: 1")
        assert "when saved" not in caplog.text                 # the same score: no warning
        feed(bot, "alice drops connection. The game was saved.",
             "You are now playing with alice. Your running match was loaded.",
             "turn: gbot.", "match length: 5", "points for user gbot: 0",
             "points for user alice: 0", fibs_line(Position.initial(), score=(0, 0)))
    assert caplog.text.count("at 0-0, but it was 2-1 when saved") == 1
    assert bot.match is not None and bot.match.score == (0, 0)
