"""gbot: a backgammon bot for GNU Backgammon's external-player protocol and FIBS.

The public names: :class:`Position` and :class:`Play` (rules core), :class:`MatchState` and
:class:`Rules` (match state), the notations (:func:`parse_xgid`, :func:`parse_fibs_board`),
:class:`Evaluator` (cubeless probabilities and plays) and :func:`cube_decision`.
Importing gbot compiles nothing; numba kernels compile or load from cache on first use.
"""

from __future__ import annotations

from gbot.cube.decision import CubeDecision, cube_decision
from gbot.errors import (
    BoardError,
    GbotError,
    IllegalMoveError,
    MoveParseError,
    PositionIdError,
)
from gbot.eval.evaluator import Evaluator
from gbot.game.match import CENTRE, GameState, MatchState, Rules
from gbot.game.notations.fibs_board import FibsBoard, format_fibs_board, parse_fibs_board
from gbot.game.notations.xgid import format_xgid, parse_xgid
from gbot.game.position import Play, Position
from gbot.version import __version__

__all__ = [
    "CENTRE",
    "BoardError",
    "CubeDecision",
    "Evaluator",
    "FibsBoard",
    "GameState",
    "GbotError",
    "IllegalMoveError",
    "MatchState",
    "MoveParseError",
    "Play",
    "Position",
    "PositionIdError",
    "Rules",
    "__version__",
    "cube_decision",
    "format_fibs_board",
    "format_xgid",
    "parse_fibs_board",
    "parse_xgid",
]
