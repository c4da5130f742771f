"""The look-ahead options of the commands that decide: declared once, so every command states
the same range, default and meaning."""

from __future__ import annotations

import click

from gbot.engine.engine import PLAY_PLY

__all__ = ["MAX_PLY", "cube_ply_option", "play_ply_option"]

MAX_PLY = 4
"""The deepest look-ahead a command accepts."""

play_ply_option = click.option(
    "--ply", type=click.IntRange(0, MAX_PLY), default=PLAY_PLY, show_default=True,
    help="Look-ahead of every decision (2, gnubg's default depth: p99 under 0.1 s a\n"
         "decision on one core; 0 for speed, microseconds).")
"""``--ply`` of a player (``serve``, ``fibs``)."""

cube_ply_option = click.option(
    "--cube-ply", type=click.IntRange(0, MAX_PLY), default=None,
    help="Look-ahead of the cube decisions (default: --ply, at least 2, skipped\n"
         "where the static verdict is clear, as gbot plays; 0 = the static cube model,\n"
         "fastest).")
"""``--cube-ply``: the cube's own look-ahead."""
