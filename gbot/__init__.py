"""gbot: a backgammon bot for GNU Backgammon's external-player protocol and FIBS."""

from __future__ import annotations

__version__ = "0.1.0"

from gbot.errors import (  # noqa: E402, F401
    BoardError,
    GbotError,
    IllegalMoveError,
    MoveParseError,
    PositionIdError,
)
from gbot.position import Play, Position  # noqa: E402, F401
from gbot.match import CENTRE, GameState, MatchState, Rules  # noqa: E402, F401
