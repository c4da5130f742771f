"""The gnubg external-player protocol layer (:func:`gbot.adapters.gnubg_external.handle_line`).

Oracles: gnubg 1.07 itself, through the golden transcripts in ``protocols/transcripts/``
(captured live, gnubg as referee and as server) and the 1,500 referee board lines with
gnubg's own replies in ``../shared/vectors``; the rules, through :meth:`Position.play_from_text`
(every move reply must be one complete legal play); and invariants under fuzzing (one reply
line under 256 bytes, never an exception, never a hang).
"""

from __future__ import annotations

import ast
import random
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gbot.adapters.gnubg_external import MAX_REPLY, Session, handle_line
from gbot.engine.engine import Engine
from gbot.game.match import MatchState, Rules
from gbot.game.notations.fibs_board import parse_fibs_board
from gbot.game.position import Play, Position

ROOT = Path(__file__).resolve().parents[1]
TRANSCRIPTS = ROOT / "protocols" / "transcripts"
SHARED = Path(__file__).resolve().parents[2] / "shared"

START = "0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0"
MOVE = f"board:gnubg:you:3:0:0:{START}:-1:5:2:5:2:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1"
CUBE = f"board:gnubg:you:3:0:0:{START}:1:0:0:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1"
MONEY_CUBE = f"board:gnubg:you:0:0:0:{START}:1:0:0:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1"
TAKE = ("board:ext:gnubg:3:1:0:0:0:0:-2:0:3:3:2:2:0:1:0:-2:4:-2:0:0:-1:0:-3:0:-2:0:-2:-1:0"
        ":-1:0:0:0:0:2:0:1:1:1:-1:0:25:0:0:0:0:0:0:0:1")
DANCE = ("board:gnubg:you:0:0:0:0:" + ":".join(["0"] * 12 + ["4", "9"] + ["0"] * 4 + ["-2"] * 6)
         + ":2:1:6:6:6:6:1:1:1:0:1:-1:0:25:0:3:0:0:0:0:0:1")
# Captured live: gnubg (player 1) beavered the bot's double in a money game; the bot (player 0,
# turn -1) is asked to accept the cube at 4.
BEAVERED = ("board:gnubg:gbot:0:0:1:0:-2:0:0:0:0:5:1:4:0:0:0:-3:3:0:0:0:-3:0:-4:2:0:-1:0:-2:0"
            ":-1:0:0:0:0:2:1:0:1:1:-1:0:25:0:0:0:0:0:0:0:1")


class FirstPlay(Engine):
    """A fast stand-in engine for the fuzz loop: the first legal play, roll, take."""

    def __init__(self, rules: Rules | None = None) -> None:
        super().__init__(evaluator=None, rules=rules)
        self.evaluator = None
        self._cube = None

    def choose_play(self, pos: Position, dice: tuple[int, int] | list[int]) -> Play | None:
        plays = pos.legal_plays(dice)
        return plays[0] if plays else None


class Scripted(FirstPlay):
    """Answers chosen by the test."""

    def __init__(self, resign: int = 0, cube: str = "roll", take: str = "take",
                 fail: bool = False) -> None:
        super().__init__(Rules(beavers=True))
        self.resign, self.cube, self.take, self.fail = resign, cube, take, fail

    def may_resign(self, pos: Position) -> bool:
        return True

    def resign_offer(self, pos: Position, state: MatchState) -> int:
        if self.fail:
            raise RuntimeError("engine bug")
        return self.resign

    def cube_action(self, pos: Position, state: MatchState) -> str:  # type: ignore[override]
        return self.cube

    def respond_double(self, pos: Position, state: MatchState) -> str:  # type: ignore[override]
        return self.take


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine(rules=Rules(jacoby=True, beavers=True))


def ask(session: Session, line: str | bytes) -> str | None:
    reply, end = handle_line(session, line)
    assert not end
    return reply


def assert_one_line(reply: str | None) -> None:
    assert reply is not None
    assert "\n" not in reply and "\r" not in reply
    assert len(reply.encode()) <= MAX_REPLY


RESIGNS = ("resign", "resign gammon", "resign backgammon")


def assert_legal_move(line: str, reply: str) -> None:
    """``reply`` is one complete legal play of the line's roll (empty only if none exists),
    or a resignation."""
    if reply in RESIGNS:
        return
    fb = parse_fibs_board(line.strip("\x00"))
    plays = fb.position.legal_plays(fb.dice)
    if not plays:
        assert reply == ""
        return
    assert reply, f"empty reply but {fb.dice} can be played in {fb.position.id()}"
    assert not reply.startswith("Error")
    # gnubg's parser would crash on '-' separators: only digits, bar, off, '/', '*', (n)
    assert re.fullmatch(r"[0-9a-z/*() ]+", reply), reply
    fb.position.play_from_text(reply, fb.dice)


# --- the commands gnubg's own server answers ---------------------------------------------------


def test_version_has_gnubgs_four_lines(engine: Engine) -> None:
    reply = ask(Session(engine), "version")
    assert reply is not None
    keys = [ln.split(":")[0] for ln in reply.split("\n")]
    assert keys == ["Interface", "RFBF", "Engine", "Software"]
    assert reply.split("\n")[:2] == ["Interface: 2", "RFBF: 0"]


@pytest.mark.parametrize("line,reply", [
    ("set debug on", "Debug output ON"),
    ("set debug off", "Debug output OFF"),
    ("SET DEBUG YES", "Debug output ON"),
    ("set interface new", "New interface ON"),
    ("set interface old", "New interface OFF"),
    ("set prompt 'x'", "Error: set option 'prompt' not supported"),
    ("", "Error: no command given"),
    ("\x00", "Error: no command given"),
    ("  \r", "Error: no command given"),
])
def test_set_and_empty_match_gnubg(engine: Engine, line: str, reply: str) -> None:
    assert ask(Session(engine), line) == reply


@pytest.mark.parametrize("word", ["exit", "quit", "EXIT", "\x00quit\r\n"])
def test_exit_ends_the_session_silently(engine: Engine, word: str) -> None:
    assert handle_line(Session(engine), word) == (None, True)


def test_help_is_one_tabbed_line(engine: Engine) -> None:
    reply = ask(Session(engine), "help")
    assert_one_line(reply)
    assert reply is not None and reply.startswith("\t")


@pytest.mark.parametrize("line", ["foo", "hello world", "board:", "board:gnubg:you:3:0:0",
                                  MOVE + ":7", MOVE.replace(":3:0:0:", ":3:3:0:", 1),
                                  "evaluation", "evaluation fibsboard", MOVE + " plies 2",
                                  MOVE + " resignation 4", MOVE + " jacobyrule maybe",
                                  "\x00\x00board:\x00x", "board:" + "9" * 3000])
def test_unreadable_requests_get_one_error_line(engine: Engine, line: str) -> None:
    session = Session(engine)
    reply = ask(session, line)
    assert_one_line(reply)
    assert reply is not None and reply.startswith("Error: ")
    assert_legal_move(MOVE, ask(session, MOVE) or "")   # the session carries on


# --- referee questions -----------------------------------------------------------------------


def test_move_reply_is_legal_and_nul_is_ignored(engine: Engine) -> None:
    session = Session(engine)
    plain = ask(session, MOVE)
    assert plain is not None
    assert_legal_move(MOVE, plain)
    assert ask(session, "\x00" + MOVE + "\n") == plain
    assert ask(session, (MOVE + "\r\n\x00").encode()) == plain
    assert ask(session, "BOARD:" + MOVE[6:]) == plain


def test_names_with_blanks_and_options(engine: Engine) -> None:
    session = Session(engine)
    spaced = MOVE.replace("board:gnubg:you:", "board:G N U:my bot:", 1)
    reply = ask(session, spaced)
    assert reply is not None
    assert_legal_move(MOVE, reply)
    assert ask(session, spaced + "  jacobyrule off beavers on") == reply
    assert ask(session, CUBE.replace("gnubg:you", "a b:c d") + " resignation 3") == "accept"


def test_dance_is_an_empty_line(engine: Engine) -> None:
    assert ask(Session(engine), DANCE) == ""


def test_cube_questions(engine: Engine) -> None:
    session = Session(engine)
    assert ask(session, CUBE) in ("roll", "double")
    assert ask(session, TAKE) in ("take", "drop")           # match play: no beaver
    assert ask(session, BEAVERED) == "take"                  # accept the beaver, never raccoon


def test_beaver_only_where_allowed() -> None:
    money_take = BEAVERED.replace(":2:1:0:1:1:-1:", ":1:1:1:1:1:-1:").replace(
        ":0:-1:0:0:0:0:", ":0:1:0:0:0:0:", 1)
    fb = parse_fibs_board(money_take)
    assert fb.question == "take_or_drop" and fb.match_length == 0
    beaverer = Scripted(take="beaver")
    assert ask(Session(beaverer), money_take) == "beaver"
    assert ask(Session(beaverer), money_take + " beavers off") == "take"
    assert ask(Session(beaverer), TAKE) == "take"           # never in a match


def test_a_declined_resignation_is_not_offered_again_that_game() -> None:
    """gnubg 1.07 refuses (and stops play) when an offer it declined comes again in the same
    game, also on a later question; a decline shows as the next question at the same score."""
    session = Session(Scripted(resign=2))
    assert ask(session, MOVE) == "resign gammon"
    again = ask(session, MOVE)                 # declined: gnubg asks the same question again
    assert again is not None
    assert_legal_move(MOVE, again)
    assert ask(session, CUBE) == "roll"        # a later question of the same game
    session.engine.resign = 3                  # type: ignore[attr-defined]
    assert ask(session, CUBE) == "resign backgammon"      # a higher level may be offered
    next_game = CUBE.replace(":3:0:0:", ":3:0:1:", 1)    # the score moved: a new game
    session.engine.resign = 1                  # type: ignore[attr-defined]
    assert ask(session, next_game) == "resign"
    assert ask(Session(Scripted(resign=1)), CUBE) == "resign"
    assert ask(Session(Scripted(resign=3)), MOVE) == "resign backgammon"


def test_opponent_resignations(engine: Engine) -> None:
    session = Session(engine)
    for level in (1, 2, 3):     # gnubg accepts all three at the opening position
        assert ask(session, f"{CUBE} resignation {level}") == "accept"
    # a gammonish position for me: a single game is not enough
    gammonish = ("board:gnubg:you:0:0:0:-6:0:0:0:0:3:0:3:0:0:0:0:3:0:0:0:0:-2:2:-3:-2:-2:0:2:2"
                 ":0:1:0:0:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1")
    fb = parse_fibs_board(gammonish)
    if engine.probabilities(fb.position)[1] > 0.5:
        assert ask(Session(Engine(rules=Rules())), gammonish + " resignation 1") == "reject"
        assert ask(Session(Engine(rules=Rules())), gammonish + " resignation 3") == "accept"


def test_engine_failure_is_an_error_line_not_a_crash() -> None:
    session = Session(Scripted(fail=True))
    reply = ask(session, MOVE)
    assert reply is not None and reply.startswith("Error: internal error")
    assert session.errors == 1


def test_evaluation_prints_six_numbers(engine: Engine) -> None:
    session = Session(engine)
    for line in (CUBE, MONEY_CUBE, TAKE):
        for opts in ("plies 0 cubeful", "plies 0 cubeless", "plies 0", "cube off noise 0.0"):
            reply = ask(session, f"evaluation fibsboard {line} {opts}")
            assert reply is not None
            nums = reply.split(" ")
            assert len(nums) == 6 and all(re.fullmatch(r"-?\d+\.\d{6}", n) for n in nums), reply
            p = [float(n) for n in nums]
            assert 0 <= p[0] <= 1 and p[1] <= p[0] + 1e-6 and p[3] <= 1 - p[0] + 1e-6
    start = ask(session, f"evaluation fibsboard {MONEY_CUBE} plies 0 cubeless")
    assert start is not None and abs(float(start.split()[0]) - 0.5) < 0.1   # gnubg: 0.5215


def test_debug_lines_precede_the_answer(engine: Engine) -> None:
    session = Session(engine)
    ask(session, "set debug on")
    reply = ask(session, MOVE)
    assert reply is not None
    *dbg, answer = reply.split("\n")
    assert dbg and all(d.startswith("DBG: ") for d in dbg)
    assert_legal_move(MOVE, answer)


# --- gnubg's own referee lines (shared vectors) ------------------------------------------------


def _vectors() -> list[dict[str, object]]:
    import json

    path = SHARED / "vectors" / "gnubg_external_boards.jsonl"
    if not path.exists():
        pytest.skip(f"{path} not available")
    return [json.loads(ln) for ln in path.open() if ln.strip()]


def test_every_referee_vector_gets_a_valid_reply(engine: Engine) -> None:
    session = Session(engine)
    counts = {"move": 0, "empty": 0, "cube": 0, "take": 0, "resign": 0}
    for vec in _vectors():
        line, gnubg_reply = str(vec["line"]), str(vec["reply"]).strip()
        reply = ask(session, "\x00" + line)
        assert_one_line(reply)
        assert reply is not None
        if reply in RESIGNS:
            assert vec["question"] != "take_or_drop"
            fb = parse_fibs_board(line)
            assert engine.probabilities(fb.position)[0] < 0.01, line
            counts["resign"] += 1
        elif vec["question"] == "move":
            assert_legal_move(line, reply)
            assert (reply == "") == (gnubg_reply == ""), line       # empty exactly when gnubg's is
            counts["empty" if not reply else "move"] += 1
        elif vec["question"] == "double_or_roll":
            assert reply in ("roll", "double"), line
            counts["cube"] += 1
        else:
            assert reply in ("take", "drop"), line                  # no beavers in these sessions
            counts["take"] += 1
    assert counts["move"] + counts["empty"] + counts["cube"] + counts["resign"] == 921 + 86 + 458
    assert counts["take"] == 35 and counts["empty"] <= 86 and counts["resign"] < 60


# --- golden transcripts ------------------------------------------------------------------------


def _transcript(name: str) -> list[tuple[str, bytes]]:
    path = TRANSCRIPTS / name
    rows = []
    for raw in path.read_text().splitlines():
        if raw[:2] in ("C ", "S "):
            rows.append((raw[0], ast.literal_eval(raw[2:])))
    return rows


def _exchanges(rows: list[tuple[str, bytes]]) -> Iterator[tuple[bytes, list[bytes]]]:
    """(request line as the server's framing sees it, gnubg's reply lines)."""
    pending = b""
    request: bytes | None = None
    replies: list[bytes] = []
    for who, data in rows:
        if who == "S":
            replies.append(data)
            continue
        pending += data                  # gnubg's NUL joins the next request
        if pending.endswith(b"\n"):
            if request is not None:
                yield request, replies
            request, replies, pending = pending[:-1], [], b""
    if request is not None:
        yield request, replies


REFEREE = sorted(p.name for p in TRANSCRIPTS.glob("referee-*.txt"))


@pytest.mark.parametrize("name", REFEREE)
def test_referee_transcript_replay(engine: Engine, name: str) -> None:
    """Every question gnubg asked as referee: gnubg's own answer is legal under our reading
    of the line, and ours is of the same kind (and empty exactly when gnubg's is)."""
    session = Session(engine)
    n = 0
    for request, replies in _exchanges(_transcript(name)):
        assert request.startswith(b"\x00board:") or n == 0
        gnubg = b"".join(replies).decode().strip("\n")
        fb = parse_fibs_board(request.decode().strip("\x00"))
        ours = ask(session, request)
        assert_one_line(ours)
        assert ours is not None
        if fb.question == "move":
            assert_legal_move(request.decode(), gnubg.strip())
            assert_legal_move(request.decode(), ours)
            assert (ours == "") == (gnubg.strip() == "") or ours in RESIGNS
        elif fb.question == "double_or_roll":
            assert gnubg in ("roll", "double") and ours in ("roll", "double", *RESIGNS)
        else:
            assert gnubg in ("take", "drop", "beaver") and ours in ("take", "drop", "beaver")
        n += 1
    assert n >= 25


def test_server_transcript_replay(engine: Engine) -> None:
    """gnubg as server: same reply kind for every probe; exact text where gnubg's is fixed."""
    session = Session(engine)
    seen = 0
    for request, replies in _exchanges(_transcript("server-probe.txt")):
        text = request.decode()
        gnubg = b"".join(replies).decode()
        reply, end = handle_line(session, request)
        seen += 1
        if text in ("quit", "exit"):
            assert (reply, end) == (None, True) and gnubg == ""
            continue
        assert reply is not None and not end
        g_lines = gnubg.rstrip("\n").split("\n")
        if text == "version":
            assert [ln.split(":")[0] for ln in reply.split("\n")] == [
                ln.split(":")[0] for ln in g_lines]
        elif text.startswith("set ") or text == "":
            assert reply == g_lines[0]
        elif text == "help":
            assert reply.startswith("\t") and g_lines[0].startswith("\t")
        elif text.startswith("fibsboard "):
            # 1.07 rejects this spelling; we accept it as later gnubg versions do
            assert g_lines[0].startswith("Error") and not reply.startswith("Error")
        elif text == "board:gnubg:you:3:0:0":
            # gnubg reuses the previous request's fields; we refuse a short board
            assert reply.startswith("Error")
        elif g_lines[0].startswith("Error"):
            assert reply.startswith("Error: "), text
        elif g_lines[-1].startswith("DBG") or g_lines[0].startswith("DBG"):
            assert reply.split("\n")[0].startswith("DBG: ")
            assert_legal_move(text, reply.split("\n")[-1])
        elif text.startswith("evaluation"):
            assert len(reply.split()) == 6 == len(g_lines[0].split())
        elif " resignation " in text:
            assert reply in ("accept", "reject") and g_lines[0] in ("accept", "reject")
            assert reply == g_lines[0]
        else:
            head = "board:" + text.split(" ")[0][6:]
            fb = parse_fibs_board(head)
            if fb.question == "move":
                assert_legal_move(head, g_lines[0].strip())
                assert_legal_move(head, reply)
            elif fb.question == "double_or_roll":
                assert reply in ("roll", "double", *RESIGNS) and g_lines[0] in ("roll", "double")
            else:
                assert reply in ("take", "drop", "beaver") and g_lines[0] == "take"
    assert seen >= 35


# --- fuzzing -----------------------------------------------------------------------------------


def _seed_lines() -> list[str]:
    lines = [MOVE, CUBE, MONEY_CUBE, TAKE, DANCE, BEAVERED]
    for name in REFEREE:
        for request, _ in _exchanges(_transcript(name)):
            lines.append(request.decode().strip("\x00"))
    return lines


_WORDS = ["board:", "evaluation", "fibsboard", "set", "debug", "interface", "version", "help",
          "on", "off", "plies", "cubeful", "cubeless", "resignation", "jacobyrule", "beavers",
          "crawfordrule", "noise", "prune", "cube", "deterministic", "1", "2", "3", "-1",
          "99999999999999999999", "nan", "'a b'", "\x00", "\r", "\t", ":", "::", "/"]


def _mutate(rng: random.Random, line: str) -> str | bytes:
    kind = rng.randrange(12)
    fields = line.split(":")
    if kind == 0 and len(fields) > 3:
        i = rng.randrange(1, len(fields))
        fields[i] = str(rng.choice([0, 1, -1, 2, 6, 7, 15, 16, 25, 26, -15, 9999, 32768,
                                    rng.randrange(-100, 100)]))
        return ":".join(fields)
    if kind == 1 and len(fields) > 3:
        del fields[rng.randrange(1, len(fields))]
        return ":".join(fields)
    if kind == 2:
        i = rng.randrange(1, len(fields))
        fields.insert(i, fields[i - 1])
        return ":".join(fields)
    if kind == 3:
        return line[:rng.randrange(len(line) + 1)]
    if kind == 4:
        pos = rng.randrange(len(line) + 1)
        junk = "".join(chr(rng.randrange(0, 256)) for _ in range(rng.randrange(1, 6)))
        return line[:pos] + junk + line[pos:]
    if kind == 5:
        raw = bytearray(line.encode())
        for _ in range(rng.randrange(1, 4)):
            raw[rng.randrange(len(raw))] = rng.randrange(256)
        return bytes(raw)
    if kind == 6:
        return "evaluation fibsboard " + line + " " + " ".join(
            rng.choice(_WORDS) for _ in range(rng.randrange(0, 5)))
    if kind == 7:
        return line + " " + " ".join(rng.choice(_WORDS) for _ in range(rng.randrange(1, 5)))
    if kind == 8:
        return " ".join(rng.choice(_WORDS) for _ in range(rng.randrange(0, 6)))
    if kind == 9:
        i = rng.randrange(1, len(fields))
        fields[i] = "-" + fields[i] if not fields[i].startswith("-") else fields[i][1:]
        return ":".join(fields)
    if kind == 10:
        return line.upper() if rng.random() < 0.5 else line.swapcase()
    return bytes(rng.randrange(256) for _ in range(rng.randrange(0, 300)))


def _check_reply(reply: str | None, end: bool, line: str | bytes) -> None:
    if end:
        assert reply is None
        return
    assert reply is not None, line
    lines = reply.split("\n")
    if not reply.startswith(("Interface: ", "DBG: ")):
        assert len(lines) == 1, (line, reply)
    for ln in lines:
        assert len(ln.encode()) <= MAX_REPLY, (line, reply)
        assert "\r" not in ln and "\x00" not in ln


def test_fuzz_100000_mutated_lines() -> None:
    """100,000 mutated and random request lines: always one short reply, never an
    exception, never slow; valid-looking move questions still get legal plays."""
    rng = random.Random(20240611)
    seeds = _seed_lines()
    session = Session(FirstPlay(Rules(beavers=True, jacoby=True)))
    worst = 0.0
    moves = 0
    t_all = time.perf_counter()
    for _ in range(100_000):
        line = _mutate(rng, rng.choice(seeds))
        t0 = time.perf_counter()
        reply, end = handle_line(session, line)
        worst = max(worst, time.perf_counter() - t0)
        _check_reply(reply, end, line)
        if end:
            session = Session(session.engine)
        elif reply and isinstance(line, str) and not reply.startswith(("Error", "DBG")):
            head = line.strip().strip("\x00")
            if head.startswith("board:") and " " not in head:
                try:
                    fb = parse_fibs_board(head)
                except ValueError:
                    continue
                if fb.question == "move":
                    fb.position.play_from_text(reply, fb.dice)
                    moves += 1
    assert worst < 1.0
    assert moves > 1000
    assert time.perf_counter() - t_all < 300


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.binary(max_size=400), st.text(max_size=400)))
def test_fuzz_arbitrary_input(line: str | bytes) -> None:
    session = Session(FirstPlay())
    reply, end = handle_line(session, line)
    _check_reply(reply, end, line)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.randoms(use_true_random=False), st.integers(1, 6), st.integers(1, 6),
       st.sampled_from([0, 3, 7]), st.booleans())
def test_fuzz_random_positions_get_legal_plays(rnd: random.Random, d1: int, d2: int,
                                               length: int, positive: bool) -> None:
    """Random legal positions written as gnubg referee lines: the reply is a legal play."""
    from gbot.game.notations.fibs_board import FibsBoard

    points = [0] * 26
    free = list(range(1, 25))
    for sign in (1, -1):
        for _ in range(15):
            spot = rnd.choice(free + [25 if sign > 0 else 0] * 2 + [-1] * 3)
            if spot == -1:
                continue                      # borne off
            if 1 <= spot <= 24 and points[spot] * sign < 0:
                continue
            points[spot] += sign
    if sum(v for v in points[1:25] if v > 0) + points[25] == 0 or \
            sum(v for v in points[1:25] if v < 0) + points[0] == 0:
        return
    fb = FibsBoard(points=tuple(points), dice=(d1, d2), cube_value=1, cube_owner="centre",
                   may_double=(True, True), double_pending=False, score=(0, 0),
                   match_length=length, crawford_game=False, post_crawford=False,
                   names=("me", "gnubg"), colour=1 if positive else -1)
    line = fb.line()
    reply = ask(Session(FirstPlay()), line)
    assert reply is not None
    assert_legal_move(line, reply)


def test_fuzz_real_engine_never_fails_internally(engine: Engine) -> None:
    """A sample of mutated lines through the real engine: errors only for bad input."""
    rng = random.Random(7)
    seeds = _seed_lines()
    session = Session(engine)
    for _ in range(3000):
        line = _mutate(rng, rng.choice(seeds))
        reply, end = handle_line(session, line)
        _check_reply(reply, end, line)
        assert not (reply or "").startswith("Error: internal error"), (line, reply)
        if end:
            session = Session(engine)
