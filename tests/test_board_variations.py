"""Board lines of every variation gnubg plays, and the match-length bound (issue 15).

gnubg 1.07 with ``set variation 1-chequer-hypergammon`` (2-, 3-) writes board lines with 1, 2
or 3 checkers a side and nothing borne off; before the fix every such line was refused as
"not 15 each". The oracle for the lines is gnubg itself (captured lines below, and a match
refereed by gnubg in ``test_gnubg_referees_hypergammon``); for the plays, gbot's move generator
(which agrees with gnubg's on the vectors) applied to the position the line describes.
Match lengths above gnubg's 64 points are refused at the board line, before any match-equity
work (a 4,000-point line took 11 s and 425 MB before).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gbot.adapters.gnubg_external import Session, handle_line
from gbot.core import boardline
from gbot.engine.engine import Engine
from gbot.errors import FibsBoardError
from gbot.game.notations.fibs_board import (
    MAX_MATCH_LENGTH,
    FibsBoard,
    format_fibs_board,
    line_checkers,
    parse_fibs_board,
)
from gbot.game.position import Position

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gnubg_harness  # noqa: E402

# captured from gnubg 1.07 refereeing gbot with "set variation 1-chequer-hypergammon"
GNUBG_HYPER1 = [
    "board:gnubg:gbot:3:0:0:0:0:0:0:0:0:-1:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:1:0:1:0:0:0:0:"
    "1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1",
    "board:gnubg:gbot:3:0:0:0:0:0:0:0:0:-1:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:1:0:1:5:6:5:6:"
    "1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1",
    "board:gnubg:gbot:3:0:0:0:0:0:0:0:0:0:0:0:-1:0:0:0:1:0:0:0:0:0:0:0:0:0:0:0:0:1:4:4:4:4:"
    "1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1",
]


def line(n: int, dice: tuple[int, int] = (3, 1), length: int = 0, off: int = 0,
         mine: dict[int, int] | None = None, theirs: dict[int, int] | None = None) -> str:
    """A gnubg referee line for player 1 (positive) with ``n`` checkers a side, ``off`` of
    each borne off; the rest on the 24-, 23-, 22-points ... (the opponent's 1, 2, 3 ...)
    unless ``mine`` / ``theirs`` place them."""
    p = [0] * 26
    for i in range(n - off):
        if mine is None:
            p[24 - i % 6] += 1
        if theirs is None:
            p[1 + i % 6] -= 1
    for pt, k in (mine or {}).items():
        p[pt] += k
    for pt, k in (theirs or {}).items():
        p[pt] -= k
    nums = [length, 0, 0, *p, 1, *dice, *dice, 1, 1, 1, 0, 1, -1, 0, 25, off, off,
            0, 0, 0, 0, 0, 1]
    return "board:gnubg:you:" + ":".join(map(str, nums))


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine()


@pytest.mark.parametrize("text", GNUBG_HYPER1)
def test_gnubgs_hypergammon_lines_are_read_and_round_trip(text: str) -> None:
    fb = parse_fibs_board(text)
    assert fb.checkers == 1 and fb.variation == "hyper1"
    assert fb.state.rules.variation == "hyper1" and fb.state.rules.checkers == 1
    assert fb.line() == text


@pytest.mark.parametrize("n", [1, 2, 3, 7, 15])
@pytest.mark.parametrize("dialect", ["gnubg_external", "fibs"])
def test_every_checker_count_round_trips_in_both_dialects(n: int, dialect: str) -> None:
    fb = parse_fibs_board(line(n))
    assert fb.checkers == n
    assert fb.variation == {1: "hyper1", 2: "hyper2", 3: "hyper3", 15: "standard"}.get(n)
    other = format_fibs_board(fb, dialect)  # type: ignore[arg-type]
    back = parse_fibs_board(other)
    assert back.checkers == n and back.points == fb.points
    assert format_fibs_board(back, "gnubg_external") == line(n)


def test_borne_off_checkers_count_towards_the_variation() -> None:
    fb = parse_fibs_board(line(3, off=2, mine={3: 1}, theirs={22: 1}))
    assert fb.checkers == 3
    assert fb.line() == line(3, off=2, mine={3: 1}, theirs={22: 1})


@pytest.mark.parametrize("bad", [
    line(3).replace(":25:0:0:", ":25:1:0:"),                           # 4 against 3
    line(15).replace(":25:0:0:", ":25:1:1:"),                          # 16 each
    line(0),                                                            # no checkers at all
])
def test_impossible_checker_counts_are_refused(bad: str) -> None:
    with pytest.raises(FibsBoardError, match="checkers"):
        parse_fibs_board(bad)


def test_standard_lines_keep_the_fast_reader_and_hypergammon_goes_to_python() -> None:
    for n, fast in ((15, True), (3, False), (1, False)):
        text = line(n)
        rest = text.split(":", 3)[3].encode("ascii")
        out = np.empty(boardline.N_OUT, dtype=np.int64)
        assert bool(boardline.read_gnubg_numbers(np.frombuffer(rest, dtype=np.uint8), out)) is fast
        parse_fibs_board(text)      # both are readable


@pytest.mark.parametrize("n", [1, 2, 3])
def test_hypergammon_moves_are_legal_plays(engine: Engine, n: int) -> None:
    session = Session(engine)
    for dice in ((3, 1), (6, 6), (5, 2)):
        text = line(n, dice)
        reply, end = handle_line(session, text)
        assert reply is not None and not end and not reply.startswith("Error"), reply
        pos = parse_fibs_board(text).position
        play = pos.play_from_text(reply, dice)
        assert play.position.board.tolist() in [p.position.board.tolist()
                                                 for p in pos.legal_plays(dice)]


def test_hypergammon_bear_off_with_fewer_checkers(engine: Engine) -> None:
    # 2 checkers on my 2- and 1-points, the opponent still far back: 6-5 bears both off
    text = line(2, (6, 5), mine={2: 1, 1: 1}, theirs={20: 2})
    reply, _ = handle_line(Session(engine), text)
    assert reply is not None
    assert sorted(reply.split()) == ["1/off", "2/off"]
    # and the cube question, evaluation and take question all answer (no Error)
    for text in (line(2, (0, 0), length=5), "evaluation fibsboard " + line(3, (0, 0))):
        reply, _ = handle_line(Session(engine), text)
        assert reply is not None and not reply.startswith("Error"), reply


def test_line_checkers_finds_the_board_inside_a_request() -> None:
    assert line_checkers(line(2)) == 2
    assert line_checkers("evaluation fibsboard " + line(3) + " plies 1") == 3
    assert line_checkers("version") is None
    assert line_checkers(line(15)[:-4]) is None


# --- match length -----------------------------------------------------------------------


def test_match_lengths_up_to_gnubgs_64_are_read() -> None:
    fb = parse_fibs_board(line(15, length=MAX_MATCH_LENGTH))
    assert fb.match_length == 64 == MAX_MATCH_LENGTH


@pytest.mark.parametrize("length", [65, 4000, 16000, 32767, 999999])
def test_longer_matches_get_a_clear_error_at_once(engine: Engine, length: int) -> None:
    text = line(15, (0, 0), length=length)
    with pytest.raises(FibsBoardError, match="beyond the 64 points"):
        parse_fibs_board(text)
    rest = text.split(":", 3)[3].encode("ascii")
    out = np.empty(boardline.N_OUT, dtype=np.int64)
    assert not boardline.read_gnubg_numbers(np.frombuffer(rest, dtype=np.uint8), out)
    reply, end = handle_line(Session(engine), text)     # no match-equity table is built
    assert reply is not None and reply.startswith("Error") and "64" in reply and not end


def test_fibs_dialect_is_bounded_too() -> None:
    fb = parse_fibs_board(line(15, length=7))
    fibs = format_fibs_board(fb, "fibs")
    fields = fibs.split(":")
    fields[3] = "65"
    with pytest.raises(FibsBoardError, match="beyond the 64 points"):
        parse_fibs_board(":".join(fields), "fibs")


@given(n=st.integers(1, 15), length=st.integers(0, 200), seed=st.integers(0, 2**31))
@settings(max_examples=150, deadline=None)
def test_property_counts_and_lengths(n: int, length: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    mine: dict[int, int] = {}
    theirs: dict[int, int] = {}
    on = int(rng.integers(1, n + 1))
    for _ in range(on):
        pt = int(rng.integers(1, 13))
        mine[pt] = mine.get(pt, 0) + 1
    for _ in range(on):
        pt = int(rng.integers(13, 25))
        theirs[pt] = theirs.get(pt, 0) + 1
    text = line(n, off=n - on, mine=mine, theirs=theirs, length=length)
    if length > MAX_MATCH_LENGTH:
        with pytest.raises(FibsBoardError):
            parse_fibs_board(text)
        return
    fb = parse_fibs_board(text)
    assert fb.checkers == n
    assert isinstance(fb, FibsBoard) and fb.line() == text
    pos = fb.position
    assert isinstance(pos, Position)


# --- gnubg as referee ---------------------------------------------------------------------


@pytest.mark.gnubg
@pytest.mark.skipif(gnubg_harness.find_gnubg() is None, reason="Debian's gnubg is not installed")
@pytest.mark.parametrize("variation, checkers", [("1-chequer-hypergammon", 1),
                                                 ("2-chequer-hypergammon", 2)])
def test_gnubg_referees_hypergammon(engine: Engine, variation: str, checkers: int) -> None:
    """gnubg's own seat needs /var/lib/gnubg/hyperN.bd (``/usr/games/makehyper -c N`` run
    there builds it: hyper1 at once, hyper2 in minutes); without it gnubg cannot move."""
    if not Path(f"/var/lib/gnubg/hyper{checkers}.bd").exists():
        pytest.skip(f"/var/lib/gnubg/hyper{checkers}.bd missing (run /usr/games/makehyper "
                    f"-c {checkers} in /var/lib/gnubg)")
    from gbot.adapters.gnubg_server import BackgroundServer

    with BackgroundServer(engine) as srv:
        for kw in ({"match": 3}, {"games": 2}):
            r = gnubg_harness.play(str(srv.address), variation=variation, timeout=240,
                                   seed=5, **kw)   # type: ignore[arg-type]
            assert r.clean, (r.summary(), r.protocol_errors, r.forfeits, r.notes)
            assert r.bot_moves(), r.summary()


def test_the_engine_refuses_longer_matches_from_any_source(engine: Engine) -> None:
    from gbot.errors import MatchRuleError
    from gbot.game.match import MAX_MATCH_LENGTH, MatchState

    # a Match ID holds up to 32767 points; the engine must not build a table for it
    long = MatchState.from_match_id(MatchState(match_length=32767, score=(5, 9)).match_id())
    pos = Position.initial()
    for ask in (lambda: engine.cube_action(pos, long), lambda: engine.respond_double(pos, long),
                lambda: engine.choose_play(pos, (3, 1), long),
                lambda: engine.accept_resignation(pos, long, 1)):
        with pytest.raises(MatchRuleError, match="beyond the 64 points"):
            ask()
    ok = MatchState(match_length=MAX_MATCH_LENGTH, score=(60, 62))
    assert engine.cube_action(pos, ok) in ("double", "roll")


@pytest.mark.parametrize("variation, n", [("hyper1", 1), ("hyper2", 2), ("hyper3", 3),
                                          ("nackgammon", 15)])
def test_tournament_lines_count_checkers_as_gnubg_does(variation: str, n: int) -> None:
    """A tournament's external players get the lines gnubg writes for the variation: nothing
    borne off at the start (they said 15 - n borne off before)."""
    from gbot.game.match import Rules
    from gbot.game.referee import Referee
    from gbot.tournament.players import board_line

    ref = Referee(length=3, rules=Rules(variation=variation), seed=1)
    ref.roll()
    s = ref.state
    text = board_line(s, s.player_to_act, ("a", "b"), "move")
    fields = text.split(":")
    assert fields[45:47] == ["0", "0"]           # borne-off counts (fields 44 and 45)
    fb = parse_fibs_board(text)
    assert fb.checkers == n and fb.variation == ("standard" if n == 15 else variation)
