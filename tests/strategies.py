"""Hypothesis strategies shared by several test modules (test helper, not shipped)."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from gbot.core.board import from_gnubg


@st.composite
def boards(draw: st.DrawFn) -> np.ndarray:
    """A legal board (side to move first): 15 checkers each spread over points, bar and off
    (many plays)."""
    mine = [0] * 26  # index 0..23 own point 1..24, 24 bar, 25 off
    for _ in range(15):
        mine[draw(st.integers(0, 25))] += 1
    free = [i for i in range(26) if i >= 24 or not mine[23 - i]]
    theirs = [0] * 26
    for _ in range(15):
        theirs[draw(st.sampled_from(free))] += 1
    return from_gnubg(mine[:25], theirs[:25])
