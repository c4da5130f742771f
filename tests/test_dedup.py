"""gbot.core.dedup: the distinct boards of a batch and the way back, against a dict."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from hypothesis import given, settings
from hypothesis import strategies as st

from gbot.core import dedup


def _reference(boards: npt.NDArray[np.int8], kinds: npt.NDArray[np.int8], kind: int
               ) -> tuple[list[bytes], list[int]]:
    """First occurrences in order and each row's index among them (-1: another kind)."""
    seen: dict[bytes, int] = {}
    inverse = []
    for b, k in zip(boards, kinds, strict=True):
        if k != kind:
            inverse.append(-1)
            continue
        inverse.append(seen.setdefault(b.tobytes(), len(seen)))
    return list(seen), inverse


def _check(boards: npt.NDArray[np.int8], kinds: npt.NDArray[np.int8], kind: int) -> int:
    out = np.empty_like(boards)
    inverse = np.empty(boards.shape[0], dtype=np.int64)
    m = dedup.unique_rows(boards, kinds, kind, out, inverse)
    rows, want = _reference(boards, kinds, kind)
    assert m == len(rows)
    assert [r.tobytes() for r in out[:m]] == rows
    assert inverse.tolist() == want
    values = np.arange(5 * max(m, 1), dtype=np.float32).reshape(-1, 5)
    back = np.full((boards.shape[0], 5), -7.0)
    dedup.scatter_rows(values, inverse, back)
    for i, k in enumerate(want):
        assert back[i].tolist() == (values[k].tolist() if k >= 0 else [-7.0] * 5)
    return m


boards_st = st.lists(st.lists(st.integers(-15, 15), min_size=26, max_size=26),
                     min_size=0, max_size=40)


@settings(max_examples=60, deadline=None)
@given(boards_st, st.data())
def test_unique_rows_matches_a_dict(rows: list[list[int]], data: st.DataObject) -> None:
    base = np.array(rows, dtype=np.int8).reshape(-1, 26)
    # repeat some rows so that duplicates are common
    picks = data.draw(st.lists(st.integers(0, max(len(rows) - 1, 0)), max_size=40)) if rows \
        else []
    boards = np.ascontiguousarray(np.concatenate([base, base[picks]]) if picks else base)
    kinds = np.array(data.draw(st.lists(st.integers(0, 2), min_size=boards.shape[0],
                                        max_size=boards.shape[0])), dtype=np.int8)
    _check(boards, kinds, data.draw(st.integers(0, 2)))


def test_boards_differing_in_one_byte_stay_apart() -> None:
    rng = np.random.default_rng(3)
    base = rng.integers(-3, 4, size=(1, 26)).astype(np.int8)
    variants = [base[0].copy()]
    for j in range(26):                      # every byte, each way
        for delta in (-1, 1):
            b = base[0].copy()
            b[j] += delta
            variants.append(b)
    boards = np.array(variants * 3, dtype=np.int8)
    assert _check(boards, np.zeros(len(boards), dtype=np.int8), 0) == len(variants)


def test_many_rows_and_a_non_contiguous_batch() -> None:
    rng = np.random.default_rng(4)
    base = rng.integers(-2, 3, size=(5000, 26)).astype(np.int8)
    boards = np.ascontiguousarray(base[rng.integers(0, 5000, size=20000)])
    assert _check(boards, np.zeros(20000, dtype=np.int8), 0) == len(
        {b.tobytes() for b in boards})
    strided = np.repeat(boards[:300], 2, axis=0)[::2]     # a view with a row stride
    assert _check(strided, np.zeros(300, dtype=np.int8), 0) == len(
        {b.tobytes() for b in strided})
