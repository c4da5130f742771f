"""Limits and codes shared by every layer, in one place (plain constants: importing this compiles
nothing)."""

from __future__ import annotations

MAX_CUBE = 2**15
"""gnubg's largest cube: the cap when the rules set none, the largest value any notation holds."""

MAX_MATCH_LENGTH = 64
"""The longest match gbot plays: gnubg 1.07's limit (FIBS documents none). Longer matches are
refused where they come in (board lines, the engine), which keeps every match-equity table
within 64 x 64."""

CENTRE = -1
"""The cube owner of a centred cube where owners are player numbers (0 and 1): a
:class:`gbot.MatchState` and a Match ID. (Codes relative to the side on roll are
:data:`gbot.core.cubemath.OWNER_CENTRE` and its two siblings.)"""

__all__ = ["CENTRE", "MAX_CUBE", "MAX_MATCH_LENGTH"]
