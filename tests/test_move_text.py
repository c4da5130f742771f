"""Move text against the legal plays (long texts answered at once) and the lazily built plays
of ``Position.legal_plays`` (same fields, equality, hashing, pickling as plays built whole)."""

from __future__ import annotations

import copy
import pickle
from dataclasses import FrozenInstanceError

import numpy as np
import pytest

import gbot
from gbot.core.movegen import legal_plays_raw
from gbot.errors import IllegalMoveError, MoveParseError
from gbot.game.position import Play, Position
from tests.randomplay import random_positions


@pytest.mark.parametrize("text,dice", [
    ("6/5(4) 8/7(4) 13/12 24/23 6/5", (1, 1)),                 # 11 segments, 4 dice
    ("24/23 24/23 13/12 13/12 8/7 8/7 6/5 6/5 6/5 8/7 13/12 24/23", (1, 1)),   # 12
    ("24/23 13/12 8/7 6/5 24/23 13/12 8/7 6/5 24/23 13/12 8/7 6/5", (2, 1)),
    ("24/18 13/8 8/3", (6, 5)),                                 # 3 segments, 2 dice
])
def test_more_segments_than_dice_is_an_illegal_move(text: str, dice: tuple[int, int]) -> None:
    with pytest.raises(IllegalMoveError, match="is not a legal play"):
        Position.initial().play_from_text(text, dice)


def test_long_unreadable_text_is_a_parse_error() -> None:
    with pytest.raises(MoveParseError):
        Position.initial().play_from_text("6/5(4) " * 5, (1, 1))   # 20 segments
    with pytest.raises(MoveParseError):
        Position.initial().play_from_text("6/5(4) 8/7(4) 13/12 24/23 6/5 x", (1, 1))


def test_four_segments_of_a_double_in_any_order() -> None:
    pos = Position.initial()
    want = pos.play_from_text("8/7(2) 6/5(2)", (1, 1))
    for text in ("6/5 8/7 6/5 8/7", "8/7 6/5 8/7 6/5", "6/5(2) 8/7(2)", "8/7 8/7 6/5 6/5"):
        assert pos.play_from_text(text, (1, 1)) == want
    assert want.notation == "8/7(2) 6/5(2)"


def test_chain_written_backwards_and_hits_preferred_as_marked() -> None:
    # on roll: checkers on 24 and 13; a blot of the opponent on our 18 point
    board = np.zeros(26, dtype=np.int8)
    board[24], board[13], board[6] = 2, 13, 0
    board[18] = -1
    board[3] = -14
    pos = Position(board)
    hit = pos.play_from_text("24/18*/13", (6, 5))
    assert hit.notation == "24/18*/13"
    assert pos.play_from_text("24/13*", (6, 5)) == hit      # a mark anywhere asks for the hit
    quiet = pos.play_from_text("24/13", (6, 5))
    assert quiet.notation == "24/13"
    assert quiet.position.board[0] == 0 and hit.position.board[0] == -1
    assert pos.play_from_text("18/13 24/18", (6, 5)) == hit   # order of segments is free


def test_mover_side_mismatch_is_illegal_without_search() -> None:
    pos = Position.initial()
    with pytest.raises(IllegalMoveError):
        pos.play_from_text("13/9 6/5", (3, 1))      # 4 pips of 3-1, wrong split
    with pytest.raises(IllegalMoveError):
        pos.play_from_text("7/4 6/5", (3, 1))       # no checker on 7


def _whole(pos: Position, dice: tuple[int, int]) -> list[Play]:
    results, steps = legal_plays_raw(pos.board, *dice)
    out = []
    for res, st in zip(results, steps, strict=True):
        seq = tuple((int(st[2 * i]), int(st[2 * i + 1])) for i in range(4) if st[2 * i])
        out.append(Play(pos, dice, seq, Position(res)))
    return out


def test_lazy_plays_equal_plays_built_whole() -> None:
    for board, d1, d2 in random_positions(300, 17):
        pos = Position(board)
        lazy = pos.legal_plays((d1, d2))
        whole = _whole(pos, (d1, d2))
        assert lazy == whole
        for a, b in zip(lazy, whole, strict=True):
            assert (a.start, a.dice, a.steps, a.position) == (b.start, b.dice, b.steps,
                                                             b.position)
            assert hash(a) == hash(b) and a.notation == b.notation and str(a) == str(b)
            assert repr(a) == repr(b)
            assert not a.position.board.flags.writeable


def test_plays_are_frozen_and_pickle() -> None:
    play = Position.initial().legal_plays((6, 5))[0]
    with pytest.raises(FrozenInstanceError):
        play.dice = (1, 1)  # type: ignore[misc]
    with pytest.raises(AttributeError):
        play.extra = 1
    for other in (pickle.loads(pickle.dumps(play)), copy.copy(play), copy.deepcopy(play)):
        assert other == play and other.steps == play.steps and other.notation == play.notation
    again = gbot.Position.initial().legal_plays((6, 5))
    assert again[0] == play and again[1] != play
    assert len({*again, play}) == len(again)


def test_move_text_kernel_equals_the_python_model() -> None:
    """:func:`gbot.game.notations.move_text.format_steps` (the kernel) writes what the plain-Python
    model writes, on every play of random positions and rolls (hits, chains, bear-offs, repeated
    chains)."""
    from gbot.game.notations.move_text import format_steps
    from tests.oracle.movetext import format_steps_model

    count = 0
    for board, d1, d2 in random_positions(300, seed=13):
        pos = Position(board)
        for play in pos.legal_plays((d1, d2)):
            steps = list(play.steps)
            assert format_steps(pos.board, steps) == format_steps_model(pos.board, steps)
            count += 1
    assert count > 1000
    assert format_steps(Position.initial().board, []) == ""
    with pytest.raises(ValueError, match="at most 4 steps"):
        format_steps(Position.initial().board, [(6, 5)] * 5)
