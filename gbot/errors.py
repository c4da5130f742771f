"""The exception hierarchy: one ``GbotError`` root, one class per failure, messages quote input."""

from __future__ import annotations


class GbotError(Exception):
    """Root of every error gbot raises on purpose."""


class PositionIdError(GbotError, ValueError):
    """A gnubg Position ID that cannot be decoded or describes an impossible position."""


class MatchIdError(GbotError, ValueError):
    """A gnubg Match ID that cannot be decoded or holds impossible values."""


class XgidError(GbotError, ValueError):
    """An XGID that cannot be parsed."""


class BoardError(GbotError, ValueError):
    """A board array that breaks the rules of the layout (checker counts, shared points)."""


class MoveParseError(GbotError, ValueError):
    """Move text that cannot be read as a backgammon move at all."""


class IllegalMoveError(GbotError, ValueError):
    """Move text that parses but is not a legal play for this position and roll."""


class FibsBoardError(GbotError, ValueError):
    """A ``board:`` line that cannot be parsed."""


class MatchRuleError(GbotError, ValueError):
    """A referee transition that the rules do not allow in the current match state."""


class MatchFileError(GbotError, ValueError):
    """A match file (``.mat``) that cannot be read."""


class ProtocolError(GbotError, ValueError):
    """A request of gnubg's external-player protocol that cannot be understood."""


class MatchEquityError(GbotError, ValueError):
    """A match equity table that cannot be read, or a score it cannot answer."""


class CubeError(GbotError, ValueError):
    """Cube-decision input that makes no sense (probabilities, cube value, owner, match score)."""


class EvaluatorError(GbotError, ValueError):
    """Arguments the evaluator cannot search with (ply, move filters, weights source)."""


class WeightsError(GbotError, ValueError):
    """A network weights file (or array set) that cannot be loaded or has the wrong shapes."""


class TournamentError(GbotError, ValueError):
    """A tournament that cannot be set up or resumed: player specs, options, results files."""


class PlayerError(GbotError, RuntimeError):
    """A tournament player that failed: an engine that cannot start, or a reply that is no
    legal answer to the question asked."""


class FieldError(GbotError, ValueError):
    """A number or token from outside (a protocol line, a request, a file) that is malformed
    or out of its field's range."""


class BackendError(GbotError, RuntimeError):
    """Parallel work that cannot run where it was asked to: an unknown backend, or Ray
    missing or out of reach."""
