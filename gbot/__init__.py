"""gbot: a backgammon bot for GNU Backgammon's external-player protocol and FIBS.

The public names: :class:`Position` and :class:`Play` (rules core), :class:`MatchState` and
:class:`Rules` (match state), the notations (:func:`parse_xgid`, :func:`parse_fibs_board`),
:class:`Evaluator` (cubeless probabilities and plays) and :func:`cube_decision`.
Importing gbot compiles nothing; numba kernels compile or load from cache on first use.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from gbot.cube.decision import CubeDecision, cube_decision
from gbot.errors import (
    BoardError,
    GbotError,
    IllegalMoveError,
    MoveParseError,
    PositionIdError,
)
from gbot.eval.evaluator import Evaluator
from gbot.match import CENTRE, GameState, MatchState, Rules
from gbot.notations.xgid import format_xgid, parse_xgid
from gbot.position import Play, Position
from gbot.protocols.fibs_board import FibsBoard, format_fibs_board, parse_fibs_board

__version__ = "0.1.0"

# Modules that moved into packages keep their old paths (``gbot/<old>.py`` names the new module
# object); these were attributes of ``gbot`` after ``import gbot`` and stay so.
_OLD_MODULES = frozenset(
    {"ids", "matchid", "moves", "xgid", "matfile", "sgf", "sgf_read", "matchnotes"})


def __getattr__(name: str) -> ModuleType:
    """The moved module an old attribute ``gbot.<name>`` names (imported on first use)."""
    if name in _OLD_MODULES:
        return importlib.import_module(f"gbot.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
