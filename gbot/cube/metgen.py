"""A match equity table computed from gammon rates with gbot's own cube model.

:func:`generate` builds the table score by score: the post-Crawford part from the trailer's
free double, the Crawford game from its gammon rate, and every earlier score with
:func:`gbot.cube.cubeful.cubeful_mwc` over the table built so far. It sits above
:mod:`gbot.cube.met` (the tables) and :mod:`gbot.cube.cubeful` (the model), so neither
imports the other.
"""

from __future__ import annotations

import numpy as np

from gbot.cube.cubeful import CubeContext, cubeful_mwc
from gbot.cube.met import MatchEquityTable
from gbot.errors import MatchEquityError

__all__ = ["generate"]


def generate(length: int = 25, *, gammon_rate: float = 0.27, crawford_gammon_rate: float = 0.29,
             post_gammon_rate: float = 0.29, free_drop_2: float = 0.012,
             free_drop_4: float = 0.004, cube_life: float = 0.7,
             name: str = "gbot generated") -> MatchEquityTable:
    """A match equity table computed from gammon rates with gbot's cube model.

    Every game starts even (a 50 % winning chance). ``gammon_rate`` is the share of wins that
    are gammons in ordinary games, ``crawford_gammon_rate`` in the Crawford game and
    ``post_gammon_rate`` for the trailer after it. After the Crawford game the trailer doubles at
    once and the leader takes or drops, whichever is better; ``free_drop_2`` and
    ``free_drop_4`` are what the leader's free drop is worth at 2 and 4 away (values taken from
    rollouts; a model without dice cannot see them). Before it, each game is valued with the
    Janowski-style model of :mod:`gbot.cube.cubeful` (live-cube take points from the table so
    far, ``cube_life`` between a dead and a fully live cube) at a 50 % starting chance.
    """
    if length < 2:
        raise MatchEquityError(f"a table needs a length of at least 2, got {length!r}")
    n = length
    post = np.zeros(n)
    post[0] = 0.5

    def post_of(away: int) -> float:
        return 1.0 if away <= 0 else float(post[away - 1])

    g = post_gammon_rate
    for a in range(2, n + 1):
        take = 0.5 * ((1.0 - g) * post_of(a - 2) + g * post_of(a - 4))
        drop = post_of(a - 1)
        value = min(take, drop)
        if a == 2:
            value -= free_drop_2
        elif a == 4:
            value -= free_drop_4
        post[a - 1] = value

    pre = np.full((n, n), np.nan)
    pre[0, 0] = 0.5
    gc = crawford_gammon_rate
    for b in range(2, n + 1):
        # The leader wins the Crawford game, or loses a single or a gammon to a post-Crawford
        # score.
        lose1 = 1.0 - post_of(b - 1)
        lose2 = 1.0 - post_of(b - 2) if b > 2 else 0.0
        v = 0.5 + 0.5 * ((1.0 - gc) * lose1 + gc * lose2)
        pre[0, b - 1] = v
        pre[b - 1, 0] = 1.0 - v
    partial = MatchEquityTable(name=name, source="", pre=np.where(np.isnan(pre), 0.5, pre),
                               post=post)
    probs = (0.5, 0.5 * gammon_rate, 0.0, 0.5 * gammon_rate, 0.0)
    for total in range(4, 2 * n + 1):
        for a in range(max(2, total - n), min(n, total - 2) + 1):
            b = total - a
            if a > b:
                continue
            ctx = CubeContext(match_length=max(a, b), away=a, opp_away=b, cube_life=cube_life,
                              met=partial)
            v = cubeful_mwc(probs, ctx)
            partial.pre[a - 1, b - 1] = v
            partial.pre[b - 1, a - 1] = 1.0 - v
    return MatchEquityTable(
        name=name,
        source=(f"gbot.cube.metgen.generate(gammon_rate={gammon_rate}, crawford_gammon_rate={gc}, "
                f"post_gammon_rate={g}, free_drop_2={free_drop_2}, free_drop_4={free_drop_4}, "
                f"cube_life={cube_life})"),
        pre=partial.pre.copy(), post=post)


