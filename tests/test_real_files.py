"""Match files as the programs and people that write them do: a FIBS client's ``.mat`` export
(ratings after the names, an ``Illegal play`` line) and its ``.sgf`` (resignations as nodes,
rolls unsorted), a Backgammon Galaxy export (the loser's ``Losses N point``, one of them a
forfeit), a Backgammon Studio export (``Cannot Move``), live matches typed in by hand (one from
its last game on, one with a move nobody saw: ``????``) and a position gnubg 1.07 saved.

The files (``tests/data/files``) were written for these tests after each writer's conventions,
on matches gnubg played against itself. gbot reads each with the games and the final score that
Debian's gnubg 1.07 reads, warning of what it skips with the line; corrupt copies are refused
with a one-line error. Oracle: gnubg 1.07 itself (``import mat``, ``load match``).
"""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

from gbot.analysis.analyse import read_match
from gbot.errors import MatchFileError
from gbot.game.referee import MatchRecord
from gbot.records.matfile import MatchFileWarning
from tests.conftest import ROOT, gnubg_binary
from tests.gnubg_harness import read_matches

FILES = Path(__file__).parent / "data" / "files"
GNUBG = gnubg_binary()

# per file: names, match length, per game (score before it, winner, points), final score,
# and the lines warned of
EXPECTED: dict[str, dict[str, Any]] = {
    "fibs_client.mat": dict(
        names=("charlie11", "delta_7"), length=5,
        games=[((0, 0), 0, 2), ((2, 0), 0, 2), ((4, 0), 0, 1)], final=(5, 0), warned=[46]),
    "galaxy.mat": dict(
        names=("marta_k", "dimitris77"), length=7,
        games=[((0, 0), 0, 2), ((2, 0), 1, 1), ((2, 1), 0, 3), ((5, 1), 0, 2)], final=(7, 1),
        warned=[70]),
    "studio.mat": dict(
        names=("Ines", "Rafael"), length=5,
        games=[((0, 0), 0, 1), ((1, 0), 0, 1), ((2, 0), 1, 4)], final=(2, 4), warned=[]),
    "live_midmatch.mat": dict(
        names=("Ann", "Ben"), length=7, games=[((6, 5), 0, 2)], final=(8, 5), warned=[]),
    "live_unknown.mat": dict(
        names=("Kasia", "Tomas"), length=3,
        games=[((0, 0), 0, 2), ((2, 0), 1, 1), ((2, 1), 0, 4)], final=(6, 1), warned=[16, 44]),
    "fibs_client.sgf": dict(
        names=("charlie11", "delta_7"), length=7,
        games=[((0, 0), 0, 2), ((2, 0), 0, 2), ((4, 0), 1, 1)], final=(4, 1), warned=[]),
    "position.sgf": dict(
        names=("Kasia", "Tomas"), length=7, games=[((3, 2), -1, 0)], final=(3, 2), warned=[2]),
}

# games gnubg 1.07 reads without a result: it does not know the loser's 'Losses N point'
GNUBG_NO_RESULT = {("galaxy.mat", 0), ("galaxy.mat", 2)}


def _read(path: Path) -> tuple[MatchRecord, list[MatchFileWarning]]:
    """``read_match`` of ``path`` (as ``gbot analyse`` reads it) and the warnings it gave."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rec = read_match(str(path))
    out = []
    for w in caught:
        assert isinstance(w.message, MatchFileWarning), w
        out.append(w.message)
    return rec, out


def _games(rec: MatchRecord) -> list[tuple[tuple[int, int], int, int]]:
    return [(g.score, g.winner, g.points) for g in rec.games]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_gbot_reads_the_file(name: str) -> None:
    want = EXPECTED[name]
    rec, warned = _read(FILES / name)
    assert rec.names == want["names"] and rec.match_length == want["length"]
    assert _games(rec) == want["games"]
    assert rec.final_score == want["final"]
    assert [w.line for w in warned] == want["warned"]
    lines = (FILES / name).read_text().splitlines()
    for w in warned:
        assert "\n" not in w.text and len(w.text) < 300, w.text
        assert lines[w.line - 1].strip(), (name, w.line)        # the line it names is there


def test_the_warnings_say_what_was_skipped() -> None:
    texts = {name: [w.text for w in _read(FILES / name)[1]] for name in EXPECTED}
    assert texts["fibs_client.mat"] == [
        "game 2: '61: Illegal play (8/2* 2/1 1/0)' is no move gbot can read, and 61 has 6 "
        "legal plays; the rest of the game (lines 46-52) is skipped, its recorded result is "
        "kept"]
    assert texts["galaxy.mat"] == [
        "game 3: 'Losses 3 point': 3 point(s) is no result the play gives (cube at 2, a "
        "resignation scores 2 as player 1 has borne off); the recorded result is kept"]
    assert texts["live_unknown.mat"] == [
        "game 1: read '53: ????' as no move: 53 has no legal play",
        "game 2: '62: ????' is no move gbot can read, and 62 has 22 legal plays; the rest of "
        "the game (lines 44-56) is skipped, its recorded result is kept"]
    assert texts["position.sgf"] == [
        "game 1, node 1: a set-up position (AE, AW, AB, CV or CP) is not kept: gbot's records "
        "start every game from the opening position; the rest of the game (lines 2-5) is "
        "skipped, it has no recorded result"]


def test_what_each_writer_writes_is_read_as_meant() -> None:
    galaxy = _read(FILES / "galaxy.mat")[0]
    # game 1: the loser resigned a single game at cube 2, as 'Losses 2 point'
    assert [a.kind for a in galaxy.games[0].actions][-3:] == ["resign", "accept", "win"]
    studio = _read(FILES / "studio.mat")[0]
    dances = [a for g in studio.games for a in g.actions if a.kind == "move" and not a.steps]
    text = (FILES / "studio.mat").read_text()
    assert len(dances) == text.count("Cannot Move") > 0
    midmatch = _read(FILES / "live_midmatch.mat")[0]
    # 6-5 of 7 with a double in the game: past the Crawford game
    assert not midmatch.games[0].crawford and midmatch.games[0].score == (6, 5)
    sgf = _read(FILES / "fibs_client.sgf")[0]
    kinds = [a.kind for g in sgf.games for a in g.actions]
    assert kinds.count("resign") == 2 and kinds.count("reject") == 1
    assert kinds.count("accept") == 1


# --------------------------------------------------------------------------- gnubg

@pytest.mark.gnubg
@pytest.mark.skipif(GNUBG is None, reason="gnubg binary absent")
def test_gnubg_reads_the_same_games_and_final_score() -> None:
    names = sorted(EXPECTED)
    assert GNUBG is not None
    views = read_matches([FILES / n for n in names], GNUBG)
    assert len(views) == len(names)
    for name, view in zip(names, views, strict=True):
        rec = _read(FILES / name)[0]
        ours = _games(rec)
        assert view.read, (name, view.why)
        assert view.length == rec.match_length, name
        assert view.names == rec.names, name
        assert [score for score, _, _ in view.games] == [g[0] for g in ours], name
        for i, ((_, winner, points), (_, ours_winner, ours_points)) in enumerate(
                zip(view.games, ours, strict=True)):
            if (name, i) in GNUBG_NO_RESULT:
                assert winner == -1, (name, i)
                continue
            assert (winner, points) == (ours_winner, ours_points), (name, i)
        assert view.final_score == rec.final_score, name


# --------------------------------------------------------------------------- corrupt copies


@pytest.mark.parametrize(("name", "old", "new", "needle"), [
    ("fibs_client.mat", " 5 point match", " five point match", "no 'N point match' header"),
    ("fibs_client.mat", "Doubles => 2", "Doubles => 3", "cube offered at 3, expected 2"),
    ("galaxy.mat", "Losses 3 point", "Losses 99999999999 point", "points won must be"),
    ("galaxy.mat", "marta_k : 5", "marta_k : 8", "score (8, 1) ends a 7-point match"),
    ("studio.mat", "53: 6/3* 8/3", "53: 6/3* 8/4", "'6/3* 8/4' is not a legal play"),
    ("live_midmatch.mat", "Ann : 6", "Ann : 7", "score (7, 5) ends a 7-point match"),
    ("live_unknown.mat", "1)                           51:", "1)                           55:",
     "an opening roll cannot be a double"),
    ("fibs_client.sgf", ";W[accept])", ";W[accept]", "unbalanced '('"),
    ("fibs_client.sgf", ";W[26xrrp]", ";W[26xrrp", "bad point letter"),
    ("fibs_client.sgf", "resign:2", "resign:two", "points resigned must be an integer"),
    ("position.sgf", "GM[6]", "GM[1]", "is not backgammon"),
    ("position.sgf", "[length:7]", "[length:99]", "MI length must be an integer from 0 to 64"),
])
def test_corrupt_copies_are_refused_in_one_line(tmp_path: Path, name: str, old: str, new: str,
                                                needle: str) -> None:
    text = (FILES / name).read_text()
    assert old in text, old
    path = tmp_path / name
    path.write_text(text.replace(old, new, 1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MatchFileWarning)
        with pytest.raises(MatchFileError) as exc:
            read_match(str(path))
    msg = str(exc.value)
    assert needle in msg and "\n" not in msg and len(msg) < 300, msg


# --------------------------------------------------------------------------- the command line

_TINY = (" 3 point match\n\n Game 1\n ann : 0                        ben : 0\n"
         "  1) 31: ????                    \n  2)  the scorer went for coffee\n"
         "      Wins 1 point\n")


def _analyse(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "gbot.cli", "analyse", "--ply", "0",
                           "--workers", "1", str(path)], capture_output=True, text=True,
                          cwd=ROOT, env=dict(os.environ), timeout=600)


def test_gbot_analyse_warns_and_goes_on(tmp_path: Path) -> None:
    path = tmp_path / "tiny.mat"
    path.write_text(_TINY)
    proc = _analyse(path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "final score ann 1 - ben 0" in proc.stdout
    warned = [line for line in proc.stderr.splitlines() if "MatchFileWarning" in line
              or line.startswith("warning: ")]
    assert len(warned) == 1 and ":5: " in warned[0] and "'31: ????'" in warned[0], proc.stderr


def test_gbot_analyse_prints_warnings_with_the_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "tiny.mat"
    path.write_text(_TINY)
    proc = _analyse(path)
    assert proc.stderr.splitlines()[0].startswith(f"warning: {path}:5: game 1: '31: ????' "), \
        proc.stderr


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_what_is_read_writes_back_alike(name: str) -> None:
    from gbot.records import matfile, sgf, sgf_read

    rec = _read(FILES / name)[0]
    for dumps, loads in ((matfile.dumps, matfile.loads), (sgf.dumps, sgf_read.loads)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MatchFileWarning)
            back = loads(dumps(rec))
        assert (_games(back), back.final_score, back.names) == (
            _games(rec), rec.final_score, rec.names)
