"""Duplicate boards in a search batch: evaluate each distinct board once, share the result.

A 2-ply search meets the same board many times (rolls with no legal play leave one board for
several rolls; different replies transpose), about a third of its network calls. The networks
value each board on its own, so evaluating the distinct boards and copying the results back
gives exactly the same figures.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from gbot.core.jit import jit

_EMPTY = -1


@jit
def _word(b: npt.NDArray[np.int8], at: int, k: int) -> int:
    """Bytes ``b[at:at + k]`` (k <= 8) as one little-endian integer."""
    x = 0
    for j in range(k):
        x |= (int(b[at + j]) & 0xFF) << (8 * j)
    return x


@jit
def _row_hash(b: npt.NDArray[np.int8]) -> int:
    """A hash of a 26-byte board from its bytes taken eight at a time (four multiplies
    instead of one per byte)."""
    h = _word(b, 0, 8) * 0x1E3779B97F4A7C15
    h ^= _word(b, 8, 8) * 0x7F4A7C159E3779B9 + (h >> 29)
    h ^= _word(b, 16, 8) * 0x165667B19E3779F9 + (h >> 31)
    h ^= _word(b, 24, 2) * 0x27D4EB2F165667C5 + (h >> 27)
    return h ^ (h >> 32)


@jit
def _same(a: npt.NDArray[np.int8], b: npt.NDArray[np.int8]) -> bool:
    for j in range(a.shape[0]):
        if a[j] != b[j]:
            return False
    return True


@jit
def unique_rows(boards: npt.NDArray[np.int8], kinds: npt.NDArray[np.int8], kind: int,
                out: npt.NDArray[np.int8], inverse: npt.NDArray[np.int64]) -> int:
    """Copy the distinct rows of ``boards`` whose ``kinds`` entry is ``kind`` to ``out`` (first
    occurrences, in order); ``inverse[i]`` is the row of ``out`` holding ``boards[i]`` (-1 for
    rows of another kind). Returns the number of distinct rows."""
    n = boards.shape[0]
    size = 16
    while size < 2 * n:
        size *= 2
    mask = size - 1
    table = np.full(size, _EMPTY, dtype=np.int32)
    m = 0
    for i in range(n):
        if kinds[i] != kind:
            inverse[i] = -1
            continue
        row = boards[i]
        slot = _row_hash(row) & mask
        while True:
            k = table[slot]
            if k == _EMPTY:
                out[m, :] = row
                table[slot] = m
                inverse[i] = m
                m += 1
                break
            if _same(out[k], row):
                inverse[i] = k
                break
            slot = (slot + 1) & mask
    return m


@jit
def scatter_rows(values: npt.NDArray[np.float32], inverse: npt.NDArray[np.int64],
                 out: npt.NDArray[np.float64]) -> None:
    """``out[i] = values[inverse[i]]`` for every row with ``inverse[i] >= 0``."""
    for i in range(inverse.shape[0]):
        k = inverse[i]
        if k >= 0:
            for c in range(out.shape[1]):
                out[i, c] = values[k, c]
