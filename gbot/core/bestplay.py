"""0-ply best play in one kernel call: generate the plays, value every result, pick the best.

:func:`best_static` does what the evaluator's general search does at 0-ply, in one call
instead of several: the results of one roll (as :func:`gbot.core.expand.expand_roll`), ended
games exactly, bear-offs from the exact tables, the rest through the networks' forward pass
(:func:`gbot.core.forward.forward_batch`), then the mover's best by cubeless equity
(:func:`gbot.core.expand.score_plays`). Each result is valued on its own, as in the general
path, so the choice and the figures are the same.

The module owns the two bundles every caller of :func:`best_static` passes:
:class:`PlayWork` (one thread's scratch arrays; :class:`gbot.core.answer.Work` and
:class:`gbot.core.oneply.Scratch` hold one) and :class:`Nets` (the networks' and bear-off
tables' arrays).
"""

from __future__ import annotations

from typing import NamedTuple

from gbot.core.arrays import F32, F64, I8, I32, I64, nonliteral, read_only
from gbot.core.bearoff import race_probabilities
from gbot.core.expand import (
    BEAROFF,
    NET,
    flip_children,
    score_plays,
    static_kinds,
)
from gbot.core.forward import forward_batch
from gbot.core.jit import jit
from gbot.core.movegen import generate

TOO_MANY = -1
"""Return code: the scratch arrays cannot hold the plays."""
NEED_TABLES = -2
"""Return code: a result is a bear-off and the tables were not passed (empty arrays)."""


class Nets(NamedTuple):
    """The networks' forward-pass arrays and the bear-off tables' arrays the kernels take, in
    the order of :meth:`gbot.eval.evaluator.Evaluator.kernel_arrays`."""

    esc: I64
    class_net: I64
    w1m: F32
    b1: F32
    w2t: F32
    b2: F32
    activation: int
    dist: F32
    gdist: F32
    two: F32
    """The two-sided bear-off table (empty until a bear-off needs it)."""
    binom: I64


class PlayWork(NamedTuple):
    """One thread's scratch arrays for :func:`best_static` (and :func:`static_values`): the
    root expansion's (``children`` ... ``values``, one row per play), the move generator's
    (``out`` ... ``marks``, as :class:`gbot.core.movegen.Workspace` names them) and the
    result ``res`` (number of plays, index of the best)."""

    children: I8
    probs: F64
    kinds: I8
    counts: I64
    mover: F64
    eqs: F64
    rows: I8
    values: F32
    out: I8
    steps: I8
    table: I32
    hashes: I64
    state: I64
    path: I8
    marks: I8
    res: I64


@jit
def _gather(children: I8, n: int, kinds: I8, kind: int, rows: I8) -> int:
    m = 0
    for i in range(n):
        if kinds[i] == kind:
            rows[m, :] = children[i]
            m += 1
    return m


@jit
def _scatter(values: F32, n: int, kinds: I8, kind: int, probs: F64) -> None:
    m = 0
    for i in range(n):
        if kinds[i] == kind:
            for c in range(5):
                probs[i, c] = values[m, c]
            m += 1


@jit
def static_fill(children: I8, n: int, kinds: I8, counts: I64, probs: F64, rows: I8,
                values: F32, esc: I64, class_net: I64, w1m: F32, b1: F32, w2t: F32, b2: F32,
                activation: int, dist: F32, gdist: F32, two: F32, binom: I64) -> int:
    """Complete ``probs[:n]`` for children sorted by :func:`gbot.core.expand.static_kinds`:
    bear-offs from the tables (``dist``, ``gdist``, ``two``, ``binom``), the rest through
    the networks. Returns 0, or :data:`NEED_TABLES` (nothing written) when a bear-off needs
    the tables and ``two`` is empty."""
    if counts[0] + counts[1] == 0:        # the usual case: every child goes to the networks
        forward_batch(children[:n], esc, class_net, w1m, b1, w2t, b2, activation, values[:n])
        for i in range(n):
            for c in range(5):
                probs[i, c] = values[i, c]
        return 0
    if counts[1] > 0:
        if two.shape[0] == 0:
            return NEED_TABLES
        m = _gather(children, n, kinds, BEAROFF, rows)
        race_probabilities(rows[:m], dist, gdist, two, binom, values[:m])
        _scatter(values, n, kinds, BEAROFF, probs)
    if counts[0] + counts[1] < n:
        m = _gather(children, n, kinds, NET, rows)
        forward_batch(rows[:m], esc, class_net, w1m, b1, w2t, b2, activation, values[:m])
        _scatter(values, n, kinds, NET, probs)
    return 0


@jit
def best_static(board: I8, d1: int, d2: int, caucasian: bool, bearoff: bool, work: PlayWork,
                keys: I64, nets: Nets) -> int:
    """The 0-ply best play of ``board`` (side on roll) with ``d1``-``d2``, on ``work``
    (``keys``: the move generator's hash keys, :data:`gbot.core.movegen.HASH_KEYS`).

    The plays are left in the move generator's ``work.out`` (results, mover still to move)
    and ``work.steps``; ``work.res[0]`` gets their number (0: none legal), ``work.res[1]`` the
    index of the best (first on ties); ``children``/``probs``/``mover``/``eqs`` hold the
    flipped results and the children's and the mover's figures when there were two plays or
    more. Returns 0, :data:`TOO_MANY` or :data:`NEED_TABLES` (call again with the tables)."""
    w = work
    children = w.children
    res = w.res
    n = generate(read_only(board), d1, d2, caucasian, w.out, w.steps, w.table, w.hashes,
                 w.state, w.path, w.marks, keys)
    if w.state[2] != 0 or n > children.shape[0]:
        return TOO_MANY
    res[0] = n
    res[1] = 0
    if n <= 1:
        return 0
    counts = w.counts
    counts[0] = 0
    counts[1] = 0
    flip_children(w.out, n, bearoff, children, nonliteral(0), w.probs, w.kinds, counts)
    code = static_fill(children, n, w.kinds, counts, w.probs, w.rows, w.values, nets.esc,
                       nets.class_net, nets.w1m, nets.b1, nets.w2t, nets.b2, nets.activation,
                       nets.dist, nets.gdist, nets.two, nets.binom)
    if code != 0:
        return code
    res[1] = score_plays(w.probs[:n], w.mover[:n], w.eqs[:n])
    return 0


@jit
def static_values(boards: I8, bearoff: bool, probs: F64, kinds: I8, counts: I64, rows: I8,
                  values: F32, esc: I64, class_net: I64, w1m: F32, b1: F32, w2t: F32, b2: F32,
                  activation: int, dist: F32, gdist: F32, two: F32, binom: I64) -> int:
    """0-ply probabilities of ``boards`` into ``probs`` (ended games exact, bear-offs from
    the tables when ``bearoff``, the rest through the networks); the scratch arrays need as
    many rows as ``boards``. Returns 0 or :data:`NEED_TABLES`."""
    static_kinds(boards, bearoff, probs, kinds, counts)
    return static_fill(boards, boards.shape[0], kinds, counts, probs, rows, values, esc,
                       class_net, w1m, b1, w2t, b2, activation, dist, gdist, two, binom)
