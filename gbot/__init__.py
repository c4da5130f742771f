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
from gbot.protocols.fibs_board import (  # noqa: E402, F401
    FibsBoard,
    format_fibs_board,
    parse_fibs_board,
)
from gbot.xgid import format_xgid, parse_xgid  # noqa: E402, F401
from gbot.eval.evaluator import Evaluator  # noqa: E402, F401
from gbot.cube.decision import CubeDecision, cube_decision  # noqa: E402, F401
