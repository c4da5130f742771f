"""The replies the cubeful lookahead (:mod:`gbot.cube.lookahead`) searches, in one kernel call.

For a position and each roll of a list, :func:`replies` plays the 0-ply best play
(:func:`gbot.core.oneply.best_of`, exact bear-offs) and writes the result, seen by the
opponent now on roll, with the opponent's 0-ply probabilities. A roll with no legal play passes
the turn (the board itself, seen by the opponent).
"""

from __future__ import annotations

from gbot.core.arrays import F64, I8, I64, read_only
from gbot.core.bestplay import Nets
from gbot.core.expand import invert_into
from gbot.core.jit import jit
from gbot.core.oneply import Scratch, best_of, result_of, value_of


@jit
def replies(board: I8, caucasian: bool, rolls: I64, s: Scratch, keys: I64, net: Nets,
            boards: I8, probs: F64) -> int:
    """``boards[r]``: the result of the 0-ply best play of ``board`` with ``rolls[r]``, seen
    by the opponent; ``probs[r]``: the opponent's 0-ply probabilities there. Returns 0 or
    :func:`best_of`'s failure code."""
    for r in range(rolls.shape[0]):
        code = best_of(read_only(board), rolls[r, 0], rolls[r, 1], caucasian, s, keys, net)
        if code != 0:
            return code
        result_of(read_only(board), s, s.nxt)
        for i in range(26):
            boards[r, i] = s.nxt[i]
        p = s.play
        if p.res[0] >= 2:
            invert_into(p.mover[p.res[1]], s.mine)
            for c in range(5):
                probs[r, c] = s.mine[c]
        else:
            value_of(s.nxt, s, net, s.mine)
            for c in range(5):
                probs[r, c] = s.mine[c]
    return 0
