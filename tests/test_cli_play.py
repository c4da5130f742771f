"""``gbot play`` driven through its input: whole matches, the cube, resignations, hints, the
messages, and the match files it writes (read back, and imported by gnubg when present)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from gbot.cli import main
from gbot.cli.play import BOT, HUMAN, TerminalMatch
from gbot.engine.engine import Engine
from gbot.game.match import Rules
from gbot.records import matfile
from tests.conftest import gnubg_binary

# each prompt takes what it understands: 'r' rolls, '1' plays the first listed play
ROLL_AND_PLAY = "r\n1\n" * 400


def play(args: list[str], text: str) -> str:
    result = CliRunner().invoke(main, ["play", *args], input=text)
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    return result.output


def test_a_whole_match_to_the_end_and_its_files(tmp_path: Path) -> None:
    mat, sgf = tmp_path / "m.mat", tmp_path / "m.sgf"
    out = play(["--length", "1", "--seed", "4", "--save", str(mat), "--save", str(sgf)],
               ROLL_AND_PLAY)
    assert re.search(r"(you win|gbot wins) the match", out)
    final = re.findall(r"final score: you (\d+), gbot (\d+) \(match to 1\)", out)
    assert len(final) == 1
    you, bot = (int(v) for v in final[0])
    assert max(you, bot) >= 1
    # the board is drawn with pips and the score; rolls are written high die first
    assert "pips 167, off 0" in out and "score 0-0 in a 1-point match" in out
    for roll in re.findall(r"(?:you rolled|gbot rolls) (\d\d)", out):
        assert roll[0] >= roll[1]
    assert "(" not in "".join(re.findall(r"you rolled [^:]*", out))
    record = matfile.loads(mat.read_text())
    assert record.final_score == (bot, you)         # player 0 is gbot
    assert record.names == ("gbot", "you")
    assert sgf.read_text().startswith("(;FF[4]GM[6]")


@pytest.mark.skipif(gnubg_binary() is None, reason="needs gnubg")
def test_gnubg_imports_what_play_writes(tmp_path: Path) -> None:
    mat, sgf = tmp_path / "m.mat", tmp_path / "m.sgf"
    out = play(["--length", "3", "--seed", "9", "--save", str(mat), "--save", str(sgf)],
               ROLL_AND_PLAY)
    you, bot = (int(v) for v in re.findall(r"final score: you (\d+), gbot (\d+)", out)[0])
    binary = gnubg_binary()
    assert binary is not None
    for cmd in (f"import mat {mat}", f"load match {sgf}"):
        res = subprocess.run([binary, "-t", "-q"], input=f"{cmd}\nshow score\n", text=True,
                             capture_output=True, timeout=120)
        assert f"gbot {bot}, you {you} (match to 3 points)" in res.stdout, res.stdout[-500:]


def test_help_double_and_a_move_typed_too_early() -> None:
    # 3-point match, seed 1: after the opening the person is asked before rolling
    text = "r\n1\n" + "help\n24/18\n" + "double\n" + ROLL_AND_PLAY
    out = play(["--length", "3", "--seed", "1"], text)
    assert "double            offer the cube to gbot" in out
    assert "resign [single|gammon|backgammon]" in out
    assert "you have not rolled yet" in out
    assert re.search(r"gbot (takes: the cube is now 2|passes)", out)


def test_bad_moves_get_readable_messages() -> None:
    out = play(["--length", "1", "--seed", "4"], "r\n" + "24/1\nfoo bar\n99\nplays\n" + "q\n")
    assert "is not a legal play of" in out
    assert "cannot read 'foo bar' as a move" in out
    assert re.search(r"there are \d+ plays", out)
    assert re.search(r"^\s+1\. \S", out, re.M)          # the list of legal plays
    assert "stopped." in out
    assert "(6, " not in out and ", 1)" not in out


def test_resign_a_gammon_is_accepted_and_scored() -> None:
    out = play(["--length", "3", "--seed", "1"], "r\n1\nresign gammon\n" + ROLL_AND_PLAY)
    assert "you offer to resign a gammon" in out
    assert "gbot accepts your resignation of a gammon" in out
    assert "gbot wins 2 points (resignation); score: you 0, gbot 2" in out


def test_hint_at_the_prompts() -> None:
    out = play(["--length", "3", "--seed", "1"], "hint\nr\n1\nhint\n" + "q\n")
    assert "* gbot's play" in out                              # the move hint
    assert "Proper cube action:" in out                        # the cube hint


class _Doubler(Engine):
    """An engine that doubles whenever it may (to reach the take prompt)."""

    def cube_action(self, pos: Any, state: Any) -> Any:
        return "double"


def _scripted(lines: list[str], engine: Engine, length: int, rules: Rules,
              seed: int) -> tuple[TerminalMatch, list[str]]:
    said: list[str] = []
    feed = iter(lines)

    def ask(prompt: str) -> str:
        said.append(prompt)
        return next(feed)

    game = TerminalMatch(engine, length, rules, seed, "you", ask, said.append)
    game.run()
    return game, said


def test_gbot_doubles_and_the_person_answers() -> None:
    rules = Rules(jacoby=True, beavers=True)
    engine = _Doubler(ply=0, rules=rules)
    lines = ["r", "1"] * 3 + ["8/2 6/2", "hint", "beaver"] + ["q"]
    game, said = _scripted(lines, engine, 0, rules, seed=2)
    text = "\n".join(said)
    assert "gbot doubles to 2" in text
    assert "take, pass or beaver?" in text
    assert "answer take, pass or beaver" in text            # the move typed at the question
    assert "Proper answer:" in text                         # the hint
    assert game.ref.state.cube_value == 4 or game.ref.state.game_state.name != "PLAYING"


def test_a_match_double_offers_no_beaver_and_pass_ends_the_game() -> None:
    rules = Rules()
    engine = _Doubler(ply=0, rules=rules)
    game, said = _scripted(["1", "beaver", "pass", "q"], engine, 5, rules, seed=2)
    text = "\n".join(said)
    assert "take, pass?" in text and "answer take, pass" in text
    s = game.ref.state
    assert s.score[BOT] == 1 and s.score[HUMAN] == 0
    assert "gbot wins 1 point (double passed)" in text


def test_options_reach_the_rules() -> None:
    res = CliRunner().invoke(main, ["play", "--help"])
    for opt in ("--ply", "--length", "--save", "--jacoby", "--beavers", "--no-cube",
                "--cube-cap", "--end-mode"):
        assert opt in res.output
    out = play(["--length", "1", "--seed", "4", "--no-cube", "--ply", "1"], "q\n")
    assert "(1-ply)" in out and "cube off" in out


class _Resigner(Engine):
    """An engine that offers to resign a single game before each of its rolls."""

    def may_resign(self, pos: Any) -> bool:
        return True

    def resign_offer(self, pos: Any, state: Any) -> int:
        return 1


def test_gbot_resigns_and_the_person_answers() -> None:
    rules = Rules()
    engine = _Resigner(ply=0, rules=rules)
    # seed 2: the person opens; after its play gbot offers; reject once, then accept
    game, said = _scripted(["1", "maybe", "reject", "1", "accept", "q"], engine, 3, rules,
                           seed=2)
    text = "\n".join(said)
    assert "gbot offers to resign a single game: accept or reject?" in text
    assert "answer accept or reject" in text and "you play on" in text
    assert "you win 1 point (resignation); score: you 1, gbot 0" in text
    assert game.ref.state.score[HUMAN] == 1


def test_money_session_asks_for_another_game() -> None:
    out = play(["--length", "0", "--seed", "2"], "resign\nn\n")
    assert "a money session against gbot" in out
    assert "gbot accepts your resignation of a single game" in out
    assert "another game? [Y/n]" in out
    assert "final money session: you -1 point\n" in out
