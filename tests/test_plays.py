"""``Position.legal_plays``'s lazy :class:`gbot.game.position.Plays` against the eager result: the
plays built whole from the move generator's rows (every field, equality, hash, text), and a
plain ``list`` of them under the same reads and changes (results and errors alike)."""

from __future__ import annotations

import copy
import pickle
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gbot.core.movegen import legal_plays_raw
from gbot.game.position import Play, Plays, Position
from tests.randomplay import random_positions
from tests.strategies import boards

_PLAYED = list(random_positions(400, seed=1414))
"""Positions from seeded random games (side to move), each with its roll."""


@st.composite
def cases(draw: st.DrawFn) -> tuple[Position, tuple[int, int], bool]:
    """A position, a roll and the Caucasian switch."""
    if draw(st.booleans()):
        board, d1, d2 = draw(st.sampled_from(_PLAYED))
    else:
        board = draw(boards())
        d1, d2 = draw(st.integers(1, 6)), draw(st.integers(1, 6))
    return Position(board), (d1, d2), draw(st.integers(0, 5)) == 0


def eager(pos: Position, dice: tuple[int, int], caucasian: bool = False) -> list[Play]:
    """The plays built whole (steps, resulting position) from the generator's rows."""
    results, steps = legal_plays_raw(pos.board, dice[0], dice[1], caucasian)
    out = []
    for res, st_ in zip(results, steps, strict=True):
        seq = tuple((int(st_[2 * i]), int(st_[2 * i + 1])) for i in range(4) if st_[2 * i])
        out.append(Play(pos, dice, seq, Position(res)))
    return out


def fields(p: Play) -> tuple[object, ...]:
    """Everything a play shows."""
    return (p.start, p.dice, p.steps, p.position, p.position.board.tobytes(), p.notation, str(p),
            repr(p), hash(p))


def same(a: object, b: object) -> None:
    """``a`` (from the lazy plays) shows what ``b`` (from the list) shows."""
    if isinstance(b, Play):
        assert isinstance(a, Play) and fields(a) == fields(b)
    elif isinstance(b, list):
        assert type(a) in (list, Plays) and len(a) == len(b)   # type: ignore[arg-type]
        for x, y in zip(a, b, strict=True):                    # type: ignore[call-overload]
            same(x, y)
    else:
        assert type(a) is type(b) and a == b


@settings(max_examples=60, deadline=None)
@given(cases(), st.randoms(use_true_random=False))
def test_lazy_plays_show_what_plays_built_whole_show(
        case: tuple[Position, tuple[int, int], bool], rnd: Any) -> None:
    pos, dice, cauc = case
    want = eager(pos, dice, cauc)
    got = pos.legal_plays(dice, caucasian=cauc)
    assert type(got) is Plays and len(got) == len(want) and bool(got) == bool(want)
    # fields read in a random order of plays and of fields, some plays by negative index
    order = list(range(len(want)))
    rnd.shuffle(order)
    for i in order:
        j = i - len(want) if rnd.random() < 0.3 else i
        p = got[j]
        assert p is got[i]
        readers: list[Callable[[Play], object]] = [
            lambda q: q.position, lambda q: q.notation, lambda q: q.steps, lambda q: hash(q),
            lambda q: repr(q), lambda q: q.dice, lambda q: q.start]
        rnd.shuffle(readers)
        for read in readers[:rnd.randint(0, len(readers))]:
            read(p)
        assert fields(p) == fields(want[i])
        assert not p.position.board.flags.writeable
    assert got == want and want == got and not (got != want)
    assert list(got) == want and [fields(p) for p in got] == [fields(p) for p in want]
    assert repr(got) == repr(want)
    assert {*got} == {*want}
    if order:
        assert list(got)[order[0]] is got[order[0]]     # the plays built first are kept


@settings(max_examples=40, deadline=None)
@given(cases())
def test_lazy_plays_match_text_as_plays_built_whole(
        case: tuple[Position, tuple[int, int], bool]) -> None:
    pos, dice, cauc = case
    for want in eager(pos, dice, cauc)[:6]:
        got = pos.play_from_text(want.notation, dice, caucasian=cauc)
        assert got.position == want.position and type(got) is Play


_OPS = st.lists(st.tuples(
    st.sampled_from(["get", "slice", "len", "bool", "iter", "reversed", "in", "index", "count",
                     "repr", "eq", "lt", "add", "radd", "iadd", "mul", "imul", "append", "extend",
                     "pop", "insert", "remove", "del", "delslice", "set", "setslice", "sort",
                     "reverse", "clear", "copy", "copy.copy", "deepcopy", "pickle"]),
    st.integers(-30, 30), st.integers(-30, 30), st.integers(0, 3)), max_size=12)


def _apply(x: Any, op: str, i: int, j: int, k: int, pool: list[Play]) -> object:
    """One read or change of the list ``x``; what it returns (the object for in-place ops)."""
    item = pool[abs(j) % len(pool)]
    if op == "get":
        return x[i]
    if op == "slice":
        return x[i:j:k or None]
    if op == "len":
        return len(x)
    if op == "bool":
        return bool(x)
    if op == "iter":
        return list(iter(x))
    if op == "reversed":
        return list(reversed(x))
    if op == "in":
        return item in x
    if op == "index":
        return x.index(item)
    if op == "count":
        return x.count(item)
    if op == "repr":
        return repr(x)
    if op == "eq":
        return (x == pool[:k], x != [], x == tuple(pool))
    if op == "lt":
        return (x < [], x >= [], x <= [])
    if op == "add":
        return x + pool[:k]
    if op == "radd":
        return pool[:k] + x
    if op == "iadd":
        x += pool[:k]
        return None
    if op == "mul":
        return (x * k, k * x)
    if op == "imul":
        x *= k % 3
        return None
    if op == "append":
        x.append(item)
        return None
    if op == "extend":
        x.extend(pool[:k])
        return None
    if op == "pop":
        return x.pop(i)
    if op == "insert":
        x.insert(i, item)
        return None
    if op == "remove":
        x.remove(item)
        return None
    if op == "del":
        del x[i]
        return None
    if op == "delslice":
        del x[i:j]
        return None
    if op == "set":
        x[i] = item
        return None
    if op == "setslice":
        x[i:j] = pool[:k]
        return None
    if op == "sort":
        x.sort(key=lambda p: p.notation, reverse=k % 2 == 1)
        return None
    if op == "reverse":
        x.reverse()
        return None
    if op == "clear":
        x.clear()
        return None
    if op == "copy":
        return x.copy()
    if op == "copy.copy":
        return list(copy.copy(x))
    if op == "deepcopy":
        return copy.deepcopy(x)
    assert op == "pickle"
    return pickle.loads(pickle.dumps(x))


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(_PLAYED[:60]), _OPS)
def test_lazy_plays_answer_reads_and_changes_as_a_list(
        case: tuple[np.ndarray, int, int], ops: list[tuple[str, int, int, int]]) -> None:
    board, d1, d2 = case
    pos = Position(board)
    got = pos.legal_plays((d1, d2))
    model = eager(pos, (d1, d2))
    pool = model[:3] + eager(Position.initial(), (3, 1))[:3]    # members and strangers
    for op, i, j, k in ops:
        outcome: list[tuple[Any, ...]] = []
        for x in (got, model):
            try:
                outcome.append(("ok", _apply(x, op, i, j, k, pool)))
            except Exception as exc:  # noqa: BLE001 - the list's error is the reference
                outcome.append(("raised", type(exc), str(exc)))
        (kind_got, *rest_got), (kind_want, *rest_want) = outcome
        assert kind_got == kind_want, (op, outcome)
        if kind_want == "ok":
            same(rest_got[0], rest_want[0])
        else:
            assert rest_got == rest_want
        assert type(got) is Plays and len(got) == len(model) and got == model
        same(list(got), model)


def test_plays_compare_and_hash_as_lists() -> None:
    pos = Position.initial()
    a, b = pos.legal_plays((3, 1)), pos.legal_plays((3, 1))
    assert a == b and a is not b and not (a != b)
    other_order = pos.legal_plays((1, 3))      # a play's equality leaves the dice out
    assert a == other_order and other_order[0].dice == (1, 3)
    assert a != pos.legal_plays((6, 5)) and a != tuple(b) and a != "x"
    with pytest.raises(TypeError, match="unhashable"):
        hash(a)
    # fresh (unbuilt) plays of two rolls compare as the plays built whole do
    rolls = [(d1, d2) for d1 in range(1, 7) for d2 in range(1, d1 + 1)]
    differ = 0
    for r1 in rolls:
        for r2 in rolls:
            x, y = pos.legal_plays(r1), pos.legal_plays(r2)
            if len(x) == len(y):
                assert (x == y) == (eager(pos, r1) == eager(pos, r2)) == (r1 == r2)
                differ += r1 != r2
    assert differ > 0
    closed = np.zeros(26, dtype=np.int8)
    closed[25], closed[6] = 1, 14
    closed[18:25] = [-3, -2, -2, -2, -2, -2, -2]
    none = Position(closed).legal_plays((3, 1))
    assert len(none) == 0 and none == [] and [] == none and not none and repr(none) == "[]"
    assert none == Position.initial().legal_plays((3, 1))[:0]
    with pytest.raises(IndexError, match="list index out of range"):
        none[0]
    with pytest.raises(TypeError, match="list indices must be integers or slices, not str"):
        a["0"]  # type: ignore[call-overload]


@pytest.mark.parametrize("dice", [(True, 1), (np.int64(3), np.int8(1)), [3, 1], (3.0, 1)])
def test_dice_of_other_number_types_give_int_dice(dice: Any) -> None:
    plays = Position.initial().legal_plays(dice)
    want = (int(dice[0]), int(dice[1]))
    assert plays == eager(Position.initial(), want)
    assert plays[0].dice == want and all(type(d) is int for d in plays[0].dice)


@pytest.mark.parametrize("dice", [(0, 3), (3, 7), (3,), (1, 2, 3), ([1], 2), "3", None,
                                  ("a", 1)])
def test_bad_dice_raise_one_line_value_error(dice: Any) -> None:
    with pytest.raises(ValueError, match="dice must be two numbers 1..6"):
        Position.initial().legal_plays(dice)
