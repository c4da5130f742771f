"""Cube handling: match equity tables, cubeful equity, cube and resignation decisions.

* :mod:`gbot.core.cubemath`: the compiled arithmetic every figure below comes from.
* :mod:`gbot.cube.met`: match equity tables (the shipped Kazaross-XG2, conversions);
  :mod:`gbot.cube.metgen` computes one from gammon rates.
* :mod:`gbot.cube.cubeful`: cubeful equity from cubeless probabilities (Janowski-style model);
* :mod:`gbot.cube.lookahead`: the same decisions with a cubeful n-ply lookahead.
* :mod:`gbot.cube.decision`: double / take / pass / beaver, and :func:`cube_decision`.
* :mod:`gbot.cube.plays`: cube-aware checker play.
* :mod:`gbot.cube.resign`: accepting and offering resignations.

Nothing here loads the evaluator or compiles kernels at import time.
"""

from __future__ import annotations

from gbot.cube.cubeful import CubeContext, CubefulEquities, Owner, cube_life
from gbot.cube.decision import CubeDecision, context_from_state, cube_decision, decide
from gbot.cube.met import MatchEquityTable, default_table, equity_to_mwc, mwc_to_equity
from gbot.cube.resign import accept_resignation, offer_resignation, resignation_level

__all__ = [
    "CubeContext", "CubefulEquities", "Owner", "cube_life",
    "CubeDecision", "context_from_state", "cube_decision", "decide",
    "MatchEquityTable", "default_table", "equity_to_mwc", "mwc_to_equity",
    "accept_resignation", "offer_resignation", "resignation_level",
]
