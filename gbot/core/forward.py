"""Batched forward pass of the per-class networks (the hot path of every search).

Each network is ``N_INPUTS -> hidden -> 5`` (hidden activation sigmoid or ReLU, sigmoid
outputs). The inputs (see :mod:`gbot.core.encode`) are never materialised: every input is an
integer count (checkers on a slot, borne off, a feature's count) times a fixed scale, and the
first layer is stored in whole-number units (:func:`build_matrix`), so each hidden
pre-activation is the bias plus a fixed unit times one exact ``int32`` sum of count-weighted
rows. Being exact, the sum is carried from one board of a batch to the next: only the slots
and features that differ are taken away and added (a batch of one roll's results changes a
few points per board), and each board's figures are the same whatever the batch.

After the network, the five probabilities are made consistent (win >= win_g >= win_bg,
1 - win >= lose_g >= lose_bg), gammons that can no longer happen are set to zero, and finished
games get their exact result.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from gbot.core.arrays import F32, F64, I32, read_only
from gbot.core.board import Board
from gbot.core.classify import BEAROFF, OVER, RACE, classify_counted
from gbot.core.encode import (
    FEATURE_MAX,
    FEATURE_SCALE,
    FEATURES_AT,
    N_FEATURES,
    N_INPUTS,
    OFF_AT,
    RAW_PER_SIDE,
    SLOTS,
    feature_counts,
)
from gbot.core.jit import jit_bare, jit_fast
from gbot.core.movegen import _top

ACT_SIGMOID = 0
ACT_RELU = 1


def build_matrix(w1: F32) -> F32:
    """The first layer in integer units, for the kernel: ``float32[N_INPUTS + 1, hidden]``
    whose first ``N_INPUTS`` rows hold the bytes of whole numbers (``int32``) and whose last
    row holds each hidden unit's unit ``2 ** -S[u]``.

    Every input is an integer count times a fixed scale, so hidden unit ``u``'s
    pre-activation minus its bias is ``2 ** -S[u]`` times an integer sum of count-weighted
    integer rows: rows ``4 (25 s + j) + m`` for side ``s``, slot ``j`` (0..24): ``m`` = 0, 1, 2
    are the summed weights a slot with 1, 2, 3 checkers switches on, ``m`` = 3 the weight of
    each checker past three (``w / 2``). Rows ``200 + s``: each borne-off checker of side
    ``s`` (``w / 15``). Rows ``202 + q``: one unit of feature count ``q`` (both sides).
    ``S[u]`` is the largest that keeps every reachable sum of absolute terms below
    :data:`SUM_LIMIT`, so the ``int32`` sums are exact: they do not depend on the order of the
    terms and may be updated from one board to the next."""
    w = w1.astype(np.float64)
    rows = np.zeros((N_INPUTS, w.shape[1]), dtype=np.float64)
    for s in range(2):
        base = s * RAW_PER_SIDE
        for j in range(SLOTS):
            r = 4 * (SLOTS * s + j)
            c = base + 4 * j
            rows[r] = w[c]
            rows[r + 1] = w[c] + w[c + 1]
            rows[r + 2] = w[c] + w[c + 1] + w[c + 2]
            rows[r + 3] = w[c + 3] / 2.0
        rows[OFF_ROW + s] = w[base + OFF_AT] / 15.0
        for q in range(N_FEATURES):
            src = FEATURES_AT + s * N_FEATURES + q
            rows[FEATURE_ROW + s * N_FEATURES + q] = w[src] * np.float64(FEATURE_SCALE[q])
    limit = SUM_LIMIT
    top = np.maximum(_reach(rows), 2.0**-30)
    shift = np.minimum(np.floor(np.log2(limit / top)), 60.0).astype(np.int64)
    while True:
        whole = np.rint(np.ldexp(rows, shift[None, :]))
        over = _reach(whole) >= limit   # rounding may add a little
        if not over.any():
            break
        shift[over] -= 1
    out = np.zeros((N_INPUTS + 1, w.shape[1]), dtype=np.float32)
    out[:N_INPUTS].view(np.int32)[:] = whole.astype(np.int32)
    out[N_INPUTS] = np.ldexp(1.0, -shift).astype(np.float32)
    return out


def _reach(rows: F64) -> F64:
    """Per hidden unit, an upper bound of the sum of absolute terms of any board's sum (each
    side has 15 checkers: on its slots or borne off; feature counts up to ``FEATURE_MAX``)."""
    a = np.abs(rows)
    bound = np.zeros(rows.shape[1], dtype=np.float64)
    for s in range(2):
        # most[t]: the largest sum of the slots so far holding t checkers in all
        most = np.full((16, rows.shape[1]), -np.inf)
        most[0] = 0.0
        for j in range(SLOTS):
            r = 4 * (SLOTS * s + j)
            grown = most.copy()
            for n in range(1, 16):
                term = a[r + min(n, 3) - 1] + max(n - 3, 0) * a[r + 3]
                grown[n:] = np.maximum(grown[n:], most[:16 - n] + term)
            most = grown
        off = np.arange(15, -1, -1, dtype=np.float64)[:, None] * a[OFF_ROW + s]
        bound += (most + off).max(axis=0)
    for q in range(2 * N_FEATURES):
        bound += FEATURE_MAX[q % N_FEATURES] * a[FEATURE_ROW + q]
    return bound


SUM_LIMIT = 2.0**31
"""What every reachable board's sum of absolute terms stays below. The ``int32`` sums wrap
(modulo ``2 ** 32``) on the way from one board to the next, so only each board's own sum has
to fit; the margin is that of :func:`_reach` (every slot, count and feature at once at its
largest, which no board reaches)."""


OFF_ROW = 4 * SLOTS * 2
FEATURE_ROW = OFF_ROW + 2


MAX_TERMS = 4 * (2 * 2 * 26 + 2 + 2 * N_FEATURES) + 4
"""Room for the terms of one board's sum or of the change from the previous board."""


@jit_bare
def _slot(rows: npt.NDArray[np.int64], coef: I32, m: int, r: int, n: int, sign: int) -> int:
    """Append the terms of a slot (first row ``r``) holding ``n`` checkers, times ``sign``."""
    if n <= 0:
        return m
    rows[m] = r + min(n, 3) - 1
    coef[m] = sign
    m += 1
    if n > 3:
        rows[m] = r + 3
        coef[m] = sign * (n - 3)
        m += 1
    return m


@jit_bare
def _full_terms(b: Board, cnt: npt.NDArray[np.int64], rows: npt.NDArray[np.int64],
                coef: I32, nf: int) -> int:
    """The terms of board ``b``'s sum (the first ``nf`` feature counts ``cnt``, the rest
    taken as 0); returns their number."""
    m = 0
    on_me = 0
    on_op = 0
    for p in range(1, 25):
        v = int(b[p])
        if v > 0:
            m = _slot(rows, coef, m, 4 * (p - 1), v, 1)
            on_me += v
        elif v < 0:
            m = _slot(rows, coef, m, 4 * (SLOTS + 24 - p), -v, 1)
            on_op -= v
    if b[25] > 0:
        m = _slot(rows, coef, m, 4 * (SLOTS - 1), int(b[25]), 1)
        on_me += int(b[25])
    if b[0] < 0:
        m = _slot(rows, coef, m, 4 * (2 * SLOTS - 1), -int(b[0]), 1)
        on_op -= int(b[0])
    if on_me < 15:
        rows[m] = OFF_ROW
        coef[m] = 15 - on_me
        m += 1
    if on_op < 15:
        rows[m] = OFF_ROW + 1
        coef[m] = 15 - on_op
        m += 1
    for q in range(nf):
        if cnt[q] != 0:
            rows[m] = FEATURE_ROW + q
            coef[m] = cnt[q]
            m += 1
    return m


@jit_bare
def _put(rows: npt.NDArray[np.int64], coef: I32, m: int, r: int, c: int) -> int:
    """Append the term ``c`` times row ``r`` unless ``c`` is 0 (written either way)."""
    rows[m] = r
    coef[m] = c
    return m + int(c != 0)


@jit_bare
def _slot_change(rows: npt.NDArray[np.int64], coef: I32, m: int, r: int, old: int,
                 new: int) -> int:
    """Append the terms that turn a slot (first row ``r``) of ``old`` checkers into one of
    ``new``."""
    i_old = min(old, 3)
    i_new = min(new, 3)
    moved = int(i_old != i_new)
    m = _put(rows, coef, m, r + max(i_old - 1, 0), -moved * int(i_old > 0))
    m = _put(rows, coef, m, r + max(i_new - 1, 0), moved * int(i_new > 0))
    return _put(rows, coef, m, r + 3, max(new - 3, 0) - max(old - 3, 0))


@jit_bare
def _delta_terms(b: Board, prev: Board, cnt: npt.NDArray[np.int64],
                 prev_cnt: npt.NDArray[np.int64], rows: npt.NDArray[np.int64],
                 coef: I32, nf: int) -> int:
    """The terms that turn the sum of ``prev`` (counts ``prev_cnt``) into that of ``b`` (the
    first ``nf`` feature counts; the rest taken as 0 in both)."""
    changed = 0
    for p in range(26):
        changed |= int(b[p] != prev[p]) << p
    m = 0
    d_me = 0
    d_op = 0
    while changed:
        p = _top(changed)
        changed ^= 1 << p
        old = int(prev[p])
        new = int(b[p])
        # the side to move's slot p - 1 (point p, bar 25), the opponent's 24 - p (bar 0)
        me_old = max(old, 0)
        me_new = max(new, 0)
        op_old = max(-old, 0)
        op_new = max(-new, 0)
        if me_old != me_new:
            m = _slot_change(rows, coef, m, 4 * max(p - 1, 0), me_old, me_new)
        if op_old != op_new:
            m = _slot_change(rows, coef, m, 4 * (SLOTS + 24 - p), op_old, op_new)
        d_me += me_new - me_old
        d_op += op_new - op_old
    # the borne-off counts change by minus the change on the board
    m = _put(rows, coef, m, OFF_ROW, -d_me)
    m = _put(rows, coef, m, OFF_ROW + 1, -d_op)
    for q in range(nf):
        m = _put(rows, coef, m, FEATURE_ROW + q, int(cnt[q] - prev_cnt[q]))
    return m


@jit_bare
def _add_terms(acc: I32, wq: I32, rows: npt.NDArray[np.int64], coef: I32, m: int) -> None:
    """``acc += sum of coef[t] * wq[rows[t]]`` four terms a pass (integers: exact)."""
    while m % 4:
        rows[m] = 0
        coef[m] = 0
        m += 1
    for g in range(0, m, 4):
        c0 = coef[g]
        c1 = coef[g + 1]
        c2 = coef[g + 2]
        c3 = coef[g + 3]
        r0 = wq[rows[g]]
        r1 = wq[rows[g + 1]]
        r2 = wq[rows[g + 2]]
        r3 = wq[rows[g + 3]]
        for u in range(acc.shape[0]):
            acc[u] = np.int32(acc[u] + c0 * r0[u] + c1 * r1[u] + c2 * r2[u] + c3 * r3[u])


@jit_bare
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


@jit_bare
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
_ZERO = np.float32(0.0)


@jit_fast
def _logistic(z: np.float32) -> float:
    """The output units' logistic function."""
    return float(1.0 / (1.0 + np.exp(-z)))


@jit_fast
def forward_batch(boards: npt.NDArray[np.int8], esc: npt.NDArray[np.int64],
                  class_net: npt.NDArray[np.int64], w1m: F32, b1: F32, w2t: F32, b2: F32,
                  activation: int, out: F32) -> None:
    """Fill ``out[i]`` with the probabilities of ``boards[i]`` (side to move).

    ``class_net[cls]`` is the network index for class ``cls``; ``w1m`` is
    ``[net, N_INPUTS + 1, hidden]`` (:func:`build_matrix`), ``b1`` ``[net, hidden]``, ``w2t``
    ``[net, 5, hidden]`` (second layer, transposed), ``b2`` ``[net, 5]``; ``hidden`` must be a
    multiple of :data:`LANES`. The first layer's integer sum is updated from the previous
    board of the same network (exact, so each board's figures do not depend on the batch).
    A network whose feature rows are all zero (:func:`reads_features`) gets no features
    computed."""
    hidden = b1.shape[1]
    nf = 2 * N_FEATURES
    wq_all = w1m.view(np.int32)
    reads = np.zeros(w1m.shape[0], dtype=np.int8)     # 0: not looked at yet, 1: no, 2: yes
    nh = hidden
    acc = np.zeros(hidden, dtype=np.int32)
    cnt = np.empty(nf, dtype=np.int64)
    prev_cnt = np.empty(nf, dtype=np.int64)
    prev = np.zeros(26, dtype=np.int8)
    rows = np.empty(MAX_TERMS, dtype=np.int64)
    coef = np.empty(MAX_TERMS, dtype=np.int32)
    prev_k = -1
    for i in range(boards.shape[0]):
        b = boards[i]
        cls, n_me, n_opp = classify_counted(read_only(b))
        if cls == OVER:
            _exact_over(b, out[i])
            continue
        k = class_net[cls]
        wq = wq_all[k]
        if reads[k] == 0:                               # each network looked at once a call
            reads[k] = 2 if reads_features(wq) else 1
        used = nf if reads[k] == 2 else 0
        if used:
            feature_counts(b, esc, cnt)
        if k == prev_k:
            m = _delta_terms(b, prev, cnt, prev_cnt, rows, coef, used)
        else:
            acc[:] = 0
            m = _full_terms(b, cnt, rows, coef, used)
            prev_k = k
            nh = _width(w1m[k, N_INPUTS])
        _add_terms(acc[:nh], wq, rows, coef, m)
        prev[:] = b
        if used:
            prev_cnt[:] = cnt
        unit = w1m[k, N_INPUTS]
        bias = b1[k]
        w2 = w2t[k]
        # the hidden layer and the five output sums in one pass (nothing stored between)
        z0 = b2[k, 0]
        z1 = b2[k, 1]
        z2 = b2[k, 2]
        z3 = b2[k, 3]
        z4 = b2[k, 4]
        for u in range(nh):
            x = bias[u] + np.float32(acc[u]) * unit[u]
            if activation == ACT_SIGMOID:
                x = _sigmoid_fast(x)
            else:
                x = max(x, _ZERO)
            z0 += x * w2[0, u]
            z1 += x * w2[1, u]
            z2 += x * w2[2, u]
            z3 += x * w2[3, u]
            z4 += x * w2[4, u]
        out_i = out[i]
        out_i[0] = _logistic(z0)
        out_i[1] = _logistic(z1)
        out_i[2] = _logistic(z2)
        out_i[3] = _logistic(z3)
        out_i[4] = _logistic(z4)
        _tidy(b, cls, 15 - n_me, 15 - n_opp, out_i)


@jit_bare
def reads_features(wq: I32) -> bool:
    """Whether a network's first layer in integer units (``w1m[k].view(np.int32)``, see
    :func:`build_matrix`) has a nonzero weight on any feature row."""
    for r in range(FEATURE_ROW, FEATURE_ROW + 2 * N_FEATURES):
        row = wq[r]
        any_bit = 0
        for u in range(row.shape[0]):      # no early exit inside a row: it vectorises
            any_bit |= row[u]
        if any_bit != 0:
            return True
    return False


@jit_bare
def _width(unit: F32) -> int:
    """Hidden units a network uses: those before its trailing padding (units whose step in
    the last row of :func:`build_matrix`'s matrix is 0, see :func:`mark_padding`), a
    multiple of :data:`LANES`."""
    n = unit.shape[0]
    while n > LANES and unit[n - 1] == 0.0:
        n -= 1
    return int((n + LANES - 1) // LANES * LANES)


def mark_padding(w1m: F32, b1: F32, w2: F32) -> None:
    """Set the step of ``w1m``'s trailing padding units to 0 (units whose first-layer column,
    bias and second-layer row are all zero: they add nothing to any output), so that
    :func:`forward_batch` skips them. ``w1m`` is :func:`build_matrix`'s, ``w2`` ``[hidden, 5]``."""
    whole = w1m.view(np.int32)
    n = b1.shape[0]
    while n > 0 and b1[n - 1] == 0.0 and not w2[n - 1].any() and not whole[:N_INPUTS, n - 1].any():
        n -= 1
    w1m[N_INPUTS, n:] = 0.0
