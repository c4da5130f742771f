"""Batched forward pass of the per-class networks (the hot path of every search).

Each network is ``N_INPUTS -> hidden -> 5`` (hidden activation sigmoid or ReLU, sigmoid
outputs). The raw part of the inputs (see :mod:`gbot.core.encode`) is never materialised: for
every side ``s``, slot ``j`` (0..23 points, 24 bar, 25 borne off) and count ``c`` (0..15) the
sum of the first-layer weight rows it switches on is precomputed in ``table[k, s, j, c, :]``, so
the hidden pre-activation is the bias plus one row per occupied slot plus the hand-made
features times their weights.

After the network, the five probabilities are made consistent (win >= win_g >= win_bg,
1 - win >= lose_g >= lose_bg), gammons that can no longer happen are set to zero, and finished
games get their exact result.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from gbot.core._jit import jit
from gbot.core.board import Board
from gbot.core.classify import BEAROFF, OVER, RACE, classify
from gbot.core.encode import (
    N_FEATURES,
    OFF_AT,
    RAW_PER_SIDE,
    SCRATCH,
    SLOTS,
    features,
    side_counts,
    slot_value,
)

F32 = npt.NDArray[np.float32]

ACT_SIGMOID = 0
ACT_RELU = 1
MAX_COUNT = 16


def table_row(s: int, j: int, c: int) -> int:
    """Row of side ``s``, slot ``j`` (0..25), count ``c`` (0..15) in a flattened table."""
    return (s * (SLOTS + 1) + j) * MAX_COUNT + c


def build_table(w1: F32) -> F32:
    """``table[table_row(s, j, c), :]``: the summed first-layer rows of slot ``j`` of side
    ``s`` holding ``c`` checkers (``w1`` is ``float32[N_INPUTS, hidden]``)."""
    hidden = w1.shape[1]
    table = np.zeros((2, SLOTS + 1, MAX_COUNT, hidden), dtype=np.float64)
    w = w1.astype(np.float64)
    for s in range(2):
        base = s * RAW_PER_SIDE
        for c in range(MAX_COUNT):
            vals = np.array([slot_value(c, k) for k in range(4)])
            for j in range(SLOTS):
                table[s, j, c] = vals @ w[base + 4 * j: base + 4 * j + 4]
            table[s, SLOTS, c] = (c / 15.0) * w[base + OFF_AT]
    return table.reshape(2 * (SLOTS + 1) * MAX_COUNT, hidden).astype(np.float32)


@jit
def _exact_over(b: Board, out: F32) -> None:
    """Result of a finished game for the side to move in ``b``."""
    n_me = int(b[25])
    n_opp = -int(b[0])
    for p in range(1, 25):
        v = int(b[p])
        if v > 0:
            n_me += v
        else:
            n_opp -= v
    for i in range(5):
        out[i] = 0.0
    if n_me == 0:
        out[0] = 1.0
        if n_opp == 15:
            out[1] = 1.0
            stuck = b[0] < 0
            for p in range(1, 7):
                if b[p] < 0:
                    stuck = True
            if stuck:
                out[2] = 1.0
    elif n_opp == 0:
        if n_me == 15:
            out[3] = 1.0
            stuck = b[25] > 0
            for p in range(19, 25):
                if b[p] > 0:
                    stuck = True
            if stuck:
                out[4] = 1.0


@jit
def _tidy(b: Board, cls: int, me_off: int, opp_off: int, out: F32) -> None:
    """Consistent ordering of the probabilities, impossible gammons set to zero."""
    if out[1] > out[0]:
        out[1] = out[0]
    if out[2] > out[1]:
        out[2] = out[1]
    if out[3] > 1.0 - out[0]:
        out[3] = 1.0 - out[0]
    if out[4] > out[3]:
        out[4] = out[3]
    if opp_off > 0:
        out[1] = 0.0
        out[2] = 0.0
    if me_off > 0:
        out[3] = 0.0
        out[4] = 0.0
    if cls == RACE or cls == BEAROFF:
        # no contact: a backgammon needs checkers left in the winner's home board
        opp_in_my_home = False
        for p in range(1, 7):
            if b[p] < 0:
                opp_in_my_home = True
        if not opp_in_my_home:
            out[2] = 0.0
        me_in_their_home = False
        for p in range(19, 25):
            if b[p] > 0:
                me_in_their_home = True
        if not me_in_their_home:
            out[4] = 0.0


@jit
def _sigmoid_fast(x: float) -> float:
    """Logistic function from arithmetic only (vectorises; abs. error below 1e-5).

    ``exp(-x)`` is ``exp(-x / 32) ** 32``: a degree-6 Taylor polynomial, then five squarings;
    ``x`` is clamped to [-16, 16], where the logistic is within 1.2e-7 of 0 or 1."""
    t = -x
    t = min(max(t, -16.0), 16.0) * (1.0 / 32.0)
    e = 1.0 + t * (1.0 + t * (0.5 + t * (1.0 / 6.0 + t * (1.0 / 24.0 + t * (
        1.0 / 120.0 + t * (1.0 / 720.0))))))
    e = e * e
    e = e * e
    e = e * e
    e = e * e
    e = e * e
    return 1.0 / (1.0 + e)


LANES = 8


@jit
def forward_batch(boards: npt.NDArray[np.int8], esc: npt.NDArray[np.int64],
                  class_net: npt.NDArray[np.int64], table: F32, wf: F32, b1: F32, w2t: F32,
                  b2: F32, activation: int, out: F32) -> None:
    """Fill ``out[i]`` with the probabilities of ``boards[i]`` (side to move).

    ``class_net[cls]`` is the network index for class ``cls``; ``table`` is
    ``[net, 2 * 26 * 16, hidden]`` (rows by :func:`table_row`), ``wf``
    ``[net, 2 * N_FEATURES, hidden]``, ``b1``
    ``[net, hidden]``, ``w2t`` ``[net, 5, hidden]`` (second layer, transposed), ``b2``
    ``[net, 5]``; ``hidden`` must be a multiple of :data:`LANES`."""
    hidden = b1.shape[1]
    nf = 2 * N_FEATURES
    h = np.empty(hidden, dtype=np.float32)
    f = np.empty(nf, dtype=np.float32)
    me = np.empty(26, dtype=np.int64)
    opp = np.empty(26, dtype=np.int64)
    scratch = np.empty(SCRATCH, dtype=np.int8)
    acc = np.empty(LANES, dtype=np.float32)
    for i in range(boards.shape[0]):
        b = boards[i]
        cls = classify(b)
        if cls == OVER:
            _exact_over(b, out[i])
            continue
        k = class_net[cls]
        side_counts(b, me, opp)
        h[:] = b1[k]
        for j in range(SLOTS + 1):
            c = me[j]
            if c > 0:
                r = j * MAX_COUNT + min(c, MAX_COUNT - 1)
                for u in range(hidden):
                    h[u] += table[k, r, u]
            c = opp[j]
            if c > 0:
                r = (SLOTS + 1 + j) * MAX_COUNT + min(c, MAX_COUNT - 1)
                for u in range(hidden):
                    h[u] += table[k, r, u]
        features(b, esc, f, 0, scratch)
        for q in range(nf):
            v = f[q]
            if v != 0.0:
                row = wf[k, q]
                for u in range(hidden):
                    h[u] += v * row[u]
        if activation == ACT_SIGMOID:
            for u in range(hidden):
                h[u] = _sigmoid_fast(h[u])
        else:
            for u in range(hidden):
                h[u] = max(h[u], 0.0)
        for o in range(5):
            wrow = w2t[k, o]
            acc[:] = 0.0
            for u0 in range(0, hidden, LANES):
                for lane in range(LANES):
                    acc[lane] += h[u0 + lane] * wrow[u0 + lane]
            z = b2[k, o]
            for lane in range(LANES):
                z += acc[lane]
            out[i, o] = 1.0 / (1.0 + np.exp(-z))
        _tidy(b, cls, int(me[25]), int(opp[25]), out[i])
