"""Old import path of the level-by-level cube model, now in :mod:`gbot.core.cubemath`."""

from __future__ import annotations

from gbot.core.cubemath import (
    MAX_LEVELS,
    MAXV,
    OWNER_CENTRE,
    OWNER_ME,
    OWNER_OPPONENT,
    TOO_BIG,
    cube_values,
    cube_values_rows,
    dead_values_rows,
)

CENTRE = OWNER_CENTRE
ME = OWNER_ME
OPPONENT = OWNER_OPPONENT

__all__ = ["CENTRE", "MAXV", "MAX_LEVELS", "ME", "OPPONENT", "TOO_BIG", "cube_values",
           "cube_values_rows", "dead_values_rows"]
