"""gnubg-nn as a label source at training time (never imported by gbot at run time)."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt


def gnubg() -> Any:
    """The ``gnubg_nn`` module (an optional training/benchmark dependency)."""
    import gnubg_nn

    return gnubg_nn


def to_gnubg_lists(boards: npt.NDArray[np.int8]) -> list[list[list[int]]]:
    """gnubg-nn boards ``[opponent, on_roll]`` (two 25-lists each) of ``int8[n, 26]`` boards."""
    b = np.asarray(boards, dtype=np.int64).reshape(-1, 26)
    out = np.zeros((b.shape[0], 2, 25), dtype=np.int64)
    out[:, 1, :24] = np.clip(b[:, 1:25], 0, None)
    out[:, 1, 24] = b[:, 25]
    out[:, 0, :24] = np.clip(-b[:, 24:0:-1], 0, None)
    out[:, 0, 24] = -b[:, 0]
    result: list[list[list[int]]] = out.tolist()
    return result


def probabilities(boards: npt.NDArray[np.int8], plies: int = 0) -> npt.NDArray[np.float32]:
    """gnubg-nn's cubeless probabilities (side to move) of each board at ``plies``."""
    g = gnubg()
    lists = to_gnubg_lists(boards)
    out = np.empty((len(lists), 5), dtype=np.float32)
    for i, gb in enumerate(lists):
        out[i] = g.probabilities(gb, plies)
    return out
