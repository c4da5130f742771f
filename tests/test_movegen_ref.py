"""The move-generation kernel against its earlier version (tests/oracle/movegen_ref.py).

The speed work on :mod:`gbot.core.movegen` must keep every play, their order and the step
sequence reported for each: random boards (contact, the mover on the bar, bear-offs) and every
roll, with and without the Caucasian rule, through both entry points (``generate`` and the
packed ``generate_packed``)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from hypothesis import given, settings
from hypothesis import strategies as st

from gbot.core import movegen
from gbot.core.board import START
from tests.oracle import movegen_ref


@st.composite
def boards(draw: st.DrawFn) -> npt.NDArray[np.int8]:
    """A legal board: up to 15 checkers a side, the mover's on 1-25 (25 = bar), the
    opponent's on 0-24 (0 = their bar) on points the mover does not hold; often every mover
    checker home (bear-off) or some on the bar."""
    b = np.zeros(26, dtype=np.int8)
    style = draw(st.sampled_from(["contact", "bar", "home"]))
    top = 6 if style == "home" else 24
    mine = draw(st.integers(1, 15))
    for _ in range(mine):
        b[draw(st.integers(1, top))] += 1
    if style == "bar":
        moved = draw(st.integers(1, int(min(mine, 4))))
        for p in range(24, 0, -1):
            while moved and b[p] > 0:
                b[p] -= 1
                b[25] += 1
                moved -= 1
    free = [p for p in range(1, 25) if b[p] == 0]
    for _ in range(draw(st.integers(0, 15))):
        if draw(st.integers(0, 9)) == 0:
            b[0] -= 1
        else:
            b[draw(st.sampled_from(free))] -= 1
    return b


def _ref(board: npt.NDArray[np.int8], d1: int, d2: int, caucasian: bool
         ) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int8]]:
    return movegen_ref.legal_plays_raw(board, d1, d2, caucasian)


@settings(max_examples=150, deadline=None)
@given(boards(), st.integers(1, 6), st.integers(1, 6), st.booleans())
def test_same_plays_order_and_steps_as_reference(board: npt.NDArray[np.int8], d1: int,
                                                 d2: int, caucasian: bool) -> None:
    want_rows, want_steps = _ref(board, d1, d2, caucasian)
    rows, steps = movegen.legal_plays_raw(board, d1, d2, caucasian)
    assert rows.tobytes() == want_rows.tobytes()
    assert steps.tobytes() == want_steps.tobytes()


@settings(max_examples=60, deadline=None)
@given(boards(), st.booleans())
def test_packed_output_matches_reference_for_every_roll(board: npt.NDArray[np.int8],
                                                        caucasian: bool) -> None:
    ws = movegen.Workspace()
    ref_ws = movegen_ref.Workspace()
    ro = board.copy()
    ro.setflags(write=False)
    for d1 in range(1, 7):
        for d2 in range(1, 7):
            n = movegen.generate_packed(ro, d1, d2, caucasian, ws.i8, ws.i64)
            m = movegen_ref.generate_packed(ro, d1, d2, caucasian, ref_ws.i8, ref_ws.i64)
            assert n == m
            size = (26 + 2 * movegen.MAX_STEPS) * n
            assert ws.i8[:size].tobytes() == ref_ws.i8[:size].tobytes()


def test_start_and_bear_off_examples_match_reference() -> None:
    """Fixed cases: the opening position, a bear-off with a larger die, a bar entry."""
    cases = [START.copy()]
    bear = np.zeros(26, dtype=np.int8)
    bear[1], bear[3], bear[20] = 2, 1, -4
    cases.append(bear)
    bar = START.copy()
    bar[24] -= 1
    bar[25] += 1
    cases.append(bar)
    for b in cases:
        for d1 in range(1, 7):
            for d2 in range(1, 7):
                for cauc in (False, True):
                    r, s = movegen.legal_plays_raw(b, d1, d2, cauc)
                    wr, ws_ = _ref(b, d1, d2, cauc)
                    assert r.tobytes() == wr.tobytes() and s.tobytes() == ws_.tobytes()
