"""gnubg .sgf files: what we write, Debian's gnubg loads with the same moves, cube actions,
Crawford games, resignations and scores."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from gbot.errors import MatchFileError
from gbot.game.match import GameState, Rules
from gbot.game.referee import Referee
from gbot.records import sgf
from tests.players import play_match
from tests.test_matfile import _gnubg_import, _gnubg_view, _moves, _summary, _trim, needs_gnubg


def test_layout() -> None:
    ref = play_match(3, Rules(), 7)
    ref.record.names = ("al]ce", "bob")
    text = sgf.dumps(ref.record)
    trees = text.strip().split("\n(")
    assert len(trees) == len(ref.record.games)
    assert text.startswith("(;FF[4]GM[6]CA[UTF-8]AP[gbot:")
    assert "MI[length:3][game:0][ws:0][bs:0]PW[al\\]ce]PB[bob]RU[Crawford]" in text
    first = ref.record.games[0]
    assert f"RE[{'W' if first.winner == 0 else 'B'}+{first.points}" in trees[0]


def test_opening_move_letters() -> None:
    ref = Referee(1, seed=0)
    ref.roll((2, 1))  # player 0 opens with 21
    from gbot.game.position import Position

    p = Position(ref.state.board_array()).play_from_text("13/11 24/23", (2, 1))
    ref.play(p.position.board, steps=((13, 11), (24, 23)))
    ref.roll((4, 1))
    q = Position(ref.state.board_array()).play_from_text("6/2 2/1", (4, 1))
    ref.play(q.position.board, steps=((6, 2), (2, 1)))
    # the same nodes gnubg 1.07 saved for these two moves
    assert "\n;W[21mkxw]\n;B[41swwx]" in sgf.dumps(ref.record)


def test_only_standard() -> None:
    ref = play_match(1, Rules(variation="hyper2"), 1)
    with pytest.raises(MatchFileError) as exc:
        sgf.dumps(ref.record)
    assert "'hyper2'" in str(exc.value)


@pytest.mark.gnubg
@needs_gnubg
def test_gnubg_loads_our_sgf(tmp_path: Path) -> None:
    cases = [(n, Rules()) for n in (1, 3, 5, 7, 9, 5, 3, 7, 11, 2)]
    cases += [(0, Rules(jacoby=True))] * 3
    cases += [(0, Rules(beavers=True, raccoons=True, cube_cap=64, jacoby=False))] * 4
    refs, paths = [], []
    for seed, (length, rules) in enumerate(cases):
        ref = play_match(length, rules, 500 + seed, games=4)
        ref.record.names = ("alice", "bob")
        paths.append(tmp_path / f"m{seed}.sgf")
        sgf.write(ref.record, paths[-1])
        refs.append(ref)
    views = _gnubg_import(paths, tmp_path, "load match")
    beavers = 0
    for ref, view in zip(refs, views, strict=True):
        summary, moves, final = _gnubg_view(view)
        assert summary == _summary(ref.record)
        # gnubg records a beaver or raccoon as a redouble by the player who made it
        ours = [[(r[0], "double", r[2]) if r[1] == "beaver" else r for r in g]
                for g in _moves(ref.record)]
        beavers += sum(1 for g in _moves(ref.record) for r in g if r[1] == "beaver")
        assert _trim(moves) == _trim(ours)
        assert final == ref.state.score
    assert beavers >= 3


# --------------------------------------------------------------------------- hostile numbers

_SGF = (Path(__file__).parent / "data" / "gnubg_3pt.sgf").read_text()


@pytest.mark.parametrize(("text", "needle"), [
    (_SGF.replace("[bs:0]", "[bs:0\u00b2]", 1), "MI bs must be an integer"),
    (_SGF.replace("[length:3]", "[length:99999999999]", 1), "MI length must be an integer "
                                                            "from 0 to 64"),
    (_SGF.replace("[length:3]", "[length:\u0663]", 1), "MI length"),
    (_SGF.replace(";W[32xumk]", ";W[\u00b32xumk]", 1), "cannot read move"),
    (_SGF.replace("RE[B+1]", "RE[B+" + "9" * 5000 + "]", 1), "points won"),
    ("(" * 2000 + ")" * 2000, "nest more than"),
])
def test_hostile_sgf_numbers_are_match_file_errors(text: str, needle: str) -> None:
    from gbot.records import sgf_read

    with pytest.raises(MatchFileError) as exc:
        sgf_read.loads(text)
    assert needle in str(exc.value) and "\n" not in str(exc.value)


def test_sgf_dice_of_other_scripts_are_no_dice() -> None:
    from gbot.records import sgf_read

    # was a bare ValueError from int('²'); a DI that is no two ASCII digits is not read
    tree = _SGF.split("\n(")[0]
    last = tree.rstrip().rstrip(")")
    try:
        sgf_read.loads(last + "PL[W]DI[\u00b21])\n")
    except MatchFileError:
        pass


def test_sgf_values_keep_their_escapes() -> None:
    from gbot.records import sgf_read

    nodes = sgf_read.parse("(;GM[6]PW[a\\]b\\\\]PB[c\\d]C[x]\n;W[31])")[0]
    assert nodes[0]["PW"] == ["a]b\\"] and nodes[0]["PB"] == ["cd"]
    with pytest.raises(MatchFileError, match="unterminated"):
        sgf_read.parse("(;GM[6]PW[a\\])")


# --------------------------------------------------------------------------- other writers

_ROOT = "(;FF[4]GM[6]MI[length:7][game:0][ws:{ws}][bs:{bs}]PW[alice,1650]PB[bob,1702]{re}\n"


def _read(text: str) -> tuple[object, list[tuple[int, str]]]:
    """The record of SGF ``text`` and its warnings, as (line, message)."""
    from gbot.records import matfile, sgf_read

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rec = sgf_read.loads(text)
    out = []
    for w in caught:
        msg = w.message
        assert isinstance(msg, matfile.MatchFileWarning) and w.lineno == msg.line
        assert "\n" not in msg.text and len(msg.text) < 300, msg.text
        out.append((msg.line, msg.text))
    return rec, out


def test_resignation_nodes_offer_points_and_are_answered() -> None:
    # W opens 31, B offers a single game (1 point) and W rejects; B plays on, then offers
    # the 2 points of a gammon, which W accepts
    text = (_ROOT.format(ws=0, bs=0, re="RE[W+2Resign]") + ";W[31hefe]\n;B[resign:1]\n"
            ";W[reject]\n;B[64aggk]\n;W[21mkxw]\n;B[resign:2]\n;W[accept])\n")
    rec, warned = _read(text)
    assert warned == []
    assert rec.names == ("alice", "bob")                    # ratings dropped
    game = rec.games[0]
    assert [a.kind for a in game.actions] == [
        "roll", "move", "resign", "reject", "roll", "move", "roll", "move", "resign", "accept",
        "win"]
    assert (game.winner, game.points, game.how) == (0, 2, GameState.RESIGNED)


def test_a_resignation_of_points_no_resignation_scores() -> None:
    text = (_ROOT.format(ws=0, bs=0, re="RE[W+5]") + ";W[31hefe]\n;B[resign:5]\n"
            ";W[accept])\n")
    rec, warned = _read(text)
    assert [n for n, _ in warned] == [3]
    assert "'B[resign:5]' offers 5 points, which no resignation scores here" in warned[0][1]
    assert (rec.games[0].winner, rec.games[0].points) == (0, 5)


def test_a_set_up_position_is_not_kept() -> None:
    text = (_ROOT.format(ws=3, bs=2, re="") + ";PL[W]AE[a:y]AW[f][f][f][f][f][h][h][h][m][m]"
            "[m][m][m][x][x]AB[s][s][s][s][s][q][q][q][l][l][l][l][l][a][b]\n;PL[W]DI[52])\n")
    rec, warned = _read(text)
    assert [n for n, _ in warned] == [2] and "set-up position" in warned[0][1]
    assert rec.games[0].score == (3, 2) and rec.final_score == (3, 2)
    assert rec.games[0].actions == []


def test_a_set_up_of_the_opening_position_is_followed() -> None:
    text = (_ROOT.format(ws=0, bs=0, re="") + ";PL[W]AE[a:y]AW[f][f][f][f][f][h][h][h][m][m]"
            "[m][m][m][x][x]AB[s][s][s][s][s][q][q][q][l][l][l][l][l][a][a]\n;W[31hefe])\n")
    rec, warned = _read(text)
    assert warned == [] and [a.kind for a in rec.games[0].actions] == ["roll", "move"]


def test_an_sgf_that_starts_in_mid_match() -> None:
    text = _ROOT.format(ws=6, bs=5, re="RE[B+1]") + ";W[31hefe]\n;B[double]\n;W[drop])\n"
    rec, warned = _read(text)
    assert warned == [] and rec.games[0].score == (6, 5)
    assert not rec.games[0].crawford and rec.final_score == (6, 6)


def test_sgf_resignation_values_are_bounded() -> None:
    from gbot.records import sgf_read

    text = _ROOT.format(ws=0, bs=0, re="") + ";W[31hefe]\n;B[resign:" + "9" * 50 + "])\n"
    with pytest.raises(MatchFileError, match="game 1, node 2: points resigned must be an integer"):
        sgf_read.loads(text)
