"""Old import path of the level-by-level cube model, now in :mod:`gbot.core.cubemath`."""

from __future__ import annotations

from gbot.core.cubemath import (
    CENTRE,
    MAX_LEVELS,
    MAXV,
    ME,
    OPPONENT,
    TOO_BIG,
    cube_values,
    cube_values_rows,
    dead_values_rows,
)

__all__ = ["CENTRE", "MAXV", "MAX_LEVELS", "ME", "OPPONENT", "TOO_BIG", "cube_values",
           "cube_values_rows", "dead_values_rows"]
