"""gbot: a backgammon bot for GNU Backgammon's external-player protocol and FIBS."""

from __future__ import annotations

__version__ = "0.1.0"
from gbot.match import CENTRE, GameState, MatchState, Rules  # noqa: E402, F401
