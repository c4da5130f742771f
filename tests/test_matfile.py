"""Jellyfish .mat files: our writer and reader round-trip referee matches, we read gnubg's own
export, and Debian's gnubg imports what we write with the same moves, cube actions, Crawford
games and scores."""

from __future__ import annotations

import json
import os
import subprocess
import warnings
from pathlib import Path

import numpy as np
import pytest

from gbot.errors import MatchFileError
from gbot.game.match import GameState, Rules
from gbot.game.notations.position_id import encode
from gbot.game.referee import Action, MatchRecord, Referee, legal_results
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
    (" 5 point match\n\n Game 1\n a : 5   b : 0\n  1) 31: 8/5 6/5\n", "ends a 5-point match"),
    (" 5 point match\n\n Game 1\n a : 0   b : 0\n  1) 31: 8/5 6/5 Takes\n", "take"),
    (" 5 point match\n\n Game 1\n a : 0   b : 0\n  1) 31: 8/5 6/5 Doubles => 4\n",
     "cube offered at 4"),
])
@pytest.mark.filterwarnings("ignore::gbot.records.matfile.MatchFileWarning")
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


# --------------------------------------------------------------------------- other writers

_HEAD = " 5 point match\n\n Game 1\n alice : 0                      bob : 0\n"


def _read(text: str, rules: Rules | None = None) -> tuple[MatchRecord, list[tuple[int, str]]]:
    """The record of ``text`` and its warnings, as (line, message)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rec = matfile.loads(text, rules)
    out = []
    for w in caught:
        assert issubclass(w.category, matfile.MatchFileWarning), w
        msg = w.message
        assert isinstance(msg, matfile.MatchFileWarning)
        assert w.lineno == msg.line and w.filename == "<match file>"
        assert "\n" not in msg.text and len(msg.text) < 300, msg.text
        out.append((msg.line, msg.text))
    return rec, out


def test_text_after_a_move_is_skipped_with_a_warning() -> None:
    rec, warned = _read(_HEAD + "  1) 31: 8/5 6/5 hello\n")
    assert warned == [(5, "game 1: skipped 'hello' after the move 8/5 6/5")]
    assert [a.steps for a in rec.games[0].actions if a.kind == "move"] == [((8, 5), (6, 5))]


def test_lines_that_are_no_entry_are_skipped_with_a_warning() -> None:
    text = ("Played at the club\n" + _HEAD + "  1) 31: 8/5 6/5                 64: 24/18 13/9\n"
            "   (a spectator spilled coffee here)\n  2) 21: 13/11 24/23\n")
    rec, warned = _read(text)
    assert [n for n, _ in warned] == [1, 7]
    assert "before the 'N point match' line" in warned[0][1] and "coffee" in warned[1][1]
    assert len([a for a in rec.games[0].actions if a.kind == "move"]) == 3


def test_cannot_move_is_a_roll_without_a_play() -> None:
    moves = [a for a in matfile.loads(GNUBG_EXPORT).games[1].actions if a.kind == "move"]
    dance = next(i for i, a in enumerate(moves) if not a.steps)
    studio = GNUBG_EXPORT.replace("54: \n", "54: Cannot Move\n")
    assert studio != GNUBG_EXPORT
    rec, warned = _read(studio)
    assert warned == [] and _moves(rec) == _moves(matfile.loads(GNUBG_EXPORT))
    assert not [a for a in rec.games[1].actions if a.kind == "move"][dance].steps
    # 'Cannot Move' where the roll has a play is illegal play, as an empty move is
    with pytest.raises(MatchFileError, match="out of turn"):
        matfile.loads(_HEAD + "  1) 31: Cannot Move               64: 24/18 13/9\n")


@pytest.mark.parametrize(("doubled", "crawford"), [(False, True), (True, False)])
def test_a_record_that_starts_in_mid_match(doubled: bool, crawford: bool) -> None:
    cube = "  2) 21: 13/11 24/23              Doubles => 2\n  3)  Takes\n" if doubled else ""
    text = (" 7 point match\n\n Game 1\n alice : 6                      bob : 5\n"
            "  1) 31: 8/5 6/5                 64: 24/18 13/9\n" + cube
            + f"                                  Wins {2 if doubled else 1} point\n")
    rec, warned = _read(text)
    assert warned == []
    game = rec.games[0]
    # a game one away from the match with a double in it is past the Crawford game
    assert game.score == (6, 5) and game.crawford is crawford
    assert (game.winner, game.points) == (1, 2 if doubled else 1)
    assert rec.final_score == (6, 7 if doubled else 6)


def test_a_score_line_that_disagrees_with_the_play_is_kept_with_a_warning() -> None:
    text = GNUBG_EXPORT.replace(" gnubg : 2                      root : 0",
                                " gnubg : 3                      root : 0")
    rec, warned = _read(text)
    line = text.splitlines().index(" Game 2") + 1
    assert warned == [(line, "game 2: the file says score 3-0, the play before gives 2-0; the "
                             "file's score is kept")]
    assert rec.games[1].score == (3, 0) and rec.final_score == (5, 0)


def test_a_game_without_a_score_line_is_skipped() -> None:
    text = GNUBG_EXPORT.replace(" gnubg : 2                      root : 0\n", "")
    rec, warned = _read(text)
    assert len(rec.games) == 1 and rec.final_score == (2, 0)
    assert "game 2 has no score line" in warned[0][1] and len(warned) == 1


def test_a_game_without_a_result_is_closed_when_the_next_begins() -> None:
    text = _HEAD + "  1) 31: 8/5 6/5\n\n Game 2\n alice : 0                      bob : 1\n"
    rec, warned = _read(text)
    assert warned == [(5, "game 1 ends without a result"),
                      (7, "game 2: the file says score 0-1, the play before gives 0-0; the "
                          "file's score is kept")]
    assert (rec.games[0].winner, rec.games[0].points) == (-1, 0)
    assert rec.games[1].score == (0, 1) and rec.final_score == (0, 1)


def test_losses_is_the_loser_s_entry() -> None:
    text = _HEAD + "  1) 31: 8/5 6/5                 Losses 2 point\n"
    rec, warned = _read(text)
    assert warned == [] and rec.final_score == (2, 0)
    game = rec.games[0]
    assert (game.winner, game.points, game.how) == (0, 2, GameState.RESIGNED)
    assert [a.kind for a in game.actions][-3:] == ["resign", "accept", "win"]


@pytest.mark.parametrize(("end", "why"), [
    ("Losses 4 point", "a resignation scores 1 or 2 or 3"),
    ("Wins 3 points", "a double to 2 is pending"),
])
def test_a_result_the_play_does_not_give_is_kept_as_recorded(end: str, why: str) -> None:
    cube = "  2)  Doubles => 2\n" if "Wins" in end else ""
    text = _HEAD + "  1) 31: 8/5 6/5                 64: 24/18 13/9\n" + cube + " " * 34 + end
    rec, warned = _read(text + "\n")
    assert len(warned) == 1 and why in warned[0][1] and "recorded result is kept" in warned[0][1]
    game = rec.games[0]
    assert (game.winner, game.points, game.how) == (1 if cube else 0, int(end.split()[1]),
                                                   GameState.RESIGNED)


def test_a_borne_off_loser_resigns_no_gammon() -> None:
    # a gammon resigned where the loser has borne off checkers: a forfeit, kept as recorded
    text = GNUBG_EXPORT.replace(" 23)  Doubles => 4                Drops\n      Wins 2 points",
                                " 23)                             Losses 4 points")
    assert text != GNUBG_EXPORT
    rec, warned = _read(text)
    assert (rec.games[0].winner, rec.games[0].points) == (0, 4)
    assert "cube at 2, a resignation scores 2 as player 1 has borne off" in warned[0][1]
    assert "the file says score 2-0, the play before gives 4-0" in warned[1][1]


def test_wins_after_an_unanswered_double_is_a_drop() -> None:
    text = _HEAD + "  1) 31: 8/5 6/5                  Doubles => 2\n" + " " * 34 + "Wins 1 point\n"
    rec, warned = _read(text)
    assert warned == [] and rec.games[0].how == GameState.DROPPED


def test_a_result_line_that_disagrees_with_the_finished_play_is_a_warning() -> None:
    text = GNUBG_EXPORT.replace("      Wins 2 points\n\n Game 2", "      Wins 1 point\n\n Game 2")
    rec, warned = _read(text)
    assert rec.games[0].points == 2 and len(warned) == 1
    assert "the play gives player 0 2 point(s), which is kept" in warned[0][1]


def test_an_unknown_move_is_followed_only_where_the_roll_allows_one_play() -> None:
    # 64 from the bar against a five-point board: one play; a 31 later has many
    rec, warned = _read(_HEAD + "  1) 31: ????                    64: 24/18 13/9\n"
                        "  2) 21: 13/11 24/23              Doubles => 2\n"
                        "  3)  Drops                       Wins 1 point\n")
    assert warned == [(5, "game 1: '31: ????' is no move gbot can read, and 31 has 16 legal "
                          "plays; the rest of the game (lines 5-7) is skipped, its recorded "
                          "result is kept")]
    game = rec.games[0]
    assert (game.winner, game.points) == (1, 1) and rec.final_score == (0, 1)
    assert [a.kind for a in game.actions] == ["roll", "win"]


def test_an_unknown_move_with_a_single_play_is_played() -> None:
    export = matfile.loads(GNUBG_EXPORT)
    moves = [a for a in export.games[1].actions if a.kind == "move"]
    dance = next(a for a in moves if not a.steps)
    text = GNUBG_EXPORT.replace("54: \n", "54: ????\n")
    rec, warned = _read(text)
    assert len(warned) == 1 and "as no move: 54 has no legal play" in warned[0][1]
    assert _moves(rec) == _moves(export) and dance.dice == (5, 4)


def test_warnings_stop_at_the_limit() -> None:
    text = _HEAD + "".join(f"  note {i}\n" for i in range(matfile.MAX_WARNINGS + 5))
    _, warned = _read(text)
    assert len(warned) == matfile.MAX_WARNINGS + 1
    assert warned[-1] == (0, "5 more warnings about this file are not shown")


@pytest.mark.parametrize(("written", "name"), [
    ("charlie11,1566", "charlie11"), ("delta_7, 1702.35", "delta_7"), ("bob", "bob"),
    ("1566", "1566"), ("a,b", "a,b"),
])
def test_ratings_after_names_are_dropped(written: str, name: str) -> None:
    assert matfile.player_name(written) == name


def test_read_names_the_file_in_its_warnings(tmp_path: Path) -> None:
    path = tmp_path / "m.mat"
    path.write_text(_HEAD + "  1) 31: 8/5 6/5 hello\n")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        matfile.read(path)
    assert [(w.filename, w.lineno) for w in caught] == [(str(path), 5)]


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


def test_lines_before_the_header_are_counted_past_the_limit() -> None:
    text = "".join(f"junk {i}\n" for i in range(matfile.MAX_WARNINGS + 7)) + _HEAD
    _, warned = _read(text)
    assert len(warned) == matfile.MAX_WARNINGS + 1
    assert warned[-1] == (0, "7 more warnings about this file are not shown")


# --------------------------------------------------------------------------- referee additions


def test_set_score_starts_a_game_at_a_stated_score() -> None:
    from gbot.errors import MatchRuleError

    ref = Referee(7, seed=0)
    ref.set_score((6, 5))
    assert ref.state.crawford and ref.record.games[0].crawford
    assert ref.record.games[0].score == (6, 5) == ref.record.final_score
    ref.set_score((6, 5), crawford_done=True)
    assert not ref.state.crawford and ref.state.post_crawford
    with pytest.raises(MatchRuleError, match="ends a 7-point match"):
        ref.set_score((7, 0))
    ref.roll((3, 1))
    with pytest.raises(MatchRuleError, match="before a game's first roll"):
        ref.set_score((0, 0))


def test_forfeit_ends_a_game_at_the_recorded_points() -> None:
    from gbot.errors import MatchRuleError

    ref = Referee(5, seed=0)
    ref.roll((3, 1))
    ref.play(legal_results(ref.state)[0])
    ref.double()
    ref.forfeit(1, 3)               # whatever was pending lapses
    game = ref.record.games[0]
    assert (game.winner, game.points, game.how) == (1, 3, GameState.RESIGNED)
    assert ref.state.score == (0, 3) == ref.record.final_score
    with pytest.raises(MatchRuleError, match="already over"):
        ref.forfeit(0, 1)
    ref.next_game()
    with pytest.raises(MatchRuleError, match="points must be >= 1"):
        ref.forfeit(0, 0)
    ref.forfeit(-1, 0)              # no result
    assert (ref.record.games[1].winner, ref.state.score) == (-1, (0, 3))
