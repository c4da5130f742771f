"""Batched forward pass of the per-class networks (the hot path of every search).

Each network is ``N_INPUTS -> hidden -> 5`` (hidden activation sigmoid or ReLU, sigmoid
outputs). The inputs (see :mod:`gbot.core.encode`) are never materialised: the first layer is
stored rearranged (:func:`build_matrix`) so that an occupied slot switches on one summed row
(plus one scaled row past three checkers), and the hidden pre-activation is the bias plus a
short list of scaled rows (slots, borne-off counts, hand-made features), added four at a time.

After the network, the five probabilities are made consistent (win >= win_g >= win_bg,
1 - win >= lose_g >= lose_bg), gammons that can no longer happen are set to zero, and finished
games get their exact result.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from gbot.core._jit import jit, jit_fast
from gbot.core.board import Board
from gbot.core.classify import BEAROFF, OVER, RACE, classify
from gbot.core.encode import (
    N_FEATURES,
    OFF_AT,
    RAW_PER_SIDE,
    SCRATCH,
    SLOTS,
    features,
)

F32 = npt.NDArray[np.float32]

ACT_SIGMOID = 0
ACT_RELU = 1


def build_matrix(w1: F32) -> F32:
    """First-layer rows rearranged for the kernel (``float32[N_INPUTS, hidden]``).

    Rows ``4 (25 s + j) + m`` for side ``s``, slot ``j`` (0..24): ``m`` = 0, 1, 2 are the
    summed weights a slot with 1, 2, 3 checkers switches on, ``m`` = 3 is the weight of the
    ``(n - 3) / 2`` input. Rows ``200 + s``: the borne-off input of side ``s``. Rows
    ``202 + q``: hand-made feature ``q`` (both sides)."""
    w = w1.astype(np.float64)
    out = np.empty_like(w)
    for s in range(2):
        base = s * RAW_PER_SIDE
        for j in range(SLOTS):
            r = 4 * (SLOTS * s + j)
            c = base + 4 * j
            out[r] = w[c]
            out[r + 1] = w[c] + w[c + 1]
            out[r + 2] = w[c] + w[c + 1] + w[c + 2]
            out[r + 3] = w[c + 3]
        out[OFF_ROW + s] = w[base + OFF_AT]
    out[FEATURE_ROW:] = w[2 * RAW_PER_SIDE:]
    return out.astype(np.float32)


OFF_ROW = 4 * SLOTS * 2
FEATURE_ROW = OFF_ROW + 2
MAX_ACTIVE = 2 * 2 * SLOTS + 2 + 2 * N_FEATURES + 4


@jit
def _slot_rows(s: int, j: int, c: int, rows: npt.NDArray[np.int64], coef: F32, n: int) -> int:
    r = 4 * (SLOTS * s + j)
    rows[n] = r + min(c, 3) - 1
    coef[n] = 1.0
    n += 1
    if c > 3:
        rows[n] = r + 3
        coef[n] = (c - 3) / 2.0
        n += 1
    return n


@jit
def _active_rows(b: Board, f: F32, rows: npt.NDArray[np.int64], coef: F32,
                 off: npt.NDArray[np.int64]) -> int:
    """The rows of :func:`build_matrix` board ``b`` switches on and their coefficients
    (every feature row included), padded with zero coefficients to a multiple of 4; returns
    the padded count. ``off`` receives the borne-off counts (me, opponent)."""
    n = 0
    n_me = 0
    n_op = 0
    for p in range(1, 25):
        v = int(b[p])
        if v > 0:
            n = _slot_rows(0, p - 1, v, rows, coef, n)
            n_me += v
        elif v < 0:
            n = _slot_rows(1, 24 - p, -v, rows, coef, n)
            n_op -= v
    if b[25] > 0:
        n = _slot_rows(0, SLOTS - 1, int(b[25]), rows, coef, n)
        n_me += int(b[25])
    if b[0] < 0:
        n = _slot_rows(1, SLOTS - 1, -int(b[0]), rows, coef, n)
        n_op -= int(b[0])
    off[0] = 15 - n_me
    off[1] = 15 - n_op
    for s in range(2):
        if off[s] > 0:
            rows[n] = OFF_ROW + s
            coef[n] = off[s] / 15.0
            n += 1
    for q in range(2 * N_FEATURES):
        rows[n] = FEATURE_ROW + q
        coef[n] = f[q]
        n += 1
    while n % 4:
        rows[n] = 0
        coef[n] = 0.0
        n += 1
    return n


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


_CLAMP = np.float32(16.0)
_SCALE = np.float32(1.0 / 32.0)
_ONE = np.float32(1.0)
_C2 = np.float32(1.0 / 2.0)
_C3 = np.float32(1.0 / 6.0)
_C4 = np.float32(1.0 / 24.0)
_C5 = np.float32(1.0 / 120.0)
_C6 = np.float32(1.0 / 720.0)


@jit_fast
def _sigmoid_fast(x: np.float32) -> np.float32:
    """Logistic function from float32 arithmetic only (vectorises; abs. error below 1e-5).

    ``exp(-x)`` is ``exp(-x / 32) ** 32``: a degree-6 Taylor polynomial, then five squarings;
    ``x`` is clamped to [-16, 16], where the logistic is within 1.2e-7 of 0 or 1."""
    t = min(max(-x, -_CLAMP), _CLAMP) * _SCALE
    e = _ONE + t * (_ONE + t * (_C2 + t * (_C3 + t * (_C4 + t * (_C5 + t * _C6)))))
    e = e * e
    e = e * e
    e = e * e
    e = e * e
    e = e * e
    return _ONE / (_ONE + e)


LANES = 8


@jit_fast
def forward_batch(boards: npt.NDArray[np.int8], esc: npt.NDArray[np.int64],
                  class_net: npt.NDArray[np.int64], w1m: F32, b1: F32, w2t: F32, b2: F32,
                  activation: int, out: F32) -> None:
    """Fill ``out[i]`` with the probabilities of ``boards[i]`` (side to move).

    ``class_net[cls]`` is the network index for class ``cls``; ``w1m`` is
    ``[net, N_INPUTS, hidden]`` (rows by :func:`build_matrix`), ``b1``
    ``[net, hidden]``, ``w2t`` ``[net, 5, hidden]`` (second layer, transposed), ``b2``
    ``[net, 5]``; ``hidden`` must be a multiple of :data:`LANES`."""
    hidden = b1.shape[1]
    nf = 2 * N_FEATURES
    h = np.empty(hidden, dtype=np.float32)
    f = np.empty(nf, dtype=np.float32)
    off = np.empty(2, dtype=np.int64)
    scratch = np.empty(SCRATCH, dtype=np.int8)
    rows = np.empty(MAX_ACTIVE, dtype=np.int64)
    coef = np.empty(MAX_ACTIVE, dtype=np.float32)
    for i in range(boards.shape[0]):
        b = boards[i]
        cls = classify(b)
        if cls == OVER:
            _exact_over(b, out[i])
            continue
        k = class_net[cls]
        features(b, esc, f, 0, scratch)
        n = _active_rows(b, f, rows, coef, off)
        h[:] = b1[k]
        for g in range(0, n, 4):
            c0 = coef[g]
            c1 = coef[g + 1]
            c2 = coef[g + 2]
            c3 = coef[g + 3]
            r0 = w1m[k, rows[g]]
            r1 = w1m[k, rows[g + 1]]
            r2 = w1m[k, rows[g + 2]]
            r3 = w1m[k, rows[g + 3]]
            for u in range(hidden):
                h[u] += c0 * r0[u] + c1 * r1[u] + c2 * r2[u] + c3 * r3[u]
        if activation == ACT_SIGMOID:
            for u in range(hidden):
                h[u] = _sigmoid_fast(h[u])
        else:
            for u in range(hidden):
                h[u] = max(h[u], 0.0)
        for o in range(5):
            wrow = w2t[k, o]
            z = b2[k, o]
            for u in range(hidden):
                z += h[u] * wrow[u]
            out[i, o] = 1.0 / (1.0 + np.exp(-z))
        _tidy(b, cls, int(off[0]), int(off[1]), out[i])
