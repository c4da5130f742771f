"""Limits shared by every layer, in one place (plain constants: importing this compiles nothing)."""

from __future__ import annotations

MAX_CUBE = 2**15
"""gnubg's largest cube: the cap when the rules set none, the largest value any notation holds."""

__all__ = ["MAX_CUBE"]
