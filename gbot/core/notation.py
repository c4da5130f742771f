"""Move text in a kernel: the bytes :func:`gbot.game.notations.move_text.format_steps` writes,
for the fast path.

:func:`format_steps_into` turns one play's steps (the move generator's ``(from, to)`` pairs,
zero-padded) into gnubg-style ASCII text: steps sorted from the highest point, each checker's
steps chained (``24/18/13``, points passed without a hit left out), hits starred, identical
chains counted (``6/4(2)``). :mod:`gbot.game.notations.move_text` is the reference; tests compare
the two.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from gbot.core.board import Board
from gbot.core.jit import jit

MAX_STEPS = 4
TEXT_SIZE = 96
"""Bytes enough for the longest text of one play (four single-step chains with hits)."""

_SLASH = 47
_SPACE = 32
_STAR = 42
_OPEN = 40
_CLOSE = 41


@jit
def _put_point(p: int, out: npt.NDArray[np.uint8], n: int) -> int:
    if p == 25:
        out[n] = 98       # "bar"
        out[n + 1] = 97
        out[n + 2] = 114
        return n + 3
    if p <= 0:
        out[n] = 111      # "off"
        out[n + 1] = 102
        out[n + 2] = 102
        return n + 3
    if p >= 10:
        out[n] = 48 + p // 10
        n += 1
    out[n] = 48 + p % 10
    return n + 1


@jit
def format_steps_into(board: Board, steps: npt.NDArray[np.int8],
                      out: npt.NDArray[np.uint8]) -> int:
    """Write the text of ``steps`` (pairs ``from, to``; a pair with ``from`` 0 is padding)
    played from ``board`` (the mover's view) to ``out``; returns its length (0: no move)."""
    src = np.empty(MAX_STEPS, dtype=np.int64)
    dst = np.empty(MAX_STEPS, dtype=np.int64)
    n = 0
    for k in range(MAX_STEPS):
        if steps[2 * k] != 0:
            src[n] = steps[2 * k]
            dst[n] = steps[2 * k + 1]
            n += 1
    if n == 0:
        return 0
    # which steps hit, replaying them in order
    b = np.empty(26, dtype=np.int64)
    for i in range(26):
        b[i] = board[i]
    hit = np.zeros(MAX_STEPS, dtype=np.bool_)
    for i in range(n):
        b[src[i]] -= 1
        d = dst[i]
        if 1 <= d <= 24:
            if b[d] == -1:
                hit[i] = True
                b[d] = 1
            else:
                b[d] += 1
    # stable sort, highest source first, then highest destination
    order = np.empty(MAX_STEPS, dtype=np.int64)
    for i in range(n):
        j = i
        while j > 0 and (src[order[j - 1]] < src[i]
                         or (src[order[j - 1]] == src[i] and dst[order[j - 1]] < dst[i])):
            order[j] = order[j - 1]
            j -= 1
        order[j] = i
    s = np.empty(MAX_STEPS, dtype=np.int64)
    t = np.empty(MAX_STEPS, dtype=np.int64)
    h = np.empty(MAX_STEPS, dtype=np.bool_)
    for i in range(n):
        s[i] = src[order[i]]
        t[i] = dst[order[i]]
        h[i] = hit[order[i]]
    # chains: each step continues the chain ending where it starts
    used = np.zeros(MAX_STEPS, dtype=np.bool_)
    pts = np.zeros((MAX_STEPS, MAX_STEPS + 1), dtype=np.int64)
    marks = np.zeros((MAX_STEPS, MAX_STEPS), dtype=np.bool_)
    lens = np.zeros(MAX_STEPS, dtype=np.int64)
    chains = 0
    for i in range(n):
        if used[i]:
            continue
        used[i] = True
        pts[chains, 0] = s[i]
        pts[chains, 1] = t[i]
        marks[chains, 0] = h[i]
        size = 2
        cur = t[i]
        while cur > 0:
            nxt = -1
            for j in range(n):
                if not used[j] and s[j] == cur:
                    nxt = j
                    break
            if nxt < 0:
                break
            used[nxt] = True
            cur = t[nxt]
            pts[chains, size] = cur
            marks[chains, size - 1] = h[nxt]
            size += 1
        lens[chains] = size
        chains += 1
    # text, identical chains (same points) counted
    w = 0
    c = 0
    while c < chains:
        e = c + 1
        while e < chains and lens[e] == lens[c]:
            same = True
            for k in range(lens[c]):
                if pts[e, k] != pts[c, k]:
                    same = False
                    break
            if not same:
                break
            e += 1
        if c:
            out[w] = _SPACE
            w += 1
        size = lens[c]
        w = _put_point(pts[c, 0], out, w)
        for k in range(1, size):
            if k < size - 1 and not marks[c, k - 1]:
                continue
            out[w] = _SLASH
            w = _put_point(pts[c, k], out, w + 1)
            if marks[c, k - 1]:
                out[w] = _STAR
                w += 1
        if e - c > 1:
            out[w] = _OPEN
            out[w + 1] = 48 + (e - c)
            out[w + 2] = _CLOSE
            w += 3
        c = e
    return w
