"""gnubg .sgf files: what we write, Debian's gnubg loads with the same moves, cube actions,
Crawford games, resignations and scores."""

from __future__ import annotations

from pathlib import Path

import pytest

from gbot.errors import MatchFileError
from gbot.game.match import Rules
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
