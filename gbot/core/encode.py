"""Network inputs: gbot's own encoding of a board (side to move first) as ``float32[N_INPUTS]``.

The board layout is :mod:`gbot.core.board`. Each side is encoded from its own point of view (its
own point numbers 1..24, bar as slot 25), the side to move first, then the opponent:

Raw part, per side (:data:`RAW_PER_SIDE` = 101 inputs, side ``s`` starts at ``s * 101``):
    For each slot ``j`` = 0..24 (own point ``j + 1``; 24 = bar) holding ``n`` checkers, four
    inputs at ``4 j``: ``n >= 1``, ``n >= 2``, ``n >= 3``, ``max(n - 3, 0) / 2``. Then one input,
    checkers borne off / 15.

Hand-made features, per side (:data:`N_FEATURES` each, side ``s`` starts at
``FEATURES_AT + s * N_FEATURES``), all for that side as if it were on roll:

    0. ``PIPS``: pip count / 100.
    1. ``BACK_ESCAPES``: share of the 36 rolls that carry its rearmost checker past every
       opposing point (two or more checkers) among the 12 points in front of it.
    2. ``CONTAINMENT``: the smallest such share over the starting points 13..24 (how well the
       opponent's blocks hold a checker anywhere in the opponent's half).
    3. ``SHOTS``: share of the 36 rolls on which this side can hit an opposing blot (single
       and combined moves, intermediate landing points checked; from the bar only when on it).
    4. ``PRIME``: longest run of consecutive own points held (two or more checkers) / 6.
    5. ``HOME_POINTS``: own points 1..6 held / 6.
    6. ``ANCHOR``: ``(25 - p) / 6`` for the lowest own point ``p`` in 19..24 held, else 0.
    7. ``ANCHORS``: own points held in 19..24 / 3.
    8. ``DANCE``: (opposing points held in this side's entry zone 19..24 / 6) squared, the
       chance a checker on the bar fails to enter.
    9. ``BLOTS``: own single checkers on the board / 5.
    10. ``BACK``: own rearmost checker's point / 25 (bar = 25).
    11. ``OUTSIDE``: own checkers not yet in the home board (points 7..24 and bar) / 15.
    12. ``OUTSIDE_PIPS``: pips those checkers still need to reach point 6 / 50.
    13. ``CROSSOVERS``: 6-point zones those checkers still have to cross to get home / 15.
    14. ``PIP_LOSS``: the opponent's expected pip loss to this side's hits: over the 36 rolls,
        the pips the hit checker loses (its distance travelled, the farthest blot hittable on
        that roll) / 36, scaled / 12.
    15. ``DOUBLE_SHOTS``: share of the 36 rolls on which two or more different opposing blots
        are each hittable (a double hit may be possible).
    16. ``BREAK_CONTACT``: pips this side's checkers behind the opponent's rearmost checker
        need to pass it (distance to one point beyond it, summed) / 100.
    17. ``MOBILITY``: over this side's occupied points (and the bar), the dice 1..6 that take a
        checker from there to a point on the board the opponent does not hold, summed / 36.
    18. ``MOMENT2``: the spread of its checkers in play (points, bar = 25): ``floor(4 x
        variance)`` / 400.
    19. ``TIMING``: pips it can play without giving up a home point: the pips its checkers
        outside need to reach point 6, plus each spare (beyond two) on points 2..6 moved down
        to point 1, / 100.
    20. ``OUTFIELD``: own points held among 7..18 / 6.
    21. ``WASTAGE``: bear-in wastage of its home board: two per checker beyond one on point 1,
        one per checker beyond one on point 2 and beyond three on point 3, one per empty point
        among 4..6; / 20.
    22. ``LEAD``: ``100 + floor(100 x (opponent's pips - own pips) / own pips)``, clipped to
        0..400, / 100 (its pip lead relative to its own count; own pips 0 counts as 1).
    23-36. ``OFF_1`` .. ``OFF_14``: 1 when at least ``k`` of its checkers are borne off
        (``k`` = 1..14): the borne-off count in unary, whose thresholds (rolls left to bear
        off, a first checker off that saves the gammon) a race's value turns on.

Everything a kernel needs besides the board (the escape table) is passed in, built lazily by
:func:`escape_table`.
"""

from __future__ import annotations

import functools

import numpy as np
import numpy.typing as npt

from gbot.core.board import Board
from gbot.core.jit import jit, jit_bare
from gbot.core.movegen import _top

Inputs = npt.NDArray[np.float32]

SLOTS = 25
RAW_PER_SIDE = 4 * SLOTS + 1
OFF_AT = 4 * SLOTS
N_OFF_UNITS = 14
N_FEATURES = 23 + N_OFF_UNITS
FEATURES_AT = 2 * RAW_PER_SIDE
N_INPUTS = FEATURES_AT + 2 * N_FEATURES

PIPS = 0
BACK_ESCAPES = 1
CONTAINMENT = 2
SHOTS = 3
PRIME = 4
HOME_POINTS = 5
ANCHOR = 6
ANCHORS = 7
DANCE = 8
BLOTS = 9
BACK = 10
OUTSIDE = 11
OUTSIDE_PIPS = 12
CROSSOVERS = 13
PIP_LOSS = 14
DOUBLE_SHOTS = 15
BREAK_CONTACT = 16
MOBILITY = 17
MOMENT2 = 18
TIMING = 19
OUTFIELD = 20
WASTAGE = 21
LEAD = 22
OFF_1 = 23
FEATURE_NAMES = ("pips", "back_escapes", "containment", "shots", "prime", "home_points",
                 "anchor", "anchors", "dance", "blots", "back", "outside", "outside_pips",
                 "crossovers", "pip_loss", "double_shots", "break_contact", "mobility",
                 "moment2", "timing", "outfield", "wastage", "lead",
                 *(f"off{k}" for k in range(1, N_OFF_UNITS + 1)))
LEGACY_FEATURE_COUNTS = (14, 17, 23)
"""Features per side of older encodings (networks v6 and before: 14; v7: 17; v8 to v12: 23),
whose weights load with zeros for the newer features (:func:`upgrade_w1`)."""

WINDOW = 12


@jit
def _build_escape_table(out: npt.NDArray[np.int64]) -> None:
    """``out[m]``: rolls of 36 on which a checker passes the blocks of window mask ``m``.

    Bit ``WINDOW - k`` of ``m`` set means the point ``k`` pips ahead (k = 1..12) is blocked.
    A roll escapes when the checker can reach a distance beyond the farthest block."""
    for m in range(1 << WINDOW):
        far = 0
        for k in range(1, WINDOW + 1):
            if m >> (WINDOW - k) & 1:
                far = k
        if far == 0:
            out[m] = 36
            continue
        count = 0
        for a in range(1, 7):
            for c in range(1, 7):
                best = 0
                if a == c:
                    pos = 0
                    for _ in range(4):
                        pos += a
                        if pos <= WINDOW and m >> (WINDOW - pos) & 1:
                            break
                        best = pos
                else:
                    for first, second in ((a, c), (c, a)):
                        if first <= WINDOW and m >> (WINDOW - first) & 1:
                            continue
                        if first > best:
                            best = first
                        tot = first + second
                        if tot <= WINDOW and m >> (WINDOW - tot) & 1:
                            continue
                        if tot > best:
                            best = tot
                if best > far:
                    count += 1
        out[m] = count


@functools.cache
def escape_table() -> npt.NDArray[np.int64]:
    """The escape-count table used by the feature kernels (built once per process)."""
    out = np.zeros(1 << WINDOW, dtype=np.int64)
    _build_escape_table(out)
    out.setflags(write=False)
    return out


@jit
def _window(blocked: int, p: int) -> int:
    """Mask of blocked points among the 12 in front of point ``p`` (bit 11 = point p - 1)."""
    if p >= WINDOW:
        return (blocked >> (p - WINDOW)) & ((1 << WINDOW) - 1)
    return (blocked << (WINDOW - p)) & ((1 << WINDOW) - 1)


def _shot_tables() -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64],
                            npt.NDArray[np.int64]]:
    """Per distance d (1..24): rolls hitting with one die, the two-dice combinations and the
    doubles (each ``(roll bits, first die, second die or step count)``)."""
    direct = np.zeros(25, dtype=np.int64)
    combos = np.zeros((25, 4, 3), dtype=np.int64)  # bits, a, c (a < c, a + c = d)
    doubles = np.zeros((25, 4, 3), dtype=np.int64)  # bits, a, k (k * a = d, k = 2..4)
    n_c = np.zeros(25, dtype=np.int64)
    n_d = np.zeros(25, dtype=np.int64)

    def bits(a: int, c: int) -> int:
        return (1 << (6 * (a - 1) + (c - 1))) | (1 << (6 * (c - 1) + (a - 1)))

    for d in range(1, 25):
        if d <= 6:
            for c in range(1, 7):
                direct[d] |= bits(d, c)
        for a in range(1, 7):
            c = d - a
            if a < c <= 6:
                combos[d, n_c[d]] = (bits(a, c), a, c)
                n_c[d] += 1
            if d % a == 0 and 2 <= d // a <= 4:
                doubles[d, n_d[d]] = (bits(a, a), a, d // a)
                n_d[d] += 1
    combos[:, 3, 0] = n_c
    doubles[:, 3, 0] = n_d
    return direct, combos, doubles


_DIRECT, _COMBOS, _DOUBLES = _shot_tables()
_ANY = _DIRECT.copy()
for _d in range(1, 25):
    for _m in range(4):
        _ANY[_d] |= _COMBOS[_d, _m, 0] if _m < _COMBOS[_d, 3, 0] else 0
        _ANY[_d] |= _DOUBLES[_d, _m, 0] if _m < _DOUBLES[_d, 3, 0] else 0
_ALL_ROLLS = (1 << 36) - 1
_ZONES = np.array([0] * 7 + [(p - 7) // 6 + 1 for p in range(7, 26)], dtype=np.int64)


@jit
def _popcount(x: int) -> int:
    """Number of set bits of ``0 <= x < 2 ** 56``."""
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    return (x * 0x0101010101010101) >> 56


def _rolls_hitting(d: int, window: int) -> int:
    """The rolls (bits of :data:`_DIRECT`) on which a checker hits a blot ``d`` pips ahead;
    bit ``i`` of ``window`` set where the point ``i + 1`` pips past the blot (towards the
    checker) is blocked (``d - 1`` bits)."""
    if window == 0:
        return int(_ANY[d])
    hit = int(_DIRECT[d])
    for m in range(_COMBOS[d, 3, 0]):
        if (not (window >> (d - 1 - _COMBOS[d, m, 1])) & 1
                or not (window >> (d - 1 - _COMBOS[d, m, 2])) & 1):
            hit |= _COMBOS[d, m, 0]
    for m in range(_DOUBLES[d, 3, 0]):
        a = _DOUBLES[d, m, 1]
        ok = True
        for j in range(1, _DOUBLES[d, m, 2]):
            if (window >> (d - 1 - j * a)) & 1:
                ok = False
                break
        if ok:
            hit |= _DOUBLES[d, m, 0]
    return hit


_hit_mask = jit(_rolls_hitting)
NEAR = 12
"""Distances up to which :func:`_rolls_hitting` is looked up in :data:`_HITS`."""
_HITS = np.array([_rolls_hitting(d, w) for d in range(1, NEAR + 1) for w in range(1 << (d - 1))],
                 dtype=np.int64)
"""``_rolls_hitting(d, window)`` at ``(1 << (d - 1)) - 1 + window`` for ``d <= NEAR``."""


_REACH = sum(1 << d for d in (*range(1, NEAR + 1), 15, 16, 18, 20, 24))
"""Bit ``d`` set for the distances from which a checker can hit (one die, two dice, three or
four steps of a double): beyond :data:`NEAR`, only a double's 15, 16, 18, 20 and 24."""


@jit
def _shots(b: Board, blocked: int) -> tuple[int, int, int]:
    """:func:`_shot_counts` of the side to move in ``b`` (``blocked``: bit ``p`` set where
    the opponent holds point ``p``)."""
    own = 0
    blots = 0
    for p in range(1, 25):
        own |= int(b[p] > 0) << p
        blots |= int(b[p] == -1) << p
    if b[25] > 0:
        own = 1 << 25           # from the bar only
    return _shot_counts(own, blots, blocked)


@jit
def _shot_counts(own: int, blots: int, blocked: int) -> tuple[int, int, int]:
    """For a side moving from the points of bit set ``own`` (bit 25 = the bar): the rolls of
    36 on which it can hit at least one opposing blot (bit set ``blots``), the sum over the 36
    rolls of the farthest-travelled blot it can hit (pips that blot loses), and the rolls on
    which two or more different blots are hittable (``blocked``: the points the opponent
    holds), all in that side's numbering."""
    covered = 0
    twice = 0
    loss = 0
    while blots:                 # farthest-travelled blot (highest point) first
        t = _top(blots)
        blots ^= 1 << t
        mask = 0
        ahead = own & (_REACH << t)
        while ahead:
            q = _top(ahead)
            ahead ^= 1 << q
            d = q - t
            window = (blocked >> (t + 1)) & ((1 << (d - 1)) - 1)
            if d <= NEAR:
                mask |= _HITS[(1 << (d - 1)) - 1 + window]
            else:
                mask |= _hit_mask(d, window)
        loss += t * _popcount(mask & ~covered)
        twice |= mask & covered
        covered |= mask
    return _popcount(covered), loss, _popcount(twice)


@jit
def side_features(b: Board, esc: npt.NDArray[np.int64], out: Inputs, at: int) -> None:
    """Write the :data:`N_FEATURES` features of the side to move in ``b`` at ``out[at:]``."""
    blocked = 0
    dance_points = 0
    for p in range(1, 25):
        if b[p] <= -2:
            blocked |= 1 << p
            if p >= 19:
                dance_points += 1
    pips = 25 * int(b[25])
    back = 25 if b[25] > 0 else 0
    run = 0
    best_run = 0
    home = 0
    anchor = 0
    anchors = 0
    blots = 0
    outside = int(b[25])
    outside_pips = 19 * int(b[25])
    crossovers = 4 * int(b[25])
    for p in range(1, 25):
        v = int(b[p])
        if v > 0:
            pips += p * v
            if p > back:
                back = p
            if v == 1:
                blots += 1
            if p > 6:
                outside += v
                outside_pips += v * (p - 6)
                crossovers += v * ((p - 7) // 6 + 1)
        if v >= 2:
            run += 1
            if run > best_run:
                best_run = run
            if p <= 6:
                home += 1
            if p >= 19:
                anchors += 1
                if anchor == 0:
                    anchor = 25 - p
        else:
            run = 0
    contain = 36
    for p in range(13, 25):
        e = esc[_window(blocked, p)]
        if e < contain:
            contain = e
    back_esc = esc[_window(blocked, back)] if back > 0 else 36
    out[at + PIPS] = pips / 100.0
    out[at + BACK_ESCAPES] = back_esc / 36.0
    out[at + CONTAINMENT] = contain / 36.0
    shots, loss, twice = _shots(b, blocked)
    out[at + SHOTS] = shots / 36.0
    out[at + PRIME] = best_run / 6.0
    out[at + HOME_POINTS] = home / 6.0
    out[at + ANCHOR] = anchor / 6.0
    out[at + ANCHORS] = anchors / 3.0
    out[at + DANCE] = dance_points * dance_points / 36.0
    out[at + BLOTS] = blots / 5.0
    out[at + BACK] = back / 25.0
    out[at + OUTSIDE] = outside / 15.0
    out[at + OUTSIDE_PIPS] = outside_pips / 50.0
    out[at + CROSSOVERS] = crossovers / 15.0
    out[at + PIP_LOSS] = loss / (36.0 * 12.0)
    out[at + DOUBLE_SHOTS] = twice / 36.0
    out[at + BREAK_CONTACT] = _break_contact(b) / 100.0
    opp_pips = 25 * -int(b[0])
    for p in range(1, 25):
        if b[p] < 0:
            opp_pips += (25 - p) * -int(b[p])
    n = 0
    s2 = 0
    for p in range(1, 26):
        if b[p] > 0:
            n += int(b[p])
            s2 += p * p * int(b[p])
    timing = outside_pips
    for p in range(2, 7):
        if b[p] > 2:
            timing += (int(b[p]) - 2) * (p - 1)
    outfield = 0
    for p in range(7, 19):
        if b[p] >= 2:
            outfield += 1
    out[at + MOBILITY] = _mobility(b, blocked) / 36.0
    out[at + MOMENT2] = _moment2(n, pips, s2) / 400.0
    out[at + TIMING] = timing / 100.0
    out[at + OUTFIELD] = outfield / 6.0
    out[at + WASTAGE] = _wastage(max(int(b[1]), 0), max(int(b[2]), 0), max(int(b[3]), 0),
                                 max(int(b[4]), 0), max(int(b[5]), 0),
                                 max(int(b[6]), 0)) / 20.0
    out[at + LEAD] = _lead(pips, opp_pips) / 100.0
    for k in range(N_OFF_UNITS):
        out[at + OFF_1 + k] = 1.0 if 15 - n >= k + 1 else 0.0


@jit
def _mobility(b: Board, blocked: int) -> int:
    """Dice 1..6 that move a checker of the side to move from each of its occupied points
    (bar included, ``blocked`` as in :func:`_shots`) to an open point on the board, summed."""
    total = 0
    for p in range(2, 26):
        if b[p] <= 0:
            continue
        for d in range(1, 7):
            t = p - d
            if t >= 1 and not (blocked >> t) & 1:
                total += 1
    return total


@jit
def _open_moves(occupied: int, blocked: int) -> int:
    """:func:`_mobility` from bit masks: ``occupied`` bit ``p`` set where the side has a
    checker on point ``p`` (25 = bar), ``blocked`` as in :func:`_shots`."""
    total = 0
    for d in range(1, 7):
        total += _popcount(occupied & ~(blocked << d) & ~((1 << (d + 1)) - 1))
    return total


@jit
def _moment2(n: int, s1: int, s2: int) -> int:
    """``floor(4 x variance)`` of ``n`` checker points with sum ``s1`` and square sum ``s2``."""
    if n == 0:
        return 0
    return (4 * (n * s2 - s1 * s1)) // (n * n)


@jit
def _wastage(n1: int, n2: int, n3: int, n4: int, n5: int, n6: int) -> int:
    """Bear-in wastage of a home board holding ``n1..n6`` checkers on points 1..6."""
    return (2 * max(n1 - 1, 0) + max(n2 - 1, 0) + max(n3 - 3, 0)
            + int(n4 == 0) + int(n5 == 0) + int(n6 == 0))


@jit
def _lead(own: int, other: int) -> int:
    """The relative pip lead count of :data:`LEAD` for pip counts ``own`` and ``other``."""
    lead = 100 + (100 * (other - own)) // max(own, 1)
    return min(max(lead, 0), 400)


@jit
def _break_contact(b: Board) -> int:
    """Pips the side to move's checkers behind the opponent's rearmost checker need to reach
    its point (0 when there is no contact; a checker on the bar counts from 25)."""
    if b[0] < 0:
        lowest = 0
    else:
        lowest = 25
        for t in range(1, 25):
            if b[t] < 0:
                lowest = t
                break
    total = 0
    for p in range(lowest + 1, 26):
        if b[p] > 0:
            total += (p - lowest) * int(b[p])
    return total


FEATURE_SCALE = np.array([1 / 100, 1 / 36, 1 / 36, 1 / 36, 1 / 6, 1 / 6, 1 / 6, 1 / 3, 1 / 36,
                          1 / 5, 1 / 25, 1 / 15, 1 / 50, 1 / 15, 1 / 432, 1 / 36, 1 / 100,
                          1 / 36, 1 / 400, 1 / 100, 1 / 6, 1 / 20, 1 / 100,
                          *([1.0] * N_OFF_UNITS)],
                         dtype=np.float32)
"""Each feature is an integer count (:func:`feature_counts`) times its scale (``DANCE``'s count
is the square of the opposing points held)."""
FEATURE_MAX = np.array([375, 36, 36, 36, 24, 6, 6, 6, 36, 15, 25, 15, 285, 60, 864, 36, 375,
                        90, 576, 360, 12, 40, 400, *([1] * N_OFF_UNITS)], dtype=np.int64)
"""Upper bounds of the counts."""
FEATURE_SCALE.setflags(write=False)
FEATURE_MAX.setflags(write=False)
_SCALE = FEATURE_SCALE


@jit
def _write_side(out: npt.NDArray[np.int64], at: int, pips: int, back_esc: int, contain: int,
                shots: int, best_run: int, home: int, anchor: int, anchors: int, dance: int,
                blots: int, back: int, outside: int, outside_pips: int,
                crossovers: int, loss: int, twice: int, contact: int, mobility: int,
                moment2: int, timing: int, outfield: int, wastage: int, lead: int,
                off: int) -> None:
    out[at + PIPS] = pips
    out[at + BACK_ESCAPES] = back_esc
    out[at + CONTAINMENT] = contain
    out[at + SHOTS] = shots
    out[at + PRIME] = best_run
    out[at + HOME_POINTS] = home
    out[at + ANCHOR] = anchor
    out[at + ANCHORS] = anchors
    out[at + DANCE] = dance * dance
    out[at + BLOTS] = blots
    out[at + BACK] = back
    out[at + OUTSIDE] = outside
    out[at + OUTSIDE_PIPS] = outside_pips
    out[at + CROSSOVERS] = crossovers
    out[at + PIP_LOSS] = loss
    out[at + DOUBLE_SHOTS] = twice
    out[at + BREAK_CONTACT] = contact
    out[at + MOBILITY] = mobility
    out[at + MOMENT2] = moment2
    out[at + TIMING] = timing
    out[at + OUTFIELD] = outfield
    out[at + WASTAGE] = wastage
    out[at + LEAD] = lead
    for k in range(N_OFF_UNITS):
        out[at + OFF_1 + k] = 1 if off >= k + 1 else 0


@jit
def _contain(blocked: int, esc: npt.NDArray[np.int64]) -> int:
    contain = 36
    for p in range(13, 25):
        e = esc[_window(blocked, p)]
        if e < contain:
            contain = e
    return contain


def _slot_weights() -> npt.NDArray[np.int64]:
    """Per slot ``p`` (0..25 in a side's own numbering, 25 = bar), the weights of that side's
    checker sums: ``[0]`` pips, ``[1]`` squared points, ``[2]`` outside checkers, ``[3]``
    outside pips, ``[4]`` crossovers, ``[5]`` pips a spare (beyond two) on points 2..6 can
    move down to point 1."""
    p = np.arange(26, dtype=np.int64)
    spare = np.where((p >= 2) & (p <= 6), p - 1, 0)
    return np.stack([p, p * p, (p > 6).astype(np.int64), np.maximum(p - 6, 0), _ZONES,
                     spare]).astype(np.int64)


_WEIGHTS = _slot_weights()
_WEIGHTS.setflags(write=False)
_POINTS = ((1 << 25) - 1) & ~1
"""Bits 1..24 (the points, neither bar)."""
_HOME = 0x7E
"""Bits 1..6."""
_FIELD = ((1 << 19) - 1) & ~((1 << 7) - 1)
"""Bits 7..18."""
_ENTRY = _POINTS & ~((1 << 19) - 1)
"""Bits 19..24."""


@jit
def _low(x: int) -> int:
    """The lowest set bit of ``x > 0``."""
    return _top(x & -x)


@jit
def _longest_run(x: int) -> int:
    """Longest run of consecutive set bits of ``x >= 0``."""
    n = 0
    while x:
        x &= x >> 1
        n += 1
    return n


@jit
def _contact_from(b: Board, lowest: int, side: int) -> int:
    """:func:`_break_contact` of the side to move (``side`` 1) or of the opponent (-1, in its
    own numbering) in ``b``, given the other side's rearmost point ``lowest`` in that
    numbering."""
    total = 0
    for p in range(lowest + 1, 26):
        v = side * int(b[p if side > 0 else 25 - p])
        if v > 0:
            total += (p - lowest) * v
    return total


@jit_bare
def feature_counts(b: Board, esc: npt.NDArray[np.int64], out: npt.NDArray[np.int64]) -> None:
    """Both sides' feature counts (side to move first) at ``out[:2 * N_FEATURES]``: feature
    ``q`` is ``out[q] * FEATURE_SCALE[q % N_FEATURES]`` (equal to :func:`side_features` of
    ``b`` and of the flipped board)."""
    w = _WEIGHTS
    m_pips = m_n = m_s2 = m_out = m_out_pips = m_cross = m_spare = 0
    o_pips = o_n = o_s2 = o_out = o_out_pips = o_cross = o_spare = 0
    # bit sets, ..._p in the side to move's numbering (bit p), ..._q in the opponent's
    m_occ_p = m_occ_q = o_occ_p = o_occ_q = 0
    m_held_p = m_held_q = o_held_p = o_held_q = 0
    m_blot_q = o_blot_p = 0
    bar = 1 << 25
    for p in range(26):
        v = int(b[p])
        m = max(v, 0)
        o = max(-v, 0)
        q = 25 - p
        m_n += m
        m_pips += w[0, p] * m
        m_s2 += w[1, p] * m
        m_out += w[2, p] * m
        m_out_pips += w[3, p] * m
        m_cross += w[4, p] * m
        m_spare += w[5, p] * max(m - 2, 0)
        o_n += o
        o_pips += w[0, q] * o
        o_s2 += w[1, q] * o
        o_out += w[2, q] * o
        o_out_pips += w[3, q] * o
        o_cross += w[4, q] * o
        o_spare += w[5, q] * max(o - 2, 0)
        bp = 1 << p
        bq = bar >> p
        m_occ_p |= bp * int(m > 0)
        m_occ_q |= bq * int(m > 0)
        o_occ_p |= bp * int(o > 0)
        o_occ_q |= bq * int(o > 0)
        m_held_p |= bp * int(m >= 2)
        m_held_q |= bq * int(m >= 2)
        o_held_p |= bp * int(o >= 2)
        o_held_q |= bq * int(o >= 2)
        m_blot_q |= bq * int(m == 1)
        o_blot_p |= bp * int(o == 1)
    m_held_p &= _POINTS
    m_held_q &= _POINTS
    o_held_p &= _POINTS
    o_held_q &= _POINTS
    m_blot_q &= _POINTS
    o_blot_p &= _POINTS
    m_back = _top(m_occ_p) if m_occ_p else 0
    o_back = _top(o_occ_q) if o_occ_q else 0
    m_esc = esc[_window(o_held_p, m_back)] if m_back > 0 else 36
    o_esc = esc[_window(m_held_q, o_back)] if o_back > 0 else 36
    m_shots, m_loss, m_twice = _shot_counts(bar if b[25] > 0 else m_occ_p, o_blot_p, o_held_p)
    o_shots, o_loss, o_twice = _shot_counts(bar if b[0] < 0 else o_occ_q, m_blot_q, m_held_q)
    m_contact = _contact_from(b, _low(o_occ_p) if o_occ_p else 25, 1)
    o_contact = _contact_from(b, _low(m_occ_q) if m_occ_q else 25, -1)
    m_entry = m_held_p & _ENTRY
    o_entry = o_held_q & _ENTRY
    m_home = _popcount(m_held_p & _HOME)
    o_home = _popcount(o_held_q & _HOME)
    m_waste = _wastage(max(int(b[1]), 0), max(int(b[2]), 0), max(int(b[3]), 0),
                       max(int(b[4]), 0), max(int(b[5]), 0), max(int(b[6]), 0))
    o_waste = _wastage(max(-int(b[24]), 0), max(-int(b[23]), 0), max(-int(b[22]), 0),
                       max(-int(b[21]), 0), max(-int(b[20]), 0), max(-int(b[19]), 0))
    _write_side(out, 0, m_pips, m_esc, _contain(o_held_p, esc), m_shots,
                _longest_run(m_held_p), m_home, 25 - _low(m_entry) if m_entry else 0,
                _popcount(m_entry), o_home, _popcount(m_blot_q), m_back, m_out, m_out_pips,
                m_cross, m_loss, m_twice, m_contact, _open_moves(m_occ_p, o_held_p),
                _moment2(m_n, m_pips, m_s2), m_out_pips + m_spare,
                _popcount(m_held_p & _FIELD), m_waste, _lead(m_pips, o_pips), 15 - m_n)
    _write_side(out, N_FEATURES, o_pips, o_esc, _contain(m_held_q, esc), o_shots,
                _longest_run(o_held_q), o_home, 25 - _low(o_entry) if o_entry else 0,
                _popcount(o_entry), m_home, _popcount(o_blot_p), o_back, o_out, o_out_pips,
                o_cross, o_loss, o_twice, o_contact, _open_moves(o_occ_q, m_held_q),
                _moment2(o_n, o_pips, o_s2), o_out_pips + o_spare,
                _popcount(o_held_q & _FIELD), o_waste, _lead(o_pips, m_pips), 15 - o_n)


@jit
def features(b: Board, esc: npt.NDArray[np.int64], out: Inputs, at: int) -> None:
    """Both sides' features (side to move first) at ``out[at:at + 2 * N_FEATURES]`` (equal
    to :func:`side_features` of ``b`` and of the flipped board)."""
    counts = np.empty(2 * N_FEATURES, dtype=np.int64)
    feature_counts(b, esc, counts)
    for q in range(2 * N_FEATURES):
        out[at + q] = counts[q] * _SCALE[q % N_FEATURES]


@jit
def slot_value(n: int, k: int) -> float:
    """Raw input ``k`` (0..3) of a slot holding ``n`` checkers."""
    if k == 0:
        return 1.0 if n >= 1 else 0.0
    if k == 1:
        return 1.0 if n >= 2 else 0.0
    if k == 2:
        return 1.0 if n >= 3 else 0.0
    return (n - 3) / 2.0 if n > 3 else 0.0


@jit
def side_counts(b: Board, me: npt.NDArray[np.int64], opp: npt.NDArray[np.int64]) -> None:
    """Checker counts per slot from each side's own view: ``[0..23]`` points, 24 bar, 25 off."""
    on_me = int(b[25])
    on_opp = -int(b[0])
    for j in range(24):
        v = int(b[j + 1])
        me[j] = v if v > 0 else 0
        w = int(b[24 - j])
        opp[j] = -w if w < 0 else 0
        on_me += me[j]
        on_opp += opp[j]
    me[24] = b[25]
    opp[24] = -b[0]
    me[25] = 15 - on_me
    opp[25] = 15 - on_opp


@jit
def encode_into(b: Board, esc: npt.NDArray[np.int64], out: Inputs) -> None:
    """Fill ``out`` (``float32[N_INPUTS]``) with the inputs of one board."""
    me = np.empty(26, dtype=np.int64)
    opp = np.empty(26, dtype=np.int64)
    side_counts(b, me, opp)
    for s in range(2):
        cnt = me if s == 0 else opp
        base = s * RAW_PER_SIDE
        for j in range(SLOTS):
            for k in range(4):
                out[base + 4 * j + k] = slot_value(cnt[j], k)
        out[base + OFF_AT] = cnt[25] / 15.0
    features(b, esc, out, FEATURES_AT)


@jit
def encode_batch(boards: npt.NDArray[np.int8], esc: npt.NDArray[np.int64], out: Inputs) -> None:
    """Fill ``out[i]`` with the inputs of ``boards[i]``."""
    for i in range(boards.shape[0]):
        encode_into(boards[i], esc, out[i])


def upgrade_w1(w1: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """First-layer weights for :data:`N_INPUTS` inputs from those of an older encoding with
    one of :data:`LEGACY_FEATURE_COUNTS` features per side: the newer features get zero
    weights, so the network computes exactly what it did (any other shape comes back as is)."""
    if w1.ndim != 2:
        return w1
    for old in LEGACY_FEATURE_COUNTS:
        if w1.shape[0] == FEATURES_AT + 2 * old:
            break
    else:
        return w1
    out = np.zeros((N_INPUTS, w1.shape[1]), dtype=w1.dtype)
    out[:FEATURES_AT] = w1[:FEATURES_AT]
    for s in range(2):
        src = FEATURES_AT + s * old
        dst = FEATURES_AT + s * N_FEATURES
        out[dst:dst + old] = w1[src:src + old]
    return out


def encode(boards: npt.NDArray[np.int8]) -> Inputs:
    """Inputs ``float32[n, N_INPUTS]`` of boards ``int8[n, 26]`` (or one ``int8[26]``)."""
    arr = np.ascontiguousarray(boards, dtype=np.int8).reshape(-1, 26)
    out = np.empty((arr.shape[0], N_INPUTS), dtype=np.float32)
    encode_batch(arr, escape_table(), out)
    return out
