"""UBGI (gbot.adapters.ubgi): conformance transcripts written from the spec, and a duel driven the
way a duel runner drives an engine, through ``gbot ubgi`` as a subprocess.

Oracles: the hand-checked decisions in ``tests/data/ubgi/*.txt`` (see its README), the rules
core (every ``bestmove`` is a legal play, ``bestmoveid`` its result) and the decision engine
called in process (the protocol must report what it decides).
"""

from __future__ import annotations

import os
import random
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gbot
from gbot.adapters.ubgi import UbgiSession, move_payload
from gbot.engine.engine import PLAY_PLY, Engine
from gbot.game.match import MatchState, Rules

DATA = Path(__file__).resolve().parent / "data" / "ubgi"
TRANSCRIPTS = sorted(DATA.glob("*.txt"))
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def evaluator() -> gbot.Evaluator:
    return gbot.Evaluator()


def _session(evaluator: gbot.Evaluator) -> UbgiSession:
    return UbgiSession(lambda rules, ply: Engine(evaluator=evaluator, ply=ply, rules=rules))


def _read(path: Path) -> list[tuple[str, list[tuple[str, str]]]]:
    """``[(command, [(kind, expected), ...]), ...]`` of a transcript."""
    steps: list[tuple[str, list[tuple[str, str]]]] = []
    for raw in path.read_text().splitlines():
        if not raw.strip() or raw.startswith("#"):
            continue
        tag, _, rest = raw.partition(" ")
        if tag == ">":
            steps.append((rest, []))
        elif tag in ("<", "<~", "<*"):
            assert steps, f"{path.name}: an answer before any command: {raw!r}"
            steps[-1][1].append((tag, rest))
        else:
            raise AssertionError(f"{path.name}: cannot read {raw!r}")
    return steps


def _check(command: str, expected: list[tuple[str, str]], got: list[str]) -> None:
    i = 0
    for kind, text in expected:
        if kind == "<*":
            while i < len(got) and re.fullmatch(text, got[i]):
                i += 1
            continue
        assert i < len(got), f"{command!r}: missing {text!r} in {got!r}"
        if kind == "<":
            assert got[i] == text, f"{command!r}: {got[i]!r} != {text!r}"
        else:
            assert re.fullmatch(text, got[i]), f"{command!r}: {got[i]!r} !~ {text!r}"
        i += 1
    assert i == len(got), f"{command!r}: unexpected {got[i:]!r}"


@pytest.mark.parametrize("path", TRANSCRIPTS, ids=[p.stem for p in TRANSCRIPTS])
def test_transcript_in_process(path: Path, evaluator: gbot.Evaluator) -> None:
    s = _session(evaluator)
    steps = _read(path)
    assert steps
    for command, expected in steps:
        got, done = s.handle(command)
        _check(command, expected, got)
        assert done == (command == "quit")


def test_transcripts_cover_the_spec() -> None:
    commands = {c.split()[0] for p in TRANSCRIPTS for c, _ in _read(p)}
    assert {"ubgi", "isready", "newgame", "newsession", "setscore", "setcube", "setturn",
            "position", "dice", "go", "setoption", "set", "get", "keys", "stop",
            "quit"} <= commands
    answers = {e.split()[0] for p in TRANSCRIPTS for _, ex in _read(p) for k, e in ex
               if k == "<"}
    assert {"ubgiok", "readyok", "bestmove", "bestmoveid", "bestcube", "bestturn",
            "value"} <= answers


def _gbot_ubgi(*args: str) -> subprocess.Popen[str]:
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    return subprocess.Popen([sys.executable, "-m", "gbot.cli", "ubgi", *args],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=ROOT, env=env)


class _Runner:
    """What a duel runner does: one line out, read lines until the answer it waits for."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        self.proc = proc

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def until(self, prefix: str) -> tuple[str, list[str]]:
        assert self.proc.stdout is not None
        seen: list[str] = []
        while True:
            line = self.proc.stdout.readline()
            assert line, f"engine closed its output waiting for {prefix!r}: {seen!r}"
            line = line.rstrip("\n")
            if line.startswith("error "):
                raise AssertionError(f"engine error: {line}")
            if line.split(" ", 1)[0] == prefix:
                return line, seen
            seen.append(line)


def _play_of(pos: gbot.Position, dice: tuple[int, int], payload: str) -> gbot.Play | None:
    """The legal play a ``bestmove`` payload names (None for ``pass``); fails if none."""
    legal = pos.legal_plays(dice)
    if payload == "pass":
        assert not legal, f"pass with legal plays for {dice}"
        return None
    for p in legal:
        if move_payload(p) == payload:
            return p
    raise AssertionError(f"{payload!r} is no legal play of {dice} in {pos.id()}")


@pytest.mark.slow
def test_transcript_through_the_process() -> None:
    proc = _gbot_ubgi()
    try:
        assert proc.stdin is not None and proc.stdout is not None
        steps = _read(DATA / "level0.txt")
        r = _Runner(proc)
        for command, expected in steps:
            r.send(command)
            if command == "quit":
                break
            want = [e for k, e in expected if k == "<"]
            got: list[str] = []
            if want:
                line, before = r.until(want[-1].split()[0])
                got = [*before, line]
                _check(command, expected, got)
        assert proc.wait(timeout=30) == 0
    finally:
        proc.kill()
        proc.wait()


def test_duel_against_a_random_player_through_the_process(evaluator: gbot.Evaluator) -> None:
    """A money game, gbot (process) against a seeded random player, the runner keeping the
    board: each bestmove is legal, bestmoveid is its result, and both equal the engine's
    choice in process."""
    rng = random.Random(20261201)
    engine = Engine(evaluator=evaluator, ply=PLAY_PLY, rules=Rules(jacoby=True, beavers=False))
    proc = _gbot_ubgi()
    r = _Runner(proc)
    try:
        r.send("ubgi")
        r.until("ubgiok")
        for opt in ("Threads value 1", "Seed value 7", "Deterministic value true",
                    "BestMoveId value true", "EvalMode value cubeful"):
            r.send(f"setoption name {opt}")
        r.send("isready")
        r.until("readyok")
        r.send("newsession type money jacoby on")
        r.send("newgame")
        pos = gbot.Position.initial()     # seen by the side on roll
        gbot_turn = True
        turns = 0
        while not pos.is_over() and turns < 400:
            dice = (rng.randint(1, 6), rng.randint(1, 6))
            if gbot_turn:
                r.send(f"position gnubgid {pos.id()}")
                r.send(f"dice {dice[0]} {dice[1]}")
                r.send("go role chequer")
                line, _ = r.until("bestmove")
                payload = line.split(" ", 1)[1]
                ident, _ = r.until("bestmoveid")
                play = _play_of(pos, dice, payload)
                mine = engine.choose_play(pos, dice, MatchState(rules=engine.rules))
                assert (play is None) == (mine is None)
                after = pos if play is None else play.position
                assert ident.split()[1] == after.id()
                if play is not None and mine is not None:
                    assert play.position == mine.position, (pos.id(), dice)
            else:
                legal = pos.legal_plays(dice)
                after = rng.choice(legal).position if legal else pos
            turns += 1
            if after.is_over():
                break
            pos = after.swapped()
            gbot_turn = not gbot_turn
        assert turns >= 20
        r.send("quit")
        assert proc.wait(timeout=30) == 0
    finally:
        proc.kill()
        proc.wait()


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=80))
def test_any_line_gets_an_answer_or_nothing_never_a_crash(line: str) -> None:
    s = UbgiSession(lambda rules, ply: _NoEngine())
    out, done = s.handle(line)
    assert all("\n" not in o for o in out)
    assert done == (line.split()[:1] == ["quit"])


class _NoEngine:
    """An engine that must not be asked (the fuzzed lines set no position)."""

    evaluator = None

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"engine asked {name}")


def test_error_lines_use_the_spec_codes(evaluator: gbot.Evaluator) -> None:
    s = _session(evaluator)
    codes = set()
    for line in ("warp 9", "go", "dice 0 0", "setoption name Nope value 1", "go role x",
                 "position gnubgid !!!"):
        out, _ = s.handle(line)
        assert len(out) == 1 and out[0].startswith("error ")
        codes.add(out[0].split()[1])
    assert codes <= {"unknown_command", "bad_argument", "missing_context",
                     "unsupported_feature", "search_in_progress"}
    assert s.handle("x" * 5000)[0][0].startswith("error bad_argument")


# --- hostile numbers (issue 34): every malformed number is a bad_argument, the session goes on


HOSTILE_LINES = [
    ("dice 3 ²", "die", "²"),
    ("dice ３ 1", "die", "３"),                 # fullwidth: int() reads it, UBGI does not
    ("dice ٣ 1", "die", "٣"),                  # Arabic-Indic
    ("setoption name Ply value --1", "Ply", "--1"),
    ("setoption name Seed value +-1", "Seed", "+-1"),
    ("setoption name Threads value ¹", "Threads", "¹"),
    ("set engine.ply ²", "engine.ply", "²"),
    ("set engine.seed -0", "engine.seed", "-0"),
    ("setscore +-1 0", "score", "+-1"),
    ("setscore 0 1²", "score", "1²"),
    ("setcube value --2 owner p0", "cube value", "--2"),
    ("newsession type match length ²", "length", "²"),
    ("newsession type match length 99999999999999999999999", "length", "9" * 23),
    ("go depth --1", "depth", "--1"),
    ("go movetime 1²", "movetime", "1²"),
]


@pytest.mark.parametrize(("line", "field", "bad"), HOSTILE_LINES)
def test_a_malformed_number_is_a_bad_argument_naming_the_field(line: str, field: str,
                                                               bad: str) -> None:
    s = UbgiSession(lambda rules, ply: _NoEngine())
    s.handle("newsession type match length 5")
    out, done = s.handle(line)
    assert not done and len(out) == 1, out
    assert out[0].startswith(f"error bad_argument {field} must be an integer from "), out
    assert out[0].endswith(f"got {bad!r}"), out
    assert s.handle("setscore 1 2") == ([], False)      # still answering
    assert s.score == (1, 2)


_NUMBERS = st.one_of(st.sampled_from(["1", "0", "-1", "--1", "+-1", "+1", "²", "٣", "３",
                                      "3²", "9" * 50, "0" * 50 + "1", "1e3", "-0", "¹²"]),
                     st.text(alphabet=st.characters(categories=("Nd", "No", "Pd", "Sm")),
                             min_size=1, max_size=4))
_TEMPLATES = st.sampled_from([
    "dice {} {}", "setscore {} {}", "setcube value {} owner p0", "setoption name Ply value {}",
    "setoption name Seed value {}", "setoption name Threads value {}", "set engine.ply {}",
    "set engine.seed {}", "newsession type match length {}", "go depth {}", "go movetime {}",
    "go nodes {} trials {}"])


@settings(max_examples=300, deadline=None)
@given(_TEMPLATES, _NUMBERS, _NUMBERS)
def test_commands_with_fuzzed_numbers_never_crash(template: str, a: str, b: str) -> None:
    s = UbgiSession(lambda rules, ply: _NoEngine())
    out, done = s.handle(template.format(a, b))
    assert not done and all("\n" not in o for o in out)
    assert all(o.startswith("error ") for o in out)


def test_the_process_answers_a_hostile_number_and_reads_the_next_line() -> None:
    proc = _gbot_ubgi()
    try:
        out, err = proc.communicate("dice 3 ²\nsetoption name Ply value --1\nsetscore +-1 0\n"
                                    "ubgi\nquit\n", timeout=120)
    finally:
        proc.kill()
        proc.wait()
    lines = out.splitlines()
    assert proc.returncode == 0 and "Traceback" not in err, err[-2000:]
    assert [x.split()[:3] for x in lines[:3]] == [["error", "bad_argument", "die"],
                                                  ["error", "bad_argument", "Ply"],
                                                  ["error", "bad_argument", "score"]]
    assert lines[-1] == "ubgiok"


@pytest.mark.parametrize("go", ["go role chequer", "go depth 1 role chequer",
                                "go depth 2 role cube", "eval"])
def test_each_figure_says_the_depth_that_made_it(go: str, evaluator: gbot.Evaluator) -> None:
    """The info and eval lines name their depth (root-inclusive: the session's default is
    gbot's default player, 2-ply, depth 3), and their figures are the engine's at that ply."""
    s = _session(evaluator)
    pid = "4HPwATDgc/ABMA"
    for line in ("newgame", f"position gnubgid {pid}", "dice 6 4"):
        s.handle(line)
    reply, _ = s.handle(go)
    head = reply[0].split()
    depth = int(head[head.index("depth") + 1])
    want = int(go.split()[2]) if "depth" in go else PLAY_PLY + 1
    assert depth == want
    eng = Engine(evaluator=evaluator, ply=depth - 1)
    pos = gbot.Position.from_id(pid)
    if "chequer" in go:
        p = eng.probabilities(eng.choose_play(pos, (6, 4)).position.swapped())
        assert float(head[head.index("pwin") + 1]) == pytest.approx(1 - p[0], abs=6e-5)
    else:
        p = eng.probabilities(pos)
        assert float(head[head.index("pwin") + 1]) == pytest.approx(p[0], abs=6e-5)
