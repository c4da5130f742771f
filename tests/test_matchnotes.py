"""The rules notes in written match files, and gnubg reading them as the notes say."""

from __future__ import annotations

import random
import re
import subprocess
from pathlib import Path

import pytest

from gbot.game.match import GameState, Rules
from gbot.game.referee import Referee, legal_results
from gbot.records import matfile, sgf
from gbot.records.notes import gnubg_warnings, rules_text
from tests.conftest import gnubg_binary


def _money_gammon_session() -> Referee:
    """A one-game money session without Jacoby that ends in a gammon at a centred cube."""
    for seed in range(500):
        ref = Referee(length=0, rules=Rules(jacoby=False), seed=seed, names=("alice", "bob"))
        pick = random.Random(seed)
        while ref.state.game_state not in (GameState.OVER, GameState.RESIGNED,
                                           GameState.DROPPED):
            s = ref.state
            if s.game_state == GameState.NONE or s.dice == (0, 0):
                ref.roll()
                continue
            r = legal_results(s)
            ref.play(r[pick.randrange(len(r))] if len(r) else None)
        if ref.state.game_points == 2:
            return ref
    raise AssertionError("no gammon in 500 random games")


def test_rules_text_and_warnings() -> None:
    assert rules_text(Rules(), 5) == ("5-point match, Crawford rule; cube on, no cap; "
                                      "gammons and backgammons count")
    assert gnubg_warnings(Rules(), 5) == []
    assert gnubg_warnings(Rules(), 5, sgf=True) == []
    money = gnubg_warnings(Rules(jacoby=False), 0)
    assert money == ["gnubg scores a money session with its own Jacoby setting: type "
                     "'set jacoby off' before 'import mat'"]
    assert gnubg_warnings(Rules(jacoby=True), 0, sgf=True) == []
    capped = gnubg_warnings(Rules(cube_cap=8, end_mode="gammons"), 5)
    assert any("backgammons as gammons" in w for w in capped)
    assert any("no cube cap (8 here)" in w for w in capped)


def test_files_carry_the_notes() -> None:
    ref = _money_gammon_session()
    mat = matfile.dumps(ref.record)
    assert mat.splitlines()[0] == "; gbot: money session, Jacoby off, beavers off; cube on, " \
                                  "no cap; gammons and backgammons count"
    assert "; gnubg: gnubg scores a money session with its own Jacoby setting: type " \
           "'set jacoby off' before 'import mat'" in mat
    again = matfile.loads(mat)
    assert again.final_score == ref.record.final_score
    text = sgf.dumps(ref.record)
    assert "C[gbot: money session, Jacoby off" in text.splitlines()[0]


@pytest.mark.skipif(gnubg_binary() is None, reason="needs gnubg")
def test_gnubg_scores_as_the_note_says(tmp_path: Path) -> None:
    """gnubg imports the gammon of a no-Jacoby session as 1 point under its default
    Jacoby setting and as 2 after the command the note gives; the SGF (RU) needs none."""
    ref = _money_gammon_session()
    winner = ref.record.names[ref.state.winner]
    path = tmp_path / "s.mat"
    matfile.write(ref.record, path)
    sgf_path = tmp_path / "s.sgf"
    sgf.write(ref.record, sgf_path)
    binary = gnubg_binary()
    assert binary is not None

    def score(commands: str) -> int:
        res = subprocess.run([binary, "-t", "-q"], input=commands + "\nshow score\n",
                             text=True, capture_output=True, timeout=120)
        m = re.search(rf"{winner} (\d+)", res.stdout.split("The score")[-1])
        assert m is not None, res.stdout[-300:]
        return int(m.group(1))

    assert score(f"import mat {path}") == 1
    assert score(f"set jacoby off\nimport mat {path}") == 2
    assert score(f"load match {sgf_path}") == 2
