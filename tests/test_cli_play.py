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
        line = next(feed, None)
        if line is None:        # the end of the input, as at a terminal
            raise EOFError
        return line

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


def _rows(said: list[str], after: int) -> dict[int, str]:
    """The numbered rows of the first list (``plays`` or ``hint``) shown from ``after`` on."""
    rows: dict[int, str] = {}
    for line in said[after:]:
        m = re.match(r"^\s+(?:\*\s*)?(\d+)[.\s]\s*(\S.*?)(?:\s{2,}|\s+\d+\s+[+-]|$)", line)
        if m and int(m.group(1)) == len(rows) + 1:
            rows[int(m.group(1))] = m.group(2).strip()
        elif rows and not line.startswith("        "):
            break
    return rows


def test_a_number_after_hint_plays_that_row_of_the_table() -> None:
    rules = Rules()
    engine = Engine(ply=0, rules=rules)
    # seed 2: the person opens; 'plays' lists the legal plays, 'hint' ranks them
    game, said = _scripted(["plays", "hint", "3", "q", "y"], engine, 3, rules, seed=2)
    listed = _rows(said, next(i for i, s in enumerate(said) if s.startswith("you rolled")) + 1)
    table_at = next(i for i, s in enumerate(said) if "ply" in s and "cubeless" in s)
    ranked = _rows(said, table_at + 1)
    assert len(listed) > 5 and len(ranked) == 5
    assert ranked[3] != listed[3]           # the two lists number the plays differently
    assert f"you play {ranked[3]}" in said
    assert "  (a number plays that row of this table)" in said


def test_plays_after_hint_numbers_by_the_plays_list_again() -> None:
    rules = Rules()
    engine = Engine(ply=0, rules=rules)
    game, said = _scripted(["hint", "plays", "9", "q", "y"], engine, 3, rules, seed=2)
    at = next(i for i, s in enumerate(said) if s.startswith("  ") and s.strip().startswith("1."))
    listed = _rows(said, at)
    assert f"you play {listed[9]}" in said
    game, said = _scripted(["hint", "9", "q", "y"], engine, 3, rules, seed=2)
    assert "the hint list has 5 rows: 1 to 5" in said


def test_a_move_entered_in_parts_with_undo() -> None:
    # 3-point match, seed 1: the person opens with 52
    text = "24/22\nundo\nundo\n13/8\n6/1\n24/22\n" + "q\ny\n"
    out = play(["--length", "3", "--seed", "1", "--ply", "0"], text)
    assert "so far 24/22; still to play: 5 (undo takes back the last part)" in out
    assert "took back 24/22" in out
    assert "nothing to undo" in out
    assert "so far 13/8; still to play: 2" in out
    assert "6/1 does not go with 13/8 in a legal play of 52" in out
    assert "you rolled 52 [so far 13/8]: your move" in out
    assert "you play 24/22 13/8" in out


def test_board_shows_the_part_entered_so_far() -> None:
    out = play(["--length", "3", "--seed", "1", "--ply", "0"], "13/8\nboard\nq\ny\n")
    board = out.split("[so far 13/8]: your move (help): board\n", 1)[1]
    assert "X (you): pips 162, off 0" in board.split("\n\n")[0]


def test_quit_asks_before_stopping() -> None:
    out = play(["--length", "3", "--seed", "1", "--ply", "0"], "quit\nn\n24/22 13/8\nq\ny\n")
    assert out.count("stop the match here? [y/N]") == 2
    assert "play on" in out
    assert "you play 24/22 13/8" in out          # the match went on after the first 'quit'
    assert out.rstrip().endswith("stopped.\nfinal score: you 0, gbot 0 (match to 3)")


BOARD_TOP = "   13 14 15 16 17 18       19 20 21 22 23 24"


def test_one_board_per_turn() -> None:
    out = play(["--length", "1", "--seed", "4", "--ply", "0"], ROLL_AND_PLAY)
    lines = out.splitlines()
    boards = sum(1 for line in lines if line.endswith(BOARD_TOP.strip()))
    gbot_turns = sum(1 for line in lines if line.startswith("gbot rolls"))
    assert 0 < boards <= gbot_turns + 1      # after each of gbot's turns, and at the opening
    for i, line in enumerate(lines[:-1]):
        if line.startswith("you play"):      # the person's own play is not drawn again
            assert BOARD_TOP.strip() not in lines[i + 1]
