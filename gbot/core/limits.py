"""Limits shared by every layer, in one place (plain constants: importing this compiles nothing)."""

from __future__ import annotations

MAX_CUBE = 2**15
"""gnubg's largest cube: the cap when the rules set none, the largest value any notation holds."""

MAX_MATCH_LENGTH = 64
"""The longest match gbot plays: gnubg 1.07's limit (FIBS documents none). Longer matches are
refused where they come in (board lines, the engine), which keeps every match-equity table
within 64 x 64."""

__all__ = ["MAX_CUBE", "MAX_MATCH_LENGTH"]
