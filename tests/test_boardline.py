"""The compiled reader of gnubg's board lines against the Python parser (the oracle).

:func:`gbot.game.notations.fibs_board.parse_gnubg_line` must give exactly what
:func:`~gbot.game.notations.fibs_board.parse_fibs_board` gives (the same board, field types
included) or raise exactly the same error, on the captured corpora, generated boards and
mutated lines.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gbot.errors import FibsBoardError
from gbot.game.notations.fibs_board import (
    DIALECTS,
    FibsBoard,
    format_fibs_board,
    parse_fibs_board,
    parse_gnubg_line,
)
from tests.test_fibs_board import _records, fibs_boards


def _typed(v: Any) -> Any:
    if isinstance(v, tuple):
        return ("tuple", tuple(_typed(x) for x in v))
    return (type(v).__name__, v)


def _fields(b: FibsBoard) -> list[tuple[str, Any]]:
    return [(f.name, _typed(getattr(b, f.name))) for f in fields(b)]


def _same_outcome(line: str) -> None:
    try:
        want: FibsBoard | str = parse_fibs_board(line)
    except FibsBoardError as exc:
        want = str(exc)
    try:
        got: FibsBoard | str = parse_gnubg_line(line)
    except FibsBoardError as exc:
        got = str(exc)
    if isinstance(want, str) or isinstance(got, str):
        assert got == want
    else:
        assert _fields(got) == _fields(want)
        assert got == want


@pytest.mark.parametrize("dialect", DIALECTS)
def test_corpus_lines(dialect: str) -> None:
    for rec in _records(dialect):
        _same_outcome(rec["line"])
        _same_outcome(rec["line"] + "\n\x00")


@given(fibs_boards("gnubg_external"))
@settings(max_examples=400, deadline=None)
def test_generated_gnubg_boards(b: FibsBoard) -> None:
    line = format_fibs_board(b)
    assert parse_gnubg_line(line) == b
    _same_outcome(line)


@given(st.data())
@settings(max_examples=1500, deadline=None)
def test_mutated_lines(data: st.DataObject) -> None:
    dialect = data.draw(st.sampled_from(DIALECTS))
    recs = _records(dialect)
    line = recs[data.draw(st.integers(0, len(recs) - 1))]["line"]
    parts = line.split(":")
    for _ in range(data.draw(st.integers(1, 3))):
        how = data.draw(st.sampled_from(["small", "number", "text", "drop", "swap"]))
        i = data.draw(st.integers(1, len(parts) - 1))
        if how == "small":
            parts[i] = str(data.draw(st.integers(-3, 3)))
        elif how == "number":
            parts[i] = data.draw(st.sampled_from(
                ["0", "-0", "00", "01", "+1", " 1", "1 ", "9999", "32768", "65536", "1000000",
                 "999999", "-999999", "25", "-25", "15", "16", "", "x", "\u0661"]))
        elif how == "text":
            parts[i] = data.draw(st.text(max_size=4))
        elif how == "drop" and len(parts) > 2:
            del parts[i]
        elif how == "swap":
            j = data.draw(st.integers(1, len(parts) - 1))
            parts[i], parts[j] = parts[j], parts[i]
    _same_outcome(":".join(parts))


@given(st.text(alphabet="0123456789-:", max_size=160))
@settings(max_examples=300, deadline=None)
def test_random_numbers(text: str) -> None:
    _same_outcome("board:a:b:" + text)


def test_output_slots_follow_the_documented_layout() -> None:
    """The named output slots are :data:`FIELDS` in order after the 26 points."""
    from gbot.core import boardline as bl

    for i, field in enumerate(bl.FIELDS[1:]):
        name = "CRAWFORD" if field == "crawford_game" else field.upper()
        assert getattr(bl, "OUT_" + name) == 26 + i, field
    assert bl.N_OUT == 26 + len(bl.FIELDS) - 1
