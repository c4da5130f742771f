"""The public Position/Play API, Position IDs, and move notation against gnubg's texts."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gbot
from gbot.errors import BoardError, IllegalMoveError, MoveParseError, PositionIdError
from gbot.game.notations import position_id
from gbot.game.notations.move_text import parse_move
from tests.conftest import read_jsonl, shared_path
from tests.randomplay import random_positions


def test_issue_example() -> None:
    pos = gbot.Position.from_id("4HPwATDgc/ABMA")
    assert pos.id() == "4HPwATDgc/ABMA"
    assert pos == gbot.Position.initial()
    plays = pos.legal_plays((6, 5))
    assert len({p.position.id() for p in plays}) == len(plays)
    assert "24/13" in [p.notation for p in plays]
    play = pos.play_from_text("8/5 6/5", (3, 1))
    assert play.notation == "8/5 6/5"
    with pytest.raises(IllegalMoveError):
        pos.play_from_text("8/5 6/5", (5, 3))
    assert pos.swapped() == pos  # the opening is symmetric
    assert pos.pip_count() == (167, 167)


def test_position_ids_of_vectors() -> None:
    n = 0
    for rec in read_jsonl(shared_path("vectors", "ids.jsonl")):
        if rec["kind"] != "position":
            continue
        pos = gbot.Position.from_id(rec["position_id"])
        assert pos.to_gnubg() == (rec["on_roll"], rec["opponent"])
        assert gbot.Position.from_gnubg(rec["on_roll"], rec["opponent"]).id() == rec["position_id"]
        n += 1
    assert n >= 30


def test_vector_move_texts_reproduced_character_for_character() -> None:
    total = same = 0
    for case in read_jsonl(shared_path("vectors", "legal_moves_public.jsonl")):
        pos = gbot.Position.from_id(case["position_id"])
        for play in pos.legal_plays(case["dice"]):
            total += 1
            same += play.notation == case["moves"][play.position.id()]
    assert total == 27_845
    assert same == total


def test_vector_move_texts_parse_back_to_their_play() -> None:
    for case in list(read_jsonl(shared_path("vectors", "legal_moves_public.jsonl")))[::4]:
        pos = gbot.Position.from_id(case["position_id"])
        for result_id, text in case["moves"].items():
            assert pos.play_from_text(text, case["dice"]).position.id() == result_id


@pytest.mark.parametrize("text,dice,want", [
    ("24/18 13/11", (6, 2), "24/18 13/11"),
    ("13/11 24/18", (6, 2), "24/18 13/11"),
    ("24-18 13-11", (6, 2), "24/18 13/11"),
    ("24/13", (6, 5), "24/13"),
    ("24/18/13", (6, 5), "24/13"),
    ("6/2(2) 8/4(2)", (4, 4), "8/4(2) 6/2(2)"),
    ("8/4 8/4 6/2 6/2", (4, 4), "8/4(2) 6/2(2)"),
    ("13/7 8/7", (6, 1), "13/7 8/7"),
    ("move 13/7, 8/7", (6, 1), "13/7 8/7"),
])
def test_parse_variants(text: str, dice: tuple[int, int], want: str) -> None:
    assert gbot.Position.initial().play_from_text(text, dice).notation == want


def test_parse_bar_and_off_numbers() -> None:
    pos = gbot.Position.from_id("4HPwARDwOfgBIA")  # on-roll side has one on the bar
    a = pos.play_from_text("bar/22 13/8", (5, 3))
    b = pos.play_from_text("25/22 13/8", (5, 3))
    assert a == b
    off = gbot.Position.from_id("310GAIDfBwAAAA")
    assert off.play_from_text("2/off(2)", (1, 1)).notation == "2/off(2)"
    assert off.play_from_text("2/0 2/0", (1, 1)).notation == "2/off(2)"


def test_bad_text_and_illegal_moves_are_different_errors() -> None:
    pos = gbot.Position.initial()
    with pytest.raises(MoveParseError, match="'banana'"):
        pos.play_from_text("banana", (3, 1))
    with pytest.raises(IllegalMoveError, match="'24/19'"):
        pos.play_from_text("24/19", (3, 1))
    with pytest.raises(IllegalMoveError):
        pos.play_from_text("8/5", (3, 1))  # incomplete: both dice can be played


def test_invalid_position_ids_raise() -> None:
    for bad in ["", "4HPwATDgc/ABM", "!!!!!!!!!!!!!!", "//////////////", 12345]:
        with pytest.raises(PositionIdError):
            gbot.Position.from_id(bad)  # type: ignore[arg-type]


def test_invalid_boards_raise() -> None:
    b = np.zeros(26, dtype=np.int8)
    b[5] = 16
    with pytest.raises(BoardError):
        gbot.Position(b)
    with pytest.raises(BoardError):
        gbot.Position(np.zeros(25))


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="0123456789/-*()bahrofBA ", max_size=30))
def test_parser_raises_only_typed_errors(text: str) -> None:
    try:
        gbot.Position.initial().play_from_text(text, (6, 5))
    except (MoveParseError, IllegalMoveError):
        pass


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(list(random_positions(2000, 9))))
def test_id_round_trip_and_swap(case: tuple[np.ndarray, int, int]) -> None:
    board, d1, d2 = case
    pos = gbot.Position(board)
    assert gbot.Position.from_id(pos.id()) == pos
    assert pos.swapped().swapped() == pos
    assert position_id.decode(pos.id()).tolist() == board.tolist()
    for play in pos.legal_plays((d1, d2)):
        assert pos.play_from_text(play.notation, (d1, d2)) == play


def test_parse_move_segments() -> None:
    assert parse_move("bar/22 6/off") == [(25, 22), (6, 0)]
    assert parse_move("6/4(2)") == [(6, 4), (6, 4)]
    assert parse_move("24/18*/13") == [(24, 18), (18, 13)]
    with pytest.raises(MoveParseError):
        parse_move("6/8")
