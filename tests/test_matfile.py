"""Jellyfish .mat files: our writer and reader round-trip referee matches, we read gnubg's own
export, and Debian's gnubg imports what we write with the same moves, cube actions, Crawford
games and scores."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

from gbot.errors import MatchFileError
from gbot.game.match import GameState, Rules
from gbot.game.notations.position_id import encode
from gbot.game.referee import Action, MatchRecord, Referee
from gbot.records import matfile
from tests.conftest import gnubg_binary
from tests.players import play_match

GNUBG = gnubg_binary()
needs_gnubg = pytest.mark.skipif(GNUBG is None, reason="gnubg binary absent")

# the start of a match gnubg 1.07 exported itself (5-point match, gnubg 0-ply against itself)
GNUBG_EXPORT = """\
; [EventDate "2026.11.29"]

 5 point match

 Game 1
 gnubg : 0                      root : 0
  1) 21: 13/11 24/23             41: 6/2* 2/1* 
  2) 32: 25/22 25/23             65: 6/1 24/18 
  3) 31: 8/5 6/5                 32: 18/15 15/13 
  4) 61: 23/22 11/5              53: 24/21 21/16 
  5) 61: 13/7 8/7                66: 16/10 13/7 13/7 13/7
  6) 55: 13/8 8/3 8/3 7/2        41: 10/9 13/9 
  7) 65: 13/7 13/8               64: 8/2 13/9 
  8) 51: 5/4 7/2                 54: 13/9 7/2 
  9) 61: 6/5 7/1                 61: 9/8 8/2 
 10) 52: 8/6 6/1                 11: 7/6 7/6 6/5 6/5
 11) 65: 6/1                      Doubles => 2
 12)  Takes                      53: 9/4 4/1 
 13) 32: 5/2 6/4                 22: 8/6 8/6 6/4 6/4
 14) 61: 2/1                     11: 9/8 9/8 8/7 8/7
 15) 55: 22/17 22/17 17/12 17/12 43: 7/3 7/4 
 16) 51: 12/11 11/6              31: 3/0 1/0 
 17) 43: 12/9 9/5                63: 6/0 6/3 
 18) 65: 5/0 6/0                 41: 4/0 1/0 
 19) 44: 6/2 5/1 4/0 4/0         63: 6/0 3/0 
 20) 65: 5/0 3/0                 33: 5/2 5/2 4/1 4/1
 21) 32: 2/0 3/0                 53: 2/0 2/0 
 22) 11: 1/0 1/0 1/0 1/0         32: 2/0 2/0 
 23)  Doubles => 4                Drops
      Wins 2 points

 Game 2
 gnubg : 2                      root : 0
  1)                             31: 8/5 6/5 
  2) 21: 13/11 24/23             11: 6/5 6/5 5/4 5/4
  3) 62: 13/11 24/18              Doubles => 2
  4)  Takes                      55: 13/8 13/8 8/3 8/3
  5) 66: 13/7 13/7 11/5 11/5     53: 24/21 21/16 
  6) 54: 13/9* 23/18             41: 25/21 13/12 
  7) 53: 7/4* 9/4                22: 25/23 12/10 10/8 8/6
  8) 63: 8/5 7/1*                54: 
  9) 61: 8/2* 2/1                21: 25/23 
 10) 55: 18/13 18/13 13/8 13/8   22: 25/23 13/11 13/11 11/9
 11) 65: 6/1                     53: 9/4 11/8 
 12) 64: 8/4                     53: 4/1 6/1 
 13) 33: 8/5 8/5 6/3 6/3         51: 8/3 3/2 
 14)  Doubles => 4                Drops
      Wins 2 points
"""


def _moves(record: MatchRecord) -> list[list[tuple[object, ...]]]:
    """Per game: (player, kind, sorted dice, position ID before, resulting ID) of moves and
    cube actions; resignation offers and rejections leave no trace in a .mat file."""
    out = []
    for g in record.games:
        rows: list[tuple[object, ...]] = []
        for a in g.actions:
            if a.kind == "move":
                rows.append((a.player, "move", max(a.dice), min(a.dice), encode(
                    np.array(a.board, dtype=np.int8)), _after(a)))
            elif a.kind in ("double", "beaver", "drop"):
                rows.append((a.player, a.kind, a.value if a.kind != "drop" else 0))
        out.append(rows)
    return out


def _after(a: Action) -> str:
    b = np.array(a.board, dtype=np.int8)
    for src, dst in a.steps:
        b[src] -= 1
        if dst >= 1:
            if b[dst] == -1:
                b[dst] = 0
                b[0] -= 1
            b[dst] += 1
    return encode(b)


def _trim(games: list[list[tuple[object, ...]]]) -> list[list[tuple[object, ...]]]:
    """Drop empty moves that end a game: a .mat file cannot tell a roll with no legal play
    from a roll its player resigned after, and gnubg lists the latter either way."""
    out = []
    for rows in games:
        rows = list(rows)
        while rows and rows[-1][1] == "move" and rows[-1][4] == rows[-1][5]:
            rows.pop()
        out.append(rows)
    return out


def _summary(record: MatchRecord) -> list[tuple[object, ...]]:
    return [(g.score, g.crawford, g.winner, g.points) for g in record.games]


# --------------------------------------------------------------------------- reading


def test_read_gnubg_export() -> None:
    rec = matfile.loads(GNUBG_EXPORT)
    assert rec.match_length == 5 and rec.names == ("gnubg", "root")
    assert _summary(rec) == [((0, 0), False, 0, 2), ((2, 0), False, 0, 2)]
    assert [g.how for g in rec.games] == [GameState.DROPPED, GameState.DROPPED]
    assert rec.final_score == (4, 0)
    g2 = rec.games[1].actions
    assert (g2[0].kind, g2[0].player) == ("roll", 1)  # player 1 opened game 2
    dance = [a for a in g2 if a.kind == "move" and not a.steps]
    assert len(dance) == 1 and dance[0].player == 1 and sorted(dance[0].dice) == [4, 5]


def test_round_trip_of_gnubg_export() -> None:
    rec = matfile.loads(GNUBG_EXPORT)
    again = matfile.loads(matfile.dumps(rec))
    assert _summary(again) == _summary(rec) and _moves(again) == _moves(rec)


@pytest.mark.parametrize("text,needle", [
    ("", "point match"),
    (" 5 point match\n\n 1) 31: 8/5 6/5\n", "before the first game"),
    (" 5 point match\n\n Game 1\n a : 0   b : 0\n  1) 31: 8/4 6/5\n", "8/4 6/5"),
    (" 5 point match\n\n Game 1\n a : 0   b : 0\n  1) 33: 8/5 8/5 6/3 6/3\n", "double"),
    (" 5 point match\n\n Game 1\n a : 3   b : 0\n  1) 31: 8/5 6/5\n", "score"),
    (" 5 point match\n\n Game 1\n a : 0   b : 0\n  1) 31: 8/5 6/5 hello\n", "hello"),
    (" 5 point match\n\n Game 1\n a : 0   b : 0\n  1) 31: 8/5 6/5 Takes\n", "take"),
])
def test_bad_files(text: str, needle: str) -> None:
    with pytest.raises(MatchFileError) as exc:
        matfile.loads(text)
    assert needle in str(exc.value)


def test_bad_names() -> None:
    rec = Referee(1, seed=1).record
    rec.names = ("a:b", "c")
    with pytest.raises(MatchFileError) as exc:
        matfile.dumps(rec)
    assert "'a:b'" in str(exc.value)


# --------------------------------------------------------------------------- round trips


RULE_SETS = [
    (5, Rules()),
    (7, Rules(cube_cap=4, end_mode="gammons")),
    (3, Rules(end_mode="single", resignation="position")),
    (0, Rules(jacoby=True)),
    (0, Rules(beavers=True, raccoons=True)),
    (5, Rules(draw_last_roll=True, opener="loser", variation="hyper3")),
    (4, Rules(caucasian=True, variation="nackgammon", opener="alternate")),
]


@pytest.mark.parametrize("length,rules", RULE_SETS)
def test_round_trip_referee_matches(length: int, rules: Rules, tmp_path: Path) -> None:
    for seed in range(6):
        ref = play_match(length, rules, seed, games=3)
        ref.record.names = ("alice", "bob")
        path = tmp_path / f"m{seed}.mat"
        matfile.write(ref.record, path)
        back = matfile.read(path, rules)
        assert back.names == ("alice", "bob") and back.match_length == length
        assert back.final_score == ref.state.score
        assert _summary(back) == _summary(ref.record)
        assert _moves(back) == _moves(ref.record)


# --------------------------------------------------------------------------- gnubg

_IMPORT = """
import gnubg, json, os
out = []
for path in json.load(open(os.environ["GBOT_MATS"])):
    gnubg.command(os.environ["GBOT_CMD"] + " " + path)
    out.append(gnubg.match())
json.dump(out, open(os.environ["GBOT_OUT"], "w"), default=str)
"""


def _gnubg_import(paths: list[Path], tmp: Path,
                  command: str = "import mat") -> list[dict[str, object]]:
    """gnubg's ``match()`` after loading each file with ``command``."""
    (tmp / "mats.json").write_text(json.dumps([str(p) for p in paths]))
    (tmp / "imp.py").write_text(_IMPORT)
    env = dict(os.environ, GBOT_MATS=str(tmp / "mats.json"), GBOT_OUT=str(tmp / "out.json"),
               GBOT_CMD=command)
    proc = subprocess.run([str(GNUBG), "-t", "-q", "-p", str(tmp / "imp.py")], env=env,
                          capture_output=True, text=True, timeout=300)
    assert "WARNING" not in proc.stdout + proc.stderr, (proc.stdout + proc.stderr)[-2000:]
    result: list[dict[str, object]] = json.loads((tmp / "out.json").read_text())
    return result


def _gnubg_view(m: dict[str, object]) -> tuple[list[tuple[object, ...]],
                                               list[list[tuple[object, ...]]], tuple[int, int]]:
    """gnubg's match dict as (per-game summary, per-game moves, final score); gnubg's 'X' is
    player 0, 'O' player 1."""
    who = {"X": 0, "O": 1}
    summary, moves = [], []
    final = (0, 0)
    for g in m["games"]:  # type: ignore[attr-defined]
        info = g["info"]
        score = (info["score-X"], info["score-O"])
        winner = who.get(info.get("winner"), -1)
        points = info.get("points-won", 0)
        summary.append((score, bool(info.get("crawford", False)), winner, points))
        final = (score[0] + points * (winner == 0), score[1] + points * (winner == 1))
        rows: list[tuple[object, ...]] = []
        cube = 1
        for a in g["game"]:
            p = who[a["player"]]
            if a["action"] == "move":
                d = a["dice"]
                b = _after(Action("move", p, steps=tuple(tuple(s) for s in a["move"]),
                                  board=tuple(int(x) for x in _board_of(a["board"]))))
                rows.append((p, "move", max(d), min(d), a["board"], b))
            elif a["action"] == "double":
                cube *= 2
                rows.append((p, "double", cube))
            elif a["action"] == "take":
                pass
            elif a["action"] == "drop":
                rows.append((p, "drop", 0))
        moves.append(rows)
    return summary, moves, final


def _board_of(pid: str) -> np.ndarray:
    from gbot.game.notations.position_id import decode

    return decode(pid)


@pytest.mark.gnubg
@needs_gnubg
def test_gnubg_imports_our_matches(tmp_path: Path) -> None:
    lengths = [1, 3, 5, 7, 9, 5, 3, 7, 11, 2, 4, 6, 5, 3, 7, 9, 13, 5, 3, 1]
    records = []
    paths = []
    for seed, length in enumerate(lengths):
        ref = play_match(length, Rules(), 100 + seed)
        ref.record.names = ("alice", "bob")
        path = tmp_path / f"g{seed}.mat"
        matfile.write(ref.record, path)
        records.append(ref)
        paths.append(path)
    views = _gnubg_import(paths, tmp_path)
    assert len(views) == len(records)
    games = crawford = resigned = drops = 0
    for ref, view in zip(records, views, strict=True):
        summary, moves, final = _gnubg_view(view)
        assert view["match-info"]["match-length"] == ref.state.match_length  # type: ignore[index]
        assert summary == _summary(ref.record)
        assert _trim(moves) == _trim(_moves(ref.record))
        assert final == ref.state.score
        games += len(summary)
        crawford += sum(1 for s in summary if s[1])
        resigned += sum(1 for g in ref.record.games if g.how == GameState.RESIGNED)
        drops += sum(1 for g in ref.record.games if g.how == GameState.DROPPED)
    assert games >= 40 and crawford >= 3 and resigned >= 5 and drops >= 5
    print(f"gnubg agreed on {len(records)} matches, {games} games, {crawford} Crawford games, "
          f"{resigned} resignations, {drops} drops")


@pytest.mark.gnubg
@needs_gnubg
def test_gnubg_imports_our_money_sessions(tmp_path: Path) -> None:
    # gnubg's default session rules: cube on, Jacoby on, no beavers
    refs, paths = [], []
    for seed in range(5):
        ref = play_match(0, Rules(jacoby=True), 300 + seed, games=5)
        ref.record.names = ("alice", "bob")
        paths.append(tmp_path / f"s{seed}.mat")
        matfile.write(ref.record, paths[-1])
        refs.append(ref)
    for ref, view in zip(refs, _gnubg_import(paths, tmp_path), strict=True):
        summary, moves, final = _gnubg_view(view)
        assert view["match-info"]["match-length"] == 0  # type: ignore[index]
        assert summary == _summary(ref.record)
        assert _trim(moves) == _trim(_moves(ref.record))
        assert final == ref.state.score


# --------------------------------------------------------------------------- hostile numbers

_GAME1 = (Path(__file__).parent / "data" / "gnubg_3pt.mat").read_text().split(" Game 2\n")[0]


@pytest.mark.parametrize(("text", "needle"), [
    # numbers int() reads or chokes on: other scripts' digits, thousands of digits
    (" \u0663 point match\n", "point match"),
    (_GAME1.replace(" 3 point match", " 32767 point match"), "from 0 to 64, got '32767'"),
    (_GAME1.replace(" 3 point match", " 99999999 point match"), "match length"),
    (_GAME1.replace(" Doubles => 2", " Doubles => " + "9" * 5000), "characters long"),
    (_GAME1.replace(" Doubles => 2", " Doubles => " + "9" * 900), "cube value"),
    (_GAME1.replace("Wins 1 point", "Wins " + "9" * 5000 + " points"), "characters long"),
    (_GAME1.replace("Wins 1 point", "Wins " + "9" * 900 + " points"), "points won"),
    (_GAME1.replace(" Game 1", " Game " + "9" * 5000), "characters long"),
    (_GAME1.replace(" Game 1", " Game " + "9" * 900), "game number"),
    (_GAME1.replace("gbot : 0", "gbot : " + "9" * 900), "score"),
    (_GAME1.replace("32: 24/21 13/11", "\u0663\u0662: 24/21 13/11"), "unexpected"),
    (_GAME1.replace(" gbot : 0", " " + "g" * 2000 + " : 0"), "characters long"),
])
def test_hostile_numbers_and_lines_are_match_file_errors(text: str, needle: str) -> None:
    with pytest.raises(MatchFileError) as exc:
        matfile.loads(text)
    msg = str(exc.value)
    assert needle in msg and "\n" not in msg and len(msg) < 300, msg


def test_read_refuses_a_file_over_the_size_limit(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "m.mat"
    path.write_text(_GAME1)
    monkeypatch.setattr(matfile, "MAX_BYTES", 100)
    with pytest.raises(MatchFileError, match=rf"is {len(_GAME1.encode()):,} bytes, more than "
                                             r"the 100 bytes a match file may have"):
        matfile.read(path)
