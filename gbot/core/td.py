"""TD(lambda) self-play kernels: one network learns from games against itself.

The network is ``N_INPUTS -> hidden (sigmoid) -> 5 (sigmoid)`` on :mod:`gbot.core.encode`'s
inputs, the same shape as a shipped network, with the value of a position seen by its side to
move. Play is greedy at 0-ply (every legal result scored by the current weights; a share
``eps`` of the moves is random). Learning is TD(lambda) with eligibility traces in a fixed
frame (the first mover's): a position with the other side to move contributes the inverted
outputs (win -> 1 - win, the gammon columns swapped), so traces never mix frames. The target
of the last position is the game's exact result.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from gbot.core.arrays import F32, F64
from gbot.core.board import START, Board
from gbot.core.encode import N_INPUTS, encode_into
from gbot.core.jit import jit
from gbot.core.movegen import HASH_KEYS, generate

SWAP = np.array([0, 3, 4, 1, 2])


@jit
def net_outputs(x: F32, w1: F64, b1: F64, w2: F64, b2: F64, h: F64, p: F64) -> None:
    """Hidden activations ``h`` and outputs ``p`` of inputs ``x`` (skips zero inputs)."""
    hidden = b1.shape[0]
    for u in range(hidden):
        h[u] = b1[u]
    for i in range(N_INPUTS):
        v = x[i]
        if v != 0.0:
            for u in range(hidden):
                h[u] += v * w1[i, u]
    for u in range(hidden):
        h[u] = 1.0 / (1.0 + np.exp(-h[u]))
    for o in range(5):
        z = b2[o]
        for u in range(hidden):
            z += h[u] * w2[u, o]
        p[o] = 1.0 / (1.0 + np.exp(-z))


@jit
def _finished(b: Board, out: F64) -> bool:
    """True when the side to move in ``b`` has no checkers left, with the exact result."""
    for p in range(1, 26):
        if b[p] > 0:
            return False
    opp_in = -int(b[0])
    straggler = b[0] < 0
    for p in range(1, 25):
        if b[p] < 0:
            opp_in -= int(b[p])
            if p <= 6:
                straggler = True
    out[0] = 1.0
    out[1] = 1.0 if opp_in == 15 else 0.0
    out[2] = 1.0 if opp_in == 15 and straggler else 0.0
    out[3] = 0.0
    out[4] = 0.0
    return True


@jit
def _to_frame(p: F64, flip_frame: bool, out: F64) -> None:
    """Outputs in the fixed frame (inverted when the other side is to move)."""
    if flip_frame:
        out[0] = 1.0 - p[0]
        out[1] = p[3]
        out[2] = p[4]
        out[3] = p[1]
        out[4] = p[2]
    else:
        for o in range(5):
            out[o] = p[o]


@jit
def td_games(n_games: int, seed: int, w1: F64, b1: F64, w2: F64, b2: F64, alpha: float,
             lam: float, eps: float, esc: npt.NDArray[np.int64], stats: F64) -> None:
    """Play ``n_games`` self-play games, updating the weights in place.

    ``stats`` receives: games played, positions learned from, mean squared TD error."""
    np.random.seed(seed)
    hidden = b1.shape[0]
    cap = 8192
    out = np.zeros((cap, 26), dtype=np.int8)
    steps = np.zeros((cap, 8), dtype=np.int8)
    table = np.zeros(1 << 14, dtype=np.int32)
    hashes = np.zeros(cap, dtype=np.int64)
    state = np.zeros(4, dtype=np.int64)
    path = np.zeros(8, dtype=np.int8)
    marks = np.zeros(26, dtype=np.int8)
    x = np.zeros(N_INPUTS, dtype=np.float32)
    h = np.zeros(hidden)
    p = np.zeros(5)
    cur = np.zeros(5)
    nxt_f = np.zeros(5)
    tmp = np.zeros(5)
    e_w1 = np.zeros((5, N_INPUTS, hidden))
    e_b1 = np.zeros((5, hidden))
    e_w2 = np.zeros((5, hidden))
    e_b2 = np.zeros(5)
    cand = np.zeros(26, dtype=np.int8)
    best_board = np.zeros(26, dtype=np.int8)
    sq_err = 0.0
    learned = 0
    for _ in range(n_games):
        e_w1[:] = 0.0
        e_b1[:] = 0.0
        e_w2[:] = 0.0
        e_b2[:] = 0.0
        board = START.copy()
        frame = False
        while True:
            d1 = np.random.randint(1, 7)
            d2 = np.random.randint(1, 7)
            if d1 != d2:
                break
        for _ply in range(2000):
            # value of the current position (side to move), gradients into the traces
            encode_into(board, esc, x)
            net_outputs(x, w1, b1, w2, b2, h, p)
            _to_frame(p, frame, cur)
            for o in range(5):
                g = p[o] * (1.0 - p[o])
                sign = 1.0
                oo = o
                if frame:
                    oo = SWAP[o]
                    if o == 0:
                        sign = -1.0
                # the fixed-frame output oo is (sign) * p[o] (+ const)
                gs = sign * g
                e_b2[oo] = lam * e_b2[oo] + gs
                for u in range(hidden):
                    e_w2[oo, u] = lam * e_w2[oo, u] + gs * h[u]
                    gh = gs * w2[u, o] * h[u] * (1.0 - h[u])
                    e_b1[oo, u] = lam * e_b1[oo, u] + gh
                for i in range(N_INPUTS):
                    v = x[i]
                    if v != 0.0:
                        for u in range(hidden):
                            e_w1[oo, i, u] = (lam * e_w1[oo, i, u]
                                              + v * gs * w2[u, o] * h[u] * (1.0 - h[u]))
                    else:
                        for u in range(hidden):
                            e_w1[oo, i, u] *= lam
            # move: greedy by the current weights, eps random
            n = generate(board, d1, d2, False, out, steps, table, hashes, state, path, marks,
                         HASH_KEYS)
            done = False
            if n == 0:
                for i in range(26):
                    best_board[i] = -board[25 - i]
            else:
                pick = -1
                if np.random.random() < eps:
                    pick = np.random.randint(0, n)
                best_eq = -1e9
                for k in range(n):
                    for i in range(26):
                        cand[i] = -out[k, 25 - i]
                    if _finished(out[k], tmp):
                        eq = 1e9
                    else:
                        encode_into(cand, esc, x)
                        net_outputs(x, w1, b1, w2, b2, h, tmp)
                        eq = -(tmp[0] * 2.0 - 1.0 + tmp[1] - tmp[3] + tmp[2] - tmp[4])
                    if (pick < 0 and eq > best_eq) or k == pick:
                        best_eq = eq
                        best_board[:] = cand
                        if k == pick:
                            break
                for i in range(26):
                    cand[i] = -best_board[25 - i]
                done = _finished(cand, tmp)
            # target in the fixed frame
            if done:
                _to_frame(tmp, frame, nxt_f)
            else:
                encode_into(best_board, esc, x)
                net_outputs(x, w1, b1, w2, b2, h, tmp)
                _to_frame(tmp, not frame, nxt_f)
            for o in range(5):
                delta = alpha * (nxt_f[o] - cur[o])
                sq_err += (nxt_f[o] - cur[o]) ** 2
                b2[o] += delta * e_b2[o]
                for u in range(hidden):
                    w2[u, o] += delta * e_w2[o, u]
                    b1[u] += delta * e_b1[o, u]
                for i in range(N_INPUTS):
                    for u in range(hidden):
                        w1[i, u] += delta * e_w1[o, i, u]
            learned += 1
            if done:
                break
            board[:] = best_board
            frame = not frame
            d1 = np.random.randint(1, 7)
            d2 = np.random.randint(1, 7)
        stats[0] += 1
    stats[1] += learned
    stats[2] = sq_err / max(learned, 1) / 5.0
